/*
 * cl_fence: until when this node may act as a master — pure, time passed in.
 *
 * etcd keeps the node's lease alive until at least TTL after it received
 * the last keepalive, which is after we sent it; other nodes can win a
 * switch only once the lease has expired. So a keepalive sent at t and
 * answered with ttl seconds left proves the lease until t + ttl on our own
 * monotonic clock; acting stops a margin earlier (clock rates differ, a
 * ROLE_REQUEST SLAVE takes a moment to go out), so this node has stepped
 * down before any other can step up. Answers are taken newest-sent first:
 * a late answer to an older keepalive never moves the deadline.
 */
#ifndef OFCD_CL_FENCE_H
#define OFCD_CL_FENCE_H

#include <stdbool.h>
#include <stdint.h>

struct cl_fence {
    uint64_t margin_us;
    uint64_t last_sent_us;          /* the newest keepalive whose answer was taken */
    uint64_t deadline_us;           /* 0: no lease proved (yet, or any more) */
};

/* The margin for a lease of ttl_s seconds: a tenth of it, at least 200 ms
 * and never more than half. */
uint64_t cl_fence_margin_us(unsigned ttl_s);

void cl_fence_init(struct cl_fence *f, uint64_t margin_us);

/* A grant or keepalive sent at sent_us was answered: ttl_left_s seconds
 * left (<= 0: the lease is gone). */
void cl_fence_answer(struct cl_fence *f, uint64_t sent_us, int64_t ttl_left_s);

/* The lease is known gone (revoked, -ENOENT on keepalive): stop now. */
void cl_fence_lost(struct cl_fence *f);

bool cl_fence_may_act(const struct cl_fence *f, uint64_t now_us);
/* µs this node may still act (0: not at all). */
uint64_t cl_fence_left_us(const struct cl_fence *f, uint64_t now_us);

#endif
