/* rx_signal: see rx_signal.h. */
#include "rx_signal.h"

#include <errno.h>
#include <poll.h>
#include <time.h>

static void rt_set(sigset_t *set)
{
    for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
        sigaddset(set, s);
}

void rx_signal_block_set(sigset_t *set)
{
    rt_set(set);
}

static void *rx_signal_main(void *arg)
{
    struct rx_signal *rs = arg;
    sigset_t during;

    /* While waiting: what this thread blocks, minus the real-time signals. */
    pthread_sigmask(SIG_BLOCK, NULL, &during);
    for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
        sigdelset(&during, s);
    while (!atomic_load(&rs->stop)) {
        struct timespec t = {.tv_sec = 0, .tv_nsec = 100 * 1000000L};
        if (ppoll(NULL, 0, &t, &during) < 0 && errno == EINTR) {   /* a handler ran */
            unsigned n = atomic_load_explicit(&rs->n_bells, memory_order_acquire);
            for (unsigned i = 0; i < n; i++)
                ofcd_doorbell_ring(rs->bells[i]);
        }
    }
    return NULL;
}

int rx_signal_start(struct rx_signal *rs, const cpu_set_t *cpus)
{
    pthread_attr_t attr;
    int rc = pthread_attr_init(&attr);

    if (rc)
        return -rc;
    atomic_init(&rs->stop, false);
    atomic_init(&rs->n_bells, 0);
    rc = pthread_attr_setaffinity_np(&attr, sizeof(*cpus), cpus);
    if (rc == 0)
        rc = pthread_create(&rs->thread, &attr, rx_signal_main, rs);
    pthread_attr_destroy(&attr);
    if (rc)
        return -rc;
    pthread_setname_np(rs->thread, "ofcd-rxsig");
    rs->started = true;
    return 0;
}

int rx_signal_add_bell(struct rx_signal *rs, struct ofcd_doorbell *bell)
{
    unsigned n = atomic_load_explicit(&rs->n_bells, memory_order_relaxed);

    if (n >= RX_SIGNAL_MAX_BELLS)
        return -ENOSPC;
    rs->bells[n] = bell;
    atomic_store_explicit(&rs->n_bells, n + 1, memory_order_release);
    return 0;
}

void rx_signal_stop(struct rx_signal *rs)
{
    if (!rs->started)
        return;
    atomic_store(&rs->stop, true);
    pthread_join(rs->thread, NULL);
    rs->started = false;
}
