/* topo_follow: see topo_follow.h. */
#include "topo_follow.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ofcd_fnv.h"

void topo_follow_init(struct topo_follow *f)
{
    memset(f, 0, sizeof(*f));
    pthread_mutex_init(&f->lock, NULL);
}

static void drop_all(struct topo_follow *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->keys[i]);
    free(f->keys);
    free(f->slot);
    f->keys = NULL;
    f->slot = NULL;
    f->n = f->cap = f->slots = 0;
}

void topo_follow_fini(struct topo_follow *f)
{
    drop_all(f);
    pthread_mutex_destroy(&f->lock);
}

static size_t home(const char *key, size_t slots)
{
    return (size_t)ofcd_fnv1a(OFCD_FNV_OFFSET, key, strlen(key)) & (slots - 1);
}

/* The slot of key, or the free one where it would go. */
static size_t *find(struct topo_follow *f, const char *key)
{
    size_t i = home(key, f->slots);

    while (f->slot[i] && strcmp(f->keys[f->slot[i] - 1], key) != 0)
        i = (i + 1) & (f->slots - 1);
    return &f->slot[i];
}

/* Room for one more key: the index at most half full, the array grown. */
static int grow(struct topo_follow *f)
{
    if (f->n == f->cap) {
        size_t nc = f->cap ? 2 * f->cap : 64;
        char **nk = realloc(f->keys, nc * sizeof(*nk));
        if (!nk)
            return -ENOMEM;
        f->keys = nk;
        f->cap = nc;
    }
    if (2 * (f->n + 1) <= f->slots)
        return 0;
    size_t ns = f->slots ? 2 * f->slots : 128;
    size_t *s = calloc(ns, sizeof(*s));
    if (!s)
        return -ENOMEM;
    free(f->slot);
    f->slot = s;
    f->slots = ns;
    for (size_t k = 0; k < f->n; k++)
        *find(f, f->keys[k]) = k + 1;
    return 0;
}

int topo_follow_add(struct topo_follow *f, const char *key)
{
    int rc = 0;

    pthread_mutex_lock(&f->lock);
    if (f->slots && *find(f, key))
        goto out;                   /* already held: read once, as it is then */
    char *k = strdup(key);
    if (!k || (rc = grow(f)) < 0) {
        free(k);
        rc = -ENOMEM;
        f->lost++;
        goto out;
    }
    f->keys[f->n++] = k;
    *find(f, k) = f->n;
out:
    pthread_mutex_unlock(&f->lock);
    return rc;
}

void topo_follow_take(struct topo_follow *f, char ***keys, size_t *n, size_t *lost)
{
    pthread_mutex_lock(&f->lock);
    *keys = f->keys;
    *n = f->n;
    *lost = f->lost;
    free(f->slot);
    f->keys = NULL;
    f->slot = NULL;
    f->n = f->cap = f->slots = 0;
    f->lost = 0;
    pthread_mutex_unlock(&f->lock);
}
