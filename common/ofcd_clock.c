/* ofcd_clock: see ofcd_clock.h. */
#include "ofcd_clock.h"

#include <errno.h>
#include <stdatomic.h>

#define OFCD_CLOCK_WARP_MAX_US (86400ull * 1000000ull)

/* The process's warp: see the header for why it is global. */
static _Atomic uint64_t clock_warp_us;

static uint64_t read_ns(clockid_t clk)
{
    struct timespec ts;

    clock_gettime(clk, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t ofcd_clock_warp_offset_us(void)
{
    return atomic_load_explicit(&clock_warp_us, memory_order_relaxed);
}

int ofcd_clock_warp_us(uint64_t delta_us)
{
    uint64_t cur = ofcd_clock_warp_offset_us();

    do {
        if (delta_us > OFCD_CLOCK_WARP_MAX_US || cur + delta_us > OFCD_CLOCK_WARP_MAX_US)
            return -EINVAL;
    } while (!atomic_compare_exchange_weak(&clock_warp_us, &cur, cur + delta_us));
    return 0;
}

uint64_t ofcd_clock_mono_ns(void)
{
    return read_ns(CLOCK_MONOTONIC) + ofcd_clock_warp_offset_us() * 1000ull;
}

uint64_t ofcd_clock_mono_us(void)
{
    return ofcd_clock_mono_ns() / 1000ull;
}

uint64_t ofcd_clock_mono_ms(void)
{
    return ofcd_clock_mono_ns() / 1000000ull;
}

uint64_t ofcd_clock_wall_ns(void)
{
    return read_ns(CLOCK_REALTIME) + ofcd_clock_warp_offset_us() * 1000ull;
}

int64_t ofcd_clock_wall_s(void)
{
    return (int64_t)(ofcd_clock_wall_ns() / 1000000000ull);
}

struct timespec ofcd_clock_ts_plus_us(struct timespec t, uint64_t us)
{
    t.tv_sec += (time_t)(us / 1000000ull);
    t.tv_nsec += (long)(us % 1000000ull) * 1000;
    if (t.tv_nsec >= 1000000000) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000;
    }
    return t;
}

int ofcd_clock_cond_init(pthread_cond_t *cv)
{
    pthread_condattr_t ca;
    int rc = pthread_condattr_init(&ca);

    if (rc)
        return -rc;
    rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (!rc)
        rc = pthread_cond_init(cv, &ca);
    pthread_condattr_destroy(&ca);
    return -rc;
}

struct timespec ofcd_clock_deadline(uint64_t after_us)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ofcd_clock_ts_plus_us(ts, after_us);
}
