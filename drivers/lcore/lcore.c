/* lcore: see lcore.h for the loop order and why it is in that order. */
#include "lcore_priv.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "ofcd_clock.h"
#include "ofcd_inet.h"
#include "ofcd_log.h"
#include "ofcd_log_ring.h"
#include "port.h"

OFCD_COUNTER_GROUP(lcore_counters, "lcore", struct lcore_stats, LCORE_COUNTERS, LCORE_GAUGES);

static uint64_t tsc_to_us(uint64_t c)
{
    uint64_t hz = rte_get_tsc_hz();

    /* Split so the multiplication cannot overflow however long we run. */
    return (c / hz) * 1000000ULL + (c % hz) * 1000000ULL / hz;
}

/* The poll loop's clock: TSC cycles (a few ns to read, every pass reads
 * it) plus the process's warp, so it moves with ofcd_clock's. */
uint64_t lcore_clock_us(void)
{
    return tsc_to_us(rte_get_tsc_cycles()) + ofcd_clock_warp_offset_us();
}

/* ---- published counters ---------------------------------------------------------- */

/* The lcore's own sets, then each task's, in one fixed order: the visit
 * that lays the snapshot out and every later one that fills it agree. */
static void visit_counters(struct lcore_ctx *lc, ofcd_counter_fn fn, void *arg)
{
    lc->stats.tcp_chunks_free = lc->tcp_chunks ? rte_mempool_avail_count(lc->tcp_chunks) : 0;
    fn(arg, &lcore_counters, "", OFCD_COUNTER_VALUES(&lc->stats));
    if (lc->cfg.io) {
        struct tcp_state_counts states;
        fn(arg, &net_counters, "", OFCD_COUNTER_VALUES(&lc->net.stats));
        fn(arg, &arp_cache_counters, "", OFCD_COUNTER_VALUES(arp_cache_get_stats(lc->arp)));
        fn(arg, &tcp_counters, "", OFCD_COUNTER_VALUES(tcp_stack_get_stats(lc->tcp)));
        tcp_stack_state_counts(lc->tcp, &states);
        fn(arg, &tcp_state_counters, "", OFCD_COUNTER_VALUES(&states));
    }
    for (unsigned i = 0; i < lc->n_tasks; i++)
        if (lc->tasks[i].counters)
            lc->tasks[i].counters(lc->tasks[i].arg, fn, arg);
}

struct layout {
    struct lcore_ctx *lc;
    int rc;
};

static void layout_set(void *arg, const struct ofcd_counter_group *g, const char *labels,
                       const uint64_t *values)
{
    struct layout *l = arg;
    struct lcore_ctx *lc = l->lc;

    (void)values;
    if (lc->n_sets == LCORE_MAX_SETS) {
        l->rc = -ENOSPC;
        return;
    }
    struct lcore_set *s = &lc->sets[lc->n_sets++];
    s->group = g;
    snprintf(s->labels, sizeof(s->labels), "lcore=\"%u\"%s%s", lc->cfg.lcore_id,
             labels[0] ? "," : "", labels);
    s->off = lc->n_words;
    lc->n_words += g->n;
}

/* Lay the snapshot out anew (before launch: nobody reads yet). */
static int layout_snapshot(struct lcore_ctx *lc)
{
    struct layout l = {.lc = lc, .rc = 0};

    lc->n_sets = 0;
    lc->n_words = 0;
    visit_counters(lc, layout_set, &l);
    if (l.rc < 0)
        return l.rc;
    uint64_t *staging = calloc(lc->n_words, sizeof(uint64_t));
    uint64_t *snap = calloc(lc->n_words, sizeof(uint64_t));
    if (!staging || !snap) {
        free(staging);
        free(snap);
        return -ENOMEM;
    }
    free(lc->staging);
    free(lc->snap);
    lc->staging = staging;
    lc->snap = snap;
    return 0;
}

struct stage {
    struct lcore_ctx *lc;
    unsigned set;
};

static void stage_set(void *arg, const struct ofcd_counter_group *g, const char *labels,
                      const uint64_t *values)
{
    struct stage *st = arg;

    (void)labels;
    /* A task that changed its sets after the layout is a bug: never write
     * outside the slots the layout gave. */
    if (st->set >= st->lc->n_sets)
        return;
    const struct lcore_set *s = &st->lc->sets[st->set++];
    if (s->group == g)
        memcpy(st->lc->staging + s->off, values, g->n * sizeof(uint64_t));
}

static void publish(struct lcore_ctx *lc)
{
    struct stage st = {.lc = lc, .set = 0};

    visit_counters(lc, stage_set, &st);
    ofcd_seqlock_publish(&lc->snap_lock, lc->snap, lc->staging, lc->n_words);
}

void lcore_read_counters(struct lcore_ctx *lc, ofcd_counter_fn fn, void *arg)
{
    uint64_t *copy = malloc(lc->n_words * sizeof(uint64_t) + 1);

    if (!copy)
        return;
    ofcd_seqlock_read(&lc->snap_lock, copy, lc->snap, lc->n_words);
    for (unsigned i = 0; i < lc->n_sets; i++)
        fn(arg, lc->sets[i].group, lc->sets[i].labels, copy + lc->sets[i].off);
    free(copy);
}

uint64_t lcore_published_loops(struct lcore_ctx *lc)
{
    uint64_t loops;

    /* The lcore group is the first set, loops its first word. */
    ofcd_seqlock_read(&lc->snap_lock, &loops, lc->snap, 1);
    return loops;
}

/* ---- life cycle ------------------------------------------------------------------- */

struct lcore_ctx *lcore_create(const struct lcore_cfg *cfg, const struct lcore_env *env)
{
    struct lcore_ctx *lc = rte_zmalloc_socket("lcore_ctx", sizeof(*lc), RTE_CACHE_LINE_SIZE,
                                              (int)rte_lcore_to_socket_id(cfg->lcore_id));

    if (!lc) {
        LOG_ERR("lcore", "lcore %u: out of memory for its context", cfg->lcore_id);
        return NULL;
    }
    lc->cfg = *cfg;
    lc->env = *env;
    lc->bell.fd = -1;                   /* lcore_destroy closes it only once made */
    ofcd_seqlock_init(&lc->snap_lock);
    int brc = ofcd_doorbell_init(&lc->bell);
    if (brc < 0) {
        LOG_ERR("lcore", "lcore %u: no eventfd for its doorbell: %s", cfg->lcore_id,
                strerror(-brc));
        lcore_destroy(lc);
        return NULL;
    }
    char name[32];
    snprintf(name, sizeof(name), "lcore %u", cfg->lcore_id);
    lc->log = ofcd_log_ring_create(name, LCORE_LOG_LINES);
    if (!lc->log) {
        LOG_ERR("lcore", "lcore %u: out of memory for its log ring", cfg->lcore_id);
        lcore_destroy(lc);
        return NULL;
    }
    if ((cfg->io && lcore_io_setup(lc) < 0) || layout_snapshot(lc) < 0) {
        lcore_destroy(lc);
        return NULL;
    }
    return lc;
}

void lcore_destroy(struct lcore_ctx *lc)
{
    if (!lc)
        return;
    lcore_io_teardown(lc);
    if (lc->log) {
        lcore_drain_log(lc, stderr);
        ofcd_log_ring_destroy(lc->log);
    }
    free(lc->staging);
    free(lc->snap);
    ofcd_textreq_fini(&lc->conns);
    ofcd_doorbell_fini(&lc->bell);
    rte_free(lc);
}

int lcore_conns_ask(struct lcore_ctx *lc)
{
    return lc->cfg.io ? ofcd_textreq_ask(&lc->conns, LCORE_CONNS_TEXT_MAX) : -ENOTSUP;
}

const char *lcore_conns_text(struct lcore_ctx *lc, size_t *len, bool *cut)
{
    if (!lc->conns.buf || !ofcd_textreq_ready(&lc->conns))
        return NULL;
    *len = lc->conns.len;
    *cut = lc->conns.cut;
    return lc->conns.buf;
}

unsigned lcore_drain_log(struct lcore_ctx *lc, FILE *out)
{
    return ofcd_log_ring_drain(lc->log, out);
}

int lcore_add_task(struct lcore_ctx *lc, const struct lcore_task *task)
{
    if (lc->n_tasks == LCORE_MAX_TASKS)
        return -ENOSPC;
    lc->tasks[lc->n_tasks++] = *task;
    int rc = layout_snapshot(lc);
    if (rc < 0) {
        lc->n_tasks--;
        LOG_ERR("lcore", "lcore %u: cannot publish the counters of task %s: %s",
                lc->cfg.lcore_id, task->name, strerror(-rc));
    }
    return rc;
}

struct ofcd_doorbell *lcore_bell(struct lcore_ctx *lc)
{
    return &lc->bell;
}

unsigned lcore_id(const struct lcore_ctx *lc)
{
    return lc->cfg.lcore_id;
}

bool lcore_is_io(const struct lcore_ctx *lc)
{
    return lc->cfg.io;
}

struct tcp_stack *lcore_tcp(struct lcore_ctx *lc)
{
    return lc->tcp;
}

/* ---- the loop --------------------------------------------------------------------- */

/* rx: each frame through the net layer; replies are queued for tx. */
static uint16_t lcore_io_rx(struct lcore_ctx *lc, uint64_t now_us)
{
    struct rte_mbuf *pkts[LCORE_MAX_BURST];
    uint16_t nb = port_rx(lc->env.port, lc->cfg.queue, pkts, lc->cfg.burst, now_us);

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
        if (len < NET_ETH_MIN_FRAME &&
            !rte_pktmbuf_append(m, (uint16_t)(NET_ETH_MIN_FRAME - len))) {
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

/* One connection as operators read it: SIGUSR2's log line and conn/show's. */
static void format_conn(char *buf, size_t n, const struct lcore_ctx *lc, const struct tcp_conn *c)
{
    struct tcp_conn_info i;
    char peer[OFCD_PEER_STRLEN];

    tcp_conn_get_info(c, &i);
    snprintf(buf, n, "lcore %u conn %s -> :%u %s una=%u nxt=%u max=%u rcv_nxt=%u "
             "rcv_adv=%u snd_wnd=%u cwnd=%u sndq=%u rcvq=%u ooo=%u rto=%uus backoff=%u "
             "rtx=%d persist=%d recovery=%d fin_sent=%d fin_rcvd=%d closed=%d wants_write=%d "
             "retrans=%lu", lc->cfg.lcore_id, ofcd_peer_format(i.remote_ip, i.remote_port, peer),
             i.local_port,
             tcp_state_name(i.state), i.snd_una, i.snd_nxt, i.snd_max, i.rcv_nxt, i.rcv_adv,
             i.snd_wnd, i.cwnd, i.snd_queued, i.rcv_queued, i.ooo_segs, i.rto_us, i.backoff,
             i.rtx_armed, i.persist, i.in_recovery, i.fin_sent, i.fin_rcvd, i.app_closed,
             i.wants_write, (unsigned long)i.retransmits);
}

#define CONN_LINE_MAX 400

static void lcore_log_conn(const struct tcp_conn *c, void *arg)
{
    char line[CONN_LINE_MAX];

    format_conn(line, sizeof(line), arg, c);
    LOG_INFO("tcp", "%s", line);
}

static void lcore_dump(struct lcore_ctx *lc)
{
    if (lc->cfg.io) {
        LOG_INFO("tcp", "lcore %u: %u connections", lc->cfg.lcore_id,
                 tcp_stack_conn_count(lc->tcp));
        tcp_stack_foreach_conn(lc->tcp, lcore_log_conn, lc);
    }
    for (unsigned i = 0; i < lc->n_tasks; i++)
        if (lc->tasks[i].dump)
            lc->tasks[i].dump(lc->tasks[i].arg);
}

static void lcore_text_conn(const struct tcp_conn *c, void *arg)
{
    struct lcore_ctx *lc = arg;
    char line[CONN_LINE_MAX];

    format_conn(line, sizeof(line), lc, c);
    ofcd_textreq_printf(&lc->conns, "%s\n", line);
}

/* conn/show's answer, on the lcore that owns the connections. */
static void lcore_answer_conns(struct lcore_ctx *lc)
{
    ofcd_textreq_printf(&lc->conns, "lcore %u: %u connections\n", lc->cfg.lcore_id,
                        tcp_stack_conn_count(lc->tcp));
    tcp_stack_foreach_conn(lc->tcp, lcore_text_conn, lc);
    ofcd_textreq_answer(&lc->conns);
}

static void lcore_tick(struct lcore_ctx *lc, uint64_t now_us)
{
    unsigned dump = atomic_load_explicit(lc->env.dump, memory_order_relaxed);

    if (dump != lc->dump_seen) {
        lc->dump_seen = dump;
        lcore_dump(lc);
    }
    if (lc->cfg.io && ofcd_textreq_pending(&lc->conns))
        lcore_answer_conns(lc);
    if (lc->cfg.io)
        arp_cache_expire(lc->arp, now_us);
    publish(lc);
    lc->next_tick_us = now_us + LCORE_TICK_US;
}

static bool lcore_io_tx(struct lcore_ctx *lc, uint64_t now_us)
{
    tcp_stack_flush(lc->tcp, now_us);
    bool worked = lc->ntx > 0;
    lcore_tx_flush(lc, now_us);
    port_poll(lc->env.port, lc->cfg.queue, now_us);
    return worked;
}

/*
 * The back-off. A sleep of idle_sleep_us per empty iteration woke an idle
 * lcore 20,000 times a second, each wake-up a timer and a system call: a
 * fifth of ofcd's CPU during a batched install on this 2-core VM. So once
 * the lcore has slept about LCORE_IDLE_SHORT_US in a row it sleeps on its
 * doorbell instead: whoever posts it work rings it (its rings, the tap's
 * receive signal), and the sleep can last idle_wait_us. Short gaps keep
 * the timed sleeps, as before: a flood's gaps are brief, and a timed sleep
 * needs no other thread to end it.
 */
static void lcore_idle(struct lcore_ctx *lc, bool worked)
{
    const struct lcore_cfg *cfg = &lc->cfg;

    if (worked) {
        lc->empty_polls = 0;
        lc->sleeps_in_row = 0;
        if (lc->bell_armed) {
            ofcd_doorbell_disarm(&lc->bell);
            lc->bell_armed = false;
        }
        return;
    }
    if (cfg->idle_sleep_us == 0 || ++lc->empty_polls < cfg->idle_polls)
        return;
    /* Stay at the threshold: every further empty poll sleeps until work. */
    lc->empty_polls = cfg->idle_polls;
    if (cfg->idle_wait_us == 0 ||
        (uint64_t)lc->sleeps_in_row * cfg->idle_sleep_us < LCORE_IDLE_SHORT_US) {
        lc->sleeps_in_row++;
        lc->stats.idle_sleeps++;
        rte_delay_us_sleep(cfg->idle_sleep_us);
        return;
    }
    if (!lc->bell_armed) {
        /* Armed, then one more iteration before sleeping: what was posted
         * before the arming is seen by it, what comes after rings. */
        ofcd_doorbell_arm(&lc->bell);
        lc->bell_armed = true;
        return;
    }
    uint32_t us = cfg->idle_wait_us;
    struct timespec ts = {.tv_sec = us / 1000000u, .tv_nsec = (long)(us % 1000000u) * 1000L};
    struct pollfd pfd = {.fd = lc->bell.fd, .events = POLLIN};
    lc->stats.idle_sleeps++;
    int n = ppoll(&pfd, 1, &ts, &lc->sleep_sigs);
    if (n < 0 && errno == EINTR)
        lc->stats.idle_rung++;          /* the port's receive signal, taken here */
    if (n > 0) {
        lc->stats.idle_rung++;
        ofcd_doorbell_clear(&lc->bell);
    } else {
        ofcd_doorbell_disarm(&lc->bell);
    }
    lc->bell_armed = false;
}

int lcore_main(void *arg)
{
    struct lcore_ctx *lc = arg;
    const struct lcore_cfg *cfg = &lc->cfg;

    ofcd_log_use_ring(lc->log);
    /* Asleep on its bell, an io lcore takes the real-time signals itself
     * (the tap's receive signal: the kernel gives it to a thread that does
     * not block it, this one or ofcd-rxsig, rx_signal.h): a frame then wakes
     * it with no other thread to schedule first. Awake it blocks them. */
    pthread_sigmask(SIG_BLOCK, NULL, &lc->sleep_sigs);
    if (cfg->io && cfg->sleep_takes_rx_signal)
        for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
            sigdelset(&lc->sleep_sigs, s);
    /* The idle back-off sleeps tens of microseconds; the default 50 µs timer
     * slack would double every one of them. */
    if (cfg->idle_sleep_us && prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0) < 0)
        LOG_WARN("lcore", "lcore %u: cannot reduce timer slack: %s", cfg->lcore_id,
                 strerror(errno));

    char tasks[128] = "";
    for (unsigned i = 0, off = 0; i < lc->n_tasks && off < sizeof(tasks); i++)
        off += (unsigned)snprintf(tasks + off, sizeof(tasks) - off, " %s", lc->tasks[i].name);
    LOG_INFO("lcore", "lcore %u running:%s%s (queue %u)", cfg->lcore_id, cfg->io ? " io" : "",
             tasks, cfg->queue);
    uint64_t now = lc->now_us = lcore_clock_us();
    if (cfg->io && cfg->queue == 0 && cfg->gratuitous_arp)
        lcore_send_arp_request(lc, cfg->ip, now);
    lcore_tick(lc, now);

    while (!atomic_load_explicit(lc->env.stop, memory_order_relaxed)) {
        bool worked = false;

        /* One clock read: the tasks' µs and TSC times are the same instant. */
        uint64_t tsc = rte_get_tsc_cycles();
        now = lc->now_us = tsc_to_us(tsc);
        lc->stats.loops++;
        if (cfg->io) {
            worked = lcore_io_rx(lc, now) > 0;
            tcp_stack_run_timers(lc->tcp, now);
        }
        if (now >= lc->next_tick_us)
            lcore_tick(lc, now);
        for (unsigned i = 0; i < lc->n_tasks; i++)
            if (lc->tasks[i].poll)
                worked |= lc->tasks[i].poll(lc->tasks[i].arg, now, tsc);
        if (cfg->io)
            worked |= lcore_io_tx(lc, now);
        lcore_idle(lc, worked);
    }
    publish(lc);
    LOG_INFO("lcore", "lcore %u stopped after %lu loops", cfg->lcore_id,
             (unsigned long)lc->stats.loops);
    /* The main lcore's thread goes on to the teardown: it logs directly. */
    ofcd_log_use_ring(NULL);
    return 0;
}
