/*
 * of_l2learn: the optional L2 learning-switch app (apps.l2_learning), run by
 * the worker for every established switch. It takes the switch over (deletes
 * its flows, installs a table-miss entry to the controller), learns source
 * MACs from PACKET_IN, answers a known destination with a FLOW_MOD (plus a
 * PACKET_OUT when the switch did not buffer the packet) and floods unknown or
 * broadcast destinations with a PACKET_OUT.
 *
 * The worker runs it through its app hooks (l2_app.c, of_app.h); this file
 * is the pure logic over decoded messages. It is the packet_in workload of
 * the cbench-style bench and the demo of two hosts pinging through an OVS
 * bridge controlled by ofcd. Per-switch MAC tables are bounded
 * (apps.l2_table_size) with least-recently-seen eviction.
 */
#ifndef OFCD_OF_L2LEARN_H
#define OFCD_OF_L2LEARN_H

#include <stdint.h>

#include "of_app.h"
#include "ofp_msg.h"

/* The cookie of every flow entry the app installs ("L2" in the top bytes),
 * and their priority (above the table-miss entry, below anything an
 * operator installs at the default 0x8000). */
#define L2_COOKIE 0x4c32000000000000ull
#define L2_FLOW_PRIORITY 10

struct l2_table;

struct l2_cfg {
    uint32_t table_size;
    uint16_t idle_timeout_s;
    uint16_t priority;
};

/* What the app wants sent: up to two messages per event. */
struct l2_out {
    struct ofp_msg msg[2];
    struct ofp_action act[2];
    unsigned n;
};

struct l2_table *l2_table_create(uint32_t size);
void l2_table_destroy(struct l2_table *t);

/* Messages that take a newly established switch over (delete all, table-miss). */
void l2_on_established(const struct l2_cfg *cfg, struct l2_out *out);

/* React to a PACKET_IN (decoded). Returns 0, or -EINVAL for a frame too short
 * to learn from (nothing to send). */
int l2_on_packet_in(struct l2_table *t, const struct l2_cfg *cfg, const struct ofp_packet_in *pi,
                    uint64_t now_us, struct l2_out *out);

/* Learnt entries now (for logs and tests). */
uint32_t l2_table_count(const struct l2_table *t);

/* The app's hook table (l2_app.c) over cfg, which must outlive the workers.
 * Each switch gets its own table at switch up; it is freed at switch down
 * (a reconnected switch is taken over afresh: its flows deleted, its hosts
 * learnt again). */
void l2_app_init(struct of_app *app, const struct l2_cfg *cfg);

#endif
