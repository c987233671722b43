/* cl_fence: see cl_fence.h. */
#include "cl_fence.h"

uint64_t cl_fence_margin_us(unsigned ttl_s)
{
    uint64_t ttl_us = (uint64_t)ttl_s * 1000000u, m = ttl_us / 10;

    if (m < 200000u)
        m = 200000u;
    return m > ttl_us / 2 ? ttl_us / 2 : m;
}

void cl_fence_init(struct cl_fence *f, uint64_t margin_us)
{
    *f = (struct cl_fence){.margin_us = margin_us};
}

void cl_fence_answer(struct cl_fence *f, uint64_t sent_us, int64_t ttl_left_s)
{
    if (f->last_sent_us && sent_us < f->last_sent_us)
        return;                     /* an older keepalive's late answer */
    f->last_sent_us = sent_us;
    if (ttl_left_s <= 0) {
        f->deadline_us = 0;
        return;
    }
    uint64_t until = sent_us + (uint64_t)ttl_left_s * 1000000u;
    f->deadline_us = until > f->margin_us ? until - f->margin_us : 0;
}

void cl_fence_lost(struct cl_fence *f)
{
    f->deadline_us = 0;
}

bool cl_fence_may_act(const struct cl_fence *f, uint64_t now_us)
{
    return now_us < f->deadline_us;
}

uint64_t cl_fence_left_us(const struct cl_fence *f, uint64_t now_us)
{
    return now_us < f->deadline_us ? f->deadline_us - now_us : 0;
}
