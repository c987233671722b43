/* topo_view: see topo_view.h. */
#include "topo_view.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/sha.h>

#include "dpid.h"
#include "ofcd_hex.h"
#include "of_event.h"
#include "ofcd_clock.h"
#include "ofcd_log.h"
#include "ofcd_ratelimit.h"
#include "ofp_msg.h"
#include "topo_app.h"
#include "topo_fresh.h"

OFCD_COUNTER_GROUP(topo_view_counters, "topology", struct topo_view_stats, TOPO_VIEW_COUNTERS,
                   TOPO_VIEW_GAUGES);

struct topo_view {
    struct topo_view_cfg cfg;
    struct topo_links *links;
    struct topo_live *live;
    struct topo_fresh *fresh;           /* the newest send time per sender port */
    struct topo_link_rec **recs;        /* every record, in creation order */
    size_t n_recs;
    uint32_t mask;
    struct topo_link_rec **buckets;
    struct topo_end_node **ends;        /* by one end: the records it is in */
    uint64_t now_us;                    /* of the call being handled, for the callback */
    /* LLDP and PORT_STATUS make links change: one limiter per log line. */
    struct ofcd_ratelimit rl_loop, rl_up, rl_down;
    struct topo_view_stats st;
};


void topo_end_id(struct topo_end e, char out[TOPO_END_ID_LEN])
{
    char d[24];

    dpid_format(e.dpid, d);
    snprintf(out, TOPO_END_ID_LEN, "%s:%" PRIu32, d, e.port);
}

int topo_end_parse(const char *s, char sep, bool allow_switch, struct topo_end *e)
{
    const char *at = s ? strrchr(s, sep) : NULL;
    char d[64], *end;

    /* Digits only: strtoul would also take a sign or blanks, which no id
     * topo_end_id makes has. */
    if (!at || (size_t)(at - s) >= sizeof(d) || at[1] < '0' || at[1] > '9')
        return -EINVAL;
    memcpy(d, s, (size_t)(at - s));
    d[at - s] = '\0';
    errno = 0;
    unsigned long p = strtoul(at + 1, &end, 10);
    if (*end || errno || (p == 0 && !allow_switch) || p > UINT32_MAX ||
        dpid_parse(d, &e->dpid) < 0)
        return -EINVAL;
    e->port = (uint32_t)p;
    return 0;
}

void topo_link_id(struct topo_end a, struct topo_end b, char out[TOPO_LINK_ID_LEN + 1])
{
    char ia[TOPO_END_ID_LEN], ib[TOPO_END_ID_LEN], raw[2 * TOPO_END_ID_LEN + 1];
    unsigned char md[SHA256_DIGEST_LENGTH];

    if (b.dpid < a.dpid || (b.dpid == a.dpid && b.port < a.port)) {
        struct topo_end x = a;
        a = b;
        b = x;
    }
    topo_end_id(a, ia);
    topo_end_id(b, ib);
    int n = snprintf(raw, sizeof(raw), "%s:%s", ia, ib);
    SHA256((const unsigned char *)raw, (size_t)n, md);
    ofcd_hex_encode(out, md, SHA256_DIGEST_LENGTH);
}


static bool is_end(struct topo_end x, struct topo_end e)
{
    return x.dpid == e.dpid && x.port == e.port;
}

static struct topo_end node_end(const struct topo_end_node *n)
{
    return n == &n->rec->side[0] ? n->rec->a : n->rec->b;
}

static void ends_add(struct topo_view *t, struct topo_link_rec *r)
{
    for (unsigned k = 0; k < 2; k++) {
        struct topo_end e = k ? r->b : r->a;
        struct topo_end_node **head = &t->ends[topo_end_hash(e) & t->mask];
        r->side[k] = (struct topo_end_node){.rec = r, .next = *head};
        *head = &r->side[k];
    }
}

static void ends_del(struct topo_view *t, struct topo_link_rec *r)
{
    for (unsigned k = 0; k < 2; k++) {
        struct topo_end_node **pp = &t->ends[topo_end_hash(k ? r->b : r->a) & t->mask];
        while (*pp && *pp != &r->side[k])
            pp = &(*pp)->next;
        if (*pp)
            *pp = r->side[k].next;
    }
}

static bool same(const struct topo_link_rec *r, struct topo_end a, struct topo_end b)
{
    return r->a.dpid == a.dpid && r->a.port == a.port && r->b.dpid == b.dpid &&
           r->b.port == b.port;
}

static struct topo_link_rec *rec_lookup(struct topo_view *t, struct topo_end a, struct topo_end b)
{
    for (struct topo_link_rec *r = t->buckets[topo_pair_hash(a, b) & t->mask]; r; r = r->hnext)
        if (same(r, a, b))
            return r;
    return NULL;
}

static void rec_unhash(struct topo_view *t, struct topo_link_rec *r)
{
    struct topo_link_rec **pp = &t->buckets[topo_pair_hash(r->a, r->b) & t->mask];

    while (*pp && *pp != r)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = r->hnext;
}

static void rec_drop(struct topo_view *t, size_t i)
{
    struct topo_link_rec *r = t->recs[i];

    rec_unhash(t, r);
    ends_del(t, r);
    free(r);
    memmove(&t->recs[i], &t->recs[i + 1], (t->n_recs - i - 1) * sizeof(t->recs[0]));
    t->n_recs--;
}

/* Room for one more record: the oldest inactive one goes (told to
 * on_record), never a disabled one (an operator's choice, kept). evict
 * false (a record read back from the store): only room left counts. */
static bool make_room(struct topo_view *t, bool evict)
{
    if (t->n_recs < t->cfg.max_links)
        return true;
    for (size_t i = 0; evict && i < t->n_recs; i++) {
        if (t->recs[i]->active || !t->recs[i]->enabled)
            continue;
        if (t->cfg.on_record)
            t->cfg.on_record(t->cfg.on_record_arg, t->recs[i], false);
        rec_drop(t, i);
        return true;
    }
    return false;
}

int topo_view_forget(struct topo_view *t, const char *id)
{
    for (size_t i = 0; i < t->n_recs; i++)
        if (strcmp(t->recs[i]->id, id) == 0) {
            /* The link table forgets it too (telling its down, if it was
             * up), so the next frames find it anew and make a new record. */
            topo_links_forget_pair(t->links, t->recs[i]->a, t->recs[i]->b,
                                   "deleted through the API");
            rec_drop(t, i);
            return 0;
        }
    return -ENOENT;
}

static struct topo_link_rec *rec_get(struct topo_view *t, struct topo_end a, struct topo_end b,
                                     bool evict)
{
    struct topo_link_rec *r = rec_lookup(t, a, b);

    if (r || !make_room(t, evict) || !(r = calloc(1, sizeof(*r))))
        return r;
    r->a = a;
    r->b = b;
    r->enabled = true;
    topo_link_id(a, b, r->id);
    uint32_t h = topo_pair_hash(a, b) & t->mask;
    r->hnext = t->buckets[h];
    t->buckets[h] = r;
    ends_add(t, r);
    t->recs[t->n_recs++] = r;
    return r;
}

int topo_view_restore(struct topo_view *t, struct topo_end a, struct topo_end b, bool enabled)
{
    struct topo_link_rec *r = rec_get(t, a, b, false);

    if (!r)
        return -ENOSPC;
    r->enabled = enabled;
    if (!r->since_wall) {
        r->since_wall = ofcd_clock_wall_s();
        r->why = "kept over a restart";
    }
    return 0;
}

static void on_change(void *arg, const struct topo_link *l, enum topo_change c, const char *why)
{
    struct topo_view *t = arg;
    bool known = rec_lookup(t, l->a, l->b) != NULL;
    struct topo_link_rec *r = rec_get(t, l->a, l->b, true);
    char da[24], db[24];

    dpid_format(l->a.dpid, da);
    dpid_format(l->b.dpid, db);
    if (c == TOPO_LINK_LOOP) {
        t->st.loops++;
        LOG_WARN_RL(&t->rl_loop, t->now_us, "topology", "loop on switch %s: port %" PRIu32
                    " hears port %" PRIu32 " (%s)", da, l->a.port, l->b.port, why);
    } else if (c == TOPO_LINK_UP) {
        t->st.links_up++;
        LOG_INFO_RL(&t->rl_up, t->now_us, "topology", "link %s:%" PRIu32 " - %s:%" PRIu32
                    " up (%s)", da, l->a.port, db, l->b.port, why);
    } else {
        t->st.links_down++;
        LOG_WARN_RL(&t->rl_down, t->now_us, "topology", "link %s:%" PRIu32 " - %s:%" PRIu32
                    " down: %s", da, l->a.port, db, l->b.port, why);
    }
    if (!r)
        return;
    r->loop = c == TOPO_LINK_LOOP || l->loop;
    r->looping = c == TOPO_LINK_LOOP;
    r->active = c == TOPO_LINK_UP;
    r->since_us = t->now_us;
    r->since_wall = ofcd_clock_wall_s();
    r->why = why;
    if (c == TOPO_LINK_UP)
        r->ups++;
    else if (c == TOPO_LINK_DOWN)
        r->downs++;
    if (!known && t->cfg.on_record)
        t->cfg.on_record(t->cfg.on_record_arg, r, true);
    if (t->cfg.on_change)
        t->cfg.on_change(t->cfg.on_change_arg, r, c);
}

static bool live_hold(void *arg, const struct topo_link *l);

struct topo_view *topo_view_create(const struct topo_view_cfg *cfg)
{
    struct topo_view *t = calloc(1, sizeof(*t));
    uint32_t size = 64;

    if (!t)
        return NULL;
    t->cfg = *cfg;
    t->rl_loop = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    t->rl_up = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(50, 1000);
    t->rl_down = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(50, 1000);
    if (!t->cfg.max_links)
        t->cfg.max_links = 1;
    while (size < t->cfg.max_links && size < (1u << 24))
        size <<= 1;
    t->mask = size - 1;
    t->buckets = calloc(size, sizeof(*t->buckets));
    t->ends = calloc(size, sizeof(*t->ends));
    t->recs = calloc(t->cfg.max_links, sizeof(*t->recs));
    t->links = topo_links_create(t->cfg.max_links, t->cfg.link_timeout_us, on_change, t);
    if (t->links)
        topo_links_set_hold(t->links, live_hold, t);
    if (!t->cfg.lldp_max_age_us)
        t->cfg.lldp_max_age_us = TOPO_LLDP_MAX_AGE_MS_DEFAULT * 1000ull;
    /* Two sender ports per link (one each way): room for every link's. */
    t->fresh = topo_fresh_create(2 * t->cfg.max_links, t->cfg.lldp_max_age_us,
                                 t->cfg.lldp_skew_us ? t->cfg.lldp_skew_us : TOPO_LLDP_SKEW_US);
    t->live = topo_live_create(t->cfg.max_links, t->cfg.liveness_dead_us
                                                     ? t->cfg.liveness_dead_us
                                                     : t->cfg.link_timeout_us);
    if (!t->buckets || !t->ends || !t->recs || !t->links || !t->live || !t->fresh) {
        topo_view_destroy(t);
        return NULL;
    }
    return t;
}

void topo_view_destroy(struct topo_view *t)
{
    if (!t)
        return;
    topo_links_destroy(t->links);
    topo_live_destroy(t->live);
    topo_fresh_destroy(t->fresh);
    for (size_t i = 0; i < t->n_recs; i++)
        free(t->recs[i]);
    free(t->recs);
    free(t->buckets);
    free(t->ends);
    free(t);
}

static void on_seen(struct topo_view *t, uint64_t to_dpid, const uint8_t *p, size_t len,
                    uint64_t now_us)
{
    struct of_event_app a;
    struct topo_seen s;

    memcpy(&a, p, sizeof(a));
    if (a.app != t->cfg.app_index)
        return;
    if (a.len != sizeof(s) || len < sizeof(a) + sizeof(s)) {
        t->st.bad_events++;
        return;
    }
    memcpy(&s, p + sizeof(a), sizeof(s));
    t->st.seen++;
    switch (topo_fresh_check(t->fresh, (struct topo_end){s.from_dpid, s.from_port}, s.sent_us,
                             now_us)) {
    case TOPO_FRESH_OK:
        break;
    case TOPO_FRESH_REPLAY:
        t->st.replays++;
        return;
    case TOPO_FRESH_STALE:
        t->st.stale++;
        return;
    case TOPO_FRESH_FULL:
        t->st.senders_full++;
        return;
    }
    int rc = topo_links_seen(t->links, (struct topo_end){s.from_dpid, s.from_port},
                             (struct topo_end){to_dpid, s.to_port}, now_us);
    if (rc == -ENOSPC)
        t->st.table_full++;
    topo_live_hello(t->live, (struct topo_end){to_dpid, s.to_port}, now_us,
                    (int64_t)(ofcd_clock_wall_ns() / 1000u));
}

/* PORT_STATUS: a port deleted, configured down or with its link down
 * takes its link with it. */
static void on_port_status(struct topo_view *t, uint64_t dpid, const uint8_t *msg, size_t len)
{
    struct ofp_msg m;
    struct ofp_err err;

    if (len < 8 || msg[1] != OFPT_PORT_STATUS || ofp_decode(msg, len, &m, &err) < 0)
        return;
    const struct ofp_port_status *ps = &m.u.port_status;
    if (ps->reason == OFPPR_DELETE || (ps->desc.state & OFPPS_LINK_DOWN) ||
        (ps->desc.config & OFPPC_PORT_DOWN))
        topo_links_port_down(t->links, (struct topo_end){dpid, ps->desc.port_no});
}

void topo_view_handle(struct topo_view *t, const struct qmsg *q, uint64_t now_us)
{
    struct of_event_hdr h;
    const size_t hl = sizeof(h);

    if (q->len < hl)
        return;
    memcpy(&h, q->data, hl);
    t->now_us = now_us;
    switch (q->kind) {
    case QMSG_EV_APP:
        if (q->len >= hl + sizeof(struct of_event_app))
            on_seen(t, h.dpid, q->data + hl, q->len - hl, h.time_us);
        break;
    case QMSG_EV_SWITCH_DOWN:
        topo_links_switch_down(t->links, h.dpid);
        break;
    case QMSG_EV_OF:
        on_port_status(t, h.dpid, q->data + hl, q->len - hl);
        break;
    default:
        break;
    }
}

void topo_view_tick(struct topo_view *t, uint64_t now_us)
{
    t->now_us = now_us;
    topo_links_expire(t->links, now_us);
    topo_live_reap(t->live, now_us);
}

bool topo_view_mismatched(const struct topo_view *t, const struct topo_link_rec *l)
{
    const struct topo_link_rec *a = topo_view_link_of(t, l->a), *b = topo_view_link_of(t, l->b);
    return (a && a != l && a->active) || (b && b != l && b->active);
}

static bool live_hold(void *arg, const struct topo_link *l)
{
    const struct topo_view *t = arg;
    return topo_live_find(t->live, l->a) && topo_live_find(t->live, l->b);
}

int topo_view_link_liveness(const struct topo_view *t, const struct topo_link_rec *l)
{
    const struct topo_live_if *a = topo_live_find(t->live, l->a);
    const struct topo_live_if *b = topo_live_find(t->live, l->b);
    return a && b ? (int)topo_live_pair(a, b) : -1;
}

struct topo_live *topo_view_live(struct topo_view *t)
{
    return t->live;
}

void topo_view_each(const struct topo_view *t, void (*fn)(void *arg, const struct topo_link_rec *l),
                   void *arg)
{
    for (size_t i = 0; i < t->n_recs; i++)
        fn(arg, t->recs[i]);
}

const struct topo_link_rec *topo_view_link_at(const struct topo_view *t, size_t i)
{
    return i < t->n_recs ? t->recs[i] : NULL;
}

struct topo_link_rec *topo_view_find(struct topo_view *t, const char *id)
{
    for (size_t i = 0; i < t->n_recs; i++)
        if (strcmp(t->recs[i]->id, id) == 0)
            return t->recs[i];
    return NULL;
}

const struct topo_link_rec *topo_view_link_of(const struct topo_view *t, struct topo_end e)
{
    const struct topo_link_rec *found = NULL;

    for (const struct topo_end_node *n = t->ends[topo_end_hash(e) & t->mask]; n; n = n->next) {
        const struct topo_link_rec *r = n->rec;
        if (is_end(node_end(n), e) && (!found || (r->active && !found->active)))
            found = r;
    }
    return found;
}

void topo_view_get_stats(const struct topo_view *t, struct topo_view_stats *out)
{
    *out = t->st;
    out->links = t->n_recs;
    out->links_active = 0;
    for (size_t i = 0; i < t->n_recs; i++)
        out->links_active += t->recs[i]->active;
}
