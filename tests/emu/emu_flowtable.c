/*
 * emu_flowtable.c - FLOW_MOD semantics over per-table dense arrays with a hash index on
 * (priority, normalised match).  See emu_flowtable.h for the contract.
 *
 * Removal swaps the last flow into the hole, so flow order changes on delete; callers
 * iterating while removing walk from the end.  The hash uses linear probing with
 * backward-shift deletion, so no tombstones accumulate under churn.
 */
#include "emu_flowtable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu_oxm.h"

#define NS_PER_SEC 1000000000ull

struct emu_ft *emu_ft_new(uint8_t n_tables, uint32_t max_flows)
{
    if (n_tables == 0)
        return NULL;
    struct emu_ft *ft = calloc(1, sizeof(*ft));
    if (!ft)
        return NULL;
    ft->n_tables = n_tables;
    ft->max_flows = max_flows;
    return ft;
}

static void table_clear(struct emu_ft_table *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        free(t->flows[i].data);
    free(t->flows);
    free(t->slots);
    memset(t, 0, sizeof(*t));
}

void emu_ft_free(struct emu_ft *ft)
{
    if (!ft)
        return;
    if (ft->tables)
        for (unsigned i = 0; i < ft->n_tables; i++)
            table_clear(&ft->tables[i]);
    free(ft->tables);
    free(ft);
}

static uint32_t flow_hash(uint16_t priority, const uint8_t *m, size_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    h = (h ^ (priority >> 8)) * 16777619u;
    h = (h ^ (priority & 0xff)) * 16777619u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ m[i]) * 16777619u;
    return h;
}

static bool same_key(const struct emu_ft_flow *f, uint16_t priority, const uint8_t *m,
                     size_t len)
{
    return f->priority == priority && f->match_len == len &&
           memcmp(emu_ft_flow_match(f), m, len) == 0;
}

/* Index of the flow with this exact (priority, match), or -1. */
static int64_t table_find(const struct emu_ft_table *t, uint32_t h, uint16_t priority,
                          const uint8_t *m, size_t len)
{
    if (!t->n_slots)
        return -1;
    uint32_t mask = t->n_slots - 1;
    for (uint32_t i = h & mask;; i = (i + 1) & mask) {
        uint32_t s = t->slots[i];
        if (!s)
            return -1;
        const struct emu_ft_flow *f = &t->flows[s - 1];
        if (f->hash == h && same_key(f, priority, m, len))
            return s - 1;
    }
}

static void slot_put(uint32_t *slots, uint32_t n_slots, uint32_t h, uint32_t idx)
{
    uint32_t mask = n_slots - 1;
    uint32_t i = h & mask;
    while (slots[i])
        i = (i + 1) & mask;
    slots[i] = idx + 1;
}

static int table_rehash(struct emu_ft_table *t, uint32_t n_slots)
{
    uint32_t *slots = calloc(n_slots, sizeof(*slots));
    if (!slots)
        return -ENOMEM;
    for (uint32_t i = 0; i < t->n; i++)
        slot_put(slots, n_slots, t->flows[i].hash, i);
    free(t->slots);
    t->slots = slots;
    t->n_slots = n_slots;
    return 0;
}

/* Position in slots[] of the slot holding flow idx. */
static uint32_t slot_of(const struct emu_ft_table *t, uint32_t idx)
{
    uint32_t mask = t->n_slots - 1;
    uint32_t i = t->flows[idx].hash & mask;
    while (t->slots[i] != idx + 1)
        i = (i + 1) & mask;
    return i;
}

static void slot_delete(struct emu_ft_table *t, uint32_t idx)
{
    uint32_t mask = t->n_slots - 1;
    uint32_t hole = slot_of(t, idx);
    t->slots[hole] = 0;
    /* Backward shift: pull later members of the probe run into the hole when their home
     * slot does not lie cyclically in (hole, j]. */
    for (uint32_t j = (hole + 1) & mask; t->slots[j]; j = (j + 1) & mask) {
        uint32_t home = t->flows[t->slots[j] - 1].hash & mask;
        bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!stays) {
            t->slots[hole] = t->slots[j];
            t->slots[j] = 0;
            hole = j;
        }
    }
}

static bool has_timeout(const struct emu_ft_flow *f)
{
    return f->idle_timeout || f->hard_timeout;
}

static void table_remove_at(struct emu_ft_table *t, uint32_t idx)
{
    slot_delete(t, idx);
    if (has_timeout(&t->flows[idx]))
        t->n_timed--;
    free(t->flows[idx].data);
    uint32_t last = t->n - 1;
    if (idx != last) {
        uint32_t s = slot_of(t, last);
        t->flows[idx] = t->flows[last];
        t->slots[s] = idx + 1;
    }
    t->n--;
}

static uint8_t *flow_data(const struct emu_ft_mod *m)
{
    uint8_t *d = malloc(m->match_len + m->instr_len + 1);
    if (!d)
        return NULL;
    if (m->match_len)
        memcpy(d, m->match, m->match_len);
    if (m->instr_len)
        memcpy(d + m->match_len, m->instr, m->instr_len);
    return d;
}

static void flow_fill(struct emu_ft_flow *f, const struct emu_ft_mod *m, uint8_t *data,
                      uint32_t h, uint64_t now)
{
    memset(f, 0, sizeof(*f));
    f->cookie = m->cookie;
    f->installed_ns = now;
    f->touched_ns = now;
    f->hash = h;
    f->priority = m->priority;
    f->idle_timeout = m->idle_timeout;
    f->hard_timeout = m->hard_timeout;
    f->flags = m->flags;
    f->match_len = (uint16_t)m->match_len;
    f->instr_len = (uint16_t)m->instr_len;
    f->data = data;
}

static int set_err(struct emu_oferr *err, uint16_t code)
{
    if (err) {
        err->type = EMU_OFPET_FLOW_MOD_FAILED;
        err->code = code;
    }
    return -EINVAL;
}

static int ensure_tables(struct emu_ft *ft)
{
    if (ft->tables)
        return 0;
    ft->tables = calloc(ft->n_tables, sizeof(*ft->tables));
    return ft->tables ? 0 : -ENOMEM;
}

static int flow_add(struct emu_ft *ft, struct emu_ft_table *t, const struct emu_ft_mod *m,
                    uint64_t now, struct emu_oferr *err)
{
    uint32_t h = flow_hash(m->priority, m->match, m->match_len);
    int64_t same = table_find(t, h, m->priority, m->match, m->match_len);
    if (m->flags & EMU_OFPFF_CHECK_OVERLAP) {
        /* An identical flow overlaps too: one packet matches both. */
        for (uint32_t i = 0; i < t->n; i++) {
            const struct emu_ft_flow *f = &t->flows[i];
            if (f->priority == m->priority &&
                emu_oxm_overlap(emu_ft_flow_match(f), f->match_len, m->match, m->match_len))
                return set_err(err, EMU_OFPFMFC_OVERLAP);
        }
    }
    uint8_t *data = flow_data(m);
    if (!data)
        return -ENOMEM;
    if (same >= 0) {
        /* Spec 6.4: the old entry, duration and counters included, is cleared. */
        struct emu_ft_flow *f = &t->flows[same];
        if (has_timeout(f))
            t->n_timed--;
        free(f->data);
        flow_fill(f, m, data, h, now);
        if (has_timeout(f))
            t->n_timed++;
        return 0;
    }
    if (t->n >= ft->max_flows) {
        free(data);
        return set_err(err, EMU_OFPFMFC_TABLE_FULL);
    }
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 8;
        struct emu_ft_flow *nf = realloc(t->flows, cap * sizeof(*nf));
        if (!nf) {
            free(data);
            return -ENOMEM;
        }
        t->flows = nf;
        t->cap = cap;
    }
    if ((t->n + 1) * 2 > t->n_slots) {
        if (table_rehash(t, t->n_slots ? t->n_slots * 2 : 16)) {
            free(data);
            return -ENOMEM;
        }
    }
    struct emu_ft_flow *f = &t->flows[t->n];
    flow_fill(f, m, data, h, now);
    slot_put(t->slots, t->n_slots, h, t->n);
    t->n++;
    ft->n_flows++;
    if (has_timeout(f))
        t->n_timed++;
    return 0;
}

static bool cookie_ok(uint64_t flow_cookie, uint64_t cookie, uint64_t mask)
{
    return (flow_cookie & mask) == (cookie & mask);
}

bool emu_ft_filter_match(const struct emu_ft_filter *flt, const struct emu_ft_flow *f)
{
    if (!cookie_ok(f->cookie, flt->cookie, flt->cookie_mask))
        return false;
    if (flt->strict) {
        if (!same_key(f, flt->priority, flt->match, flt->match_len))
            return false;
    } else if (!emu_oxm_within(flt->match, flt->match_len, emu_ft_flow_match(f),
                               f->match_len)) {
        return false;
    }
    return emu_ofp_instr_outputs(emu_ft_flow_instr(f), f->instr_len, flt->out_port,
                                 flt->out_group);
}

static int flow_modify_one(struct emu_ft_flow *f, const struct emu_ft_mod *m)
{
    uint8_t *data = malloc(f->match_len + m->instr_len + 1);
    if (!data)
        return -ENOMEM;
    memcpy(data, f->data, f->match_len);
    if (m->instr_len)
        memcpy(data + f->match_len, m->instr, m->instr_len);
    free(f->data);
    f->data = data;
    f->instr_len = (uint16_t)m->instr_len;
    /* Cookie, timeouts and flags stay (spec 6.4); counters only on request. */
    if (m->flags & EMU_OFPFF_RESET_COUNTS) {
        f->packet_count = 0;
        f->byte_count = 0;
    }
    return 0;
}

static int flow_modify(struct emu_ft_table *t, const struct emu_ft_mod *m, bool strict)
{
    struct emu_ft_filter flt = {
        .strict = strict,
        .priority = m->priority,
        .out_port = EMU_OFPP_ANY, /* ignored by modify in OF1.3 */
        .out_group = EMU_OFPG_ANY,
        .cookie = m->cookie,
        .cookie_mask = m->cookie_mask,
        .match = m->match,
        .match_len = m->match_len,
    };
    if (strict) {
        uint32_t h = flow_hash(m->priority, m->match, m->match_len);
        int64_t i = table_find(t, h, m->priority, m->match, m->match_len);
        if (i >= 0 && emu_ft_filter_match(&flt, &t->flows[i]))
            return flow_modify_one(&t->flows[i], m);
        return 0; /* OF1.3: no match is not an error and adds nothing */
    }
    for (uint32_t i = 0; i < t->n; i++) {
        if (emu_ft_filter_match(&flt, &t->flows[i])) {
            int rc = flow_modify_one(&t->flows[i], m);
            if (rc)
                return rc;
        }
    }
    return 0;
}

static void flow_delete(struct emu_ft *ft, struct emu_ft_table *t, uint8_t table_id,
                        const struct emu_ft_mod *m, bool strict, uint64_t now,
                        emu_ft_removed_fn removed, void *arg)
{
    struct emu_ft_filter flt = {
        .strict = strict,
        .priority = m->priority,
        .out_port = m->out_port,
        .out_group = m->out_group,
        .cookie = m->cookie,
        .cookie_mask = m->cookie_mask,
        .match = m->match,
        .match_len = m->match_len,
    };
    if (strict) {
        uint32_t h = flow_hash(m->priority, m->match, m->match_len);
        int64_t i = table_find(t, h, m->priority, m->match, m->match_len);
        if (i < 0 || !emu_ft_filter_match(&flt, &t->flows[i]))
            return;
        if (removed)
            removed(arg, table_id, &t->flows[i], EMU_OFPRR_DELETE, now);
        table_remove_at(t, (uint32_t)i);
        ft->n_flows--;
        return;
    }
    for (uint32_t i = t->n; i-- > 0;) {
        if (!emu_ft_filter_match(&flt, &t->flows[i]))
            continue;
        if (removed)
            removed(arg, table_id, &t->flows[i], EMU_OFPRR_DELETE, now);
        table_remove_at(t, i);
        ft->n_flows--;
    }
}

int emu_ft_apply(struct emu_ft *ft, const struct emu_ft_mod *m, uint64_t now_ns,
                 emu_ft_removed_fn removed, void *arg, struct emu_oferr *err)
{
    if (m->command > EMU_OFPFC_DELETE_STRICT)
        return set_err(err, EMU_OFPFMFC_BAD_COMMAND);
    if (m->flags & ~EMU_OFPFF_ALL)
        return set_err(err, EMU_OFPFMFC_BAD_FLAGS);
    bool is_delete = m->command == EMU_OFPFC_DELETE || m->command == EMU_OFPFC_DELETE_STRICT;
    if (m->table_id == EMU_OFPTT_ALL ? !is_delete : m->table_id >= ft->n_tables)
        return set_err(err, EMU_OFPFMFC_BAD_TABLE_ID);

    if (is_delete) {
        if (!ft->tables)
            return 0;
        unsigned lo = m->table_id == EMU_OFPTT_ALL ? 0 : m->table_id;
        unsigned hi = m->table_id == EMU_OFPTT_ALL ? ft->n_tables : lo + 1u;
        for (unsigned i = lo; i < hi; i++)
            flow_delete(ft, &ft->tables[i], (uint8_t)i, m,
                        m->command == EMU_OFPFC_DELETE_STRICT, now_ns, removed, arg);
        return 0;
    }
    if (ensure_tables(ft))
        return -ENOMEM;
    struct emu_ft_table *t = &ft->tables[m->table_id];
    if (m->command == EMU_OFPFC_ADD)
        return flow_add(ft, t, m, now_ns, err);
    return flow_modify(t, m, m->command == EMU_OFPFC_MODIFY_STRICT);
}

uint32_t emu_ft_table_count(const struct emu_ft *ft, uint8_t table_id)
{
    if (!ft->tables || table_id >= ft->n_tables)
        return 0;
    return ft->tables[table_id].n;
}

const struct emu_ft_flow *emu_ft_get(const struct emu_ft *ft, uint8_t table_id, uint32_t idx)
{
    if (idx >= emu_ft_table_count(ft, table_id))
        return NULL;
    return &ft->tables[table_id].flows[idx];
}

struct emu_ft_table *emu_ft_table(struct emu_ft *ft, uint8_t table_id)
{
    if (!ft->tables || table_id >= ft->n_tables)
        return NULL;
    return &ft->tables[table_id];
}

bool emu_ft_has_timeouts(const struct emu_ft *ft)
{
    if (!ft->tables)
        return false;
    for (unsigned i = 0; i < ft->n_tables; i++)
        if (ft->tables[i].n_timed)
            return true;
    return false;
}

uint32_t emu_ft_expire(struct emu_ft *ft, uint64_t now_ns, emu_ft_removed_fn removed,
                       void *arg)
{
    uint32_t gone = 0;
    if (!ft->tables)
        return 0;
    for (unsigned ti = 0; ti < ft->n_tables; ti++) {
        struct emu_ft_table *t = &ft->tables[ti];
        for (uint32_t i = t->n; t->n_timed && i-- > 0;) {
            const struct emu_ft_flow *f = &t->flows[i];
            uint8_t reason;
            if (f->hard_timeout && now_ns - f->installed_ns >= f->hard_timeout * NS_PER_SEC)
                reason = EMU_OFPRR_HARD_TIMEOUT;
            else if (f->idle_timeout &&
                     now_ns - f->touched_ns >= f->idle_timeout * NS_PER_SEC)
                reason = EMU_OFPRR_IDLE_TIMEOUT;
            else
                continue;
            if (removed)
                removed(arg, (uint8_t)ti, f, reason, now_ns);
            table_remove_at(t, i);
            ft->n_flows--;
            gone++;
        }
    }
    return gone;
}
