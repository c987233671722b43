#!/usr/bin/env bash
# A reload (SIGHUP, what systemctl reload sends; ofcdctl config/reload):
# the configuration file read again with the command line's keys on top;
# the live keys taken at once (a log level, REST's rate limit, the LLDP
# interval), a key that needs a restart named as such and left alone, a
# command-line key still winning over the file, a broken file refused with
# nothing changed, systemd told RELOADING=1 then READY=1, and OpenFlow
# TLS's certificate renewed at the same path served to new connections
# after a reload (a broken one refused, the running one kept).
#
# usage: reload.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF_IN=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_root
require_tool curl
require_tool python3
require_tool openssl

it_setup reload
API=http://127.0.0.1:8181
CONF=$work/ofcd.conf
cp "$CONF_IN" "$CONF"
log=$work/ofcd.log
# set KEY VALUE in the test's copy of the file ([section] known by the key).
set_key() { sed -i "s|^$1 = .*|$1 = $2|" "$CONF"; grep -q "^$1 = $2\$" "$CONF" || fail "no line $1"; }
# reload_by_signal [PATTERN]: SIGHUP, then wait for the reload's last line
# (its summary, or PATTERN).
reload_by_signal() {
    local pat=${1:-"reload of $CONF"} before
    before=$(grep -c "$pat" "$log")
    kill -HUP "$OFCD_PID"
    for _ in $(seq 100); do [ "$(grep -c "$pat" "$log")" -gt "$before" ] && return 0; sleep 0.05; done
    fail "no '$pat' within 5 s of SIGHUP"
}

notify_listen "$work/notify.sock" "$work/notify.txt"
set_key stats_log_interval_s 30
# Two certificates for OpenFlow's TLS port; the one served lives at srv.*.
for cn in ofcd-a ofcd-b; do
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
        -subj "/CN=$cn" -keyout "$work/$cn.key" -out "$work/$cn.pem" >/dev/null 2>&1 ||
        fail "openssl req"
done
cp "$work/ofcd-a.pem" "$work/srv.pem"
cp "$work/ofcd-a.key" "$work/srv.key"
NOTIFY_SOCKET=$work/notify.sock start_ofcd "$log" --config "$CONF" --app.data_dir="$work/var" \
    --apps.topology=true --app.stats_log_interval_s=0 --tls.port=6654 \
    --tls.cert="$work/srv.pem" --tls.key="$work/srv.key" --tls.verify_peer=false
ofcdctl log/list | grep -q "info" || fail "log/list: $(ofcdctl log/list)"

# ---- the live keys, one that needs a restart, the command line's key ------------
set_key log_level debug
set_key rate_limit_per_s 5
set_key rate_burst 5
set_key lldp_interval_s 7
set_key arp_cache_size 2048
set_key stats_log_interval_s 45
reload_by_signal
levels=$(ofcdctl log/list)
grep -q "info" <<<"$levels" && fail "a module still at info after the reload: $levels"
grep -q "debug" <<<"$levels" || fail "log/list after the reload: $levels"
grep -q "reload: net.arp_cache_size 1024 -> 2048 takes effect at the next restart" "$log" ||
    fail "the restart-only key was not named: $(grep reload: "$log")"
grep -q "stats_log_interval_s" <(grep "reload:" "$log") &&
    fail "the file's stats_log_interval_s overrode the command line's: $(grep reload: "$log")"
grep -q "reload of $CONF: 4 key(s) applied, 1 waiting for a restart" "$log" ||
    fail "summary: $(grep 'reload of' "$log")"
codes=$(for _ in $(seq 20); do curl -s -o /dev/null -w '%{http_code}\n' "$API/api/v1/health"; done |
    sort | uniq -c | tr -s ' \n' ' ')
grep -q " 429" <<<"$codes" || fail "20 requests at once under rest.rate_limit_per_s = 5: $codes"
polling=$(curl -s "$API/api/kytos/of_lldp/v1/polling_time" | jq .polling_time)
for _ in $(seq 20); do
    [ "$polling" = 7 ] && break
    sleep 0.1       # a 429 from the bucket above: it refills at 5/s
    polling=$(curl -s "$API/api/kytos/of_lldp/v1/polling_time" | jq .polling_time)
done
[ "$polling" = 7 ] || fail "of_lldp's polling_time after the reload: $polling"
pass "SIGHUP: log level, rate limit and LLDP interval taken ($codes), net.arp_cache_size waits for a restart, the command line's key kept"
wait_for_line "$work/notify.txt" '^RELOADING=1' 5 || fail "systemd not told RELOADING=1"
grep -A1 '^RELOADING=1' "$work/notify.txt" | grep -q '^READY=1|STATUS=reloaded: 4 key(s)' ||
    fail "after RELOADING=1: $(cat "$work/notify.txt")"
pass "systemd told RELOADING=1, then READY=1 with the reload's status"

# ---- a broken file changes nothing ------------------------------------------------
set_key rate_limit_per_s 0
set_key log_level loud
reload_by_signal "reload refused"
grep -q "reload refused, nothing changed: .*log_level" "$log" ||
    fail "a bad log_level was not refused: $(tail -n 5 "$log")"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$API/api/v1/health")" != 000 ] || fail "ofcd gone"
grep -q debug <<<"$(ofcdctl log/list)" || fail "the refused reload changed the log level"
pass "a broken file: refused, nothing changed, ofcd serving"

# ---- ofcdctl config/reload answers with what changed ------------------------------
set_key log_level warn
out=$(ofcdctl config/reload) || fail "config/reload: $out"
for l in "app.log_level: debug -> warn, applied" "rest.rate_limit_per_s: 5 -> 0, applied" \
         "net.arp_cache_size: 1024 -> 2048, at the next restart" \
         "2 key(s) applied, 1 waiting for a restart"; do
    grep -qF "$l" <<<"$out" || fail "config/reload lacks '$l': $out"
done
codes=$(for _ in $(seq 20); do curl -s -o /dev/null -w '%{http_code}\n' "$API/api/v1/health"; done |
    sort -u | tr '\n' ' ')
[ "$codes" = "200 " ] || fail "rate limit off again, yet: $codes"
set_key log_level chatty
out=$(ofcdctl config/reload 2>&1) && fail "config/reload took a broken file: $out"
grep -q "refused, nothing changed" <<<"$out" || fail "config/reload's refusal: $out"
pass "ofcdctl config/reload: each changed key with applied or at the next restart; a broken file refused (exit 1)"

# ---- OpenFlow TLS: a certificate renewed at the same path ---------------------------
set_key log_level warn
served() {
    timeout 5 openssl s_client -connect 10.66.0.2:6654 </dev/null 2>/dev/null |
        openssl x509 -noout -subject 2>/dev/null | sed 's/.*CN *= *//'
}
[ "$(served)" = ofcd-a ] || fail "the TLS port serves '$(served)', not ofcd-a"
cp "$work/ofcd-b.pem" "$work/srv.pem"
cp "$work/ofcd-b.key" "$work/srv.key"
[ "$(served)" = ofcd-a ] || fail "the new files were taken before a reload"
out=$(ofcdctl config/reload) || fail "config/reload: $out"
grep -qF "tls: files -> read again, for new connections" <<<"$out" || fail "config/reload: $out"
[ "$(served)" = ofcd-b ] || fail "after the reload the TLS port serves '$(served)', not ofcd-b"
echo "not a certificate" >"$work/srv.pem"
out=$(ofcdctl config/reload 2>&1) && fail "a broken certificate was taken: $out"
grep -q "\[tls\]'s files do not load" <<<"$out" || fail "the refusal: $out"
[ "$(served)" = ofcd-b ] || fail "a refused reload changed the served certificate: '$(served)'"
pass "OpenFlow TLS: a certificate renewed at the same path served after a reload; a broken one refused, the running one kept"
stop_ofcd
exit 0
