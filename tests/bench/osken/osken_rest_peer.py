"""The os-ken REST peer for `make bench-quick` and `make bench`: what a
controller answers when a flow POST costs nothing but sending the FLOW_MOD.

It takes the same request ofcd's bench sends, POST
/api/kytos/flow_manager/v2/flows/{dpid} with {"flows": [{"priority",
"match": {"in_port", "dl_type", "nw_src", "nw_dst", "dl_vlan"}, "actions":
[{"action_type": "output", "port"}]}]}, turns each flow into an OFPFlowMod
for that connected datapath and answers 202 at once: no store, no
durability, no barrier. Unknown dpid: 404. Anything it cannot read: 400.
GET /peer/datapaths answers {"up": N}, the datapaths it knows (a bench
waits for its switches so). Its HTTP server is os-ken's own (eventlet
WSGI, lib.hub.WSGIServer), on OSKEN_REST_PORT (default 18181), loopback
only.

run: OSKEN_REST_PORT=18181 osken-manager --ofp-listen-host 127.0.0.1 \
         --ofp-tcp-listen-port PORT osken_rest_peer.py
"""
import json
import os

from os_ken.base import app_manager
from os_ken.controller import ofp_event
from os_ken.controller.handler import DEAD_DISPATCHER, MAIN_DISPATCHER, set_ev_cls
from os_ken.lib import hub
from os_ken.ofproto import ofproto_v1_3

PREFIX = "/api/kytos/flow_manager/v2/flows/"


def _dpid(text):
    return int(text.replace(":", ""), 16)


class RestPeer(app_manager.OSKenApp):
    OFP_VERSIONS = [ofproto_v1_3.OFP_VERSION]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.datapaths = {}
        port = int(os.environ.get("OSKEN_REST_PORT", "18181"))
        self.server = hub.WSGIServer(("127.0.0.1", port), self.wsgi)
        hub.spawn(self.server.serve_forever)

    @set_ev_cls(ofp_event.EventOFPStateChange, [MAIN_DISPATCHER, DEAD_DISPATCHER])
    def on_state(self, ev):
        dp = ev.datapath
        if ev.state == MAIN_DISPATCHER:
            self.datapaths[dp.id] = dp
        elif dp.id in self.datapaths:
            del self.datapaths[dp.id]

    def flow_mod(self, dp, flow):
        ofp, parser = dp.ofproto, dp.ofproto_parser
        m = flow.get("match", {})
        fields = {}
        if "in_port" in m:
            fields["in_port"] = int(m["in_port"])
        if "dl_type" in m:
            fields["eth_type"] = int(m["dl_type"])
        if "nw_src" in m:
            fields["ipv4_src"] = m["nw_src"]
        if "nw_dst" in m:
            fields["ipv4_dst"] = m["nw_dst"]
        if "dl_vlan" in m:       # the Kytos stress command's match
            fields["vlan_vid"] = ofp.OFPVID_PRESENT | int(m["dl_vlan"])
        actions = [parser.OFPActionOutput(int(a["port"])) for a in flow.get("actions", [])
                   if a.get("action_type") == "output"]
        inst = [parser.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, actions)]
        return parser.OFPFlowMod(datapath=dp, priority=int(flow.get("priority", 0x8000)),
                                 match=parser.OFPMatch(**fields), instructions=inst)

    def wsgi(self, env, start):
        def answer(status, body):
            data = json.dumps(body).encode()
            start(status, [("Content-Type", "application/json"),
                           ("Content-Length", str(len(data)))])
            return [data]

        path = env.get("PATH_INFO", "")
        if env.get("REQUEST_METHOD") == "GET" and path == "/peer/datapaths":
            return answer("200 OK", {"up": len(self.datapaths)})
        if env.get("REQUEST_METHOD") != "POST" or not path.startswith(PREFIX):
            return answer("404 Not Found", {"description": "no such resource"})
        try:
            dpid = _dpid(path[len(PREFIX):].strip("/"))
            size = int(env.get("CONTENT_LENGTH") or 0)
            body = json.loads(env["wsgi.input"].read(size))
            dp = self.datapaths.get(dpid)
            if dp is None:
                return answer("404 Not Found", {"description": "dpid not found."})
            mods = [self.flow_mod(dp, f) for f in body["flows"]]
        except (ValueError, KeyError, TypeError) as exc:
            return answer("400 Bad Request", {"description": str(exc)})
        for mod in mods:
            dp.send_msg(mod)
        return answer("202 Accepted", {"response": "FlowMod Messages Sent"})
