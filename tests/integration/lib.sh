# Shared helpers for the integration tests (sourced, not run).
# Each test runs as root, one at a time, and cleans up after itself.

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

pass() {
    echo "ok: $*"
}

# wait_for_line FILE PATTERN SECONDS: block until PATTERN appears in FILE
# (follows the file as it grows; returns 1 on timeout).
wait_for_line() {
    local file=$1 pattern=$2 secs=$3
    timeout "$secs" bash -c 'tail -n +1 -F "$0" 2>/dev/null | grep -q -m1 -E "$1"' \
        "$file" "$pattern"
}

# wait_for_exit PID SECONDS: 0 when PID is gone in time, 1 otherwise.
wait_for_exit() {
    local pid=$1 secs=$2
    timeout "$secs" tail -s 0.02 --pid="$pid" -f /dev/null
}

require_root() {
    [ "$(id -u)" -eq 0 ] || fail "integration tests need root (tap devices, ping sockets)"
    [ -c /dev/net/tun ] || fail "/dev/net/tun missing: the tap PMD needs it"
}
