#!/usr/bin/env bash
# Isolation, round 2: what a burst and each attack of the hostile suite cost
# the good switches.
#   - 10,000 emulated switches from one address connecting at once: handshake
#     p50/p99, connection attempts beyond one per switch (refusals, resets,
#     retries), pending connections ofcd gave up; the same load on os-ken
#     (the peer, on loopback) when it is installed.
#   - the echo RTT p50/p99 of 100 good emulated switches alone, then next to
#     each attack (one run of 12 s each; the attack starts 2 s in): the pool
#     squatters, dpid churn, forged flow-stats replies, the REST pre-auth
#     uploads with a login spray.
#   - ofcd's RSS every second during CHURN_S (default 60) seconds of dpid
#     churn (plot in the report: hostile_churn_rss.csv).
# Prints, never asserts; about four minutes. Needs root (the tap).
#
# usage: run_bench_hostile.sh OFCD_BINARY CONFIG_FILE EMULATOR [OUT_DIR]
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
OUT=${4:-$(mktemp -d /tmp/ofcd-bench-hostile.XXXXXX)}
mkdir -p "$OUT"
work=$(mktemp -d /tmp/ofcd-bench-hostile-run.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"     # rest_metric
. "$here/bench_lib.sh"
PEER="python3 $here/../integration/hostile_peer.py"
opid=
kpid=
cleanup() {
    [ -n "$kpid" ] && kill -TERM "$kpid" 2>/dev/null && wait "$kpid" 2>/dev/null
    stop
    rm -rf "$work"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null
ATTACKER=10.66.0.9
# Each burst from an address of its own: the kernel keeps a closed
# connection's port in TIME_WAIT for a minute, and 10,000 of them would
# leave the next burst from the same address short of ports.
LAB1=10.66.0.51
LAB2=10.66.0.52

start() { local log=$1; shift; bench_start "$log" $ATTACKER $LAB1 $LAB2 -- "$@"; }
stop() { bench_stop; }
io_total() { rest_metric "ofcd_openflow_io_total{lcore=\"0\",what=\"$1\"}"; }

# burst_fig JSON: "handshaked p50_ms p99_ms extra_attempts disconnects"
burst_fig() {
    python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
h = r["times_us"]["handshake"]
f = lambda v: f"{v / 1000:.0f}" if isinstance(v, (int, float)) else "-"
print(r["switches"]["handshaked"], f(h.get("p50")), f(h.get("p99")),
      r["connect"]["attempts"] - r["config"]["switches"], r["disconnects"]["total"])
PY
}

echo "== 10,000 switches from one address at once (emulator on the tap's kernel side) =="
start "$work/burst.log"
ev0=$(io_total pending_evicted)
"$EMU" --controller 10.66.0.2:6653 --bind $LAB1 --switches 10000 --connect-rate 0 \
    --echo-interval 5000 --dpid-base 0x600000 --duration 20 --quiet \
    --json "$OUT/hostile_burst_ofcd.json" \
    >/dev/null 2>&1
ev=$(( $(io_total pending_evicted) - ev0 ))
stop
read -r bh b50 b99 bextra bdisc < <(burst_fig "$OUT/hostile_burst_ofcd.json")
printf '%-10s %11s %10s %10s %15s %12s %8s\n' controller established hs_p50_ms hs_p99_ms \
    extra_attempts disconnects evicted
printf '%-10s %11s %10s %10s %15s %12s %8s\n' ofcd "$bh" "$b50" "$b99" "$bextra" "$bdisc" "$ev"
if command -v osken-manager >/dev/null; then
    /usr/bin/python3 /usr/bin/osken-manager --ofp-listen-host 127.0.0.1 \
        --ofp-tcp-listen-port 16633 "$here/osken/osken_responder.py" >"$work/osken.log" 2>&1 &
    kpid=$!
    for _ in $(seq 100); do
        (exec 3<>/dev/tcp/127.0.0.1/16633) 2>/dev/null && break
        sleep 0.1
    done
    "$EMU" --controller 127.0.0.1:16633 --switches 10000 --connect-rate 0 --echo-interval 5000 \
        --dpid-base 0x600000 --duration 20 --quiet --json "$OUT/hostile_burst_osken.json" \
        >/dev/null 2>&1
    kill -TERM "$kpid" 2>/dev/null
    wait "$kpid" 2>/dev/null
    kpid=
    read -r kh k50 k99 kextra kdisc < <(burst_fig "$OUT/hostile_burst_osken.json")
    printf '%-10s %11s %10s %10s %15s %12s %8s\n' os-ken "$kh" "$k50" "$k99" "$kextra" \
        "$kdisc" -
fi
echo "(20 s each; extra_attempts: connections beyond one per switch: refused, reset, retried)"

echo
echo "== echo RTT of 100 good switches, alone and next to each attack (12 s, attack from 2 s) =="
start "$work/echo.log"
# echo_case NAME CMD...: 100 switches echo every 100 ms for 12 s; CMD (an
# attack that ends by itself within 10 s) starts 2 s in; "alone" runs no CMD.
echo_case() {
    local name=$1 epid
    shift
    "$EMU" --controller 10.66.0.2:6653 --switches 100 --connect-rate 0 --echo-interval 100 \
        --dpid-base 0x700000 --duration 12 --quiet --json "$OUT/hostile_echo_$name.json" \
        >/dev/null 2>&1 &
    epid=$!
    if [ $# -gt 0 ]; then
        sleep 2
        "$@" >"$work/attack_$name.out" 2>&1
    fi
    wait "$epid"
    # Whatever the attack left connected is shed before the next case.
    wait_rest_metric 'ofcd_openflow_io_switch_conns{lcore="0"}' 0 40 >/dev/null
}
echo_case alone
echo_case pool-squat bash -c "
    $PEER pin-squat --conns 40 --count 1100 --msg-len 600 --bind $ATTACKER --duration 10 &
    $PEER echo-flood --conns 8 --rcvbuf 1024 --bind $ATTACKER --duration 10 &
    wait"
echo_case xid-top-stats $PEER stats-forge --dpid f00d --bind $ATTACKER --duration 10
echo_case burst-10000 "$EMU" --controller 10.66.0.2:6653 --bind $LAB2 --switches 10000 \
    --connect-rate 0 --echo-interval 5000 --dpid-base 0x600000 --duration 10 --quiet
# dpid churn: ofcd's RSS each second meanwhile (CHURN_S), and the good
# switches' echo over its first 10 s.
churn_rss() {
    local t0=$SECONDS cpid
    "$EMU" --controller 10.66.0.2:6653 --bind $ATTACKER --attack churn --switches 16 \
        --ports 4096 --connect-rate 0 --echo-interval 0 --duration "${CHURN_S:-60}" --quiet \
        --json "$OUT/hostile_churn.json" >/dev/null 2>&1 &
    cpid=$!
    echo "t_s rss_kib switches_known" >"$OUT/hostile_churn_rss.csv"
    while kill -0 "$cpid" 2>/dev/null; do
        echo "$((SECONDS - t0)) $(awk '/^VmRSS/ { print $2 }' "/proc/$opid/status")" \
            "$(rest_metric ofcd_switches_known)" >>"$OUT/hostile_churn_rss.csv"
        sleep 1
    done
}
echo_case dpid-churn churn_rss
stop

# The REST attacks need rest.auth: ofcd again, with an admin and a scraper.
mkdir -p "$work/users"
printf 'password1\n' | "$OFCD" user add admin --config "$CONF" --app.data_dir="$work/users" \
    >/dev/null
OFCD_METRICS_TOKEN=$(openssl rand -hex 32)
printf 'scraper %s\n' "$OFCD_METRICS_TOKEN" >"$work/users/readers"
chmod 600 "$work/users/readers"
start "$work/echo_rest.log" --rest.auth=true --rest.users_file="$work/users/users.json" \
    --rest.reader_tokens_file="$work/users/readers"
RPEER="python3 $here/../integration/hostile_rest_peer.py"
echo_case rest-preauth-spray bash -c "
    $RPEER uploads --bind 127.0.0.5 --conns 200 --limit 128 --slow 20 --duration 10 &
    $RPEER spray --victim 127.0.0.9 --count 300 --workers 32 --lock-s 60 &
    wait"
stop
unset OFCD_METRICS_TOKEN

printf '%-20s %12s %12s %12s\n' case echo_p50_ms echo_p99_ms disconnects
for n in alone pool-squat xid-top-stats burst-10000 dpid-churn rest-preauth-spray; do
    f=$OUT/hostile_echo_$n.json
    [ -s "$f" ] || { printf '%-20s %12s\n' "$n" "(no report)"; continue; }
    printf '%-20s %12s %12s %12s\n' "$n" "$(emu_fig "$f" echo_p50_ms)" \
        "$(emu_fig "$f" echo_p99_ms)" "$(emu_fig "$f" disconnects | cut -d. -f1)"
done
echo "(attackers from $ATTACKER, the good switches from 10.66.0.1, the bursts from $LAB1," \
     "$LAB2, the REST clients from 127.0.0.x)"
echo
echo "== ofcd's RSS during ${CHURN_S:-60} s of dpid churn (16 churners, 4,096 ports each) =="
python3 - "$OUT/hostile_churn_rss.csv" "$OUT/hostile_churn.json" "$OUT/hostile.json" \
    "$OUT"/hostile_echo_*.json <<'PY'
import json, os, sys
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()[1:] if len(l.split()) == 3]
rss = [int(r[1]) / 1024 for r in rows]
churn = json.load(open(sys.argv[2])) if os.path.exists(sys.argv[2]) else {}
made = churn.get("attack", {}).get("messages_sent", 0)
if rss:
    print(f"RSS {rss[0]:.0f} MiB at the start, {max(rss):.0f} MiB at most, {rss[-1]:.0f} MiB at "
          f"the end of {len(rss)} s; {made} made-up switches; switches_known at most "
          f"{max(int(float(r[2])) for r in rows)}")
def fig(path):
    r = json.load(open(path))
    e = r["times_us"]["echo_rtt"]
    return {"echo_p50_ms": e["p50"] / 1000 if e["count"] else None,
            "echo_p99_ms": e["p99"] / 1000 if e["count"] else None,
            "disconnects": r["disconnects"]["total"]}
out = {"churn_rss_mib": [[int(r[0]), int(r[1]) / 1024] for r in rows], "churn_made": made,
       "echo": {os.path.basename(p)[len("hostile_echo_"):-5]: fig(p) for p in sys.argv[4:]}}
for who in ("ofcd", "osken"):
    p = os.path.join(os.path.dirname(sys.argv[1]), f"hostile_burst_{who}.json")
    if os.path.exists(p):
        r = json.load(open(p))
        h = r["times_us"]["handshake"]
        out["burst_" + who] = {"established": r["switches"]["handshaked"],
                               "hs_p50_ms": (h.get("p50") or 0) / 1000,
                               "hs_p99_ms": (h.get("p99") or 0) / 1000,
                               "extra_attempts": r["connect"]["attempts"] - r["config"]["switches"]}
json.dump(out, open(sys.argv[3], "w"), indent=1)
PY
echo "(JSON in $OUT/hostile.json; RSS per second in $OUT/hostile_churn_rss.csv)"
