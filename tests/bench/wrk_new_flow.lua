-- wrk script of the REST benches (run_bench_rest.sh, run_bench_quick.sh,
-- rest_profile.sh): every request a one-flow POST of a new flow, spread
-- over the 100 emulated switches with dpids 0x10000..0x10063, so per-switch
-- pacing does not bind and every request is a store write.
-- Each wrk thread has a Lua state of its own: its number (set by setup, in
-- the main state) keeps its flows apart from the other threads' (without
-- it every thread sent the same sequence, half of them flows again).
local threads = 0
setup = function(thread)
    threads = threads + 1
    thread:set("id", threads)
end

local n = 0
request = function()
    n = n + 1
    local k = (id or 0) * 4000000 + n
    local sw = k % 100
    local path = string.format("/api/kytos/flow_manager/v2/flows/00:00:00:00:00:01:00:%02x", sw)
    local body = string.format('{"flows": [{"priority": 200, "match": {"dl_type": 2048, "nw_src": "10.%d.%d.%d"}, "actions": [{"action_type": "output", "port": 2}]}]}',
        math.floor(k / 65536) % 256, math.floor(k / 256) % 256, k % 256)
    return wrk.format("POST", path, {["Content-Type"] = "application/json"}, body)
end
