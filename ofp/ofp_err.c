/*
 * ofp_err: the OpenFlow 1.3.5 error table (every type and code by its spec
 * name) and the OFPT_ERROR encoder/decoder. Name lookups walk the table; they
 * serve logs and configuration, never a per-message path.
 */
#include "ofp_err.h"

#include <stdio.h>
#include <string.h>

#include "ofp_priv.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Code names, indexed by code, one array per error type. */
static const char *const hello_failed[] = {"OFPHFC_INCOMPATIBLE", "OFPHFC_EPERM"};

static const char *const bad_request[] = {
    "OFPBRC_BAD_VERSION",     "OFPBRC_BAD_TYPE",     "OFPBRC_BAD_MULTIPART",
    "OFPBRC_BAD_EXPERIMENTER", "OFPBRC_BAD_EXP_TYPE", "OFPBRC_EPERM",
    "OFPBRC_BAD_LEN",         "OFPBRC_BUFFER_EMPTY", "OFPBRC_BUFFER_UNKNOWN",
    "OFPBRC_BAD_TABLE_ID",    "OFPBRC_IS_SLAVE",     "OFPBRC_BAD_PORT",
    "OFPBRC_BAD_PACKET",      "OFPBRC_MULTIPART_BUFFER_OVERFLOW",
};

static const char *const bad_action[] = {
    "OFPBAC_BAD_TYPE",        "OFPBAC_BAD_LEN",          "OFPBAC_BAD_EXPERIMENTER",
    "OFPBAC_BAD_EXP_TYPE",    "OFPBAC_BAD_OUT_PORT",     "OFPBAC_BAD_ARGUMENT",
    "OFPBAC_EPERM",           "OFPBAC_TOO_MANY",         "OFPBAC_BAD_QUEUE",
    "OFPBAC_BAD_OUT_GROUP",   "OFPBAC_MATCH_INCONSISTENT", "OFPBAC_UNSUPPORTED_ORDER",
    "OFPBAC_BAD_TAG",         "OFPBAC_BAD_SET_TYPE",     "OFPBAC_BAD_SET_LEN",
    "OFPBAC_BAD_SET_ARGUMENT",
};

static const char *const bad_instruction[] = {
    "OFPBIC_UNKNOWN_INST",       "OFPBIC_UNSUP_INST",     "OFPBIC_BAD_TABLE_ID",
    "OFPBIC_UNSUP_METADATA",     "OFPBIC_UNSUP_METADATA_MASK", "OFPBIC_BAD_EXPERIMENTER",
    "OFPBIC_BAD_EXP_TYPE",       "OFPBIC_BAD_LEN",        "OFPBIC_EPERM",
};

static const char *const bad_match[] = {
    "OFPBMC_BAD_TYPE",        "OFPBMC_BAD_LEN",          "OFPBMC_BAD_TAG",
    "OFPBMC_BAD_DL_ADDR_MASK", "OFPBMC_BAD_NW_ADDR_MASK", "OFPBMC_BAD_WILDCARDS",
    "OFPBMC_BAD_FIELD",       "OFPBMC_BAD_VALUE",        "OFPBMC_BAD_MASK",
    "OFPBMC_BAD_PREREQ",      "OFPBMC_DUP_FIELD",        "OFPBMC_EPERM",
};

static const char *const flow_mod_failed[] = {
    "OFPFMFC_UNKNOWN", "OFPFMFC_TABLE_FULL",  "OFPFMFC_BAD_TABLE_ID", "OFPFMFC_OVERLAP",
    "OFPFMFC_EPERM",   "OFPFMFC_BAD_TIMEOUT", "OFPFMFC_BAD_COMMAND",  "OFPFMFC_BAD_FLAGS",
};

static const char *const group_mod_failed[] = {
    "OFPGMFC_GROUP_EXISTS",       "OFPGMFC_INVALID_GROUP",     "OFPGMFC_WEIGHT_UNSUPPORTED",
    "OFPGMFC_OUT_OF_GROUPS",      "OFPGMFC_OUT_OF_BUCKETS",    "OFPGMFC_CHAINING_UNSUPPORTED",
    "OFPGMFC_WATCH_UNSUPPORTED",  "OFPGMFC_LOOP",              "OFPGMFC_UNKNOWN_GROUP",
    "OFPGMFC_CHAINED_GROUP",      "OFPGMFC_BAD_TYPE",          "OFPGMFC_BAD_COMMAND",
    "OFPGMFC_BAD_BUCKET",         "OFPGMFC_BAD_WATCH",         "OFPGMFC_EPERM",
};

static const char *const port_mod_failed[] = {
    "OFPPMFC_BAD_PORT", "OFPPMFC_BAD_HW_ADDR", "OFPPMFC_BAD_CONFIG", "OFPPMFC_BAD_ADVERTISE",
    "OFPPMFC_EPERM",
};

static const char *const table_mod_failed[] = {
    "OFPTMFC_BAD_TABLE", "OFPTMFC_BAD_CONFIG", "OFPTMFC_EPERM",
};

static const char *const queue_op_failed[] = {
    "OFPQOFC_BAD_PORT", "OFPQOFC_BAD_QUEUE", "OFPQOFC_EPERM",
};

static const char *const switch_config_failed[] = {
    "OFPSCFC_BAD_FLAGS", "OFPSCFC_BAD_LEN", "OFPSCFC_EPERM",
};

static const char *const role_request_failed[] = {
    "OFPRRFC_STALE", "OFPRRFC_UNSUP", "OFPRRFC_BAD_ROLE",
};

static const char *const meter_mod_failed[] = {
    "OFPMMFC_UNKNOWN",     "OFPMMFC_METER_EXISTS",   "OFPMMFC_INVALID_METER",
    "OFPMMFC_UNKNOWN_METER", "OFPMMFC_BAD_COMMAND",  "OFPMMFC_BAD_FLAGS",
    "OFPMMFC_BAD_RATE",    "OFPMMFC_BAD_BURST",      "OFPMMFC_BAD_BAND",
    "OFPMMFC_BAD_BAND_VALUE", "OFPMMFC_OUT_OF_METERS", "OFPMMFC_OUT_OF_BANDS",
};

static const char *const table_features_failed[] = {
    "OFPTFFC_BAD_TABLE", "OFPTFFC_BAD_METADATA", "OFPTFFC_BAD_TYPE",
    "OFPTFFC_BAD_LEN",   "OFPTFFC_BAD_ARGUMENT", "OFPTFFC_EPERM",
};

struct err_type {
    uint16_t type;
    const char *name;
    const char *const *codes;
    uint16_t n_codes;
};

#define T(t, arr) {t, #t, arr, (uint16_t)N(arr)}
static const struct err_type err_types[] = {
    T(OFPET_HELLO_FAILED, hello_failed),
    T(OFPET_BAD_REQUEST, bad_request),
    T(OFPET_BAD_ACTION, bad_action),
    T(OFPET_BAD_INSTRUCTION, bad_instruction),
    T(OFPET_BAD_MATCH, bad_match),
    T(OFPET_FLOW_MOD_FAILED, flow_mod_failed),
    T(OFPET_GROUP_MOD_FAILED, group_mod_failed),
    T(OFPET_PORT_MOD_FAILED, port_mod_failed),
    T(OFPET_TABLE_MOD_FAILED, table_mod_failed),
    T(OFPET_QUEUE_OP_FAILED, queue_op_failed),
    T(OFPET_SWITCH_CONFIG_FAILED, switch_config_failed),
    T(OFPET_ROLE_REQUEST_FAILED, role_request_failed),
    T(OFPET_METER_MOD_FAILED, meter_mod_failed),
    T(OFPET_TABLE_FEATURES_FAILED, table_features_failed),
    {OFPET_EXPERIMENTER, "OFPET_EXPERIMENTER", NULL, 0},
};
#undef T

static const struct err_type *find_type(uint16_t type)
{
    for (size_t i = 0; i < N(err_types); i++)
        if (err_types[i].type == type)
            return &err_types[i];
    return NULL;
}

const char *ofp_err_type_name(uint16_t type)
{
    const struct err_type *t = find_type(type);
    return t ? t->name : NULL;
}

const char *ofp_err_code_name(uint16_t type, uint16_t code)
{
    const struct err_type *t = find_type(type);
    if (!t || code >= t->n_codes)
        return NULL;
    return t->codes[code];
}

int ofp_err_type_from_name(const char *name, uint16_t *type)
{
    if (!name)
        return -EINVAL;
    for (size_t i = 0; i < N(err_types); i++) {
        if (strcmp(err_types[i].name, name) == 0) {
            if (type)
                *type = err_types[i].type;
            return 0;
        }
    }
    return -ENOENT;
}

static int code_from_name(const char *name, size_t len, struct ofp_err *out)
{
    for (size_t i = 0; i < N(err_types); i++) {
        for (uint16_t c = 0; c < err_types[i].n_codes; c++) {
            const char *cn = err_types[i].codes[c];
            if (strlen(cn) == len && memcmp(cn, name, len) == 0) {
                out->type = err_types[i].type;
                out->code = c;
                return 0;
            }
        }
    }
    return -ENOENT;
}

int ofp_err_from_name(const char *name, struct ofp_err *out)
{
    struct ofp_err e;

    if (!name || !out)
        return -EINVAL;
    const char *slash = strchr(name, '/');
    if (!slash) {
        if (code_from_name(name, strlen(name), &e) < 0)
            return -ENOENT;
        *out = e;
        return 0;
    }
    if (code_from_name(slash + 1, strlen(slash + 1), &e) < 0)
        return -ENOENT;
    const char *tn = ofp_err_type_name(e.type);
    if (!tn || strlen(tn) != (size_t)(slash - name) || memcmp(tn, name, (size_t)(slash - name)))
        return -ENOENT;
    *out = e;
    return 0;
}

int ofp_err_format(struct ofp_err err, char *buf, size_t size)
{
    const char *tn = ofp_err_type_name(err.type);
    const char *cn = ofp_err_code_name(err.type, err.code);

    if (tn && cn)
        return snprintf(buf, size, "%s/%s", tn, cn);
    if (tn)
        return snprintf(buf, size, "%s/code=%u", tn, err.code);
    return snprintf(buf, size, "type=%u/code=%u", err.type, err.code);
}

/* ---- OFPT_ERROR --------------------------------------------------------- */

int ofp_error_encode(struct ofp_buf *b, uint32_t xid, const struct ofp_error *e)
{
    size_t start;
    bool exp = e->type == OFPET_EXPERIMENTER;
    size_t fixed = exp ? sizeof(struct ofp13_error_experimenter_msg)
                       : sizeof(struct ofp13_error_msg);
    uint8_t *p = ofp_msg_begin(b, OFPT_ERROR, xid, fixed, &start);

    if (!p)
        return -ENOSPC;
    if (exp) {
        struct ofp13_error_experimenter_msg *w = (void *)p;
        w->type = htobe16(e->type);
        w->exp_type = htobe16(e->exp_type);
        w->experimenter = htobe32(e->experimenter);
    } else {
        struct ofp13_error_msg *w = (void *)p;
        w->type = htobe16(e->type);
        w->code = htobe16(e->code);
    }
    if (e->data_len && ofp_buf_put_bytes(b, e->data, e->data_len) < 0)
        return ofp_msg_abort(b, start, -ENOSPC);
    return ofp_msg_end(b, start);
}

int ofp_error_reply(struct ofp_buf *b, struct ofp_err err, const uint8_t *offending, size_t len)
{
    struct ofp_error e = {.type = err.type, .code = err.code};
    uint32_t xid = 0;

    if (offending && len >= OFP13_HEADER_LEN)
        xid = be32toh(((const struct ofp13_header *)offending)->xid);
    if (offending) {
        e.data = offending;
        e.data_len = (uint16_t)(len < OFP_ERROR_DATA_MAX ? len : OFP_ERROR_DATA_MAX);
    }
    return ofp_error_encode(b, xid, &e);
}

int ofp_error_decode(const uint8_t *msg, size_t len, struct ofp_error *out, struct ofp_err *err)
{
    int rc = ofp_hdr_check(msg, len, OFPT_ERROR, err);
    if (rc < 0)
        return rc;
    const struct ofp13_error_msg *w = (const void *)msg;
    memset(out, 0, sizeof(*out));
    out->type = be16toh(w->type);
    if (out->type == OFPET_EXPERIMENTER) {
        if (len < sizeof(struct ofp13_error_experimenter_msg))
            return ofp_fail(err, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
        const struct ofp13_error_experimenter_msg *x = (const void *)msg;
        out->exp_type = be16toh(x->exp_type);
        out->experimenter = be32toh(x->experimenter);
        out->data = msg + sizeof(*x);
        out->data_len = (uint16_t)(len - sizeof(*x));
    } else {
        out->code = be16toh(w->code);
        out->data = msg + sizeof(*w);
        out->data_len = (uint16_t)(len - sizeof(*w));
    }
    return 0;
}
