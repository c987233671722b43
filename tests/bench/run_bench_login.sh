#!/usr/bin/env bash
# An operator's login and one-flow POST, alone and while two addresses
# attack the REST port (rest.auth on): 200 connections from 127.0.0.2
# sending 16 MiB bodies without a token and 30 from 127.0.0.3 guessing
# passwords in a loop, for 20 s; 8 s in, the operator on 127.0.0.1 (new to
# ofcd) logs in and POSTs 20 times, 0.5 s apart. One emulated switch takes
# the flows. Prints p50/p99 of each next to the same without the attack,
# the attackers' answers, and ofcd's REST threads' CPU. Never asserts
# (hostile_rest.sh does); about 45 s. Needs root (the tap).
#
# usage: run_bench_login.sh OFCD_BINARY CONFIG_FILE EMULATOR [OUT_DIR]
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
OUT=${4:-$(mktemp -d /tmp/ofcd-bench-login.XXXXXX)}
mkdir -p "$OUT"
work=$(mktemp -d /tmp/ofcd-bench-login-run.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench_lib.sh"
opid=
epid=
cleanup() {
    [ -n "$epid" ] && kill "$epid" 2>/dev/null && wait "$epid" 2>/dev/null
    bench_stop
    rm -rf "$work"
}
trap cleanup EXIT
PEER="python3 $here/../integration/hostile_rest_peer.py"

mkdir -p "$work/var"
printf 'password1\n' | "$OFCD" user add admin --config "$CONF" --app.data_dir="$work/var" >/dev/null
bench_start "$work/ofcd.log" -- --rest.auth=true --rest.users_file="$work/var/users.json"
"$EMU" --controller 10.66.0.2:6653 --switches 1 --dpid-base 0x1001 --duration 0 --quiet \
    >/dev/null 2>&1 &
epid=$!
timeout 20 bash -c 'until grep -q "switch 0000000000001001 established" "$0"; do sleep 0.2; done' \
    "$work/ofcd.log" || { echo "the emulated switch never came up"; exit 1; }

# CPU of ofcd's REST (MHD-worker) threads, ms, from schedstat.
mhd_cpu_ms() {
    local t sum=0
    for t in /proc/"$opid"/task/*; do
        [ "$(cat "$t/comm" 2>/dev/null)" = MHD-worker ] || continue
        sum=$((sum + $(cut -d' ' -f1 "$t/schedstat") / 1000000))
    done
    echo "$sum"
}

$PEER operator --bind 127.0.0.6 --password password1 --tries 20 --gap 0.5 \
    >"$OUT/login_alone.json"
c0=$(mhd_cpu_ms)
$PEER uploads --bind 127.0.0.2 --conns 200 --limit 128 --slow 20 --duration 20 \
    >"$OUT/login_uploads.json" &
up=$!
$PEER hammer --bind 127.0.0.3 --workers 30 --duration 20 >"$OUT/login_hammer.json" &
ham=$!
sleep 8
$PEER operator --bind 127.0.0.1 --password password1 --tries 20 --gap 0.5 \
    >"$OUT/login_attacked.json"
wait "$up" "$ham"
c1=$(mhd_cpu_ms)

python3 - "$OUT" "$((c1 - c0))" <<'PY'
import json, sys
out, cpu = sys.argv[1], int(sys.argv[2])
a = json.load(open(out + "/login_alone.json"))
b = json.load(open(out + "/login_attacked.json"))
print("%-22s %10s %10s %10s %10s %s" % ("operator", "login_p50", "login_p99", "post_p50",
                                        "post_p99", "statuses (ms)"))
for name, r in (("alone", a), ("two addresses attack", b)):
    print("%-22s %10s %10s %10s %10s %s %s" % (name, r["login"]["p50_ms"], r["login"]["p99_ms"],
          r["post"]["p50_ms"], r["post"]["p99_ms"], r["login_status"], r["post_status"]))
up = json.load(open(out + "/login_uploads.json"))
ham = json.load(open(out + "/login_hammer.json"))
print("uploads from 127.0.0.2: %s; guesser on 127.0.0.3: %s (0 = closed as accepted)"
      % (up["kinds"], ham["status"]))
print("ofcd's REST threads during the attack: %d ms of CPU" % cpu)
json.dump({"alone": a, "attacked": b, "uploads": up, "hammer": ham, "mhd_cpu_ms": cpu},
          open(out + "/login.json", "w"))
PY
