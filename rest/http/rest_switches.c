/* rest_switches: GET /api/v1/switches and /api/v1/switches/{dpid} (and the
 * route to its sub-resources: flows, groups, meters, its flight record's
 * capture), from the
 * control thread's switch view (sw_view). The view's lock (the sources'
 * switches_lock/unlock, which the control thread takes for every event) is
 * held only to copy: the dpids, then one switch at a time; the JSON is built
 * after it is let go. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "sw_view.h"
#include "ofp_wire.h"
#include "dpid.h"
#include "rest_priv.h"

/* A port, with its counters from the last port-statistics poll (null
 * until one came; at_unix_ms says when it came). */
static json_t *port_json(const struct ofp_port *p, const struct ofp_port_stats *c, int64_t at_ms)
{
    char mac[18];
    mac_format(p->hw_addr, mac);
    json_t *j = json_pack("{s:I, s:s, s:s, s:s, s:b, s:I, s:I, s:I, s:I}", "port_no",
                          (json_int_t)p->port_no, "name", p->name, "hw_addr", mac, "link",
                          (p->state & OFPPS_LINK_DOWN) ? "down" : "up", "admin_down",
                          (p->config & OFPPC_PORT_DOWN) != 0, "config", (json_int_t)p->config,
                          "state", (json_int_t)p->state, "curr_speed_kbps",
                          (json_int_t)p->curr_speed, "max_speed_kbps", (json_int_t)p->max_speed);
    if (!j)
        return NULL;
    if (!c) {
        json_object_set_new(j, "counters", json_null());
        return j;
    }
    const struct { const char *name; uint64_t v; } f[] = {
        {"rx_packets", c->rx_packets}, {"tx_packets", c->tx_packets},
        {"rx_bytes", c->rx_bytes},     {"tx_bytes", c->tx_bytes},
        {"rx_dropped", c->rx_dropped}, {"tx_dropped", c->tx_dropped},
        {"rx_errors", c->rx_errors},   {"tx_errors", c->tx_errors},
    };
    json_t *o = json_pack("{s:I}", "at_unix_ms", (json_int_t)at_ms);
    /* OpenFlow 1.3 sets a counter the switch does not keep to all ones:
     * null, not a number (it would read as -1 or 2^64 - 1). */
    for (size_t i = 0; o && i < sizeof(f) / sizeof(f[0]); i++)
        json_object_set_new(o, f[i].name,
                            f[i].v == UINT64_MAX ? json_null() : json_integer((json_int_t)f[i].v));
    json_object_set_new(j, "counters", o ? o : json_null());
    return j;
}

static json_t *switch_json(const struct ctl_switch_copy *c, bool with_ports)
{
    const struct ctl_switch *s = &c->s;
    char dpid[24], conn[24];

    dpid_format(s->dpid, dpid);
    snprintf(conn, sizeof(conn), "%#" PRIx64, s->conn);
    json_t *j = json_pack("{s:s, s:I, s:b, s:s, s:s, s:I, s:I, s:I, s:I}", "dpid", dpid,
                          "dpid_int", (json_int_t)s->dpid, "connected", s->up, "connection",
                          conn, "version", "1.3", "n_tables",
                          (json_int_t)s->info.features.n_tables, "n_buffers",
                          (json_int_t)s->info.features.n_buffers, "capabilities",
                          (json_int_t)s->info.features.capabilities, "n_ports",
                          (json_int_t)c->n_ports);
    if (!j)
        return NULL;
    json_object_set_new(j, s->up ? "connected_since" : "disconnected_since",
                        json_integer(s->up ? s->up_wall : s->down_wall));
    json_object_set_new(j, "echo_rtt_ms",
                        s->echo_samples ? json_pack("{s:f, s:f, s:I}", "last",
                                                    s->echo_rtt_us / 1000.0, "average",
                                                    s->echo_ewma_us / 1000.0, "samples",
                                                    (json_int_t)s->echo_samples)
                                        : json_null());
    json_object_set_new(j, "description",
                        json_pack("{s:s, s:s, s:s, s:s, s:s}", "manufacturer",
                                  s->info.desc.mfr_desc, "hardware", s->info.desc.hw_desc,
                                  "software", s->info.desc.sw_desc, "serial",
                                  s->info.desc.serial_num, "datapath", s->info.desc.dp_desc));
    json_object_set_new(j, "stats",
                        json_pack("{s:I, s:I, s:I}", "flows", (json_int_t)s->stats_entries[0],
                                  "port_stats", (json_int_t)s->stats_entries[1], "tables",
                                  (json_int_t)s->stats_entries[2]));
    json_object_set_new(j, "counters",
                        json_pack("{s:I, s:I, s:I, s:I}", "port_status",
                                  (json_int_t)s->port_status, "flow_removed",
                                  (json_int_t)s->flow_removed, "errors", (json_int_t)s->errors,
                                  "barrier_replies", (json_int_t)s->barrier_replies));
    if (with_ports) {
        json_t *ports = json_array();
        for (uint32_t i = 0; i < s->ports.n; i++)
            json_array_append_new(ports, port_json(&s->ports.v[i],
                                                   ctl_switch_port_counters(s, s->ports.v[i].port_no),
                                                   s->counters.at_ms));
        json_object_set_new(j, "ports", ports);
    }
    return j;
}

/* One switch copied under the lock: 0, -ENOENT (gone meanwhile), -ENOMEM. */
static int copy_one(const struct rest_sources *src, uint64_t dpid, bool with_ports,
                    struct ctl_switch_copy *out)
{
    int rc = sw_view_copy(src->switches_lock(src->arg), dpid, with_ports, out);
    src->switches_unlock(src->arg);
    return rc;
}

void rest_get_switches(struct rest_req *q, struct rest_reply *r)
{
    const struct rest_sources *src = &q->rs->src;
    uint64_t *ids = NULL;
    int n = sw_view_dpids(src->switches_lock(src->arg), &ids);

    src->switches_unlock(src->arg);
    if (n < 0) {
        rest_error(r, 500, "out of memory listing the switches");
        return;
    }
    json_t *list = json_array();
    for (int i = 0; i < n; i++) {
        struct ctl_switch_copy c;
        if (copy_one(src, ids[i], false, &c) == 0)    /* one that left meanwhile: not shown */
            json_array_append_new(list, switch_json(&c, false));
    }
    free(ids);
    r->json = json_pack("{s:o}", "switches", list);
}

/* {dpid}/... : what the switch's sub-resources are (its stored flows, its
 * groups and meters); false when arg names the switch itself. */
/* GET {dpid}/capture: the switch's flight record as a pcapng download. */
static void switch_capture(struct rest_req *q, struct rest_reply *r, uint64_t dpid)
{
    const struct rest_sources *src = &q->rs->src;
    char note[256] = "";
    uint8_t *cap = NULL;
    size_t len = 0;

    if (strcmp(q->method, "GET") != 0) {
        rest_error(r, 405, "method %s not allowed on %s", q->method, q->path);
        return;
    }
    const char *fz = MHD_lookup_connection_value(q->conn, MHD_GET_ARGUMENT_KIND, "frozen");
    unsigned long frozen = 0;
    char *end = NULL;
    if (fz && (fz[0] < '1' || fz[0] > '9' || (frozen = strtoul(fz, &end, 10)) > UINT32_MAX ||
               *end)) {
        rest_error(r, 400, "frozen: '%s' is not a frozen capture's id (ofcdctl capture/list "
                   "shows them)", fz);
        return;
    }
    int rc = src->capture ? src->capture(src->arg, dpid, (uint32_t)frozen, &cap, &len, note)
                          : -ENOTSUP;
    if (rc < 0) {
        if (rc == -EBUSY || rc == -ETIMEDOUT)
            r->retry_after = 1;
        rest_error(r, rc == -ENOENT || rc == -ENOTSUP ? 404
                      : rc == -EBUSY || rc == -ETIMEDOUT ? 503 : 500,
                   "%s", note[0] ? note : "the flight recorder is off");
        return;
    }
    r->status = 200;
    r->text = (char *)cap;
    r->text_len = len;
    r->text_type = "application/x-pcapng";
    if (frozen)
        snprintf(r->attachment, sizeof(r->attachment), "ofcd-%016" PRIx64 "-%lu.pcapng", dpid,
                 frozen);
    else
        snprintf(r->attachment, sizeof(r->attachment), "ofcd-%016" PRIx64 ".pcapng", dpid);
}

/* GET {dpid}/captures: its frozen copies (ofcdctl capture/list's, this switch's). */
static void switch_captures(struct rest_req *q, struct rest_reply *r, uint64_t dpid)
{
    const struct rest_sources *src = &q->rs->src;

    if (strcmp(q->method, "GET") != 0) {
        rest_error(r, 405, "method %s not allowed on %s", q->method, q->path);
        return;
    }
    if (!src->captures) {
        rest_error(r, 404, "the flight recorder is off");
        return;
    }
    r->json = src->captures(src->arg, dpid);
    if (r->json)
        r->status = 200;
    else
        rest_error(r, 500, "out of memory");
}

static bool switch_sub(struct rest_req *q, struct rest_reply *r)
{
    uint64_t dpid;
    char id[64];
    const char *slash = strchr(q->arg, '/');

    if (!slash)
        return false;
    size_t n = (size_t)(slash - q->arg);
    if (n >= sizeof(id)) {
        rest_error(r, 404, "no such resource: %s", q->path);
        return true;
    }
    memcpy(id, q->arg, n);
    id[n] = '\0';
    if (rest_dpid_arg(id, &dpid, r) < 0)
        return true;
    if (strcmp(slash, "/capture") == 0)
        switch_capture(q, r, dpid);
    else if (strcmp(slash, "/captures") == 0)
        switch_captures(q, r, dpid);
    else if (strcmp(slash, "/flows") == 0 && strcmp(q->method, "GET") == 0)
        rest_switch_flows_get(q, r, dpid);
    else if (strcmp(slash, "/flows") == 0)
        rest_error(r, 405, "method %s not allowed on %s", q->method, q->path);
    else
        rest_switch_gm(q, r, dpid, slash + 1);
    return true;
}

/* POST and DELETE under /api/v1/switches/: only sub-resources take them. */
void rest_switch_write(struct rest_req *q, struct rest_reply *r)
{
    if (!switch_sub(q, r))
        rest_error(r, 405, "method %s not allowed on %s", q->method, q->path);
}

void rest_get_switch(struct rest_req *q, struct rest_reply *r)
{
    const struct rest_sources *src = &q->rs->src;
    uint64_t dpid;

    if (switch_sub(q, r))
        return;
    if (rest_dpid_arg(q->arg, &dpid, r) < 0)
        return;
    struct ctl_switch_copy c;
    int rc = copy_one(src, dpid, true, &c);
    if (rc == -ENOENT) {
        rest_error(r, 404, "switch %016" PRIx64 " is not known", dpid);
        return;
    }
    if (rc < 0) {
        rest_error(r, 500, "out of memory copying switch %016" PRIx64, dpid);
        return;
    }
    r->json = switch_json(&c, true);
    ctl_switch_copy_free(&c);
}
