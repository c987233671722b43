/* rest_kdf: see rest_kdf.h. */
#include "rest_kdf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void *kdf_main(void *arg)
{
    struct rest_kdf *k = arg;

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
        pthread_mutex_unlock(&k->lock);
        j->run(j);
        pthread_mutex_lock(&k->lock);
    }
    pthread_mutex_unlock(&k->lock);
    return NULL;
}

int rest_kdf_start(struct rest_kdf *k, unsigned threads)
{
    memset(k, 0, sizeof(*k));
    k->threads = calloc(threads, sizeof(*k->threads));
    if (!k->threads)
        return -ENOMEM;
    pthread_mutex_init(&k->lock, NULL);
    pthread_cond_init(&k->cv, NULL);
    for (; k->n < threads; k->n++) {
        int rc = pthread_create(&k->threads[k->n], NULL, kdf_main, k);
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
    for (unsigned i = 0; i < k->n; i++)
        pthread_join(k->threads[i], NULL);
    pthread_mutex_destroy(&k->lock);
    pthread_cond_destroy(&k->cv);
    free(k->threads);
    k->threads = NULL;
}
