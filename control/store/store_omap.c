/*
 * store_omap: a skip list; see store_omap.h.
 *
 * Each node carries 1..STORE_OMAP_LEVELS forward links; a node has level
 * k+1 with probability 1/4 given level k, so a search drops through about
 * log4(n) levels, walking about 4 links on each. Level 0 links every node
 * in order: that is the walk.
 */
#include "store_omap.h"

#include <errno.h>
#include <stdlib.h>

struct store_omap_node {
    void *item;
    unsigned level;
    struct store_omap_node *next[];
};

static struct store_omap_node *node_new(void *item, unsigned level)
{
    struct store_omap_node *n = calloc(1, sizeof(*n) + level * sizeof(n->next[0]));

    if (n) {
        n->item = item;
        n->level = level;
    }
    return n;
}

static unsigned random_level(struct store_omap *m)
{
    unsigned level = 1;

    /* xorshift64: any fixed seed will do, the levels only balance the list. */
    m->rng ^= m->rng << 13;
    m->rng ^= m->rng >> 7;
    m->rng ^= m->rng << 17;
    for (uint64_t r = m->rng; (r & 3) == 0 && level < STORE_OMAP_LEVELS; r >>= 2)
        level++;
    return level;
}

int store_omap_init(struct store_omap *m, store_omap_cmp_fn cmp)
{
    m->cmp = cmp;
    m->level = 1;
    m->n = 0;
    m->rng = 0x9e3779b97f4a7c15ull;
    m->head = node_new(NULL, STORE_OMAP_LEVELS);
    return m->head ? 0 : -ENOMEM;
}

void store_omap_destroy(struct store_omap *m, void (*free_item)(void *item))
{
    struct store_omap_node *n = m->head ? m->head->next[0] : NULL;

    while (n) {
        struct store_omap_node *next = n->next[0];

        if (free_item)
            free_item(n->item);
        free(n);
        n = next;
    }
    free(m->head);
    m->head = NULL;
    m->n = 0;
}

/* The last node before probe on each level (update[lvl]); returns the
 * first node at or after probe. */
static struct store_omap_node *find_before(const struct store_omap *m, const void *probe,
                                           struct store_omap_node **update)
{
    struct store_omap_node *x = m->head;

    for (unsigned lvl = m->level; lvl-- > 0;) {
        while (x->next[lvl] && m->cmp(x->next[lvl]->item, probe) < 0)
            x = x->next[lvl];
        if (update)
            update[lvl] = x;
    }
    return x->next[0];
}

void *store_omap_find(const struct store_omap *m, const void *probe)
{
    struct store_omap_node *x = find_before(m, probe, NULL);

    return x && m->cmp(x->item, probe) == 0 ? x->item : NULL;
}

int store_omap_put(struct store_omap *m, void *item, void **old)
{
    struct store_omap_node *x = find_before(m, item, NULL);

    *old = NULL;
    if (x && m->cmp(x->item, item) == 0) {
        *old = x->item;
        x->item = item;
        return 0;
    }
    if (!(x = node_new(item, random_level(m))))
        return -ENOMEM;
    store_omap_relink(m, x);
    return 0;
}

struct store_omap_node *store_omap_unlink(struct store_omap *m, const void *probe)
{
    struct store_omap_node *update[STORE_OMAP_LEVELS];
    struct store_omap_node *x = find_before(m, probe, update);

    if (!x || m->cmp(x->item, probe) != 0)
        return NULL;
    for (unsigned lvl = 0; lvl < x->level; lvl++)
        update[lvl]->next[lvl] = x->next[lvl];
    while (m->level > 1 && !m->head->next[m->level - 1])
        m->level--;
    m->n--;
    return x;
}

void store_omap_relink(struct store_omap *m, struct store_omap_node *node)
{
    struct store_omap_node *update[STORE_OMAP_LEVELS];

    find_before(m, node->item, update);
    for (; m->level < node->level; m->level++)
        update[m->level] = m->head;
    for (unsigned lvl = 0; lvl < node->level; lvl++) {
        node->next[lvl] = update[lvl]->next[lvl];
        update[lvl]->next[lvl] = node;
    }
    m->n++;
}

void store_omap_node_free(struct store_omap_node *node)
{
    free(node);
}

const struct store_omap_node *store_omap_seek(const struct store_omap *m, const void *probe)
{
    return probe ? find_before(m, probe, NULL) : m->head->next[0];
}

const struct store_omap_node *store_omap_next(const struct store_omap_node *node)
{
    return node->next[0];
}

void *store_omap_item(const struct store_omap_node *node)
{
    return node->item;
}
