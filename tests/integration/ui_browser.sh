#!/usr/bin/env bash
# The dashboard in a real browser: Debian's Chromium, headless, driven by
# Playwright's test runner (ui/tests/*.spec.js) against a live ofcd.
#   defaults  the shipped configuration (the topology app on, no cluster)
#          and two emulated switches: every page works (defaults.spec.js)
#   topology-off  the same with apps.topology = false and apps.mef_eline =
#          false: each page says what is off and what turns it on
#          (topology_off.spec.js)
#   ring   6 Open vSwitch bridges in a patch-port ring, apps.topology on:
#          counts, links, a bridge stopped and a patch port deleted seen
#          without reload, a flow added from the form (installed on the
#          bridge), a malformed one's 400 next to its field, a delete after
#          confirmation, an interface disabled from the switch page, a
#          dragged position kept over a reload, every page without console
#          errors, a screenshot of each (ovs.spec.js)
#   auth   the same ofcd restarted with rest.auth on: login, a wrong
#          password, an expired token back to the login; the dragged
#          position kept over the restart (auth.spec.js)
#   scale  980 emulated switches in a fat-tree (10,976 links): the topology
#          page draws all of it (its time written to scale-render.txt) and
#          still answers clicks (scale.spec.js)
# Screenshots and Playwright's failure traces go to UI_ARTEFACTS (default
# build/ui-artefacts), kept after the test.
#
# usage: ui_browser.sh OFCD_BINARY CONFIG_FILE OFSWITCH_EMU
#        UI_HOLD=1 ... sets up the ring (or with UI_PARTS=scale the fat-tree) and
#                      waits: a dashboard to look at
#        UI_PARTS="scale" ... only some of defaults, topology-off, ring, auth (after
#                      ring), scale
set -uo pipefail
OFCD=$1
CONF=$2
EMU=$3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
. "$here/ovs_lib.sh"
require_root
require_tool ovs-vsctl "Open vSwitch"
require_tool node "Node.js"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || fail "$CHROMIUM missing: scripts/install-deps installs Debian's chromium"
[ -x "$root/ui/node_modules/.bin/playwright" ] ||
    fail "ui/node_modules missing: scripts/install-deps runs npm ci in ui/"

it_setup ui
API=http://127.0.0.1:8181
export UI_ARTEFACTS=${UI_ARTEFACTS:-$(dirname "$(dirname "$OFCD")")/ui-artefacts}
mkdir -p "$UI_ARTEFACTS"
UI_ARTEFACTS=$(cd "$UI_ARTEFACTS" && pwd)      # Playwright runs from ui/
N=6
log=$work/ofcd.log
ofcd_args=(--config "$CONF" --app.data_dir="$work/var" --app.stats_log_interval_s=0
           --apps.topology=true --topology.lldp_interval_s=1 --topology.link_timeout_s=3
           --openflow.stats_interval_s=1 --flow_manager.consistency_min_interval_s=1)

# playwright SPEC: run one spec file against the running ofcd.
playwright() {
    (cd "$root/ui" && OFCD_URL=$API OVS_SOCK=${OVS_SOCK:-} OVS_DIR=${OVS_DIR:-} \
        UI_WORK=$work CHROMIUM=$CHROMIUM ./node_modules/.bin/playwright test "$@")
}

# links_up: how many links the topology shows up.
links_up() {
    curl -s "$API/api/v1/topology" | jq '[.links[] | select(.state == "up")] | length'
}
wait_links_up() {   # wait_links_up N SECS
    local end=$((SECONDS + $2))
    until [ "$(links_up)" = "$1" ]; do
        [ $SECONDS -ge $end ] && return 1
        sleep 0.2
    done
}

PARTS=" ${UI_PARTS:-defaults topology-off ring auth scale} "

# two_switch_part NAME SPEC WHAT [OFCD_ARGS...]: ofcd on the shipped
# configuration (with OFCD_ARGS), two emulated switches, SPEC in Chromium.
two_switch_part() {
    local name=$1 spec=$2 what=$3
    shift 3
    start_ofcd "$log.$name" --config "$CONF" --app.data_dir="$work/var-$name" \
        --app.stats_log_interval_s=0 "$@"
    "$EMU" --controller 10.66.0.2:6653 --switches 2 --dpid-base 3328 --echo-interval 1000 \
        --duration 300 --quiet >"$work/emu-$name.out" 2>&1 &
    emu_pid=$!
    it_on_exit "kill $emu_pid"
    wait_rest_metric ofcd_switches_up 2 30 || fail "$name: the emulated switches did not come up"
    playwright "$spec" || fail "$what ($spec)"
    kill "$emu_pid"
    stop_ofcd
}

# ---- defaults and topology-off ---------------------------------------------------
if [[ $PARTS == *" defaults "* ]]; then
    two_switch_part defaults defaults.spec.js "the dashboard on the shipped configuration"
    pass "defaults: switches, a switch, topology and cluster pages (the topology app on, no cluster)"
fi
if [[ $PARTS == *" topology-off "* ]]; then
    two_switch_part topology-off topology_off.spec.js "the dashboard without the topology app" \
        --apps.topology=false --apps.mef_eline=false
    pass "topology-off: switches, a switch, topology and circuits pages say what turns the app on"
fi

# ---- ring ----------------------------------------------------------------------
if [[ $PARTS == *" ring "* ]]; then
start_ofcd "$log" "${ofcd_args[@]}"
grep -q "dashboard on http://" "$log" || fail "ofcd serves no dashboard: $(grep -i dashboard "$log")"
ovs_start "$work/ovs" >/dev/null 2>&1 || fail "cannot start Open vSwitch"
ovs_add_bridges $N tcp:10.66.0.2:6653 1000 || fail "cannot create the bridges"
args=()
for i in $(seq 1 $N); do
    j=$((i % N + 1))
    args+=(-- add-port "br$i" "p$i-$j" -- set interface "p$i-$j" type=patch "options:peer=p$j-$i"
           ofport_request=1
           -- add-port "br$j" "p$j-$i" -- set interface "p$j-$i" type=patch "options:peer=p$i-$j"
           ofport_request=2)
done
ovs_vsctl "${args[@]}" || fail "cannot wire the ring"
wait_rest_metric ofcd_switches_up $N 60 || fail "the bridges did not come up"
wait_links_up $N 30 || fail "$(links_up) of $N links up after 30 s"
pass "ring of $N bridges up, $N links found"

if [ -n "${UI_HOLD:-}" ]; then
    echo "dashboard: $API/ui/ (ofcd log $log); Ctrl-C ends"
    OVS_SOCK=$OVS_SOCK OVS_DIR=$OVS_DIR sleep infinity
fi

playwright ovs.spec.js || fail "the dashboard against the ring (ovs.spec.js)"
pass "ring: counts, live link and switch changes, flows form, interface disable, positions, no console errors"

fi

# ---- auth (on the ring's ofcd and bridges) -------------------------------------
if [[ $PARTS == *" ring "* && $PARTS == *" auth "* ]]; then
stop_ofcd
printf 'dashpass1\n' | "$OFCD" user add ops --config "$CONF" --app.data_dir="$work/var" >/dev/null ||
    fail "ofcd user add ops"
start_ofcd "$log.auth" "${ofcd_args[@]}" --rest.auth=true
ovs_wait_connected $N 60 || fail "the bridges did not reconnect"
export UI_JWT_KEY=$work/var/rest_jwt.key UI_USERS=$work/var/users.json
playwright auth.spec.js || fail "the dashboard with rest.auth on (auth.spec.js)"
pass "auth: login, wrong password, expired token back to the login, position kept over a restart"
fi
stop_ofcd
ovs_stop

# ---- scale ---------------------------------------------------------------------
[[ $PARTS == *" scale "* ]] || exit 0
K=28
start_ofcd "$log.scale" --config "$CONF" --app.data_dir="$work/var-scale" \
    --app.stats_log_interval_s=0 --apps.topology=true --topology.lldp_interval_s=2 \
    --topology.link_timeout_s=10 --flow_manager.pacing_per_s=0
"$EMU" --controller 10.66.0.2:6653 --switches $((5 * K * K / 4)) --ports $K --wiring fattree:$K \
    --connect-rate 0 --dpid-base 4096 --duration 600 --quiet --json "$work/emu.json" \
    >"$work/emu.out" 2>&1 &
it_on_exit "kill -INT $!"
wait_links_up $((K * K * K / 2)) 120 || fail "$(links_up) of $((K * K * K / 2)) fat-tree links up"
pass "fat-tree: $((5 * K * K / 4)) switches, $((K * K * K / 2)) links up"
if [ -n "${UI_HOLD:-}" ]; then
    echo "dashboard: $API/ui/ (ofcd log $log.scale); Ctrl-C ends"
    sleep infinity
fi
UI_SWITCHES=$((5 * K * K / 4)) UI_LINKS=$((K * K * K / 2)) playwright scale.spec.js ||
    fail "the topology page at $((5 * K * K / 4)) switches (scale.spec.js)"
pass "scale: $(cat "$UI_ARTEFACTS/scale-render.txt")"
stop_ofcd
