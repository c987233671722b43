/* rest_kdf: see rest_kdf.h. */
#include "rest_kdf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ofcd_log.h"

static int set_nice(int nice)
{
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice) == 0 ? 0 : -errno;
}

/* A check about to run: at REST_KDF_NICE if fewer than raise_max run so
 * now (under k->lock). true when raised. */
static bool raise_for_check(struct rest_kdf *k)
{
    if (k->raised >= k->raise_max || k->raise_failed)
        return false;
    int rc = set_nice(REST_KDF_NICE);
    if (rc < 0) {
        k->raise_failed = true;
        LOG_WARN("rest", "password checks run at the REST threads' priority, not nice %d "
                 "(%s): give ofcd CAP_SYS_NICE, or an operator's login waits longer while "
                 "others load the machine", REST_KDF_NICE, strerror(-rc));
        return false;
    }
    k->raised++;
    return true;
}

static void *kdf_main(void *arg)
{
    struct rest_kdf_thread *t = arg;
    struct rest_kdf *k = t->kdf;

    /* Mapped and faulted in now, not at an operator's first login. */
    if (k->warm_bytes && rest_scrypt_warm(&t->mem, k->warm_bytes) < 0)
        LOG_WARN("rest", "cannot keep %zu MiB for password checks: each check maps its own",
                 k->warm_bytes >> 20);
    pthread_mutex_lock(&k->lock);
    for (;;) {
        while (!k->head && !k->stopping)
            pthread_cond_wait(&k->cv, &k->lock);
        struct rest_kdf_job *j = k->head;
        if (!j)
            break;                      /* stopping, nothing left */
        k->head = j->next;
        if (!k->head)
            k->tail = NULL;
        bool raised = raise_for_check(k);
        pthread_mutex_unlock(&k->lock);
        j->run(j, &t->mem);
        pthread_mutex_lock(&k->lock);
        if (raised) {
            (void)set_nice(0);          /* back: always allowed */
            k->raised--;
        }
    }
    pthread_mutex_unlock(&k->lock);
    return NULL;
}

int rest_kdf_start(struct rest_kdf *k, unsigned threads, size_t warm_bytes)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);

    memset(k, 0, sizeof(*k));
    k->threads = calloc(threads, sizeof(*k->threads));
    if (!k->threads)
        return -ENOMEM;
    k->warm_bytes = warm_bytes;
    k->raise_max = cpus > 2 ? (unsigned)cpus - 1 : 1;
    pthread_mutex_init(&k->lock, NULL);
    pthread_cond_init(&k->cv, NULL);
    for (; k->n < threads; k->n++) {
        k->threads[k->n].kdf = k;
        int rc = pthread_create(&k->threads[k->n].tid, NULL, kdf_main, &k->threads[k->n]);
        if (rc != 0) {
            rest_kdf_stop(k);
            return -rc;
        }
    }
    return 0;
}

void rest_kdf_submit(struct rest_kdf *k, struct rest_kdf_job *j)
{
    j->next = NULL;
    pthread_mutex_lock(&k->lock);
    if (k->tail)
        k->tail->next = j;
    else
        k->head = j;
    k->tail = j;
    pthread_cond_signal(&k->cv);
    pthread_mutex_unlock(&k->lock);
}

void rest_kdf_stop(struct rest_kdf *k)
{
    if (!k->threads)
        return;
    pthread_mutex_lock(&k->lock);
    k->stopping = true;
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->lock);
    for (unsigned i = 0; i < k->n; i++) {
        pthread_join(k->threads[i].tid, NULL);
        rest_scrypt_mem_free(&k->threads[i].mem);
    }
    pthread_mutex_destroy(&k->lock);
    pthread_cond_destroy(&k->cv);
    free(k->threads);
    k->threads = NULL;
}
