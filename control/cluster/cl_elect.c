/* cl_elect: see cl_elect.h. */
#include "cl_elect.h"

#include <errno.h>
#include <string.h>

static int find(const struct cl_cands *s, const char *node)
{
    for (unsigned i = 0; i < s->n; i++)
        if (strcmp(s->c[i].node, node) == 0)
            return (int)i;
    return -1;
}

int cl_cands_put(struct cl_cands *s, const char *node, int64_t create_rev)
{
    size_t len = node ? strnlen(node, CL_NODE_NAME_MAX) : 0;

    if (!len || len >= CL_NODE_NAME_MAX || create_rev <= 0)
        return -EINVAL;
    int i = find(s, node);
    if (i < 0) {
        if (s->n >= CL_NODES_MAX)
            return -ENOSPC;
        i = (int)s->n++;
        memcpy(s->c[i].node, node, len + 1);
    }
    s->c[i].create_rev = create_rev;
    return 0;
}

void cl_cands_del(struct cl_cands *s, const char *node)
{
    int i = find(s, node);

    if (i >= 0)
        s->c[i] = s->c[--s->n];
}

const struct cl_cand *cl_cands_winner(const struct cl_cands *s)
{
    const struct cl_cand *w = NULL;

    for (unsigned i = 0; i < s->n; i++)
        if (!w || s->c[i].create_rev < w->create_rev)
            w = &s->c[i];
    return w;
}

static bool we_win(const struct cl_cands *s, const struct cl_self *self,
                   const struct cl_cand **w)
{
    *w = cl_cands_winner(s);
    return *w && strcmp((*w)->node, self->node) == 0;
}

struct cl_action cl_decide(const struct cl_cands *s, const struct cl_self *self)
{
    const struct cl_cand *w;
    bool standing = find(s, self->node) >= 0;

    if (!self->channel_up)
        return (struct cl_action){standing ? CL_DO_RESIGN : CL_DO_NOTHING, 0};
    if (self->leaving)
        return (struct cl_action){self->role == CL_ROLE_MASTER && !self->asking
                                      ? CL_DO_ASK_ROLE : CL_DO_NOTHING, 0};
    if (!standing)
        return (struct cl_action){CL_DO_STAND, 0};
    if (self->asking)
        return (struct cl_action){CL_DO_NOTHING, 0};
    bool win = we_win(s, self, &w);
    if (win && self->may_act) {
        if (self->role == CL_ROLE_MASTER && self->generation == w->create_rev)
            return (struct cl_action){CL_DO_NOTHING, 0};
        return (struct cl_action){CL_DO_ASK_MASTER, w->create_rev};
    }
    if (!win && self->may_act && self->role == CL_ROLE_MASTER)
        return (struct cl_action){CL_DO_ASK_ROLE, w->create_rev};
    /* OpenFlow 1.3 checks a SLAVE request's generation as a MASTER's: the
     * winner's revision is the newest this node knows. */
    if (self->role == CL_ROLE_SLAVE && self->generation == w->create_rev)
        return (struct cl_action){CL_DO_NOTHING, 0};
    return (struct cl_action){CL_DO_ASK_SLAVE, w->create_rev};
}

bool cl_may_write(const struct cl_cands *s, const struct cl_self *self)
{
    const struct cl_cand *w;

    return self->channel_up && self->may_act && self->role == CL_ROLE_MASTER &&
           we_win(s, self, &w) && self->generation == w->create_rev;
}
