# The victims every hostile test guards (sourced after lib.sh and ovs_lib.sh).
# 20 Open vSwitch bridges (1 s inactivity probe) connected to ofcd; during
# each attack they must all stay connected (no disconnect in ofcd's log, OVS
# still connected), a REST POST must get its 202 and be installed on a
# bridge, and ofcd's RSS must stay bounded.
#
#   hostile_setup NAME OFCD_ARGS...   work dir, OVS, ofcd (with the shipped
#                          config plus OFCD_ARGS), the bridges up; sets N, API, FM
#   hostile_attack NAME MAX_RSS_GROWTH_MB CMD...   run CMD (it must end by
#                          itself) in the background; HOSTILE_POST_AFTER s in
#                          (default 4) a flow goes in through REST (with
#                          HOSTILE_CURL_ARGS, e.g. a token); afterwards the
#                          checks above, and the attackers' connections gone
#   good_downs             disconnects of the bridges (not of the attackers)
#   rss_kb                 ofcd's resident set, KiB
#   io_total WHAT          an openflow_io counter of lcore 0 from /metrics

N=20
API=http://127.0.0.1:8181
FM=$API/api/kytos/flow_manager/v2

hostile_setup() {
    local name=$1
    shift
    it_setup "$name"
    ovs_start "$work/ovs" || fail "cannot start Open vSwitch"
    start_ofcd "$work/ofcd.log" --config "$CONF" --app.data_dir="$work/var" \
        --app.stats_log_interval_s=0 "$@"
    ovs_add_bridges $N tcp:10.66.0.2:6653 1000 || fail "cannot add bridges"
    wait_rest_metric ofcd_switches_up $N 30 || fail "the $N bridges never all came up"
    pass "$N bridges established"
}

# Disconnects of the bridges (dpids 0x1001..0x1014), not of the attackers.
good_downs() { grep -cE 'switch 00000000000010(0[1-9a-f]|1[0-4]) disconnected after' "$work/ofcd.log"; }

rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$OFCD_PID/status"; }

io_total() { rest_metric "ofcd_openflow_io_total{lcore=\"0\",what=\"$1\"}"; }

hostile_flow_no=0
hostile_attack() {
    local name=$1 max_mb=$2
    shift 2
    local before_down rss0 rss1 dp br code
    before_down=$(good_downs)
    rss0=$(rss_kb)
    "$@" >"$work/$name.out" 2>&1 &
    local peer=$!
    sleep "${HOSTILE_POST_AFTER:-4}"          # the attack is under way
    hostile_flow_no=$((hostile_flow_no + 1))
    br=$(( (hostile_flow_no % N) + 1 ))
    dp=$(printf '00:00:00:00:00:00:%02x:%02x' $(( (0x1000 + br) >> 8 )) $(( (0x1000 + br) & 255 )))
    code=$(curl -s -o "$work/$name.body" -w '%{http_code}' -H 'Content-Type: application/json' \
        ${HOSTILE_CURL_ARGS:-} \
        -d "{\"flows\": [{\"priority\": 777, \"match\": {\"in_port\": $hostile_flow_no},
             \"actions\": [{\"action_type\": \"output\", \"port\": 2}]}]}" "$FM/flows/$dp")
    [ "$code" = 202 ] || { cat "$work/$name.body"; fail "$name: REST POST got $code"; }
    wait "$peer"
    cat "$work/$name.out"
    ovs_wait_flow "br$br" "priority=777,in_port=$hostile_flow_no " ||
        fail "$name: the flow never reached br$br"
    rss1=$(rss_kb)
    [ "$(good_downs)" = "$before_down" ] || {
        grep 'disconnected after' "$work/ofcd.log" | tail -5
        ofcdctl counters/show | grep -E '^lcore=0 (tcp|openflow_io|lcore):'
        fail "$name: good switches disconnected"
    }
    # The attackers that were switches leave when the peer exits.
    wait_rest_metric ofcd_switches_up $N 15 || fail "$name: $(rest_metric ofcd_switches_up) up, not $N"
    # OVS's own view too. Its database refreshes a controller's status on
    # its own schedule (it lagged once in CI right after partial-flood while
    # ofcd had seen no disconnect): a few seconds to agree; a disconnect
    # would have shown in good_downs above.
    ovs_wait_connected $N 10 || {
        grep -E 'rconn|connection|inactivity' "$OVS_DIR/vswitchd.log" | tail -8
        fail "$name: OVS sees $(ovs_connected_count) of $N connected"
    }
    [ $(( (rss1 - rss0) / 1024 )) -lt "$max_mb" ] ||
        fail "$name: RSS grew from $((rss0 / 1024)) to $((rss1 / 1024)) MiB (bound $max_mb MiB)"
    pass "$name: $N bridges up throughout, flow installed on br$br, RSS $((rss0 / 1024)) -> $((rss1 / 1024)) MiB"
    # ofcd sheds what is left of the attack (at the latest at the echo
    # timeout, 20 s), so the next attack starts against the bridges alone.
    wait_rest_metric 'ofcd_openflow_io_switch_conns{lcore="0"}' $N 40 ||
        fail "$name: attackers' connections still open 40 s after the attack"
}
