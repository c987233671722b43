/* topo_start: see topo_start.h. */
#include "topo_start.h"

#include <inttypes.h>
#include <string.h>

#include "ofcd_clock.h"
#include "ofcd_log.h"

#include "of_event.h"
#include "ofp_msg.h"
#include "topo_admin.h"
#include "topo_keep.h"

void topo_start_init(struct topo_start *st, bool enable)
{
    memset(st, 0, sizeof(*st));
    st->enable = enable;
    st->rl_now = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    st->rl_later = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
}

/* (dpid, port) met for the first time: disabled, and known from now on. */
static void first(struct topo_start *st, struct topo_admin *admin, struct store *s,
                  uint64_t dpid, uint32_t port)
{
    uint32_t now;

    if (topo_admin_get(admin, dpid, port) & TOPO_ADMIN_KNOWN)
        return;
    /* One step: REST may change the same flags meanwhile. */
    if (topo_admin_update(admin, dpid, port, TOPO_ADMIN_KNOWN | TOPO_ADMIN_DISABLED, 0, &now) <
        0) {
        /* Fails open: the port stays enabled. Said, never silent. */
        st->full++;
        LOG_ERR_RL(&st->rl_now, ofcd_clock_mono_us(), "topology",
                   "%016" PRIx64 ":%" PRIu32 " starts enabled against "
                   "topology.enable_on_start = false: topology.max_interfaces is full",
                   dpid, port);
        return;
    }
    if (s)
        topo_keep_admin_async(s, dpid, port, now, &st->rl_now, &st->rl_later);
}

void topo_start_event(struct topo_start *st, const struct qmsg *ev, struct topo_admin *admin,
                      struct store *s)
{
    struct of_event_hdr h;
    const size_t hl = sizeof(h);

    if (st->enable || ev->len < hl)
        return;
    memcpy(&h, ev->data, hl);
    if (ev->kind == QMSG_EV_SWITCH_UP && ev->len >= hl + sizeof(struct of_event_up)) {
        struct of_event_up up;
        memcpy(&up, ev->data + hl, sizeof(up));
        first(st, admin, s, h.dpid, TOPO_ADMIN_SWITCH);
        size_t room = (ev->len - hl - sizeof(up)) / sizeof(struct ofp_port);
        for (uint32_t i = 0; i < up.n_ports && i < room; i++) {
            struct ofp_port p;
            memcpy(&p, ev->data + hl + sizeof(up) + i * sizeof(p), sizeof(p));
            if (p.port_no >= 1 && p.port_no <= OFPP_MAX)
                first(st, admin, s, h.dpid, p.port_no);
        }
    } else if (ev->kind == QMSG_EV_OF && ev->len >= hl + 8 &&
               ev->data[hl + 1] == OFPT_PORT_STATUS) {
        struct ofp_msg m;
        struct ofp_err err;
        if (ofp_decode(ev->data + hl, ev->len - hl, &m, &err) == 0 &&
            m.u.port_status.reason != OFPPR_DELETE && m.u.port_status.desc.port_no >= 1 &&
            m.u.port_status.desc.port_no <= OFPP_MAX)
            first(st, admin, s, h.dpid, m.u.port_status.desc.port_no);
    }
}
