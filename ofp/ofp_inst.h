/*
 * ofp_inst: the instructions of an OF1.3 flow entry — goto_table,
 * write_metadata, write_actions, apply_actions, clear_actions, meter,
 * experimenter.
 *
 * A flow entry holds at most one instruction of each type, so the decoded
 * form is one struct with a bit per instruction present; the action lists
 * inside are zero-copy views (struct ofp_actions). Encoding writes them in
 * the order the switch executes them (meter, apply, clear, write,
 * write_metadata, goto_table), then the experimenter one; decoding accepts
 * any order.
 *
 * Checks (OFPET_BAD_INSTRUCTION codes, actions inside add OFPBAC_*):
 *   length < 8, not a multiple of 8, past the list, or
 *   not the type's fixed size                            OFPBIC_BAD_LEN
 *   unknown type                                         OFPBIC_UNKNOWN_INST
 *   the same type twice                                  OFPBIC_UNSUP_INST
 *   goto_table to OFPTT_ALL, or (in a flow_mod/flow
 *   stats entry) not beyond the entry's own table        OFPBIC_BAD_TABLE_ID
 * (OF1.3 defines no code for a repeated instruction — 1.4 added
 * OFPBIC_DUP_INST — so ofcd uses UNSUP_INST, the nearest 1.3 meaning.)
 */
#ifndef OFCD_OFP_INST_H
#define OFCD_OFP_INST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofp_action.h"
#include "ofp_buf.h"
#include "ofp_err.h"

/* Bits of struct ofp_instructions.present. */
#define OFP_INST_GOTO_TABLE (1u << OFPIT_GOTO_TABLE)
#define OFP_INST_WRITE_METADATA (1u << OFPIT_WRITE_METADATA)
#define OFP_INST_WRITE_ACTIONS (1u << OFPIT_WRITE_ACTIONS)
#define OFP_INST_APPLY_ACTIONS (1u << OFPIT_APPLY_ACTIONS)
#define OFP_INST_CLEAR_ACTIONS (1u << OFPIT_CLEAR_ACTIONS)
#define OFP_INST_METER (1u << OFPIT_METER)
#define OFP_INST_EXPERIMENTER (1u << 7)

struct ofp_instructions {
    uint32_t present;         /* OFP_INST_* */
    uint8_t goto_table;
    uint64_t metadata;
    uint64_t metadata_mask;
    struct ofp_actions write_actions;
    struct ofp_actions apply_actions;
    uint32_t meter_id;
    uint32_t experimenter;
    const uint8_t *exp_data;  /* after the 8-byte header, zero-copy */
    uint16_t exp_len;         /* keeps the instruction a multiple of 8 */
};

/* Validate len bytes of instructions into *out (views into p).
 * table_id: the table of the flow entry they belong to, for the goto_table
 * check, or OFPTT_ALL when there is none. 0 or -EBADMSG with *err set. */
int ofp_instructions_decode(const uint8_t *p, size_t len, uint8_t table_id,
                            struct ofp_instructions *out, struct ofp_err *err);

/* Append them. 0, -ENOSPC, or -EINVAL when one would fail the checks
 * (nothing appended either way). */
int ofp_instructions_encode(struct ofp_buf *b, const struct ofp_instructions *in);

bool ofp_instructions_equal(const struct ofp_instructions *a, const struct ofp_instructions *b);

/* "meter:1,apply_actions(output:2),goto_table:3" ("none" when empty).
 * snprintf semantics. */
int ofp_instructions_format(const struct ofp_instructions *in, char *buf, size_t size);

#endif
