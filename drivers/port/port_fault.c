/*
 * port_fault: a struct port that wraps another and injects faults — drop,
 * duplicate, reorder, delay — in each direction, per the fault engine
 * (fault.h). Used by tests to make the TCP stack face a bad network
 * reproducibly: one PRNG stream per direction and queue, derived from the
 * configured seed.
 *
 * Each queue has its own engine state, so io lcores never share anything
 * here. tx always takes every mbuf (return n): what the engine holds goes
 * out later from poll(), and what the port below refuses is freed and counted
 * in tx_refused, never lost silently.
 *
 * fault/set (ofcdctl) changes the rates at run time: the control thread
 * publishes them under a seqlock and bumps a generation; each queue's lcore
 * sees the generation at its next poll and takes them into its engines, so
 * the engines stay the lcore's own.
 */
#include "port.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "fault.h"
#include "ofcd_ctl.h"
#include "ofcd_log.h"
#include "ofcd_seqlock.h"

#define FAULT_TX_CHUNK 256
#define FAULT_RELEASE_MAX 64

struct fault_queue {
    struct fault_dir rx;
    struct fault_dir tx;
    uint64_t tx_refused;   /* single writer (the queue's lcore), relaxed atomics */
    unsigned rates_gen;    /* the lcore's: the published rates it runs with */
};

/* One direction's rates as seqlock words: four probabilities' bits, delay_us. */
#define RATE_WORDS 5

struct port_fault {
    struct port port;
    struct port *inner;
    struct fault_queue *queues;
    struct fault_rates set[2];          /* rx, tx as fault/set left them: control thread */
    struct ofcd_seqlock rates_lock;     /* set[] as published to the lcores */
    uint64_t rates_words[2 * RATE_WORDS];
    atomic_uint rates_gen;              /* bumped after each publication */
};

static struct port_fault *fault_of(struct port *p)
{
    return (struct port_fault *)p->priv;
}

static void *fault_mbuf_dup(void *pkt, void *arg)
{
    (void)arg;
    struct rte_mbuf *m = pkt;
    return rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
}

static void fault_mbuf_free(void *pkt, void *arg)
{
    (void)arg;
    rte_pktmbuf_free(pkt);
}

static const struct fault_pkt_ops fault_mbuf_ops = {
    .dup = fault_mbuf_dup,
    .free = fault_mbuf_free,
    .arg = NULL,
};

static uint16_t fault_rx(struct port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n,
                         uint64_t now_us)
{
    struct port_fault *pf = fault_of(p);
    struct fault_dir *dir = &pf->queues[q].rx;
    void *out[2 * FAULT_TX_CHUNK];
    uint16_t got = 0;

    if (n > FAULT_TX_CHUNK)
        n = FAULT_TX_CHUNK;
    got = (uint16_t)fault_dir_release(dir, now_us, out, n);

    /* Each received frame may come out twice (dup): ask for half the room. */
    uint16_t room = (uint16_t)((n - got) / 2);
    if (room > 0) {
        struct rte_mbuf *in[FAULT_TX_CHUNK];
        uint16_t nin = port_rx(pf->inner, q, in, room, now_us);
        for (uint16_t i = 0; i < nin; i++)
            got += (uint16_t)fault_dir_submit(dir, in[i], now_us, &fault_mbuf_ops, &out[got]);
    }
    for (uint16_t i = 0; i < got; i++)
        pkts[i] = out[i];
    return got;
}

static void fault_send(struct port_fault *pf, uint16_t q, void **out, unsigned k,
                       uint64_t now_us)
{
    struct rte_mbuf *m[2 * FAULT_TX_CHUNK];

    for (unsigned i = 0; i < k; i++)
        m[i] = out[i];
    uint16_t sent = port_tx(pf->inner, q, m, (uint16_t)k, now_us);
    if (sent < k) {
        for (unsigned i = sent; i < k; i++)
            rte_pktmbuf_free(m[i]);
        __atomic_store_n(&pf->queues[q].tx_refused,
                         pf->queues[q].tx_refused + (k - sent), __ATOMIC_RELAXED);
    }
}

static uint16_t fault_tx(struct port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n,
                         uint64_t now_us)
{
    struct port_fault *pf = fault_of(p);
    struct fault_dir *dir = &pf->queues[q].tx;
    void *out[2 * FAULT_TX_CHUNK];

    for (uint16_t base = 0; base < n; base += FAULT_TX_CHUNK) {
        uint16_t chunk = (uint16_t)(n - base < FAULT_TX_CHUNK ? n - base : FAULT_TX_CHUNK);
        unsigned k = 0;
        for (uint16_t i = 0; i < chunk; i++)
            k += fault_dir_submit(dir, pkts[base + i], now_us, &fault_mbuf_ops, &out[k]);
        if (k > 0)
            fault_send(pf, q, out, k, now_us);
    }
    return n;
}

static void rates_to_words(const struct fault_rates *r, uint64_t *w)
{
    memcpy(&w[0], &r->drop, 8);
    memcpy(&w[1], &r->dup, 8);
    memcpy(&w[2], &r->reorder, 8);
    memcpy(&w[3], &r->delay, 8);
    w[4] = r->delay_us;
}

static void rates_from_words(const uint64_t *w, struct fault_rates *r)
{
    memcpy(&r->drop, &w[0], 8);
    memcpy(&r->dup, &w[1], 8);
    memcpy(&r->reorder, &w[2], 8);
    memcpy(&r->delay, &w[3], 8);
    r->delay_us = (uint32_t)w[4];
}

/* On the queue's lcore: the rates fault/set published last, if new. The
 * generation's acquire pairs with the publisher's release, so the words
 * read are at least that publication's. */
static void take_rates(struct port_fault *pf, struct fault_queue *fq)
{
    unsigned gen = atomic_load_explicit(&pf->rates_gen, memory_order_acquire);
    uint64_t w[2 * RATE_WORDS];

    if (gen == fq->rates_gen)
        return;
    ofcd_seqlock_read(&pf->rates_lock, w, pf->rates_words, 2 * RATE_WORDS);
    rates_from_words(&w[0], &fq->rx.rates);
    rates_from_words(&w[RATE_WORDS], &fq->tx.rates);
    fq->rates_gen = gen;
}

static void fault_poll(struct port *p, uint16_t q, uint64_t now_us)
{
    struct port_fault *pf = fault_of(p);
    void *out[FAULT_RELEASE_MAX];
    unsigned k;

    take_rates(pf, &pf->queues[q]);

    while ((k = fault_dir_release(&pf->queues[q].tx, now_us, out, FAULT_RELEASE_MAX)) > 0)
        fault_send(pf, q, out, k, now_us);
    port_poll(pf->inner, q, now_us);
}

static int fault_stats(struct port *p, struct port_stats *out)
{
    struct port_fault *pf = fault_of(p);
    int rc = port_get_stats(pf->inner, out);

    if (rc < 0)
        return rc;
    for (uint16_t q = 0; q < p->n_queues; q++)
        out->tx_refused += __atomic_load_n(&pf->queues[q].tx_refused, __ATOMIC_RELAXED);
    return 0;
}

static void log_dir(const char *port, uint16_t q, const char *what, const struct fault_dir *d)
{
    const struct fault_stats *s = &d->stats;
    LOG_INFO("fault", "%s q%u %s: seen %lu passed %lu dropped %lu duplicated %lu reordered %lu "
             "delayed %lu hold_full %lu", port, q, what, (unsigned long)s->seen,
             (unsigned long)s->passed, (unsigned long)s->dropped, (unsigned long)s->duplicated,
             (unsigned long)s->reordered, (unsigned long)s->delayed,
             (unsigned long)s->hold_full);
}

static void fault_close(struct port *p)
{
    struct port_fault *pf = fault_of(p);

    for (uint16_t q = 0; q < p->n_queues; q++) {
        log_dir(p->name, q, "rx", &pf->queues[q].rx);
        log_dir(p->name, q, "tx", &pf->queues[q].tx);
        fault_dir_flush(&pf->queues[q].rx, &fault_mbuf_ops);
        fault_dir_flush(&pf->queues[q].tx, &fault_mbuf_ops);
    }
    port_close(pf->inner);
    free(pf->queues);
    free(pf);
}

static const struct port_ops fault_ops = {
    .rx = fault_rx,
    .tx = fault_tx,
    .poll = fault_poll,
    .stats = fault_stats,
    .close = fault_close,
};

struct port *port_fault_wrap(struct port *inner, const struct fault_rates *rx,
                             const struct fault_rates *tx, uint64_t seed)
{
    struct port_fault *pf = calloc(1, sizeof(*pf));

    if (!pf) {
        LOG_ERR("fault", "out of memory");
        return NULL;
    }
    pf->queues = calloc(inner->n_queues, sizeof(*pf->queues));
    if (!pf->queues) {
        LOG_ERR("fault", "out of memory");
        free(pf);
        return NULL;
    }
    for (uint16_t q = 0; q < inner->n_queues; q++) {
        /* Distinct, reproducible streams per queue and direction. */
        uint64_t base = seed + 0x9e3779b97f4a7c15ULL * (2u * q + 1u);
        if (fault_dir_init(&pf->queues[q].rx, rx, base) < 0 ||
            fault_dir_init(&pf->queues[q].tx, tx, base ^ 0xd1b54a32d192ed03ULL) < 0) {
            LOG_ERR("fault", "invalid fault rates: each must be in 0..1 and their sum per "
                    "direction at most 1");
            free(pf->queues);
            free(pf);
            return NULL;
        }
    }
    pf->set[0] = *rx;
    pf->set[1] = *tx;
    ofcd_seqlock_init(&pf->rates_lock);
    atomic_init(&pf->rates_gen, 0);
    pf->port = *inner;
    pf->port.ops = &fault_ops;
    pf->port.priv = pf;
    pf->inner = inner;
    snprintf(pf->port.name, sizeof(pf->port.name), "fault(%.56s)", inner->name);
    LOG_WARN("fault", "%s: fault injection ON, seed %lu: rx drop %.3f dup %.3f reorder %.3f "
             "delay %.3f/%uus, tx drop %.3f dup %.3f reorder %.3f delay %.3f/%uus",
             inner->name, (unsigned long)seed, rx->drop, rx->dup, rx->reorder, rx->delay,
             rx->delay_us, tx->drop, tx->dup, tx->reorder, tx->delay, tx->delay_us);
    return &pf->port;
}

/* ---- fault/set -------------------------------------------------------------------- */

static void print_rates(struct ofcd_ctl_out *out, const char *dir, const struct fault_rates *r)
{
    ofcd_ctl_printf(out, "%s: drop=%g dup=%g reorder=%g delay=%g delay_us=%u\n", dir, r->drop,
                    r->dup, r->reorder, r->delay, r->delay_us);
}

/* fault/set rx|tx|both [KEY=VALUE ...]: the rates now (none given) or new
 * ones, all checked before any is published. */
static int fault_set(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
{
    static const char *const names[2] = {"rx", "tx"};
    struct port_fault *pf = arg;
    const char *d = argv[1];
    bool on[2] = {strcmp(d, "rx") == 0 || strcmp(d, "both") == 0,
                  strcmp(d, "tx") == 0 || strcmp(d, "both") == 0};
    struct fault_rates next[2] = {pf->set[0], pf->set[1]};
    const char *why;

    if (!on[0] && !on[1]) {
        ofcd_ctl_printf(out, "unknown direction '%s': rx, tx or both\n", d);
        return -EINVAL;
    }
    for (int i = 2; i < argc; i++)
        for (int k = 0; k < 2; k++)
            if (on[k] && fault_rates_set_kv(&next[k], argv[i], &why) < 0) {
                ofcd_ctl_printf(out, "'%s': %s\n", argv[i], why);
                return -EINVAL;
            }
    for (int k = 0; k < 2; k++)
        if (on[k] && fault_rates_check(&next[k]) < 0) {
            ofcd_ctl_printf(out, "%s: drop + dup + reorder + delay = %g, more than 1\n",
                            names[k], next[k].drop + next[k].dup + next[k].reorder +
                                          next[k].delay);
            return -EINVAL;
        }
    if (argc > 2) {
        uint64_t w[2 * RATE_WORDS];
        pf->set[0] = next[0];
        pf->set[1] = next[1];
        rates_to_words(&next[0], &w[0]);
        rates_to_words(&next[1], &w[RATE_WORDS]);
        ofcd_seqlock_publish(&pf->rates_lock, pf->rates_words, w, 2 * RATE_WORDS);
        atomic_fetch_add_explicit(&pf->rates_gen, 1, memory_order_release);
        for (int k = 0; k < 2; k++)
            if (on[k])
                LOG_INFO("fault", "%s %s: drop %g dup %g reorder %g delay %g/%uus (ofcdctl)",
                         pf->inner->name, names[k], next[k].drop, next[k].dup, next[k].reorder,
                         next[k].delay, next[k].delay_us);
    }
    for (int k = 0; k < 2; k++)
        if (on[k])
            print_rates(out, names[k], &next[k]);
    if (argc > 2)
        ofcd_ctl_printf(out, "(each io lcore takes them at its next poll)\n");
    return 0;
}

int port_fault_ctl_register(struct port *p, struct ofcd_ctl *c)
{
    if (p->ops != &fault_ops)
        return -EINVAL;
    return ofcd_ctl_register(c, &(struct ofcd_ctl_cmd){
        "fault/set", "rx|tx|both [drop=P] [dup=P] [reorder=P] [delay=P] [delay_us=N]",
        "the fault injector's rates in a direction: shown, or changed (P in 0..1)", 1, 6,
        fault_set, fault_of(p)});
}
