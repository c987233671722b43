#!/usr/bin/env bash
# The etcd v3 client (drivers/etcd) against a real etcd: a single-member
# etcd of its own on loopback (ports 23790-23792, a temp data dir; never
# the system's 2379), driven by tests/integration/etcd_probe.c:
#   put/get/prefix range/delete, a create-if-absent txn, a 2 s lease that
#   stays while kept alive and goes when not, a watch from a past revision
#   that sees every later put/delete in order, a compacted revision read
#   or watched -> -ESTALE, a dead first endpoint passed over;
#   etcd stopped (SIGSTOP) -> -ETIMEDOUT, etcd gone -> -ECONNREFUSED, both
#   within the call's timeout with a message; authentication with a token
#   renewed once it expires; TLS with client certificates; a kept
#   connection across etcd killed -9 and started again. Each probe runs
#   over etcd's gRPC API (the default) and over its JSON gateway.
# Needs no tap, OVS or ofcd: no integration lock.
#
# usage: etcd_client.sh ETCD_PROBE
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

probe=$1
client=http://127.0.0.1:23790
dead=http://127.0.0.1:23792
command -v etcd >/dev/null || fail "etcd missing: scripts/install-deps installs etcd-server"

work=$(mktemp -d /tmp/ofcd-etcd.XXXXXX)
etcd_pid=
cleanup() {
    if [ -n "$etcd_pid" ]; then
        kill -CONT "$etcd_pid" 2>/dev/null || true
        kill "$etcd_pid" 2>/dev/null || true
        wait_for_exit "$etcd_pid" 10 || kill -9 "$etcd_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# Its tokens live 1 s (--auth-token-ttl): the probe sees one expire.
started=0
etcd_single probe 23790 23791 "$work" --auth-token-ttl 1 || started=$?
etcd_pid=$ETCD_PID
[ $started = 0 ] || fail "etcd did not start"
pass "etcd $(etcd --version | head -1 | cut -d' ' -f3) on $client"

both() {   # both WHAT ARGS...: the probe over gRPC, then over the gateway
    local what=$1
    shift
    "$probe" "$@" | sed 's/^/grpc: /' || fail "etcd-probe $what (gRPC)"
    ETCD_PROBE_API=json "$probe" "$@" | sed 's/^/json: /' || fail "etcd-probe $what (JSON gateway)"
}
both check check $dead $client

# A kept connection across etcd killed -9 (no GOAWAY: a closed socket) and
# started again between two calls: the next call goes on a new connection.
restart_case() {   # restart_case LABEL [VAR=VALUE]
    local label=$1 go=$work/go-$1 out=$work/restart-$1.out pid
    rm -f "$go"
    env ${2:-} "$probe" restart "$go" $client >"$out" 2>&1 &
    pid=$!
    wait_for_line "$out" '^ready' 10 || { cat "$out"; fail "etcd-probe restart ($label): no first call"; }
    kill -9 "$etcd_pid"
    wait_for_exit "$etcd_pid" 10 || fail "etcd alive after kill -9"
    mv "$work/etcd.log" "$work/etcd.log.$label"
    etcd_single probe 23790 23791 "$work" --auth-token-ttl 1 || fail "etcd did not start again"
    etcd_pid=$ETCD_PID
    touch "$go"
    wait "$pid" || { cat "$out"; fail "etcd-probe restart ($label)"; }
    sed "s/^/$label: /" "$out"
}
restart_case grpc
restart_case json ETCD_PROBE_API=json

# Authentication: a root user, auth on; this etcd's tokens live 1 s
# (--auth-token-ttl), so the probe sees one expire and renews it.
etcdctl --endpoints=$client user add root:probe-pw >/dev/null || fail "etcdctl user add"
etcdctl --endpoints=$client role add root >/dev/null &&
    etcdctl --endpoints=$client user grant-role root root >/dev/null || fail "etcdctl root role"
etcdctl --endpoints=$client auth enable >/dev/null || fail "etcdctl auth enable"
both auth auth $client root probe-pw

kill -STOP "$etcd_pid"
both "down (etcd stopped: the call must time out cleanly)" down ETIMEDOUT $client
kill -CONT "$etcd_pid"

kill "$etcd_pid"
wait_for_exit "$etcd_pid" 10 || fail "etcd did not stop"
etcd_pid=
both "down (etcd gone: the call must fail cleanly)" down ECONNREFUSED $dead $client

# TLS: a CA of the test's own, etcd on https demanding client certificates.
pki() {   # pki NAME SUBJECT [EXT]: a P-256 key and a certificate signed by the CA
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/$1.key" \
        -subj "/CN=$2" -out "$work/$1.csr" 2>/dev/null
    openssl x509 -req -in "$work/$1.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" \
        -CAcreateserial -days 1 -out "$work/$1.crt" ${3:+-extfile <(echo "$3")} 2>/dev/null
}
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/ca.key" \
    -out "$work/ca.crt" -days 1 -subj /CN=probe-ca 2>/dev/null || fail "openssl: CA"
pki server etcd "subjectAltName=IP:127.0.0.1" || fail "openssl: server certificate"
pki client probe "extendedKeyUsage=clientAuth" || fail "openssl: client certificate"
chmod 600 "$work"/*.key
tls=https://127.0.0.1:23793
etcd --name probe-tls --data-dir "$work/data-tls" \
    --listen-client-urls $tls --advertise-client-urls $tls \
    --cert-file "$work/server.crt" --key-file "$work/server.key" \
    --client-cert-auth --trusted-ca-file "$work/ca.crt" \
    --listen-peer-urls http://127.0.0.1:23794 \
    --initial-advertise-peer-urls http://127.0.0.1:23794 \
    --initial-cluster probe-tls=http://127.0.0.1:23794 \
    --logger zap --log-outputs "$work/etcd-tls.log" >/dev/null 2>&1 &
etcd_pid=$!
wait_for_line "$work/etcd-tls.log" 'serving client (traffic|requests)' 20 ||
    { tail -20 "$work/etcd-tls.log" >&2; fail "etcd on https did not start"; }
both tls tls $tls "$work/ca.crt" "$work/client.crt" "$work/client.key"
pass "etcd client"
