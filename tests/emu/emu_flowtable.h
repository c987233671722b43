/*
 * emu_flowtable.h - the flow tables of one emulated switch.
 *
 * Applies FLOW_MODs with OpenFlow 1.3 semantics (spec 6.4): ADD with the overlap check
 * flag and replacement of an identical match+priority, MODIFY/MODIFY_STRICT, DELETE/
 * DELETE_STRICT with cookie/cookie_mask and out_port/out_group filters, table-full
 * errors, hard/idle expiry.  Matches are normalised OXM byte strings (emu_oxm.h), so
 * "identical" is a byte comparison and non-strict selection is emu_oxm_within().
 *
 * Pure logic: no I/O, time passed in as nanoseconds. The agent (emu_agent.c) calls it;
 * removals are reported through a callback so the agent can send FLOW_REMOVED.
 * Each table keeps its flows in a dense array plus an open-addressing hash on
 * (priority, match), so identical-flow lookups do not scan the table.
 */
#ifndef EMU_FLOWTABLE_H
#define EMU_FLOWTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu_ofp.h"

struct emu_ft_flow {
    uint64_t cookie;
    uint64_t packet_count;
    uint64_t byte_count;
    uint64_t installed_ns;  /* reported duration counts from here */
    uint64_t touched_ns;    /* idle timeout counts from here (no traffic hits flows) */
    uint32_t hash;
    uint16_t priority;
    uint16_t idle_timeout;
    uint16_t hard_timeout;
    uint16_t flags;
    uint16_t match_len;
    uint16_t instr_len;
    uint8_t *data;          /* match_len bytes of normalised match, then instructions */
};

static inline const uint8_t *emu_ft_flow_match(const struct emu_ft_flow *f)
{
    return f->data;
}

static inline const uint8_t *emu_ft_flow_instr(const struct emu_ft_flow *f)
{
    return f->data + f->match_len;
}

struct emu_ft_table {
    struct emu_ft_flow *flows;
    uint32_t n;
    uint32_t cap;
    uint32_t *slots;        /* flow index + 1, 0 = empty */
    uint32_t n_slots;       /* power of two, or 0 */
    uint32_t n_timed;       /* flows with a timeout: expiry scans only these tables */
    uint64_t lookup_count;
    uint64_t matched_count;
};

struct emu_ft {
    uint8_t n_tables;
    uint32_t max_flows;            /* per table: beyond it ADD fails with TABLE_FULL */
    struct emu_ft_table *tables;   /* allocated on the first flow */
    uint32_t n_flows;              /* over all tables */
};

/* A FLOW_MOD whose match is already normalised (emu_oxm_normalise). */
struct emu_ft_mod {
    uint8_t command;
    uint8_t table_id;
    uint16_t priority;
    uint16_t idle_timeout;
    uint16_t hard_timeout;
    uint16_t flags;
    uint64_t cookie;
    uint64_t cookie_mask;
    uint32_t out_port;
    uint32_t out_group;
    const uint8_t *match;
    size_t match_len;
    const uint8_t *instr;
    size_t instr_len;
};

/* Selection used by non-strict modify/delete and by FLOW/AGGREGATE stats. */
struct emu_ft_filter {
    uint8_t table_id;       /* or EMU_OFPTT_ALL */
    bool strict;            /* exact match and priority instead of "within" */
    uint16_t priority;      /* strict only */
    uint32_t out_port;      /* EMU_OFPP_ANY: no filter */
    uint32_t out_group;     /* EMU_OFPG_ANY: no filter */
    uint64_t cookie;
    uint64_t cookie_mask;
    const uint8_t *match;   /* normalised */
    size_t match_len;
};

/* Called for each flow leaving a table, before it is freed. reason: EMU_OFPRR_*. */
typedef void (*emu_ft_removed_fn)(void *arg, uint8_t table_id, const struct emu_ft_flow *f,
                                  uint8_t reason, uint64_t now_ns);

/* Returns NULL on allocation failure or n_tables == 0. */
struct emu_ft *emu_ft_new(uint8_t n_tables, uint32_t max_flows);
void emu_ft_free(struct emu_ft *ft);

/*
 * Applies one FLOW_MOD at time now_ns.
 * Returns 0; -EINVAL when the switch rejects it, with *err the OpenFlow error to send
 * (bad table id, table full, overlap, bad command, bad flags); -ENOMEM.
 * removed (may be NULL) is called for each flow deleted.
 */
int emu_ft_apply(struct emu_ft *ft, const struct emu_ft_mod *m, uint64_t now_ns,
                 emu_ft_removed_fn removed, void *arg, struct emu_oferr *err);

/* Does flow f of some table satisfy the filter (table aside)? */
bool emu_ft_filter_match(const struct emu_ft_filter *flt, const struct emu_ft_flow *f);

/* Flow count of a table (0 for a table never used or out of range). */
uint32_t emu_ft_table_count(const struct emu_ft *ft, uint8_t table_id);
/* The idx-th flow of a table, idx < emu_ft_table_count(); stable while nothing changes. */
const struct emu_ft_flow *emu_ft_get(const struct emu_ft *ft, uint8_t table_id, uint32_t idx);
/* NULL for a table never used. */
struct emu_ft_table *emu_ft_table(struct emu_ft *ft, uint8_t table_id);

/* Removes flows whose hard or idle timeout has passed; returns how many. */
uint32_t emu_ft_expire(struct emu_ft *ft, uint64_t now_ns, emu_ft_removed_fn removed,
                       void *arg);
/* True when some flow has a timeout, i.e. emu_ft_expire() can do anything. */
bool emu_ft_has_timeouts(const struct emu_ft *ft);

#endif /* EMU_FLOWTABLE_H */
