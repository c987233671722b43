#!/usr/bin/env bash
# Build the libFuzzer target with clang (ASan+UBSan) and run it for a bounded
# time from the seed corpus. A crash, leak or sanitizer report fails the test
# and leaves the reproducer in the work directory (named in the output).
#
# usage: run_fuzz.sh SOURCE_ROOT SECONDS [WORK_DIR]
set -euo pipefail
root=$1
secs=$2
work=${3:-$(mktemp -d /tmp/ofcd-fuzz.XXXXXX)}
command -v clang >/dev/null || { echo "clang missing: scripts/install-deps installs it"; exit 1; }

mkdir -p "$work/corpus"
cp "$root"/tests/fuzz/corpus/* "$work/corpus/"
clang -g -O1 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$root/common" -I"$root/drivers/net" \
    "$root/tests/fuzz/fuzz_net_tcp.c" "$root"/drivers/net/*.c "$root/common/ofcd_log.c" \
    -o "$work/fuzz_net_tcp"
cd "$work"
# -rss_limit_mb: the stack preallocates nothing big here; a blow-up is a bug.
./fuzz_net_tcp -max_total_time="$secs" -max_len=4096 -rss_limit_mb=1024 \
    -print_final_stats=1 -artifact_prefix="$work/" corpus 2>&1 | tail -15
echo "fuzz_net_tcp: $secs s without a finding (work dir $work)"
