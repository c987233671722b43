#!/usr/bin/env bash
# Build the libFuzzer targets with clang (ASan+UBSan) — the frame/segment
# input path (fuzz_net_tcp), the OpenFlow decoder (fuzz_ofp), the REST body
# reader and flow parser with the group, meter and EVC parsers
# (fuzz_flow_json), the LLDP reader (fuzz_lldp), etcd's answer decoders
# over its JSON gateway (fuzz_etcd) and over gRPC (fuzz_etcd_pb), the etcd
# store's record readers (fuzz_store_etcd), the reader of the events other
# nodes relay (fuzz_relay), the flow store journal's reader (fuzz_journal)
# and ofswitch-replay's capture reader (fuzz_pcapr) — and run each for an eighth of the given time from its
# seed corpus. A crash, leak or sanitizer report fails the test and leaves
# the reproducer in the work directory (named in the output).
#
# usage: run_fuzz.sh SOURCE_ROOT SECONDS [WORK_DIR]
set -euo pipefail
root=$1
secs=$2
work=${3:-$(mktemp -d /tmp/ofcd-fuzz.XXXXXX)}
command -v clang >/dev/null || { echo "clang missing: scripts/install-deps installs it"; exit 1; }

mkdir -p "$work/corpus" "$work/corpus_ofp" "$work/corpus_flow_json" "$work/corpus_lldp" \
    "$work/corpus_etcd" "$work/corpus_etcd_pb" "$work/corpus_store_etcd" "$work/corpus_relay" \
    "$work/corpus_journal" "$work/corpus_pcapr"
cp "$root"/tests/fuzz/corpus/* "$work/corpus/"
cp "$root"/tests/fuzz/corpus_flow_json/* "$work/corpus_flow_json/"
cp "$root"/tests/fuzz/corpus_lldp/* "$work/corpus_lldp/"
cp "$root"/tests/fuzz/corpus_etcd/* "$work/corpus_etcd/"
cp "$root"/tests/fuzz/corpus_etcd_pb/* "$work/corpus_etcd_pb/"
cp "$root"/tests/fuzz/corpus_store_etcd/* "$work/corpus_store_etcd/"
cp "$root"/tests/fuzz/corpus_relay/* "$work/corpus_relay/"
cp "$root"/tests/fuzz/corpus_journal/* "$work/corpus_journal/"
cp "$root"/tests/fuzz/corpus_pcapr/* "$work/corpus_pcapr/"
cflags=(-g -O1 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
# Each target is one clang call over its sources; two run at once (make
# test runs on two cores, and the builds took half of this test's time).
pids=()
bg() {
    "$@" &
    pids+=($!)
    if [ ${#pids[@]} -ge 2 ]; then
        wait "${pids[0]}"
        pids=("${pids[@]:1}")
    fi
}
bg clang "${cflags[@]}" -I"$root/common" -I"$root/drivers/net" \
    "$root/tests/fuzz/fuzz_net_tcp.c" "$root"/drivers/net/*.c "$root"/common/*.c \
    -o "$work/fuzz_net_tcp"
bg clang "${cflags[@]}" -I"$root/common" -I"$root/ofp" -I"$root/tests/unit" \
    "$root/tests/fuzz/fuzz_ofp.c" "$root/tests/unit/ofp_test_util.c" "$root"/ofp/*.c \
    "$root"/common/*.c -o "$work/fuzz_ofp"
bg clang "${cflags[@]}" -I"$root/common" -I"$root/ofp" -I"$root/control/fm" -I"$root/rest/kytos" \
    -I"$root/apps/eline" -I"$root/tests/unit" "$root/tests/fuzz/fuzz_flow_json.c" \
    "$root/tests/unit/jt_json.c" "$root/apps/eline/eline_req.c" "$root/apps/eline/eline_layout.c" \
    "$root/apps/eline/eline_sched.c" \
    "$root/rest/kytos/flow_json.c" "$root/rest/kytos/gm_json.c" "$root/rest/kytos/json_tape.c" \
    "$root/rest/kytos/json_u64.c" "$root/control/fm/fm_flow.c" "$root"/ofp/*.c \
    "$root"/common/*.c -ljansson -o "$work/fuzz_flow_json"
bg clang "${cflags[@]}" -I"$root/apps/topo" \
    "$root/tests/fuzz/fuzz_lldp.c" "$root/apps/topo/topo_lldp.c" -lcrypto -o "$work/fuzz_lldp"
bg clang "${cflags[@]}" -I"$root/drivers/etcd" \
    "$root/tests/fuzz/fuzz_etcd.c" "$root/drivers/etcd/etcd_resp.c" \
    "$root/drivers/etcd/etcd_b64.c" -ljansson \
    -o "$work/fuzz_etcd"
bg clang "${cflags[@]}" -I"$root/drivers/etcd" \
    "$root/tests/fuzz/fuzz_etcd_pb.c" "$root/drivers/etcd/etcd_pb_resp.c" \
    "$root/drivers/etcd/etcd_resp.c" "$root/drivers/etcd/etcd_b64.c" -ljansson \
    -o "$work/fuzz_etcd_pb"
bg clang "${cflags[@]}" -I"$root/control/store" -I"$root/drivers/etcd" -I"$root/common" \
    "$root/tests/fuzz/fuzz_store_etcd.c" "$root/control/store/store_etcd_rec.c" \
    -o "$work/fuzz_store_etcd"
bg clang "${cflags[@]}" -I"$root/apps/cluster" \
    "$root/tests/fuzz/fuzz_relay.c" "$root/apps/cluster/cnode_relay.c" -ljansson \
    -o "$work/fuzz_relay"
bg clang "${cflags[@]}" -I"$root/control/store" -I"$root/common" \
    "$root/tests/fuzz/fuzz_journal.c" "$root/control/store/store_journal.c" \
    -o "$work/fuzz_journal"
bg clang "${cflags[@]}" -I"$root/tests/emu" \
    "$root/tests/fuzz/fuzz_pcapr.c" "$root/tests/emu/emu_pcapr.c" "$root/tests/emu/emu_ofp.c" \
    -o "$work/fuzz_pcapr"
for p in "${pids[@]}"; do
    wait "$p"
done
# The OpenFlow seeds are the codec's own sample messages, written by a tool.
cc -std=c11 -D_GNU_SOURCE -O1 -I"$root/common" -I"$root/ofp" -I"$root/tests/unit" \
    "$root/tests/fuzz/ofp_seeds.c" "$root/tests/unit/ofp_test_util.c" "$root"/ofp/*.c \
    "$root"/common/*.c -o "$work/ofp_seeds"
"$work/ofp_seeds" "$work/corpus_ofp" >/dev/null
cd "$work"
half=$(( (secs + 7) / 8 ))
# -rss_limit_mb: nothing here allocates much; a blow-up is a bug.
for t in net_tcp ofp flow_json lldp etcd etcd_pb store_etcd relay journal pcapr; do
    corpus=corpus
    [ $t = ofp ] && corpus=corpus_ofp
    [ $t = flow_json ] && corpus=corpus_flow_json
    [ $t = lldp ] && corpus=corpus_lldp
    [ $t = etcd ] && corpus=corpus_etcd
    [ $t = etcd_pb ] && corpus=corpus_etcd_pb
    [ $t = store_etcd ] && corpus=corpus_store_etcd
    [ $t = relay ] && corpus=corpus_relay
    [ $t = journal ] && corpus=corpus_journal
    [ $t = pcapr ] && corpus=corpus_pcapr
    # A journal's header alone is 16 KiB (two slots).
    maxlen=4096
    [ $t = journal ] && maxlen=20000
    [ $t = pcapr ] && maxlen=8192                # a session's record: 4,860 bytes
    # libFuzzer's own exit code for a finding is 77, which meson reads as
    # "skipped": a finding must fail the test.
    ./fuzz_$t -max_total_time="$half" -max_len=$maxlen -rss_limit_mb=1024 -error_exitcode=1 \
        -print_final_stats=1 -artifact_prefix="$work/$t-" "$corpus" 2>&1 | tail -4
    echo "fuzz_$t: $half s without a finding"
done
echo "work dir $work"
