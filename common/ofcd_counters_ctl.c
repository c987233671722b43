/* ofcd_counters_ctl: see ofcd_counters_ctl.h. */
#include "ofcd_counters_ctl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define LABELS_MAX 64                   /* bytes of labels a line shows */
#define SET_LINE_MAX 4096

size_t ofcd_counter_set_format(char *line, size_t n, const struct ofcd_counter_group *g,
                               const char *labels, const uint64_t *values)
{
    size_t len = 0;

    if (n == 0)
        return 0;
    for (const char *p = labels; *p && len < LABELS_MAX && len + 1 < n; p++)
        if (*p != '"')
            line[len++] = *p;
    line[len] = '\0';
    len += (size_t)snprintf(line + len, n - len, "%s%s:", len ? " " : "", g->name);
    for (unsigned i = 0; i < g->n && len < n; i++)
        len += (size_t)snprintf(line + len, n - len, " %s=%lu", g->defs[i].name,
                                (unsigned long)values[i]);
    return len < n ? len : n - 1;
}

struct show_walk {
    struct ofcd_ctl_out *out;
    const char *group;                  /* NULL: every set */
    unsigned shown;
    char names[1024];                   /* the groups seen, for an unknown group's error */
};

/* name added to the blank-separated names once (a group has a set per
 * lcore); what does not fit is left out. */
static void note_group(char *names, size_t cap, const char *name)
{
    size_t n = strlen(names), k = strlen(name);

    for (const char *p = names; (p = strstr(p, name)); p += k)
        if ((p == names || p[-1] == ' ') && (p[k] == ' ' || p[k] == '\0'))
            return;
    if (n + k + 2 > cap)
        return;
    if (n)
        names[n++] = ' ';
    memcpy(names + n, name, k + 1);
}

static void show_set(void *arg, const struct ofcd_counter_group *g, const char *labels,
                     const uint64_t *values)
{
    struct show_walk *w = arg;
    char line[SET_LINE_MAX];

    if (w->group && strcmp(w->group, g->name) != 0) {
        note_group(w->names, sizeof(w->names), g->name);
        return;
    }
    ofcd_counter_set_format(line, sizeof(line), g, labels, values);
    ofcd_ctl_printf(w->out, "%s\n", line);
    w->shown++;
}

int ofcd_counters_show(ofcd_counters_visit_fn visit, void *src, const char *group,
                       struct ofcd_ctl_out *out)
{
    struct show_walk w = {.out = out, .group = group};

    visit(src, show_set, &w);
    if (group && !w.shown) {
        ofcd_ctl_printf(out, "no counter group '%s'; the groups: %s\n", group, w.names);
        return -ENOENT;
    }
    return 0;
}
