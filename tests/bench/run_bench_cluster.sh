#!/usr/bin/env bash
# Failover of the cluster (issue 27's bench): a three-member etcd on
# loopback, three ofcd nodes, S Open vSwitch bridges each connected to all
# three, lease TTL $TTL s (default 3; 2 is etcd's least). For each size in
# SIZES (default "1 50"), KILLS rounds (default 5, so that make bench keeps
# to its time; the issue's full figure is SIZES="1 50 300" KILLS=20, about
# 40 minutes) of: kill -9 of the node that masters the most → time until
# OVS reports a surviving master on every bridge (its database, polled
# every 0.1 s) and until the last of the victim's bridges confirmed its
# new master (the switch's ROLE_REPLY, as the new master logged it); the
# node restarted and its share back. Then the same with SIGTERM (a
# graceful leave: the lease is revoked before the node lets its channels
# go), timed from the signal, not from the exit. p50/p99 of each, as text and
# OUT_DIR/cluster.json. At the first size, before the rounds: one-flow
# POSTs (3,000, twelve connections spread over the nodes) and batched ones
# (6,000 flows, 100 a request) through etcd, then the same against node 1
# alone without a cluster (LMDB) on the same bridges: requests/s, flows/s,
# p50/p99 of the answers (OUT_DIR/cluster_posts.json). Prints, never
# asserts. Needs root; about 20 s a round.
#
# usage: run_bench_cluster.sh OFCD_BINARY CONFIG_FILE [OUT_DIR]
set -uo pipefail
OFCD=$1
CONF=$2
OUT=${3:-$(mktemp -d /tmp/ofcd-bench-cluster.XXXXXX)}
SIZES=${SIZES:-1 50}
KILLS=${KILLS:-5}
POSTS=${POSTS:-1}       # 0: the failover rounds only
TTL=${TTL:-3}
mkdir -p "$OUT"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../integration/lib.sh"
. "$here/../integration/ovs_lib.sh"
. "$here/../integration/cluster_ovs.sh"
. "$here/../../scripts/cluster-lib.sh"
command -v etcd >/dev/null || { echo "etcd missing: scripts/install-deps installs it"; exit 1; }
work=$(mktemp -d /tmp/ofcd-bench-cluster-run.XXXXXX)
cleanup() {
    cl_all_stop
    ovs_stop
    rm -rf "$work"
}
trap cleanup EXIT

pct() {   # pct P FILE: the P-th percentile of the numbers in FILE
    sort -n "$2" | awk -v p="$1" '{ v[NR] = $1 } END {
        if (!NR) { print "null"; exit } i = int((NR - 1) * p / 100 + 0.5) + 1; print v[i] }'
}

# post_line LABEL OUTPUT: "202 3000 / in 2.3 s, ..." as one JSON object.
post_json() {
    python3 -c '
import re, sys
t = sys.stdin.read()
m = re.search(r"in ([0-9.]+) s, ([0-9.]+) POSTs/s, ([0-9.]+) flows/s, p50 ([0-9.]+) ms p99 ([0-9.]+) ms", t)
ok = re.search(r"^202 ([0-9]+)$", t, re.M)
print("{\"posts_s\": %s, \"flows_s\": %s, \"p50_ms\": %s, \"p99_ms\": %s, \"ok\": %s}" % (
    m.group(2), m.group(3), m.group(4), m.group(5), ok.group(1) if ok else 0) if m else "null")'
}

# One-flow and batched POSTs through the cluster, then node 1 alone on the
# same bridges (LMDB, no etcd), twelve connections each time.
post_bench() {
    local S=$1 one batch aone abatch
    one=$(python3 "$here/../integration/cluster_post.py" 8181,8182,8183 3000 "$S" 3000)
    batch=$(FLOWS_PER_POST=100 python3 "$here/../integration/cluster_post.py" 8181,8182,8183 \
        6000 "$S" 3001 10000)
    printf 'POSTs through etcd (3 nodes): one flow each: %s\n' "$(tr '\n' ' ' <<<"$one")"
    printf 'POSTs through etcd (3 nodes): 100 flows each: %s\n' "$(tr '\n' ' ' <<<"$batch")"
    cl_all_stop
    cl_node_start 1 "$work" --cluster.etcd_endpoints= --app.data_dir="$work/alone" ||
        { echo "node 1 alone did not start"; exit 1; }
    wait_rest_metric ofcd_switches_up "$S" 60 || echo "  not every bridge connected to node 1 alone"
    aone=$(CONNS_PER_NODE=12 python3 "$here/../integration/cluster_post.py" 8181 3000 "$S" 3002)
    abatch=$(CONNS_PER_NODE=12 FLOWS_PER_POST=100 python3 "$here/../integration/cluster_post.py" \
        8181 6000 "$S" 3003 10000)
    printf 'POSTs to one node alone (LMDB): one flow each: %s\n' "$(tr '\n' ' ' <<<"$aone")"
    printf 'POSTs to one node alone (LMDB): 100 flows each: %s\n' "$(tr '\n' ' ' <<<"$abatch")"
    printf '{"switches": %s, "cluster_one": %s, "cluster_batch": %s, "alone_one": %s, "alone_batch": %s}\n' \
        "$S" "$(post_json <<<"$one")" "$(post_json <<<"$batch")" "$(post_json <<<"$aone")" \
        "$(post_json <<<"$abatch")" >"$OUT/cluster_posts.json"
    cl_node_stop 1
    cl_etcd_start "$work" || { echo "etcd did not start again"; exit 1; }
    for k in 1 2 3; do
        cl_node_start $k "$work" --cluster.lease_ttl_s=$TTL || { echo "node $k failed"; exit 1; }
    done
    wait_until 120 masters_spread "$S" 3 || { echo "no spread again at $S: $(master_counts)"; exit 1; }
}

json="{"
for S in $SIZES; do
    cl_etcd_start "$work" || { echo "etcd did not start"; exit 1; }
    for k in 1 2 3; do
        cl_node_start $k "$work" --cluster.lease_ttl_s=$TTL || { echo "node $k failed"; exit 1; }
    done
    ovs_start "$work/ovs" >/dev/null 2>&1 || { echo "cannot start Open vSwitch"; exit 1; }
    ovs_add_bridges "$S" "$(cl_controllers 3)" 1000 || { echo "cannot create the bridges"; exit 1; }
    wait_until 120 masters_spread "$S" 3 || { echo "no spread at $S: $(master_counts)"; exit 1; }
    [ "$S" = "${SIZES%% *}" ] && [ "$POSTS" != 0 ] && post_bench "$S"
    for how in KILL TERM; do
        : >"$work/ovs_$how.txt"
        : >"$work/role_$how.txt"
        for r in $(seq 1 "$KILLS"); do
            victim=$(most_masters)
            theirs=$(bridges_of "$victim")
            vpid=$(cl_node_pid "$victim")
            t0=$(date +%s%N)
            # Timed from the signal, polled while a TERMed node still
            # shuts down: it leaves first, its channels still up.
            kill -$how "$vpid"
            if wait_until $((TTL + 10)) one_master_each "$S" "$victim"; then
                echo $((($(date +%s%N) - t0) / 1000000)) >>"$work/ovs_$how.txt"
                took_over_ms "$t0" "$victim" "$theirs" >>"$work/role_$how.txt"
            else
                echo "  round $r: bridges without a surviving master: $(master_counts)"
            fi
            cl_wait_gone "$vpid" 10 || echo "  round $r: node $victim alive 10 s after SIG$how"
            wait "$vpid" 2>/dev/null
            rm -f "$work/node$victim.pid"
            mv "$work/node$victim.log" "$work/node$victim.log.$how$r"
            cl_node_start "$victim" "$work" --cluster.lease_ttl_s=$TTL ||
                { echo "node $victim did not restart"; exit 1; }
            wait_until 60 masters_spread "$S" 3 || echo "  round $r: no spread: $(master_counts)"
        done
        o50=$(pct 50 "$work/ovs_$how.txt"); o99=$(pct 99 "$work/ovs_$how.txt")
        r50=$(pct 50 "$work/role_$how.txt"); r99=$(pct 99 "$work/role_$how.txt")
        printf '%4s switches, %-4s x%s: OVS shows new masters p50 %s ms p99 %s ms; ' \
            "$S" "$how" "$(wc -l <"$work/ovs_$how.txt")" "$o50" "$o99"
        printf 'ROLE_REPLY at the survivors p50 %s ms p99 %s ms\n' "$r50" "$r99"
        json+="\"s${S}_${how,,}\": {\"ovs_p50_ms\": $o50, \"ovs_p99_ms\": $o99, "
        json+="\"role_p50_ms\": $r50, \"role_p99_ms\": $r99, "
        json+="\"rounds\": $(wc -l <"$work/ovs_$how.txt")},"
    done
    cl_all_stop
    ovs_stop
    rm -rf "$work"/etcd* "$work"/node* "$work/ovs"
done
echo "${json%,}}" >"$OUT/cluster.json"
echo "lease TTL $TTL s; figures in $OUT/cluster.json"
