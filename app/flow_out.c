/* flow_out: see flow_out.h. */
#include "flow_out.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>

#include "capture.h"
#include "events_pub.h"
#include "flow_json.h"
#include "ofcd_clock.h"

static struct msgq *ring_of(struct app_ctx *app, conn_handle_t conn)
{
    unsigned io = conn_handle_io(conn);
    return io < app->n_io ? app->io_out[io] : NULL;
}

static unsigned out_room(void *arg, conn_handle_t conn, uint8_t cls)
{
    struct msgq *ring = ring_of(arg, conn);
    return ring ? msgq_free_count(ring, cls) : 0;
}

int flow_out_send(void *arg, conn_handle_t conn, const uint8_t *msg, size_t len, uint8_t cls)
{
    struct app_ctx *app = arg;
    struct msgq *ring = ring_of(app, conn);
    /* The control plane's pool: no switch's traffic can drain it. */
    struct qmsg *q = ring ? qmsg_alloc(app->cpool, len) : NULL;

    if (!q)
        return -ENOBUFS;
    memcpy(q->data, msg, len);
    q->len = (uint32_t)len;
    q->kind = QMSG_OF;
    q->cls = cls;
    q->conn = conn;
    if (msgq_enqueue(ring, q, rte_get_tsc_cycles()) < 0) {
        qmsg_free(q);
        return -ENOBUFS;
    }
    return 0;
}

static uint64_t out_now_us(void *arg)
{
    (void)arg;
    return ofcd_clock_mono_us();
}

/* The flow manager's news, on the event stream. */
static void out_event(void *arg, const struct fm_event *ev)
{
    struct app_ctx *app = arg;
    char why[CAPTURE_REASON_MAX];

    events_pub_flow(app->stream, ev);
    /* A running switch whose table the check had to mend: what led to it
     * is in its record (after a connect, a mended table is the restart's). */
    const struct fm_ev_consistency *c = &ev->u.consistency;
    if (ev->kind == FM_EV_CONSISTENCY && !c->after_connect &&
        c->aliens_deleted + c->missing_reinstalled + c->changed_reinstalled) {
        snprintf(why, sizeof(why), "the check deleted %" PRIu64 " alien flows, re-installed %"
                 PRIu64 " missing and %" PRIu64 " changed", (uint64_t)c->aliens_deleted,
                 (uint64_t)c->missing_reinstalled, (uint64_t)c->changed_reinstalled);
        capture_freeze(app, ev->dpid, 0, CAPTURE_KIND_INCONSISTENT, why);
    }
}

/* Every app that has a say (the cluster's mastership) must agree. */
static bool out_may_write(void *arg, uint64_t dpid)
{
    struct app_ctx *app = arg;

    for (unsigned i = 0; i < app->n_inst; i++) {
        const struct app_inst *a = &app->inst[i];
        if (a->cls->may_write && !a->cls->may_write(a->self, dpid))
            return false;
    }
    return true;
}

void flow_out_env(struct app_ctx *app, struct fm_env *env)
{
    /* The store keeps what clients sent (Kytos JSON): the REST face reads
     * it back into typed flows for the flow manager. */
    *env = (struct fm_env){.arg = app, .room = out_room, .send = flow_out_send,
                                .now_us = out_now_us, .decode = flow_json_record,
                                .event = out_event, .may_write = out_may_write};
}
