#!/usr/bin/env bash
# The per-case filter of the cmocka tests (tests/cmocka_filter.c), on one of
# them: OFCD_TEST=NAME runs that case alone, a glob runs the cases it
# matches, a pattern that matches none fails and lists the cases (a typo
# must not pass as "0 tests, all fine"), and without it every case runs.
#
# usage: cmocka_filter_check.sh TEST_BINARY  (test_timer_wheel: it has a
# case test_cancel, and several test_clock_* cases)
set -uo pipefail
T=$1
out=$(mktemp /tmp/ofcd-cmocka-filter.XXXXXX)
trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*" >&2; cat "$out" >&2; exit 1; }

all=$(OFCD_TEST= "$T" 2>&1 | grep -c '^\[ RUN')
[ "$all" -gt 3 ] || fail "without OFCD_TEST only $all cases ran"

OFCD_TEST=test_cancel "$T" >"$out" 2>&1 || fail "OFCD_TEST=test_cancel failed"
[ "$(grep -c '^\[ RUN' "$out")" -eq 1 ] && grep -q '^\[ RUN *\] test_cancel$' "$out" ||
    fail "OFCD_TEST=test_cancel did not run test_cancel alone"

OFCD_TEST='test_clock_*' "$T" >"$out" 2>&1 || fail "OFCD_TEST='test_clock_*' failed"
n=$(grep -c '^\[ RUN' "$out")
[ "$n" -ge 2 ] && [ "$n" -lt "$all" ] && ! grep '^\[ RUN' "$out" | grep -qv test_clock_ ||
    fail "OFCD_TEST='test_clock_*' ran $n cases, not only the test_clock_ ones"

if OFCD_TEST=test_no_such_case "$T" >"$out" 2>&1; then
    fail "a pattern that matches no case passed"
fi
grep -q "OFCD_TEST='test_no_such_case' matches none" "$out" && grep -q 'test_cancel' "$out" ||
    fail "no clear message naming the pattern and listing the cases"
echo "ok: OFCD_TEST runs one case, a glob's cases, and fails on a pattern matching none"
