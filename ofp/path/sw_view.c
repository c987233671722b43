/* sw_view: see sw_view.h. */
#include "sw_view.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ofcd_clock.h"
#include "ofcd_hist.h"
#include "ofcd_log.h"
#include "ofp_msg.h"

OFCD_COUNTER_GROUP_HEAD(sw_view_counters, "switches", struct sw_view_stats,
                        echo_rtt_hist, SW_VIEW_COUNTERS, SW_VIEW_GAUGES);

#define CTL_HASH_BITS 14

/* A down switch's record waits on one of two lists, each in the order the
 * switches went down: DOWN until the bound asks whether it has stored
 * flows, KEPT once it answered yes (let go only when DOWN is empty). */
enum { CTL_LIST_NONE, CTL_LIST_DOWN, CTL_LIST_KEPT, CTL_LISTS };

struct sw_view {
    struct sw_view_cfg cfg;
    struct ctl_switch *buckets[1u << CTL_HASH_BITS];
    struct ofcd_dlist lists[CTL_LISTS];
    struct sw_view_stats stats;
};

static const uint16_t mp_kinds[CTL_MP_KINDS] = {OFPMP_FLOW, OFPMP_PORT_STATS, OFPMP_TABLE};
static const char *const mp_names[CTL_MP_KINDS] = {"flows", "port_stats", "tables"};

static uint32_t bucket(uint64_t dpid)
{
    return (uint32_t)((dpid * 0x9e3779b97f4a7c15ULL) >> (64 - CTL_HASH_BITS));
}

struct sw_view *sw_view_create(const struct sw_view_cfg *cfg)
{
    struct sw_view *cs = calloc(1, sizeof(*cs));
    if (!cs)
        LOG_ERR("ctl", "out of memory for the switch table");
    else if (cfg)
        cs->cfg = *cfg;
    return cs;
}

static void counters_free(struct ctl_port_counters *c)
{
    free(c->v);
    *c = (struct ctl_port_counters){0};
}

static void switch_free(struct ctl_switch *s)
{
    of_ports_free(&s->ports);
    counters_free(&s->counters);
    counters_free(&s->counting);
    free(s);
}

static void list_push(struct sw_view *cs, struct ctl_switch *s, uint8_t which)
{
    ofcd_dlist_push(&cs->lists[which], &s->down_node);
    s->down_list = which;
}

static void list_unlink(struct sw_view *cs, struct ctl_switch *s)
{
    if (s->down_list == CTL_LIST_NONE)
        return;
    ofcd_dlist_unlink(&cs->lists[s->down_list], &s->down_node);
    s->down_list = CTL_LIST_NONE;
}

/* The switch down longest on list which, or NULL. */
static struct ctl_switch *list_oldest(const struct sw_view *cs, uint8_t which)
{
    const struct ofcd_dlist_node *n = cs->lists[which].head;
    return n ? OFCD_DLIST_ENTRY(n, struct ctl_switch, down_node) : NULL;
}

static void ports_drop(struct sw_view *cs, struct ctl_switch *s)
{
    cs->stats.ports -= s->ports.n;
    of_ports_free(&s->ports);
    counters_free(&s->counters);
    counters_free(&s->counting);
}

/* Let a down switch's record go, and tell the hook. */
static void drop(struct sw_view *cs, struct ctl_switch *s)
{
    uint64_t dpid = s->dpid;
    struct ctl_switch **pp = &cs->buckets[bucket(dpid)];

    while (*pp && *pp != s)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = s->hnext;
    list_unlink(cs, s);
    ports_drop(cs, s);
    switch_free(s);
    cs->stats.known--;
    if (cs->cfg.forgotten)
        cs->cfg.forgotten(cs->cfg.arg, dpid);
}

/* At the bound: the switch down longest without stored flows goes; one
 * found to have flows moves to KEPT (asked once per time it goes down,
 * so this costs what it moves); KEPT's oldest goes only when no other is
 * down. False when every record is a live switch's. */
static bool make_room(struct sw_view *cs)
{
    struct ctl_switch *s;

    while ((s = list_oldest(cs, CTL_LIST_DOWN)) != NULL) {
        list_unlink(cs, s);
        if (cs->cfg.has_flows && cs->cfg.has_flows(cs->cfg.arg, s->dpid)) {
            list_push(cs, s, CTL_LIST_KEPT);
            continue;
        }
        drop(cs, s);
        cs->stats.evicted++;
        return true;
    }
    if ((s = list_oldest(cs, CTL_LIST_KEPT)) == NULL)
        return false;
    drop(cs, s);
    cs->stats.evicted++;
    return true;
}

void sw_view_destroy(struct sw_view *cs)
{
    if (!cs)
        return;
    for (unsigned b = 0; b < (1u << CTL_HASH_BITS); b++)
        while (cs->buckets[b]) {
            struct ctl_switch *s = cs->buckets[b];
            cs->buckets[b] = s->hnext;
            switch_free(s);
        }
    free(cs);
}

/* Both lists are in down order: each is swept from its head to the first
 * record that is not due. */
unsigned sw_view_forget(struct sw_view *cs, uint64_t now_us, uint64_t after_us)
{
    unsigned n = 0;

    for (uint8_t which = CTL_LIST_DOWN; which < CTL_LISTS; which++) {
        struct ctl_switch *s;
        while ((s = list_oldest(cs, which)) != NULL) {
            cs->stats.swept++;
            if (now_us < s->down_since_us || now_us - s->down_since_us < after_us)
                break;
            drop(cs, s);
            cs->stats.forgotten++;
            n++;
        }
    }
    return n;
}

const struct ctl_switch *sw_view_find(const struct sw_view *cs, uint64_t dpid)
{
    for (const struct ctl_switch *s = cs->buckets[bucket(dpid)]; s; s = s->hnext)
        if (s->dpid == dpid)
            return s;
    return NULL;
}

int sw_view_drop(struct sw_view *cs, uint64_t dpid)
{
    struct ctl_switch *s = (struct ctl_switch *)sw_view_find(cs, dpid);

    if (!s)
        return -ENOENT;
    if (s->up)
        return -EBUSY;
    drop(cs, s);
    cs->stats.forgotten++;
    return 0;
}

int sw_view_drop_port(struct sw_view *cs, uint64_t dpid, uint32_t port)
{
    struct ctl_switch *s = (struct ctl_switch *)sw_view_find(cs, dpid);
    struct ofp_port p = {.port_no = port};

    if (!s || !of_ports_find(&s->ports, port))
        return -ENOENT;
    if (of_ports_status(&s->ports, OFPPR_DELETE, &p) == 0)
        cs->stats.ports--;
    return 0;
}

/* A SWITCH_UP's record: found, or made (room made first at the bound). */
static struct ctl_switch *get(struct sw_view *cs, uint64_t dpid)
{
    struct ctl_switch *s = (struct ctl_switch *)sw_view_find(cs, dpid);
    if (s)
        return s;
    if (cs->cfg.max_known && cs->stats.known >= cs->cfg.max_known)
        make_room(cs);                    /* none down: the workers bound the live ones */
    s = calloc(1, sizeof(*s));
    if (!s) {
        LOG_ERR("ctl", "out of memory for switch %016" PRIx64, dpid);
        return NULL;
    }
    s->dpid = dpid;
    s->hnext = cs->buckets[bucket(dpid)];
    cs->buckets[bucket(dpid)] = s;
    cs->stats.known++;
    return s;
}

static void switch_up(struct sw_view *cs, struct ctl_switch *s, const struct qmsg *q,
                      const struct of_event_hdr *h)
{
    const uint8_t *p = q->data + sizeof(*h);
    size_t left = q->len - sizeof(*h);

    if (left < sizeof(struct of_event_up))
        return;
    memcpy(&s->info, p, sizeof(s->info));
    left -= sizeof(s->info);
    uint32_t n = s->info.n_ports;
    if ((size_t)n * sizeof(struct ofp_port) > left)
        n = (uint32_t)(left / sizeof(struct ofp_port));
    /* The event's bytes may sit at any alignment: copy each port out. */
    cs->stats.ports -= s->ports.n;
    s->ports.n = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct ofp_port port;
        memcpy(&port, p + sizeof(s->info) + (size_t)i * sizeof(port), sizeof(port));
        if (of_ports_append(&s->ports, &port) < 0) {
            LOG_ERR("ctl", "switch %016" PRIx64 ": out of memory for %u ports", s->dpid, n);
            break;
        }
    }
    cs->stats.ports += s->ports.n;
    list_unlink(cs, s);
    if (!s->up)
        cs->stats.up++;
    s->up = true;
    s->conn = q->conn;
    s->up_since_us = h->time_us;
    s->up_wall = ofcd_clock_wall_s();
    cs->stats.ups++;
}

static void port_status(struct sw_view *cs, struct ctl_switch *s,
                        const struct ofp_port_status *ps)
{
    s->port_status++;
    cs->stats.ports -= s->ports.n;
    of_ports_status(&s->ports, ps->reason, &ps->desc);
    cs->stats.ports += s->ports.n;
}

static int port_no_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int counters_cmp(const void *a, const void *b)
{
    return port_no_cmp(&((const struct ofp_port_stats *)a)->port_no,
                       &((const struct ofp_port_stats *)b)->port_no);
}

/* One part of a port-statistics reply into s->counting; the last part
 * makes it s->counters, sorted by port. A port the switch never told of is
 * skipped, so the list never holds more entries than the switch has
 * ports. The switch's port numbers are sorted once per part and searched:
 * a reply of thousands of entries from a switch of thousands of ports
 * costs the control thread n log n, not n x m. */
static void port_counters_part(struct ctl_switch *s, const struct ofp_mp_reply *mp, bool first)
{
    struct ctl_port_counters *c = &s->counting;
    struct ofp_mp_iter it;
    struct ofp_port_stats ps;

    if (first)
        c->n = 0;
    uint32_t *known = s->ports.n ? malloc(s->ports.n * sizeof(*known)) : NULL;
    if (!known)
        return;                         /* no ports, or these counters wait for the next poll */
    for (uint32_t i = 0; i < s->ports.n; i++)
        known[i] = s->ports.v[i].port_no;
    qsort(known, s->ports.n, sizeof(*known), port_no_cmp);
    ofp_mp_iter_init(&it, mp);
    while (c->n < s->ports.n && ofp_mp_next_port_stats(&it, &ps)) {
        if (!bsearch(&ps.port_no, known, s->ports.n, sizeof(*known), port_no_cmp))
            continue;
        if (c->n == c->cap) {
            uint32_t cap = c->cap ? 2 * c->cap : 8;
            struct ofp_port_stats *v = realloc(c->v, cap * sizeof(*v));
            if (!v)
                break;                  /* these counters wait for the next poll */
            c->v = v;
            c->cap = cap;
        }
        c->v[c->n++] = ps;
    }
    free(known);
    if (!(mp->flags & OFPMPF_REPLY_MORE)) {
        struct ctl_port_counters done = *c;
        done.at_ms = (int64_t)(ofcd_clock_wall_ns() / 1000000);
        if (done.n)
            qsort(done.v, done.n, sizeof(*done.v), counters_cmp);
        *c = s->counters;
        s->counters = done;
    }
}

static void stats_part(struct sw_view *cs, struct ctl_switch *s, const struct ofp_msg *m,
                       uint64_t t)
{
    const struct ofp_mp_reply *mp = &m->u.mp_reply;

    for (unsigned k = 0; k < CTL_MP_KINDS; k++) {
        if (mp->type != mp_kinds[k])
            continue;
        /* Parts of one reply share the xid: a new xid starts over. */
        bool first = s->acc_xid[k] != m->hdr.xid;
        if (first) {
            s->acc_xid[k] = m->hdr.xid;
            s->acc_entries[k] = 0;
        }
        if (mp->type == OFPMP_PORT_STATS)
            port_counters_part(s, mp, first);
        s->acc_entries[k] += ofp_mp_reply_count(mp);
        if (!(mp->flags & OFPMPF_REPLY_MORE)) {
            s->stats_entries[k] = s->acc_entries[k];
            s->stats_at_us[k] = t;
            s->acc_xid[k] = 0;
            cs->stats.stats_replies++;
        }
    }
}

static void of_message(struct sw_view *cs, struct ctl_switch *s, const struct qmsg *q,
                       const struct of_event_hdr *h)
{
    const uint8_t *msg = q->data + sizeof(*h);
    size_t len = q->len - sizeof(*h);
    struct ofp_msg m;
    struct ofp_err err;

    if (ofp_decode(msg, len, &m, &err) < 0) {
        cs->stats.undecodable++;
        return;
    }
    switch (m.hdr.type) {
    case OFPT_PORT_STATUS:
        port_status(cs, s, &m.u.port_status);
        break;
    case OFPT_FLOW_REMOVED:
        s->flow_removed++;
        break;
    case OFPT_ERROR:
        s->errors++;
        break;
    case OFPT_BARRIER_REPLY:
        s->barrier_replies++;
        break;
    case OFPT_ROLE_REPLY:
        s->role_replies++;
        break;
    case OFPT_MULTIPART_REPLY:
        stats_part(cs, s, &m, h->time_us);
        break;
    default:
        break;
    }
}

void sw_view_handle(struct sw_view *cs, const struct qmsg *q)
{
    struct of_event_hdr h;

    if (q->len < sizeof(h))
        return;
    memcpy(&h, q->data, sizeof(h));
    /* Only a switch coming up makes a record: a late event about one the
     * view let go does not bring it back. */
    struct ctl_switch *s = q->kind == QMSG_EV_SWITCH_UP
                               ? get(cs, h.dpid)
                               : (struct ctl_switch *)sw_view_find(cs, h.dpid);
    if (!s)
        return;
    cs->stats.events++;
    switch (q->kind) {
    case QMSG_EV_SWITCH_UP:
        switch_up(cs, s, q, &h);
        break;
    case QMSG_EV_SWITCH_DOWN:
        /* A stale connection's down after the new one came up changes nothing. */
        if (s->up && s->conn == q->conn) {
            s->up = false;
            s->down_since_us = h.time_us;
            s->down_wall = ofcd_clock_wall_s();
            cs->stats.up--;
            cs->stats.downs++;
            /* The record stays, its ports go (they come with the next up). */
            ports_drop(cs, s);
            list_push(cs, s, CTL_LIST_DOWN);
        }
        break;
    case QMSG_EV_OF:
        /* Only the live connection's: a message sent before the switch went
         * down may arrive after its SWITCH_DOWN (which travels in P0), and
         * must not give a down switch ports again. */
        if (s->up && s->conn == q->conn)
            of_message(cs, s, q, &h);
        break;
    case QMSG_EV_ECHO:
        if (q->len >= sizeof(h) + sizeof(struct of_event_echo)) {
            struct of_event_echo ev;
            memcpy(&ev, q->data + sizeof(h), sizeof(ev));
            s->echo_rtt_us = ev.rtt_us;
            s->echo_ewma_us = ev.ewma_us;
            s->echo_samples++;
            cs->stats.echo_rtt_hist[ofcd_log2_bucket(ev.rtt_us, CTL_RTT_BUCKETS)]++;
            cs->stats.echo_rtt_sum_us += ev.rtt_us;
        }
        break;
    default:
        break;
    }
}

void sw_view_get_stats(const struct sw_view *cs, struct sw_view_stats *out)
{
    *out = cs->stats;
}

void sw_view_log(const struct sw_view *cs)
{
    for (unsigned b = 0; b < (1u << CTL_HASH_BITS); b++)
        for (const struct ctl_switch *s = cs->buckets[b]; s; s = s->hnext)
            LOG_INFO("ctl", "switch %016" PRIx64 ": %s, conn %#" PRIx64 ", %u ports, %s=%lu "
                     "%s=%lu %s=%lu, port_status=%lu flow_removed=%lu errors=%lu role_replies=%lu",
                     s->dpid, s->up ? "up" : "down", s->conn, s->ports.n, mp_names[0],
                     (unsigned long)s->stats_entries[0], mp_names[1],
                     (unsigned long)s->stats_entries[1], mp_names[2],
                     (unsigned long)s->stats_entries[2], (unsigned long)s->port_status,
                     (unsigned long)s->flow_removed, (unsigned long)s->errors,
                     (unsigned long)s->role_replies);
}

int sw_view_dpids(const struct sw_view *cs, uint64_t **out)
{
    uint64_t *v = malloc((cs->stats.known ? cs->stats.known : 1) * sizeof(*v));
    size_t n = 0;

    if (!v)
        return -ENOMEM;
    for (unsigned b = 0; b < (1u << CTL_HASH_BITS); b++)
        for (const struct ctl_switch *s = cs->buckets[b]; s && n < cs->stats.known;
             s = s->hnext)
            v[n++] = s->dpid;
    *out = v;
    return (int)n;
}

int sw_view_copy(const struct sw_view *cs, uint64_t dpid, bool with_ports,
                      struct ctl_switch_copy *out)
{
    const struct ctl_switch *s = sw_view_find(cs, dpid);

    if (!s)
        return -ENOENT;
    out->s = *s;
    out->s.hnext = NULL;
    out->s.down_node = (struct ofcd_dlist_node){0};
    out->n_ports = s->ports.n;
    memset(&out->s.ports, 0, sizeof(out->s.ports));
    out->s.counters = (struct ctl_port_counters){.at_ms = s->counters.at_ms};
    out->s.counting = (struct ctl_port_counters){0};
    if (!with_ports)
        return 0;
    if (of_ports_set(&out->s.ports, s->ports.v, s->ports.n) < 0)
        return -ENOMEM;
    if (s->counters.n) {
        out->s.counters.v = malloc(s->counters.n * sizeof(*s->counters.v));
        if (!out->s.counters.v) {
            of_ports_free(&out->s.ports);
            return -ENOMEM;
        }
        memcpy(out->s.counters.v, s->counters.v, s->counters.n * sizeof(*s->counters.v));
        out->s.counters.n = out->s.counters.cap = s->counters.n;
    }
    return 0;
}

void ctl_switch_copy_free(struct ctl_switch_copy *c)
{
    of_ports_free(&c->s.ports);
    counters_free(&c->s.counters);
}

const struct ofp_port_stats *ctl_switch_port_counters(const struct ctl_switch *s,
                                                      uint32_t port_no)
{
    const struct ofp_port_stats key = {.port_no = port_no};

    if (!s->counters.n)
        return NULL;
    return bsearch(&key, s->counters.v, s->counters.n, sizeof(key), counters_cmp);
}

void sw_view_foreach(const struct sw_view *cs,
                          void (*fn)(const struct ctl_switch *s, void *arg), void *arg)
{
    for (unsigned b = 0; b < (1u << CTL_HASH_BITS); b++)
        for (const struct ctl_switch *s = cs->buckets[b]; s; s = s->hnext)
            fn(s, arg);
}
