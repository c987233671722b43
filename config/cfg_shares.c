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
 * arithmetic, so an operator sees which keys to move. Shares left at 0 are
 * derived from the pools and the io lcores so that the rule holds
 * (cfg_buffer_shares), whatever the lcore layout.
 */
#include "cfg_priv.h"

#include <errno.h>
#include <stdio.h>

uint32_t cfg_large_buffers(uint32_t n_small)
{
    return n_small / CFG_LARGE_SHARE < CFG_LARGE_SHARE ? CFG_LARGE_SHARE
                                                       : n_small / CFG_LARGE_SHARE;
}

/* A share set smaller than one it contains would make the inner one's bound
 * unreachable: said, when the outer one was set (a derived one may be
 * smaller than a connection's share on many io lcores; the smaller governs). */
static int nest(const char *inner, uint32_t a, const char *outer, uint32_t b, char *err,
                size_t errlen)
{
    if (a <= b || !b)
        return 0;
    snprintf(err, errlen, "openflow.%s = %u exceeds openflow.%s = %u: a share must fit inside "
            "the one it is part of", inner, a, outer, b);
    return -EINVAL;
}

/* One rule for a pool: n_io x (a + b) <= pool / 2, in the pool's units; the
 * message names what each figure is and which key moves it. */
struct half_rule {
    const char *what;                 /* the pool's buffers, in words */
    const char *a_label, *a_key;
    uint64_t a;
    const char *b_label, *b_key;      /* b_key NULL: no second share */
    uint64_t b;
    const char *pool_label, *pool_key;
    uint64_t pool;
};

static int half(const struct half_rule *r, unsigned n_io, char *err, size_t errlen)
{
    uint64_t sum = (uint64_t)n_io * (r->a + r->b);
    char terms[96];

    if (sum <= r->pool / 2)
        return 0;
    if (r->b_key)
        snprintf(terms, sizeof(terms), "%s %lu + %s %lu", r->a_label, (unsigned long)r->a,
                 r->b_label, (unsigned long)r->b);
    else
        snprintf(terms, sizeof(terms), "%s %lu", r->a_label, (unsigned long)r->a);
    snprintf(err, errlen, "openflow: one address%s could hold more than half of the %s: "
             "%u io lcore(s) x (%s) = %lu > %s %lu / 2 = %lu; lower openflow.%s%s%s, or raise "
             "openflow.%s", r->b_key ? " and the pending connections" : "", r->what, n_io,
             terms, (unsigned long)sum, r->pool_label, (unsigned long)r->pool,
             (unsigned long)(r->pool / 2), r->a_key, r->b_key ? " or openflow." : "",
             r->b_key ? r->b_key : "", r->pool_key);
    return -EINVAL;
}

static uint32_t at_least(uint32_t v, uint32_t floor)
{
    return v > floor ? v : floor;
}

void cfg_buffer_shares(const struct ofcd_config *cfg, struct cfg_buffer_shares *out)
{
    uint32_t n_io = cfg->n_io_lcores ? cfg->n_io_lcores : 1;

    /* Left at 0, a quarter of each pool for one address and an eighth for
     * the handshakes, split over the io lcores (an address's connections
     * may land on every one of them): the rule below then always holds. */
    out->pending_buffers = cfg->of_pending_buffers
                               ? cfg->of_pending_buffers
                               : at_least(cfg->of_msg_buffers / 8 / n_io, 16);
    out->ip_buffers = cfg->of_ip_buffers ? cfg->of_ip_buffers
                                         : at_least(cfg->of_msg_buffers / 4 / n_io, 16);
    out->ip_buffer_kb = cfg->of_ip_buffer_kb
                            ? cfg->of_ip_buffer_kb
                            : at_least(cfg_large_buffers(cfg->of_msg_buffers) / 4 / n_io * 64, 64);
    out->ip_control_buffers = cfg->of_ip_control_buffers
                                  ? cfg->of_ip_control_buffers
                                  : at_least(cfg->of_control_buffers / 8 / n_io, 8);
}

int cfg_check_shares(struct ofcd_config *cfg, char *err, size_t errlen)
{
    unsigned n_io = cfg->n_io_lcores ? cfg->n_io_lcores : 1;
    struct cfg_buffer_shares sh;

    cfg_buffer_shares(cfg, &sh);
    /* Large buffers are 64 KiB; the pending connections' share holds the
     * pools' ratio of them (of_io_large_of). */
    uint64_t ip_large = ((uint64_t)sh.ip_buffer_kb + 63) / 64;
    uint64_t pending_large = sh.pending_buffers / CFG_LARGE_SHARE
                                 ? sh.pending_buffers / CFG_LARGE_SHARE : 1;

    if (nest("pending_conn_buffers", cfg->of_pending_conn_buffers, "conn_buffers",
             cfg->of_conn_buffers, err, errlen) < 0 ||
        nest("pending_conn_buffers", cfg->of_pending_conn_buffers, "pending_buffers",
             sh.pending_buffers, err, errlen) < 0 ||
        nest("conn_buffers", cfg->of_conn_buffers, "ip_buffers", cfg->of_ip_buffers, err,
             errlen) < 0 ||
        nest("conn_buffer_kb", cfg->of_conn_buffer_kb, "ip_buffer_kb", cfg->of_ip_buffer_kb,
             err, errlen) < 0 ||
        nest("conn_control_buffers", cfg->of_conn_control_buffers, "ip_control_buffers",
             cfg->of_ip_control_buffers, err, errlen) < 0)
        return -EINVAL;
    const struct half_rule rules[] = {
        {"small buffers", "ip_buffers", "ip_buffers", sh.ip_buffers, "pending_buffers",
         "pending_buffers", sh.pending_buffers, "msg_buffers", "msg_buffers",
         cfg->of_msg_buffers},
        {"large buffers (64 KiB each)", "ip_buffer_kb/64", "ip_buffer_kb", ip_large,
         "pending_buffers/64", "pending_buffers", pending_large, "msg_buffers/64",
         "msg_buffers", cfg_large_buffers(cfg->of_msg_buffers)},
        {"control plane's buffers", "ip_control_buffers", "ip_control_buffers",
         sh.ip_control_buffers, NULL, NULL, 0, "control_buffers", "control_buffers",
         cfg->of_control_buffers},
    };
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
        if (half(&rules[i], n_io, err, errlen) < 0)
            return -EINVAL;
    return 0;
}
