/* fm: see fm.h. The mirror, the send queues and the batches, the
 * workers' events, and what the consistency check is lent (fm_check.h). */
#include "fm_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "fm_pack.h"
#include "of_event.h"
#include "ofcd_log.h"
#include "ofp_msg.h"
#include "store.h"

OFCD_COUNTER_GROUP_HEAD(fm_counters, "flow_manager", struct fm_stats, flows_by_state,
                        FM_COUNTERS, FM_GAUGES);

#define FM_FORGET_SWEEP_US 1000000u      /* look for switches to forget this often */
#define FM_BATCH_MAX 4096u          /* FLOW_MODs per barrier */
#define FM_WIRE_SMALL FM_FLOW_WIRE_SMALL /* a FLOW_MOD's bytes on the stack: nearly all fit */

uint64_t fm_now_us(const struct fm *fm)
{
    return fm->env.now_us(fm->env.arg);
}

/* Sending order of two control-thread xids: serial-number arithmetic
 * (RFC 1982) over their 31-bit space, so a batch or a barrier that spans
 * the wrap from 0xffffffff to 0x80000001 still compares in the order sent.
 * < 0 when a went out before b, 0 when equal, > 0 after. */
static int fm_xid_cmp(uint32_t a, uint32_t b)
{
    uint32_t d = (a - b) & ~OFP_XID_CONTROL;

    return d == 0 ? 0 : d < (1u << 30) ? 1 : -1;
}

static size_t sw_bucket(uint64_t dpid)
{
    return (size_t)((dpid * 0x9e3779b97f4a7c15ull) >> 52) & (FM_SW_BUCKETS - 1);
}

struct fm_switch *fm_switch_find(struct fm *fm, uint64_t dpid)
{
    for (struct fm_switch *s = fm->sw_buckets[sw_bucket(dpid)]; s; s = s->hnext)
        if (s->dpid == dpid)
            return s;
    return NULL;
}

struct fm_switch *fm_switch_get(struct fm *fm, uint64_t dpid)
{
    struct fm_switch *s = fm_switch_find(fm, dpid);
    if (s)
        return s;
    s = calloc(1, sizeof(*s));
    if (!s || !(s->buckets = calloc(64, sizeof(*s->buckets)))) {
        free(s);
        LOG_ERR("flows", "switch %016" PRIx64 ": out of memory", dpid);
        return NULL;
    }
    s->n_buckets = 64;
    s->dpid = dpid;
    s->n_owners = 1;                /* owner 0: flows that name none */
    s->hnext = fm->sw_buckets[sw_bucket(dpid)];
    fm->sw_buckets[sw_bucket(dpid)] = s;
    return s;
}

/* ---- mirror ----------------------------------------------------------------- */

static size_t bucket_of(uint64_t match_id, size_t n_buckets)
{
    return (size_t)(match_id ^ (match_id >> 29)) & (n_buckets - 1);
}

static size_t flow_bucket(const struct fm_switch *sw, uint64_t match_id)
{
    return bucket_of(match_id, sw->n_buckets);
}

static struct fm_entry *fm_entry_find(const struct fm_switch *sw, uint64_t match_id)
{
    for (struct fm_entry *f = sw->buckets[flow_bucket(sw, match_id)]; f; f = f->hnext)
        if (f->match_id == match_id)
            return f;
    return NULL;
}

static void mirror_grow(struct fm_switch *sw)
{
    size_t nb = sw->n_buckets * 2;
    struct fm_entry **b = calloc(nb, sizeof(*b));
    if (!b)
        return;                     /* longer chains, still correct */
    for (size_t i = 0; i < sw->n_buckets; i++)
        while (sw->buckets[i]) {
            struct fm_entry *f = sw->buckets[i];
            sw->buckets[i] = f->hnext;
            size_t k = bucket_of(f->match_id, nb);
            f->hnext = b[k];
            b[k] = f;
        }
    free(sw->buckets);
    sw->buckets = b;
    sw->n_buckets = nb;
}

static void count_state(struct fm *fm, uint8_t state, int delta)
{
    if (state < 3)
        fm->stats.flows_by_state[state] += (uint64_t)(int64_t)delta;
}

/* What an entry takes in the slab (its wire bytes packed or whole). */
static size_t entry_size(const struct fm_entry *f)
{
    return sizeof(*f) + (f->packed ? f->len - FM_PACK_SAVED : f->len);
}

/* f's ADD FLOW_MOD: its wire bytes in place, or unpacked into buf (which
 * holds FM_WIRE_SMALL bytes), or into *big (malloc'd, the caller frees
 * it); NULL when out of memory. */
static const uint8_t *entry_wire(const struct fm_entry *f, uint8_t *buf, uint8_t **big)
{
    *big = NULL;
    if (!f->packed)
        return f->wire;
    if (f->len > FM_WIRE_SMALL && !(buf = *big = malloc(f->len)))
        return NULL;
    fm_unpack(f->wire, f->len, buf);
    return buf;
}

/* Insert or replace; the old entry (if any) is freed. */
static struct fm_entry *mirror_put(struct fm *fm, struct fm_switch *sw, uint64_t match_id,
                                  uint64_t flow_id, uint8_t state, unsigned owner,
                                  const uint8_t *wire, size_t len)
{
    size_t packed = fm_pack_size(wire, len);
    struct fm_entry *f = fm_slab_alloc(&fm->slab, sizeof(*f) + (packed ? packed : len));
    if (!f)
        return NULL;
    f->match_id = match_id;
    f->flow_id = flow_id;
    f->added_ns = 0;
    f->sent_us = 0;
    f->inflight = 0;
    f->state = state;
    f->owner = (uint8_t)owner;
    f->len = (uint16_t)len;
    f->packed = packed != 0;
    if (packed)
        fm_pack(wire, len, f->wire);
    else
        memcpy(f->wire, wire, len);
    struct fm_entry **pp = &sw->buckets[flow_bucket(sw, match_id)];
    for (; *pp; pp = &(*pp)->hnext)
        if ((*pp)->match_id == match_id) {
            struct fm_entry *old = *pp;
            if (old->flow_id == flow_id) {
                /* The same version again: what is in flight is still its own. */
                f->sent_us = old->sent_us;
                f->inflight = old->inflight;
            }
            f->hnext = old->hnext;
            count_state(fm, old->state, -1);
            *pp = f;
            fm_slab_free(&fm->slab, old, entry_size(old));
            count_state(fm, state, 1);
            return f;
        }
    f->hnext = sw->buckets[flow_bucket(sw, match_id)];
    sw->buckets[flow_bucket(sw, match_id)] = f;
    sw->n_flows++;
    count_state(fm, state, 1);
    if (sw->n_flows > sw->n_buckets)
        mirror_grow(sw);
    return f;
}

/* true when the mirror held that version of the flow. */
static bool mirror_del(struct fm *fm, struct fm_switch *sw, uint64_t match_id,
                       uint64_t flow_id)
{
    for (struct fm_entry **pp = &sw->buckets[flow_bucket(sw, match_id)]; *pp;
         pp = &(*pp)->hnext) {
        struct fm_entry *f = *pp;
        if (f->match_id != match_id)
            continue;
        if (f->flow_id != flow_id)
            return false;
        *pp = f->hnext;
        count_state(fm, f->state, -1);
        sw->n_flows--;
        fm_slab_free(&fm->slab, f, entry_size(f));
        return true;
    }
    return false;
}

static void fm_set_state(struct fm *fm, struct fm_switch *sw, struct fm_entry *f,
                         uint8_t state, uint16_t err_type, uint16_t err_code)
{
    int rc = store_set_state(fm->store, sw->dpid, f->match_id, f->flow_id,
                             (enum store_flow_state)state, err_type, err_code);
    if (rc < 0) {
        if (fm->stats.state_update_failed++ == 0)
            LOG_ERR("flows", "switch %016" PRIx64 ": cannot record a flow's state in the "
                    "store: %s (the check will retry)", sw->dpid, strerror(-rc));
        return;
    }
    count_state(fm, f->state, -1);
    f->state = state;
    count_state(fm, state, 1);
}

/* ---- encoding ---------------------------------------------------------------- */

/* The same in a malloc'd buffer of *len bytes; NULL when out of memory or it
 * cannot be encoded. */
static uint8_t *fm_encode_flow_mod(const struct ofp_flow_mod *fmod, size_t *len)
{
    uint8_t small[FM_WIRE_SMALL];
    uint8_t *big = NULL, *out;
    const uint8_t *from = small;

    /* Nearly every flow fits the stack buffer; only long action lists
     * need the 64 KiB an OpenFlow message may take. */
    int rc = fm_flow_mod_encode(fmod, small, sizeof(small), len);
    if (rc == -ENOSPC) {
        if (!(big = malloc(QMSG_LARGE_DATA)))
            return NULL;
        rc = fm_flow_mod_encode(fmod, big, QMSG_LARGE_DATA, len);
        from = big;
    }
    out = rc == 0 ? malloc(*len) : NULL;
    if (out)
        memcpy(out, from, *len);
    free(big);
    return out;
}

static unsigned owner_index(struct fm_switch *sw, const char *name)
{
    for (unsigned i = 0; i < sw->n_owners; i++)
        if (strcmp(sw->owners[i].name, name) == 0)
            return i;
    if (sw->n_owners == FM_MAX_OWNERS)
        return FM_MAX_OWNERS - 1;   /* beyond that many, the last owners share a queue */
    unsigned i = sw->n_owners++;
    snprintf(sw->owners[i].name, sizeof(sw->owners[i].name), "%s", name);
    return i;
}

/* ---- sending ------------------------------------------------------------------ */

/* Queue a FLOW_MOD (wire bytes, any xid) for sw under owner index o; an
 * ADD counts as in flight for its mirrored flow until answered. */
static int fm_queue(struct fm *fm, struct fm_switch *sw, unsigned o, bool is_add,
                    uint64_t match_id, uint64_t flow_id, const uint8_t *wire, size_t len)
{
    struct fm_item *it = malloc(sizeof(*it) + len);
    if (!it)
        return -ENOMEM;
    it->next = NULL;
    it->match_id = match_id;
    it->flow_id = flow_id;
    it->is_add = is_add;
    it->len = (uint16_t)len;
    memcpy(it->wire, wire, len);
    struct fm_owner *ow = &sw->owners[o];
    if (ow->tail)
        ow->tail->next = it;
    else
        ow->head = it;
    ow->tail = it;
    sw->queued++;
    if (is_add) {
        struct fm_entry *f = fm_entry_find(sw, match_id);
        if (f && f->flow_id == flow_id)
            f->inflight++;
    }
    fm->stats.queued++;
    return 0;
}

/* The next control-thread xid of sw (top bit set). */
uint32_t fm_next_xid(struct fm_switch *sw)
{
    sw->next_xid = (sw->next_xid + 1) & ~OFP_XID_CONTROL;
    if (sw->next_xid == 0)
        sw->next_xid = 1;
    return sw->next_xid | OFP_XID_CONTROL;
}

/* One message (wire bytes, xid patched in) to sw's io lcore msg_out in
 * class cls; 0 or -ENOBUFS (ring full or no buffer: nothing sent). */
int fm_send_wire(struct fm *fm, struct fm_switch *sw, const uint8_t *wire, size_t len,
                 uint32_t xid, uint8_t cls)
{
    uint8_t small[2048];
    uint8_t *msg = len <= sizeof(small) ? small : malloc(len);

    if (!msg)
        return -ENOBUFS;
    memcpy(msg, wire, len);
    msg[4] = (uint8_t)(xid >> 24);
    msg[5] = (uint8_t)(xid >> 16);
    msg[6] = (uint8_t)(xid >> 8);
    msg[7] = (uint8_t)xid;
    int rc = fm->env.send(fm->env.arg, sw->conn, msg, len, cls);
    if (msg != small)
        free(msg);
    return rc;
}

static const uint8_t barrier_wire[8] = {OFP13_VERSION, OFPT_BARRIER_REQUEST, 0, 8};

/* The owner's pacing budget at now_us (token bucket, flow_manager.pacing_per_s
 * per owner per switch): may one more FLOW_MOD go? */
static bool owner_may_send(struct fm *fm, struct fm_owner *ow, uint64_t now_us)
{
    const uint32_t rate = fm->cfg.pacing_per_s;

    if (!rate)
        return true;
    /* A tenth of a second's worth at once, at least one. */
    if (!ofcd_tbucket_ready(&ow->pace, now_us, rate, rate >= 10 ? rate / 10.0 : 1.0)) {
        fm->stats.paced++;
        return false;
    }
    return true;
}

/* Send the owner's first queued FLOW_MOD into batch. 0, or -ENOBUFS when the
 * way to the switch is full (nothing sent). */
static int send_head(struct fm *fm, struct fm_switch *sw, struct fm_owner *ow,
                     struct fm_batch *batch, uint64_t now_us)
{
    struct fm_item *it = ow->head;
    uint32_t xid = fm_next_xid(sw);

    if (fm_send_wire(fm, sw, it->wire, it->len, xid, OFP_PRIO_P3) < 0) {
        fm->stats.ring_full++;
        return -ENOBUFS;
    }
    if (fm->cfg.pacing_per_s)
        ofcd_tbucket_spend(&ow->pace);
    ow->head = it->next;
    if (!ow->head)
        ow->tail = NULL;
    sw->queued--;
    fm->stats.queued--;
    fm->stats.flow_mods_sent++;
    batch->sent[batch->n++] = (struct fm_sent){.xid = xid, .is_add = it->is_add,
                                               .match_id = it->match_id,
                                               .flow_id = it->flow_id};
    if (it->is_add) {
        struct fm_entry *f = fm_entry_find(sw, it->match_id);
        if (f && f->flow_id == it->flow_id)
            f->sent_us = now_us;
    }
    free(it);
    return 0;
}

/* Close a batch with its barrier and put it in flight. */
void fm_send_barrier(struct fm *fm, struct fm_switch *sw, struct fm_batch *batch)
{
    batch->next = NULL;
    batch->barrier_xid = fm_next_xid(sw);
    /* The slot was reserved, but another producer may have taken it: then
     * the next batch's barrier answers for this one too (a barrier reply
     * covers every FLOW_MOD sent before it). */
    if (fm_send_wire(fm, sw, barrier_wire, sizeof(barrier_wire), batch->barrier_xid,
                     OFP_PRIO_P3) == 0)
        fm->stats.barriers_sent++;
    else
        fm->stats.ring_full++;
    if (sw->btail)
        sw->btail->next = batch;
    else
        sw->bhead = batch;
    sw->btail = batch;
}

/* In a cluster, only the switch's confirmed master writes to it. */
bool fm_may_write(struct fm *fm, const struct fm_switch *sw)
{
    return !fm->env.may_write || fm->env.may_write(fm->env.arg, sw->dpid);
}

/* Send what may go now on sw. */
static void fm_pump(struct fm *fm, struct fm_switch *sw, uint64_t now_us)
{
    if (!sw->up || (!sw->queued && !sw->gm_queued) || !fm_may_write(fm, sw))
        return;
    size_t room = fm->env.room(fm->env.arg, sw->conn, OFP_PRIO_P3);
    /* Groups and meters first, in a batch of their own: a flow that names
     * one goes after its barrier. */
    if (sw->gm_queued)
        fm_gm_pump(fm, sw, &room);
    if (!sw->queued || sw->gm_queued)
        return;                       /* no flow before the groups and meters it may name */
    if (room < 2) {
        fm->stats.ring_full++;
        return;
    }
    room--;                           /* the barrier's slot */
    size_t cap = room < FM_BATCH_MAX ? room : FM_BATCH_MAX;
    if (cap > sw->queued)
        cap = sw->queued;
    struct fm_batch *batch = malloc(sizeof(*batch) + cap * sizeof(batch->sent[0]));
    if (!batch)
        return;                       /* retried on the next tick */
    batch->n = 0;
    /* Round robin over the owners, one FLOW_MOD each per round, until the
     * batch is full, nobody may send, or the way is full. */
    bool progress = true, full = false;
    while (progress && !full && batch->n < cap) {
        progress = false;
        for (unsigned k = 0; k < sw->n_owners && !full && batch->n < cap; k++) {
            struct fm_owner *ow = &sw->owners[(sw->rr + k) % sw->n_owners];
            if (!ow->head || !owner_may_send(fm, ow, now_us))
                continue;
            full = send_head(fm, sw, ow, batch, now_us) < 0;
            progress = !full;
        }
    }
    sw->rr++;
    if (batch->n == 0)
        free(batch);
    else
        fm_send_barrier(fm, sw, batch);
}

void fm_pump_now(struct fm *fm, struct fm_switch *sw)
{
    fm_pump(fm, sw, fm_now_us(fm));
}

/* An ADD of this version will not be answered any more. */
static void add_settled(struct fm_switch *sw, uint64_t match_id, uint64_t flow_id)
{
    struct fm_entry *f = fm_entry_find(sw, match_id);
    if (f && f->flow_id == flow_id && f->inflight)
        f->inflight--;
}

/* Forget what was queued or in flight on a connection that is gone. */
static void switch_reset(struct fm *fm, struct fm_switch *sw)
{
    for (unsigned o = 0; o < sw->n_owners; o++) {
        struct fm_owner *ow = &sw->owners[o];
        while (ow->head) {
            struct fm_item *it = ow->head;
            ow->head = it->next;
            if (it->is_add)
                add_settled(sw, it->match_id, it->flow_id);
            free(it);
            fm->stats.dropped_on_down++;
        }
        ow->tail = NULL;
    }
    fm->stats.queued -= sw->queued;
    sw->queued = 0;
    while (sw->bhead) {
        struct fm_batch *b = sw->bhead;
        sw->bhead = b->next;
        for (uint32_t i = 0; i < b->n; i++)
            if (b->sent[i].is_add && !b->sent[i].kind)
                add_settled(sw, b->sent[i].match_id, b->sent[i].flow_id);
        fm->stats.dropped_on_down += b->n;
        free(b);
    }
    sw->btail = NULL;
    fm_gm_switch_reset(fm, sw);
    fm_snap_drop_partial(&sw->snap, &fm->stats.snapshot_bytes);
    sw->stats_xid = 0;              /* its reply cannot come on another connection */
}

/* ---- events ------------------------------------------------------------------- */

/* Hand ev (borrowed) to env.event, if any. */
static void fm_publish(struct fm *fm, const struct fm_event *ev)
{
    if (fm->env.event)
        fm->env.event(fm->env.arg, ev);
}

static void on_barrier_reply(struct fm *fm, struct fm_switch *sw, uint32_t xid)
{
    struct fm_batch *b;
    bool found = false;
    uint64_t installed = 0;

    for (b = sw->bhead; b; b = b->next)
        if (b->barrier_xid == xid)
            found = true;
    if (!found)
        return;                        /* not ours (or a connection ago) */
    fm->stats.barrier_replies++;
    /* Barriers are answered in order, and a reply covers every earlier batch
     * (one whose own barrier did not fit in the ring included): those whose
     * barrier went out no later than this one, in xid serial order. */
    while ((b = sw->bhead) && fm_xid_cmp(b->barrier_xid, xid) <= 0) {
        sw->bhead = b->next;
        if (!sw->bhead)
            sw->btail = NULL;
        for (uint32_t i = 0; i < b->n; i++) {
            const struct fm_sent *s = &b->sent[i];
            if (s->kind) {
                fm_gm_confirmed(fm, sw, s);
                continue;
            }
            if (!s->is_add)
                continue;
            struct fm_entry *f = fm_entry_find(sw, s->match_id);
            if (!f || f->flow_id != s->flow_id)
                continue;                  /* deleted or replaced meanwhile */
            if (f->inflight)
                f->inflight--;
            if (!s->failed)
                fm->stats.confirmed++;
            if (!s->failed && f->state != STORE_FLOW_INSTALLED) {
                fm_set_state(fm, sw, f, STORE_FLOW_INSTALLED, 0, 0);
                fm->stats.installed++;
                installed++;
            }
        }
        free(b);
    }
    if (installed)
        fm_publish(fm, &(struct fm_event){.kind = FM_EV_INSTALLED, .dpid = sw->dpid,
                                             .u.installed = {.count = installed}});
}

static void on_error(struct fm *fm, struct fm_switch *sw, uint32_t xid,
                     const struct ofp_error *e)
{
    char what[96];

    if (!ofp_xid_is_control(xid))
        return;                        /* the worker's request: it logged it */
    ofp_err_format(OFP_ERR(e->type, e->code), what, sizeof(what));
    for (struct fm_batch *b = sw->bhead; b; b = b->next) {
        /* In serial order: a batch may span the xid wrap. */
        if (b->n == 0 || fm_xid_cmp(xid, b->sent[0].xid) < 0 ||
            fm_xid_cmp(xid, b->sent[b->n - 1].xid) > 0)
            continue;
        for (uint32_t i = 0; i < b->n; i++) {
            struct fm_sent *s = &b->sent[i];
            if (s->xid != xid)
                continue;
            if (s->failed)
                return;                /* said once: a switch repeating it changes nothing */
            s->failed = true;
            if (s->kind) {
                fm_gm_rejected(fm, sw, s, e->type, e->code, what);
                return;
            }
            fm->stats.errors++;
            struct fm_entry *f = s->is_add ? fm_entry_find(sw, s->match_id) : NULL;
            if (f && f->flow_id == s->flow_id) {
                LOG_WARN_RL(&fm->rl_log.rejected, fm_now_us(fm), "flows", "switch %016" PRIx64
                            " rejected flow %016" PRIx64 ": %s", sw->dpid, s->match_id, what);
                fm_set_state(fm, sw, f, STORE_FLOW_ERROR, e->type, e->code);
                fm_publish(fm, &(struct fm_event){
                                 .kind = FM_EV_ERROR, .dpid = sw->dpid,
                                 .u.error = {.match_id = s->match_id, .type = e->type,
                                             .code = e->code, .reason = what}});
            } else {
                LOG_WARN_RL(&fm->rl_log.rejected_other, fm_now_us(fm), "flows", "switch %016"
                            PRIx64 " rejected a %s FLOW_MOD: %s", sw->dpid,
                            s->is_add ? "superseded ADD" : "DELETE", what);
            }
            return;
        }
    }
    /* A barrier, a statistics request, or a batch of a connection ago. */
    LOG_WARN_RL(&fm->rl_log.stray_error, fm_now_us(fm), "flows", "switch %016" PRIx64 " sent "
                "an error for the flow manager's xid %#x (no FLOW_MOD in flight has it): %s",
                sw->dpid, xid, what);
}

/* The switch removed a flow (a timeout, a DELETE, a group or meter going)
 * and said so: only published; the store keeps what it holds (a stored flow
 * gone from the switch is the consistency check's business). */
static void on_flow_removed(struct fm *fm, struct fm_switch *sw,
                            const struct ofp_flow_removed *fr)
{
    if (!fm->env.event)
        return;
    uint64_t id = fm_match_id(sw->dpid, fr->table_id, fr->priority, &fr->match);
    fm_publish(fm, &(struct fm_event){
                     .kind = FM_EV_REMOVED, .dpid = sw->dpid,
                     .u.removed = {.match_id = id, .stored = fm_entry_find(sw, id) != NULL,
                                   .cookie = fr->cookie, .table_id = fr->table_id,
                                   .priority = fr->priority, .reason = fr->reason,
                                   .duration_s = fr->duration_sec,
                                   .packet_count = fr->packet_count,
                                   .byte_count = fr->byte_count}});
}

/* ---- flow statistics and the consistency check ---------------------------------- */

/* Ask sw for its flows; the xid becomes sw->stats_xid. */
static int request_flow_stats(struct fm *fm, struct fm_switch *sw)
{
    struct ofp_msg m;
    struct ofp_buf b;
    uint8_t buf[128];

    memset(&m, 0, sizeof(m));
    m.hdr.version = OFP13_VERSION;
    m.hdr.type = OFPT_MULTIPART_REQUEST;
    m.u.mp_request.type = OFPMP_FLOW;
    m.u.mp_request.u.flow.table_id = OFPTT_ALL;
    m.u.mp_request.u.flow.out_port = OFPP_ANY;
    m.u.mp_request.u.flow.out_group = OFPG_ANY;
    ofp_match_init(&m.u.mp_request.u.flow.match);
    ofp_buf_init(&b, buf, sizeof(buf));
    int rc = ofp_encode(&b, &m);
    if (rc < 0)
        return rc;
    /* Not through fm_queue, which would pace it behind FLOW_MODs: it goes
     * straight out, in the statistics class it belongs to. */
    uint32_t xid = fm_next_xid(sw);
    rc = fm_send_wire(fm, sw, b.data, b.len, xid, OFP_PRIO_P1);
    if (rc == 0)
        sw->stats_xid = xid;
    return rc;
}

/* What the consistency check is lent of one switch (fm_check.h's view). */
struct fm_view_sw {
    struct fm *fm;
    struct fm_switch *sw;
};

static void view_flow(const struct fm_entry *f, struct fm_view_flow *out)
{
    *out = (struct fm_view_flow){.match_id = f->match_id, .flow_id = f->flow_id,
                                 .state = f->state, .inflight = f->inflight != 0,
                                 .sent_us = f->sent_us};
}

static bool view_next(void *arg, struct fm_view_pos *pos, struct fm_view_flow *out)
{
    const struct fm_view_sw *v = arg;
    const struct fm_entry *f = pos->next;

    while (!f && pos->bucket < v->sw->n_buckets)
        f = v->sw->buckets[pos->bucket++];
    if (!f)
        return false;
    pos->next = f->hnext;
    view_flow(f, out);
    return true;
}

static bool view_find(void *arg, uint64_t match_id, struct fm_view_flow *out)
{
    const struct fm_view_sw *v = arg;
    const struct fm_entry *f = fm_entry_find(v->sw, match_id);

    if (f)
        view_flow(f, out);
    return f != NULL;
}

static int view_readd(void *arg, uint64_t match_id)
{
    const struct fm_view_sw *v = arg;
    struct fm_entry *f = fm_entry_find(v->sw, match_id);

    if (!f)
        return -ENOENT;
    uint8_t small[FM_WIRE_SMALL], *big;
    const uint8_t *wire = entry_wire(f, small, &big);
    int rc = wire ? fm_queue(v->fm, v->sw, f->owner, true, f->match_id, f->flow_id, wire, f->len)
                  : -ENOMEM;
    free(big);
    return rc;
}

static int view_delete_strict(void *arg, uint8_t table_id, uint16_t priority,
                              const struct ofp_match *match)
{
    const struct fm_view_sw *v = arg;
    struct ofp_flow_mod del = {
        .command = OFPFC_DELETE_STRICT,
        .table_id = table_id,
        .priority = priority,
        .buffer_id = OFP_NO_BUFFER,
        .out_port = OFPP_ANY,
        .out_group = OFPG_ANY,
        .match = *match,
    };
    size_t len;
    uint8_t *wire = fm_encode_flow_mod(&del, &len);
    int rc = wire ? fm_queue(v->fm, v->sw, 0, false, 0, 0, wire, len) : -ENOMEM;

    free(wire);
    return rc;
}

static void view_installed(void *arg, uint64_t match_id)
{
    const struct fm_view_sw *v = arg;
    struct fm_entry *f = fm_entry_find(v->sw, match_id);

    if (f)
        fm_set_state(v->fm, v->sw, f, STORE_FLOW_INSTALLED, 0, 0);
}

static const struct fm_view_ops view_ops = {
    .next = view_next,
    .find = view_find,
    .readd = view_readd,
    .delete_strict = view_delete_strict,
    .installed = view_installed,
};

/* The check over sw's snapshot; what it did is counted, logged and
 * published here. */
static void run_check(struct fm *fm, struct fm_switch *sw, bool connect, uint64_t now)
{
    struct fm_view_sw vs = {fm, sw};
    const struct fm_view v = {&view_ops, &vs};
    struct fm_check_in in = {.dpid = sw->dpid, .cfg = &fm->cfg, .snap = &sw->snap,
                             .connect = connect, .up_us = sw->up_us, .now = now};
    struct fm_check_result r;
    int rc = fm_check_run(&v, &in, &fm->check_log, &r);

    fm->stats.alien_deleted += r.aliens;
    fm->stats.missing_reinstalled += r.missing;
    fm->stats.changed_reinstalled += r.changed;
    fm->stats.pending_confirmed += r.confirmed;
    if (rc == 0) {
        fm->stats.checks++;
        if (r.aliens || r.missing || r.confirmed || r.changed)
            LOG_INFO_RL(&fm->rl_log.check, now, "flows", "switch %016" PRIx64 ": consistency "
                        "check%s: %zu flows on the switch, %zu stored; %lu alien deleted, %lu "
                        "missing re-installed, %lu changed re-installed, %lu pending confirmed",
                        sw->dpid, connect ? " after connect" : "", r.on_switch, sw->n_flows,
                        (unsigned long)r.aliens, (unsigned long)r.missing,
                        (unsigned long)r.changed, (unsigned long)r.confirmed);
        if (r.aliens || r.missing || r.changed)
            fm_publish(fm, &(struct fm_event){
                             .kind = FM_EV_CONSISTENCY, .dpid = sw->dpid,
                             .u.consistency = {.after_connect = connect,
                                               .aliens_deleted = r.aliens,
                                               .missing_reinstalled = r.missing,
                                               .changed_reinstalled = r.changed}});
        fm_pump(fm, sw, now);
        fm_gm_check_request(fm, sw);
    }
    sw->last_check_us = now;
}

/* One FLOW statistics part of sw: kept only when it answers the request
 * outstanding (control xid) or a worker's poll (the worker forwards only
 * its own), within the reply's bounds and the budget of all snapshots
 * (fm_snap.h); a complete reply gets the check that is due. */
static void on_flow_stats(struct fm *fm, struct fm_switch *sw, const uint8_t *msg,
                          size_t len, uint32_t xid, bool more)
{
    const struct fm_snap_bounds bounds = {.max_bytes = fm->cfg.snap_max_bytes,
                                          .max_parts = fm->cfg.snap_max_parts,
                                          .budget_bytes = fm->cfg.snap_budget_bytes};
    uint64_t now = fm_now_us(fm);

    /* The worker forwards every control-thread xid (it cannot know which
     * one the flow manager asked for): the only one that is ours is the
     * request outstanding on this connection. Anything else is a switch's
     * own invention and is never kept, nor checked against the store. */
    if (ofp_xid_is_control(xid) && xid != sw->stats_xid) {
        fm->stats.snapshot_unsolicited++;
        LOG_WARN_RL(&fm->rl_log.snap_unsolicited, now, "flows", "switch %016" PRIx64 ": "
                    "flow statistics with xid %#x, which ofcd did not ask for: dropped",
                    sw->dpid, xid);
        return;
    }
    int rc = fm_snap_add(&sw->snap, &bounds, &fm->stats.snapshot_bytes, msg, len, xid, more);
    if (rc == -EMSGSIZE) {
        fm->stats.snapshot_oversized++;
        LOG_WARN_RL(&fm->rl_log.snap_oversized, now, "flows", "switch %016" PRIx64 ": flow "
                    "statistics reply over openflow.mp_max_kb/mp_max_parts (%zu parts, %lu "
                    "bytes): dropped, no consistency verdict from it", sw->dpid, sw->snap.n_acc,
                    (unsigned long)(sw->snap.acc_bytes + len));
    } else if (rc == -ENOSPC) {
        fm->stats.snapshot_over_budget++;
        LOG_WARN_RL(&fm->rl_log.snap_budget, now, "flows", "switch %016" PRIx64 ": flow "
                    "statistics reply abandoned: all switches' snapshots would take more "
                    "than flow_manager.snapshot_budget_mb (%lu of %lu bytes held); no "
                    "consistency verdict from it", sw->dpid,
                    (unsigned long)fm->stats.snapshot_bytes,
                    (unsigned long)fm->cfg.snap_budget_bytes);
    }
    if (rc < 0) {
        /* Never kept (nor a verdict from a reply with a part missing): the
         * rest of this reply is ignored (its xid stays the dropped one's
         * until the next reply). */
        fm_snap_abandon(&sw->snap, &fm->stats.snapshot_bytes, xid);
        if (xid == sw->stats_xid)
            sw->stats_xid = 0;      /* abandoned: no part of it is wanted any more */
        return;
    }
    if (rc == 0)
        return;
    if (xid == sw->stats_xid)
        sw->stats_xid = 0;          /* answered: that xid is not ours any more */
    /* Installing what is stored on a switch that (re)connects is part of
     * keeping the store's promise, so it happens even with the check off;
     * deleting aliens and the periodic rounds need flow_manager.consistency. */
    /* In a cluster only the master checks; the check after a connect
     * waits for the first reply once this node is the master. */
    if (!fm_may_write(fm, sw))
        return;
    if (sw->check_connect) {
        sw->check_connect = false;
        run_check(fm, sw, true, now);
    } else if (fm->cfg.consistency && now - sw->last_check_us >= fm->cfg.window_us) {
        run_check(fm, sw, false, now);
    }
}

static void on_switch_up(struct fm *fm, struct fm_switch *sw, conn_handle_t conn)
{
    switch_reset(fm, sw);
    sw->up = true;
    sw->let_go = false;
    sw->seen = true;
    sw->conn = conn;
    sw->up_us = fm_now_us(fm);
    sw->check_connect = true;
    fm_gm_switch_up(fm, sw);
    fm_pump(fm, sw, sw->up_us);
    if (request_flow_stats(fm, sw) < 0)
        LOG_WARN("flows", "switch %016" PRIx64 ": cannot ask for its flows now; the check "
                 "waits for the periodic statistics", sw->dpid);
}

void fm_on_event(struct fm *fm, const struct qmsg *q)
{
    struct of_event_hdr h;

    if (q->len < sizeof(h))
        return;
    memcpy(&h, q->data, sizeof(h));
    pthread_mutex_lock(&fm->lock);
    struct fm_switch *sw = q->kind == QMSG_EV_SWITCH_UP ? fm_switch_get(fm, h.dpid)
                                                        : fm_switch_find(fm, h.dpid);
    if (!sw)
        goto out;
    if (q->kind == QMSG_EV_SWITCH_UP) {
        on_switch_up(fm, sw, q->conn);
    } else if (q->kind == QMSG_EV_SWITCH_DOWN) {
        if (sw->up && sw->conn == q->conn) {
            sw->up = false;
            sw->down_us = fm_now_us(fm);
            switch_reset(fm, sw);
        }
    } else if (q->kind == QMSG_EV_OF && sw->up && q->conn == sw->conn) {
        const uint8_t *msg = q->data + sizeof(h);
        size_t len = q->len - sizeof(h);
        struct ofp_msg m;
        struct ofp_err err;
        if (len < 8)
            goto out;
        uint8_t type = msg[1];
        if (type == OFPT_MULTIPART_REPLY) {
            /* Entries are decoded when used; only the framing is read here. */
            uint16_t mp_type = len >= 16 ? (uint16_t)(msg[8] << 8 | msg[9]) : 0xffff;
            if (mp_type == OFPMP_FLOW)
                on_flow_stats(fm, sw, msg, len,
                             (uint32_t)msg[4] << 24 | (uint32_t)msg[5] << 16 |
                             (uint32_t)msg[6] << 8 | msg[7],
                             (msg[10] << 8 | msg[11]) & OFPMPF_REPLY_MORE);
            else if (mp_type == OFPMP_GROUP_DESC || mp_type == OFPMP_METER_CONFIG) {
                fm_gm_check_reply(fm, sw, msg, len);
                fm_pump(fm, sw, fm_now_us(fm));
            }
        } else if ((type == OFPT_BARRIER_REPLY || type == OFPT_ERROR ||
                    type == OFPT_FLOW_REMOVED) &&
                   ofp_decode(msg, len, &m, &err) == 0) {
            if (type == OFPT_BARRIER_REPLY)
                on_barrier_reply(fm, sw, m.hdr.xid);
            else if (type == OFPT_ERROR)
                on_error(fm, sw, m.hdr.xid, &m.u.error);
            else
                on_flow_removed(fm, sw, &m.u.flow_removed);
        }
    }
out:
    pthread_mutex_unlock(&fm->lock);
}

static void switch_free(struct fm *fm, struct fm_switch *sw)
{
    switch_reset(fm, sw);
    for (size_t i = 0; i < sw->n_buckets; i++)
        while (sw->buckets[i]) {
            struct fm_entry *f = sw->buckets[i];
            sw->buckets[i] = f->hnext;
            fm_slab_free(&fm->slab, f, entry_size(f));
        }
    free(sw->buckets);
    fm_gm_switch_free(sw);
    fm_snap_clear(&sw->snap, &fm->stats.snapshot_bytes);
    free(sw);
}

/* A switch that is gone and holds no stored flow is forgotten after
 * forget_after_us: a peer cycling through made-up dpids cannot grow the
 * table. One that has stored flows stays (they are installed when it
 * comes back). */
static void forget_gone(struct fm *fm, uint64_t now)
{
    for (size_t b = 0; b < FM_SW_BUCKETS; b++) {
        struct fm_switch **pp = &fm->sw_buckets[b];
        while (*pp) {
            struct fm_switch *sw = *pp;
            if (!sw->up && !sw->n_flows && !sw->gm && !sw->reserved &&
                now - sw->down_us >= fm->cfg.forget_after_us) {
                *pp = sw->hnext;
                fm->stats.switches_forgotten++;
                switch_free(fm, sw);
                continue;
            }
            pp = &sw->hnext;
        }
    }
}

void fm_tick(struct fm *fm)
{
    pthread_mutex_lock(&fm->lock);
    uint64_t now = fm_now_us(fm);
    for (size_t b = 0; b < FM_SW_BUCKETS; b++)
        for (struct fm_switch *sw = fm->sw_buckets[b]; sw; sw = sw->hnext) {
            if (sw->up && sw->gm && fm->env.may_write)
                fm_gm_mastership(fm, sw);   /* a cluster's: only where there are some */
            if (sw->up && (sw->queued || sw->gm_queued))
                fm_pump(fm, sw, now);
        }
    if (fm->cfg.forget_after_us && now - fm->last_forget_us >= FM_FORGET_SWEEP_US) {
        fm->last_forget_us = now;
        forget_gone(fm, now);
    }
    pthread_mutex_unlock(&fm->lock);
}

bool fm_has_flows(struct fm *fm, uint64_t dpid)
{
    pthread_mutex_lock(&fm->lock);
    struct fm_switch *sw = fm_switch_find(fm, dpid);
    bool has = sw && (sw->n_flows || sw->gm);
    pthread_mutex_unlock(&fm->lock);
    return has;
}

/* Under the lock: dpid's record goes when it is down, holds no stored flow
 * and no admission (fm_admit: a change on its way to the store); true when
 * it went. */
static bool forget_locked(struct fm *fm, uint64_t dpid)
{
    struct fm_switch **pp = &fm->sw_buckets[sw_bucket(dpid)];
    while (*pp && (*pp)->dpid != dpid)
        pp = &(*pp)->hnext;
    struct fm_switch *sw = *pp;
    if (!sw || sw->up || sw->n_flows || sw->gm || sw->reserved)
        return false;
    *pp = sw->hnext;
    fm->stats.switches_forgotten++;
    switch_free(fm, sw);
    return true;
}

void fm_forget(struct fm *fm, uint64_t dpid)
{
    pthread_mutex_lock(&fm->lock);
    struct fm_switch *sw = fm_switch_find(fm, dpid);
    if (sw && !forget_locked(fm, dpid) && !sw->up)
        sw->let_go = true;          /* its flows may go yet (an app's own) */
    pthread_mutex_unlock(&fm->lock);
}

/* ---- REST side ------------------------------------------------------------------ */

enum fm_sw_state fm_state(struct fm *fm, uint64_t dpid)
{
    enum fm_sw_state st = FM_SW_UNKNOWN;

    pthread_mutex_lock(&fm->lock);
    struct fm_switch *sw = fm_switch_find(fm, dpid);
    if (sw && sw->up)
        st = FM_SW_UP;
    else if (sw && (sw->seen || sw->n_flows || sw->gm))
        st = FM_SW_DOWN;
    pthread_mutex_unlock(&fm->lock);
    return st;
}

int fm_switches(struct fm *fm, bool up_only, uint64_t **out)
{
    size_t n = 0, cap = 64;
    uint64_t *v = malloc(cap * sizeof(*v));

    if (!v)
        return -ENOMEM;
    pthread_mutex_lock(&fm->lock);
    for (size_t b = 0; b < FM_SW_BUCKETS; b++)
        for (struct fm_switch *sw = fm->sw_buckets[b]; sw; sw = sw->hnext) {
            if (up_only ? !sw->up : !(sw->up || sw->seen || sw->n_flows))
                continue;
            if (n == cap) {
                uint64_t *nv = realloc(v, 2 * cap * sizeof(*v));
                if (!nv) {
                    pthread_mutex_unlock(&fm->lock);
                    free(v);
                    return -ENOMEM;
                }
                v = nv;
                cap *= 2;
            }
            v[n++] = sw->dpid;
        }
    pthread_mutex_unlock(&fm->lock);
    *out = v;
    return (int)n;
}

int fm_admit(struct fm *fm, uint64_t dpid, size_t n, unsigned *retry_s)
{
    int rc = 0;
    const uint32_t rate = fm->cfg.pacing_per_s;

    if (n > fm->cfg.queue_max)
        return -E2BIG;
    pthread_mutex_lock(&fm->lock);
    /* The record holds the reservation even for a switch never seen (a
     * forced request), and is not forgotten while it does. */
    struct fm_switch *sw = fm_switch_get(fm, dpid);
    if (!sw) {
        rc = -ENOMEM;
    } else if (sw->queued + sw->reserved + n > fm->cfg.queue_max) {
        rc = -EBUSY;
        /* Time for the backlog to drain at the pacing rate (one owner's),
         * at least a second. */
        uint64_t s = rate ? (sw->queued + sw->reserved) / rate : 1;
        *retry_s = s < 1 ? 1 : s > 3600 ? 3600 : (unsigned)s;
    } else {
        sw->reserved += n;
        fm->stats.reserved += n;
    }
    pthread_mutex_unlock(&fm->lock);
    return rc;
}

/* Give back up to held of sw's reservation (under the lock). */
static void admit_release(struct fm *fm, struct fm_switch *sw, size_t held)
{
    if (!sw)
        return;
    if (held > sw->reserved)
        held = sw->reserved;
    sw->reserved -= held;
    fm->stats.reserved -= held;
}

void fm_admit_cancel(struct fm *fm, uint64_t dpid, size_t held)
{
    if (!held)
        return;
    pthread_mutex_lock(&fm->lock);
    admit_release(fm, fm_switch_find(fm, dpid), held);
    pthread_mutex_unlock(&fm->lock);
}

/* Which of a batch's flows the store holds in the version given: called in
 * the order of the batch's match_ids, for the keys stored. */
struct ours_ctx {
    const struct fm_add_one *adds;
    size_t n, next;
    bool *ours;
    uint64_t *added;                /* each one's stored version (its added_ns) */
};

static int mark_ours(const struct store_flow *f, void *arg)
{
    struct ours_ctx *oc = arg;

    while (oc->next < oc->n && oc->adds[oc->next].match_id != f->match_id)
        oc->next++;
    if (oc->next == oc->n)
        return 1;
    oc->ours[oc->next] = f->flow_id == oc->adds[oc->next].flow_id &&
                         f->state != STORE_FLOW_DELETED;
    oc->added[oc->next] = f->added_ns;
    oc->next++;
    return 0;
}

int fm_add(struct fm *fm, uint64_t dpid, const struct fm_flow *flows,
                const uint64_t *match_ids, const uint64_t *flow_ids, size_t n)
{
    struct fm_add_one *adds = calloc(n ? n : 1, sizeof(*adds));
    int rc = adds ? 0 : -ENOMEM;

    for (size_t i = 0; i < n && rc == 0; i++) {
        adds[i] = (struct fm_add_one){match_ids[i], flow_ids[i], flows[i].owner, NULL, 0};
        if (!(adds[i].wire = fm_encode_flow_mod(&flows[i].mod, &adds[i].len)))
            rc = -EINVAL;
    }
    if (rc == 0)
        rc = fm_add_admitted(fm, dpid, adds, n, 0);
    for (size_t i = 0; adds && i < n; i++)
        free((void *)adds[i].wire);
    free(adds);
    return rc;
}

int fm_add_admitted(struct fm *fm, uint64_t dpid, const struct fm_add_one *adds,
                         size_t n, size_t held)
{
    int rc = 0;
    /* Called from the completion of the batch that stored them, where the
     * store holds exactly what that batch wrote: every one is ours, no
     * read back (a sixth of the committer's time in a batched install).
     * Else the store's versions decide, below. */
    bool final = store_batch_final(fm->store);
    /* The keys the store is asked for, made before the lock is taken;
     * oc.ours stays NULL when every one is ours. */
    uint64_t *mids = NULL;
    struct ours_ctx oc = {adds, n, 0, NULL, NULL};
    if (!final) {
        mids = malloc((n ? n : 1) * sizeof(*mids));
        oc.ours = calloc(n ? n : 1, sizeof(bool));
        oc.added = calloc(n ? n : 1, sizeof(*oc.added));
        for (size_t i = 0; mids && i < n; i++)
            mids[i] = adds[i].match_id;
    }

    pthread_mutex_lock(&fm->lock);
    uint64_t now = fm_now_us(fm);
    struct fm_switch *sw = fm_switch_get(fm, dpid);
    /* Queued (or failed) under the same lock as the reservation goes: the
     * two never count twice, nor leave a gap another request could take. */
    admit_release(fm, sw, held);
    /* Under the lock, the store's committed version decides: a request that
     * replaced a flow after ours mirrors its own version. One snapshot for
     * all of them (a read transaction per flow was 6% of a batch's CPU). */
    if (!sw || (!final && (!mids || !oc.ours || !oc.added ||
                           store_get_each_version(fm->store, dpid, mids, n, mark_ours, &oc) < 0))) {
        pthread_mutex_unlock(&fm->lock);
        free(mids);
        free(oc.ours);
        free(oc.added);
        return -ENOMEM;
    }
    free(mids);
    for (size_t i = 0; i < n && rc == 0; i++) {
        const struct fm_add_one *a = &adds[i];
        if (oc.ours && !oc.ours[i])
            continue;
        /* Already mirrored in this version (a cluster's watch got here
         * first, fm_sync): its ADD is queued, on its way, or answered
         * (installed before this completion ran). */
        const struct fm_entry *have = fm_entry_find(sw, a->match_id);
        uint64_t added = oc.added ? oc.added[i] : 0;
        if (have && have->flow_id == a->flow_id &&
            (have->state == STORE_FLOW_PENDING || (added && have->added_ns == added)))
            continue;
        unsigned o = owner_index(sw, a->owner);
        struct fm_entry *f = mirror_put(fm, sw, a->match_id, a->flow_id, STORE_FLOW_PENDING, o,
                                       a->wire, a->len);
        if (!f) {
            rc = -ENOMEM;
            break;
        }
        f->added_ns = added;
        if (sw->up)
            rc = fm_queue(fm, sw, o, true, a->match_id, a->flow_id, a->wire, a->len);
    }
    free(oc.ours);
    free(oc.added);
    fm_pump(fm, sw, now);
    pthread_mutex_unlock(&fm->lock);
    return rc;
}

int fm_delete_victims(struct fm *fm, uint64_t dpid, const struct ofp_flow_mod *sel,
                           struct fm_key **keys, size_t *n, size_t *cap)
{
    int rc = 0;

    pthread_mutex_lock(&fm->lock);
    struct fm_switch *sw = fm_switch_find(fm, dpid);
    for (size_t b = 0; sw && b < sw->n_buckets && rc == 0; b++)
        for (struct fm_entry *f = sw->buckets[b]; f && rc == 0; f = f->hnext) {
            struct ofp_flow_mod have;
            struct ofp_err err;
            uint8_t small[FM_WIRE_SMALL], *big;
            const uint8_t *wire = entry_wire(f, small, &big);
            if (!wire) {
                rc = -ENOMEM;
                break;
            }
            bool hit = ofp_flow_mod_decode(wire, f->len, &have, &err) >= 0 &&
                       (sel->table_id == OFPTT_ALL || sel->table_id == have.table_id) &&
                       (have.cookie & sel->cookie_mask) == (sel->cookie & sel->cookie_mask) &&
                       ofp_match_within(&have.match, &sel->match);
            free(big);                  /* after the last use of have: it may point into wire */
            if (!hit)
                continue;
            if (*n == *cap) {
                size_t nc = *cap ? *cap * 2 : 64;
                struct fm_key *nk = realloc(*keys, nc * sizeof(*nk));
                if (!nk) {
                    rc = -ENOMEM;
                    break;
                }
                *keys = nk;
                *cap = nc;
            }
            (*keys)[(*n)++] = (struct fm_key){dpid, f->match_id, f->flow_id};
        }
    pthread_mutex_unlock(&fm->lock);
    return rc;
}

int fm_deleted(struct fm *fm, const struct fm_key *keys, size_t n_keys,
                    uint64_t dpid, const struct fm_flow *sels, size_t n_sels)
{
    struct fm_sel *ss = calloc(n_sels ? n_sels : 1, sizeof(*ss));
    int rc = ss ? 0 : -ENOMEM;
    size_t ok = 0;

    for (; ss && ok < n_sels; ok++) {
        ss[ok].owner = sels[ok].owner;
        if (!(ss[ok].wire = fm_encode_flow_mod(&sels[ok].mod, &ss[ok].len))) {
            rc = -EINVAL;
            break;
        }
    }
    /* The store has deleted them whatever: the mirror follows even when a
     * selector could not be sent. */
    int drc = fm_deleted_admitted(fm, keys, n_keys, dpid, ss, ok, 0);
    for (size_t i = 0; i < ok; i++)
        free((void *)ss[i].wire);
    free(ss);
    return rc ? rc : drc;
}

int fm_deleted_admitted(struct fm *fm, const struct fm_key *keys, size_t n_keys,
                             uint64_t dpid, const struct fm_sel *sels, size_t n_sels,
                             size_t held)
{
    int rc = 0;

    pthread_mutex_lock(&fm->lock);
    struct fm_switch *sw = fm_switch_find(fm, dpid);
    admit_release(fm, sw, held);
    if (!sw) {
        pthread_mutex_unlock(&fm->lock);
        return 0;
    }
    uint64_t gone = 0;
    for (size_t i = 0; i < n_keys; i++)
        if (keys[i].dpid == dpid && mirror_del(fm, sw, keys[i].match_id, keys[i].flow_id))
            gone++;
    if (gone)
        fm_publish(fm, &(struct fm_event){.kind = FM_EV_DELETED, .dpid = dpid,
                                             .u.deleted = {.count = gone}});
    for (size_t i = 0; i < n_sels && sw->up && rc == 0; i++)
        rc = fm_queue(fm, sw, owner_index(sw, sels[i].owner), false, 0, 0, sels[i].wire,
                      sels[i].len);
    fm_pump(fm, sw, fm_now_us(fm));
    if (sw->let_go)
        forget_locked(fm, dpid);    /* the view let it go: its last flow went */
    pthread_mutex_unlock(&fm->lock);
    return rc;
}

/* The mirror's state follows the store's without writing it back. */
static void mirror_state(struct fm *fm, struct fm_entry *f, uint8_t state)
{
    count_state(fm, f->state, -1);
    f->state = state;
    count_state(fm, state, 1);
}

/* The flow f gone elsewhere: off the switch, exactly that one. */
static int queue_delete_strict(struct fm *fm, struct fm_switch *sw, const struct fm_entry *f)
{
    struct ofp_flow_mod have;
    struct ofp_err err;
    uint8_t small[FM_WIRE_SMALL], *big;
    const uint8_t *wire = entry_wire(f, small, &big);

    if (!wire)
        return -ENOMEM;
    int rc = ofp_flow_mod_decode(wire, f->len, &have, &err) < 0 ? -EINVAL : 0;
    struct fm_view_sw v = {fm, sw};
    if (!rc)
        rc = view_delete_strict(&v, have.table_id, have.priority, &have.match);
    free(big);                          /* have may point into wire */
    return rc;
}

/* A stored record's FLOW_MOD as the mirror keeps it (malloc'd into *wire):
 * 0, -EINVAL (its JSON does not parse to the flow of its key), -ENOMEM. */
static int record_wire(struct fm *fm, const struct store_flow *sf, uint8_t **wire,
                       size_t *len)
{
    struct fm_flow *flow = malloc(sizeof(*flow));
    int rc = !flow ? -ENOMEM
             : fm->env.decode ? fm->env.decode(sf->json, sf->json_len, flow) : -EINVAL;

    if (rc == 0 && fm_flow_match_id(sf->dpid, flow) != sf->match_id)
        rc = -EINVAL;
    *len = 0;
    *wire = rc == 0 ? fm_encode_flow_mod(&flow->mod, len) : NULL;
    if (rc == 0 && !*wire)
        rc = -ENOMEM;
    free(flow);
    return rc;
}

/* The stored record sf as the mirror's new version, its ADD queued. */
static int sync_put(struct fm *fm, struct fm_switch *sw, const struct store_flow *sf)
{
    uint8_t *wire;
    size_t len;
    int rc = record_wire(fm, sf, &wire, &len);

    if (rc == 0) {
        unsigned o = owner_index(sw, sf->owner ? sf->owner : "");
        struct fm_entry *f = mirror_put(fm, sw, sf->match_id, sf->flow_id, (uint8_t)sf->state,
                                        o, wire, len);
        if (!f) {
            rc = -ENOMEM;
        } else {
            f->added_ns = sf->added_ns;
            if (sw->up)
                rc = fm_queue(fm, sw, o, true, sf->match_id, sf->flow_id, wire, len);
        }
    } else if (rc == -EINVAL) {
        LOG_ERR("flows", "switch %016" PRIx64 ": flow %016" PRIx64 " written by another "
                "node cannot be read (its JSON does not parse to the same flow); not "
                "managed", sf->dpid, sf->match_id);
    }
    free(wire);
    return rc;
}

int fm_sync(struct fm *fm, uint64_t dpid, uint64_t match_id)
{
    struct store_flow sf;

    pthread_mutex_lock(&fm->lock);
    struct fm_switch *sw = fm_switch_get(fm, dpid);
    if (!sw) {
        pthread_mutex_unlock(&fm->lock);
        return -ENOMEM;
    }
    struct fm_entry *f = fm_entry_find(sw, match_id);
    int rc = store_get(fm->store, dpid, match_id, &sf);
    bool got = rc == 0;
    bool gone = rc == -ENOENT || (got && sf.state == STORE_FLOW_DELETED);
    if (gone) {
        if (f) {
            if (sw->up)
                queue_delete_strict(fm, sw, f);
            mirror_del(fm, sw, match_id, f->flow_id);
            fm_publish(fm, &(struct fm_event){.kind = FM_EV_DELETED, .dpid = dpid,
                                                 .u.deleted = {.count = 1}});
        }
        rc = 0;
    } else if (got && f && f->flow_id == sf.flow_id && f->added_ns &&
               f->added_ns == sf.added_ns && sf.state == STORE_FLOW_PENDING) {
        /* This very version's ADD is queued already (the request's own
         * path got here first): it may be installed since. */
    } else if (got && f && f->flow_id == sf.flow_id &&
               !(sf.state == STORE_FLOW_PENDING && f->state != STORE_FLOW_PENDING)) {
        if (f->state != (uint8_t)sf.state)
            mirror_state(fm, f, (uint8_t)sf.state);
    } else if (got) {
        /* New, replaced, or the same version stored again (pending once
         * more: a client sent it again): its ADD goes. */
        rc = sync_put(fm, sw, &sf);
    }
    if (got)
        store_flow_release(&sf);
    fm_pump(fm, sw, fm_now_us(fm));
    pthread_mutex_unlock(&fm->lock);
    return rc;
}

/* Copied under the lock, decoded outside it (fm_snap.c): a switch's 100,000
 * flows must not hold up the control thread or other requests while they
 * are walked and rendered. */
struct fm_snap_copy *fm_snap_copy_take(struct fm *fm, uint64_t dpid, int *err)
{
    struct fm_snap_copy *s = NULL;

    pthread_mutex_lock(&fm->lock);
    struct fm_switch *sw = fm_switch_find(fm, dpid);
    if (!sw || !(sw->seen || sw->n_flows))
        *err = -ENOENT;
    else
        *err = (s = fm_snap_take(&sw->snap, dpid)) ? 0 : -ENOMEM;
    pthread_mutex_unlock(&fm->lock);
    return s;
}

void fm_get_stats(struct fm *fm, struct fm_stats *out)
{
    pthread_mutex_lock(&fm->lock);
    *out = fm->stats;
    pthread_mutex_unlock(&fm->lock);
}

/* ---- life cycle --------------------------------------------------------------- */

struct load_ctx {
    struct fm *fm;
    uint64_t loaded, bad;
};

static int load_one(const struct store_flow *sf, void *arg)
{
    struct load_ctx *lc = arg;
    struct fm *fm = lc->fm;

    if (sf->state == STORE_FLOW_DELETED)
        return 0;                    /* only listed, until purged */
    uint8_t *wire;
    size_t len;
    record_wire(fm, sf, &wire, &len);
    struct fm_switch *sw = wire ? fm_switch_get(fm, sf->dpid) : NULL;
    if (!sw || !mirror_put(fm, sw, sf->match_id, sf->flow_id, (uint8_t)sf->state,
                           owner_index(sw, sf->owner ? sf->owner : ""), wire, len)) {
        if (lc->bad++ < 10)
            LOG_ERR("flows", "switch %016" PRIx64 ": stored flow %016" PRIx64 " cannot be "
                    "loaded (its JSON no longer parses to the same flow); kept in the store, "
                    "not managed", sf->dpid, sf->match_id);
    } else {
        lc->loaded++;
    }
    free(wire);
    return 0;
}

struct fm *fm_create(const struct fm_cfg *cfg, const struct fm_env *env,
                               struct store *store)
{
    struct fm *fm = calloc(1, sizeof(*fm));

    if (!fm || !(fm->sw_buckets = calloc(FM_SW_BUCKETS, sizeof(*fm->sw_buckets)))) {
        free(fm);
        LOG_ERR("flows", "out of memory");
        return NULL;
    }
    fm->cfg = *cfg;
    fm->env = *env;
    fm->store = store;
    fm->rl_log.rejected = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(10, 1000);
    fm->rl_log.rejected_other = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(10, 1000);
    fm->rl_log.stray_error = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    fm->check_log = (struct fm_check_log)FM_CHECK_LOG_INIT;
    fm->rl_log.check = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(20, 1000);
    fm->rl_log.snap_oversized = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    fm->rl_log.snap_unsolicited = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    fm->rl_log.snap_budget = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    pthread_mutex_init(&fm->lock, NULL);
    pthread_mutex_init(&fm->gm_write, NULL);
    fm_slab_init(&fm->slab);
    struct load_ctx lc = {.fm = fm};
    int rc = store_foreach(store, NULL, load_one, &lc);
    if (rc == 0)
        rc = fm_gm_load(fm);
    if (rc < 0) {
        LOG_ERR("flows", "cannot read the flow store: %s", strerror(-rc));
        fm_destroy(fm);
        return NULL;
    }
    LOG_INFO("flows", "flow manager: %lu stored flows loaded (%lu unusable); consistency "
             "check %s, verdict window %lu s, pacing %u FLOW_MODs/s per owner per switch",
             (unsigned long)lc.loaded, (unsigned long)lc.bad, cfg->consistency ? "on" : "off",
             (unsigned long)(cfg->window_us / 1000000u), cfg->pacing_per_s);
    return fm;
}

void fm_destroy(struct fm *fm)
{
    if (!fm)
        return;
    for (size_t b = 0; b < FM_SW_BUCKETS; b++)
        while (fm->sw_buckets[b]) {
            struct fm_switch *sw = fm->sw_buckets[b];
            fm->sw_buckets[b] = sw->hnext;
            switch_free(fm, sw);
        }
    free(fm->sw_buckets);
    fm_slab_destroy(&fm->slab);
    pthread_mutex_destroy(&fm->gm_write);
    pthread_mutex_destroy(&fm->lock);
    free(fm);
}
