/* fm_gm: see fm_gm.h. The records, the mirror's per-switch list, the queue
 * and what a barrier or an error does to one. */
#include "fm_gm.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fm_priv.h"
#include "ofcd_log.h"
#include "ofp_group.h"
#include "ofp_meter.h"
#include "store.h"

#define GM_KEY_PREFIX "fm/gm/"
#define GM_KEY_MAX 48
#define GM_VALUE_MAGIC "fmgm"           /* then the wire's length (4 bytes, big end) */
#define GM_VALUE_HEAD 8u
#define GM_BATCH_MAX 256u               /* GROUP_MODs / METER_MODs per barrier */
#define GM_DELETE_LEN 16u               /* a DELETE: the header, command, id */

const char *fm_gm_kind_name(enum fm_gm_kind kind)
{
    return kind == FM_GM_GROUP ? "group" : kind == FM_GM_METER ? "meter" : "?";
}

const char *fm_gm_state_name(enum fm_gm_state state)
{
    static const char *const names[] = {"pending", "installed", "error", "unknown"};
    return (unsigned)state < 4 ? names[state] : "?";
}

static void gm_key(char *key, uint64_t dpid, uint8_t kind, uint32_t id)
{
    snprintf(key, GM_KEY_MAX, GM_KEY_PREFIX "%016" PRIx64 "/%c/%08" PRIx32, dpid,
             kind == FM_GM_GROUP ? 'g' : 'm', id);
}

/* A record's key read back: 0, or -EINVAL when it is not one gm_key makes. */
static int gm_key_parse(const char *key, uint64_t *dpid, uint8_t *kind, uint32_t *id)
{
    char k, check[GM_KEY_MAX];

    if (sscanf(key, GM_KEY_PREFIX "%16" SCNx64 "/%c/%8" SCNx32, dpid, &k, id) != 3 ||
        (k != 'g' && k != 'm'))
        return -EINVAL;
    *kind = k == 'g' ? FM_GM_GROUP : FM_GM_METER;
    gm_key(check, *dpid, *kind, *id);
    return strcmp(check, key) == 0 ? 0 : -EINVAL;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* What an ADD GROUP_MOD or METER_MOD is: its kind and id; 0 or -EINVAL. */
static int gm_identify(const uint8_t *wire, size_t len, uint8_t *kind, uint32_t *id)
{
    struct ofp_err err;

    if (len < 16 || len > UINT16_MAX)
        return -EINVAL;
    if (wire[1] == OFPT_GROUP_MOD) {
        struct ofp_group_mod gm;
        if (ofp_group_mod_decode(wire, len, &gm, &err) < 0 || gm.command != OFPGC_ADD)
            return -EINVAL;
        *kind = FM_GM_GROUP;
        *id = gm.group_id;
        return 0;
    }
    if (wire[1] == OFPT_METER_MOD) {
        struct ofp_meter_mod mm;
        if (ofp_meter_mod_decode(wire, len, &mm, &err) < 0 || mm.command != OFPMC_ADD ||
            mm.meter_id > OFPM_MAX)
            return -EINVAL;
        *kind = FM_GM_METER;
        *id = mm.meter_id;
        return 0;
    }
    return -EINVAL;
}

/* ---- the mirror (under lock) ---------------------------------------------------- */

static bool gm_before(uint8_t kind, uint32_t id, const struct fm_gm_entry *e)
{
    return kind < e->kind || (kind == e->kind && id < e->id);
}

static struct fm_gm_entry **gm_slot(struct fm_switch *sw, uint8_t kind, uint32_t id)
{
    struct fm_gm_entry **pp = &sw->gm;
    while (*pp && !gm_before(kind, id, *pp) && !((*pp)->kind == kind && (*pp)->id == id))
        pp = &(*pp)->next;
    return pp;
}

/* The list as an array again (after a put or a delete); false when out of
 * memory (lookups then walk the list). */
static bool gm_index_build(struct fm_switch *sw)
{
    size_t n = sw->n_gm[FM_GM_GROUP] + sw->n_gm[FM_GM_METER], i = 0;
    struct fm_gm_entry **v = realloc(sw->gm_index, (n ? n : 1) * sizeof(*v));
    if (!v)
        return false;
    for (struct fm_gm_entry *e = sw->gm; e; e = e->next)
        v[i++] = e;
    sw->gm_index = v;
    sw->gm_index_n = n;
    sw->gm_index_stale = false;
    return true;
}

/* A switch's check reads up to thousands of entries against as many
 * stored: a binary search, not a walk of the list. */
struct fm_gm_entry *fm_gm_find(struct fm_switch *sw, uint8_t kind, uint32_t id)
{
    if (sw->gm_index_stale && !gm_index_build(sw)) {
        struct fm_gm_entry *e = *gm_slot(sw, kind, id);
        return e && e->kind == kind && e->id == id ? e : NULL;
    }
    size_t lo = 0, hi = sw->gm_index_n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        struct fm_gm_entry *e = sw->gm_index[mid];
        if (e->kind == kind && e->id == id)
            return e;
        if (gm_before(kind, id, e))
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}


/* A new entry of (kind, id) (not in any list yet); NULL when out of memory. */
static struct fm_gm_entry *gm_entry_new(uint8_t kind, uint32_t id, const uint8_t *wire,
                                        size_t len, const char *text, size_t text_len)
{
    struct fm_gm_entry *e = malloc(sizeof(*e) + len + text_len + 1);
    if (!e)
        return NULL;
    *e = (struct fm_gm_entry){.kind = kind, .id = id, .state = FM_GM_PENDING,
                              .len = (uint32_t)len, .text_len = (uint32_t)text_len};
    memcpy(e->data, wire, len);
    memcpy(e->data + len, text, text_len);
    e->data[len + text_len] = '\0';
    return e;
}

/* e (gm_entry_new's) into sw's list with the next version, replacing the
 * one of its id (whose on_switch it keeps). */
static struct fm_gm_entry *gm_mirror_insert(struct fm *fm, struct fm_switch *sw,
                                            struct fm_gm_entry *e)
{
    uint8_t kind = e->kind;
    uint32_t id = e->id;

    e->version = ++fm->gm_version;
    struct fm_gm_entry **pp = gm_slot(sw, kind, id);
    struct fm_gm_entry *old = *pp && (*pp)->kind == kind && (*pp)->id == id ? *pp : NULL;
    if (old) {
        e->on_switch = old->on_switch;
        e->next = old->next;
        free(old);
    } else {
        e->next = *pp;
        sw->n_gm[kind]++;
    }
    *pp = e;
    sw->gm_index_stale = true;
    return e;
}

static bool gm_mirror_del(struct fm_switch *sw, uint8_t kind, uint32_t id)
{
    struct fm_gm_entry **pp = gm_slot(sw, kind, id);
    struct fm_gm_entry *e = *pp;
    if (!e || e->kind != kind || e->id != id)
        return false;
    *pp = e->next;
    sw->n_gm[kind]--;
    free(e);
    sw->gm_index_stale = true;
    return true;
}

/* Everything queued for sw goes; how many. */
static size_t gm_queue_drop(struct fm_switch *sw)
{
    size_t n = sw->gm_queued;

    while (sw->gm_head) {
        struct fm_gm_item *it = sw->gm_head;
        sw->gm_head = it->next;
        free(it);
    }
    sw->gm_tail = NULL;
    sw->gm_queued = 0;
    return n;
}

void fm_gm_switch_free(struct fm_switch *sw)
{
    while (sw->gm) {
        struct fm_gm_entry *e = sw->gm;
        sw->gm = e->next;
        free(e);
    }
    gm_queue_drop(sw);
    free(sw->gm_index);
    sw->gm_index = NULL;
    sw->gm_index_n = 0;
}

/* ---- sending (under lock) ------------------------------------------------------- */

void fm_gm_queue(struct fm_switch *sw, uint8_t kind, uint8_t cmd, uint32_t id, bool fallback)
{
    struct fm_gm_item *it = malloc(sizeof(*it));
    if (!it) {
        LOG_ERR("flows", "switch %016" PRIx64 ": out of memory: %s %" PRIu32 " not sent "
                "(sent at the next connect)", sw->dpid, fm_gm_kind_name(kind), id);
        return;
    }
    *it = (struct fm_gm_item){.kind = kind, .cmd = cmd, .fallback = fallback, .id = id};
    if (sw->gm_tail)
        sw->gm_tail->next = it;
    else
        sw->gm_head = it;
    sw->gm_tail = it;
    sw->gm_queued++;
}

/* A node that does not write to the switch queues nothing for it: what it
 * mirrors meanwhile is laid whole when it becomes the master
 * (fm_gm_mastership), not replayed change by change. */
void fm_gm_switch_up(struct fm *fm, struct fm_switch *sw)
{
    sw->gm_sending = fm_may_write(fm, sw);
    if (!sw->gm_sending)
        return;
    for (struct fm_gm_entry *e = sw->gm; e; e = e->next) {
        e->on_switch = false;
        e->state = FM_GM_PENDING;
        e->pending_checks = 0;
        fm_gm_queue(sw, e->kind, OFPGC_ADD, e->id, false);
    }
}

void fm_gm_mastership(struct fm *fm, struct fm_switch *sw)
{
    bool sending = fm_may_write(fm, sw);
    if (sending == sw->gm_sending)
        return;
    fm->stats.dropped_on_down += gm_queue_drop(sw);
    if (sending)
        fm_gm_switch_up(fm, sw);        /* ADDs, MODIFY where the switch kept one */
    sw->gm_sending = sending;
}

void fm_gm_switch_reset(struct fm *fm, struct fm_switch *sw)
{
    sw->gm_sending = false;
    sw->gm_check_xid[0] = sw->gm_check_xid[1] = 0;  /* no answer comes on another connection */
    fm->stats.dropped_on_down += gm_queue_drop(sw);
}

/* it's message: a DELETE made in del (GM_DELETE_LEN bytes), else the
 * mirror's own bytes with its command set (fm_send_wire copies them); NULL
 * when there is nothing to send (what it would lay is no longer stored). */
static const uint8_t *gm_wire(struct fm_switch *sw, const struct fm_gm_item *it, uint8_t *del,
                              size_t *len, uint64_t *version)
{
    *version = 0;
    if (it->cmd == OFPGC_DELETE) {
        uint8_t *buf = del;
        memset(buf, 0, GM_DELETE_LEN);
        buf[0] = OFP13_VERSION;
        buf[1] = it->kind == FM_GM_GROUP ? OFPT_GROUP_MOD : OFPT_METER_MOD;
        buf[3] = GM_DELETE_LEN;
        buf[9] = OFPGC_DELETE;          /* OFPMC_DELETE has the same value */
        /* GROUP_MOD: type at 10, pad, group_id at 12; METER_MOD: flags at
         * 10, meter_id at 12. */
        buf[12] = (uint8_t)(it->id >> 24);
        buf[13] = (uint8_t)(it->id >> 16);
        buf[14] = (uint8_t)(it->id >> 8);
        buf[15] = (uint8_t)it->id;
        *len = GM_DELETE_LEN;
        return buf;
    }
    struct fm_gm_entry *e = fm_gm_find(sw, it->kind, it->id);
    if (!e)
        return NULL;
    e->data[8] = 0;
    e->data[9] = it->cmd;
    *len = e->len;
    *version = e->version;
    return e->data;
}

void fm_gm_pump(struct fm *fm, struct fm_switch *sw, size_t *room)
{
    if (*room < 2) {
        fm->stats.ring_full++;
        return;
    }
    size_t cap = *room - 1 < GM_BATCH_MAX ? *room - 1 : GM_BATCH_MAX;
    if (cap > sw->gm_queued)
        cap = sw->gm_queued;
    struct fm_batch *batch = malloc(sizeof(*batch) + cap * sizeof(batch->sent[0]));
    if (!batch)
        return;                         /* retried on the next tick */
    batch->n = 0;
    while (sw->gm_head && batch->n < cap) {
        struct fm_gm_item *it = sw->gm_head;
        uint8_t del[GM_DELETE_LEN];
        uint64_t version;
        size_t len;
        const uint8_t *wire = gm_wire(sw, it, del, &len, &version);
        if (wire) {
            uint32_t xid = fm_next_xid(sw);
            if (fm_send_wire(fm, sw, wire, len, xid, OFP_PRIO_P3) < 0) {
                fm->stats.ring_full++;
                break;
            }
            fm->stats.gm_mods_sent++;
            batch->sent[batch->n++] = (struct fm_sent){
                .xid = xid, .is_add = it->cmd != OFPGC_DELETE, .kind = it->kind,
                .gm_cmd = it->cmd, .gm_fallback = it->fallback, .match_id = it->id,
                .flow_id = version};
            struct fm_gm_entry *e = it->cmd != OFPGC_DELETE ? fm_gm_find(sw, it->kind, it->id)
                                                            : NULL;
            if (e)
                e->on_switch = true;
        }
        sw->gm_head = it->next;
        if (!sw->gm_head)
            sw->gm_tail = NULL;
        sw->gm_queued--;
        free(it);
    }
    if (batch->n == 0) {
        free(batch);
        return;
    }
    *room -= batch->n + 1;
    fm_send_barrier(fm, sw, batch);
}

void fm_gm_confirmed(struct fm *fm, struct fm_switch *sw, const struct fm_sent *s)
{
    if (s->failed || s->gm_cmd == OFPGC_DELETE)
        return;
    struct fm_gm_entry *e = fm_gm_find(sw, s->kind, (uint32_t)s->match_id);
    if (!e || e->version != s->flow_id || e->state == FM_GM_INSTALLED)
        return;                         /* replaced or deleted since: its own send decides */
    e->state = FM_GM_INSTALLED;
    fm->stats.gm_installed++;
}

/* The refusal that means "try the other command": an ADD of an id the
 * switch kept, a MODIFY of one it does not have. */
static bool gm_other_command(const struct fm_sent *s, uint16_t type, uint16_t code)
{
    if (s->gm_fallback)
        return false;
    if (s->kind == FM_GM_GROUP)
        return type == OFPET_GROUP_MOD_FAILED &&
               ((s->gm_cmd == OFPGC_ADD && code == OFPGMFC_GROUP_EXISTS) ||
                (s->gm_cmd == OFPGC_MODIFY && code == OFPGMFC_UNKNOWN_GROUP));
    return type == OFPET_METER_MOD_FAILED &&
           ((s->gm_cmd == OFPMC_ADD && code == OFPMMFC_METER_EXISTS) ||
            (s->gm_cmd == OFPMC_MODIFY && code == OFPMMFC_UNKNOWN_METER));
}

void fm_gm_rejected(struct fm *fm, struct fm_switch *sw, const struct fm_sent *s,
                    uint16_t type, uint16_t code, const char *reason)
{
    uint32_t id = (uint32_t)s->match_id;
    struct fm_gm_entry *e = s->gm_cmd != OFPGC_DELETE ? fm_gm_find(sw, s->kind, id) : NULL;

    if (e && e->version != s->flow_id)
        return;                         /* replaced since: its own send decides */
    if (e && gm_other_command(s, type, code) && sw->gm_queued < FM_GM_QUEUE_MAX) {
        fm->stats.gm_fallbacks++;
        fm_gm_queue(sw, s->kind, s->gm_cmd == OFPGC_ADD ? OFPGC_MODIFY : OFPGC_ADD, id, true);
        return;
    }
    fm->stats.gm_errors++;
    LOG_WARN_RL(&fm->rl_log.rejected, fm_now_us(fm), "flows", "switch %016" PRIx64
                " rejected %s %" PRIu32 " (%s): %s", sw->dpid, fm_gm_kind_name(s->kind), id,
                s->gm_cmd == OFPGC_DELETE ? "delete" : s->gm_cmd == OFPGC_ADD ? "add" : "modify",
                reason);
    if (!e)
        return;
    e->state = FM_GM_ERROR;
    e->err_type = type;
    e->err_code = code;
}

/* ---- REST threads --------------------------------------------------------------- */

int fm_gm_put(struct fm *fm, uint64_t dpid, const uint8_t *wire, size_t len, const char *text,
              size_t text_len)
{
    uint8_t kind;
    uint32_t id;
    char key[GM_KEY_MAX];

    if (gm_identify(wire, len, &kind, &id) < 0 || text_len > FM_GM_TEXT_MAX)
        return -EINVAL;
    uint8_t *val = malloc(GM_VALUE_HEAD + len + text_len);
    if (!val)
        return -ENOMEM;
    memcpy(val, GM_VALUE_MAGIC, 4);
    for (int i = 0; i < 4; i++)
        val[4 + i] = (uint8_t)(len >> (24 - 8 * i));
    memcpy(val + GM_VALUE_HEAD, wire, len);
    memcpy(val + GM_VALUE_HEAD + len, text, text_len);
    gm_key(key, dpid, kind, id);

    /* Everything the mirror needs is had before the store is written: a
     * change stored is a change mirrored. */
    struct fm_gm_entry *e = gm_entry_new(kind, id, wire, len, text, text_len);
    pthread_mutex_lock(&fm->gm_write);
    pthread_mutex_lock(&fm->lock);
    struct fm_switch *sw = e ? fm_switch_get(fm, dpid) : NULL;
    bool full = sw && !fm_gm_find(sw, kind, id) && sw->n_gm[kind] >= FM_GM_PER_SWITCH;
    bool busy = sw && sw->gm_queued >= FM_GM_QUEUE_MAX;
    pthread_mutex_unlock(&fm->lock);
    int rc = !sw    ? -ENOMEM
             : full ? -ENOSPC
             : busy ? -EBUSY
                    : store_kv_put(fm->store, key, val, GM_VALUE_HEAD + len + text_len);
    free(val);
    /* In a cluster the watch has mirrored the commit already (fm_gm_follow:
     * the store calls it before the write's answer). */
    if (rc == 0 && !fm->cfg.shared_store) {
        pthread_mutex_lock(&fm->lock);
        const struct fm_gm_entry *had = fm_gm_find(sw, kind, id);
        bool held = had && had->on_switch;
        gm_mirror_insert(fm, sw, e);
        e = NULL;
        if (sw->up) {
            fm_gm_queue(sw, kind, held ? OFPGC_MODIFY : OFPGC_ADD, id, false);
            size_t room = fm->env.room(fm->env.arg, sw->conn, OFP_PRIO_P3);
            fm_gm_pump(fm, sw, &room);  /* or on the next tick */
        }
        pthread_mutex_unlock(&fm->lock);
    }
    pthread_mutex_unlock(&fm->gm_write);
    free(e);
    return rc;
}

int fm_gm_del(struct fm *fm, uint64_t dpid, enum fm_gm_kind kind, uint32_t id)
{
    char key[GM_KEY_MAX];

    if (kind != FM_GM_GROUP && kind != FM_GM_METER)
        return -EINVAL;
    gm_key(key, dpid, (uint8_t)kind, id);
    pthread_mutex_lock(&fm->gm_write);
    pthread_mutex_lock(&fm->lock);
    struct fm_switch *was = fm_switch_find(fm, dpid);
    bool busy = was && was->gm_queued >= FM_GM_QUEUE_MAX;
    pthread_mutex_unlock(&fm->lock);
    int rc = busy ? -EBUSY : store_kv_del(fm->store, key);
    if (rc == 0 && !fm->cfg.shared_store) {     /* a cluster's: as for a put */
        pthread_mutex_lock(&fm->lock);
        struct fm_switch *sw = fm_switch_find(fm, dpid);
        if (sw && gm_mirror_del(sw, (uint8_t)kind, id) && sw->up) {
            fm_gm_queue(sw, (uint8_t)kind, OFPGC_DELETE, id, false);
            size_t room = fm->env.room(fm->env.arg, sw->conn, OFP_PRIO_P3);
            fm_gm_pump(fm, sw, &room);
        }
        pthread_mutex_unlock(&fm->lock);
    }
    pthread_mutex_unlock(&fm->gm_write);
    return rc;
}

/* One entry's copy into *out, its state as this node knows it (known:
 * one node, or the switch's master); -ENOMEM. */
static int gm_info(const struct fm_gm_entry *e, bool known, struct fm_gm_info *out)
{
    char *text = malloc(e->text_len + 1);
    if (!text)
        return -ENOMEM;
    memcpy(text, e->data + e->len, e->text_len + 1);
    *out = (struct fm_gm_info){.kind = (enum fm_gm_kind)e->kind, .id = e->id,
                               .state = known ? (enum fm_gm_state)e->state : FM_GM_UNKNOWN,
                               .err_type = e->err_type,
                               .err_code = e->err_code, .text = text, .text_len = e->text_len};
    return 0;
}

/* Only the node that sends to the switch hears its barriers and errors. */
static bool gm_state_known(struct fm *fm, const struct fm_switch *sw)
{
    return !fm->cfg.shared_store || fm_may_write(fm, sw);
}

int fm_gm_get(struct fm *fm, uint64_t dpid, enum fm_gm_kind kind, uint32_t id,
              struct fm_gm_info *out)
{
    pthread_mutex_lock(&fm->lock);
    struct fm_switch *sw = fm_switch_find(fm, dpid);
    const struct fm_gm_entry *e = sw ? fm_gm_find(sw, (uint8_t)kind, id) : NULL;
    int rc = e ? gm_info(e, gm_state_known(fm, sw), out) : -ENOENT;
    pthread_mutex_unlock(&fm->lock);
    return rc;
}

int fm_gm_list(struct fm *fm, uint64_t dpid, enum fm_gm_kind kind, struct fm_gm_info **out)
{
    int n = 0, rc = 0;

    *out = NULL;
    pthread_mutex_lock(&fm->lock);
    struct fm_switch *sw = fm_switch_find(fm, dpid);
    size_t total = sw ? sw->n_gm[FM_GM_GROUP] + sw->n_gm[FM_GM_METER] : 0;
    struct fm_gm_info *v = calloc(total ? total : 1, sizeof(*v));
    for (struct fm_gm_entry *e = sw ? sw->gm : NULL; v && e; e = e->next) {
        if (kind && e->kind != kind)
            continue;
        if ((rc = gm_info(e, gm_state_known(fm, sw), &v[n])) < 0)
            break;
        n++;
    }
    pthread_mutex_unlock(&fm->lock);
    if (!v || rc < 0) {
        fm_gm_infos_free(v, n);
        return -ENOMEM;
    }
    *out = v;
    return n;
}

void fm_gm_infos_free(struct fm_gm_info *v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i].text);
    free(v);
}

/* ---- records ------------------------------------------------------------------- */

/* A record as stored: key and value read into a new entry (not in any
 * list) and its switch. -EINVAL when it is not a group or meter this ofcd
 * can lay, -ENOMEM. */
static int gm_record_parse(const char *key, const uint8_t *v, size_t len, uint64_t *dpid,
                           struct fm_gm_entry **out)
{
    uint32_t id, wid;
    uint8_t kind, wkind;

    size_t wlen = len >= GM_VALUE_HEAD ? be32(v + 4) : 0;
    bool ok = gm_key_parse(key, dpid, &kind, &id) == 0 && len >= GM_VALUE_HEAD &&
              memcmp(v, GM_VALUE_MAGIC, 4) == 0 && wlen <= len - GM_VALUE_HEAD &&
              gm_identify(v + GM_VALUE_HEAD, wlen, &wkind, &wid) == 0 && wkind == kind &&
              wid == id && len - GM_VALUE_HEAD - wlen <= FM_GM_TEXT_MAX;
    if (!ok)
        return -EINVAL;
    *out = gm_entry_new(kind, id, v + GM_VALUE_HEAD, wlen, (const char *)v + GM_VALUE_HEAD + wlen,
                        len - GM_VALUE_HEAD - wlen);
    return *out ? 0 : -ENOMEM;
}

/* ---- a cluster's watch ---------------------------------------------------------- */

bool fm_gm_is_key(const char *key)
{
    return strncmp(key, GM_KEY_PREFIX, sizeof(GM_KEY_PREFIX) - 1) == 0;
}

/* Under lock: one more message for sw, unless its queue is at its bound
 * (then the master's check lays or deletes it: counted, not lost). */
static void gm_follow_queue(struct fm *fm, struct fm_switch *sw, uint8_t kind, uint8_t cmd,
                            uint32_t id)
{
    if (sw->gm_queued >= FM_GM_QUEUE_MAX) {
        fm->stats.gm_unqueued++;
        return;
    }
    fm_gm_queue(sw, kind, cmd, id, false);
}

/* Under lock: does this node queue sw's changes now? A mastership lost
 * since the last tick is seen here at once (the queue dropped), so the
 * next tick that finds it master again lays everything anew. */
static bool gm_may_queue(struct fm *fm, struct fm_switch *sw)
{
    if (!sw->up || !sw->gm_sending)
        return false;
    if (fm_may_write(fm, sw))
        return true;
    fm->stats.dropped_on_down += gm_queue_drop(sw);
    sw->gm_sending = false;
    return false;
}

/* Under lock: the record of key is gone (removed, or not found on reading). */
static int gm_follow_removed(struct fm *fm, const char *key)
{
    uint64_t dpid;
    uint32_t id;
    uint8_t kind;

    if (gm_key_parse(key, &dpid, &kind, &id) < 0)
        return -EINVAL;
    struct fm_switch *sw = fm_switch_find(fm, dpid);
    if (!sw || !gm_mirror_del(sw, kind, id))
        return 0;
    fm->stats.gm_followed++;
    if (gm_may_queue(fm, sw))
        gm_follow_queue(fm, sw, kind, OFPGC_DELETE, id);
    fm_pump_now(fm, sw);
    return 0;
}

/* Under lock: e (parsed from the store) is what dpid now stores. */
static int gm_follow_put(struct fm *fm, uint64_t dpid, struct fm_gm_entry *e)
{
    struct fm_switch *sw = fm_switch_get(fm, dpid);
    if (!sw) {
        free(e);
        return -ENOMEM;
    }
    const struct fm_gm_entry *had = fm_gm_find(sw, e->kind, e->id);
    /* Bytes 8-9 (the command) are the sender's to set (gm_wire). */
    if (had && had->len == e->len && had->text_len == e->text_len &&
        memcmp(had->data, e->data, 8) == 0 &&
        memcmp(had->data + 10, e->data + 10, e->len - 10) == 0 &&
        memcmp(had->data + had->len, e->data + e->len, e->text_len) == 0) {
        free(e);                        /* the same (its command byte is the mirror's own) */
        return 0;
    }
    bool held = had && had->on_switch;
    uint8_t kind = e->kind;
    uint32_t id = e->id;
    gm_mirror_insert(fm, sw, e);
    fm->stats.gm_followed++;
    if (gm_may_queue(fm, sw))
        gm_follow_queue(fm, sw, kind, held ? OFPGC_MODIFY : OFPGC_ADD, id);
    fm_pump_now(fm, sw);
    return 0;
}

int fm_gm_follow(struct fm *fm, const char *key, bool removed)
{
    char *val = NULL;
    size_t len = 0;
    struct fm_gm_entry *e = NULL;
    uint64_t dpid = 0;

    if (!fm_gm_is_key(key))
        return -EINVAL;
    int rc = removed ? -ENOENT : store_kv_get(fm->store, key, &val, &len);
    if (rc == 0)
        rc = gm_record_parse(key, (const uint8_t *)val, len, &dpid, &e);
    free(val);
    pthread_mutex_lock(&fm->lock);
    if (rc == 0)
        rc = gm_follow_put(fm, dpid, e);
    else if (rc == -ENOENT)
        rc = gm_follow_removed(fm, key);
    pthread_mutex_unlock(&fm->lock);
    if (rc == -EINVAL)
        LOG_ERR("flows", "record %s changed in the cluster is not a group or meter this ofcd "
                "can lay; not managed", key);
    return rc;
}

/* ---- start -------------------------------------------------------------------- */

struct gm_load_ctx {
    struct fm *fm;
    unsigned long loaded, bad;
};

static int gm_load_one(const char *key, const void *val, size_t len, void *arg)
{
    struct gm_load_ctx *lc = arg;
    struct fm_gm_entry *e = NULL;
    uint64_t dpid = 0;

    int rc = gm_record_parse(key, val, len, &dpid, &e);
    struct fm_switch *sw = rc == 0 ? fm_switch_get(lc->fm, dpid) : NULL;
    if (!sw) {
        free(e);
        if (lc->bad++ < 10)
            LOG_ERR("flows", "stored record %s is not a group or meter this ofcd can lay; "
                    "kept in the store, not managed", key);
        return 0;
    }
    gm_mirror_insert(lc->fm, sw, e);
    lc->loaded++;
    return 0;
}

int fm_gm_load(struct fm *fm)
{
    struct gm_load_ctx lc = {.fm = fm};
    int rc = store_kv_foreach(fm->store, GM_KEY_PREFIX, gm_load_one, &lc);
    if (rc < 0) {
        LOG_ERR("flows", "cannot read the stored groups and meters: %s", strerror(-rc));
        return rc;
    }
    if (lc.loaded || lc.bad)
        LOG_INFO("flows", "flow manager: %lu stored groups and meters loaded (%lu unusable)",
                 lc.loaded, lc.bad);
    return 0;
}
