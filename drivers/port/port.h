/*
 * port: the one interface the io lcore uses to move frames, whatever is
 * underneath — a DPDK ethdev (physical NIC or vdev) or a wrapper around
 * another port (the fault injector). Backends fill a struct port_ops.
 *
 * Ownership: rx hands mbufs to the caller. tx takes the mbufs it accepts; the
 * ones it does not accept (return < n) stay the caller's, who must free and
 * count them (ofcd never drops silently). poll() is called once per loop
 * iteration so wrappers can release what they hold.
 * A port is used by one lcore at a time (one queue per lcore).
 */
#ifndef OFCD_PORT_H
#define OFCD_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "ofcd_counters.h"

struct port;

#define PORT_COUNTERS(X)                                                                  \
    X(rx_packets, "frames received") X(rx_bytes, "bytes received")                        \
    X(tx_packets, "frames sent") X(tx_bytes, "bytes sent")                                \
    X(rx_missed, "frames the NIC dropped: no descriptors")                                \
    X(rx_errors, "receive errors") X(tx_errors, "transmit errors")                        \
    X(tx_refused, "frames a wrapper freed because the port below refused them")

struct port_stats {
    PORT_COUNTERS(OFCD_COUNTER_FIELD)
};

extern const struct ofcd_counter_group port_counters;         /* "port" */

struct port_ops {
    uint16_t (*rx)(struct port *p, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
                   uint64_t now_us);
    uint16_t (*tx)(struct port *p, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
                   uint64_t now_us);
    void (*poll)(struct port *p, uint16_t queue, uint64_t now_us);
    int (*stats)(struct port *p, struct port_stats *out);
    void (*close)(struct port *p);
};

/* Checksum work the hardware can do for us (probed at setup). */
struct port_offloads {
    bool ipv4_cksum;
    bool tcp_cksum;
};

struct port {
    const struct port_ops *ops;
    char name[64];
    char driver[32];               /* e.g. "net_tap", "net_ice" */
    uint16_t port_id;              /* the underlying ethdev */
    uint16_t n_queues;             /* rx/tx queue pairs, one per io lcore */
    uint8_t mac[6];
    struct port_offloads offloads;
    int kernel_ifindex;            /* tap/af_packet: the kernel netdev, else 0 */
    void *priv;                    /* backend state */
};

static inline uint16_t port_rx(struct port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n,
                               uint64_t now_us)
{
    return p->ops->rx(p, q, pkts, n, now_us);
}

static inline uint16_t port_tx(struct port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n,
                               uint64_t now_us)
{
    return p->ops->tx(p, q, pkts, n, now_us);
}

static inline void port_poll(struct port *p, uint16_t q, uint64_t now_us)
{
    if (p->ops->poll)
        p->ops->poll(p, q, now_us);
}

static inline int port_get_stats(struct port *p, struct port_stats *out)
{
    return p->ops->stats(p, out);
}

static inline void port_close(struct port *p)
{
    p->ops->close(p);
}

/* Sizes for port_ethdev_open(), from [port] in the config. */
struct port_ethdev_conf {
    uint32_t mbufs;
    uint32_t mbuf_cache;
    uint16_t rx_desc;
    uint16_t tx_desc;
    uint16_t n_queues;             /* one rx+tx queue pair per io lcore */
    int socket_id;
};

/*
 * Configure and start ethdev port_id: mempool, queues, offload probe, link.
 * Returns a port or NULL (the reason is logged).
 */
struct port *port_ethdev_open(uint16_t port_id, const struct port_ethdev_conf *conf);

/* The ethdev's mempool (for building frames to send). */
struct rte_mempool *port_ethdev_pool(struct port *p);

/* Link state now: 1 up, 0 down, negative on error. speed_mbps may be NULL. */
int port_ethdev_link(struct port *p, uint32_t *speed_mbps);

struct fault_rates;

/*
 * Wrap inner in the fault injector. rx and tx have their own rates and their
 * own PRNG streams derived from seed. The wrapper owns inner from now on
 * (closing it closes inner). NULL on bad rates (logged).
 */
struct port *port_fault_wrap(struct port *inner, const struct fault_rates *rx,
                             const struct fault_rates *tx, uint64_t seed);

struct ofcd_ctl;

/* ofcdctl's fault/set for a port port_fault_wrap made (-EINVAL for another
 * port): the rates shown or changed on the control thread, taken by each
 * queue's lcore at its next poll. 0 or ofcd_ctl_register's error. */
int port_fault_ctl_register(struct port *p, struct ofcd_ctl *c);

#endif
