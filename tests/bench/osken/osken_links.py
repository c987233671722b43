"""The os-ken peer of the topology bench: os-ken's own LLDP discovery
(os_ken.topology.switches, run with --observe-links) and this app, which
writes the number of links os-ken knows to $OSKEN_LINKS_FILE at every change
(os-ken's links are one direction each: a cable is two), and, when
$OSKEN_EVENTS_FILE is set, appends each change there as it happens:
"add|del SRC_DPID SRC_PORT DST_DPID DST_PORT UNIX_TIME" (the link-down bench).

run: OSKEN_LINKS_FILE=F osken-manager --observe-links ... osken_links.py
"""
import os
import time

from os_ken.base import app_manager
from os_ken.controller.handler import set_ev_cls
from os_ken.topology import event


class LinkCounter(app_manager.OSKenApp):
    _CONTEXTS = {}
    links = set()

    def _write(self):
        path = os.environ.get("OSKEN_LINKS_FILE")
        if path:
            with open(path + ".tmp", "w") as f:
                f.write(f"{len(self.links)}\n")
            os.replace(path + ".tmp", path)

    def _log(self, what, l):
        path = os.environ.get("OSKEN_EVENTS_FILE")
        if path:
            with open(path, "a") as f:
                f.write(f"{what} {l.src.dpid} {l.src.port_no} {l.dst.dpid} {l.dst.port_no} "
                        f"{time.time():.6f}\n")

    @set_ev_cls(event.EventLinkAdd)
    def on_add(self, ev):
        l = ev.link
        self._log("add", l)
        self.links.add((l.src.dpid, l.src.port_no, l.dst.dpid, l.dst.port_no))
        self._write()

    @set_ev_cls(event.EventLinkDelete)
    def on_delete(self, ev):
        l = ev.link
        self._log("del", l)
        self.links.discard((l.src.dpid, l.src.port_no, l.dst.dpid, l.dst.port_no))
        self._write()
