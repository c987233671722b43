"""The os-ken peer for `make bench`: a minimal OpenFlow 1.3 app that answers
every PACKET_IN with a FLOW_MOD (match in_port, flood), the same work ofcd's
learning switch does per packet_in. os-ken's own handler does HELLO,
FEATURES, PORT_DESC and answers echo requests.

run: osken-manager --ofp-listen-host 127.0.0.1 --ofp-tcp-listen-port PORT osken_responder.py
"""
from os_ken.base import app_manager
from os_ken.controller import ofp_event
from os_ken.controller.handler import MAIN_DISPATCHER, set_ev_cls
from os_ken.ofproto import ofproto_v1_3


class PacketInResponder(app_manager.OSKenApp):
    OFP_VERSIONS = [ofproto_v1_3.OFP_VERSION]

    @set_ev_cls(ofp_event.EventOFPPacketIn, MAIN_DISPATCHER)
    def on_packet_in(self, ev):
        msg = ev.msg
        dp = msg.datapath
        ofp, parser = dp.ofproto, dp.ofproto_parser
        actions = [parser.OFPActionOutput(ofp.OFPP_FLOOD)]
        inst = [parser.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, actions)]
        dp.send_msg(parser.OFPFlowMod(datapath=dp, priority=1, idle_timeout=60,
                                      match=parser.OFPMatch(in_port=msg.match["in_port"]),
                                      instructions=inst, buffer_id=msg.buffer_id))
