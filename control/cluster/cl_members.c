/* cl_members: see cl_members.h. */
#include "cl_members.h"

#include <errno.h>
#include <string.h>

static int index_of(const struct cl_members *s, const char *node)
{
    for (unsigned i = 0; i < s->n; i++)
        if (strcmp(s->m[i].node, node) == 0)
            return (int)i;
    return -1;
}

int cl_members_put(struct cl_members *s, const char *node, const void *card, size_t len,
                   int64_t lease, int64_t create_rev)
{
    size_t nl = strlen(node);

    if (!nl || nl >= CL_NODE_NAME_MAX || len >= CL_CARD_MAX)
        return -EINVAL;
    int i = index_of(s, node);
    if (i < 0) {
        if (s->n >= CL_NODES_MAX)
            return -ENOSPC;
        i = (int)s->n++;
    }
    struct cl_member *m = &s->m[i];
    /* A new node, or one back with another lease: its TTL not known yet. */
    if (strcmp(m->node, node) != 0 || m->lease != lease)
        m->ttl_s = -1;
    memcpy(m->node, node, nl + 1);
    memcpy(m->card, card, len);
    m->card[len] = '\0';
    m->lease = lease;
    m->create_rev = create_rev;
    return 0;
}

void cl_members_del(struct cl_members *s, const char *node)
{
    int i = index_of(s, node);

    if (i >= 0)
        s->m[i] = s->m[--s->n];
}

const struct cl_member *cl_members_find(const struct cl_members *s, const char *node)
{
    int i = index_of(s, node);
    return i < 0 ? NULL : &s->m[i];
}

const struct cl_member *cl_members_eldest(const struct cl_members *s)
{
    const struct cl_member *e = NULL;

    for (unsigned i = 0; i < s->n; i++) {
        const struct cl_member *m = &s->m[i];
        if (!e || m->create_rev < e->create_rev ||
            (m->create_rev == e->create_rev && strcmp(m->node, e->node) < 0))
            e = m;
    }
    return e;
}

void cl_members_ttl(struct cl_members *s, const char *node, int64_t lease, int64_t ttl_s,
                    uint64_t at_us)
{
    int i = index_of(s, node);

    if (i >= 0 && s->m[i].lease == lease) {
        s->m[i].ttl_s = ttl_s;
        s->m[i].ttl_at_us = at_us;
    }
}

int64_t cl_member_ttl_left(const struct cl_member *m, uint64_t now_us)
{
    if (m->ttl_s < 0)
        return -1;
    uint64_t gone_s = now_us > m->ttl_at_us ? (now_us - m->ttl_at_us) / 1000000u : 0;
    return (uint64_t)m->ttl_s > gone_s ? m->ttl_s - (int64_t)gone_s : 0;
}
