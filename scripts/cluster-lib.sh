# cluster-lib.sh: a whole ofcd cluster on one machine (sourced by bash; used by
# scripts/cluster-local and tests/integration/cluster_local.sh).
#
# It owns a three-member etcd on loopback and up to nine ofcd nodes, each on
# its own tap and subnet. Everything it starts lives under one directory,
# CL_DIR, with a pid file per process, so a later shell (cluster-local stop,
# status) finds what an earlier one started.
#
#   etcd member K (1..3): client http://127.0.0.1:2381K, peer :2382K,
#       data CL_DIR/etcdK, log CL_DIR/etcdK.log, pid CL_DIR/etcdK.pid
#       (never 2379, the system's, nor 23790-23794, etcd_client.sh's)
#   ofcd node K (1..9): tap ofcK (net_tap0, EAL file-prefix ofcdK),
#       address 10.66.K.2/24 (the kernel side 10.66.K.1/24), OpenFlow on 6653,
#       REST on 127.0.0.1:(8180+K), data CL_DIR/nodeK, ofcdctl socket
#       CL_DIR/nodeK.ctl, log CL_DIR/nodeK.log, pid CL_DIR/nodeK.pid
#
#   cl_etcd_start DIR        the three members; returns when all answer /health;
#                            sets CL_ETCD_ENDPOINTS
#   cl_etcd_stop_member K / cl_etcd_start_member K   one member, same data
#   cl_etcd_leader           the index K of the member that is leader now
#   cl_etcd_stop             all members
#   cl_node_start K DIR [ofcd args...]  node K; returns once it logs "ofcd ready"
#   cl_node_kill K [SIGNAL]  default KILL; KILL and TERM wait for the exit
#   cl_node_stop K           SIGTERM, exit code 0 expected (when our child)
#   cl_node_rest K PATH      curl PATH on node K's REST
#   cl_node_pid K            node K's pid, if it runs
#   cl_controllers N         "tcp:10.66.1.2:6653 ... tcp:10.66.N.2:6653"
#   cl_all_stop              nodes, then etcd (safe from a trap)
#
# Functions print what went wrong on stderr and return non-zero; they never
# exit the caller. OFCD is the ofcd binary (default build/app/ofcd of the
# tree this file is in). CL_DETACH=1 starts the daemons in their own session,
# so they outlive the shell that started them (cluster-local does).

# shellcheck shell=bash
CL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${OFCD:=$CL_ROOT/build/app/ofcd}"
CL_ETCD_N=3
CL_ETCD_ENDPOINTS="http://127.0.0.1:23811,http://127.0.0.1:23812,http://127.0.0.1:23813"

cl_etcd_client() { echo "http://127.0.0.1:$((23810 + $1))"; }
cl_etcd_peer() { echo "http://127.0.0.1:$((23820 + $1))"; }

# cl_alive PIDFILE: the pid in PIDFILE when that process still runs.
cl_alive() {
    local pid
    pid=$(cat "$1" 2>/dev/null) || return 1
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

# cl_wait_gone PID SECONDS: 0 once PID has exited (our child or not).
cl_wait_gone() {
    timeout "$2" tail -s 0.05 --pid="$1" -f /dev/null
}

# cl_spawn PIDFILE LOG CMD...: CMD in the background (its own session with
# CL_DETACH=1), output to LOG, pid to PIDFILE. setsid in a non-interactive
# shell's background job is not a group leader, so it does not fork: the
# recorded pid is the daemon's.
cl_spawn() {
    local pidfile=$1 log=$2
    shift 2
    if [ -n "${CL_DETACH:-}" ]; then
        setsid "$@" >"$log" 2>&1 </dev/null &
    else
        "$@" >"$log" 2>&1 </dev/null &
    fi
    echo $! >"$pidfile"
}

cl_etcd_cluster() {
    local k s=
    for k in $(seq 1 $CL_ETCD_N); do s+="${s:+,}etcd$k=$(cl_etcd_peer "$k")"; done
    echo "$s"
}

# cl_etcd_launch K: member K on its data directory (created the first time;
# etcd ignores the --initial-* flags once it has data, so a restart is the
# same command). etcd keeps every revision until compacted, and ofcd writes
# one per batch of flows and per 100 ms of events: the members compact
# what is older than 10 minutes themselves (a node away longer reads
# everything again when it comes back).
cl_etcd_launch() {
    local k=$1 c p
    c=$(cl_etcd_client "$k")
    p=$(cl_etcd_peer "$k")
    if cl_alive "$CL_DIR/etcd$k.pid" >/dev/null; then
        echo "etcd member $k already runs (pid $(cat "$CL_DIR/etcd$k.pid"))" >&2
        return 1
    fi
    cl_spawn "$CL_DIR/etcd$k.pid" "$CL_DIR/etcd$k.log" \
        etcd --name "etcd$k" --data-dir "$CL_DIR/etcd$k" \
        --listen-client-urls "$c" --advertise-client-urls "$c" \
        --listen-peer-urls "$p" --initial-advertise-peer-urls "$p" \
        --initial-cluster "$(cl_etcd_cluster)" --initial-cluster-token ofcd-cluster-local \
        --initial-cluster-state new \
        --auto-compaction-mode periodic --auto-compaction-retention 10m
}

# cl_etcd_healthy K SECONDS: until member K answers /health with true (which
# it does only with a leader, i.e. in quorum).
cl_etcd_healthy() {
    local k=$1 end=$((SECONDS + $2)) pid
    pid=$(cat "$CL_DIR/etcd$k.pid" 2>/dev/null)
    while :; do
        curl -s -m 1 "$(cl_etcd_client "$k")/health" | grep -q '"health":"true"' && return 0
        if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
            echo "etcd member $k exited; the end of $CL_DIR/etcd$k.log:" >&2
            tail -n 20 "$CL_DIR/etcd$k.log" >&2
            return 1
        fi
        if [ $SECONDS -ge $end ]; then
            echo "etcd member $k not healthy after $2 s; the end of its log:" >&2
            tail -n 20 "$CL_DIR/etcd$k.log" >&2
            return 1
        fi
        sleep 0.1
    done
}

cl_etcd_start() {
    CL_DIR=$1
    local k
    command -v etcd >/dev/null || { echo "etcd missing (Debian: etcd-server)" >&2; return 1; }
    mkdir -p "$CL_DIR" || return 1
    for k in $(seq 1 $CL_ETCD_N); do cl_etcd_launch "$k" || return 1; done
    for k in $(seq 1 $CL_ETCD_N); do cl_etcd_healthy "$k" 30 || return 1; done
}

cl_etcd_start_member() {
    cl_etcd_launch "$1" && cl_etcd_healthy "$1" 30
}

cl_etcd_stop_member() {
    local pid
    pid=$(cl_alive "$CL_DIR/etcd$1.pid") || return 0
    kill -TERM "$pid"
    cl_wait_gone "$pid" 10 || { kill -KILL "$pid"; cl_wait_gone "$pid" 5; }
    wait "$pid" 2>/dev/null
    rm -f "$CL_DIR/etcd$1.pid"
    return 0
}

cl_etcd_stop() {
    local k
    for k in $(seq 1 $CL_ETCD_N); do cl_etcd_stop_member "$k"; done
}

# cl_etcd_leader: each running member's own view (the JSON gateway's
# maintenance status); the member whose id is the leader's prints its index.
cl_etcd_leader() {
    local k st
    for k in $(seq 1 $CL_ETCD_N); do
        st=$(curl -s -m 1 -X POST -d '{}' "$(cl_etcd_client "$k")/v3/maintenance/status") ||
            continue
        if jq -e '.leader != null and .header.member_id == .leader' <<<"$st" >/dev/null 2>&1
        then
            echo "$k"
            return 0
        fi
    done
    return 1
}

# cl_node_wait_ready K SECONDS: until node K logs "ofcd ready"; an ERROR line
# or its exit first is a failure, shown with the end of its log.
cl_node_wait_ready() {
    local k=$1 log=$CL_DIR/node$1.log end=$((SECONDS + $2)) pid
    pid=$(cat "$CL_DIR/node$k.pid")
    while :; do
        grep -q 'ofcd ready' "$log" 2>/dev/null && return 0
        if grep -q 'ERROR' "$log" 2>/dev/null || ! kill -0 "$pid" 2>/dev/null ||
            [ $SECONDS -ge $end ]; then
            echo "ofcd node $k did not start; the end of $log:" >&2
            tail -n 30 "$log" >&2
            return 1
        fi
        sleep 0.1
    done
}

# Three nodes share the machine's cores: each node's single lcore (io and
# worker, lcores.* defaults) floats over every CPU instead of EAL pinning all
# of them to CPU 0, and idles with the default back-off.
cl_node_start() {
    local k=$1
    CL_DIR=$2
    shift 2
    case $k in [1-9]) ;; *) echo "node index $k: 1..9" >&2; return 1 ;; esac
    [ -x "$OFCD" ] || { echo "no ofcd binary at $OFCD (make build, or set OFCD)" >&2; return 1; }
    if cl_alive "$CL_DIR/node$k.pid" >/dev/null; then
        echo "node $k already runs (pid $(cat "$CL_DIR/node$k.pid"))" >&2
        return 1
    fi
    mkdir -p "$CL_DIR/node$k" || return 1
    local eal="--no-huge -m 512 --no-pci --vdev=net_tap0,iface=ofc$k --file-prefix=ofcd$k"
    eal+=" --lcores=0@(0-$(($(nproc) - 1)))"
    cl_spawn "$CL_DIR/node$k.pid" "$CL_DIR/node$k.log" "$OFCD" "--eal.args=$eal" \
        --net.address="10.66.$k.2/24" --net.kernel_address="10.66.$k.1/24" \
        --rest.listen="127.0.0.1:$((8180 + k))" \
        --app.data_dir="$CL_DIR/node$k" --app.ctl_socket="$CL_DIR/node$k.ctl" \
        --app.stats_log_interval_s=0 \
        --cluster.etcd_endpoints="$CL_ETCD_ENDPOINTS" --cluster.node_id="node$k" "$@"
    cl_node_wait_ready "$k" 60
}

cl_node_pid() {
    cl_alive "$CL_DIR/node$1.pid"
}

cl_node_kill() {
    local k=$1 sig=${2:-KILL} pid
    pid=$(cl_node_pid "$k") || { echo "node $k does not run" >&2; return 1; }
    kill -"$sig" "$pid" || return 1
    case $sig in
        KILL|9|TERM|15)
            cl_wait_gone "$pid" 10 || { echo "node $k alive 10 s after SIG$sig" >&2; return 1; }
            wait "$pid" 2>/dev/null
            rm -f "$CL_DIR/node$k.pid"
            ;;
    esac
    return 0
}

# cl_node_stop K: SIGTERM and its exit within 10 s; the exit code is checked
# only when the node is this shell's child (otherwise nobody can read it).
cl_node_stop() {
    local k=$1 pid rc=0
    pid=$(cl_node_pid "$k") || return 0
    kill -TERM "$pid" || return 1
    cl_wait_gone "$pid" 10 || { echo "node $k alive 10 s after SIGTERM" >&2; return 1; }
    if jobs -p | grep -qx "$pid"; then
        wait "$pid"
        rc=$?
    fi
    rm -f "$CL_DIR/node$k.pid"
    [ $rc -eq 0 ] || { echo "node $k exit code $rc after SIGTERM" >&2; return 1; }
}

cl_node_rest() {
    curl -s -m 5 "http://127.0.0.1:$((8180 + $1))$2"
}

cl_controllers() {
    local k s=
    for k in $(seq 1 "$1"); do s+="${s:+ }tcp:10.66.$k.2:6653"; done
    echo "$s"
}

# cl_all_stop: every node under CL_DIR (SIGTERM, then KILL if it lingers),
# then etcd. Touches only what the pid files under CL_DIR name.
cl_all_stop() {
    [ -n "${CL_DIR:-}" ] || return 0
    local f k
    for f in "$CL_DIR"/node[1-9].pid; do
        [ -e "$f" ] || continue
        k=${f##*/node}
        k=${k%.pid}
        cl_node_stop "$k" || cl_node_kill "$k" KILL 2>/dev/null
    done
    cl_etcd_stop
}
