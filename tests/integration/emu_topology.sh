#!/usr/bin/env bash
# Topology discovery at scale: the switch emulator wired as a fat-tree
# (K=28: 980 switches of 28 ports, 10,976 links; ofswitch-emu --wiring),
# ofcd with apps.topology=true. Every link must be found, both ways, with
# the right ends; the emulator must lose no frame once all are up; ofcd
# counts no foreign or malformed LLDP. Prints the time from the last switch
# up to the whole tree known (the bench quotes it: make bench).
#
# usage: emu_topology.sh OFCD_BINARY CONFIG_FILE OFSWITCH_EMU [K]
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
K=${4:-28}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_root

it_setup emu-topology
API=http://127.0.0.1:8181
N=$((5 * K * K / 4))
LINKS=$((K * K * K / 2))
INTERVAL=2
log=$work/ofcd.log
start_ofcd "$log" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 \
    --apps.topology=true --topology.lldp_interval_s=$INTERVAL --topology.link_timeout_s=10 \
    --flow_manager.pacing_per_s=0
"$EMU" --controller 10.66.0.2:6653 --switches $N --ports $K --wiring fattree:$K \
    --connect-rate 0 --dpid-base 4096 --duration 600 --quiet \
    --json "$work/emu.json" >"$work/emu.out" 2>&1 &
epid=$!
it_on_exit "kill -INT $epid"

up_links() {
    curl -s "$API/api/v1/topology" | python3 -c '
import json, sys
t = json.load(sys.stdin)
print(sum(1 for n in t["nodes"] if n["connected"]), sum(1 for l in t["links"] if l["state"] == "up"))'
}
end=$((SECONDS + 120))
while :; do
    read -r sw l < <(up_links)
    [ "${sw:-0}" -ge $N ] && break
    [ $SECONDS -lt $end ] || fail "${sw:-0} of $N emulated switches up"
    sleep 0.2
done
t0=$(date +%s.%N)
pass "$N emulated switches up"
end=$((SECONDS + 60))
while :; do
    read -r sw l < <(up_links)
    [ "${l:-0}" -ge $LINKS ] && break
    [ $SECONDS -lt $end ] || fail "${l:-0} of $LINKS links up after 60 s"
    sleep 0.2
done
took=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.2f", a - b }')
pass "all $LINKS links of the fat-tree (K=$K) up ${took} s after the last switch (interval $INTERVAL s)"
echo "emu_topology: K=$K switches=$N links=$LINKS discovery_s=$took"

# The ends are the tree's: core i (dpid 0x1000+i), port pod+1 <-> pod's aggregation.
curl -s "$API/api/v1/topology" | python3 -c '
import json, sys
K = int(sys.argv[1]); h = K // 2; cores = h * h
def sw(i): return "00:00:00:00:00:00:%02x:%02x" % ((0x1000 + i) >> 8, (0x1000 + i) & 255)
want = set()
for pod in range(K):
    agg0 = cores + pod * K; edge0 = agg0 + h
    for a in range(h):
        for j in range(1, h + 1):
            want.add(tuple(sorted([f"{sw(agg0 + a)}:{j}", f"{sw(a * h + j - 1)}:{pod + 1}"])))
        for e in range(h):
            want.add(tuple(sorted([f"{sw(edge0 + e)}:{a + 1}", f"{sw(agg0 + a)}:{h + e + 1}"])))
got = {tuple(sorted([l["a"], l["b"]])) for l in json.load(sys.stdin)["links"] if l["state"] == "up"}
assert got == want, f"missing {len(want - got)}, extra {len(got - want)}: {sorted(got ^ want)[:4]}"
' "$K" || fail "the links found are not the fat-tree's"
pass "every link has the fat-tree's ends"
bad=$(rest_metric 'ofcd_topology_lldp_total{what="lldp_foreign"}')
mal=$(rest_metric 'ofcd_topology_lldp_total{what="lldp_malformed"}')
[ "$bad" = 0 ] && [ "$mal" = 0 ] || fail "foreign $bad, malformed $mal LLDP frames"
sent=$(rest_metric 'ofcd_topology_lldp_total{what="lldp_sent"}')
pass "no foreign or malformed LLDP ($sent probes sent)"
kill -INT $epid
wait $epid
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["wiring"]; print("emulator wiring:", d)' "$work/emu.json"
stop_ofcd
echo "emu_topology: all checks passed"
