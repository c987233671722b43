#!/usr/bin/python3
"""Mininet's side of mininet_eline.sh: a ring of three user-space Open
vSwitch switches with hosts, as Kytos-ng's end-to-end suite builds its
ring, driven one command per line on stdin, one answer per line on stdout.

Run with Debian's /usr/bin/python3 (Mininet is its package), with
OVS_RUNDIR naming the test's own ovsdb-server (ovs_lib.sh's ovs_start):
Mininet's ovs-vsctl calls then reach it, never a system one.

The ring: s1 - s2 - s3 - s1 (ports 10, 11, 12 as below), dpids 1..3,
controller tcp:CONTROLLER. Hosts, 10.70.0.N/24 unless said:
    a1 s1:1   a3 s3:1                  (an EPL across the ring)
    b1 s1:2   b2 s1:3                  (intra-switch)
    c1 s1:4 VLAN 100   c2 s2:2 VLAN 200   (10.71.0.N: a tag each side)
    d1 s1:5 VLAN 300   d3 s3:2 VLAN 300   (10.72.0.N: the same VLAN)
    e2 s2:3 untagged   e3 s3:3 VLAN 400   (10.73.0.N)
A VLAN host is tagged outside it (this kernel has no 802.1Q devices): a
standalone bridge tgNAME of its own, the host on an access port tag=VID,
its other port a trunk to the ring switch.

usage: mininet_ring.py CONTROLLER_IP:PORT WORK_DIR (background pings'
output goes to WORK_DIR). Commands (answer "ok ..." or "err WHY"):
    ping HOST IP [COUNT [INTERVAL]]   ok RECEIVED
    pingbg HOST IP COUNT INTERVAL     ok JOB (a ping in the host's shell)
    pingwait HOST JOB                 ok RECEIVED
    pingstat HOST JOB                 ok TRANSMITTED RECEIVED TIME_MS
    bg HOST CMD...                    ok JOB (its output in WORK_DIR/HOST.bg)
    wait HOST JOB                     ok once it ended
    link A B up|down                  both ends of the A-B link
    quit                              the network stopped
"""
import re
import sys
from functools import partial

from mininet.link import Link
from mininet.log import setLogLevel
from mininet.net import Mininet
from mininet.node import OVSBridge, OVSSwitch, RemoteController
from mininet.topo import Topo

# name: (switch, port, ip, vid)
HOSTS = {
    "a1": ("s1", 1, "10.70.0.1", None), "a3": ("s3", 1, "10.70.0.3", None),
    "b1": ("s1", 2, "10.70.0.11", None), "b2": ("s1", 3, "10.70.0.12", None),
    "c1": ("s1", 4, "10.71.0.1", 100), "c2": ("s2", 2, "10.71.0.2", 200),
    "d1": ("s1", 5, "10.72.0.1", 300), "d3": ("s3", 2, "10.72.0.3", 300),
    "e2": ("s2", 3, "10.73.0.2", None), "e3": ("s3", 3, "10.73.0.3", 400),
}
RING = [("s1", 10, "s2", 10), ("s2", 11, "s3", 11), ("s3", 12, "s1", 12)]


class Ring(Topo):
    def build(self):
        for i in (1, 2, 3):
            self.addSwitch("s%d" % i, dpid="%016x" % i)
        for a, pa, b, pb in RING:
            self.addLink(a, b, port1=pa, port2=pb)
        for k, (name, (sw, port, ip, vid)) in enumerate(sorted(HOSTS.items())):
            self.addHost(name, ip=ip + "/24")
            if vid is None:
                self.addLink(name, sw, port2=port)
                continue
            tg = "tg" + name
            self.addSwitch(tg, cls=partial(OVSBridge, datapath="user"),
                           dpid="%016x" % (0x100 + k))
            self.addLink(name, tg, port2=1)
            self.addLink(tg, sw, port1=2, port2=port)


def prepare_hosts(net):
    """Access ports tagged; the hosts' TX checksum offload off (user-space
    OVS forwards the partial checksums a veth leaves, and the far host's
    kernel drops such UDP and TCP)."""
    for name, (_sw, _port, _ip, vid) in HOSTS.items():
        h = net.get(name)
        h.cmd("ethtool -K %s tx off" % h.defaultIntf().name)
        if vid is not None:
            tg = net.get("tg" + name)
            tg.vsctl("set", "port", "tg%s-eth1" % name, "tag=%d" % vid)


def received(text):
    m = re.search(r"(\d+) received", text)
    return m.group(1) if m else "0"


def serve(net):
    for line in sys.stdin:
        w = line.split()
        if not w:
            continue
        try:
            if w[0] == "ping":
                count = w[3] if len(w) > 3 else "5"
                interval = w[4] if len(w) > 4 else "0.2"
                out = net.get(w[1]).cmd("ping -c %s -i %s -W 1 %s" % (count, interval, w[2]))
                answer = "ok " + received(out)
            elif w[0] == "pingbg":
                h = net.get(w[1])
                h.cmd("ping -c %s -i %s -W 1 %s > %s/%s.ping 2>&1 &" % (w[3], w[4], w[2], WORK, w[1]))
                answer = "ok " + h.cmd("echo $!").strip()
            elif w[0] == "pingwait":
                h = net.get(w[1])
                h.cmd("wait %s" % w[2])
                answer = "ok " + received(h.cmd("cat %s/%s.ping" % (WORK, w[1])))
            elif w[0] == "pingstat":
                h = net.get(w[1])
                h.cmd("wait %s" % w[2])
                out = h.cmd("cat %s/%s.ping" % (WORK, w[1]))
                m = re.search(r"(\d+) packets transmitted, (\d+) received.*time (\d+)ms", out)
                answer = "ok %s %s %s" % m.groups() if m else "err no ping summary: " + out[-200:]
            elif w[0] == "bg":
                h = net.get(w[1])
                h.cmd("%s > %s/%s.bg 2>&1 &" % (" ".join(w[2:]), WORK, w[1]))
                answer = "ok " + h.cmd("echo $!").strip()
            elif w[0] == "wait":
                net.get(w[1]).cmd("wait %s" % w[2])
                answer = "ok"
            elif w[0] == "link":
                net.configLinkStatus(w[1], w[2], w[3])
                answer = "ok"
            elif w[0] == "quit":
                print("ok", flush=True)
                return
            else:
                answer = "err unknown command " + w[0]
        except Exception as e:  # one command's failure is the test's to judge
            answer = "err %s" % e
        print(answer, flush=True)


WORK = "."


def main():
    global WORK
    if len(sys.argv) != 3:
        sys.exit("usage: mininet_ring.py CONTROLLER_IP:PORT WORK_DIR")
    controller, WORK = sys.argv[1], sys.argv[2]
    ip, port = controller.split(":")
    setLogLevel("warning")
    net = Mininet(topo=Ring(), build=False, controller=None, link=Link,
                  switch=partial(OVSSwitch, datapath="user", protocols="OpenFlow13"))
    net.addController(RemoteController("c0", ip=ip, port=int(port)))
    try:
        net.build()
        net.start()
        prepare_hosts(net)
        print("ready", flush=True)
        serve(net)
    finally:
        net.stop()


if __name__ == "__main__":
    main()
