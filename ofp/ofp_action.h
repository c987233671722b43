/*
 * ofp_action: OpenFlow 1.3 actions — output, copy_ttl_out/in, set_mpls_ttl,
 * dec_mpls_ttl, push/pop vlan, push/pop mpls, set_queue, group, set_nw_ttl,
 * dec_nw_ttl, set_field, push/pop pbb, experimenter.
 *
 * An action list (struct ofp_actions) has two forms behind one iterator:
 *   - decoded: a zero-copy view of the validated wire bytes (valid while the
 *     received buffer is), so decoding a list never allocates or copies;
 *   - to encode: an array of struct ofp_action built by the caller.
 * ofp_actions_next() walks either; encoders, equality and printing use it,
 * so a decoded list can be re-encoded or compared with a built one.
 *
 * Checks (OFPET_BAD_ACTION codes):
 *   length < 8, not a multiple of 8, past the list, or
 *   not the type's fixed size                          OFPBAC_BAD_LEN
 *   unknown type                                       OFPBAC_BAD_TYPE
 *   output to port 0, to a number between OFPP_MAX and
 *   the reserved ports, or to OFPP_ANY                 OFPBAC_BAD_OUT_PORT
 *   push_vlan not 0x8100/0x88a8, push_mpls not
 *   0x8847/0x8848, push_pbb not 0x88e7                 OFPBAC_BAD_ARGUMENT
 *   group id above OFPG_MAX                            OFPBAC_BAD_OUT_GROUP
 *   set_queue to OFPQ_ALL                              OFPBAC_BAD_QUEUE
 *   set_field: unknown basic field                     OFPBAC_BAD_SET_TYPE
 *              OXM length wrong / action length not
 *              exactly the OXM padded to 8             OFPBAC_BAD_SET_LEN
 *              masked OXM, value wider than the field  OFPBAC_BAD_SET_ARGUMENT
 * (OF1.3 has no code of its own for a masked set-field; OVS answers with an
 * ONF experimenter error, ofcd with the nearest standard one.)
 */
#ifndef OFCD_OFP_ACTION_H
#define OFCD_OFP_ACTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofp_buf.h"
#include "ofp_err.h"
#include "ofp_wire.h"

struct ofp_action_set_field {
    uint16_t oxm_class;       /* OFPXMC_OPENFLOW_BASIC, or another class */
    uint8_t field;            /* OFPXMT_OFB_* for the basic class */
    uint8_t len;              /* value bytes */
    uint8_t value[16];        /* basic class: the value, network order */
    /* Other classes: the whole OXM TLV (4-byte header + len bytes),
     * zero-copy from the decoded buffer or the caller's bytes to encode. */
    const uint8_t *oxm;
};

struct ofp_action {
    uint16_t type;            /* OFPAT_* */
    union {
        struct {
            uint32_t port;
            uint16_t max_len;   /* bytes to send to the controller */
        } output;
        uint8_t ttl;            /* SET_MPLS_TTL, SET_NW_TTL */
        uint16_t ethertype;     /* PUSH_VLAN, PUSH_MPLS, PUSH_PBB, POP_MPLS */
        uint32_t queue_id;      /* SET_QUEUE */
        uint32_t group_id;      /* GROUP */
        struct ofp_action_set_field set_field;
        struct {
            uint32_t experimenter;
            const uint8_t *data;  /* after the 8-byte header, zero-copy */
            uint16_t len;         /* keeps the action a multiple of 8 */
        } experimenter;
    } u;
};

struct ofp_actions {
    const uint8_t *wire;      /* decoded form: validated bytes, or NULL */
    uint16_t wire_len;
    const struct ofp_action *arr;  /* encode form (used when wire is NULL) */
    uint16_t n;               /* number of actions, either form */
};

struct ofp_action_iter {
    const struct ofp_actions *list;
    uint32_t pos;             /* byte offset (wire) or index (array) */
};

static inline void ofp_actions_iter_init(struct ofp_action_iter *it, const struct ofp_actions *l)
{
    it->list = l;
    it->pos = 0;
}

/* Next action into *out: true, or false at the end. */
bool ofp_actions_next(struct ofp_action_iter *it, struct ofp_action *out);

/* Decode one action at p (avail bytes): *used gets its length.
 * 0 or -EBADMSG with *err set. */
int ofp_action_decode(const uint8_t *p, size_t avail, struct ofp_action *out, size_t *used,
                      struct ofp_err *err);

/* Validate len bytes of actions and make *out a view of them.
 * 0 or -EBADMSG with *err set. */
int ofp_actions_decode(const uint8_t *p, size_t len, struct ofp_actions *out,
                       struct ofp_err *err);

/* Append one action / a whole list. 0, -ENOSPC, or -EINVAL when an action
 * would not pass the checks above (nothing appended in either case). */
int ofp_action_encode(struct ofp_buf *b, const struct ofp_action *a);
int ofp_actions_encode(struct ofp_buf *b, const struct ofp_actions *l);

/* Same meaning (views compared by content). */
bool ofp_action_equal(const struct ofp_action *a, const struct ofp_action *b);
bool ofp_actions_equal(const struct ofp_actions *a, const struct ofp_actions *b);

/* "output:1,push_vlan:0x8100,set_field:vlan_vid=0x1064" ("drop" when empty).
 * snprintf semantics. */
int ofp_actions_format(const struct ofp_actions *l, char *buf, size_t size);

/* Spec name without prefix ("push_vlan"), NULL when unknown. */
const char *ofp_action_type_name(uint16_t type);

#endif
