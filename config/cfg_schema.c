/*
 * cfg_schema: every configuration key of ofcd, one row each (see cfg_priv.h).
 *
 * Read by cfg.c for parsing, defaults, --help and printing, and by the unit
 * test. Rows of one section stay together and in the order --help and
 * cfg_print show them. The allowed values are not repeated in the help
 * strings: cfg.c derives them from the type and limits.
 */
#include "cfg_priv.h"

#include <stddef.h>
#include <stdint.h>

#define CFG_FIELD(f) .off = offsetof(struct ofcd_config, f), \
                     .size = sizeof(((struct ofcd_config *)0)->f)
#define CFG_AUX(f) .aux = offsetof(struct ofcd_config, f)

#define CFG_UINT(sec, key, f, lo, hi, d, h)                                              \
    {.section = sec, .name = key, .type = CFG_T_UINT, .def = d, .help = h, .min = lo,     \
     .max = hi, CFG_FIELD(f)}
#define CFG_BOOL(sec, key, f, d, h)                                                        \
    {.section = sec, .name = key, .type = CFG_T_BOOL, .def = d, .help = h, CFG_FIELD(f)}
#define CFG_RATE(sec, key, f, d, h)                                                        \
    {.section = sec, .name = key, .type = CFG_T_RATE, .def = d, .help = h, CFG_FIELD(f)}
#define CFG_STRING(sec, key, f, d, h)                                                      \
    {.section = sec, .name = key, .type = CFG_T_STRING, .def = d, .help = h, .min = 1,    \
     CFG_FIELD(f)}
/* A string that may be empty, and is by default (empty = the feature is off
 * or takes its built-in choice). */
#define CFG_STRING_OPT(sec, key, f, h)                                                     \
    {.section = sec, .name = key, .type = CFG_T_STRING, .def = "", .help = h, .min = 0,   \
     CFG_FIELD(f)}
#define CFG_CIDR(sec, key, f, pfx, d, h)                                                   \
    {.section = sec, .name = key, .type = CFG_T_IPV4_CIDR, .def = d, .help = h, .min = 1, \
     .max = 30, CFG_FIELD(f), CFG_AUX(pfx)}
#define CFG_LCORES(sec, key, f, n, d, h)                                                   \
    {.section = sec, .name = key, .type = CFG_T_LCORE_LIST, .def = d, .help = h,          \
     .min = 0, .max = CFG_MAX_LCORES - 1, CFG_FIELD(f), CFG_AUX(n)}

/* One direction of the fault wrapper: the same five keys for rx and tx. */
#define CFG_FAULT_DIR(dir, f)                                                              \
    CFG_RATE("fault", dir "_drop", f.drop, "0",                                            \
             "probability that a " dir " packet is dropped"),                              \
    CFG_RATE("fault", dir "_dup", f.dup, "0",                                              \
             "probability that a " dir " packet is sent twice"),                           \
    CFG_RATE("fault", dir "_reorder", f.reorder, "0",                                      \
             "probability that a " dir " packet is held back behind later ones"),          \
    CFG_RATE("fault", dir "_delay", f.delay, "0",                                          \
             "probability that a " dir " packet is delayed by " dir "_delay_us"),          \
    CFG_UINT("fault", dir "_delay_us", f.delay_us, 0, 10000000, "1000",                    \
             "delay in microseconds applied to " dir " packets picked by " dir "_delay")

const struct cfg_key cfg_keys[] = {
    CFG_STRING("eal", "args", eal_args,
               "--no-huge -m 512 --no-pci --vdev=net_tap0,iface=ofc0 --file-prefix=ofcd",
               "DPDK EAL arguments, split on spaces"),

    CFG_CIDR("net", "address", ip, prefix_len, "10.66.0.2/24",
             "ofcd's own IPv4 address and prefix on the port"),
    {.section = "net", .name = "mac", .type = CFG_T_MAC, .def = "",
     .help = "ofcd's MAC address on the port", CFG_FIELD(mac), CFG_AUX(has_mac)},
    CFG_BOOL("net", "configure_kernel", configure_kernel, "true",
             "when the port is a tap, give its kernel side kernel_address and bring it up"),
    CFG_CIDR("net", "kernel_address", kernel_ip, kernel_prefix_len, "10.66.0.1/24",
             "address of the tap's kernel side, in net.address's subnet"),
    CFG_UINT("net", "arp_cache_size", arp_cache_size, 16, 1048576, "1024",
             "number of ARP cache entries"),
    CFG_UINT("net", "arp_timeout_s", arp_timeout_s, 1, 86400, "300",
             "seconds an ARP entry stays valid without being refreshed"),
    CFG_BOOL("net", "gratuitous_arp", gratuitous_arp, "true",
             "announce ofcd's address with a gratuitous ARP when the port comes up"),

    CFG_UINT("port", "mbufs", mbufs, 1023, 1048575, "8191",
             "packet buffers in the pool; must exceed rx_desc + tx_desc + 2*burst"),
    CFG_UINT("port", "mbuf_cache", mbuf_cache, 0, 512, "256",
             "per-lcore mbuf cache; at most mbufs/1.5"),
    CFG_UINT("port", "rx_desc", rx_desc, 64, 16384, "1024", "RX ring descriptors"),
    CFG_UINT("port", "tx_desc", tx_desc, 64, 16384, "1024", "TX ring descriptors"),
    CFG_UINT("port", "burst", burst, 1, 512, "32", "packets per rx/tx burst"),

    CFG_LCORES("lcores", "io", io_lcores, n_io_lcores, "0",
               "EAL lcores running the io role (may overlap lcores.worker)"),
    CFG_LCORES("lcores", "worker", worker_lcores, n_worker_lcores, "0",
               "EAL lcores running the worker role (may overlap lcores.io)"),
    CFG_UINT("lcores", "idle_sleep_us", idle_sleep_us, 0, 100000, "50",
             "sleep after idle_polls empty polls, in microseconds; 0 = pure busy-poll"),
    CFG_UINT("lcores", "idle_polls", idle_polls, 1, 1000000, "1024",
             "empty polls in a row before an lcore sleeps idle_sleep_us"),

    CFG_UINT("openflow", "port", of_port, 0, 65535, "6653",
             "TCP port switches connect to in plaintext (0 = none: TLS only, tls.port)"),
    CFG_UINT("openflow", "extra_port", of_extra_port, 0, 65535, "0",
             "a second listening port (e.g. 6633), 0 = none; must differ from port"),
    CFG_UINT("openflow", "handshake_timeout_ms", of_handshake_timeout_ms, 0, 600000, "10000",
             "time a new switch has to finish HELLO, FEATURES and the PORT_DESC/DESC "
             "replies (0 = no limit)"),
    CFG_UINT("openflow", "hello_timeout_ms", of_hello_timeout_ms, 0, 600000, "2000",
             "time a new connection has to send its HELLO before it is closed (0 = only "
             "handshake_timeout_ms)"),
    CFG_UINT("openflow", "max_pending", of_max_pending, 1, 1048576, "16384",
             "connections per io lcore that have not finished the handshake, from any "
             "number of addresses; at the bound the oldest pending connection of the "
             "address holding the most is closed to make room for a newcomer"),
    CFG_UINT("openflow", "echo_interval_ms", of_echo_interval_ms, 0, 3600000, "5000",
             "send ECHO_REQUEST after this much silence from a switch (0 = no keepalive)"),
    CFG_UINT("openflow", "echo_timeout_ms", of_echo_timeout_ms, 0, 3600000, "15000",
             "disconnect a switch whose ECHO_REPLY has not come after this long "
             "(0 = never)"),
    CFG_UINT("openflow", "rtt_probe_ms", of_rtt_probe_ms, 0, 3600000, "10000",
             "send an ECHO_REQUEST at least this often to a busy switch too, so its echo "
             "RTT is always measured (0 = only after echo_interval_ms of silence)"),
    CFG_UINT("openflow", "miss_send_len", of_miss_send_len, 0, 65535, "128",
             "bytes of a table-miss packet the switch puts in PACKET_IN (65535 = whole "
             "packet, unbuffered)"),
    CFG_UINT("openflow", "queue_size", of_queue_size, 64, 1048576, "4096",
             "slots per priority class of each msg_in and msg_out ring (power of two)"),
    CFG_UINT("openflow", "msg_buffers", of_msg_buffers, 1024, 4194304, "32768",
             "message buffers of 512 B for what switches send; 1/64 as many of 64 KiB for "
             "large ones"),
    CFG_UINT("openflow", "control_buffers", of_control_buffers, 1024, 4194304, "16384",
             "message buffers of 512 B for the control plane (the workers' messages, the "
             "flow manager's FLOW_MODs), which no switch's traffic can drain; 1/64 as many "
             "of 64 KiB"),
    CFG_UINT("openflow", "event_buffers", of_event_buffers, 0, 8388608, "0",
             "message buffers of 512 B for events (connection and switch up/down, echo "
             "round trips), 1/64 as many of 64 KiB; two are kept per connection, so its end "
             "is never lost; when empty, new connections are refused (0 = 2 x "
             "tcp.max_conns x io lcores + 16384)"),
    CFG_UINT("openflow", "conn_buffers", of_conn_buffers, 16, 4194304, "1024",
             "message buffers one switch connection may hold at once (its messages on the "
             "way to the worker, held ones, echo replies, what is sent to it, events about "
             "it); at the bound ofcd stops reading it"),
    CFG_UINT("openflow", "conn_buffer_kb", of_conn_buffer_kb, 64, 4194304, "4096",
             "the same bound in KiB, each buffer counted by its size (512 B or 64 KiB)"),
    CFG_UINT("openflow", "conn_control_buffers", of_conn_control_buffers, 8, 4194304, "256",
             "of those, buffers of the control plane's pools (what is sent to it, events "
             "about it): a few switches that do not read cannot drain what every other "
             "switch's FLOW_MODs and events come from"),
    CFG_UINT("openflow", "pending_conn_buffers", of_pending_conn_buffers, 4, 4194304, "16",
             "message buffers a connection may hold before its handshake is done (what it "
             "sends, what waits for the handshake, what is sent to it), one of them large "
             "at most; at the bound ofcd stops reading it"),
    CFG_UINT("openflow", "pending_buffers", of_pending_buffers, 0, 4194304, "0",
             "message buffers all connections of an io lcore short of ESTABLISHED may hold "
             "together (1/64 as many large ones); at the bound ofcd stops reading them "
             "until buffers come back (0 = msg_buffers / 8 / io lcores)"),
    CFG_UINT("openflow", "ip_buffers", of_ip_buffers, 0, 4194304, "0",
             "message buffers all connections from one source address may hold together "
             "on an io lcore; at the bound ofcd stops reading them until buffers come "
             "back (a lab of switches behind one address shares it, and is slowed, not "
             "refused) (0 = msg_buffers / 4 / io lcores)"),
    CFG_UINT("openflow", "ip_buffer_kb", of_ip_buffer_kb, 0, 4194304, "0",
             "the same bound in KiB, each buffer counted by its size (512 B or 64 KiB) "
             "(0 = a quarter of the 64 KiB buffers / io lcores)"),
    CFG_UINT("openflow", "ip_control_buffers", of_ip_control_buffers, 0, 4194304, "0",
             "of those, buffers of the control plane's pools (what is sent to them, "
             "events about them) (0 = control_buffers / 8 / io lcores)"),
    CFG_UINT("openflow", "out_backlog_kb", of_out_backlog_kb, 64, 1048576, "4096",
             "unsent KiB a switch may fall behind before ofcd disconnects it"),
    CFG_UINT("openflow", "recorder_kb", of_recorder_kb, 0, 256, "4",
             "KiB of each connection's flight record: its last OpenFlow messages each way, "
             "kept after it ends until its slot is taken again (0 = no recorder)"),
    CFG_UINT("openflow", "recorder_frozen", of_recorder_frozen, 0, 1024, "32",
             "flight records frozen as captures when a switch disconnects, sends an "
             "OFPT_ERROR, is mended by the consistency check or on capture/freeze; the "
             "oldest go first (0 = none frozen)"),
    CFG_UINT("openflow", "forget_after_s", of_forget_after_s, 0, 31536000, "3600",
             "a switch gone this long is forgotten (worker, control view, /metrics; the flow "
             "manager too unless it has stored flows), 0 = never"),
    CFG_UINT("openflow", "max_switches_known", of_max_switches_known, 1, 1048576, "16384",
             "switch records (dpids) each worker and the control view keep, up or down; at "
             "the bound a new dpid takes the record of the switch down longest (one without "
             "stored flows first), and is refused at FEATURES_REPLY when every record is a "
             "live switch's (it may retry)"),
    CFG_UINT("openflow", "max_ports", of_max_ports, 1, 1048576, "4096",
             "ports one switch may report (PORT_DESC and PORT_STATUS together); past it the "
             "switch is disconnected"),
    CFG_UINT("openflow", "mp_max_kb", of_mp_max_kb, 64, 4194304, "65536",
             "KiB one multipart reply may take, all parts together (100,000 flows of flow "
             "statistics take about 20 MiB); the rest of a bigger one is dropped and counted"),
    CFG_UINT("openflow", "mp_max_parts", of_mp_max_parts, 1, 1048576, "4096",
             "parts one multipart reply may have"),
    CFG_UINT("openflow", "malformed_limit", of_malformed_limit, 1, 100000, "16",
             "malformed messages per switch per minute before it is disconnected (each "
             "gets an OFPT_ERROR)"),
    CFG_UINT("openflow", "stats_interval_s", of_stats_interval_s, 0, 86400, "10",
             "poll every switch for flow, port and table statistics this often, staggered "
             "across switches (0 = never)"),
    CFG_STRING("openflow", "role", of_role, "equal",
               "controller role asked of every switch once established: equal (no "
               "ROLE_REQUEST sent), master or slave"),
    CFG_UINT("openflow", "generation_id", of_generation_id, 0, UINT64_MAX, "0",
             "generation id sent with a master/slave ROLE_REQUEST (HA setups raise it on "
             "every failover)"),

    CFG_UINT("tls", "port", tls_port, 0, 65535, "0",
             "TCP port of the OpenFlow-over-TLS listener (a switch's ssl:IP:PORT), 0 = none; "
             "needs cert and key, and must differ from openflow.port and extra_port"),
    CFG_STRING_OPT("tls", "cert", tls_cert,
               "PEM certificate (then its chain) ofcd shows switches"),
    CFG_STRING_OPT("tls", "key", tls_key, "PEM private key of cert, mode 600"),
    CFG_STRING_OPT("tls", "ca", tls_ca,
               "PEM CA certificate(s) switches' certificates must chain to (Open vSwitch: "
               "ovs-pki's switchca/cacert.pem)"),
    CFG_BOOL("tls", "verify_peer", tls_verify_peer, "true",
             "demand a certificate from each switch, chaining to ca (false: any client may "
             "connect, logged loudly)"),
    CFG_STRING("tls", "min_version", tls_min_version, "1.2", "lowest TLS version: 1.2 or 1.3"),
    CFG_STRING_OPT("tls", "ciphers", tls_ciphers,
               "TLS 1.2 cipher list, OpenSSL syntax (empty = OpenSSL's default)"),
    CFG_STRING_OPT("tls", "ciphersuites", tls_ciphersuites,
               "TLS 1.3 cipher suites, OpenSSL syntax (empty = OpenSSL's default)"),
    CFG_UINT("tls", "handshake_timeout_ms", tls_handshake_timeout_ms, 100, 600000, "5000",
             "time a TLS connection has to finish its handshake before it is closed"),
    CFG_STRING_OPT("tls", "pins_file", tls_pins_file,
               "lines \"DPID SHA256\": each listed switch must show exactly that certificate "
               "(empty = no pins)"),
    CFG_UINT("tls", "verify_depth", tls_verify_depth, 1, 32, "4",
             "intermediate CAs a switch's certificate chain may have between its certificate "
             "and ca; a longer chain is refused (\"certificate chain too long\")"),
    CFG_UINT("tls", "max_cert_list_kb", tls_max_cert_list_kb, 4, 1024, "32",
             "largest certificate chain a switch may send, KiB (held whole before it is "
             "verified); a larger one ends the handshake (\"excessive message size\")"),
    CFG_STRING_OPT("tls", "crl_file", tls_crl_file,
               "PEM CRL(s), read at start: a switch whose certificate (or any CA of its "
               "chain) is revoked is refused; every CA of a chain needs its CRL here, and an "
               "expired one refuses its switches (empty = no revocation check; needs "
               "verify_peer)"),

    CFG_UINT("tcp", "mss", tcp.mss, 536, 1460, "1460",
             "MSS ofcd advertises (the port MTU minus 40)"),
    CFG_UINT("tcp", "rcv_buf", tcp.rcv_buf, 65536, 16777216, "65536",
             "receive buffer bound per connection, bytes: the window ofcd offers; at least "
             "65536, because a message is framed only once it is whole in this buffer and an "
             "OpenFlow message may be 65,535-byte long (smaller, the connection would stall)"),
    CFG_UINT("tcp", "snd_buf", tcp.snd_buf, 4096, 16777216, "65536",
             "send buffer bound per connection, bytes; a full buffer pushes back on "
             "the OpenFlow layer"),
    CFG_UINT("tcp", "buffer_chunks", tcp_chunks, 1024, 4194304, "32768",
             "2 KiB payload chunks per io lcore shared by all its connections' buffers"),
    CFG_UINT("tcp", "max_conns", tcp.max_conns, 16, 1048576, "16384",
             "connections per io lcore (TCBs are preallocated)"),
    CFG_UINT("tcp", "syn_backlog", tcp.syn_backlog, 1, 65535, "1024",
             "half-open connections per listener before SYN cookies answer"),
    CFG_BOOL("tcp", "syncookies", tcp.syncookies, "true",
             "answer SYNs with cookies when a backlog or the connection table is full"),
    CFG_BOOL("tcp", "timestamps", tcp.timestamps, "true",
             "RFC 7323 timestamps (RTT measurement and PAWS)"),
    CFG_BOOL("tcp", "window_scaling", tcp.window_scaling, "true",
             "RFC 7323 window scaling (needed for rcv_buf above 64 KiB)"),
    CFG_UINT("tcp", "rto_min_ms", tcp.rto_min_ms, 1, 60000, "200",
             "lower bound of the retransmission timeout"),
    CFG_UINT("tcp", "rto_max_ms", tcp.rto_max_ms, 100, 600000, "60000",
             "upper bound of the retransmission timeout"),
    CFG_UINT("tcp", "rto_initial_ms", tcp.rto_initial_ms, 1, 600000, "1000",
             "retransmission timeout before the first RTT sample (RFC 6298: 1 s)"),
    CFG_UINT("tcp", "delack_ms", tcp.delack_ms, 1, 40, "40",
             "delayed ACK timeout; every second segment is ACKed at once anyway"),
    CFG_UINT("tcp", "syn_retries", tcp.syn_retries, 1, 10, "5",
             "SYN and SYN-ACK retransmissions before giving up"),
    CFG_UINT("tcp", "max_retrans", tcp.max_retrans, 1, 30, "12",
             "data retransmissions (with backoff) before a connection is aborted"),
    CFG_UINT("tcp", "time_wait_ms", tcp.time_wait_ms, 100, 240000, "10000",
             "TIME_WAIT duration (2*MSL); timestamps protect reuse within it"),
    CFG_UINT("tcp", "max_time_wait", tcp.max_time_wait, 0, 1048576, "4096",
             "TIME_WAIT connections kept per io lcore; the oldest is recycled beyond"),
    CFG_UINT("tcp", "fin_wait2_ms", tcp.fin_wait2_ms, 1000, 600000, "60000",
             "how long a closed connection waits in FIN_WAIT_2 for the peer's FIN"),
    CFG_UINT("tcp", "keepalive_idle_s", tcp.keepalive_idle_s, 0, 86400, "0",
             "TCP keepalive after this much silence, 0 = off (OpenFlow echo is the usual "
             "liveness check)"),
    CFG_UINT("tcp", "keepalive_intvl_s", tcp.keepalive_intvl_s, 1, 3600, "10",
             "seconds between keepalive probes"),
    CFG_UINT("tcp", "keepalive_probes", tcp.keepalive_probes, 1, 255, "5",
             "unanswered keepalive probes before the connection is dropped"),
    CFG_UINT("tcp", "ooo_max_segs", tcp.ooo_max_segs, 0, 4096, "64",
             "out-of-order segments kept per connection"),
    CFG_UINT("tcp", "challenge_ack_per_s", tcp.challenge_ack_per_s, 1, 1000000, "1000",
             "RFC 5961 challenge ACKs per io lcore per second on average: each second's "
             "budget is drawn at random between half and one and a half times this, so the "
             "count sent tells an off-path attacker nothing (CVE-2016-5696); beyond it "
             "challenges go unanswered (counted challenge_ack_limited)"),
    CFG_UINT("tcp", "invalid_ack_interval_ms", tcp.invalid_ack_interval_ms, 1, 60000, "500",
             "per connection, at most one ACK per this many ms in answer to invalid segments "
             "(out of window, PAWS-rejected, acking unsent data, challenge ACKs); the others "
             "are dropped unanswered (counted invalid_ack_limited); a zero-window probe is "
             "always answered"),
    CFG_UINT("tcp", "connect_backoff_min_ms", tcp_backoff_min_ms, 10, 600000, "1000",
             "active open (peers that listen): delay before the first reconnect; it doubles "
             "after each failure"),
    CFG_UINT("tcp", "connect_backoff_max_ms", tcp_backoff_max_ms, 10, 600000, "30000",
             "active open: longest delay between reconnect attempts"),
    /* The test services' keys: in a build without them (meson's test_services
     * off) only the off value is accepted (cfg.c, cfg_apply). */
    {.section = "tcp", .name = "echo_port", .type = CFG_T_UINT, .def = "0",
     .help = "TEST ONLY: serve a TCP echo on this port (0 = off); used by the TCP tests "
             "and benches. Only in builds made with meson's -Dtest_services=true (make "
             "test, make bench); a product build refuses any value but 0",
     .min = 0, .max = 65535, CFG_FIELD(tcp_echo_port), .test_only = true},
    {.section = "tcp", .name = "echo_connect", .type = CFG_T_IPV4_PORT, .def = "0.0.0.0:0",
     .help = "TEST ONLY: connect to this address and echo what it sends, reconnecting "
             "with backoff (0.0.0.0:0 = off). Only in builds made with -Dtest_services=true",
     .min = 0, .max = 65535, CFG_FIELD(tcp_echo_connect_ip), CFG_AUX(tcp_echo_connect_port),
     .test_only = true},

    CFG_BOOL("apps", "l2_learning", l2_learning, "false",
             "run the L2 learning-switch app on every switch: it deletes the switch's "
             "flows, installs a table-miss entry to ofcd and answers PACKET_IN"),
    CFG_UINT("apps", "l2_table_size", l2_table_size, 16, 1048576, "4096",
             "MAC addresses the learning switch remembers per switch"),
    CFG_UINT("apps", "l2_idle_timeout_s", l2_idle_timeout_s, 0, 65535, "60",
             "idle timeout of the flows the learning switch installs (0 = none)"),
    CFG_BOOL("apps", "topology", topology, "true",
             "discover links with LLDP (Kytos-ng of_lldp + topology): an LLDP flow on every "
             "enabled switch, one probe per port per topology.lldp_interval_s, and the "
             "topology v3, of_lldp v1 and /api/v1/topology REST paths"),

    CFG_BOOL("apps", "mef_eline", mef_eline, "true",
             "Ethernet virtual circuits as Kytos-ng's mef_eline v2 provisions them, under "
             "/api/kytos/mef_eline/v2 (dynamic paths need apps.topology)"),
    CFG_BOOL("apps", "mef_eline_fast_failover", eline_fast_failover, "true",
             "give a dynamic EVC a backup path sharing no link with its path, behind an "
             "OpenFlow fast-failover group at each UNI's switch, where the topology has one "
             "(false: unprotected, as Kytos lays an EVC without a failover path; for switches "
             "without fast-failover groups)"),
    CFG_BOOL("apps", "mef_eline_meters", eline_meters, "false",
             "enforce an EVC's bandwidth (Mbit/s) with an OpenFlow meter at each UNI, on the "
             "traffic entering there (false: bandwidth is kept and shown, never enforced, as "
             "Kytos does)"),

    CFG_UINT("topology", "lldp_interval_s", topo_lldp_interval_s, 1, 3600, "3",
             "seconds between two LLDP probes of one port (of_lldp's polling_time; REST may "
             "change it until restart)"),
    CFG_UINT("topology", "link_timeout_s", topo_link_timeout_s, 1, 3600, "10",
             "a link with no LLDP one way for this long goes down; must exceed "
             "lldp_interval_s"),
    CFG_UINT("topology", "lldp_max_age_ms", topo_lldp_max_age_ms, 100, 3600000, "2000",
             "an LLDP frame of ofcd's sent longer ago than this is stale and ignored (a "
             "replay); it bounds the transit from ofcd through both switches and back, not "
             "the probes' spacing; at most link_timeout_s. Frames not newer than the last "
             "from their port are dropped whatever their age"),
    CFG_UINT("topology", "lldp_vlan", topo_lldp_vlan, 0, 4094, "3799",
             "the VLAN ofcd's LLDP frames carry and each switch's LLDP flow matches "
             "(of_lldp's FLOW_VLAN_VID, 3799 as Kytos-ng); 0 sends them untagged, the flow then "
             "matching LLDP with or without a tag"),
    CFG_STRING("topology", "lldp_loop_actions", topo_loop_actions, "log",
               "what a loop LLDP finds (a switch hearing its own frame) sets off, as "
               "of_lldp's LLDP_LOOP_ACTIONS: log (a warning), disable (the lower port, "
               "enabled again when the loop stops), log,disable, or none; a switch's "
               "metadata ignored_loops [[p, q], ...] exempts those pairs"),
    CFG_BOOL("topology", "enable_on_start", topo_enable_on_start, "true",
             "a switch or interface met for the first time starts enabled (as Kytos-ng run "
             "with kytosd -E); false starts it disabled (Kytos-ng's default): no LLDP, no "
             "LLDP flow until an operator enables it"),
    CFG_UINT("topology", "max_links", topo_max_links, 16, 4194304, "65536",
             "links remembered (up or down); when full, the oldest one down makes room"),
    CFG_UINT("topology", "max_interfaces", topo_max_interfaces, 16, 16777216, "262144",
             "switches and interfaces an operator may disable or switch LLDP off on"),

    {.section = "rest", .name = "listen", .type = CFG_T_IPV4_PORT, .def = "127.0.0.1:8181",
     .help = "address and TCP port of the REST API (0.0.0.0 = all interfaces)", .min = 1,
     .max = 65535, CFG_FIELD(rest_ip), CFG_AUX(rest_port)},
    CFG_UINT("rest", "threads", rest_threads, 1, 256, "4",
             "libmicrohttpd worker threads, each one epoll loop; a flow change does not "
             "hold one while its commit syncs (answered from the commit)"),
    CFG_UINT("rest", "max_body_kb", rest_max_body_kb, 1, 1048576, "16384",
             "largest request body accepted, KiB; a larger one is answered 413"),
    CFG_UINT("rest", "max_conns_per_ip", rest_max_conns_per_ip, 1, 4096, "128",
             "connections one client address may hold open at once (of the 4,096 the API "
             "serves); more are closed as they are accepted, before anything is read"),
    CFG_UINT("rest", "max_flows_per_request", rest_max_flows_per_request, 1, 100000000,
             "100000", "flow changes one request may expand to (its flows times the switches "
             "they go to; each is parsed and held while the request lives, about 3 KiB); "
             "more is answered 413"),
    CFG_UINT("rest", "rate_limit_per_s", rest_rate_limit_per_s, 0, 10000000, "0",
             "requests per second per client address before 429 (token bucket; 0 = off)"),
    CFG_UINT("rest", "rate_burst", rest_rate_burst, 1, 10000000, "100",
             "requests a client may send at once above rate_limit_per_s"),
    CFG_UINT("rest", "events_max_clients", rest_events_max_clients, 1, 256, "16",
             "clients of the event stream GET /api/v1/events at once (more: 503)"),
    CFG_UINT("rest", "events_queue_kb", rest_events_queue_kb, 4, 65536, "256",
             "KiB of events waiting for one stream client; a client that falls further "
             "behind is cut off, never the control thread slowed"),
    CFG_STRING_OPT("rest", "tls_cert", rest_tls_cert,
               "PEM certificate (chain) of the REST API; with tls_key it serves HTTPS only "
               "(empty = plain HTTP)"),
    CFG_STRING_OPT("rest", "tls_key", rest_tls_key,
               "PEM private key of tls_cert, mode 600 (empty = plain HTTP)"),
    CFG_BOOL("rest", "auth", rest_auth, "false",
             "require a bearer token (GET /api/kytos/core/auth/login/ with Basic "
             "credentials) on every route; users: ofcd user add NAME"),
    CFG_UINT("rest", "token_minutes", rest_token_minutes, 1, 525600, "180",
             "how long a login's token is valid, minutes (Kytos-ng's default: 180)"),
    CFG_STRING_OPT("rest", "users_file", rest_users_file,
               "the users and their password hashes, mode 600 (empty = "
               "app.data_dir/users.json)"),
    CFG_STRING_OPT("rest", "reader_tokens_file", rest_reader_tokens_file,
               "lines \"NAME TOKEN\", mode 600: static bearer tokens that may GET (scrapers "
               "such as Prometheus; empty = none)"),
    CFG_STRING_OPT("rest", "ui_dir", rest_ui_dir,
               "the dashboard's built files, served at /ui/ (empty = ../ui or "
               "../share/ofcd/ui from the program's own folder, as make and meson install "
               "put them; none found: the API runs without a dashboard)"),
    CFG_UINT("rest", "login_lock_s", rest_login_lock_s, 1, 86400, "60",
             "after 5 failed logins from one address, each within this many seconds of "
             "the one before, its logins are refused (429) until this long after the last; "
             "also how long an address's failures are remembered"),
    CFG_UINT("rest", "login_track_max", rest_login_track_max, 16, 1048576, "4096",
             "addresses whose failed logins are remembered (about 32 bytes each); while "
             "all of them have failures younger than login_lock_s, logins from other "
             "addresses are refused (429), except from those that logged in within 24 h"),
    CFG_UINT("rest", "login_concurrency", rest_login_concurrency, 1, 64, "1",
             "password checks at once (scrypt: ~32 MiB and ~70 ms of a CPU each, on threads "
             "of their own), plus one for addresses that logged in within 24 h; the others "
             "wait their turn, addresses served in turn, one check of an address at a time "
             "(more than 8 of one address waiting: 503, Retry-After: 1)"),
    CFG_UINT("rest", "refused_per_s", rest_refused_per_s, 0, 1000000, "20",
             "refused requests per second an address may cause before authenticating (401, "
             "failed logins, 429/503 of the login guard); beyond refused_burst of them its "
             "connections are closed as accepted until it is back under the rate (0 = off)"),
    CFG_UINT("rest", "refused_burst", rest_refused_burst, 1, 1000000, "200",
             "refused requests an address may cause at once above refused_per_s"),
    CFG_BOOL("rest", "allow_insecure", rest_allow_insecure, "false",
             "let rest.listen be a non-loopback address without rest.auth (refused "
             "otherwise; logged loudly when allowed)"),

    CFG_UINT("flow_manager", "pacing_per_s", fm_pacing_per_s, 0, 10000000, "1000",
             "FLOW_MODs per second per owner per switch; more wait their turn, none is "
             "dropped (0 = no pacing, for bulk loads)"),
    CFG_UINT("flow_manager", "queue_max", fm_queue_max, 16, 100000000, "100000",
             "FLOW_MODs waiting to be sent per switch, and held by requests admitted but not "
             "yet stored (adds and deletes), before requests for it get 503"),
    CFG_UINT("flow_manager", "snapshot_budget_mb", fm_snapshot_budget_mb, 1, 1048576, "512",
             "MiB all switches' flow-statistics snapshots (for GET flows and the consistency "
             "check) and replies being gathered may take together; a reply that would pass "
             "it is abandoned (counted, logged) and no consistency verdict comes from it; at "
             "least 2 x openflow.mp_max_kb (a switch's snapshot and its next reply)"),
    CFG_BOOL("flow_manager", "consistency", fm_consistency, "true",
             "compare each switch's flow statistics with the store: delete alien flows, "
             "re-install missing ones"),
    CFG_UINT("flow_manager", "consistency_min_interval_s", fm_consistency_min_interval_s, 1,
             86400, "60",
             "verdict window is max(this, 1.5 x openflow.stats_interval_s): flows younger "
             "than it are left alone, and a switch is checked at most once per window"),
    CFG_UINT("flow_manager", "deleted_retention_s", fm_deleted_retention_s, 0, 31536000,
             "3600",
             "deleted flows stay in the store, listed by stored_flows in state deleted "
             "(as Kytos-ng does), this long before they are purged (0 = removed at once)"),
    CFG_STRING_OPT("flow_manager", "ignore_cookies", fm_ignore_cookies,
               "cookie ranges the consistency check never touches, e.g. "
               "\"0xab00000000000000-0xabffffffffffffff,7\" (empty = none)"),
    CFG_STRING_OPT("flow_manager", "ignore_tables", fm_ignore_tables,
               "table ranges the consistency check never touches, e.g. \"100-254\" "
               "(empty = none)"),
    CFG_UINT("flow_manager", "store_map_mb", fm_store_map_mb, 16, 1048576, "1024",
             "size limit of the flow store (LMDB map) under app.data_dir, MiB"),
    CFG_STRING("flow_manager", "durability", fm_durability, "sync",
               "when a flow change is answered 202: sync, once it is durable on disk (the "
               "default: an answered change survives any crash; LMDB syncs twice per "
               "commit); group, once its commit's pages are synced, the commit record "
               "with the next commit or once 20 ms pass without one (one sync per "
               "commit: a crash of ofcd loses nothing answered, a crash of the machine "
               "may undo the last commit); async, once it is queued to the store (as Kytos-ng answers "
               "before its database write): faster, and a crash may lose the last "
               "changes answered"),
    CFG_UINT("flow_manager", "store_linger_us", fm_store_linger_us, 0, 100000, "500",
             "after a change arrives, how long at most the store waits for more to share "
             "its commit, and a quarter of it after the last, µs (0 = commit at once)"),

    CFG_STRING("store", "backend", store_backend, "lmdb",
               "where flows and the apps' records are kept: lmdb (durable, under "
               "app.data_dir/flows) or memory (for tests and benches: NOTHING survives a "
               "restart; warned about in the log at start)"),
    CFG_BOOL("store", "journal", store_journal, "false",
             "lmdb: true, each commit is one append and one fdatasync of a sequential "
             "journal (flows/journal) and LMDB is synced at checkpoints (for disks whose "
             "sync is dear: one sync per commit instead of two); false (the default), each "
             "commit is LMDB's own two syncs. Either way an answered change survives a "
             "crash. A journal left by an earlier run is recovered at start whatever this "
             "says"),
    CFG_UINT("store", "checkpoint_ms", store_checkpoint_ms, 10, 600000, "1000",
             "with the journal: LMDB is synced and the journal started again at most this "
             "long after a change, ms (a crash replays at most this much journal)"),
    CFG_UINT("store", "checkpoint_mb", store_checkpoint_mb, 1, 4096, "64",
             "with the journal: ... or once the journal holds this much, MiB"),

    CFG_STRING_OPT("cluster", "etcd_endpoints", cluster_etcd_endpoints,
                   "comma-separated etcd v3 endpoints (http:// or https://, at most 16) of "
                   "the cluster this node joins; empty = no cluster: this node alone, flows "
                   "in its own store"),
    CFG_STRING_OPT("cluster", "node_id", cluster_node_id,
                   "this node's name in the cluster (letters, digits, '.', '_', '-'; at most "
                   "63); empty = the host name. Two live nodes with one name are refused"),
    CFG_UINT("cluster", "lease_ttl_s", cluster_lease_ttl_s, 2, 60, "3",
             "seconds etcd keeps this node's lease without a keepalive (etcd's minimum is "
             "2); a node that cannot renew it stops acting as master a tenth of it (200 ms "
             "at least) before etcd lets it go, and its switches get a new master after it"),
    CFG_STRING("cluster", "prefix", cluster_prefix, "/ofcd/v1/",
               "etcd key prefix of this cluster's keys, starting and ending with '/'; "
               "clusters sharing one etcd use different prefixes"),
    CFG_STRING_OPT("cluster", "etcd_ca", cluster_etcd_ca,
                   "PEM CA file that signs the https endpoints' certificates (empty = the "
                   "system's)"),
    CFG_STRING_OPT("cluster", "etcd_cert", cluster_etcd_cert,
                   "PEM client certificate for etcd (with etcd_key; empty = none)"),
    CFG_STRING_OPT("cluster", "etcd_key", cluster_etcd_key, "PEM private key of etcd_cert"),
    CFG_STRING("cluster", "etcd_api", cluster_etcd_api, "grpc",
               "how this node talks to etcd: grpc (etcd's own API, HTTP/2 and protobuf; "
               "the default) or json (etcd's JSON gateway over HTTP/1.1, which costs etcd "
               "a translation of every request and watched change)"),
    CFG_STRING_OPT("cluster", "etcd_user", cluster_etcd_user,
                   "etcd user (with etcd_password_file; empty = no authentication)"),
    CFG_STRING_OPT("cluster", "etcd_password_file", cluster_etcd_password_file,
                   "file whose first line is etcd_user's password (mode 600)"),

    CFG_STRING("app", "data_dir", data_dir, "./var",
               "directory of the flow store and other state"),
    {.section = "app", .name = "log_level", .type = CFG_T_LOG_LEVEL, .def = "info",
     .help = "least severe log level written", CFG_FIELD(log_level)},
    CFG_UINT("app", "stats_log_interval_s", stats_log_interval_s, 0, 86400, "60",
             "seconds between statistics lines in the log; 0 = never"),
    CFG_STRING_OPT("app", "ctl_socket", ctl_socket,
                   "unix socket ofcdctl talks to (mode 600, replaced if stale, removed at "
                   "stop), at most 107 bytes (a socket path's limit; longer is refused at "
                   "start); empty = /run/ofcd/<EAL file-prefix>.ctl"),
    CFG_STRING_OPT("app", "ctl_group", ctl_group,
                   "a group whose members may run ofcdctl: the socket gets that group and "
                   "mode 660 (ofcd must be root or in the group; the package's service sets "
                   "ofcd); empty = ofcd's own user only (mode 600)"),

    CFG_BOOL("fault", "enabled", fault_enabled, "false",
             "wrap the port in the fault injector (for tests)"),
    CFG_UINT("fault", "seed", fault_seed, 0, UINT64_MAX, "1",
             "PRNG seed; the same seed and traffic give the same faults"),
    CFG_FAULT_DIR("rx", fault_rx),
    CFG_FAULT_DIR("tx", fault_tx),
};

const size_t cfg_n_keys = sizeof(cfg_keys) / sizeof(cfg_keys[0]);

_Static_assert(sizeof(cfg_keys) / sizeof(cfg_keys[0]) <= CFG_KEYS_MAX,
               "raise CFG_KEYS_MAX in cfg_priv.h");

/* Keys that once existed, with what replaced them: a file that still sets
 * one gets this instead of a bare "unknown key". */
const struct cfg_removed cfg_removed_keys[] = {
    {"openflow.max_pending_per_ip",
     "connections from one address are no longer refused by count: they are bounded by "
     "what they hold (openflow.ip_buffers, ip_buffer_kb, pending_conn_buffers); delete the "
     "line"},
};
const size_t cfg_n_removed_keys = sizeof(cfg_removed_keys) / sizeof(cfg_removed_keys[0]);
