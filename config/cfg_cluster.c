/*
 * cfg_cluster: the [cluster] keys checked together by cfg_finish() — the
 * endpoints one by one, the node's name (the host name when left empty),
 * the prefix's shape, TLS and credentials in pairs, and what a cluster
 * rules out elsewhere (a fixed openflow.role; the learning switch, which
 * cannot run in a cluster yet).
 */
#include "cfg_priv.h"
#include "ofcd_log.h"
#include "ofcd_pem.h"

#include <errno.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CLUSTER_ENDPOINTS_MAX CFG_CLUSTER_ENDPOINTS_MAX   /* etcd_client's ETCD_ENDPOINTS_MAX */
#define CLUSTER_URL_MAX 255u        /* etcd_client's ETCD_URL_MAX, NUL excluded */

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

/* list split into buf (len bytes), cut at each ',', blanks around each
 * item dropped, the first max items' starts in out (an empty item is "").
 * Returns how many items there are, which may be more than max. */
static size_t split_endpoints(const char *list, char *buf, size_t len, const char **out,
                              size_t max)
{
    size_t n = 0;

    snprintf(buf, len, "%s", list);
    for (char *p = buf;;) {
        char *end = strchr(p, ',');
        if (end)
            *end = '\0';
        while (*p == ' ')
            p++;
        for (char *e = p + strlen(p); e > p && e[-1] == ' ';)
            *--e = '\0';
        if (n < max)
            out[n] = p;
        n++;
        if (!end)
            return n;
        p = end + 1;
    }
}

static int check_endpoints(const char *list, char *err, size_t errlen)
{
    char buf[CFG_STR_MAX];
    const char *ep[CLUSTER_ENDPOINTS_MAX + 1];
    size_t n = split_endpoints(list, buf, sizeof(buf), ep, CLUSTER_ENDPOINTS_MAX + 1);

    for (size_t i = 0; i < n && i <= CLUSTER_ENDPOINTS_MAX; i++) {
        size_t len = strlen(ep[i]);
        if (!len)
            return fail(err, errlen, "cluster.etcd_endpoints = '%s': endpoint %zu is empty",
                        list, i + 1);
        if (i == CLUSTER_ENDPOINTS_MAX)
            return fail(err, errlen, "cluster.etcd_endpoints: more than %u endpoints",
                        CLUSTER_ENDPOINTS_MAX);
        if (len > CLUSTER_URL_MAX)
            return fail(err, errlen, "cluster.etcd_endpoints: endpoint %zu is %zu bytes, at "
                        "most %u", i + 1, len, CLUSTER_URL_MAX);
        if (strncmp(ep[i], "http://", 7) != 0 && strncmp(ep[i], "https://", 8) != 0)
            return fail(err, errlen, "cluster.etcd_endpoints: '%s' must start with http:// "
                        "or https://", ep[i]);
    }
    return 0;
}

/* A node's name is a key segment and a log word: nothing that needs
 * quoting or escaping in either. */
static bool node_id_ok(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '.' || *s == '_' || *s == '-'))
            return false;
    return true;
}

static int check_node_id(struct ofcd_config *cfg, char *err, size_t errlen)
{
    if (!cfg->cluster_node_id[0]) {
        char host[256] = "";
        if (gethostname(host, sizeof(host) - 1) < 0 || !node_id_ok(host) ||
            strlen(host) >= sizeof(cfg->cluster_node_id))
            return fail(err, errlen, "cluster.node_id is empty and the host name '%.64s' "
                        "cannot stand for it: set cluster.node_id (letters, digits, '.', '_', "
                        "'-'; at most %zu)", host, sizeof(cfg->cluster_node_id) - 1);
        memcpy(cfg->cluster_node_id, host, strlen(host) + 1);
    }
    if (!node_id_ok(cfg->cluster_node_id))
        return fail(err, errlen, "cluster.node_id = '%s': only letters, digits, '.', '_' and "
                    "'-'", cfg->cluster_node_id);
    return 0;
}

int cfg_check_cluster(struct ofcd_config *cfg, char *err, size_t errlen)
{
    const char *pfx = cfg->cluster_prefix;
    size_t plen = strlen(pfx);

    if (plen < 2 || pfx[0] != '/' || pfx[plen - 1] != '/' || strpbrk(pfx, " \t"))
        return fail(err, errlen, "cluster.prefix = '%s': must start and end with '/' (e.g. "
                    "/ofcd/v1/), without blanks", pfx);
    if (strcmp(cfg->cluster_etcd_api, "grpc") && strcmp(cfg->cluster_etcd_api, "json"))
        return fail(err, errlen, "cluster.etcd_api = '%s': grpc or json", cfg->cluster_etcd_api);
    if (!cfg->cluster_etcd_endpoints[0])
        return 0;
    int rc = check_endpoints(cfg->cluster_etcd_endpoints, err, errlen);
    if (rc < 0)
        return rc;
    rc = check_node_id(cfg, err, errlen);
    if (rc < 0)
        return rc;
    if (!cfg->cluster_etcd_cert[0] != !cfg->cluster_etcd_key[0])
        return fail(err, errlen, "cluster.etcd_cert and cluster.etcd_key go together: set "
                    "both or neither");
    if (!cfg->cluster_etcd_user[0] != !cfg->cluster_etcd_password_file[0])
        return fail(err, errlen, "cluster.etcd_user and cluster.etcd_password_file go "
                    "together: set both or neither");
    if (cfg->l2_learning)
        return fail(err, errlen, "apps.l2_learning = true with cluster.etcd_endpoints set: the "
                    "learning switch does not run in a cluster yet (its take-over at switch up "
                    "needs the master, which no node is then); turn one of them off");
    if (strcmp(cfg->of_role, "equal") != 0)
        return fail(err, errlen, "openflow.role = %s with cluster.etcd_endpoints set: in a "
                    "cluster the election picks each switch's master; leave openflow.role = "
                    "equal", cfg->of_role);
    /* A dead master's switches send no LLDP until another node masters
     * them, up to a lease's TTL later: a link timeout within that (and a
     * probe's interval, and two seconds for the election and the first
     * probes) reads every failover as their links down. Said, not
     * refused: a test may want short timeouts. */
    uint32_t need = cfg->cluster_lease_ttl_s + cfg->topo_lldp_interval_s + 2;
    if (cfg->topology && cfg->topo_link_timeout_s < need)
        LOG_WARN("cfg", "topology.link_timeout_s = %u is under cluster.lease_ttl_s + "
                 "topology.lldp_interval_s + 2 s = %u: when a node dies, its switches' links "
                 "may read as down until another node masters them (circuits moved away and "
                 "back); %u or more avoids it", cfg->topo_link_timeout_s, need, need);
    return 0;
}

/* The first line of cluster.etcd_password_file into buf, read as every
 * secret file is. */
static int read_password(const struct ofcd_config *cfg, char *buf, size_t len)
{
    const char *path = cfg->cluster_etcd_password_file;
    char *text;
    int rc = ofcd_secret_file_read("cluster", "cluster.etcd_password_file", path, &text);

    if (rc < 0)
        return rc;
    size_t n = strcspn(text, "\r\n");
    if (n == 0 || n >= len) {
        LOG_ERR("cluster", "cluster.etcd_password_file = %s: %s", path,
                n ? "its first line is too long" : "no password on its first line");
        rc = -EINVAL;
    } else {
        memcpy(buf, text, n);
        buf[n] = '\0';
    }
    memset(text, 0, strlen(text));
    free(text);
    return rc;
}

static const char *opt(const char *s)
{
    return s[0] ? s : NULL;
}

int cfg_cluster_etcd(const struct ofcd_config *cfg, struct cfg_cluster_etcd *out)
{
    size_t n = split_endpoints(cfg->cluster_etcd_endpoints, out->list, sizeof(out->list),
                               out->endpoints, CFG_CLUSTER_ENDPOINTS_MAX);

    out->n_endpoints = n < CFG_CLUSTER_ENDPOINTS_MAX ? n : CFG_CLUSTER_ENDPOINTS_MAX;
    out->ca = opt(cfg->cluster_etcd_ca);
    out->cert = opt(cfg->cluster_etcd_cert);
    out->key = opt(cfg->cluster_etcd_key);
    out->user = opt(cfg->cluster_etcd_user);
    out->json = !strcmp(cfg->cluster_etcd_api, "json");
    out->password[0] = '\0';
    return out->user ? read_password(cfg, out->password, sizeof(out->password)) : 0;
}
