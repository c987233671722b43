#!/usr/bin/env bash
# ofcdctl against a running ofcd: the socket is root's only; every command
# answers (list-commands, log/list, log/set, counters/show, conn/show,
# switch/show, fm/queue, fault/set, app/list, store/stats, time/warp,
# config/reload: reload.sh tests what it does) and
# its errors exit 1 with ofcd's
# message; counters move with real traffic; log/set changes what a module
# logs at once; fault/set
# changes what the port does at once; a client that hangs, too many
# clients and a too-long request are refused and counted while others are
# served; SIGUSR1 and SIGUSR2 keep logging; the socket goes with ofcd;
# app.ctl_socket moves it, and ofcdctl --config finds it there.
#
# usage: ofcdctl.sh OFCD_BINARY CONFIG_FILE EMULATOR
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_root
require_tool curl

it_setup ofcdctl
it_on_exit '[ -n "${emu_pid:-}" ] && kill -KILL "$emu_pid"'
SOCK=/run/ofcd/ofcd.ctl                     # the shipped config's file-prefix: ofcd
DPID=00:00:00:00:00:00:0c:71
log=$work/ofcd.log

# One emulated switch (dpid 0xc71) in the background until stopped.
emu_start() {
    "$EMU" --controller 10.66.0.2:6653 --switches 1 --dpid-base 0xc71 --duration 0 --quiet \
        >"$work/emu.out" 2>&1 &
    emu_pid=$!
}
emu_stop() {
    kill -INT "$emu_pid"
    wait "$emu_pid"
    emu_pid=
}

# Lines an lcore logged before the counters it last published are on
# stderr once the control thread has drained its log ring, which it does
# every loop after serving ofcdctl: a second request is served a loop
# later, so after it those lines are in the log.
ctl_barrier() {
    ofcdctl list-commands >/dev/null || fail "ofcdctl list-commands failed"
}

# Topology off: fm/queue below counts the POSTed flow alone (no LLDP flow),
# and app/list shows both apps off; a later run turns it on.
start_ofcd "$log" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 \
    --fault.enabled=true --apps.topology=false

# --- the socket and the client ------------------------------------------------------------
[ "$(stat -c '%a %U %F' "$SOCK")" = "600 root socket" ] ||
    fail "$SOCK: $(stat -c '%a %U %F' "$SOCK"), expected mode 600, root, a socket"
grep -q "ofcdctl's socket: $SOCK" "$log" || fail "the socket's path is not logged"
pass "$SOCK: a socket, mode 600, root's"

ofcdctl --help | grep -q 'ofcdctl list-commands' || fail "ofcdctl --help does not help"
"$(dirname "$OFCD")/ofcdctl" >/dev/null 2>&1
[ $? = 2 ] || fail "ofcdctl without a command should exit 2"
out=$("$(dirname "$OFCD")/ofcdctl" --socket "$work/none.ctl" list-commands 2>&1)
[ $? = 2 ] && grep -q "cannot connect to $work/none.ctl" <<<"$out" ||
    fail "no ofcd at the socket: '$out'"
out=$(ofcdctl no/such 2>&1)
[ $? = 1 ] && grep -q "^ofcdctl: unknown command 'no/such'" <<<"$out" ||
    fail "an unknown command: '$out'"
out=$(ofcdctl conn/show all 2>&1)
[ $? = 1 ] && grep -q "^ofcdctl: conn/show takes fewer arguments; usage: conn/show" <<<"$out" ||
    fail "an argument too many: '$out'"
out=$(ofcdctl 'log/set' 'of;rm' 2>&1)
[ $? = 1 ] && grep -q "unknown level 'of;rm'" <<<"$out" || fail "a bad level alone: '$out'"
out=$(ofcdctl log/set 'of debug' 2>&1)
[ $? = 2 ] && grep -q "printable ASCII without blanks" <<<"$out" || fail "a blank in a word: '$out'"
out=$(ofcdctl log/set "$(head -c 5000 /dev/zero | tr '\0' x)" 2>&1)
[ $? = 2 ] && grep -q "the request is longer than 4095 bytes" <<<"$out" ||
    fail "an overlong request: '$out'"
pass "ofcdctl: --help, exit 2 without a command or an ofcd, exit 1 with ofcd's error"

out=$(ofcdctl list-commands) || fail "list-commands failed"
for c in list-commands log/list log/set counters/show conn/show switch/show fm/queue \
    fault/set app/list store/stats time/warp config/reload capture/get capture/list capture/freeze; do
    l=$(grep -E "^$c( |$)" <<<"$out") || { echo "$out"; fail "list-commands lacks $c"; }
    # The help after the name and usage (column 36 on): a few words at least.
    [ "$(cut -c36- <<<"$l" | wc -w)" -ge 3 ] || fail "list-commands: $c has no help: '$l'"
done
[ "$(grep -c . <<<"$out")" = 15 ] || { echo "$out"; fail "list-commands: not 15 commands"; }
pass "list-commands: the 15 commands (time/warp: a test build), each with its help"

# --- log/set: at once, per module ------------------------------------------------------------
[ "$(ofcdctl log/set of warn)" = "of: warn" ] || fail "log/set of warn"
ofcdctl log/list | grep -qE '^of +warn +OpenFlow' || fail "log/list does not show of at warn"
ofcdctl log/list | grep -qE '^tcp +info ' || fail "log/list: tcp is not at info any more"
[ "$(ctl_counter switches_up openflow_worker)" = 0 ] || fail "a switch up before any came"
in0=$(ctl_counter segs_in tcp) || fail "no tcp segs_in"
emu_start
wait_stat "$log" switches_up 1 20 || fail "the emulated switch did not come up"
in1=$(ctl_counter segs_in tcp)
[ "$in1" -gt "$in0" ] || fail "tcp segs_in did not move with a switch's traffic: $in0 -> $in1"
ctl_barrier
grep -q "switch 0000000000000c71 established" "$log" &&
    fail "of at warn, yet the switch's arrival was logged at info"
emu_stop
wait_stat "$log" switches_up 0 20 || fail "the emulated switch did not go down"
[ "$(ofcdctl log/set of debug)" = "of: debug" ] || fail "log/set of debug"
emu_start
wait_for_line "$log" 'DEBUG of: connection .* HELLO agreed on version 4' 10 ||
    fail "of at debug: no handshake line"
wait_for_line "$log" 'INFO  of: switch 0000000000000c71 established' 10 ||
    fail "of at debug: the switch's arrival not logged"
grep -q 'DEBUG tcp' "$log" && fail "tcp logged at debug, though only of was set to it"
out=$(ofcdctl log/set of loud 2>&1)
[ $? = 1 ] && grep -q "unknown level 'loud'" <<<"$out" || fail "a bad level: '$out'"
[ "$(ofcdctl log/set info)" = "every module: info" ] || fail "log/set info"
pass "log/set: of at warn hides a switch's arrival, at debug shows its handshake, at once"
wait_stat "$log" switches_up 1 20 || fail "the emulated switch did not come back up"

# --- counters/show: what SIGUSR1 logs --------------------------------------------------------
out=$(ofcdctl counters/show) || fail "counters/show failed"
kill -USR1 "$OFCD_PID"
wait_for_line "$log" 'stats: an idle TCP connection costs' 5 || fail "SIGUSR1 logged nothing"
heads() { grep -oE '^[^:]*:' | sort -u; }
logged=$(grep -oE 'stats: [^:]*:' "$log" | sed 's/^stats: //' | sort -u)
[ "$(heads <<<"$out")" = "$logged" ] ||
    { diff <(heads <<<"$out") <(echo "$logged"); fail "counters/show and SIGUSR1 differ in sets"; }
grep -q '^lcore=0 openflow_worker: .*switches_up=1' <<<"$out" || fail "no worker counters"
tcp=$(ofcdctl counters/show tcp) || fail "counters/show tcp"
[ "$(grep -vc ' tcp: ' <<<"$tcp")" = 0 ] || fail "counters/show tcp shows other groups"
out=$(ofcdctl counters/show nosuch 2>&1)
[ $? = 1 ] && grep -q "no counter group 'nosuch'; the groups: .*openflow_io" <<<"$out" ||
    fail "an unknown group: '$out'"
pass "counters/show: the sets SIGUSR1 logs, one group with GROUP"

# --- conn/show: from the io lcore, as SIGUSR2 logs it -------------------------------------------
out=$(ofcdctl conn/show) || fail "conn/show failed"
grep -q '^lcore 0: 1 connections$' <<<"$out" || { echo "$out"; fail "conn/show: count"; }
line=$(grep -E '^lcore 0 conn 10\.66\.0\.1:[0-9]+ -> :6653 ESTABLISHED ' <<<"$out") ||
    { echo "$out"; fail "conn/show: the switch's connection"; }
kill -USR2 "$OFCD_PID"
peer=$(grep -oE 'conn 10\.66\.0\.1:[0-9]+' <<<"$line")
wait_for_line "$log" "tcp: lcore 0 $peer -> :6653 ESTABLISHED" 5 ||
    fail "SIGUSR2 did not log the connection"
pass "conn/show: the switch's TCP connection; SIGUSR2 logs it too"

# --- switch/show -----------------------------------------------------------------------------
out=$(ofcdctl switch/show) || fail "switch/show failed"
grep -q '^1 switches known$' <<<"$out" && grep -q "^$DPID up " <<<"$out" ||
    { echo "$out"; fail "switch/show: the list"; }
out=$(ofcdctl switch/show "$DPID") || fail "switch/show $DPID failed"
grep -q "^switch $DPID (0000000000000c71): up since " <<<"$out" &&
    grep -q '^  ports: 4$' <<<"$out" || { echo "$out"; fail "switch/show $DPID"; }
out=$(ofcdctl switch/show 1234 2>&1)
[ $? = 1 ] && grep -q 'is not known' <<<"$out" || fail "an unknown switch: '$out'"
pass "switch/show: the list, one switch with its 4 ports, an unknown one refused"

# --- fm/queue: a flow through REST ---------------------------------------------------------------
code=$(curl -s -o "$work/post" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -d '{"flows": [{"priority": 10, "match": {"in_port": 1}}]}' \
    "http://127.0.0.1:8181/api/kytos/flow_manager/v2/flows/$DPID")
[ "$code" = 202 ] || { cat "$work/post"; fail "POST a flow: $code"; }
out=$(ofcdctl fm/queue) || fail "fm/queue failed"
grep -qE "^$DPID up +queued [0-9]+ reserved 0 in_flight [0-9]+ \([0-9]+ batches\) flows 1$" \
    <<<"$out" || { echo "$out"; fail "fm/queue: the switch's line"; }
ofcdctl fm/queue "$DPID" | grep -q "^$DPID up " || fail "fm/queue $DPID"
out=$(ofcdctl fm/queue 12:zz 2>&1)
[ $? = 1 ] && grep -q "12:zz" <<<"$out" || fail "fm/queue with a bad dpid: '$out'"
pass "fm/queue: the switch and its flow; a bad dpid refused"

# --- store/stats and app/list ------------------------------------------------------------------
out=$(ofcdctl store/stats) || fail "store/stats failed"
grep -qx 'backend lmdb' <<<"$out" || { echo "$out"; fail "store/stats: not the lmdb backend"; }
put=$(awk '$1 == "records_put" {print $2}' <<<"$out")
[ "${put:-0}" -ge 1 ] || { echo "$out"; fail "store/stats: the POSTed flow is not counted"; }
out=$(ofcdctl app/list) || fail "app/list failed"
grep -qE '^topology +off \(apps.topology = false\)$' <<<"$out" &&
    grep -qE '^l2_learning +off ' <<<"$out" || { echo "$out"; fail "app/list: both apps off"; }
pass "store/stats: lmdb, the POSTed flow counted; app/list: both apps off"

# --- fault/set: the port drops what ofcd sends, then no more -------------------------------------
ping -c 2 -W 1 10.66.0.2 >/dev/null || fail "ofcd does not answer ping"
out=$(ofcdctl fault/set tx drop=1) || fail "fault/set tx drop=1"
grep -q '^tx: drop=1 dup=0 ' <<<"$out" || { echo "$out"; fail "fault/set's answer"; }
out=$(ping -c 3 -W 1 10.66.0.2 2>&1)
grep -q ' 0 received' <<<"$out" || { echo "$out"; fail "tx drop=1, yet ping answered"; }
ofcdctl fault/set tx drop=0 >/dev/null || fail "fault/set tx drop=0"
ping -c 2 -W 2 10.66.0.2 >/dev/null || fail "tx drop=0, yet no ping answered"
out=$(ofcdctl fault/set tx drop=0.7 dup=0.5 2>&1)
[ $? = 1 ] && grep -q 'more than 1' <<<"$out" || fail "rates over 1: '$out'"
out=$(ofcdctl fault/set up drop=0 2>&1)
[ $? = 1 ] && grep -q "unknown direction 'up'" <<<"$out" || fail "a bad direction: '$out'"
[ "$(ofcdctl fault/set rx | head -1)" = "rx: drop=0 dup=0 reorder=0 delay=0 delay_us=1000" ] ||
    fail "fault/set rx does not show the rates"
pass "fault/set: tx drop=1 silences ofcd at once, drop=0 brings it back; bad rates refused"

# --- the bounds: a hung client, 17 at once, a long request ---------------------------------------
python3 - "$SOCK" "$(dirname "$OFCD")/ofcdctl" <<'PY' || fail "the socket's bounds"
import socket, subprocess, sys, time
path, ctl = sys.argv[1:3]
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s
def answer(s):
    # The server closes without reading what it did not need (the rest of
    # a too-long request): the answer, then a reset, ends it like a close.
    data = b""
    while True:
        try:
            b = s.recv(65536)
        except ConnectionResetError:
            b = b""
        if not b:
            return data.decode()
        data += b
# 16 clients that say nothing: the control thread still answers others.
hung = [conn() for _ in range(16)]
busy = conn()
a = answer(busy)
assert a.startswith("error ") and "busy: 16 clients" in a, a
t = time.monotonic()
for s in hung[:8]:
    s.close()
r = subprocess.run([ctl, "--socket", path, "log/list"], capture_output=True, timeout=5)
assert r.returncode == 0 and b"of " in r.stdout, r
long = conn()
long.sendall(b"x" * 5000)
a = answer(long)
assert a.startswith("error ") and "longer than 4096 bytes" in a, a
# The rest are dropped once their 5 s are up: the connection ends.
for s in hung[8:]:
    s.settimeout(10)
    assert s.recv(1) == b""
waited = time.monotonic() - t
assert 3 < waited < 8, waited
print("hung clients dropped after %.1f s" % waited)
PY
out=$(ofcdctl counters/show ctl) || fail "counters/show ctl"
grep -qE '^ctl: .*refused_busy=1 too_long=1 timed_out=8 ' <<<"$out" ||
    { echo "$out"; fail "the ctl counters"; }
pass "bounds: 17th client refused, 5000-byte request refused, hung clients dropped; counted"

# --- time/warp: a deleted flow's retention (an hour) passes at once -----------------------------
FM=http://127.0.0.1:8181/api/kytos/flow_manager/v2
code=$(curl -s -o "$work/del" -w '%{http_code}' -X DELETE -H 'Content-Type: application/json' \
    -d '{"flows": [{"priority": 10, "match": {"in_port": 1}}]}' "$FM/flows/$DPID")
[ "$code" = 202 ] || { cat "$work/del"; fail "DELETE the flow: $code"; }
deleted() { curl -s "$FM/stored_flows?dpid=$DPID&state=deleted" | jq '[.[]? | .[]] | length'; }
[ "$(deleted)" = 1 ] || fail "the deleted flow is not kept in state deleted"
out=$(ofcdctl time/warp 0 2>&1)
[ $? = 1 ] && grep -q "not a number of seconds" <<<"$out" || fail "time/warp 0: '$out'"
out=$(ofcdctl time/warp 3601) || fail "time/warp 3601"
grep -q '^warped 3601.000 s' <<<"$out" || fail "time/warp's answer: '$out'"
# The control thread purges on its next periodic pass: wait for the flow to go.
end=$((SECONDS + 10))
while [ "$(deleted)" != 0 ] && [ $SECONDS -lt $end ]; do sleep 0.2; done
[ "$(deleted)" = 0 ] || fail "the deleted flow outlived its retention after time/warp 3601"
out=$(ofcdctl time/warp 86400 2>&1)
[ $? = 1 ] && grep -q "a day in all at most" <<<"$out" || fail "a warp past a day: '$out'"
pass "time/warp: an hour's retention passes at once; 0 and past a day refused"

emu_stop
stop_ofcd
[ -e "$SOCK" ] && fail "$SOCK left behind after a clean stop"
pass "the socket is removed at stop"

# --- app.ctl_socket: where the socket is, for ofcd and ofcdctl --config ---------------------------
sed "s|^ctl_socket =.*|ctl_socket = $work/ofcd.ctl|" "$CONF" >"$work/moved.conf"
grep -q "^ctl_socket = $work/ofcd.ctl" "$work/moved.conf" || fail "no ctl_socket in $CONF"
start_ofcd "$work/ofcd2.log" --config "$work/moved.conf" --app.data_dir="$work/var" \
    --app.stats_log_interval_s=0
[ "$OFCD_CTL_SOCK" = "$work/ofcd.ctl" ] && [ ! -e "$SOCK" ] ||
    fail "app.ctl_socket: ofcd serves at '$OFCD_CTL_SOCK'"
out=$("$(dirname "$OFCD")/ofcdctl" --config "$work/moved.conf" log/list) ||
    fail "ofcdctl --config did not find app.ctl_socket"
grep -qE '^of +info ' <<<"$out" || fail "log/list at the moved socket: '$out'"
stop_ofcd
start_ofcd "$work/ofcd3.log" --config "$CONF" --app.data_dir="$work/var" \
    --app.stats_log_interval_s=0
out=$(ofcdctl app/list) || fail "app/list failed"
grep -qE '^topology +on: 0 links known, 0 up, LLDP every 3000 ms$' <<<"$out" ||
    { echo "$out"; fail "app/list: topology on (the default), with its status"; }
stop_ofcd
pass "app/list: a running app says what it has"
pass "app.ctl_socket moves the socket; ofcdctl --config finds it there"
echo "ofcdctl: all checks passed"
