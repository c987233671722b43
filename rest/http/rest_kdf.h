/*
 * rest_kdf: the threads that check passwords. A check is scrypt, ~0.1 s of
 * a CPU and ~32 MiB; run on an MHD thread it would stall every connection
 * that thread serves (an admin's POST among them) for as long. So a login
 * suspends its connection (rest_defer_ctx), hands the check here and is
 * answered when it is done. The pool has as many threads as checks may run
 * at once (rest_login_guard.h hands out that many slots), so a job never
 * waits for a thread; the queue is only the hand-over.
 */
#ifndef OFCD_REST_KDF_H
#define OFCD_REST_KDF_H

#include <pthread.h>
#include <stdbool.h>

struct rest_kdf_job {
    void (*run)(struct rest_kdf_job *j);    /* on a pool thread; may free j */
    struct rest_kdf_job *next;
};

struct rest_kdf {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    struct rest_kdf_job *head, *tail;
    bool stopping;
    unsigned n;
    pthread_t *threads;
};

/* threads >= 1. 0 or a negative errno (nothing left to stop). */
int rest_kdf_start(struct rest_kdf *k, unsigned threads);
void rest_kdf_submit(struct rest_kdf *k, struct rest_kdf_job *j);
/* Run what is queued, then end the threads. */
void rest_kdf_stop(struct rest_kdf *k);

#endif
