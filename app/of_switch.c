/* of_switch: see of_switch.h. Port lists are short (tens); a linear search
 * is the honest choice. Allocation happens only on topology changes. */
#include "of_switch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int reserve(struct of_switch *sw, uint32_t n)
{
    if (n <= sw->cap_ports)
        return 0;
    uint32_t cap = sw->cap_ports ? sw->cap_ports : 8;
    while (cap < n)
        cap *= 2;
    struct ofp_port *p = realloc(sw->ports, (size_t)cap * sizeof(*p));
    if (!p)
        return -ENOMEM;
    sw->ports = p;
    sw->cap_ports = cap;
    return 0;
}

int of_switch_set_ports(struct of_switch *sw, const struct ofp_port *ports, uint32_t n)
{
    if (reserve(sw, n) < 0)
        return -ENOMEM;
    if (n)
        memcpy(sw->ports, ports, (size_t)n * sizeof(*ports));
    sw->n_ports = n;
    return 0;
}

static int find(const struct of_switch *sw, uint32_t port_no)
{
    for (uint32_t i = 0; i < sw->n_ports; i++)
        if (sw->ports[i].port_no == port_no)
            return (int)i;
    return -1;
}

const struct ofp_port *of_switch_port(const struct of_switch *sw, uint32_t port_no)
{
    int i = find(sw, port_no);
    return i < 0 ? NULL : &sw->ports[i];
}

int of_switch_port_status(struct of_switch *sw, uint8_t reason, const struct ofp_port *p)
{
    int i = find(sw, p->port_no);

    sw->port_changes++;
    if (reason == OFPPR_DELETE) {
        if (i < 0)
            return -ENOENT;
        sw->ports[i] = sw->ports[--sw->n_ports];
        return 0;
    }
    if (i >= 0) {
        sw->ports[i] = *p;
        return 0;
    }
    if (reserve(sw, sw->n_ports + 1) < 0)
        return -ENOMEM;
    sw->ports[sw->n_ports++] = *p;
    return reason == OFPPR_MODIFY ? -ENOENT : 0;
}

void of_switch_free_ports(struct of_switch *sw)
{
    free(sw->ports);
    sw->ports = NULL;
    sw->n_ports = sw->cap_ports = 0;
}
