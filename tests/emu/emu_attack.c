/*
 * emu_attack.c - switches that misbehave on purpose (--attack MODE): the hostile
 * peers of ofcd's isolation tests at the emulator's scale (thousands of connections
 * from one process), reported like any other run (bytes and messages sent, how each
 * connection ended).
 *
 *   silent       connects and sends nothing, not even HELLO; reads and drops
 *   echo-flood   no HELLO; never reads; ECHO_REQUESTs whenever its socket takes them
 *   hello-flood  HELLO, then BARRIER_REQUESTs without end; never answers FEATURES
 *   partial      a full handshake, then (a second later, so the controller has what
 *                it asked for) the first 65,000 bytes of a 65,535-byte message, and
 *                nothing after it: it pins a whole TCP receive window in the controller
 *   churn        each connection a fresh random dpid (0xc0 in its top byte): a full
 *                handshake with all --ports in PORT_DESC, then it leaves as soon as the
 *                controller's SET_CONFIG says it is done, and connects again at once
 *                (no backoff, refused or not): made-up switches as fast as one client
 *                can make them
 *
 * The agent and the connection layer call in here at their hooks (open, message,
 * rx pause, tx drained, handshake); with --attack none each hook is a no-op.
 */
#include <string.h>
#include <sys/socket.h>

#include "emu.h"

#define EMU_ATTACK_BATCH 64            /* flood messages queued per refill */
#define EMU_ATTACK_PARTIAL_LEN 65000u  /* bytes sent of the 65,535-byte message */
#define EMU_ATTACK_PARTIAL_DELAY_MS 1000
#define EMU_ATTACK_RCVBUF 1024           /* echo-flood: the kernel reads (almost) nothing */

static const char *const names[] = {"none",    "silent", "echo-flood", "hello-flood",
                                    "partial", "churn"};

int emu_attack_parse(const char *s, enum emu_attack *out)
{
    for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (enum emu_attack)i;
            return 0;
        }
    return -1;
}

const char *emu_attack_name(enum emu_attack a)
{
    return (unsigned)a < sizeof(names) / sizeof(names[0]) ? names[a] : "?";
}

static enum emu_attack mode(const struct emu_sw *sw)
{
    return sw->ctx->opt.attack;
}

/* Queue one batch of the flood's message; false once the queue is full. */
static bool flood(struct emu_sw *sw, uint8_t type)
{
    struct emu_wr w;
    uint8_t body[8] = {0};

    emu_wr_init(&w, sw->ctx->txbuf, EMU_TXBUF_LEN);
    for (unsigned i = 0; i < EMU_ATTACK_BATCH; i++)
        emu_ofp_enc_simple(&w, type, emu_agent_next_xid(sw), body,
                           type == EMU_OFPT_ECHO_REQUEST ? sizeof(body) : 0);
    uint32_t gen = sw->conn_gen;
    if (emu_conn_send_wr(sw, &w) || sw->conn_gen != gen)
        return false;
    sw->ctx->st.attack_msgs += EMU_ATTACK_BATCH;
    return true;
}

void emu_attack_refill(struct emu_sw *sw)
{
    uint8_t type = mode(sw) == EMU_ATTACK_ECHO_FLOOD   ? EMU_OFPT_ECHO_REQUEST
                   : mode(sw) == EMU_ATTACK_HELLO_FLOOD ? EMU_OFPT_BARRIER_REQUEST
                                                        : 0;
    /* hello-flood floods once its HELLO is out (the first refill comes with it). */
    while (type && emu_conn_room_load(sw) && flood(sw, type))
        ;
}

bool emu_attack_on_open(struct emu_sw *sw)
{
    switch (mode(sw)) {
    case EMU_ATTACK_SILENT:
        return true;
    case EMU_ATTACK_ECHO_FLOOD:
        emu_attack_refill(sw);
        return true;
    case EMU_ATTACK_HELLO_FLOOD: {
        struct emu_wr w;
        emu_wr_init(&w, sw->ctx->txbuf, EMU_TXBUF_LEN);
        emu_ofp_enc_hello(&w, emu_agent_next_xid(sw), 1u << EMU_OFP_VERSION);
        uint32_t gen = sw->conn_gen;
        if (emu_conn_send_wr(sw, &w) == 0 && sw->conn_gen == gen)
            emu_attack_refill(sw);
        return true;
    }
    case EMU_ATTACK_CHURN:
        /* 56 random bits under a marker byte: never a real switch's dpid. */
        sw->dpid = 0xc0ull << 56 | (emu_rand(sw->ctx) & 0x00ffffffffffffffull);
        return false;
    default:
        return false;                  /* partial starts as a well-behaved switch */
    }
}

/* A peer that never reads must not have the kernel read for it: with its
 * receive buffer left to autotuning, megabytes of the controller's replies
 * would drain into it and the controller would never see a peer that does
 * not read. */
void emu_attack_on_socket(struct emu_sw *sw)
{
    int small = EMU_ATTACK_RCVBUF;

    if (mode(sw) == EMU_ATTACK_ECHO_FLOOD)
        (void)setsockopt(sw->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
}

bool emu_attack_ignores_input(const struct emu_sw *sw)
{
    return mode(sw) == EMU_ATTACK_SILENT || mode(sw) == EMU_ATTACK_ECHO_FLOOD ||
           mode(sw) == EMU_ATTACK_HELLO_FLOOD || (sw->flags & EMU_SWF_MUTED);
}

bool emu_attack_pauses_rx(const struct emu_sw *sw)
{
    return mode(sw) == EMU_ATTACK_ECHO_FLOOD;
}

/* churn: the switch leaves (from a timer, not from inside the message that
 * made it leave). */
static void churn_leave(struct emu_sw *sw)
{
    if (sw->cs != EMU_CS_OPEN)
        return;
    sw->ctx->st.attack_msgs++;
    emu_conn_close(sw, EMU_DISC_RECONNECT_STORM);
}

static void attack_timer(struct emu_timer *t, uint64_t now)
{
    struct emu_sw *sw = EMU_CONTAINER_OF(t, struct emu_sw, t_attack);
    struct emu_wr w;
    static const uint8_t zeros[EMU_ATTACK_PARTIAL_LEN - 8];

    (void)now;
    if (mode(sw) == EMU_ATTACK_CHURN) {
        churn_leave(sw);
        return;
    }
    if (sw->cs != EMU_CS_OPEN || (sw->flags & EMU_SWF_MUTED))
        return;
    /* A PORT_STATUS header claiming the OpenFlow maximum; the body stops short. */
    emu_wr_init(&w, sw->ctx->txbuf, EMU_TXBUF_LEN);
    size_t start = emu_wr_msg_begin(&w, EMU_OFPT_PORT_STATUS, emu_agent_next_xid(sw));
    emu_wr_bytes(&w, zeros, sizeof(zeros));
    emu_put16(w.buf + start + 2, 65535);
    if (emu_conn_send(sw, w.buf, w.len) == 0) {
        sw->ctx->st.attack_msgs++;
        sw->flags |= EMU_SWF_MUTED;    /* anything more would complete it */
    }
}

void emu_attack_init(struct emu_sw *sw)
{
    emu_timer_init(&sw->t_attack, attack_timer);
}

void emu_attack_on_handshake(struct emu_sw *sw)
{
    if (mode(sw) == EMU_ATTACK_PARTIAL)
        emu_timer_arm(&sw->ctx->loop, &sw->t_attack,
                      emu_now_ns() + EMU_ATTACK_PARTIAL_DELAY_MS * EMU_NS_PER_MS);
}

void emu_attack_on_msg(struct emu_sw *sw, uint8_t type)
{
    if (mode(sw) == EMU_ATTACK_CHURN && type == EMU_OFPT_SET_CONFIG)
        emu_timer_arm(&sw->ctx->loop, &sw->t_attack, emu_now_ns());
}

bool emu_attack_no_backoff(const struct emu_sw *sw)
{
    return mode(sw) == EMU_ATTACK_CHURN;
}

void emu_attack_on_close(struct emu_sw *sw)
{
    emu_timer_cancel(&sw->ctx->loop, &sw->t_attack);
    sw->flags &= (uint16_t)~EMU_SWF_MUTED;
}
