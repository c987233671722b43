/*
 * fm_ctl: ofcdctl's fm/queue — what the flow manager holds for each
 * switch on its way there: FLOW_MODs queued (waiting for pacing or ring
 * room), reserved by admitted requests, and in flight (sent, their barrier
 * not answered yet), and the flows it mirrors.
 *
 * Read under the flow manager's lock, which the REST threads share: every
 * switch costs a few fields; one switch's owners walk their queues, at
 * most flow_manager.queue_max items.
 */
#include "fm_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "dpid.h"
#include "ofcd_ctl.h"

static void in_flight(const struct fm_switch *sw, size_t *batches, size_t *mods)
{
    *batches = *mods = 0;
    for (const struct fm_batch *b = sw->bhead; b; b = b->next) {
        ++*batches;
        *mods += b->n;
    }
}

static void show_switch(const struct fm_switch *sw, bool owners, struct ofcd_ctl_out *out)
{
    char d[24];
    size_t batches, mods;

    dpid_format(sw->dpid, d);
    in_flight(sw, &batches, &mods);
    ofcd_ctl_printf(out, "%s %-4s queued %zu reserved %zu in_flight %zu (%zu batches) "
                    "flows %zu\n", d, sw->up ? "up" : "down", sw->queued, sw->reserved, mods,
                    batches, sw->n_flows);
    for (unsigned o = 0; owners && o < sw->n_owners; o++) {
        const struct fm_owner *ow = &sw->owners[o];
        size_t n = 0;
        for (const struct fm_item *it = ow->head; it; it = it->next)
            n++;
        ofcd_ctl_printf(out, "  owner %s: queued %zu, pacing tokens %.1f\n",
                        ow->name[0] ? ow->name : "(none)", n, ow->pace.tokens);
    }
}

static int cmp_dpid(const void *a, const void *b)
{
    const struct fm_switch *x = *(const struct fm_switch *const *)a;
    const struct fm_switch *y = *(const struct fm_switch *const *)b;

    return x->dpid < y->dpid ? -1 : x->dpid > y->dpid;
}

/* fm/queue [DPID] */
static int fm_queue_show(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
{
    struct fm *fm = arg;
    uint64_t dpid = 0;
    int rc = 0;

    if (argc == 2 && dpid_parse(argv[1], &dpid) < 0) {
        ofcd_ctl_printf(out, "'%s' is not a dpid (16 hex digits, with or without colons, or "
                        "decimal)\n", argv[1]);
        return -EINVAL;
    }
    pthread_mutex_lock(&fm->lock);
    if (argc == 2) {
        const struct fm_switch *sw = fm_switch_find(fm, dpid);
        if (sw)
            show_switch(sw, true, out);
        else
            rc = -ENOENT;
    } else {
        size_t n = 0, cap = 64;
        const struct fm_switch **all = malloc(cap * sizeof(*all));
        for (size_t b = 0; all && b < FM_SW_BUCKETS; b++)
            for (const struct fm_switch *sw = fm->sw_buckets[b]; all && sw; sw = sw->hnext) {
                if (n == cap) {
                    const struct fm_switch **more = realloc(all, (cap *= 2) * sizeof(*all));
                    if (!more)
                        free(all);
                    all = more;
                }
                if (all)
                    all[n++] = sw;
            }
        if (all) {
            qsort(all, n, sizeof(*all), cmp_dpid);
            ofcd_ctl_printf(out, "%zu switches; FLOW_MODs waiting %" PRIu64 ", reserved %"
                            PRIu64 "\n", n, fm->stats.queued, fm->stats.reserved);
            for (size_t i = 0; i < n; i++)
                show_switch(all[i], false, out);
            free(all);
        } else {
            rc = -ENOMEM;
        }
    }
    pthread_mutex_unlock(&fm->lock);
    if (rc == -ENOENT)
        ofcd_ctl_printf(out, "the flow manager knows no switch %016" PRIx64 "\n", dpid);
    return rc;
}

int fm_ctl_register(struct fm *fm, struct ofcd_ctl *c)
{
    return ofcd_ctl_register(c, &(struct ofcd_ctl_cmd){
        "fm/queue", "[DPID]",
        "the flow manager's FLOW_MODs per switch: queued, reserved, in flight; owners with DPID",
        0, 1, fm_queue_show, fm});
}
