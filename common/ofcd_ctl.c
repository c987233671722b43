/* ofcd_ctl: see ofcd_ctl.h. */
#include "ofcd_ctl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ofcd_ctl {
    struct ofcd_ctl_cmd cmds[OFCD_CTL_COMMANDS_MAX];
    unsigned n;
};

static const struct ofcd_ctl_cmd *find(const struct ofcd_ctl *c, const char *name)
{
    for (unsigned i = 0; i < c->n; i++)
        if (strcmp(c->cmds[i].name, name) == 0)
            return &c->cmds[i];
    return NULL;
}

/* Name order, for list-commands: an operator looks a command up by name. */
static int by_name(const void *a, const void *b)
{
    const struct ofcd_ctl_cmd *const *x = a, *const *y = b;

    return strcmp((*x)->name, (*y)->name);
}

static int list_commands(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
{
    const struct ofcd_ctl *c = arg;
    const struct ofcd_ctl_cmd *sorted[OFCD_CTL_COMMANDS_MAX];
    char head[OFCD_CTL_NAME_MAX + 64];

    (void)argc;
    (void)argv;
    for (unsigned i = 0; i < c->n; i++)
        sorted[i] = &c->cmds[i];
    qsort(sorted, c->n, sizeof(sorted[0]), by_name);
    for (unsigned i = 0; i < c->n; i++) {
        snprintf(head, sizeof(head), "%s%s%s", sorted[i]->name, *sorted[i]->usage ? " " : "",
                 sorted[i]->usage);
        ofcd_ctl_printf(out, "%-34s %s\n", head, sorted[i]->help);
    }
    return 0;
}

struct ofcd_ctl *ofcd_ctl_create(void)
{
    struct ofcd_ctl *c = calloc(1, sizeof(*c));

    if (c && ofcd_ctl_register(c, &(struct ofcd_ctl_cmd){
                 "list-commands", "", "every command, its arguments and what it does", 0, 0,
                 list_commands, c}) < 0) {
        free(c);
        return NULL;
    }
    return c;
}

void ofcd_ctl_destroy(struct ofcd_ctl *c)
{
    free(c);
}

static bool name_ok(const char *name)
{
    size_t n = name ? strlen(name) : 0;

    if (n == 0 || n > OFCD_CTL_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
              name[i] == '/' || name[i] == '_' || name[i] == '-'))
            return false;
    return true;
}

int ofcd_ctl_register(struct ofcd_ctl *c, const struct ofcd_ctl_cmd *cmd)
{
    if (!name_ok(cmd->name) || !cmd->help || !*cmd->help || !cmd->usage || !cmd->fn ||
        cmd->min_args > cmd->max_args || cmd->max_args > OFCD_CTL_ARGS_MAX)
        return -EINVAL;
    if (find(c, cmd->name))
        return -EEXIST;
    if (c->n == OFCD_CTL_COMMANDS_MAX)
        return -ENOSPC;
    c->cmds[c->n++] = *cmd;
    return 0;
}

int ofcd_ctl_execute(struct ofcd_ctl *c, int argc, char **argv, struct ofcd_ctl_out *out)
{
    const struct ofcd_ctl_cmd *cmd = argc > 0 ? find(c, argv[0]) : NULL;

    if (!cmd) {
        ofcd_ctl_printf(out, "unknown command '%s' (list-commands lists them)\n",
                        argc > 0 ? argv[0] : "");
        return -ENOENT;
    }
    unsigned nargs = (unsigned)argc - 1;
    if (nargs < cmd->min_args || nargs > cmd->max_args) {
        ofcd_ctl_printf(out, "%s takes %s arguments; usage: %s %s\n", cmd->name,
                        nargs < cmd->min_args ? "more" : "fewer", cmd->name, cmd->usage);
        return -EINVAL;
    }
    size_t before = out->len;
    int rc = cmd->fn(cmd->arg, argc, argv, out);
    if (rc < 0 && out->len == before)
        ofcd_ctl_printf(out, "%s: %s\n", cmd->name, strerror(-rc));
    return rc;
}

/* ---- the answer's text ------------------------------------------------------------ */

void ofcd_ctl_out_init(struct ofcd_ctl_out *o, size_t max)
{
    *o = (struct ofcd_ctl_out){.max = max};
}

void ofcd_ctl_out_free(struct ofcd_ctl_out *o)
{
    free(o->buf);
    *o = (struct ofcd_ctl_out){.max = o->max};
}

/* The buffer at cap bytes at least: 0 or -ENOMEM. */
static int grow(struct ofcd_ctl_out *o, size_t cap)
{
    if (cap <= o->cap)
        return 0;
    char *b = realloc(o->buf, cap);
    if (!b)
        return -ENOMEM;
    o->buf = b;
    o->cap = cap;
    return 0;
}

/* Room for need more bytes and a NUL (need never takes len past max). */
static int reserve(struct ofcd_ctl_out *o, size_t need)
{
    size_t want = o->len + need + 1, cap = o->cap ? o->cap : 512;

    while (cap < want)
        cap *= 2;
    return grow(o, cap < o->max + 1 ? cap : o->max + 1);
}

int ofcd_ctl_write(struct ofcd_ctl_out *o, const char *text, size_t len)
{
    if (o->cut)
        return -ENOSPC;
    size_t fit = o->len + len > o->max ? o->max - o->len : len;
    if (fit) {
        if (reserve(o, fit) < 0) {
            o->cut = true;
            return -ENOSPC;
        }
        memcpy(o->buf + o->len, text, fit);
        o->len += fit;
        o->buf[o->len] = '\0';
    }
    if (fit < len) {
        o->cut = true;
        return -ENOSPC;
    }
    return 0;
}

int ofcd_ctl_printf(struct ofcd_ctl_out *o, const char *fmt, ...)
{
    char small[512];
    va_list ap;

    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        return -EINVAL;
    if ((size_t)n < sizeof(small))
        return ofcd_ctl_write(o, small, (size_t)n);
    char *big = malloc((size_t)n + 1);
    if (!big) {
        o->cut = true;
        return -ENOSPC;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    int rc = ofcd_ctl_write(o, big, (size_t)n);
    free(big);
    return rc;
}

int ofcd_ctl_defer(struct ofcd_ctl_out *o, const struct ofcd_ctl_later *later)
{
    o->later = *later;
    return OFCD_CTL_LATER;
}

void ofcd_ctl_out_finish(struct ofcd_ctl_out *o)
{
    char tail[96];
    int n = 0;

    if (o->cut) {
        /* Whole lines only: the part of a line before the cut goes too. */
        while (o->len > 0 && o->buf[o->len - 1] != '\n')
            o->len--;
        n = snprintf(tail, sizeof(tail), "... (the answer was cut at %zu bytes)\n", o->max);
    } else if (o->len > 0 && o->buf[o->len - 1] != '\n') {
        n = snprintf(tail, sizeof(tail), "\n");
    }
    if (n <= 0 || grow(o, o->len + (size_t)n + 1) < 0)
        return;
    memcpy(o->buf + o->len, tail, (size_t)n + 1);
    o->len += (size_t)n;
}
