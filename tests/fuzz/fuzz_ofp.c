/*
 * fuzz_ofp: libFuzzer target for the OpenFlow 1.3 codec (ofp/) — everything
 * a switch's bytes reach before a handler sees them.
 *
 * The input's first byte picks the mode:
 *   even  a byte stream: ofp_frame() cuts messages off the front, each one
 *         goes through ofp_decode() as the channel layer would call it
 *   odd   one message: the rest of the input with its header length forced
 *         to the input's size, so the fuzzer reaches the bodies quickly
 * Every message is decoded from an exact-size heap copy (ASan sees any read
 * past it). A message that decodes is re-encoded; the re-encoding must
 * decode to the same struct (ofp_test_msg_equal) and encode to the same
 * bytes again. A message that fails must produce an error OpenFlow knows
 * by name, and the ERROR reply carrying it must itself decode. Multipart
 * replies also go through a reassembler; flow_mods and packet_outs through
 * the text formatters.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofp_msg.h"
#include "ofp_test_util.h"

#define OUT_CAP 131072

struct fz {
    uint8_t out1[OUT_CAP];
    uint8_t out2[OUT_CAP];
    uint8_t asm_buf[16384];
    struct ofp_mp_asm mp;
    struct ofp_msg m1, m2;
    char text[4096];
};

static void check_error_reply(struct fz *f, struct ofp_err err, const uint8_t *msg, size_t len)
{
    struct ofp_buf b;
    struct ofp_err e2;

    if (!ofp_err_code_name(err.type, err.code))
        abort();                     /* every error we report has a spec name */
    ofp_buf_init(&b, f->out1, sizeof(f->out1));
    if (ofp_error_reply(&b, err, msg, len) < 0)
        abort();
    if (ofp_decode(f->out1, b.len, &f->m2, &e2) < 0 || f->m2.u.error.type != err.type ||
        f->m2.u.error.code != err.code)
        abort();
}

static void exercise(struct fz *f, const struct ofp_msg *m)
{
    switch (m->hdr.type) {
    case OFPT_FLOW_MOD:
        ofp_match_format(&m->u.flow_mod.match, f->text, sizeof(f->text));
        ofp_instructions_format(&m->u.flow_mod.inst, f->text, sizeof(f->text));
        ofp_match_hash(&m->u.flow_mod.match, 0);
        break;
    case OFPT_PACKET_OUT:
        ofp_actions_format(&m->u.packet_out.actions, f->text, sizeof(f->text));
        break;
    case OFPT_MULTIPART_REPLY: {
        uint32_t count = ofp_mp_reply_count(&m->u.mp_reply);
        (void)count;
        if (!f->mp.active)
            ofp_mp_asm_begin(&f->mp, m->hdr.xid, m->u.mp_reply.type);
        int rc = ofp_mp_asm_add(&f->mp, m->hdr.xid, &m->u.mp_reply);
        if (rc == 1) {
            struct ofp_mp_reply whole;
            if (ofp_mp_asm_result(&f->mp, &whole) == 0)
                (void)ofp_mp_reply_count(&whole);
        }
        break;
    }
    default:
        break;
    }
}

static void one_message(struct fz *f, const uint8_t *bytes, size_t len)
{
    struct ofp_err err, err2;
    struct ofp_buf b1, b2;
    uint8_t *copy = malloc(len ? len : 1);

    if (!copy)
        abort();
    memcpy(copy, bytes, len);
    int rc = ofp_decode(copy, len, &f->m1, &err);
    if ((ofp_validate(copy, len, &err2) == 0) != (rc == 0))
        abort();
    if (rc < 0) {
        if (rc != -EBADMSG || err.type != err2.type || err.code != err2.code)
            abort();
        check_error_reply(f, err, copy, len);
        free(copy);
        return;
    }
    exercise(f, &f->m1);

    ofp_buf_init(&b1, f->out1, sizeof(f->out1));
    if (ofp_encode(&b1, &f->m1) < 0)
        abort();                     /* what we accept, we can write back */
    if (ofp_decode(f->out1, b1.len, &f->m2, &err) < 0)
        abort();                     /* what we write, we accept */
    if (!ofp_test_msg_equal(&f->m1, &f->m2))
        abort();                     /* and it means the same */
    ofp_buf_init(&b2, f->out2, sizeof(f->out2));
    if (ofp_encode(&b2, &f->m2) < 0 || b2.len != b1.len || memcmp(f->out1, f->out2, b1.len))
        abort();                     /* encoding is stable */
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fz f;              /* big buffers: keep them off the stack */
    struct ofp_err err;

    if (size < 1)
        return 0;
    ofp_mp_asm_init(&f.mp, f.asm_buf, sizeof(f.asm_buf));
    if (data[0] & 1) {
        size_t len = size - 1;
        if (len > OFP13_MAX_MSG_LEN)
            len = OFP13_MAX_MSG_LEN;
        uint8_t *msg = malloc(len ? len : 1);
        if (!msg)
            abort();
        memcpy(msg, data + 1, len);
        if (len >= 4) {
            msg[2] = (uint8_t)(len >> 8);
            msg[3] = (uint8_t)len;
        }
        one_message(&f, msg, len);
        free(msg);
        return 0;
    }
    size_t pos = 1;
    while (pos < size) {
        uint8_t *rest = malloc(size - pos);
        if (!rest)
            abort();
        memcpy(rest, data + pos, size - pos);
        int n = ofp_frame(rest, size - pos, &err);
        if (n <= 0) {
            if (n < 0)
                check_error_reply(&f, err, rest, size - pos);
            else if (ofp_decode(rest, size - pos, &f.m1, &err) == 0)
                abort();             /* an incomplete message cannot decode */
            free(rest);
            break;
        }
        free(rest);
        one_message(&f, data + pos, (size_t)n);
        pos += (size_t)n;
    }
    return 0;
}
