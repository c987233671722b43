/* of_switch: see of_switch.h. Port lists are short (tens); a linear search
 * is the honest choice. Allocation happens only on topology changes. */
#include "of_switch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int reserve(struct of_port_list *l, uint32_t n)
{
    if (n <= l->cap)
        return 0;
    uint32_t cap = l->cap ? l->cap : 8;
    while (cap < n)
        cap *= 2;
    struct ofp_port *v = realloc(l->v, (size_t)cap * sizeof(*v));
    if (!v)
        return -ENOMEM;
    l->v = v;
    l->cap = cap;
    return 0;
}

int of_ports_append(struct of_port_list *l, const struct ofp_port *p)
{
    if (reserve(l, l->n + 1) < 0)
        return -ENOMEM;
    l->v[l->n++] = *p;
    return 0;
}

int of_ports_set(struct of_port_list *l, const struct ofp_port *ports, uint32_t n)
{
    if (reserve(l, n) < 0)
        return -ENOMEM;
    if (n)
        memcpy(l->v, ports, (size_t)n * sizeof(*ports));
    l->n = n;
    return 0;
}

static int find(const struct of_port_list *l, uint32_t port_no)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (l->v[i].port_no == port_no)
            return (int)i;
    return -1;
}

const struct ofp_port *of_ports_find(const struct of_port_list *l, uint32_t port_no)
{
    int i = find(l, port_no);
    return i < 0 ? NULL : &l->v[i];
}

int of_ports_status(struct of_port_list *l, uint8_t reason, const struct ofp_port *p)
{
    int i = find(l, p->port_no);

    if (reason == OFPPR_DELETE) {
        if (i < 0)
            return -ENOENT;
        l->v[i] = l->v[--l->n];
        return 0;
    }
    if (i >= 0) {
        l->v[i] = *p;
        return 0;
    }
    if (of_ports_append(l, p) < 0)
        return -ENOMEM;
    return reason == OFPPR_MODIFY ? -ENOENT : 0;
}

void of_ports_free(struct of_port_list *l)
{
    free(l->v);
    memset(l, 0, sizeof(*l));
}
