#!/usr/bin/env bash
# ofcd setup (scripts/ofcd-setup), the NIC tool of day one. On a fake
# machine (a directory laid out as /sys and /etc, two PCI NICs: one the
# kernel's with the default route, one free on NUMA node 1): list shows
# both; the routed one is refused; a dry run prints the changes and writes
# nothing; --apply writes the hugepages, the vfio-pci line, the [eal] and
# [lcores] lines (ofcd --check takes the result) and binds the NIC through
# sysfs; undo --apply puts every file back byte for byte. Then the real
# path on this machine: a veth whose peer is in a namespace, set up for
# net_af_packet with --apply, and ofcd started on that configuration
# answers ping from the namespace.
#
# usage: ofcd_setup.sh OFCD_BINARY CONFIG_FILE
set -uo pipefail
OFCD=$1
CONF=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
require_root
require_tool python3
require_tool ethtool
it_setup ofcd_setup
setup() { "$OFCD" setup "$@"; }

# ---- the fake machine -----------------------------------------------------------
R=$work/root
pci=$R/sys/bus/pci/devices
mkdir -p "$pci/0000:03:00.0/net/enp3s0f0" "$pci/0000:00:03.0/virtio0/net/eth0" \
    "$R/sys/bus/pci/drivers/ixgbe" "$R/sys/bus/pci/drivers/virtio-pci" \
    "$R/sys/class/net/enp3s0f0" "$R/sys/class/net/eth0" "$R/sys/devices/system/node/node1" \
    "$R/etc/ofcd" "$R/etc/dpdk" "$R/proc/sys/vm"
printf '0\n' >"$R/proc/sys/vm/nr_hugepages"
printf '0x020000\n' >"$pci/0000:03:00.0/class"
printf '0x8086\n' >"$pci/0000:03:00.0/vendor"
printf '0x10fb\n' >"$pci/0000:03:00.0/device"
printf '1\n' >"$pci/0000:03:00.0/numa_node"
: >"$pci/0000:03:00.0/driver_override"
ln -s "$R/sys/bus/pci/drivers/ixgbe" "$pci/0000:03:00.0/driver"
: >"$R/sys/bus/pci/drivers/ixgbe/unbind"
: >"$R/sys/bus/pci/drivers_probe"
printf '0x020000\n' >"$pci/0000:00:03.0/class"
printf '0x1af4\n' >"$pci/0000:00:03.0/vendor"
printf '0x1041\n' >"$pci/0000:00:03.0/device"
printf -- '-1\n' >"$pci/0000:00:03.0/numa_node"
ln -s "$R/sys/bus/pci/drivers/virtio-pci" "$pci/0000:00:03.0/driver"
printf 'down\n' >"$R/sys/class/net/enp3s0f0/operstate"
printf 'up\n' >"$R/sys/class/net/eth0/operstate"
printf '4-7\n' >"$R/sys/devices/system/node/node1/cpulist"
cat >"$R/ip-addr.json" <<'JSON'
[{"ifname": "eth0", "addr_info": [{"family": "inet", "local": "192.0.2.2", "prefixlen": 24}]},
 {"ifname": "enp3s0f0", "addr_info": []}]
JSON
echo '[{"dst": "default", "gateway": "192.0.2.1", "dev": "eth0"}]' >"$R/ip-route-show-default.json"
cp "$CONF" "$R/etc/ofcd/ofcd.conf"
printf '# hugepages reserved at boot by dpdk.service\n#NR_2M_PAGES=64\n' >"$R/etc/dpdk/dpdk.conf"
printf '# <bus>\t<id>\t\t<driver>\n' >"$R/etc/dpdk/interfaces"
files=(etc/ofcd/ofcd.conf etc/dpdk/dpdk.conf etc/dpdk/interfaces)
for f in "${files[@]}"; do cp "$R/$f" "$work/orig-${f//\//_}"; done
unchanged() {
    for f in "${files[@]}"; do cmp -s "$R/$f" "$work/orig-${f//\//_}" || return 1; done
}

out=$(setup --root "$R" list) || fail "list: $out"
grep -qE '^0000:03:00.0 +8086:10fb +ixgbe +1 +enp3s0f0 +down +-$' <<<"$out" || fail "list: $out"
grep -qE '^0000:00:03.0 +1af4:1041 +virtio-pci +- +eth0 +up +192.0.2.2/24 \(default route\)$' \
    <<<"$out" || fail "list: $out"
pass "list: both NICs with ID, driver, NUMA node, interface, link and addresses"

out=$(setup --root "$R" nic eth0 2>&1) && fail "eth0, which carries the default route, was taken"
grep -q "0000:00:03.0 carries the default route: it is how this machine is reached" <<<"$out" ||
    fail "refusal: $out"
out=$(setup --root "$R" nic nosuch0 2>&1) && fail "a NIC that is not there was taken"
grep -q "no NIC 'nosuch0'" <<<"$out" || fail "refusal: $out"
pass "refused: the NIC with the default route, a NIC that is not there (exit 1)"

out=$(setup --root "$R" nic enp3s0f0) || fail "dry run: $out"
for l in '+args = "-l 4,5 -a 0000:03:00.0 --file-prefix=ofcd"' '+io = 4' '+worker = 5' \
         '+NR_2M_PAGES=1024' "+pci	0000:03:00.0	vfio-pci" \
         "write /sys/bus/pci/devices/0000:03:00.0/driver_override <- vfio-pci" \
         "Nothing changed."; do
    grep -qF -- "$l" <<<"$out" || fail "the dry run does not show '$l': $out"
done
unchanged || fail "the dry run changed a file"
[ -s "$pci/0000:03:00.0/driver_override" ] && fail "the dry run wrote sysfs"
pass "dry run: each change shown as a diff, nothing written"

out=$(setup --root "$R" nic 03:00.0 --hugepages 512 --apply) || fail "--apply: $out"
c=$R/etc/ofcd/ofcd.conf
grep -qx 'args = "-l 4,5 -a 0000:03:00.0 --file-prefix=ofcd"' "$c" || fail "[eal] args: $(grep ^args "$c")"
[ "$(sed -n '/^\[lcores\]/,/^\[/p' "$c" | grep -E '^(io|worker) =' | tr '\n' ' ')" = "io = 4 worker = 5 " ] ||
    fail "[lcores]: $(sed -n '/^\[lcores\]/,/^\[/p' "$c")"
grep -qx 'NR_2M_PAGES=512' "$R/etc/dpdk/dpdk.conf" || fail "dpdk.conf: $(cat "$R/etc/dpdk/dpdk.conf")"
grep -qxP 'pci\t0000:03:00.0\tvfio-pci' "$R/etc/dpdk/interfaces" || fail "interfaces: $(cat "$R/etc/dpdk/interfaces")"
[ "$(cat "$pci/0000:03:00.0/driver_override")" = vfio-pci ] || fail "driver_override not written"
[ "$(cat "$R/sys/bus/pci/drivers/ixgbe/unbind")" = 0000:03:00.0 ] || fail "not unbound from ixgbe"
[ "$(cat "$R/sys/bus/pci/drivers_probe")" = 0000:03:00.0 ] || fail "drivers_probe not written"
[ "$(cat "$R/proc/sys/vm/nr_hugepages")" = 512 ] || fail "the hugepages not reserved now"
grep -q 'SUBSYSTEM=="vfio", GROUP="ofcd", MODE="0660"' "$R/etc/udev/rules.d/60-ofcd-vfio.rules" ||
    fail "no udev rule for the vfio devices"
grep -q '^Options=nosuid,nodev,gid=ofcd,mode=1770$' \
    "$R/etc/systemd/system/dev-hugepages.mount.d/ofcd.conf" || fail "no hugepages mount drop-in"
"$OFCD" --config "$c" --check >"$work/check" 2>&1 || fail "ofcd --check on the result: $(cat "$work/check")"
pass "--apply: [eal] -l 4,5 -a 0000:03:00.0 (node 1's lcores), 512 hugepages and vfio-pci at boot and now; ofcd --check takes it"

out=$(setup --root "$R" undo --apply) || fail "undo: $out"
unchanged || fail "undo did not put every file back"
[ -e "$R/etc/udev/rules.d/60-ofcd-vfio.rules" ] && fail "undo left the udev rule it added"
[ -z "$(cat "$pci/0000:03:00.0/driver_override")" ] || fail "undo left driver_override"
[ "$(cat "$R/proc/sys/vm/nr_hugepages")" = 0 ] || fail "undo left the hugepages reserved"
out=$(setup --root "$R" undo 2>&1) && fail "a second undo found something to undo"
pass "undo --apply: every file back byte for byte, the driver override and the hugepages as they were"

# ---- the real path: net_af_packet on a veth whose peer is in a namespace ----------
ns=ofcdsetup
ip netns del $ns 2>/dev/null
ip link del ofsetup0 2>/dev/null
it_on_exit "ip netns del $ns; ip link del ofsetup0"
ip netns add $ns && ip link add ofsetup0 type veth peer name eth0 netns $ns &&
    ip link set ofsetup0 up && ip -n $ns link set lo up && ip -n $ns addr add 10.68.0.1/24 dev eth0 &&
    ip -n $ns link set eth0 up && ip netns exec $ns ethtool -K eth0 tx off >/dev/null ||
    fail "the namespace and its veth"
real=$work/real.conf
cp "$CONF" "$real"
out=$(setup --config "$real" nic ofsetup0 --apply 2>&1) || fail "the veth: $out"
grep -q '^args = ".*--vdev=net_af_packet0,iface=ofsetup0' "$real" || fail "args: $(grep ^args "$real")"
start_ofcd "$work/ofcd.log" --config "$real" --app.data_dir="$work/var" \
    --net.address=10.68.0.2/24 --net.configure_kernel=false
ip netns exec $ns ping -c 3 -i 0.2 -W 2 10.68.0.2 >"$work/ping" ||
    fail "no ping answer through net_af_packet: $(cat "$work/ping")"
stop_ofcd
out=$(setup --config "$real" undo --apply) || fail "undo: $out"
cmp -s "$CONF" "$real" || fail "undo did not put the configuration back"
pass "a veth (no PCI): --apply chose net_af_packet, ofcd on it answers ping from the namespace; undo puts it back"
exit 0
