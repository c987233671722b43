/*
 * port_ethdev: a struct port over a DPDK ethdev — whatever EAL gives, a PCI
 * NIC or a vdev (net_tap, net_af_packet, net_memif).
 *
 * Setup order: info → configure (one rx/tx queue pair per io lcore, checksum
 * offloads the device has) → queues → start → link. Everything is sized from
 * config so a small --no-huge memory budget still starts.
 */
#include "port.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "ofcd_log.h"

OFCD_COUNTER_GROUP(port_counters, "port", struct port_stats, PORT_COUNTERS, OFCD_NO_COUNTERS);

#define PORT_LINK_WAIT_MS 3000

struct port_ethdev {
    struct port port;
    struct rte_mempool *pool;
};

static struct port_ethdev *ethdev_of(struct port *p)
{
    return (struct port_ethdev *)p->priv;
}

static uint16_t ethdev_rx(struct port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n,
                          uint64_t now_us)
{
    (void)now_us;
    return rte_eth_rx_burst(p->port_id, q, pkts, n);
}

static uint16_t ethdev_tx(struct port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n,
                          uint64_t now_us)
{
    (void)now_us;
    return rte_eth_tx_burst(p->port_id, q, pkts, n);
}

static int ethdev_stats(struct port *p, struct port_stats *out)
{
    struct rte_eth_stats st;
    int rc = rte_eth_stats_get(p->port_id, &st);

    if (rc < 0)
        return rc;
    memset(out, 0, sizeof(*out));
    out->rx_packets = st.ipackets;
    out->rx_bytes = st.ibytes;
    out->tx_packets = st.opackets;
    out->tx_bytes = st.obytes;
    out->rx_missed = st.imissed;
    out->rx_errors = st.ierrors + st.rx_nombuf;
    out->tx_errors = st.oerrors;
    return 0;
}

static void ethdev_close(struct port *p)
{
    struct port_ethdev *pe = ethdev_of(p);
    int rc;

    rc = rte_eth_dev_stop(p->port_id);
    if (rc < 0)
        LOG_WARN("port", "%s: stop: %s", p->name, rte_strerror(-rc));
    rc = rte_eth_dev_close(p->port_id);
    if (rc < 0)
        LOG_WARN("port", "%s: close: %s", p->name, rte_strerror(-rc));
    rte_mempool_free(pe->pool);
    free(pe);
}

static const struct port_ops ethdev_ops = {
    .rx = ethdev_rx,
    .tx = ethdev_tx,
    .poll = NULL,
    .stats = ethdev_stats,
    .close = ethdev_close,
};

struct rte_mempool *port_ethdev_pool(struct port *p)
{
    return ethdev_of(p)->pool;
}

int port_ethdev_link(struct port *p, uint32_t *speed_mbps)
{
    struct rte_eth_link link;
    int rc = rte_eth_link_get_nowait(p->port_id, &link);

    if (rc < 0)
        return rc;
    if (speed_mbps)
        *speed_mbps = link.link_speed;
    return link.link_status == RTE_ETH_LINK_UP;
}

/* Ask only for offloads the device has; the stack does the rest in software. */
static void probe_offloads(const struct rte_eth_dev_info *info, struct port_offloads *off,
                           uint64_t *tx_offloads)
{
    *tx_offloads = 0;
    off->ipv4_cksum = info->tx_offload_capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
    off->tcp_cksum = info->tx_offload_capa & RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
    if (off->ipv4_cksum)
        *tx_offloads |= RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
    if (off->tcp_cksum)
        *tx_offloads |= RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
}

static int setup_queues(struct port_ethdev *pe, const struct port_ethdev_conf *conf,
                        const struct rte_eth_dev_info *info, uint64_t tx_offloads)
{
    uint16_t pid = pe->port.port_id;
    uint16_t nb_rxd = conf->rx_desc, nb_txd = conf->tx_desc;
    int rc = rte_eth_dev_adjust_nb_rx_tx_desc(pid, &nb_rxd, &nb_txd);

    if (rc < 0) {
        LOG_ERR("port", "%s: descriptor counts rx=%u tx=%u not usable: %s", pe->port.name,
                conf->rx_desc, conf->tx_desc, rte_strerror(-rc));
        return rc;
    }
    for (uint16_t q = 0; q < conf->n_queues; q++) {
        rc = rte_eth_rx_queue_setup(pid, q, nb_rxd, conf->socket_id, NULL, pe->pool);
        if (rc < 0) {
            LOG_ERR("port", "%s: rx queue %u setup: %s", pe->port.name, q, rte_strerror(-rc));
            return rc;
        }
        struct rte_eth_txconf txconf = info->default_txconf;
        txconf.offloads = tx_offloads;
        rc = rte_eth_tx_queue_setup(pid, q, nb_txd, conf->socket_id, &txconf);
        if (rc < 0) {
            LOG_ERR("port", "%s: tx queue %u setup: %s", pe->port.name, q, rte_strerror(-rc));
            return rc;
        }
    }
    return 0;
}

static void wait_link(struct port *p)
{
    uint32_t speed = 0;
    int up = 0;

    /* Link comes up asynchronously on real NICs; a tap is up at once. */
    for (int waited = 0; waited < PORT_LINK_WAIT_MS; waited += 100) {
        up = port_ethdev_link(p, &speed);
        if (up != 0)
            break;
        rte_delay_ms(100);
    }
    if (up > 0)
        LOG_INFO("port", "%s: link up, %u Mbps", p->name, speed);
    else
        LOG_WARN("port", "%s: link still down after %d ms; continuing, frames flow when it "
                 "comes up", p->name, PORT_LINK_WAIT_MS);
}

struct port *port_ethdev_open(uint16_t port_id, const struct port_ethdev_conf *conf)
{
    struct rte_eth_dev_info info;
    struct rte_eth_conf eth_conf;
    struct port_ethdev *pe;
    uint64_t tx_offloads;
    int rc;

    if (!rte_eth_dev_is_valid_port(port_id)) {
        LOG_ERR("port", "ethdev %u does not exist: EAL found no such port (check the "
                "--vdev/-a options in eal.args)", port_id);
        return NULL;
    }
    pe = calloc(1, sizeof(*pe));
    if (!pe) {
        LOG_ERR("port", "out of memory");
        return NULL;
    }
    pe->port.ops = &ethdev_ops;
    pe->port.priv = pe;
    pe->port.port_id = port_id;
    pe->port.n_queues = conf->n_queues;
    rte_eth_dev_get_name_by_port(port_id, pe->port.name);

    rc = rte_eth_dev_info_get(port_id, &info);
    if (rc < 0) {
        LOG_ERR("port", "%s: device info: %s", pe->port.name, rte_strerror(-rc));
        goto fail;
    }
    if (conf->n_queues > info.max_rx_queues || conf->n_queues > info.max_tx_queues) {
        LOG_ERR("port", "%s: %u io lcores need %u queue pairs, device has rx %u tx %u",
                pe->port.name, conf->n_queues, conf->n_queues, info.max_rx_queues,
                info.max_tx_queues);
        goto fail;
    }
    snprintf(pe->port.driver, sizeof(pe->port.driver), "%s", info.driver_name);
    pe->port.kernel_ifindex = (int)info.if_index;

    char pool_name[RTE_MEMPOOL_NAMESIZE];
    snprintf(pool_name, sizeof(pool_name), "ofcd_mbuf_p%u", port_id);
    pe->pool = rte_pktmbuf_pool_create(pool_name, conf->mbufs, conf->mbuf_cache, 0,
                                       RTE_MBUF_DEFAULT_BUF_SIZE, conf->socket_id);
    if (!pe->pool) {
        LOG_ERR("port", "%s: cannot allocate %u mbufs (%s): lower port.mbufs or give EAL "
                "more memory (-m)", pe->port.name, conf->mbufs, rte_strerror(rte_errno));
        goto fail;
    }

    memset(&eth_conf, 0, sizeof(eth_conf));
    probe_offloads(&info, &pe->port.offloads, &tx_offloads);
    eth_conf.txmode.offloads = tx_offloads;
    if (conf->n_queues > 1) {
        /* Several io lcores: spread connections by 5-tuple, one owner each. */
        eth_conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
        eth_conf.rx_adv_conf.rss_conf.rss_hf =
            (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP) & info.flow_type_rss_offloads;
    }
    rc = rte_eth_dev_configure(port_id, conf->n_queues, conf->n_queues, &eth_conf);
    if (rc < 0) {
        LOG_ERR("port", "%s: configure: %s", pe->port.name, rte_strerror(-rc));
        goto fail_pool;
    }
    rc = setup_queues(pe, conf, &info, tx_offloads);
    if (rc < 0)
        goto fail_close;

    struct rte_ether_addr mac;
    rc = rte_eth_macaddr_get(port_id, &mac);
    if (rc < 0) {
        LOG_ERR("port", "%s: MAC address: %s", pe->port.name, rte_strerror(-rc));
        goto fail_close;
    }
    memcpy(pe->port.mac, mac.addr_bytes, 6);

    rc = rte_eth_dev_start(port_id);
    if (rc < 0) {
        LOG_ERR("port", "%s: start: %s", pe->port.name, rte_strerror(-rc));
        goto fail_close;
    }
    LOG_INFO("port", "%s: started, %u queue pair(s), %u mbufs, MAC "
             "%02x:%02x:%02x:%02x:%02x:%02x, checksum offload ipv4=%s tcp=%s",
             pe->port.name, conf->n_queues, conf->mbufs, mac.addr_bytes[0], mac.addr_bytes[1],
             mac.addr_bytes[2], mac.addr_bytes[3], mac.addr_bytes[4], mac.addr_bytes[5],
             pe->port.offloads.ipv4_cksum ? "yes" : "no",
             pe->port.offloads.tcp_cksum ? "yes" : "no");
    wait_link(&pe->port);
    return &pe->port;

fail_close:
    rte_eth_dev_close(port_id);
fail_pool:
    rte_mempool_free(pe->pool);
fail:
    free(pe);
    return NULL;
}
