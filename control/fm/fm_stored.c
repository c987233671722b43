/* fm_stored: the stored flows, read (fm_stored.h). */
#include "fm_stored.h"

#include <errno.h>

#include "fm_priv.h"

int fm_stored_get(struct fm *fm, uint64_t dpid, uint64_t match_id, struct store_flow *out)
{
    return fm ? store_get(fm->store, dpid, match_id, out) : -ENODEV;
}

int fm_stored_foreach_from(struct fm *fm, const uint64_t *dpid, uint64_t from_dpid,
                           uint64_t from_match_id, store_iter_fn cb, void *arg)
{
    return fm ? store_foreach_from(fm->store, dpid, from_dpid, from_match_id, cb, arg)
              : -ENODEV;
}

int fm_stored_foreach(struct fm *fm, const uint64_t *dpid, store_iter_fn cb, void *arg)
{
    return fm ? store_foreach(fm->store, dpid, cb, arg) : -ENODEV;
}

int fm_stored_get_each(struct fm *fm, uint64_t dpid, const uint64_t *match_ids, size_t n,
                       store_iter_fn cb, void *arg)
{
    return fm ? store_get_each(fm->store, dpid, match_ids, n, cb, arg) : -ENODEV;
}
