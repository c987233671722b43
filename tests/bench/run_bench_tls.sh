#!/usr/bin/env bash
# OpenFlow over TLS next to plain TCP, on one ofcd with both listeners (plain
# 6653, TLS 6654) and one io lcore, the switch emulator on kernel sockets
# with OpenSSL of its own (--tls): certificates from ovs-pki (RSA 2048, as
# Open vSwitch deployments make them). Each round runs every load once on
# each port, back to back; figures are medians of ROUNDS rounds (default 3):
#   - 1,000 switches connecting at once: time until all are established
#     (the slowest handshake; 1000 over it is the handshakes/s measured,
#     with the emulator's own TLS work on the same two cores), handshake
#     p50/p99, and ofcd's CPU over the 6 s run (user+system): the TLS run's
#     excess over the plain one, / 1000, is what a TLS handshake costs ofcd,
#     and its inverse the handshakes/s one lcore of its own would sustain;
#   - echo RTT p50/p99 of 100 switches echoing every 100 ms;
#   - packet_in responses/s (16 switches, window 64, the learning switch);
# then REST one-flow POSTs/s and p99 over HTTPS next to HTTP (wrk -c 32,
# libmicrohttpd's GnuTLS, a P-256 certificate). Prints, never asserts.
# About three minutes. Needs root (the tap).
#
# usage: run_bench_tls.sh OFCD_BINARY CONFIG_FILE EMULATOR [OUT_DIR]
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
OUT=${4:-$(mktemp -d /tmp/ofcd-bench-tls.XXXXXX)}
ROUNDS=${ROUNDS:-3}
mkdir -p "$OUT"
work=$(mktemp -d /tmp/ofcd-bench-tls-run.XXXXXX)
opid=
cleanup() {
    if [ -n "$opid" ] && kill -0 "$opid" 2>/dev/null; then
        kill -TERM "$opid"
        timeout 5 tail -s 0.05 --pid="$opid" -f /dev/null || kill -KILL "$opid"
    fi
    rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/pki"
(cd "$work/pki" && ovs-pki --dir="$work/pki/ca" init >/dev/null 2>&1 &&
    ovs-pki --dir="$work/pki/ca" req+sign ctl controller >/dev/null 2>&1 &&
    ovs-pki --dir="$work/pki/ca" req+sign sc switch >/dev/null 2>&1) ||
    { echo "ovs-pki could not make the certificates"; exit 1; }
P=$work/pki
TLS="$P/sc-cert.pem,$P/sc-privkey.pem,$P/ca/controllerca/cacert.pem"

# 1000 switches from one address (see run_bench_of.sh); the learning switch
# answers the packet_ins.
"$OFCD" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 --apps.topology=false \
    --apps.l2_learning=true --tls.port=6654 \
    --tls.cert="$P/ctl-cert.pem" --tls.key="$P/ctl-privkey.pem" \
    --tls.ca="$P/ca/switchca/cacert.pem" >"$work/ofcd.log" 2>&1 &
opid=$!
timeout 60 bash -c 'until grep -q "ofcd ready\|ERROR" "$0"; do sleep 0.2; done' "$work/ofcd.log"
grep -q "ofcd ready" "$work/ofcd.log" || { tail "$work/ofcd.log"; echo "ofcd did not start"; exit 1; }

cpu_ticks() {    # user + system time of ofcd, in clock ticks
    awk '{ print $14 + $15 }' "/proc/$opid/stat"
}
tick=$(getconf CLK_TCK)

# One run of the emulator: emu KIND PORT JSON ARGS... (KIND plain|tls)
emu() {
    local kind=$1 port=$2 json=$3
    shift 3
    local tls=()
    [ "$kind" = tls ] && tls=(--tls "$TLS")
    "$EMU" --controller "10.66.0.2:$port" "${tls[@]}" --quiet --json "$json" "$@" >/dev/null 2>&1
}

for r in $(seq 1 "$ROUNDS"); do
    for kind in plain tls; do
        port=6653 off=0
        [ "$kind" = tls ] && port=6654 off=50000
        c0=$(cpu_ticks)
        emu "$kind" "$port" "$OUT/tls_hs_${kind}_$r.json" --switches 1000 --connect-rate 0 \
            --echo-interval 0 --dpid-base $((100000 * r + off)) \
            --duration 6
        c1=$(cpu_ticks)
        echo "$(( (c1 - c0) * 1000 / tick ))" >"$OUT/tls_hs_${kind}_${r}.cpu_ms"
        emu "$kind" "$port" "$OUT/tls_echo_${kind}_$r.json" --switches 100 --connect-rate 0 \
            --echo-interval 100 --dpid-base $((3000000 + 1000 * r + off)) --duration 6
        emu "$kind" "$port" "$OUT/tls_pin_${kind}_$r.json" --switches 16 --ports 4 \
            --mode throughput --window 64 --connect-rate 0 \
            --dpid-base $((6000000 + 1000 * r + off)) --duration 6
    done
done

# ---- REST over HTTPS next to HTTP: wrk -c 32, one-flow POSTs of new flows to
# 100 emulated switches (tests/bench/wrk_new_flow.lua), an ofcd of each kind
# per round, a fresh store each time.
here=$(cd "$(dirname "$0")" && pwd)
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/rest.key" \
    -out "$work/rest.crt" -days 2 -subj /CN=ofcd -addext subjectAltName=IP:127.0.0.1 \
    >/dev/null 2>&1 && chmod 600 "$work/rest.key"
kill -TERM "$opid"
timeout 5 tail -s 0.05 --pid="$opid" -f /dev/null
opid=
for r in $(seq 1 "$ROUNDS"); do
    for kind in http https; do
        args=() url=http://127.0.0.1:8181
        [ "$kind" = https ] && args=(--rest.tls_cert="$work/rest.crt" --rest.tls_key="$work/rest.key") &&
            url=https://127.0.0.1:8181
        "$OFCD" --config "$CONF" --app.data_dir="$work/var-$kind-$r" --app.stats_log_interval_s=0 --apps.topology=false \
            --flow_manager.pacing_per_s=0 "${args[@]}" >"$work/ofcd-$kind.log" 2>&1 &
        opid=$!
        timeout 60 bash -c 'until grep -q "ofcd ready\|ERROR" "$0"; do sleep 0.2; done' \
            "$work/ofcd-$kind.log"
        grep -q "ofcd ready" "$work/ofcd-$kind.log" ||
            { tail "$work/ofcd-$kind.log"; echo "ofcd ($kind) did not start"; exit 1; }
        "$EMU" --controller 10.66.0.2:6653 --switches 100 --connect-rate 0 --echo-interval 1000 \
            --dpid-base 65536 --duration 30 --quiet >/dev/null 2>&1 &
        epid=$!
        for _ in $(seq 100); do
            up=$(curl -sk "$url/metrics" | awk '$1 == "ofcd_switches_up" { print $2 }')
            [ "${up:-0}" = 100 ] && break
            sleep 0.1
        done
        wrk -t 2 -c 32 -d 6s --latency -s "$here/wrk_new_flow.lua" "$url" \
            >"$OUT/tls_rest_${kind}_$r.txt" 2>&1
        kill -TERM "$epid" 2>/dev/null
        wait "$epid" 2>/dev/null
        kill -TERM "$opid"
        timeout 5 tail -s 0.05 --pid="$opid" -f /dev/null
        opid=
    done
done

python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def load(n):
    with open(f"{out}/{n}") as f:
        return json.load(f)
def med(xs):
    return statistics.median(xs) if xs else float("nan")
res = {}
for kind in ("plain", "tls"):
    hs = [load(f"tls_hs_{kind}_{r}.json") for r in range(1, rounds + 1)]
    cpu = [int(open(f"{out}/tls_hs_{kind}_{r}.cpu_ms").read()) for r in range(1, rounds + 1)]
    ec = [load(f"tls_echo_{kind}_{r}.json") for r in range(1, rounds + 1)]
    pi = [load(f"tls_pin_{kind}_{r}.json") for r in range(1, rounds + 1)]
    res[kind] = {
        "all_up_ms": med([h["times_us"]["handshake"]["max"] / 1000 for h in hs]),
        "hs_p50_ms": med([h["times_us"]["handshake"]["p50"] / 1000 for h in hs]),
        "hs_p99_ms": med([h["times_us"]["handshake"]["p99"] / 1000 for h in hs]),
        "established": med([h["switches"]["handshaked"] for h in hs]),
        "cpu_s": med([c / 1000 for c in cpu]),
        "echo_p50_ms": med([e["times_us"]["echo_rtt"]["p50"] / 1000 for e in ec]),
        "echo_p99_ms": med([e["times_us"]["echo_rtt"]["p99"] / 1000 for e in ec]),
        "pin_per_s": med([p["packet_in"].get("responses", 0) / (p["duration_s"] or 1) for p in pi]),
        "disconnects": sum(x["disconnects"]["total"] for x in hs + ec + pi),
    }
json.dump(res, open(f"{out}/tls.json", "w"), indent=1)
p, t = res["plain"], res["tls"]
print(f"== OpenFlow over TLS next to plain TCP (medians of {rounds} rounds; ovs-pki RSA 2048) ==")
print(f"{'':36} {'plain':>10} {'TLS':>10} {'TLS/plain':>10}")
rows = [("1000 switches: all established, ms", "all_up_ms"),
        ("  handshake p50, ms", "hs_p50_ms"), ("  handshake p99, ms", "hs_p99_ms"),
        ("  established (of 1000)", "established"),
        ("  ofcd CPU over the run, s", "cpu_s"),
        ("echo RTT p50, ms (100 switches)", "echo_p50_ms"), ("echo RTT p99, ms", "echo_p99_ms"),
        ("packet_in responses/s (16 sw)", "pin_per_s"), ("disconnects (all runs)", "disconnects")]
for name, k in rows:
    a, b = p[k], t[k]
    ratio = f"{b / a:.2f}" if a else "-"
    fmt = "{:>10.0f}" if k in ("pin_per_s", "established", "disconnects") else "{:>10.2f}"
    print(f"{name:36} {fmt.format(a)} {fmt.format(b)} {ratio:>10}")
import re
def wrk(path):
    txt = open(path).read()
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", txt).group(1))
    m = re.search(r"99%\s+([\d.]+)(us|ms|s)", txt)
    p99 = float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)]
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", txt)
    return rps, p99, int(non2xx.group(1)) if non2xx else 0
for kind in ("http", "https"):
    w = [wrk(f"{out}/tls_rest_{kind}_{r}.txt") for r in range(1, rounds + 1)]
    res[kind] = {"rps": med([x[0] for x in w]), "p99_ms": med([x[1] for x in w]),
                 "non2xx": sum(x[2] for x in w)}
json.dump(res, open(f"{out}/tls.json", "w"), indent=1)
h, s = res["http"], res["https"]
print(f"{'REST one-flow POSTs/s (wrk -c 32)':36} {h['rps']:>10.0f} {s['rps']:>10.0f} "
      f"{s['rps'] / h['rps'] if h['rps'] else 0:>10.2f}   (HTTP, HTTPS)")
print(f"{'  p99, ms':36} {h['p99_ms']:>10.2f} {s['p99_ms']:>10.2f} "
      f"{s['p99_ms'] / h['p99_ms'] if h['p99_ms'] else 0:>10.2f}")
print(f"{'  non-2xx answers (all runs)':36} {h['non2xx']:>10} {s['non2xx']:>10}")
extra_ms = (t["cpu_s"] - p["cpu_s"])      # seconds over 1000 handshakes = ms each
print(f"TLS handshakes/s measured: {1000 / (t['all_up_ms'] / 1000):.0f} (1000 in "
      f"{t['all_up_ms'] / 1000:.2f} s, the emulator's TLS on the same 2 cores)")
if extra_ms > 0:
    print(f"ofcd CPU per TLS handshake over plain: {extra_ms:.2f} ms -> {1000 / extra_ms:.0f} "
          f"handshakes/s on one lcore of its own")
res["tls_hs_per_s"] = 1000 / (t["all_up_ms"] / 1000)
res["tls_extra_cpu_ms_per_hs"] = extra_ms
json.dump(res, open(f"{out}/tls.json", "w"), indent=1)
PY
