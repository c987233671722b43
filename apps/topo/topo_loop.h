/*
 * topo_loop: what a loop sets off — of_lldp's LLDP_LOOP_ACTIONS
 * (topology.lldp_loop_actions) — on the control thread.
 *
 * A loop is a switch hearing its own LLDP (topo_links makes it a record
 * marked loop). When LLDP first shows one (topo_change LOOP) and when it
 * stops (DOWN: not heard for topology.link_timeout_s, or a port or the
 * switch went down, or a REST thread deleted it), topo_loop_note queues
 * it, under the switch view's lock where topo_view tells it (any thread);
 * topo_loop_take moves the queue to the control thread's own, under that
 * lock; topo_loop_apply acts on that once the lock is let go (it reads the
 * switch's metadata and queues store writes): a pair the switch's
 * metadata "ignored_loops" lists is let be;
 * "log" warns (at most 5 lines a second); "disable" disables the lower
 * port (topo_admin, kept over a restart), marked TOPO_ADMIN_LOOP_OFF so
 * that the loop's end enables it again — never a port an operator
 * disabled. The lower port's "looped" metadata is shown by the reads
 * (topo_rest_read.c) while the loop lasts.
 */
#ifndef OFCD_TOPO_LOOP_H
#define OFCD_TOPO_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofcd_ratelimit.h"
#include "topo_view.h"

struct store;
struct topo_admin;
struct topo_rest;

#define TOPO_LOOP_PENDING 256           /* loop changes between two applies */

struct topo_loop_ev {
    uint64_t dpid;
    uint32_t a, b;                      /* a <= b */
    bool detected;                      /* false: stopped */
};

struct topo_loop {
    unsigned actions;                   /* CFG_LOOP_LOG | CFG_LOOP_DISABLE */
    /* under the switch view's lock */
    struct topo_loop_ev pending[TOPO_LOOP_PENDING];
    size_t n;
    uint64_t lost;                      /* changes that found the queue full */
    /* the control thread's */
    struct topo_loop_ev ready[TOPO_LOOP_PENDING];
    size_t n_ready;
    uint64_t lost_ready;
    struct ofcd_ratelimit rl_log, rl_keep_now, rl_keep_later;
};

void topo_loop_init(struct topo_loop *lp, unsigned actions);
/* topo_view's change l (any: those not of a loop are let be). Under the
 * switch view's lock. */
void topo_loop_note(struct topo_loop *lp, const struct topo_link_rec *l, enum topo_change c);
/* The control thread, under the switch view's lock: what was noted is
 * its to apply. */
void topo_loop_take(struct topo_loop *lp);
/* The control thread, without the lock: act on what it took (s may be
 * NULL: nothing kept). */
void topo_loop_apply(struct topo_loop *lp, struct topo_rest *r, struct topo_admin *admin,
                     struct store *s, uint64_t now_us);

#endif
