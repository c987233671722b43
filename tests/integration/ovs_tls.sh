#!/usr/bin/env bash
# OpenFlow over TLS against Open vSwitch: certificates made by ovs-pki (a
# controller CA and a switch CA, as OVS documents), ofcd on TLS only
# (openflow.port = 0, tls.port = 6653, switches verified against the switch
# CA). 100 bridges with ssl:10.66.0.2:6653 establish and get a flow through
# REST; then, while they stay connected, hostile and broken peers are each
# refused with a reason and a counter: a bridge speaking plaintext OpenFlow
# to the TLS port, OpenSSL's client with a certificate from another CA and
# with none, a TCP connection that never starts its handshake
# (tls.handshake_timeout_ms), and a TLS 1.2 client asking to renegotiate.
# tls.pins_file pins br2's dpid to its certificate (it connects) and br3's
# to another one (refused, logged with both fingerprints): a certificate of
# the switch CA is not enough to claim a pinned dpid.
# Finally --check refuses broken TLS configurations naming the key.
#
# usage: ovs_tls.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root
require_tool ovs-vswitchd "Open vSwitch"
require_tool ovs-pki "Open vSwitch's ovs-pki"
require_tool openssl

N=${OVS_TLS_BRIDGES:-100}
FM=http://127.0.0.1:8181/api/kytos/flow_manager/v2
it_setup ovs-tls
log=$work/ofcd.log

# wait_metric_ge NAME MIN SECS: until /metrics shows NAME >= MIN.
wait_metric_ge() {
    local end=$((SECONDS + $3)) v
    while :; do
        v=$(rest_metric "$1")
        [ "${v%.*}" -ge "$2" ] && return 0
        [ $SECONDS -ge $end ] && { echo "$1 = $v after $3 s, expected >= $2" >&2; return 1; }
        sleep 0.1
    done
}
io_metric() {
    echo "ofcd_openflow_io_total{lcore=\"0\",what=\"$1\"}"
}

ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
ovs_tls_setup "$work/tls" || fail "ovs-pki could not make the certificates"
# Another PKI: its switch certificate is valid, but not from our switch CA.
mkdir -p "$work/other"
(cd "$work/other" && ovs-pki --dir="$work/other/pki" init >/dev/null 2>&1 &&
    ovs-pki --dir="$work/other/pki" req+sign intruder switch >/dev/null 2>&1) ||
    fail "cannot make the other CA's certificate"

fingerprint() {
    openssl x509 -noout -fingerprint -sha256 -in "$1" | cut -d= -f2
}
sc_fp=$(fingerprint "$work/tls/sc-cert.pem")
other_fp=$(fingerprint "$work/other/intruder-cert.pem")
printf '# pinned switches\n00:00:00:00:00:00:10:02 %s\n4099 %s  # br3: not its own\n' \
    "$sc_fp" "$other_fp" >"$work/pins"
start_ofcd "$log" --config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0 \
    "${OFCD_TLS_ARGS[@]}" --tls.handshake_timeout_ms=1000 --tls.pins_file="$work/pins"
grep -q 'tls.pins_file: 2 switch(es) pinned' "$log" || fail "the pins were not loaded"
grep -q 'plaintext and unauthenticated' "$log" &&
    fail "TLS only, yet ofcd warns of a plaintext listener"
t0=$SECONDS
ovs_add_bridges "$N" ssl:10.66.0.2:6653 1000 || fail "cannot create $N bridges"
UP=$((N - 1))                                    # br3 is refused by its pin
wait_rest_metric ofcd_switches_up "$UP" 90 || fail "not all $UP bridges came up over TLS"
pass "$UP OVS bridges established over TLS in $((SECONDS - t0)) s"
# The io counters reach /metrics in the lcore's next snapshot (100 ms).
wait_metric_ge "$(io_metric tls_handshakes)" "$N" 5 || fail "tls_handshakes < $N"
grep -q "TLSv1.3 .*certificate .*CN=sc" "$log" || fail "no log line names the switch's certificate"
pass "each handshake counted and logged with the switch's certificate"
lower() { tr 'A-F' 'a-f'; }
wait_metric_ge 'ofcd_openflow_worker_total{lcore="0",what="pin_refused"}' 1 10 ||
    wait_metric_ge 'ofcd_openflow_worker_total{lcore="1",what="pin_refused"}' 1 5 ||
    fail "br3's pin was not enforced"
grep -q "switch 0000000000001003: .* shows certificate SHA-256 $(echo "$sc_fp" | lower), but \
tls.pins_file pins the dpid to certificate SHA-256 $(echo "$other_fp" | lower): refused" "$log" ||
    { grep 'pins the dpid' "$log" | head -2; fail "the pin refusal does not show both fingerprints"; }
# REST, not the log: with 99 bridges up at once, "established" lines past
# the worker's per-second limit are counted, not written.
[ "$(curl -s http://127.0.0.1:8181/api/v1/switches/00:00:00:00:00:00:10:02 | jq -r .connected)" \
    = true ] || fail "br2, pinned to its own certificate, is not up"
pass "a pinned dpid with another certificate refused (both fingerprints logged); the right one up"

body='{"flows": [{"priority": 77, "match": {"in_port": 1, "dl_vlan": 300},
  "actions": [{"action_type": "output", "port": 2}]}]}'
code=$(curl -s -o "$work/post.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -d "$body" "$FM/flows/00:00:00:00:00:00:10:01")
[ "$code" = 202 ] || { cat "$work/post.json"; fail "POST answered $code"; }
ovs_wait_flow br1 "priority=77" || fail "the flow never reached br1 over TLS"
pass "a flow POSTed to REST is installed on br1 over TLS"

# A bridge set to tcp: on the TLS port.
ovs_vsctl add-br brp -- set bridge brp datapath_type=netdev protocols=OpenFlow13 \
    fail-mode=secure -- set-controller brp tcp:10.66.0.2:6653 ||
    fail "cannot add the plaintext bridge"
wait_metric_ge "$(io_metric tls_plaintext)" 1 10 || fail "plaintext on the TLS port not counted"
grep -q 'plaintext OpenFlow (version byte 0x4) on the TLS port' "$log" ||
    fail "the plaintext refusal is not logged with its reason"
ovs_vsctl del-br brp
pass "plaintext OpenFlow on the TLS port refused, counted and logged"

failed0=$(rest_metric "$(io_metric tls_handshake_failed)")
# s_client PROTO ARGS...: OpenSSL's own client, stdin empty, its output kept.
s_client() {
    timeout 10 openssl s_client -connect 10.66.0.2:6653 -CAfile "$work/tls/pki/controllerca/cacert.pem" \
        "$@" </dev/null >"$work/s_client.txt" 2>&1
}
s_client -cert "$work/other/intruder-cert.pem" -key "$work/other/intruder-privkey.pem"
wait_metric_ge "$(io_metric tls_handshake_failed)" $((failed0 + 1)) 10 ||
    fail "a certificate from another CA was not refused"
grep -q 'certificate verify failed: unable to get local issuer certificate' "$log" ||
    fail "the refusal does not say the certificate does not chain to tls.ca"
pass "a switch certificate from another CA refused: certificate verify failed"
s_client
wait_metric_ge "$(io_metric tls_handshake_failed)" $((failed0 + 2)) 10 ||
    fail "a client without a certificate was not refused"
grep -q 'peer did not return a certificate' "$log" || fail "no reason logged for no certificate"
pass "a client without a certificate refused (mutual authentication on by default)"

# A connection that never starts its handshake holds nothing past the timeout.
exec 7<>/dev/tcp/10.66.0.2/6653 || fail "cannot connect to the TLS port"
wait_metric_ge "$(io_metric tls_handshake_timeouts)" 1 5 ||
    fail "a stalled handshake was not closed after tls.handshake_timeout_ms"
exec 7>&-
pass "a stalled handshake closed after tls.handshake_timeout_ms"

# TLS 1.2 with the switch's own certificate, then a renegotiation request.
errors0=$(rest_metric "$(io_metric tls_errors)")
{ sleep 1; echo R; sleep 2; } | timeout 10 openssl s_client -connect 10.66.0.2:6653 -tls1_2 \
    -CAfile "$work/tls/pki/controllerca/cacert.pem" -cert "$work/tls/sc-cert.pem" \
    -key "$work/tls/sc-privkey.pem" >"$work/reneg.txt" 2>&1
grep -qa 'Protocol *: TLSv1.2' "$work/reneg.txt" || { cat -v "$work/reneg.txt"; fail "no TLS 1.2 session"; }
grep -qa 'RENEGOTIATING' "$work/reneg.txt" || { cat -v "$work/reneg.txt"; fail "s_client did not renegotiate"; }
grep -qa 'no renegotiation' "$work/reneg.txt" ||
    { cat -v "$work/reneg.txt"; fail "the renegotiation was not refused"; }
wait_metric_ge "$(io_metric tls_errors)" $((errors0 + 1)) 10 || fail "the refused session not counted"
pass "a renegotiation request refused"

[ "$(rest_metric ofcd_switches_up)" = "$UP" ] || fail "switches up: $(rest_metric ofcd_switches_up)"
# br3 reconnects and is refused again and again; every other one stays.
ovs_wait_connected "$UP" 30 || fail "OVS does not see the $UP bridges connected"
downs=$(grep -c 'disconnected after' "$log")
[ "$downs" = 0 ] || fail "$downs switches disconnected meanwhile"
pass "all $UP bridges stayed connected through the hostile peers"
stop_ofcd
pass "ofcd stopped cleanly with $UP TLS switches"

# --check: the TLS material is loaded and checked before "configuration OK".
check() {
    "$OFCD" --config "$CONF" --app.data_dir="$work/var" "${OFCD_TLS_ARGS[@]}" "$@" --check \
        >"$work/check.txt" 2>&1
}
check || { cat "$work/check.txt"; fail "--check refuses the good TLS configuration"; }
chmod 644 "$work/tls/ctl-privkey.pem"
check && fail "--check accepts a private key readable by others"
grep -q "tls.key = $work/tls/ctl-privkey.pem: readable by others" "$work/check.txt" ||
    { cat "$work/check.txt"; fail "no reason given for the key's mode"; }
chmod 600 "$work/tls/ctl-privkey.pem"
check --tls.key="$work/tls/sc-privkey.pem" && fail "--check accepts a key of another certificate"
grep -q "is not the key of tls.cert" "$work/check.txt" || fail "no reason for the wrong key"
check --tls.ca= && fail "--check accepts verify_peer without a CA"
grep -q "tls.verify_peer = true needs tls.ca" "$work/check.txt" || fail "no reason for no CA"
pass "--check refuses a world-readable key, a mismatched key and a missing CA, naming them"
