/*
 * store_ctl: ofcdctl's store/stats — which backend holds the flows and the
 * apps' records, and its counters (the store set of counters/show, one
 * "name value" a line, so a script reads one figure without parsing).
 * Reads the store's own thread-safe stats: any thread may serve it.
 */
#include "store.h"

#include <errno.h>

#include "ofcd_ctl.h"

static int store_stats_show(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
{
    struct store *s = arg;
    struct store_stats st;

    (void)argc;
    (void)argv;
    int rc = store_get_stats(s, &st);
    if (rc < 0) {
        ofcd_ctl_printf(out, "the store cannot say: %d\n", rc);
        return rc;
    }
    ofcd_ctl_printf(out, "backend %s\n", s->ops->name);
    const uint64_t *v = OFCD_COUNTER_VALUES(&st);
    for (unsigned i = 0; i < store_counters.n; i++)
        ofcd_ctl_printf(out, "%s %llu\n", store_counters.defs[i].name,
                        (unsigned long long)v[i]);
    return 0;
}

int store_ctl_register(struct store *s, struct ofcd_ctl *c)
{
    if (!s)
        return -EINVAL;
    return ofcd_ctl_register(c, &(struct ofcd_ctl_cmd){
        "store/stats", "", "the store's backend (store.backend) and its counters, a line each",
        0, 0, store_stats_show, s});
}
