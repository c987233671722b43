# The emulator loads two benches give two controllers (ofcd in
# run_bench_of.sh, os-ken in run_bench_osken.sh), defined once so both
# controllers get exactly the same load (sourced, not run).

# bench_handshake EMU CONTROLLER N JSON: N switches connect at once, each
# echoes every second, for 10 s.
bench_handshake() {
    "$1" --controller "$2" --switches "$3" --connect-rate 0 --echo-interval 1000 \
        --dpid-base $(($3 * 100000)) --duration 10 --quiet --json "$4" >/dev/null 2>&1
}

# bench_echo_flood EMU CONTROLLER OUT PREFIX: the echo RTT of 100 idle
# switches alone (PREFIX_echo_alone.json), then next to 100 switches
# flooding packet_ins with a window of 64 (PREFIX_flood.json,
# PREFIX_echo_flood.json). The flood gets a second's head start.
bench_echo_flood() {
    local emu=$1 ctl=$2 out=$3 p=$4 fpid
    "$emu" --controller "$ctl" --switches 100 --connect-rate 0 --echo-interval 1000 \
        --dpid-base 7000000 --duration 10 --quiet --json "$out/${p}_echo_alone.json" >/dev/null 2>&1
    "$emu" --controller "$ctl" --switches 100 --ports 4 --mode throughput --window 64 \
        --connect-rate 0 --echo-interval 0 --dpid-base 8000000 --duration 12 --quiet \
        --json "$out/${p}_flood.json" >/dev/null 2>&1 &
    fpid=$!
    sleep 1
    "$emu" --controller "$ctl" --switches 100 --connect-rate 0 --echo-interval 1000 \
        --dpid-base 9000000 --duration 10 --quiet --json "$out/${p}_echo_flood.json" >/dev/null 2>&1
    wait "$fpid"
}
