#!/usr/bin/env bash
# The Debian package on a Debian 12 booted with systemd as PID 1: `make deb`
# (lintian clean), then in a systemd-nspawn container of a debootstrapped
# bookworm (its own network namespace, so its tap and ports are its own):
# install, the service active and answering, ofcdctl for the service's
# group only, 1,000 stored flows and an edited conffile kept by an upgrade
# to a newer version, a clean stop, and only a purge removing the data.
#
#   package.sh SOURCE_ROOT BUILD_ROOT EMU
#
# The container's tree is cached in BUILD_ROOT/nspawn (debootstrap and the
# package's dependencies: ~70 s the first time, none after), the package's
# build in BUILD_ROOT/deb (scripts/make-deb); each run boots the tree with
# a throw-away overlay (--volatile=overlay), so it starts fresh.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

src=$1
broot=$2
EMU=$3
require_root
for t in systemd-nspawn debootstrap dpkg-buildpackage lintian jq; do require_tool "$t"; done
it_setup package

# ---- the packages: this version and a newer one --------------------------------
v1=$(sed -n "s/^  version : '\([^']*\)',\$/\1/p" "$src/meson.build" | head -n 1)
v2=$v1.1
debs=$broot/deb
"$src/scripts/make-deb" --out "$debs" >"$work/deb1.log" 2>&1 ||
    fail "make deb: $(tail -n 20 "$work/deb1.log")"
mkdir -p "$work/debs"
cp "$debs/ofcd_${v1}_amd64.deb" "$work/debs/" || fail "no ofcd_${v1}_amd64.deb"
pass "make deb: ofcd_${v1}_amd64.deb, lintian without an error or a warning"
"$src/scripts/make-deb" --out "$debs" --version "$v2" >"$work/deb2.log" 2>&1 ||
    fail "make deb --version $v2: $(tail -n 20 "$work/deb2.log")"
cp "$debs/ofcd_${v2}_amd64.deb" "$work/debs/" || fail "no ofcd_${v2}_amd64.deb"
dpkg-deb -c "$work/debs/ofcd_${v1}_amd64.deb" >"$work/files"
for f in ./usr/sbin/ofcd ./usr/sbin/ofcd-setup ./usr/share/man/man8/ofcd-setup.8.gz \
         ./usr/bin/ofcdctl ./etc/ofcd/ofcd.conf ./lib/systemd/system/ofcd.service \
         ./usr/share/ofcd/ui/index.html ./usr/share/man/man8/ofcd.8.gz ./usr/share/doc/ofcd/copyright; do
    grep -q " $f\$" "$work/files" || fail "the package lacks $f"
done
pass "ofcd_${v2}_amd64.deb built too; the package holds the daemon, ofcdctl, the unit, the dashboard, man pages"

# ---- the container's tree: Debian 12 with the package's dependencies ----------
tree=$broot/nspawn/bookworm
deps=$(dpkg-deb -f "$work/debs/ofcd_${v1}_amd64.deb" Depends |
    sed -e 's/([^)]*)//g' -e 's/|[^,]*//g' -e 's/,/ /g')
want="systemd systemd-sysv dbus iproute2 iputils-ping curl jq $deps"
if [ "$(cat "$tree.deps" 2>/dev/null)" != "$want" ]; then
    echo "-- building the container's tree in $tree (debootstrap bookworm, once)"
    rm -rf "$tree" "$tree.deps"
    mkdir -p "$(dirname "$tree")"
    debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,iproute2,iputils-ping,curl,jq \
        bookworm "$tree" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
        fail "debootstrap: $(tail -n 20 "$work/debootstrap.log")"
    # shellcheck disable=SC2086
    systemd-nspawn -q --keep-unit --register=no -D "$tree" --pipe \
        apt-get install -y --no-install-recommends $deps >"$work/deps.log" 2>&1 ||
        fail "the package's dependencies in the tree: $(tail -n 20 "$work/deps.log")"
    systemd-nspawn -q --keep-unit --register=no -D "$tree" --pipe apt-get clean >/dev/null 2>&1
    echo "$want" >"$tree.deps"
fi

# ---- boot it ---------------------------------------------------------------------
# /sys/module: DPDK's EAL looks there for vfio, and nspawn shows no such
# directory (without it the EAL refuses to start). CAP_IPC_LOCK: the unit
# asks for it. The emulator runs inside, against the container's own tap.
systemd-nspawn -b -q --keep-unit --register=no -D "$tree" --volatile=overlay \
    --private-network --bind=/dev/net/tun --bind-ro=/sys/module \
    --capability=CAP_IPC_LOCK,CAP_NET_ADMIN --bind-ro="$work/debs:/srv/debs" \
    --bind-ro="$EMU:/srv/ofswitch-emu" --console=passive >"$work/boot.log" 2>&1 &
npid=$!
it_on_exit "kill -TERM $npid; wait_for_exit $npid 20 || kill -KILL $npid"
init=
for _ in $(seq 300); do
    init=$(pgrep -P "$npid" -x systemd | head -n 1)
    [ -n "$init" ] && break
    kill -0 "$npid" 2>/dev/null || fail "the container did not boot: $(tail -n 20 "$work/boot.log")"
    sleep 0.1
done
[ -n "$init" ] || fail "no systemd in the container"
in_ct() { nsenter -t "$init" -a "$@"; }
# systemctl answers once PID 1 has its socket; then it waits for the boot.
for _ in $(seq 300); do in_ct test -S /run/systemd/private && break; sleep 0.1; done
state=$(in_ct timeout 60 systemctl is-system-running --wait 2>&1)
case $state in running|degraded) ;; *) fail "the container's boot ended $state" ;; esac
pass "Debian 12 booted in a container, systemd $(in_ct systemctl --version | head -n 1 |
    awk '{print $2}') as PID 1 ($state)"

# ---- install: the service starts, ready when it says so -------------------------
in_ct dpkg -i "/srv/debs/ofcd_${v1}_amd64.deb" >"$work/install.log" 2>&1 ||
    fail "dpkg -i: $(tail -n 20 "$work/install.log")"
[ "$(in_ct systemctl is-active ofcd)" = active ] ||
    fail "ofcd is not active after install: $(in_ct systemctl status ofcd --no-pager | tail -n 20)"
in_ct systemctl is-enabled -q ofcd || fail "ofcd.service is not enabled"
in_ct systemd-analyze verify --man=no ofcd.service >"$work/verify" 2>&1 ||
    fail "systemd-analyze verify: $(cat "$work/verify")"
[ -s "$work/verify" ] && fail "systemd-analyze verify: $(cat "$work/verify")"
exposure=$(in_ct systemd-analyze security ofcd.service --no-pager 2>&1 |
    sed -n 's/.*Overall exposure level for ofcd.service: \([0-9.]*\).*/\1/p')
[ -n "$exposure" ] || fail "systemd-analyze security gave no exposure level"
status=$(in_ct systemctl show -p StatusText --value ofcd)
case $status in ready:*) ;; *) fail "the unit's status is '$status', not ready" ;; esac
in_ct ping -c 1 -W 2 10.66.0.2 >/dev/null || fail "ofcd does not answer ping on its tap"
h=$(in_ct curl -s -m 5 http://127.0.0.1:8181/api/v1/health)
[ "$(jq -r .status <<<"$h")" = ok ] || fail "health: $h"
[ "$(in_ct stat -c %U /var/lib/ofcd)" = ofcd ] || fail "/var/lib/ofcd is not ofcd's"
[ "$(in_ct stat -c %U "/proc/$(in_ct systemctl show -p MainPID --value ofcd)")" = ofcd ] ||
    fail "the service does not run as user ofcd"
out=$(in_ct ofcd setup list 2>&1) || fail "ofcd setup list: $out"
grep -q "^PCI  *ID  *DRIVER" <<<"$out" || fail "ofcd setup list: $out"
pass "dpkg -i: ofcd active as user ofcd (status '$status'), answering ping and REST; the unit verifies, exposure $exposure"

# ---- ofcdctl: the service's group, nobody else -----------------------------------
in_ct useradd -m -G ofcd opuser || fail "useradd"
in_ct runuser -u opuser -- ofcdctl list-commands >"$work/cmds" 2>&1 ||
    fail "ofcdctl as a member of group ofcd: $(cat "$work/cmds")"
grep -q '^log/set' "$work/cmds" || fail "list-commands: $(head -n 5 "$work/cmds")"
in_ct useradd -m outsider || fail "useradd"
if in_ct runuser -u outsider -- ofcdctl list-commands >"$work/out" 2>&1; then
    fail "ofcdctl answered a user outside group ofcd"
fi
grep -q "Permission denied" "$work/out" || fail "outsider: $(cat "$work/out")"
pass "ofcdctl runs for group ofcd without root, refused to others"

# ---- systemctl reload: a log level changes without a restart ---------------------
pid0=$(in_ct systemctl show -p MainPID --value ofcd)
in_ct sed -i 's/^log_level = .*/log_level = debug/' /etc/ofcd/ofcd.conf
in_ct systemctl reload ofcd || fail "systemctl reload ofcd"
for _ in $(seq 50); do
    in_ct runuser -u opuser -- ofcdctl log/list | grep -q info || break
    sleep 0.1
done
levels=$(in_ct runuser -u opuser -- ofcdctl log/list)
grep -q info <<<"$levels" && fail "systemctl reload left a module at info: $levels"
[ "$(in_ct systemctl show -p MainPID --value ofcd)" = "$pid0" ] || fail "the reload restarted ofcd"
[ "$(in_ct systemctl is-active ofcd)" = active ] || fail "ofcd is not active after the reload"
in_ct sed -i 's/^log_level = .*/log_level = verbose/' /etc/ofcd/ofcd.conf
in_ct systemctl reload ofcd 2>/dev/null && fail "systemctl reload took a broken file"
in_ct sed -i 's/^log_level = .*/log_level = debug/' /etc/ofcd/ofcd.conf
[ "$(in_ct systemctl is-active ofcd)" = active ] || fail "ofcd is not active after a refused reload"
pass "systemctl reload: every module at debug, same process; a broken file fails the reload"

# ---- a REST user added by root is readable by the service ------------------------
echo "a-long-test-password" | in_ct ofcd user add admin --config /etc/ofcd/ofcd.conf \
    >"$work/useradd" 2>&1 || fail "ofcd user add: $(cat "$work/useradd")"
[ "$(in_ct stat -c %U:%a /var/lib/ofcd/users.json)" = ofcd:600 ] ||
    fail "users.json is $(in_ct stat -c %U:%a /var/lib/ofcd/users.json), not ofcd:600"
login() { in_ct curl -s -m 5 -u admin:a-long-test-password \
    http://127.0.0.1:8181/api/kytos/core/auth/login/ | jq -r '.token // empty'; }
for _ in $(seq 50); do [ -n "$(login)" ] && break; sleep 0.1; done
[ -n "$(login)" ] || fail "the service did not take the user root added"
pass "ofcd user add as root: users.json is ofcd's (600) and the service logs the user in"

# ---- 1,000 flows on an emulated switch -------------------------------------------
in_ct sh -c 'setsid /srv/ofswitch-emu --controller 10.66.0.2:6653 --switches 1 \
    --dpid-base 4096 --echo-interval 500 --duration 600 --quiet >/var/tmp/emu.out 2>&1 &'
for _ in $(seq 100); do
    n=$(in_ct curl -s -m 2 http://127.0.0.1:8181/api/v1/switches |
        jq '[.switches[] | select(.connected)] | length')
    [ "$n" = 1 ] && break
    sleep 0.1
done
[ "$n" = 1 ] || fail "the emulated switch did not connect ($n)"
seq 0 999 | awk 'BEGIN { printf "{\"0000000000001000\": {\"flows\": [" } { if (NR > 1) printf ",";
    printf "{\"priority\": 10, \"match\": {\"dl_type\": 2048, \"nw_dst\": \"10.9.%d.%d\"}, \"actions\": [{\"action_type\": \"output\", \"port\": 1}]}", $1 / 250, $1 % 250 }
    END { printf "]}}" }' >"$work/debs/flows.json"
code=$(in_ct curl -s -o /var/tmp/post -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary @/srv/debs/flows.json \
    http://127.0.0.1:8181/api/kytos/flow_manager/v2/flows_by_switch)
[ "$code" = 202 ] || fail "POST 1,000 flows: $code $(in_ct cat /var/tmp/post)"
# Stored: the 1,000 and the switch's LLDP flow (the topology, on as shipped).
stored() { in_ct curl -s -m 5 http://127.0.0.1:8181/api/v1/health | jq .store.flows; }
for _ in $(seq 100); do [ "$(stored)" = 1001 ] && break; sleep 0.1; done
[ "$(stored)" = 1001 ] || fail "$(stored) flows stored, not the 1,000 and the LLDP flow"
pass "1,000 flows stored through the service, beside the switch's LLDP flow"
# ---- the journal: priorities and the switch's dpid as fields ---------------------
in_ct journalctl -u ofcd -b -p warning --no-pager -o cat >"$work/warn"
grep -q "plaintext and unauthenticated" "$work/warn" || fail "journalctl -p warning lacks the WARN line"
grep -q "ofcd ready" "$work/warn" && fail "journalctl -p warning shows an INFO line"
for _ in $(seq 50); do
    in_ct journalctl -u ofcd -b --no-pager -o cat OFCD_DPID=0000000000001000 | grep -q established && break
    sleep 0.1
done
in_ct journalctl -u ofcd -b --no-pager -o cat OFCD_DPID=0000000000001000 >"$work/dpid"
grep -q "switch 0000000000001000 established" "$work/dpid" ||
    fail "no entry with OFCD_DPID=0000000000001000: $(head -n 5 "$work/dpid")"
pass "journald: WARN at priority 4 (-p warning shows it, not INFO), OFCD_DPID=0000000000001000 finds the switch's lines"

# ---- an upgrade: restarted, the flows and the operator's edit kept ---------------
in_ct sed -i 's/^stats_log_interval_s = .*/stats_log_interval_s = 61/' /etc/ofcd/ofcd.conf
pid1=$(in_ct systemctl show -p MainPID --value ofcd)
in_ct dpkg -i "/srv/debs/ofcd_${v2}_amd64.deb" >"$work/upgrade.log" 2>&1 ||
    fail "dpkg -i (upgrade): $(tail -n 20 "$work/upgrade.log")"
[ "$(in_ct systemctl is-active ofcd)" = active ] || fail "ofcd is not active after the upgrade"
pid2=$(in_ct systemctl show -p MainPID --value ofcd)
[ "$pid1" != "$pid2" ] || fail "the upgrade did not restart ofcd"
v=$(in_ct /usr/sbin/ofcd --version)
[ "$v" = "ofcd $v2" ] || fail "after the upgrade: '$v'"
grep -q '^stats_log_interval_s = 61$' <(in_ct cat /etc/ofcd/ofcd.conf) ||
    fail "the upgrade lost the conffile's edit"
[ "$(stored)" = 1001 ] || fail "after the upgrade $(stored) flows stored, not 1,001"
pass "upgrade $v1 -> $v2: restarted, 1,000 flows and the conffile's edit kept"

# ---- a clean stop; removal keeps the data, purge removes it ----------------------
in_ct systemctl stop ofcd
[ "$(in_ct systemctl show -p ExecMainStatus --value ofcd)" = 0 ] ||
    fail "ofcd stopped with status $(in_ct systemctl show -p ExecMainStatus --value ofcd)"
in_ct systemctl show -p Result --value ofcd | grep -qx success || fail "the unit's result is not success"
pass "systemctl stop: exit status 0"
in_ct dpkg -r ofcd >"$work/remove.log" 2>&1 || fail "dpkg -r: $(tail -n 20 "$work/remove.log")"
in_ct test -d /var/lib/ofcd || fail "dpkg -r removed /var/lib/ofcd"
in_ct test -f /etc/ofcd/ofcd.conf || fail "dpkg -r removed the conffile"
in_ct dpkg --purge ofcd >"$work/purge.log" 2>&1 || fail "dpkg --purge: $(tail -n 20 "$work/purge.log")"
in_ct test -e /var/lib/ofcd && fail "dpkg --purge left /var/lib/ofcd"
in_ct test -e /etc/ofcd/ofcd.conf && fail "dpkg --purge left /etc/ofcd/ofcd.conf"
pass "dpkg -r keeps /var/lib/ofcd and the conffile; dpkg --purge removes both"
in_ct systemctl poweroff >/dev/null 2>&1
wait_for_exit "$npid" 30 || fail "the container did not power off"
exit 0
