# Open vSwitch in user space for the integration tests (sourced).
# A private ovsdb + ovs-vswitchd under $OVS_DIR (no kernel module, bridges
# with datapath_type=netdev), so tests never touch a system OVS.
#
#   ovs_start DIR          start ovsdb-server and ovs-vswitchd, set OVS_* vars
#   ovs_vsctl ARGS...      ovs-vsctl against that database
#   ovs_add_bridges N CTRL [PROBE_MS]  bridges br1..brN, dpid 0x1000+i,
#                          OpenFlow13 only, controller CTRL (e.g. tcp:10.66.0.2:6653;
#                          several targets separated by spaces: a controller each)
#   ovs_connected_count    bridges whose controller reports is_connected=true
#   ovs_wait_connected N SECS  until at least N do (OVS updates the column
#                          every few seconds, so a test waits for it)
#   ovs_dump_flows BR      BR's OpenFlow 1.3 flows, one per line, no counters
#   ovs_wait_flow BR TEXT [gone]  until a flow of BR contains TEXT (or, with
#                          "gone", none does): 0, or 1 after 10 s with BR's flows shown
#   ovs_kill_vswitchd / ovs_start_vswitchd
#   ovs_stop               stop both daemons (also from a trap)

ovs_start() {
    OVS_DIR=$1
    mkdir -p "$OVS_DIR"
    OVS_DB=$OVS_DIR/conf.db
    OVS_SOCK=$OVS_DIR/db.sock
    export OVS_RUNDIR=$OVS_DIR OVS_LOGDIR=$OVS_DIR OVS_DBDIR=$OVS_DIR
    ovsdb-tool create "$OVS_DB" /usr/share/openvswitch/vswitch.ovsschema || return 1
    ovsdb-server "$OVS_DB" --remote=punix:"$OVS_SOCK" --pidfile="$OVS_DIR/ovsdb.pid" \
        --log-file="$OVS_DIR/ovsdb.log" --detach || return 1
    ovs_vsctl --no-wait init || return 1
    ovs_start_vswitchd
}

ovs_start_vswitchd() {
    ovs-vswitchd unix:"$OVS_SOCK" --pidfile="$OVS_DIR/vswitchd.pid" \
        --log-file="$OVS_DIR/vswitchd.log" --detach
}

ovs_vsctl() {
    ovs-vsctl --db=unix:"$OVS_SOCK" --timeout=120 "$@"
}

ovs_add_bridges() {
    local n=$1 probe=${3:-1000} i j t ids args=()
    local targets=($2)
    # One ovs-vsctl transaction for all bridges: 100 separate calls take
    # minutes on a small machine. Controller rows are created by id, as
    # "set controller BRIDGE" names a bridge's only controller.
    for i in $(seq 1 "$n"); do
        ids=
        for j in "${!targets[@]}"; do
            t=${targets[$j]}
            ids+="${ids:+,}@c${i}_$j"
            args+=(-- "--id=@c${i}_$j" create controller "target=\"$t\""
                   "inactivity_probe=$probe" max_backoff=1000)
        done
        args+=(-- add-br "br$i" -- set bridge "br$i" datapath_type=netdev
               protocols=OpenFlow13 "other-config:datapath-id=$(printf '%016x' $((0x1000 + i)))"
               fail-mode=secure "controller=[$ids]")
    done
    ovs_vsctl "${args[@]}" >/dev/null      # not the new rows' uuids
}

ovs_connected_count() {
    ovs_vsctl --bare --columns=is_connected list controller | grep -c true
}

ovs_wait_connected() {
    local want=$1 end=$((SECONDS + $2)) c=0
    while [ $SECONDS -lt $end ]; do
        c=$(ovs_connected_count)
        [ "$c" -ge "$want" ] && return 0
        sleep 0.5
    done
    echo "OVS reports $c of $want controllers connected after $2 s" >&2
    return 1
}

ovs_dump_flows() {
    ovs-ofctl -O OpenFlow13 --no-stats dump-flows "unix:$OVS_DIR/$1.mgmt" | grep -v '^OFPST'
}

ovs_wait_flow() {
    local br=$1 text=$2 gone=${3:-} end=$((SECONDS + 10))
    while :; do
        if ovs_dump_flows "$br" | grep -qF -- "$text"; then
            [ -z "$gone" ] && return 0
        elif [ -n "$gone" ]; then
            return 0
        fi
        [ $SECONDS -ge $end ] && { ovs_dump_flows "$br" >&2; return 1; }
        sleep 0.2
    done
}

ovs_kill_vswitchd() {
    local pid
    pid=$(cat "$OVS_DIR/vswitchd.pid" 2>/dev/null) || return 0
    kill -KILL "$pid" 2>/dev/null
    timeout 10 tail -s 0.05 --pid="$pid" -f /dev/null
    rm -f "$OVS_DIR/vswitchd.pid"
}

ovs_stop() {
    [ -n "${OVS_DIR:-}" ] || return 0
    local f pid
    for f in vswitchd ovsdb; do
        pid=$(cat "$OVS_DIR/$f.pid" 2>/dev/null) || continue
        kill -TERM "$pid" 2>/dev/null
        timeout 10 tail -s 0.05 --pid="$pid" -f /dev/null || kill -KILL "$pid" 2>/dev/null
    done
}

# ovs_tls_setup DIR: certificates as Open vSwitch's documentation makes
# them (ovs-pki: a controller CA and a switch CA), this OVS's SSL set to the
# switch's, and OFCD_TLS_ARGS the ofcd options for TLS only on 6653.
ovs_tls_setup() {
    local d=$1
    mkdir -p "$d" || return 1
    ovs-pki --dir="$d/pki" --force init >/dev/null 2>&1 || return 1
    (cd "$d" && ovs-pki --dir="$d/pki" --force req+sign ctl controller >/dev/null 2>&1 &&
        ovs-pki --dir="$d/pki" --force req+sign sc switch >/dev/null 2>&1) || return 1
    ovs_vsctl set-ssl "$d/sc-privkey.pem" "$d/sc-cert.pem" "$d/pki/controllerca/cacert.pem" ||
        return 1
    OFCD_TLS_ARGS=(--openflow.port=0 --tls.port=6653 --tls.cert="$d/ctl-cert.pem"
                   --tls.key="$d/ctl-privkey.pem" --tls.ca="$d/pki/switchca/cacert.pem")
}
