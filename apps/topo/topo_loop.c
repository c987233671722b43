/* topo_loop: see topo_loop.h. */
#include "topo_loop.h"

#include <inttypes.h>
#include <string.h>

#include "cfg.h"
#include "dpid.h"
#include "ofcd_log.h"
#include "topo_admin.h"
#include "topo_keep.h"
#include "topo_rest.h"

void topo_loop_init(struct topo_loop *lp, unsigned actions)
{
    memset(lp, 0, sizeof(*lp));
    lp->actions = actions;
    lp->rl_log = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    lp->rl_keep_now = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
    lp->rl_keep_later = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 1000);
}

void topo_loop_note(struct topo_loop *lp, const struct topo_link_rec *l, enum topo_change c)
{
    if (!l->loop || l->a.dpid != l->b.dpid || c == TOPO_LINK_UP || !lp->actions)
        return;
    if (lp->n == TOPO_LOOP_PENDING) {
        lp->lost++;
        return;
    }
    lp->pending[lp->n++] = (struct topo_loop_ev){l->a.dpid, l->a.port, l->b.port,
                                                 c == TOPO_LINK_LOOP};
}

void topo_loop_take(struct topo_loop *lp)
{
    for (size_t i = 0; i < lp->n; i++) {
        if (lp->n_ready == TOPO_LOOP_PENDING)
            lp->lost_ready++;
        else
            lp->ready[lp->n_ready++] = lp->pending[i];
    }
    lp->lost_ready += lp->lost;
    lp->n = 0;
    lp->lost = 0;
}

/* (old & ~clear) | set in one step (REST may change the same flags), the
 * result kept. */
static void update_flags(struct topo_loop *lp, struct topo_admin *admin, struct store *s,
                         uint64_t dpid, uint32_t port, uint32_t set, uint32_t clear)
{
    uint32_t now;
    if (topo_admin_update(admin, dpid, port, set, clear, &now) == 0 && s)
        topo_keep_admin_async(s, dpid, port, now, &lp->rl_keep_now, &lp->rl_keep_later);
}

static void apply_one(struct topo_loop *lp, const struct topo_loop_ev *ev, struct topo_rest *r,
                      struct topo_admin *admin, struct store *s, uint64_t now_us)
{
    char d[24];
    uint32_t f = topo_admin_get(admin, ev->dpid, ev->a);

    dpid_format(ev->dpid, d);
    if (ev->detected && topo_rest_loop_ignored(r, ev->dpid, ev->a, ev->b))
        return;
    if (lp->actions & CFG_LOOP_LOG)
        LOG_WARN_RL(&lp->rl_log, now_us, "topology", "LLDP loop %s on switch %s: port_numbers "
                    "[%" PRIu32 ", %" PRIu32 "]", ev->detected ? "detected" : "stopped", d,
                    ev->a, ev->b);
    if (ev->detected && (lp->actions & CFG_LOOP_DISABLE) && !(f & TOPO_ADMIN_DISABLED)) {
        update_flags(lp, admin, s, ev->dpid, ev->a, TOPO_ADMIN_DISABLED | TOPO_ADMIN_LOOP_OFF, 0);
        LOG_WARN("topology", "interface %s:%" PRIu32 " disabled: it loops to port %" PRIu32
                 " (topology.lldp_loop_actions)", d, ev->a, ev->b);
    } else if (!ev->detected && (f & TOPO_ADMIN_LOOP_OFF)) {
        update_flags(lp, admin, s, ev->dpid, ev->a, 0, TOPO_ADMIN_DISABLED | TOPO_ADMIN_LOOP_OFF);
        LOG_INFO("topology", "interface %s:%" PRIu32 " enabled again: its loop stopped", d,
                 ev->a);
    }
}

void topo_loop_apply(struct topo_loop *lp, struct topo_rest *r, struct topo_admin *admin,
                     struct store *s, uint64_t now_us)
{
    for (size_t i = 0; i < lp->n_ready; i++)
        apply_one(lp, &lp->ready[i], r, admin, s, now_us);
    lp->n_ready = 0;
    if (lp->lost_ready) {
        LOG_WARN("topology", "%" PRIu64 " loop changes came faster than they were acted on: "
                 "not acted on", lp->lost_ready);
        lp->lost_ready = 0;
    }
}
