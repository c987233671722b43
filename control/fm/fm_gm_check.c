/*
 * fm_gm_check: the groups-and-meters half of the consistency check. After a
 * switch's flow check (flow_manager.consistency on), the switch is asked for
 * its groups (GROUP_DESC) and meters (METER_CONFIG); each part of the
 * answer is judged as it comes, against the mirror (fm_gm.c):
 *  - one the switch has and ofcd does not store: an alien, deleted (as an
 *    alien flow is; a DELETE of a group also drops the flows that use it);
 *  - one stored, confirmed on this connection, whose content differs: put
 *    back (a MODIFY of the stored version);
 *  - at the last part, one stored and confirmed that the switch did not
 *    list: laid again (an ADD).
 * A stored one in error (the switch refused it: asking again would be
 * refused again) is left alone. One still pending is confirmed when the
 * switch lists it as stored; left alone while its message may be on the
 * way; sent again when FM_GM_PENDING_CHECKS checks in a row find it
 * pending and not on the switch as stored (its barrier, or the message,
 * was lost: a ring that was full, a queue that could not grow). Bounds: FM_GM_CHECK_PARTS parts per answer (past them the
 * answer is dropped and counted) and FM_GM_QUEUE_MAX messages queued per
 * switch by the check, so a switch that lists without end cannot grow the
 * queue. Under fm.lock, on the control thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "fm_gm.h"
#include "fm_priv.h"
#include "ofcd_log.h"
#include "ofp_group.h"
#include "ofp_meter.h"
#include "ofp_mp.h"
#include "ofp_msg.h"

#define FM_GM_CHECK_PARTS 64u
#define FM_GM_PENDING_CHECKS 2u
#define GM_METER_CONFIG_HEAD 8u     /* length, flags, meter_id; then the bands */

/* Index into gm_check_xid of a kind. */
static unsigned check_slot(uint8_t kind)
{
    return kind == FM_GM_GROUP ? 0 : 1;
}

static int send_request(struct fm *fm, struct fm_switch *sw, uint16_t type, uint8_t kind)
{
    struct ofp_mp_request r = {.type = type};
    uint8_t buf[64];
    struct ofp_buf b;

    if (type == OFPMP_METER_CONFIG)
        r.u.meter_id = OFPM_ALL;
    ofp_buf_init(&b, buf, sizeof(buf));
    int rc = ofp_mp_request_encode(&b, 0, &r);
    if (rc < 0)
        return rc;
    uint32_t xid = fm_next_xid(sw);
    /* The statistics class, as the flow check's request: not behind the
     * FLOW_MODs it is checking. */
    rc = fm_send_wire(fm, sw, b.data, b.len, xid, OFP_PRIO_P1);
    if (rc < 0)
        return rc;
    for (struct fm_gm_entry *e = sw->gm; e; e = e->next)
        if (e->kind == kind)
            e->seen = false;
    sw->gm_check_xid[check_slot(kind)] = xid;
    sw->gm_check_parts[check_slot(kind)] = 0;
    return 0;
}

void fm_gm_check_request(struct fm *fm, struct fm_switch *sw)
{
    if (!fm->cfg.consistency)
        return;
    /* An answer still awaited is given up: the new request's replaces it. */
    if (send_request(fm, sw, OFPMP_GROUP_DESC, FM_GM_GROUP) < 0 ||
        send_request(fm, sw, OFPMP_METER_CONFIG, FM_GM_METER) < 0)
        LOG_WARN_RL(&fm->rl_log.check, fm_now_us(fm), "flows", "switch %016" PRIx64 ": cannot "
                    "ask for its groups and meters now (its way is full); asked again at the "
                    "next check", sw->dpid);
}

/* What the check does with one of kind/id the switch listed, whose content
 * is same (as stored) or not. */
static void judge(struct fm *fm, struct fm_switch *sw, uint8_t kind, uint32_t id, bool same,
                  unsigned *aliens, unsigned *changed)
{
    struct fm_gm_entry *e = fm_gm_find(sw, kind, id);

    if (e)
        e->seen = true;
    if (e && e->state == FM_GM_PENDING && same) {
        e->state = FM_GM_INSTALLED;     /* the switch holds it: its answer was lost */
        e->on_switch = true;
        e->pending_checks = 0;
        fm->stats.gm_installed++;
        return;
    }
    if (sw->gm_queued >= FM_GM_QUEUE_MAX)
        return;
    if (e && e->state == FM_GM_PENDING && ++e->pending_checks >= FM_GM_PENDING_CHECKS) {
        e->pending_checks = 0;
        fm_gm_queue(sw, kind, OFPGC_MODIFY, id, false);
        fm->stats.gm_changed_relaid++;
        (*changed)++;
        return;
    }
    if (!e) {
        fm_gm_queue(sw, kind, OFPGC_DELETE, id, false);
        fm->stats.gm_alien_deleted++;
        (*aliens)++;
    } else if (e->state == FM_GM_INSTALLED && !same) {
        e->state = FM_GM_PENDING;
        fm_gm_queue(sw, kind, OFPGC_MODIFY, id, false);
        fm->stats.gm_changed_relaid++;
        (*changed)++;
    }
}

static bool group_same(const struct fm_gm_entry *e, const struct ofp_group_desc *d)
{
    struct ofp_group_mod gm;
    struct ofp_err err;

    return e && ofp_group_mod_decode(e->data, e->len, &gm, &err) == 0 && gm.type == d->type &&
           ofp_buckets_equal(&gm.buckets, &d->buckets);
}

static bool meter_same(const struct fm_gm_entry *e, uint16_t flags,
                       const struct ofp_meter_bands *bands)
{
    struct ofp_meter_mod mm;
    struct ofp_err err;

    return e && ofp_meter_mod_decode(e->data, e->len, &mm, &err) == 0 && mm.flags == flags &&
           ofp_meter_bands_equal(&mm.bands, bands);
}

/* A METER_CONFIG body (OpenFlow leaves it raw: length, flags, meter_id,
 * bands), entry by entry; -EBADMSG at the first that does not hold. */
static int judge_meters(struct fm *fm, struct fm_switch *sw, const uint8_t *p, size_t len,
                        unsigned *aliens, unsigned *changed)
{
    while (len) {
        struct ofp_meter_bands bands;
        struct ofp_err err;
        if (len < GM_METER_CONFIG_HEAD)
            return -EBADMSG;
        size_t n = (size_t)p[0] << 8 | p[1];
        if (n < GM_METER_CONFIG_HEAD || n > len ||
            ofp_meter_bands_decode(p + GM_METER_CONFIG_HEAD, n - GM_METER_CONFIG_HEAD, &bands,
                                   &err) < 0)
            return -EBADMSG;
        uint16_t flags = (uint16_t)(p[2] << 8 | p[3]);
        uint32_t id = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];
        if (id <= OFPM_MAX)         /* the virtual meters (slowpath, controller) are the switch's */
            judge(fm, sw, FM_GM_METER, id,
                  meter_same(fm_gm_find(sw, FM_GM_METER, id), flags, &bands), aliens, changed);
        p += n;
        len -= n;
    }
    return 0;
}

/* The last part: what was stored, confirmed and not listed is laid again. */
static unsigned relay_missing(struct fm *fm, struct fm_switch *sw, uint8_t kind)
{
    unsigned missing = 0;

    for (struct fm_gm_entry *e = sw->gm; e && sw->gm_queued < FM_GM_QUEUE_MAX; e = e->next) {
        if (e->kind != kind || e->seen || e->state == FM_GM_ERROR)
            continue;
        if (e->state == FM_GM_PENDING && ++e->pending_checks < FM_GM_PENDING_CHECKS)
            continue;                   /* perhaps on its way */
        e->pending_checks = 0;
        e->state = FM_GM_PENDING;
        e->on_switch = false;
        fm_gm_queue(sw, kind, OFPGC_ADD, e->id, false);
        fm->stats.gm_missing_relaid++;
        missing++;
    }
    return missing;
}

void fm_gm_check_reply(struct fm *fm, struct fm_switch *sw, const uint8_t *msg, size_t len)
{
    struct ofp_mp_reply r;
    struct ofp_err err;
    uint32_t xid = (uint32_t)msg[4] << 24 | (uint32_t)msg[5] << 16 | (uint32_t)msg[6] << 8 | msg[7];

    if (ofp_mp_reply_decode(msg, len, &r, &err) < 0)
        return;                     /* the worker decoded it before: not expected */
    uint8_t kind = r.type == OFPMP_GROUP_DESC ? FM_GM_GROUP : FM_GM_METER;
    unsigned slot = check_slot(kind);
    if (!xid || xid != sw->gm_check_xid[slot])
        return;                     /* not asked for, or given up */
    if (++sw->gm_check_parts[slot] > FM_GM_CHECK_PARTS) {
        sw->gm_check_xid[slot] = 0;
        fm->stats.gm_check_abandoned++;
        LOG_WARN_RL(&fm->rl_log.check, fm_now_us(fm), "flows", "switch %016" PRIx64 ": its "
                    "%s listed in more than %u parts: the rest is dropped, the check of them "
                    "abandoned", sw->dpid, kind == FM_GM_GROUP ? "groups" : "meters",
                    FM_GM_CHECK_PARTS);
        return;
    }
    unsigned aliens = 0, changed = 0, missing = 0;
    if (kind == FM_GM_GROUP) {
        struct ofp_mp_iter it;
        struct ofp_group_desc d;
        ofp_mp_iter_init(&it, &r);
        while (ofp_mp_next_group_desc(&it, &d))
            judge(fm, sw, FM_GM_GROUP, d.group_id,
                  group_same(fm_gm_find(sw, FM_GM_GROUP, d.group_id), &d), &aliens, &changed);
    } else if (judge_meters(fm, sw, r.body, r.body_len, &aliens, &changed) < 0) {
        sw->gm_check_xid[slot] = 0;
        LOG_WARN_RL(&fm->rl_log.check, fm_now_us(fm), "flows", "switch %016" PRIx64 ": its "
                    "meter list does not decode: the check of its meters abandoned", sw->dpid);
        return;
    }
    if (!(r.flags & OFPMPF_REPLY_MORE)) {
        sw->gm_check_xid[slot] = 0;
        missing = relay_missing(fm, sw, kind);
        fm->stats.gm_checks++;
    }
    if (aliens || changed || missing)
        LOG_INFO_RL(&fm->rl_log.check, fm_now_us(fm), "flows", "switch %016" PRIx64 ": %s "
                    "check: %u alien deleted, %u changed put back, %u missing laid again",
                    sw->dpid, kind == FM_GM_GROUP ? "groups" : "meters", aliens, changed,
                    missing);
}
