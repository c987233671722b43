/*
 * lcore_io: the io role's binding to DPDK — segments go into the lcore's tx
 * batch as mbufs (with checksum offload flags where the port has them),
 * payload chunks come from a per-lcore mempool, next hops from the lcore's
 * ARP cache (a miss sends a rate-limited ARP request).
 */
#include "lcore_priv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "ofcd_log.h"
#include "port.h"

#define TCP_CHUNK_CACHE 256

void lcore_tx_flush(struct lcore_ctx *lc, uint64_t now_us)
{
    if (lc->ntx == 0)
        return;
    uint16_t sent = port_tx(lc->env.port, lc->cfg.queue, lc->txq, lc->ntx, now_us);
    lc->stats.tx_packets += sent;
    if (sent < lc->ntx) {
        lc->stats.tx_dropped += lc->ntx - sent;
        rte_pktmbuf_free_bulk(&lc->txq[sent], lc->ntx - sent);
    }
    lc->ntx = 0;
}

void lcore_tx_enqueue(struct lcore_ctx *lc, struct rte_mbuf *m, uint64_t now_us)
{
    if (lc->ntx == LCORE_TXQ_MAX)
        lcore_tx_flush(lc, now_us);
    lc->txq[lc->ntx++] = m;
}

int lcore_send_arp_request(struct lcore_ctx *lc, uint32_t target_ip, uint64_t now_us)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(lc->env.pool);

    if (!m) {
        lc->stats.tx_alloc_failed++;
        return -ENOMEM;
    }
    uint8_t *buf = (uint8_t *)rte_pktmbuf_append(m, NET_ETH_MIN_FRAME);
    uint16_t len = net_build_arp_request(&lc->net, target_ip, buf);
    m->data_len = len;
    m->pkt_len = len;
    lcore_tx_enqueue(lc, m, now_us);
    return 0;
}

static uint8_t *env_frame_alloc(void *arg, uint16_t len, void **handle)
{
    struct lcore_ctx *lc = arg;
    struct rte_mbuf *m = rte_pktmbuf_alloc(lc->env.pool);

    if (!m) {
        lc->stats.tx_alloc_failed++;
        return NULL;
    }
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, len);
    if (!p) {
        rte_pktmbuf_free(m);
        lc->stats.tx_alloc_failed++;
        return NULL;
    }
    *handle = m;
    return p;
}

static void env_frame_send(void *arg, void *handle, uint16_t len, const struct tcp_tx_meta *meta)
{
    struct lcore_ctx *lc = arg;
    struct rte_mbuf *m = handle;

    m->data_len = len;
    m->pkt_len = len;
    m->ol_flags = 0;
    if (meta->ip_cksum_offload || meta->l4_cksum_offload) {
        m->l2_len = NET_ETH_HLEN;
        m->l3_len = NET_IPV4_MIN_HLEN;
        m->ol_flags |= RTE_MBUF_F_TX_IPV4;
        if (meta->ip_cksum_offload)
            m->ol_flags |= RTE_MBUF_F_TX_IP_CKSUM;
        if (meta->l4_cksum_offload)
            m->ol_flags |= RTE_MBUF_F_TX_TCP_CKSUM;
    }
    lcore_tx_enqueue(lc, m, lc->now_us);
}

static void *env_chunk_alloc(void *arg)
{
    struct lcore_ctx *lc = arg;
    void *obj;

    return rte_mempool_get(lc->tcp_chunks, &obj) == 0 ? obj : NULL;
}

static void env_chunk_free(void *arg, void *chunk)
{
    struct lcore_ctx *lc = arg;

    rte_mempool_put(lc->tcp_chunks, chunk);
}

static int env_resolve(void *arg, uint32_t ip, uint8_t mac[6])
{
    struct lcore_ctx *lc = arg;
    uint64_t now = lc->now_us;

    if (!net_on_link(&lc->net, ip))
        return -EHOSTUNREACH;     /* no gateway support: peers are on the link */
    if (arp_cache_lookup(lc->arp, ip, now, mac) == 0)
        return 0;
    if (arp_cache_should_request(lc->arp, ip, now))
        lcore_send_arp_request(lc, ip, now);
    return -EAGAIN;
}

int lcore_io_setup(struct lcore_ctx *lc)
{
    const struct lcore_cfg *cfg = &lc->cfg;
    char name[RTE_MEMPOOL_NAMESIZE];
    uint8_t secret[16];

    lc->arp = arp_cache_create(cfg->arp_cache_size, (uint64_t)cfg->arp_timeout_s * 1000000ULL);
    if (!lc->arp)
        return -ENOMEM;
    int rc = net_ctx_init(&lc->net, cfg->mac, cfg->ip, cfg->prefix_len, lc->arp);
    if (rc < 0) {
        LOG_ERR("lcore", "lcore %u: network identity rejected: %s", cfg->lcore_id,
                strerror(-rc));
        return rc;
    }
    snprintf(name, sizeof(name), "tcp_chunks_%u", cfg->lcore_id);
    lc->tcp_chunks = rte_mempool_create(name, cfg->tcp_chunks, TCP_CHUNK_SIZE, TCP_CHUNK_CACHE,
                                        0, NULL, NULL, NULL, NULL,
                                        (int)rte_lcore_to_socket_id(cfg->lcore_id),
                                        RTE_MEMPOOL_F_SP_PUT | RTE_MEMPOOL_F_SC_GET);
    if (!lc->tcp_chunks) {
        LOG_ERR("tcp", "lcore %u: cannot allocate %u TCP buffer chunks (%u MiB): lower "
                "tcp.buffer_chunks or give EAL more memory (-m)", cfg->lcore_id,
                cfg->tcp_chunks, (unsigned)((uint64_t)cfg->tcp_chunks * TCP_CHUNK_SIZE >> 20));
        return -ENOMEM;
    }
    if (getrandom(secret, sizeof(secret), 0) != (ssize_t)sizeof(secret)) {
        LOG_ERR("tcp", "getrandom failed: cannot key ISNs and SYN cookies");
        return -EIO;
    }
    struct tcp_env env = {
        .arg = lc,
        .frame_alloc = env_frame_alloc,
        .frame_send = env_frame_send,
        .chunk_alloc = env_chunk_alloc,
        .chunk_free = env_chunk_free,
        .resolve = env_resolve,
        .l4_cksum_offload = lc->env.port->offloads.tcp_cksum,
        .ip_cksum_offload = lc->env.port->offloads.ipv4_cksum,
    };
    /* The stack shares the pool fairly once it runs short (tcp.h). */
    struct tcp_config tc = cfg->tcp;
    tc.chunk_budget = cfg->tcp_chunks;
    lc->tcp = tcp_stack_create(&tc, &env, cfg->ip, lc->net.mac, secret, lcore_clock_us());
    if (!lc->tcp)
        return -EINVAL;
    lc->net.tcp_attached = true;
    return 0;
}

void lcore_io_teardown(struct lcore_ctx *lc)
{
    tcp_stack_destroy(lc->tcp);
    lc->tcp = NULL;
    /* Frames still batched (a last RST included) go back to the pool before
     * the port and its pool go away. */
    if (lc->ntx)
        rte_pktmbuf_free_bulk(lc->txq, lc->ntx);
    lc->ntx = 0;
    rte_mempool_free(lc->tcp_chunks);
    lc->tcp_chunks = NULL;
    arp_cache_destroy(lc->arp);
    lc->arp = NULL;
}
