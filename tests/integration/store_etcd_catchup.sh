#!/usr/bin/env bash
# A node's copy of the flows catching up from etcd, shaped as etcd shapes
# a catch-up and past it (tests/integration/etcd_fake.py; the probe,
# store_catchup_probe.c, says what each case checks): the missed changes
# in parts headed with etcd's current revision, the stream ended in the
# middle, parts 300 ms apart (the node must not call itself caught up in a
# lull), and one message past the watch's bounds (the node reads every
# record instead of asking for the same message again); a write whose
# transaction etcd applies but answers too late (its outcome is unknown,
# never "nothing stored"); and a copy whose store is too small for what it
# missed (warned past 80 %, behind, writes refused). Needs no etcd, tap or
# ofcd.
#
# usage: store_etcd_catchup.sh STORE_CATCHUP_PROBE
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

probe=$1
work=$(mktemp -d /tmp/ofcd-store-catchup.XXXXXX)
fake_pid=
cleanup() {
    [ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 "$here/etcd_fake.py" --port "$port" 2>"$work/fake.log" &
fake_pid=$!
for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$port/fake/state" && break
    sleep 0.1
done
pass "fake etcd on 127.0.0.1:$port"
mkdir -p "$work/node"
"$probe" "http://127.0.0.1:$port" "$work/node" 2>"$work/probe.log" || {
    cat "$work/probe.log" >&2
    tail -5 "$work/fake.log"
    fail "the node's copy did not catch up as the fake's"
}
pass "a node caught up from parts headed ahead of their events, a stream ended in the middle, and a message past its bounds; a batch whose third transaction timed out answered as unknown; a copy too small went behind, refused writes, and caught up with room"
grep -Eq "WARN  store: this node's copy of etcd uses (8[0-9]|9[0-9]|100) % of its store" \
    "$work/probe.log" || fail "the copy's store filled past 80 % without a warning"
pass "the copy's store past 80 %: warned"
