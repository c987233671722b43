#!/usr/bin/env bash
# Link-down detection with real switches (issue 15's bench): 10 Open vSwitch
# bridges (user space) in a ring of patch ports; for each link, the cable
# pulled (one end's patch port deleted: OVS sends PORT_STATUS) and put back
# (linkdown.py): the time until the controller reports the link down, and
# until it reports it up again. ofcd (apps.topology, LLDP
# every 1 s, link timeout 5 s; read from its event stream) next to os-ken
# --observe-links (its LLDP discovery; osken/osken_links.py writes the time
# of each EventLinkDelete/Add), the same bridges pointed at each in turn.
# ROUNDS rounds (default 3); medians over every link of every round.
# Prints, never asserts. About a minute. Needs root.
#
# usage: run_bench_linkdown_ovs.sh OFCD_BINARY CONFIG_FILE [OUT_DIR]
set -uo pipefail
OFCD=$1
CONF=$2
OUT=${3:-$(mktemp -d /tmp/ofcd-bench-linkdown.XXXXXX)}
ROUNDS=${ROUNDS:-3}
N=10
mkdir -p "$OUT"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"
. "$here/../integration/ovs_lib.sh"
for t in osken-manager ovs-vswitchd; do
    command -v $t >/dev/null || { echo "$t missing: scripts/install-deps installs it"; exit 1; }
done
work=$(mktemp -d /tmp/ofcd-bench-linkdown-run.XXXXXX)
opid= kpid=
cleanup() {
    for p in $opid $kpid; do
        kill -TERM "$p" 2>/dev/null && timeout 5 tail -s 0.05 --pid="$p" -f /dev/null
    done
    ovs_stop
    rm -rf "$work"
}
trap cleanup EXIT

ovs_start "$work/ovs" >/dev/null 2>&1 || { echo "cannot start Open vSwitch"; exit 1; }
"$OFCD" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 \
    --apps.topology=true --topology.lldp_interval_s=1 --topology.link_timeout_s=5 \
    >"$work/ofcd.log" 2>&1 &
opid=$!
wait_for_line "$work/ofcd.log" 'ofcd ready|ERROR' 60
grep -q 'ofcd ready' "$work/ofcd.log" || { tail "$work/ofcd.log"; echo "ofcd did not start"; exit 1; }
OSKEN_LINKS_FILE=$work/osken.links OSKEN_EVENTS_FILE=$work/osken.events \
    /usr/bin/python3 /usr/bin/osken-manager --observe-links --ofp-listen-host 127.0.0.1 \
    --ofp-tcp-listen-port 16634 "$here/osken/osken_links.py" >"$work/osken.log" 2>&1 &
kpid=$!
ovs_add_bridges $N tcp:10.66.0.2:6653 1000 || { echo "cannot add bridges"; exit 1; }
args=()
for i in $(seq 1 $N); do
    j=$((i % N + 1))
    args+=(-- add-port "br$i" "p$i-$j" -- set interface "p$i-$j" type=patch
           "options:peer=p$j-$i" ofport_request=1
           -- add-port "br$j" "p$j-$i" -- set interface "p$j-$i" type=patch
           "options:peer=p$i-$j" ofport_request=2)
done
ovs_vsctl "${args[@]}" || { echo "cannot wire the bridges"; exit 1; }

all_up() {   # all_up KIND: every ring link known up (30 s)
    local end=$((SECONDS + 30)) c
    while :; do
        if [ "$1" = ofcd ]; then
            c=$(curl -s http://127.0.0.1:8181/api/v1/topology | python3 -c '
import json, sys
print(sum(l["state"] == "up" for l in json.load(sys.stdin)["links"]))' 2>/dev/null)
            [ "${c:-0}" -ge $N ] && return 0
        else
            c=$(cat "$work/osken.links" 2>/dev/null)
            [ "${c:-0}" -ge $((2 * N)) ] && return 0
        fi
        [ $SECONDS -lt $end ] || { echo "($1: ${c:-0} links known after 30 s)"; return 1; }
        sleep 0.2
    done
}

for r in $(seq 1 "$ROUNDS"); do
    for kind in ofcd osken; do
        ctl=tcp:10.66.0.2:6653
        [ "$kind" = osken ] && ctl=tcp:127.0.0.1:16634
        args=()
        for i in $(seq 1 $N); do args+=(-- set-controller "br$i" "$ctl"); done
        ovs_vsctl "${args[@]}"
        ovs_wait_connected $N 30 2>/dev/null || echo "($kind round $r: not all $N bridges connected)"
        all_up $kind || continue
        if [ "$kind" = ofcd ]; then
            python3 "$here/linkdown.py" ofcd http://127.0.0.1:8181 "$OVS_SOCK" $N \
                >"$OUT/linkdown_${kind}_$r.json"
        else
            python3 "$here/linkdown.py" osken "$work/osken.events" "$OVS_SOCK" $N \
                >"$OUT/linkdown_${kind}_$r.json"
        fi
    done
done

python3 - "$OUT" "$ROUNDS" <<'PY'
import json, os, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
res = {}
for kind in ("ofcd", "osken"):
    down, up, missed = [], [], 0
    for r in range(1, rounds + 1):
        p = f"{out}/linkdown_{kind}_{r}.json"
        if os.path.exists(p) and os.path.getsize(p):
            d = json.load(open(p))
            down += d["down_ms"]; up += d["up_ms"]; missed += d["missed"]
    res[kind] = {"down_ms_p50": statistics.median(down) if down else None,
                 "down_ms_max": max(down) if down else None,
                 "up_ms_p50": statistics.median(up) if up else None,
                 "samples": len(down), "missed": missed}
json.dump(res, open(f"{out}/linkdown.json", "w"), indent=1)
f = lambda v: "-" if v is None else f"{v:.1f}"
print(f"== link-down detection, 10 OVS bridges in a ring, patch port deleted/re-added "
      f"(PORT_STATUS), {rounds} rounds ==")
print(f"{'':34} {'down p50 ms':>12} {'down max ms':>12} {'back up p50 ms':>15} {'samples':>8} {'missed':>7}")
for name, k in (("ofcd (LLDP 1 s, event stream)", "ofcd"), ("os-ken --observe-links", "osken")):
    r = res[k]
    print(f"{name:34} {f(r['down_ms_p50']):>12} {f(r['down_ms_max']):>12} {f(r['up_ms_p50']):>15} "
          f"{r['samples']:>8} {r['missed']:>7}")
PY
