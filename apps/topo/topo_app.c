/* topo_app: see topo_app.h. */
#include "topo_app.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "of_switch.h"
#include "ofcd_log.h"
#include "ofp_msg.h"

OFCD_COUNTER_GROUP(topo_app_counters, "topology_lldp", struct topo_app_stats, TOPO_APP_COUNTERS,
                   OFCD_NO_COUNTERS);

enum {
#define TOPO_IDX(name, help) TOPO_C_##name,
    TOPO_APP_COUNTERS(TOPO_IDX)
#undef TOPO_IDX
};

struct topo_sw {
    uint32_t cursor;                    /* the next port (index) to probe */
    uint32_t first_left;                /* ports of the first round still to probe */
    uint64_t last_prompt_us;            /* the last probe a PORT_STATUS prompted */
    uint64_t last_sent_us;              /* stamp of the last probe (offset included) */
    uint64_t pace_changed_us;           /* when pace_x8 last moved */
    uint32_t pace_x8;                   /* the probe interval's stretch, in eighths (8: none) */
};

#define TOPO_PACE_ONE 8u

static void count(struct topo_app_cfg *cfg, unsigned which)
{
    atomic_fetch_add_explicit(&cfg->stats[which], 1, memory_order_relaxed);
}

void topo_app_get_stats(const struct topo_app_cfg *cfg, struct topo_app_stats *out)
{
    uint64_t *v = (uint64_t *)(void *)out;

    for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
        v[i] = atomic_load_explicit(&((struct topo_app_cfg *)cfg)->stats[i],
                                    memory_order_relaxed);
}

static uint64_t interval_us(const struct topo_app_cfg *cfg)
{
    uint64_t ms = atomic_load_explicit(&((struct topo_app_cfg *)cfg)->interval_ms,
                                       memory_order_relaxed);
    return (ms ? ms : 1) * 1000u;
}

/* The switch's probe interval, stretched by its pace. */
static uint64_t paced_interval_us(const struct topo_app_cfg *cfg, const struct topo_sw *st)
{
    return interval_us(cfg) * st->pace_x8 / TOPO_PACE_ONE;
}

/* The largest stretch: the interval at half the link timeout at most. */
static uint32_t pace_max_x8(const struct topo_app_cfg *cfg)
{
    uint64_t m = (uint64_t)cfg->link_timeout_ms * 1000u * TOPO_PACE_ONE / 2 / interval_us(cfg);

    return m < TOPO_PACE_ONE ? TOPO_PACE_ONE : m > UINT32_MAX ? UINT32_MAX : (uint32_t)m;
}

/* One of our frames came back on this switch after age_us: late ones slow
 * its probing (multiplicatively), timely ones speed it up again (by an
 * eighth); one step per paced interval either way, so a burst of late
 * frames counts once. */
static void pace_feedback(struct topo_app_cfg *cfg, struct topo_sw *st, uint64_t age_us,
                          uint64_t now_us)
{
    uint64_t late_us = (uint64_t)cfg->max_age_ms * 1000u / 4;

    if (now_us - st->pace_changed_us < paced_interval_us(cfg, st))
        return;
    if (age_us > late_us) {
        uint32_t max = pace_max_x8(cfg), next = st->pace_x8 * 2;
        if (next > max)
            next = max;
        if (next <= st->pace_x8)          /* at the cap (which REST's interval moves) */
            return;
        st->pace_x8 = next;
        count(cfg, TOPO_C_lldp_slowed);
    } else if (age_us <= late_us / 2 && st->pace_x8 > TOPO_PACE_ONE) {
        st->pace_x8--;
        count(cfg, TOPO_C_lldp_sped_up);
    } else {
        return;
    }
    st->pace_changed_us = now_us;
}

static void topo_switch_up(void *arg, struct of_app_switch *sw, uint64_t now_us,
                           struct of_app_out *out)
{
    struct topo_app_cfg *cfg = arg;
    uint64_t spread = interval_us(cfg) / 4 + 1;
    struct topo_sw *st = calloc(1, sizeof(struct topo_sw));

    (void)out;
    if (!st) {
        LOG_ERR("topology", "switch %016" PRIx64 ": out of memory: no LLDP from it", sw->dpid);
        return;
    }
    st->first_left = sw->ports->n;
    st->pace_x8 = TOPO_PACE_ONE;
    sw->state = st;
    /* Spread by dpid, so a thousand switches that connect at once do not
     * probe at once either. */
    if (spread > TOPO_FIRST_SPREAD_US)
        spread = TOPO_FIRST_SPREAD_US;
    sw->next_tick_us = now_us + 1 + (sw->dpid * 0x9e3779b97f4a7c15ull >> 17) % spread;
}

static bool eligible(const struct topo_app_cfg *cfg, uint64_t dpid, const struct ofp_port *p)
{
    return p->port_no >= 1 && p->port_no <= OFPP_MAX && !(p->config & OFPPC_PORT_DOWN) &&
           !(p->state & OFPPS_LINK_DOWN) && !topo_admin_lldp_off(cfg->admin, dpid, p->port_no);
}

static void send_probe(struct topo_app_cfg *cfg, uint64_t dpid, struct topo_sw *st,
                       const struct ofp_port *p, uint64_t now_us, bool ask,
                       struct of_app_out *out)
{
    uint8_t frame[TOPO_LLDP_FRAME_LEN];
    struct ofp_action act = {.type = OFPAT_OUTPUT, .u.output = {.port = p->port_no}};
    struct ofp_msg m;
    /* Send times strictly increase per switch (so per port): the control
     * thread takes a frame not newer than the last from its port for a
     * replay, and two probes of one loop share its clock reading. Kept on
     * the stamp itself, offset included: in a cluster the offset moves a
     * little at each control tick, and may move back. */
    uint64_t stamp = now_us + atomic_load_explicit(&cfg->stamp_offset_us, memory_order_relaxed);
    uint8_t key[TOPO_LLDP_KEY_LEN];

    if (stamp <= st->last_sent_us)
        stamp = st->last_sent_us + 1;
    st->last_sent_us = stamp;
    topo_app_get_key(cfg, key);
    size_t len = topo_lldp_build(frame, p->hw_addr, cfg->lldp_vlan, dpid, p->port_no, stamp,
                                 ask, key);
    memset(&m, 0, sizeof(m));
    m.hdr.version = OFP13_VERSION;
    m.hdr.type = OFPT_PACKET_OUT;
    m.u.packet_out = (struct ofp_packet_out){.buffer_id = OFP_NO_BUFFER,
                                             .in_port = OFPP_CONTROLLER,
                                             .actions = {.arr = &act, .n = 1},
                                             .data = frame,
                                             .data_len = (uint16_t)len};
    count(cfg, of_app_send(out, &m) == 0 ? TOPO_C_lldp_sent : TOPO_C_lldp_send_failed);
}

static void topo_tick(void *arg, struct of_app_switch *sw, uint64_t now_us,
                      struct of_app_out *out)
{
    struct topo_app_cfg *cfg = arg;
    struct topo_sw *st = sw->state;
    uint32_t n = sw->ports->n;

    if (!st)
        return;
    uint64_t iv = paced_interval_us(cfg, st);
    if (n == 0) {
        sw->next_tick_us = now_us + iv;
        return;
    }
    uint64_t spacing = iv / n, per = 1;
    /* A new switch's links are wanted now, not an interval from now: its
     * first round goes faster (still one port per tick). */
    if (st->first_left && spacing > TOPO_FIRST_SPACING_US)
        spacing = TOPO_FIRST_SPACING_US;
    if (spacing < TOPO_TICK_MIN_US) {
        per = ((uint64_t)n * TOPO_TICK_MIN_US + iv - 1) / iv;
        spacing = TOPO_TICK_MIN_US;
    }
    /* Every port visited counts against the round, eligible or not, so a
     * round lasts one interval whatever the ports' states. */
    for (uint64_t k = 0; k < per; k++) {
        const struct ofp_port *p = &sw->ports->v[st->cursor % n];
        st->cursor = (st->cursor + 1) % n;
        if (st->first_left)
            st->first_left--;
        if (eligible(cfg, sw->dpid, p))
            send_probe(cfg, sw->dpid, st, p, now_us, false, out);
    }
    sw->next_tick_us = now_us + spacing;
}

/* A probe off schedule, at most one per switch per TOPO_FIRST_SPACING_US:
 * neither a switch flooding PORT_STATUS nor a peer flooding asking probes
 * makes ofcd flood LLDP. */
static void prompt_probe(struct topo_app_cfg *cfg, struct of_app_switch *sw,
                         const struct ofp_port *p, uint64_t now_us, bool ask,
                         struct of_app_out *out)
{
    struct topo_sw *st = sw->state;

    if (!st || !eligible(cfg, sw->dpid, p))
        return;
    if (st->last_prompt_us && now_us - st->last_prompt_us < TOPO_FIRST_SPACING_US) {
        count(cfg, TOPO_C_lldp_prompt_limited);
        return;
    }
    st->last_prompt_us = now_us;
    send_probe(cfg, sw->dpid, st, p, now_us, ask, out);
}

/* A port that came (back) up is probed at once, not a round later, with
 * a probe that asks the other end to answer at once too (its own port may
 * have seen no change: a patch port's peer does not): the link is then up
 * within two round trips. */
static void topo_port_status(void *arg, struct of_app_switch *sw,
                             const struct ofp_port_status *ps, uint64_t now_us,
                             struct of_app_out *out)
{
    if (ps->reason != OFPPR_DELETE)
        prompt_probe(arg, sw, &ps->desc, now_us, true, out);
}

/* One of the key's sets of atomic words as bytes. */
static void key_words(const _Atomic uint64_t *words, uint8_t out[TOPO_LLDP_KEY_LEN])
{
    for (unsigned i = 0; i < TOPO_KEY_WORDS; i++) {
        uint64_t w = atomic_load_explicit(&words[i], memory_order_relaxed);
        memcpy(out + 8 * i, &w, 8);
    }
}

/* The frame against the key, then the one before it (a frame in flight
 * across a change); its send time back on this lcore's clock. */
static enum topo_lldp_verdict read_frame(const struct topo_app_cfg *cfg,
                                         const struct ofp_packet_in *pi, uint64_t now_us,
                                         struct topo_lldp_id *id)
{
    uint64_t off = atomic_load_explicit(&cfg->stamp_offset_us, memory_order_relaxed);
    uint64_t max_age = (uint64_t)cfg->max_age_ms * 1000u;
    uint8_t key[TOPO_LLDP_KEY_LEN];

    topo_app_get_key(cfg, key);
    enum topo_lldp_verdict v = topo_lldp_parse(pi->data, pi->data_len, key, now_us + off,
                                               max_age, cfg->skew_us, id);
    if (v == TOPO_LLDP_FOREIGN) {
        key_words(cfg->key_prev, key);
        v = topo_lldp_parse(pi->data, pi->data_len, key, now_us + off, max_age, cfg->skew_us,
                            id);
    }
    if (v == TOPO_LLDP_OURS)
        id->sent_us -= off;
    return v;
}

static void topo_packet_in(void *arg, struct of_app_switch *sw, const struct ofp_packet_in *pi,
                           uint64_t now_us, struct of_app_out *out)
{
    struct topo_app_cfg *cfg = arg;
    struct topo_lldp_id id;

    if (!topo_lldp_is_lldp(pi->data, pi->data_len))
        return;
    count(cfg, TOPO_C_lldp_in);
    if (!ofp_match_has(&pi->match, OFPXMT_OFB_IN_PORT)) {
        count(cfg, TOPO_C_lldp_no_port);
        return;
    }
    switch (read_frame(cfg, pi, now_us, &id)) {
    case TOPO_LLDP_OURS: {
        struct topo_seen s = {
            .from_dpid = id.dpid,
            .from_port = id.port,
            .to_port = (uint32_t)ofp_match_get_uint(&pi->match, OFPXMT_OFB_IN_PORT),
            .sent_us = id.sent_us,
        };
        count(cfg, TOPO_C_lldp_ours);
        if (sw->state)
            pace_feedback(cfg, sw->state, now_us > id.sent_us ? now_us - id.sent_us : 0, now_us);
        if (of_app_event(out, &s, sizeof(s)) < 0)
            count(cfg, TOPO_C_events_lost);
        /* The other end's port just came up: the way back now too (never
         * an asking probe: no ping-pong). */
        const struct ofp_port *p = id.ask ? of_ports_find(sw->ports, s.to_port) : NULL;
        if (p) {
            count(cfg, TOPO_C_lldp_answered);
            prompt_probe(cfg, sw, p, now_us, false, out);
        }
        break;
    }
    case TOPO_LLDP_FOREIGN:
        count(cfg, TOPO_C_lldp_foreign);
        break;
    case TOPO_LLDP_STALE:
        count(cfg, TOPO_C_lldp_stale);
        break;
    case TOPO_LLDP_MALFORMED:
    case TOPO_LLDP_NOT_LLDP:
        count(cfg, TOPO_C_lldp_malformed);
        break;
    }
}

static void topo_switch_down(void *arg, struct of_app_switch *sw)
{
    (void)arg;
    free(sw->state);
    sw->state = NULL;
}

void topo_app_get_key(const struct topo_app_cfg *cfg, uint8_t out[TOPO_LLDP_KEY_LEN])
{
    key_words(cfg->key, out);
}

void topo_app_set_key(struct topo_app_cfg *cfg, const uint8_t key[TOPO_LLDP_KEY_LEN])
{
    for (unsigned i = 0; i < TOPO_KEY_WORDS; i++) {
        uint64_t w;
        memcpy(&w, key + 8 * i, 8);
        atomic_store_explicit(&cfg->key_prev[i],
                              atomic_load_explicit(&cfg->key[i], memory_order_relaxed),
                              memory_order_relaxed);
        atomic_store_explicit(&cfg->key[i], w, memory_order_relaxed);
    }
}

void topo_app_init(struct of_app *app, struct topo_app_cfg *cfg)
{
    if (!cfg->skew_us)
        cfg->skew_us = TOPO_LLDP_SKEW_US;
    *app = (struct of_app){
        .name = "topology",
        .cookies = {TOPO_COOKIE_PREFIX << 56, (TOPO_COOKIE_PREFIX << 56) | 0x00ffffffffffffffull},
        .arg = cfg,
        .on_switch_up = topo_switch_up,
        .on_packet_in = topo_packet_in,
        .on_port_status = topo_port_status,
        .on_tick = topo_tick,
        .on_switch_down = topo_switch_down,
    };
}
