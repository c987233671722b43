/*
 * fuzz_net_tcp: libFuzzer target for everything a peer's frames reach —
 * net_rx (Ethernet/ARP/IPv4/ICMP) and tcp_input with the connection state it
 * builds up, interleaved with time passing (timers) and the app's calls.
 *
 * The input is a little program of operations:
 *   0 LEN16 BYTES   a TCP segment (header + options + payload) from
 *                   10.66.0.1 to 10.66.0.2, checksum made valid so it gets
 *                   past the cheap check and into the state machine
 *   1 MS16          advance the clock and run the timers
 *   2 ACT LEN16     an app call on the newest connection: send LEN bytes,
 *                   read LEN bytes, shutdown, close or abort
 *   3               flush output
 *   4 LEN16 BYTES   a raw Ethernet frame through net_rx (TCP verdicts go on
 *                   to tcp_input)
 * ISS is fixed so the fuzzer can learn acceptable sequence numbers from the
 * comparisons it traces. Every frame the stack sends is parsed back by
 * net_rx's IPv4 checks as a sanity check on the builder.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"
#include "net_cksum.h"
#include "tcp.h"

#define OUR_IP 0x0a420002u
#define PEER_IP 0x0a420001u
#define MAX_CHUNKS 4096

struct fz {
    struct tcp_stack *stack;
    struct net_ctx net;
    struct arp_cache *arp;
    struct tcp_conn *last;
    uint64_t now;
    unsigned chunks;
    uint8_t frame[2048];
};

static const uint8_t our_mac[6] = {0x02, 0, 0, 0, 0, 2};
static const uint8_t peer_mac[6] = {0x02, 0, 0, 0, 0, 1};

static uint8_t *fz_frame_alloc(void *arg, uint16_t len, void **handle)
{
    struct fz *f = arg;
    if (len > sizeof(f->frame))
        abort();                     /* the stack asked for an impossible frame */
    *handle = f->frame;
    return f->frame;
}

static void fz_frame_send(void *arg, void *handle, uint16_t len, const struct tcp_tx_meta *meta)
{
    (void)arg;
    (void)meta;
    const uint8_t *p = handle;
    /* What we send must itself be a well-formed IPv4/TCP packet. */
    uint16_t tot = (uint16_t)(p[16] << 8 | p[17]);
    if (len < 54 || tot + 14u != len || net_cksum(p + 14, 20) != 0)
        abort();
}

static void *fz_chunk_alloc(void *arg)
{
    struct fz *f = arg;
    if (f->chunks >= MAX_CHUNKS)
        return NULL;
    f->chunks++;
    return malloc(TCP_CHUNK_SIZE);
}

static void fz_chunk_free(void *arg, void *chunk)
{
    struct fz *f = arg;
    f->chunks--;
    free(chunk);
}

static void on_est(struct tcp_conn *c, void *u)
{
    ((struct fz *)u)->last = c;
}

static void on_data(struct tcp_conn *c, void *u)
{
    (void)c;
    (void)u;
}

static void on_closed(struct tcp_conn *c, void *u, int reason)
{
    struct fz *f = u;
    (void)reason;
    if (f->last == c)
        f->last = NULL;
}

static const struct tcp_conn_ops ops = {on_est, on_data, on_data, on_closed};

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static void feed_segment(struct fz *f, const uint8_t *seg, uint16_t len)
{
    uint8_t buf[1600];
    struct net_rx_info info = {.l3_off = 14, .l4_off = 34, .l4_len = len};

    if (len > sizeof(buf) - 34)
        len = sizeof(buf) - 34;
    memcpy(buf, our_mac, 6);
    memcpy(buf + 6, peer_mac, 6);
    buf[12] = 0x08;
    buf[13] = 0x00;
    uint8_t *ip = buf + 14;
    memset(ip, 0, 20);
    ip[0] = 0x45;
    ip[2] = (uint8_t)((20 + len) >> 8);
    ip[3] = (uint8_t)(20 + len);
    ip[8] = 64;
    ip[9] = 6;
    uint32_t s = htonl(PEER_IP), d = htonl(OUR_IP);
    memcpy(ip + 12, &s, 4);
    memcpy(ip + 16, &d, 4);
    memcpy(buf + 34, seg, len);
    if (len >= 18) {
        uint8_t pseudo[12];
        memcpy(pseudo, ip + 12, 8);
        pseudo[8] = 0;
        pseudo[9] = 6;
        pseudo[10] = (uint8_t)(len >> 8);
        pseudo[11] = (uint8_t)len;
        buf[34 + 16] = buf[34 + 17] = 0;
        uint32_t sum = net_cksum_add(0, pseudo, 12);
        sum = net_cksum_add(sum, buf + 34, len);
        uint16_t c = net_cksum_finish(sum);
        memcpy(buf + 34 + 16, &c, 2);
    }
    info.l4_len = len;
    tcp_input(f->stack, buf, (uint16_t)(34 + len), &info, false, f->now);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz f;
    struct tcp_config cfg;
    uint8_t secret[16] = {1, 2, 3};

    memset(&f, 0, sizeof(f));
    f.now = 1000000;
    tcp_config_defaults(&cfg);
    cfg.max_conns = 16;
    cfg.syn_backlog = 2;                 /* reach the cookie path quickly */
    cfg.ooo_max_segs = 8;
    cfg.keepalive_idle_s = 1;
    cfg.max_time_wait = 2;
    struct tcp_env env = {
        .arg = &f,
        .frame_alloc = fz_frame_alloc,
        .frame_send = fz_frame_send,
        .chunk_alloc = fz_chunk_alloc,
        .chunk_free = fz_chunk_free,
        .resolve = NULL,
    };
    f.arp = arp_cache_create(16, 1000000);
    if (!f.arp || net_ctx_init(&f.net, our_mac, OUR_IP, 24, f.arp) < 0)
        abort();
    f.net.tcp_attached = true;
    f.stack = tcp_stack_create(&cfg, &env, OUR_IP, our_mac, secret, f.now);
    if (!f.stack)
        abort();
    tcp_listen(f.stack, 6653, 0, &ops, &f);

    size_t i = 0;
    while (i < size) {
        uint8_t op = data[i++] % 5;
        uint16_t n = 0;
        if (op != 3) {
            if (i + 2 > size)
                break;
            n = rd16(data + i);
            i += 2;
        }
        switch (op) {
        case 0:
        case 4: {
            n = (uint16_t)(n % 1500);
            if (n > size - i)
                n = (uint16_t)(size - i);
            if (op == 0) {
                tcp_stack_force_next_iss(f.stack, 1000);
                feed_segment(&f, data + i, n);
            } else {
                uint8_t frame[1600];
                struct net_rx_info info;
                uint16_t len = n;
                memset(frame, 0, sizeof(frame));
                memcpy(frame, data + i, n);
                if (net_rx(&f.net, frame, &len, f.now, &info) == NET_VERDICT_TCP)
                    tcp_input(f.stack, frame, len, &info, false, f.now);
            }
            i += n;
            break;
        }
        case 1:
            f.now += (uint64_t)n * 1000u;
            tcp_stack_run_timers(f.stack, f.now);
            break;
        case 2: {
            if (!f.last)
                break;
            static const uint8_t junk[4096];
            uint8_t sink[4096];
            switch (n % 5) {
            case 0:
                tcp_send(f.last, junk, n % sizeof(junk));
                break;
            case 1:
                tcp_recv(f.last, sink, n % sizeof(sink));
                break;
            case 2:
                tcp_shutdown(f.last);
                break;
            case 3:
                tcp_close(f.last);
                f.last = NULL;
                break;
            default:
                tcp_abort(f.last);
                f.last = NULL;
                break;
            }
            break;
        }
        default:
            tcp_stack_flush(f.stack, f.now);
            break;
        }
    }
    tcp_stack_flush(f.stack, f.now);
    tcp_stack_destroy(f.stack);
    arp_cache_destroy(f.arp);
    if (f.chunks != 0)
        abort();                         /* a payload chunk leaked */
    return 0;
}
