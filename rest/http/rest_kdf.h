/*
 * rest_kdf: the threads that check passwords. A check is scrypt, ~70 ms
 * of a CPU and 32 MiB; run on an MHD thread it would stall every
 * connection that thread serves (an admin's POST among them) for as long.
 * So a login suspends its connection (rest_defer_ctx), hands the check
 * here and is answered when it is done. The pool has as many threads as
 * checks may run at once (rest_login_guard.h hands out that many slots),
 * so a job never waits for a thread; the queue is only the hand-over.
 *
 * What makes a check quick when the machine is loaded:
 *  - Memory kept. Each thread keeps its scrypt memory from one check to the
 *    next (rest_scrypt.h says why: 150 ms a check becomes 65), mapped and
 *    faulted in when the thread starts (warm_bytes: what the users'
 *    parameters need, 32 MiB) or at its first check, for the process's
 *    life.
 *  - Priority. A check runs at nice REST_KDF_NICE (the thread goes back to
 *    0 after it), so the REST threads serving a flood and whatever else
 *    loads the machine do not stretch the one check an operator waits
 *    for: under the hostile_rest.sh fairness attack an operator's login
 *    took p99 270-320 ms at nice 0, 190-205 at -5 and 130-215 at -10
 *    (docs/performance-log.md, "Password checks"). At most one check fewer
 *    than the machine has cores (and one on two cores) is raised at a
 *    time, so checks never outrank the lcores on every core. Raising needs
 *    CAP_SYS_NICE; without it checks run at 0, said once in the log.
 */
#ifndef OFCD_REST_KDF_H
#define OFCD_REST_KDF_H

#include <pthread.h>
#include <stdbool.h>

#include "rest_scrypt.h"

#define REST_KDF_NICE (-10)

struct rest_kdf_job {
    /* On a pool thread, with that thread's scrypt memory; may free j. */
    void (*run)(struct rest_kdf_job *j, struct rest_scrypt_mem *mem);
    struct rest_kdf_job *next;
};

struct rest_kdf_thread {
    struct rest_kdf *kdf;
    pthread_t tid;
    struct rest_scrypt_mem mem;
};

struct rest_kdf {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    struct rest_kdf_job *head, *tail;
    bool stopping;
    size_t warm_bytes;
    unsigned raise_max;                 /* checks at REST_KDF_NICE at once */
    unsigned raised;
    bool raise_failed;                  /* no CAP_SYS_NICE: said once */
    unsigned n;
    struct rest_kdf_thread *threads;
};

/* threads >= 1; warm_bytes: each thread's memory mapped now (0: at its
 * first check). 0 or a negative errno (nothing left to stop). */
int rest_kdf_start(struct rest_kdf *k, unsigned threads, size_t warm_bytes);
void rest_kdf_submit(struct rest_kdf *k, struct rest_kdf_job *j);
/* Run what is queued, then end the threads. */
void rest_kdf_stop(struct rest_kdf *k);

#endif
