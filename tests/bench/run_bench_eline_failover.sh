#!/usr/bin/env bash
# Circuits' failover under a steady 10,000 packets/s stream (issue 50's bench):
# Mininet's ring of user-space Open vSwitch switches, ofcd its controller;
# 1 and then 500 EVCs over the s1 - s3 link, which is set down under the
# stream (eline_failover.py): packets lost, the time until every EVC is
# laid again through s2, and back. Twice: with apps.mef_eline_fast_failover
# (the switches turn the traffic at once, a fast-failover group at each
# UNI) and without it (the controller moves each EVC, as Kytos-ng does).
# Prints, never asserts. Needs root. About COUNTS' worth of minutes.
#
# usage: run_bench_eline_failover.sh OFCD_BINARY CONFIG_FILE [OUT_DIR]
set -uo pipefail
OFCD=$1
CONF=$2
OUT=${3:-$(mktemp -d /tmp/ofcd-bench-failover.XXXXXX)}
COUNTS=${COUNTS:-1 500}
mkdir -p "$OUT"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"
. "$here/../integration/ovs_lib.sh"
/usr/bin/python3 -c 'import mininet' 2>/dev/null || { echo "Mininet missing: scripts/install-deps installs it"; exit 1; }
work=$(mktemp -d /tmp/ofcd-bench-failover-run.XXXXXX)
opid=
cleanup() {
    [ -n "$opid" ] && kill -TERM "$opid" 2>/dev/null && timeout 10 tail -s 0.05 --pid="$opid" -f /dev/null
    ovs_stop
    rm -rf "$work"
}
trap cleanup EXIT
ovs_start "$work/ovs" >/dev/null 2>&1 || { echo "cannot start Open vSwitch"; exit 1; }
: >"$OUT/eline_failover.json"
for ff in true false; do
    rm -rf "$work/var"
    "$OFCD" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 \
        --topology.lldp_interval_s=1 --topology.link_timeout_s=3 \
        --apps.mef_eline_fast_failover=$ff >"$work/ofcd-$ff.log" 2>&1 &
    opid=$!
    wait_for_line "$work/ofcd-$ff.log" 'ofcd ready|ERROR' 60
    grep -q 'ofcd ready' "$work/ofcd-$ff.log" || { tail "$work/ofcd-$ff.log"; echo "ofcd did not start"; exit 1; }
    # shellcheck disable=SC2086
    /usr/bin/python3 "$here/eline_failover.py" http://127.0.0.1:8181 "$work" $COUNTS |
        while read -r line; do
            echo "{\"fast_failover\": $ff, ${line#\{}" | tee -a "$OUT/eline_failover.json"
        done
    kill -TERM "$opid"
    timeout 10 tail -s 0.05 --pid="$opid" -f /dev/null
    opid=
done
echo "eline failover (10,000 UDP packets/s d1 -> d3 for 4 s, the s1 - s3 link down 1 s in):"
jq -r '"  fast_failover \(.fast_failover), \(.evcs) EVCs (\(.protected) protected): lost \(.lost) of \(.sent) (longest outage \(.outage_ms) ms\(if .back_in_stream == false then ", not over when the stream ended" else "" end)), all moved in \(.moved_ms) ms, back protected in \(.back_ms // "-") ms"' \
    "$OUT/eline_failover.json"
