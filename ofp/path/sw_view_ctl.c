/*
 * sw_view_ctl: ofcdctl's switch/show — the control thread's switch
 * view as text: one line per switch, or one switch whole (its channel,
 * description, echo round trip, statistics, events and ports).
 *
 * The handler runs on the control thread, the view's only writer, so it
 * reads the view without the lock the REST threads take. What a switch
 * sent (its DESC strings, port names) is cleaned before it reaches the
 * operator's terminal.
 */
#include "sw_view.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

#include "dpid.h"
#include "ofcd_ctl.h"
#include "ofcd_inet.h"
#include "ofcd_log.h"

static const char *const mp_kinds[CTL_MP_KINDS] = {"flows", "port_stats", "tables"};

static void wall_format(int64_t t, char out[24])
{
    struct tm tm;
    time_t tt = (time_t)t;

    if (!t || !gmtime_r(&tt, &tm) || !strftime(out, 24, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(out, 24, "-");
}

static void show_line(const struct ctl_switch *s, struct ofcd_ctl_out *out)
{
    char d[24], when[24];

    dpid_format(s->dpid, d);
    wall_format(s->up ? s->up_wall : s->down_wall, when);
    ofcd_ctl_printf(out, "%s %-4s since %s, %u ports, echo rtt %u us, %s %" PRIu64 "\n", d,
                    s->up ? "up" : "down", when, s->ports.n, s->echo_rtt_us, mp_kinds[0],
                    s->stats_entries[0]);
}

static void show_one(const struct ctl_switch *s, struct ofcd_ctl_out *out)
{
    char d[24], when[24], peer[OFCD_PEER_STRLEN], t[5][DESC_STR_LEN], mac[18];
    const struct of_event_up *u = &s->info;

    dpid_format(s->dpid, d);
    wall_format(s->up ? s->up_wall : s->down_wall, when);
    ofcd_ctl_printf(out, "switch %s (%016" PRIx64 "): %s since %s\n", d, s->dpid,
                    s->up ? "up" : "down", when);
    ofcd_ctl_printf(out, "  connection %#" PRIx64 " from %s, OpenFlow version %u\n", s->conn,
                    ofcd_peer_format(u->peer_ip, u->peer_port, peer), u->version);
    ofcd_ctl_printf(out, "  features: n_tables %u, n_buffers %u, capabilities %#x\n",
                    u->features.n_tables, u->features.n_buffers, u->features.capabilities);
    ofcd_ctl_printf(out, "  desc: mfr \"%s\", hw \"%s\", sw \"%s\", serial \"%s\", dp \"%s\"\n",
                    ofcd_log_clean(t[0], sizeof(t[0]), u->desc.mfr_desc),
                    ofcd_log_clean(t[1], sizeof(t[1]), u->desc.hw_desc),
                    ofcd_log_clean(t[2], sizeof(t[2]), u->desc.sw_desc),
                    ofcd_log_clean(t[3], sizeof(t[3]), u->desc.serial_num),
                    ofcd_log_clean(t[4], sizeof(t[4]), u->desc.dp_desc));
    ofcd_ctl_printf(out, "  echo rtt: last %u us, average %u us, %" PRIu64 " samples\n",
                    s->echo_rtt_us, s->echo_ewma_us, s->echo_samples);
    ofcd_ctl_printf(out, "  statistics (entries in the last complete reply): %s %" PRIu64
                    ", %s %" PRIu64 ", %s %" PRIu64 "\n", mp_kinds[0], s->stats_entries[0],
                    mp_kinds[1], s->stats_entries[1], mp_kinds[2], s->stats_entries[2]);
    ofcd_ctl_printf(out, "  events: port_status %" PRIu64 ", flow_removed %" PRIu64
                    ", errors %" PRIu64 ", barrier_replies %" PRIu64 ", role_replies %" PRIu64
                    "\n", s->port_status, s->flow_removed, s->errors, s->barrier_replies,
                    s->role_replies);
    ofcd_ctl_printf(out, "  ports: %u\n", s->ports.n);
    for (uint32_t i = 0; i < s->ports.n; i++) {
        const struct ofp_port *p = &s->ports.v[i];
        mac_format(p->hw_addr, mac);
        ofcd_ctl_printf(out, "    %u \"%s\" %s config %#x state %#x speed %u kbps\n",
                        p->port_no, ofcd_log_clean(t[0], sizeof(t[0]), p->name), mac,
                        p->config, p->state, p->curr_speed);
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static int switch_show(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
{
    const struct sw_view *cs = arg;
    uint64_t dpid, *all;

    if (argc == 2) {
        if (dpid_parse(argv[1], &dpid) < 0) {
            ofcd_ctl_printf(out, "'%s' is not a dpid (16 hex digits, with or without colons, "
                            "or decimal)\n", argv[1]);
            return -EINVAL;
        }
        const struct ctl_switch *s = sw_view_find(cs, dpid);
        if (!s) {
            ofcd_ctl_printf(out, "switch %016" PRIx64 " is not known\n", dpid);
            return -ENOENT;
        }
        show_one(s, out);
        return 0;
    }
    int n = sw_view_dpids(cs, &all);
    if (n < 0)
        return n;
    qsort(all, (size_t)n, sizeof(*all), cmp_u64);
    ofcd_ctl_printf(out, "%d switches known\n", n);
    for (int i = 0; i < n; i++)
        show_line(sw_view_find(cs, all[i]), out);
    free(all);
    return 0;
}

int sw_view_ctl_register(struct sw_view *cs, struct ofcd_ctl *c)
{
    return ofcd_ctl_register(c, &(struct ofcd_ctl_cmd){
        "switch/show", "[DPID]",
        "the switches the control thread knows, one line each; with DPID, that one whole", 0,
        1, switch_show, cs});
}
