#!/usr/bin/env bash
# ofcd --check-machine on this machine as it is and made broken: the
# default configuration passes; hugepages asked for and none free, a NIC
# still driven by the kernel, a PCI address that is not here, an af_packet
# interface that is not here, a data directory that cannot be made (or,
# as another user, written) and a REST port in use each give one line with
# its fix and exit 1; nothing starts. (tests/unit/test_machine_check.c covers the rest on a fake /sys.)
#
# usage: check_machine.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_root
require_tool python3
it_setup check_machine

out=$("$OFCD" --config "$CONF" --app.data_dir="$work/var" --check-machine 2>"$work/err")
rc=$?
[ $rc = 0 ] || fail "the default configuration on this machine: exit $rc: $(cat "$work/err")"
grep -qx "machine OK" <<<"$out" || fail "no 'machine OK': $out"
[ -e "$work/var" ] && fail "--check-machine made the data directory"
pass "default configuration: configuration OK, machine OK"

# A NIC of this machine that the kernel drives (its first with an interface).
nic=
for d in /sys/bus/pci/devices/*; do
    if [ -n "$(ls -d "$d"/net/* "$d"/virtio*/net/* 2>/dev/null)" ] && [ -e "$d/driver" ]; then
        nic=$(basename "$d")
        break
    fi
done
[ -n "$nic" ] || fail "this machine shows no PCI NIC with a kernel interface"
free_kb=$(awk '/^HugePages_Free/ { f = $2 } /^Hugepagesize/ { s = $2 } END { print f * s }' /proc/meminfo)

python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); print("up", flush=True); time.sleep(60)' 18199 \
    >"$work/listener" 2>&1 &
it_on_exit "kill $!"
for _ in $(seq 100); do grep -q up "$work/listener" && break; sleep 0.05; done
: >"$work/file"
"$OFCD" --config "$CONF" --check-machine --rest.listen=127.0.0.1:18199 \
    --eal.args="-m 64 -a $nic -a 0000:7f:1f.7 --vdev=net_af_packet0,iface=ofcd-nosuch0" \
    --app.data_dir="$work/file/var" >"$work/out" 2>"$work/err"
rc=$?
[ $rc = 1 ] || fail "a broken machine: exit $rc, not 1: $(cat "$work/err")"
expect() { grep -q -- "$1" "$work/err" || fail "no line for $2: $(cat "$work/err")"; }
drv=$(basename "$(readlink "/sys/bus/pci/devices/$nic/driver")")
expect "PCI device $nic is driven by the kernel's $drv (interface .*): bind it to vfio-pci" \
    "a NIC the kernel drives"
expect "PCI device 0000:7f:1f.7 (eal.args) is not on this machine: .ofcd setup. lists" \
    "a PCI address not here"
expect "names interface ofcd-nosuch0, which this machine lacks" "an af_packet interface not here"
expect "app.data_dir $work/file/var cannot be made: $work/file is not a directory" "the data dir"
expect "rest.listen 127.0.0.1:18199 cannot be bound: Address already in use: another program" \
    "the REST port in use"
n=5
if [ "$free_kb" -lt $((64 * 1024)) ]; then
    expect "eal.args use hugepages (no --no-huge) and ask for 64 MiB" "no hugepages"
    n=$((n + 1))
else
    grep -q "hugepages are free" "$work/err" && fail "hugepages named though $free_kb kB are free"
fi
grep -q "hugetlbfs" /proc/mounts || n=$((n + 1))
[ "$(grep -c '^ofcd: .*: ' "$work/err")" = $((n + 1)) ] ||
    fail "not one line per problem ($n and a summary): $(cat "$work/err")"
expect "$n problem(s) on this machine: ofcd would not start" "the summary"
pass "a broken machine: exit 1, $n problems, one line each with its fix"

# A data directory this user may not write: ofcd as nobody, root's 755 dir.
mkdir -p "$work/rootonly"
chmod 755 "$work/rootonly"
chmod 755 "$work"
setpriv --reuid=nobody --regid=nogroup --clear-groups "$OFCD" --config "$CONF" \
    --check-machine --app.data_dir="$work/rootonly/var" --rest.listen=127.0.0.1:18198 \
    >"$work/out" 2>"$work/err"
rc=$?
[ $rc = 1 ] || fail "a data dir nobody may write: exit $rc: $(cat "$work/err")"
grep -q "app.data_dir $work/rootonly/var: $work/rootonly is not writable by uid 65534" \
    "$work/err" || fail "no line for the unwritable data dir: $(cat "$work/err")"
pass "as user nobody: app.data_dir under root's directory is not writable, with its chown"
exit 0
