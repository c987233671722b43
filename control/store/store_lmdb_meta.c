/*
 * store_lmdb_meta: the late sync of LMDB's meta page; see store_lmdb_meta.h.
 */
#include "store_lmdb_meta.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ofcd_clock.h"
#include "ofcd_log.h"

#define COMP "store"

struct lmdb_meta_sync {
    MDB_env *env;
    int (*fault)(void);
    unsigned delay_ms;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cv;          /* CLOCK_MONOTONIC */
    bool owed;                  /* a commit not yet synced */
    uint64_t last_us;           /* when the last commit was made (ofcd_clock_mono_us) */
    bool waiting;               /* the thread waits for a commit */
    bool stopping;
    uint64_t syncs;
    int failed;                 /* the first failed sync's error */
};

static int env_sync(struct lmdb_meta_sync *m)
{
    int rc = m->fault ? m->fault() : 0;

    if (rc < 0)
        return rc;
    rc = mdb_env_sync(m->env, 1);
    return rc > 0 ? -rc : rc ? -EIO : 0;
}

static void *meta_sync_main(void *arg)
{
    struct lmdb_meta_sync *m = arg;

    pthread_setname_np(pthread_self(), "ofcd-metasync");
    pthread_mutex_lock(&m->lock);
    for (;;) {
        while (!m->owed && !m->stopping) {
            m->waiting = true;
            pthread_cond_wait(&m->cv, &m->lock);
            m->waiting = false;
        }
        if (!m->owed)
            break;                      /* stopping, nothing owed */
        /* Only after a quiet spell: while commits follow each other, each
         * one's sync carries the meta page of the one before it down. */
        for (;;) {
            uint64_t now = ofcd_clock_mono_us(), due = m->last_us + m->delay_ms * 1000ull;
            if (m->stopping || now >= due)
                break;
            struct timespec dl = ofcd_clock_deadline(due - now);
            pthread_cond_timedwait(&m->cv, &m->lock, &dl);
        }
        m->owed = false;                /* before the sync: a later commit is owed again */
        pthread_mutex_unlock(&m->lock);
        int rc = env_sync(m);
        if (rc)
            LOG_ERR(COMP, "sync of the store's last commit failed (%s): the store refuses "
                    "changes from now on; restart ofcd once the disk is sound", strerror(-rc));
        pthread_mutex_lock(&m->lock);
        m->syncs++;
        if (rc && !m->failed)
            m->failed = rc;
    }
    pthread_mutex_unlock(&m->lock);
    return NULL;
}

struct lmdb_meta_sync *lmdb_meta_sync_start(MDB_env *env, unsigned delay_ms,
                                            int (*fault)(void))
{
    struct lmdb_meta_sync *m = calloc(1, sizeof(*m));
    int rc;

    if (!m) {
        LOG_ERR(COMP, "out of memory for the meta page's sync");
        return NULL;
    }
    m->env = env;
    m->fault = fault;
    m->delay_ms = delay_ms;
    if (pthread_mutex_init(&m->lock, NULL) != 0)
        goto no_lock;
    if (ofcd_clock_cond_init(&m->cv) != 0)
        goto no_cv;
    if ((rc = pthread_create(&m->thread, NULL, meta_sync_main, m)) != 0) {
        LOG_ERR(COMP, "cannot start the meta page's sync: %s", strerror(rc));
        pthread_cond_destroy(&m->cv);
        goto no_cv;
    }
    return m;
no_cv:
    pthread_mutex_destroy(&m->lock);
no_lock:
    free(m);
    return NULL;
}

void lmdb_meta_sync_committed(struct lmdb_meta_sync *m)
{
    uint64_t now = ofcd_clock_mono_us();

    pthread_mutex_lock(&m->lock);
    m->owed = true;
    m->last_us = now;
    if (m->waiting)
        pthread_cond_signal(&m->cv);
    pthread_mutex_unlock(&m->lock);
}

int lmdb_meta_sync_failed(struct lmdb_meta_sync *m)
{
    pthread_mutex_lock(&m->lock);
    int rc = m->failed;
    pthread_mutex_unlock(&m->lock);
    return rc;
}

uint64_t lmdb_meta_sync_count(struct lmdb_meta_sync *m)
{
    pthread_mutex_lock(&m->lock);
    uint64_t n = m->syncs;
    pthread_mutex_unlock(&m->lock);
    return n;
}

void lmdb_meta_sync_stop(struct lmdb_meta_sync *m)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->lock);
    m->stopping = true;
    pthread_cond_signal(&m->cv);
    pthread_mutex_unlock(&m->lock);
    pthread_join(m->thread, NULL);
    pthread_cond_destroy(&m->cv);
    pthread_mutex_destroy(&m->lock);
    free(m);
}
