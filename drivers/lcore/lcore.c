/* lcore: see lcore.h for the loop order and why it is in that order. */
#include "lcore.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "echo_service.h"
#include "ofcd_log.h"
#include "tcp_env.h"

static inline uint64_t lcore_now_us(const struct lcore_ctx *lc)
{
    uint64_t c = rte_get_tsc_cycles();

    /* Split so the multiplication cannot overflow however long we run. */
    return (c / lc->tsc_hz) * 1000000ULL + (c % lc->tsc_hz) * 1000000ULL / lc->tsc_hz;
}

static int lcore_echo_setup(struct lcore_ctx *lc)
{
    const struct ofcd_config *cfg = &lc->app->cfg;
    uint16_t port = cfg->tcp_echo_port;

    /* Active echo only on the first io lcore: one connection is the test. */
    if (cfg->tcp_echo_connect_port && lc->queue == 0) {
        lc->echo_out = calloc(1, sizeof(*lc->echo_out));
        if (!lc->echo_out)
            return -ENOMEM;
        int rc = echo_service_connect(lc->echo_out, lc->tcp, cfg->tcp_echo_connect_ip,
                                      cfg->tcp_echo_connect_port, cfg->tcp_backoff_min_ms,
                                      cfg->tcp_backoff_max_ms, lcore_now_us(lc));
        if (rc < 0)
            return rc;
        LOG_WARN("lcore", "lcore %u: TEST-ONLY TCP echo connecting to %u.%u.%u.%u:%u",
                 lc->lcore_id, cfg->tcp_echo_connect_ip >> 24,
                 (cfg->tcp_echo_connect_ip >> 16) & 255, (cfg->tcp_echo_connect_ip >> 8) & 255,
                 cfg->tcp_echo_connect_ip & 255, cfg->tcp_echo_connect_port);
    }
    if (!port)
        return 0;
    lc->echo = calloc(1, sizeof(*lc->echo));
    if (!lc->echo)
        return -ENOMEM;
    int rc = echo_service_start(lc->echo, lc->tcp, port);
    if (rc < 0) {
        LOG_ERR("lcore", "lcore %u: TCP echo service on port %u: %s", lc->lcore_id, port,
                strerror(-rc));
        return rc;
    }
    LOG_WARN("lcore", "lcore %u: TEST-ONLY TCP echo service listening on port %u",
             lc->lcore_id, port);
    return 0;
}

void lcore_ctx_destroy(struct lcore_ctx *lc);

struct lcore_ctx *lcore_ctx_create(struct app_ctx *app, unsigned lcore_id, bool io,
                                   bool worker, uint16_t queue)
{
    const struct ofcd_config *cfg = &app->cfg;
    struct lcore_ctx *lc;

    lc = rte_zmalloc_socket("lcore_ctx", sizeof(*lc), RTE_CACHE_LINE_SIZE,
                            (int)rte_lcore_to_socket_id(lcore_id));
    if (!lc) {
        LOG_ERR("lcore", "lcore %u: out of memory for its context", lcore_id);
        return NULL;
    }
    lc->app = app;
    lc->lcore_id = lcore_id;
    lc->role_io = io;
    lc->role_worker = worker;
    lc->queue = queue;
    lc->tsc_hz = rte_get_tsc_hz();
    atomic_init(&lc->snap_seq, 0);

    if (io) {
        lc->arp = arp_cache_create(cfg->arp_cache_size, (uint64_t)cfg->arp_timeout_s * 1000000ULL);
        if (!lc->arp) {
            rte_free(lc);
            return NULL;
        }
        const uint8_t *mac = cfg->has_mac ? cfg->mac : app->port->mac;
        int rc = net_ctx_init(&lc->net, mac, cfg->ip, cfg->prefix_len, lc->arp);
        if (rc < 0) {
            LOG_ERR("lcore", "lcore %u: network identity rejected: %s", lcore_id,
                    strerror(-rc));
            arp_cache_destroy(lc->arp);
            rte_free(lc);
            return NULL;
        }
        if (tcp_env_setup(lc, lcore_now_us(lc)) < 0 || lcore_echo_setup(lc) < 0) {
            lcore_ctx_destroy(lc);
            return NULL;
        }
    }
    return lc;
}

void lcore_ctx_destroy(struct lcore_ctx *lc)
{
    if (!lc)
        return;
    echo_service_stop(lc->echo_out);
    free(lc->echo_out);
    tcp_env_teardown(lc);
    /* Frames still batched (a last RST included) go back to the pool before
     * the port and its pool go away. */
    if (lc->ntx)
        rte_pktmbuf_free_bulk(lc->txq, lc->ntx);
    lc->ntx = 0;
    free(lc->echo);
    arp_cache_destroy(lc->arp);
    rte_free(lc);
}

static void lcore_publish(struct lcore_ctx *lc)
{
    unsigned seq = atomic_load_explicit(&lc->snap_seq, memory_order_relaxed);

    atomic_store_explicit(&lc->snap_seq, seq + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    lc->snap.lcore = lc->stats;
    if (lc->ofw) {
        of_worker_get_stats(lc->ofw, &lc->snap.of_worker);
        msgq_get_stats(of_worker_msg_in(lc->ofw), &lc->snap.msg_in);
    }
    if (lc->role_io) {
        lc->snap.net = lc->net.stats;
        lc->snap.arp = *arp_cache_get_stats(lc->arp);
        lc->snap.arp_entries = arp_cache_count(lc->arp);
        lc->snap.tcp = *tcp_stack_get_stats(lc->tcp);
        tcp_stack_state_counts(lc->tcp, lc->snap.tcp_states);
        lc->snap.tcp_conns = tcp_stack_conn_count(lc->tcp);
        lc->snap.tcp_chunks_free = rte_mempool_avail_count(lc->tcp_chunks);
        if (lc->ofio) {
            of_io_get_stats(lc->ofio, &lc->snap.of_io);
            lc->snap.of_conns = of_io_conn_count(lc->ofio);
            msgq_get_stats(of_io_msg_out(lc->ofio), &lc->snap.msg_out);
        }
        if (lc->echo_out && lc->echo_out->connector) {
            const struct tcp_connector_stats *ks =
                tcp_connector_get_stats(lc->echo_out->connector);
            lc->snap.connector_attempts = ks->attempts;
            lc->snap.connector_established = ks->established;
            lc->snap.connector_failures = ks->failures;
            lc->snap.connector_disconnects = ks->disconnects;
            lc->snap.connector_backoff_ms = ks->backoff_ms;
        }
    }
    atomic_store_explicit(&lc->snap_seq, seq + 2, memory_order_release);
}

void lcore_read_snapshot(struct lcore_ctx *lc, struct lcore_snapshot *out)
{
    unsigned before, after;

    do {
        before = atomic_load_explicit(&lc->snap_seq, memory_order_acquire);
        if (before & 1u)
            continue;
        *out = lc->snap;
        atomic_thread_fence(memory_order_acquire);
        after = atomic_load_explicit(&lc->snap_seq, memory_order_relaxed);
    } while ((before & 1u) || before != after);
}

/* rx: each frame through the net layer; replies are queued for tx. */
static uint16_t lcore_io_rx(struct lcore_ctx *lc, uint64_t now_us)
{
    struct rte_mbuf *pkts[LCORE_MAX_BURST];
    uint16_t burst = lc->app->cfg.burst;
    uint16_t nb = port_rx(lc->app->port, lc->queue, pkts, burst, now_us);

    lc->stats.rx_packets += nb;
    for (uint16_t i = 0; i < nb; i++) {
        struct rte_mbuf *m = pkts[i];
        struct net_rx_info info;

        /* The net layer reads one contiguous buffer; control traffic is small
         * enough that a chained frame is rare and worth one copy. */
        if (m->nb_segs > 1 && rte_pktmbuf_linearize(m) < 0) {
            lc->stats.rx_unusable++;
            rte_pktmbuf_free(m);
            continue;
        }
        uint16_t len = rte_pktmbuf_data_len(m);
        uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *);
        /* Replies may pad up to a minimum Ethernet frame: make room. */
        if (len < 60 && !rte_pktmbuf_append(m, (uint16_t)(60 - len))) {
            lc->stats.rx_unusable++;
            rte_pktmbuf_free(m);
            continue;
        }
        enum net_verdict v = net_rx(&lc->net, buf, &len, now_us, &info);
        if (v == NET_VERDICT_TX) {
            m->data_len = len;
            m->pkt_len = len;
            m->ol_flags = 0;
            lcore_tx_enqueue(lc, m, now_us);
            continue;
        }
        if (v == NET_VERDICT_TCP) {
            bool cksum_ok = (m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
                            RTE_MBUF_F_RX_L4_CKSUM_GOOD;
            tcp_input(lc->tcp, buf, len, &info, cksum_ok, now_us);
        }
        /* DROP was counted by reason inside net_rx; TCP copied what it keeps. */
        rte_pktmbuf_free(m);
    }
    return nb;
}

static void lcore_log_conn(const struct tcp_conn *c, void *arg)
{
    const struct lcore_ctx *lc = arg;
    struct tcp_conn_info i;

    tcp_conn_get_info(c, &i);
    LOG_INFO("tcp", "lcore %u conn %u.%u.%u.%u:%u -> :%u %s una=%u nxt=%u max=%u rcv_nxt=%u "
             "rcv_adv=%u snd_wnd=%u cwnd=%u sndq=%u rcvq=%u ooo=%u rto=%uus backoff=%u "
             "rtx=%d persist=%d recovery=%d fin_sent=%d fin_rcvd=%d closed=%d wants_write=%d "
             "retrans=%lu", lc->lcore_id, i.remote_ip >> 24, (i.remote_ip >> 16) & 255,
             (i.remote_ip >> 8) & 255, i.remote_ip & 255, i.remote_port, i.local_port,
             tcp_state_name(i.state), i.snd_una, i.snd_nxt, i.snd_max, i.rcv_nxt, i.rcv_adv,
             i.snd_wnd, i.cwnd, i.snd_queued, i.rcv_queued, i.ooo_segs, i.rto_us, i.backoff,
             i.rtx_armed, i.persist, i.in_recovery, i.fin_sent, i.fin_rcvd, i.app_closed,
             i.wants_write, (unsigned long)i.retransmits);
}

static void lcore_tick(struct lcore_ctx *lc, uint64_t now_us)
{
    unsigned dump = atomic_load_explicit(&lc->app->dump_conns, memory_order_relaxed);
    if (lc->role_io && dump != lc->dump_seen) {
        lc->dump_seen = dump;
        LOG_INFO("tcp", "lcore %u: %u connections", lc->lcore_id, tcp_stack_conn_count(lc->tcp));
        tcp_stack_foreach_conn(lc->tcp, lcore_log_conn, lc);
    }
    if (lc->ofw && dump != lc->dump_seen_ofw) {
        lc->dump_seen_ofw = dump;
        of_worker_log_switches(lc->ofw);
    }
    if (lc->role_io)
        arp_cache_expire(lc->arp, now_us);
    lcore_publish(lc);
    lc->next_tick_us = now_us + LCORE_TICK_US;
}

static bool lcore_io_tx(struct lcore_ctx *lc, uint64_t now_us)
{
    tcp_stack_flush(lc->tcp, now_us);
    bool worked = lc->ntx > 0;
    lcore_tx_flush(lc, now_us);
    port_poll(lc->app->port, lc->queue, now_us);
    return worked;
}

static void lcore_idle(struct lcore_ctx *lc, bool worked)
{
    const struct ofcd_config *cfg = &lc->app->cfg;

    if (worked) {
        lc->empty_polls = 0;
        return;
    }
    if (cfg->idle_sleep_us == 0 || ++lc->empty_polls < cfg->idle_polls)
        return;
    /* Stay at the threshold: every further empty poll sleeps until work. */
    lc->empty_polls = cfg->idle_polls;
    lc->stats.idle_sleeps++;
    rte_delay_us_sleep(cfg->idle_sleep_us);
}

int lcore_main(void *arg)
{
    struct lcore_ctx *lc = arg;
    struct app_ctx *app = lc->app;

    /* The idle back-off sleeps tens of microseconds; the default 50 µs timer
     * slack would double every one of them. */
    if (app->cfg.idle_sleep_us && prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0) < 0)
        LOG_WARN("lcore", "lcore %u: cannot reduce timer slack: %s", lc->lcore_id,
                 strerror(errno));

    LOG_INFO("lcore", "lcore %u running:%s%s (queue %u)", lc->lcore_id,
             lc->role_io ? " io" : "", lc->role_worker ? " worker" : "", lc->queue);
    uint64_t now = lc->now_us = lcore_now_us(lc);
    if (lc->role_io && lc->queue == 0 && app->cfg.gratuitous_arp)
        lcore_send_arp_request(lc, app->cfg.ip, now);
    lcore_tick(lc, now);

    while (!atomic_load_explicit(&app->stop, memory_order_relaxed)) {
        bool worked = false;

        now = lc->now_us = lcore_now_us(lc);
        lc->stats.loops++;
        uint64_t tsc = rte_get_tsc_cycles();
        if (lc->role_io) {
            worked = lcore_io_rx(lc, now) > 0;
            tcp_stack_run_timers(lc->tcp, now);
        }
        if (now >= lc->next_tick_us)
            lcore_tick(lc, now);
        /* rings: the worker drains msg_in, then the io side drains msg_out
         * into TCP, so a reply made in this iteration leaves in it. */
        if (lc->ofw)
            worked |= of_worker_poll(lc->ofw, now, tsc);
        if (lc->ofio)
            worked |= of_io_poll(lc->ofio, now, tsc);
        if (lc->role_io)
            worked |= lcore_io_tx(lc, now);
        lcore_idle(lc, worked);
    }
    lcore_publish(lc);
    LOG_INFO("lcore", "lcore %u stopped after %lu loops", lc->lcore_id,
             (unsigned long)lc->stats.loops);
    return 0;
}
