/*
 * cfg_shares: the cross-key rule between the message pools and the shares
 * cut from them (openflow.*_buffers), run by cfg_finish().
 *
 * A share only bounds what a peer may hold; the pool is what they all hold
 * from. The rule: whatever one source address and every connection short
 * of ESTABLISHED hold at their bounds, on every io lcore, half of each pool
 * is left for the switches of the other addresses (and the shares nest:
 * a pending connection's within an established one's, within its
 * address's). A configuration that breaks it is refused at start with the
 * arithmetic, so an operator sees which keys to move.
 */
#include "cfg_priv.h"

#include <errno.h>
#include <stdio.h>

uint32_t cfg_large_buffers(uint32_t n_small)
{
    return n_small / CFG_LARGE_SHARE < CFG_LARGE_SHARE ? CFG_LARGE_SHARE
                                                       : n_small / CFG_LARGE_SHARE;
}

static int nest(const char *inner, uint32_t a, const char *outer, uint32_t b, char *err,
                size_t errlen)
{
    if (a <= b)
        return 0;
    snprintf(err, errlen, "openflow.%s = %u exceeds openflow.%s = %u: a share must fit inside "
            "the one it is part of", inner, a, outer, b);
    return -EINVAL;
}

static int half(const char *what, unsigned n_io, const char *a_key, uint64_t a,
                const char *b_key, uint64_t b, const char *pool_key, uint64_t pool, char *err,
                size_t errlen)
{
    uint64_t sum = (uint64_t)n_io * (a + b);

    if (sum <= pool / 2)
        return 0;
    snprintf(err, errlen, "openflow: one address and the pending connections could hold more "
            "than half of the %s: %u io lcore(s) x (%s %lu + %s %lu) = %lu > %s %lu / 2 = %lu; "
            "lower openflow.%s or openflow.%s, or raise openflow.%s", what, n_io, a_key,
            (unsigned long)a, b_key, (unsigned long)b, (unsigned long)sum, pool_key,
            (unsigned long)pool, (unsigned long)(pool / 2), a_key, b_key, pool_key);
    return -EINVAL;
}

int cfg_check_shares(struct ofcd_config *cfg, char *err, size_t errlen)
{
    unsigned n_io = cfg->n_io_lcores ? cfg->n_io_lcores : 1;
    /* Large buffers are 64 KiB; the pending connections' share holds the
     * pools' ratio of them (of_io_large_of). */
    uint64_t ip_large = ((uint64_t)cfg->of_ip_buffer_kb + 63) / 64;
    uint64_t pending_large = cfg->of_pending_buffers / CFG_LARGE_SHARE
                                 ? cfg->of_pending_buffers / CFG_LARGE_SHARE : 1;

    if (nest("pending_conn_buffers", cfg->of_pending_conn_buffers, "conn_buffers",
             cfg->of_conn_buffers, err, errlen) < 0 ||
        nest("conn_buffers", cfg->of_conn_buffers, "ip_buffers", cfg->of_ip_buffers, err,
             errlen) < 0 ||
        nest("conn_buffer_kb", cfg->of_conn_buffer_kb, "ip_buffer_kb", cfg->of_ip_buffer_kb,
             err, errlen) < 0 ||
        nest("conn_control_buffers", cfg->of_conn_control_buffers, "ip_control_buffers",
             cfg->of_ip_control_buffers, err, errlen) < 0)
        return -EINVAL;
    if (half("small buffers", n_io, "ip_buffers", cfg->of_ip_buffers, "pending_buffers",
             cfg->of_pending_buffers, "msg_buffers", cfg->of_msg_buffers, err, errlen) < 0)
        return -EINVAL;
    if (half("large buffers (64 KiB each)", n_io, "ip_buffer_kb/64", ip_large,
             "pending_buffers/64", pending_large, "msg_buffers/64",
             cfg_large_buffers(cfg->of_msg_buffers), err, errlen) < 0)
        return -EINVAL;
    if (half("control plane's buffers", n_io, "ip_control_buffers",
             cfg->of_ip_control_buffers, "(none)", 0, "control_buffers",
             cfg->of_control_buffers, err, errlen) < 0)
        return -EINVAL;
    return 0;
}
