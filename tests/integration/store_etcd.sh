#!/usr/bin/env bash
# The store's etcd backend (control/store/store_etcd*.c) against a real etcd:
# a single-member etcd of its own on loopback (ports 23797-23798, a temp
# data dir), then test_store's etcd group: the store contract through
# etcd and an LMDB mirror (read-your-writes, selections, state updates,
# app records, a reopen resuming from the mirror's revision), two nodes'
# stores on one prefix seeing each other's changes, a node away while
# records are deleted letting them go when it comes back, and the
# mastership guard of state updates. Needs no tap, OVS or ofcd.
#
# usage: store_etcd.sh TEST_STORE
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

test_store=$1
client=http://127.0.0.1:23797
command -v etcd >/dev/null || fail "etcd missing: scripts/install-deps installs etcd-server"

work=$(mktemp -d /tmp/ofcd-store-etcd.XXXXXX)
etcd_pid=
cleanup() {
    if [ -n "$etcd_pid" ]; then
        kill "$etcd_pid" 2>/dev/null || true
        wait_for_exit "$etcd_pid" 10 || kill -9 "$etcd_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

started=0
etcd_single store 23797 23798 "$work" || started=$?
etcd_pid=$ETCD_PID
[ $started = 0 ] || fail "etcd did not start"
pass "etcd on $client"

OFCD_TEST_ETCD=$client OFCD_TEST_ETCD_ONLY=1 "$test_store" ||
    fail "the store's etcd backend"
pass "the store contract through etcd, two nodes on one prefix, the guard"
