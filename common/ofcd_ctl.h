/*
 * ofcd_ctl: the commands `ofcdctl` runs in a live ofcd — a registry each
 * module adds its own commands to, and the bounded text a command answers
 * with. The socket that carries them is ofcd_ctl_server.h; the line format
 * on it is ofcd_ctl_wire.h.
 *
 * A module registers a command once, at start-up, with its name, the
 * arguments it takes (for usage lines), one line of help and a handler:
 *
 *   static int show(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
 *   { ... ofcd_ctl_printf(out, "%s: up\n", ...); return 0; }
 *   ofcd_ctl_register(ctl, &(struct ofcd_ctl_cmd){"thing/show", "[NAME]",
 *                     "one thing, or all of them", 0, 1, show, thing});
 *
 * The registry is below every module, so any module registers without
 * knowing who serves the socket. Registration ends before the server
 * starts; afterwards only the serving thread (ofcd's control thread) reads
 * the table and runs the handlers, one at a time, so a handler may read
 * what that thread owns without a lock and must not block: one that waits
 * for another thread (an lcore) defers its answer (ofcd_ctl_defer) and is
 * polled on each of the serving thread's wake-ups.
 */
#ifndef OFCD_CTL_H
#define OFCD_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OFCD_CTL_NAME_MAX 32            /* bytes of a command's name */
#define OFCD_CTL_COMMANDS_MAX 64
#define OFCD_CTL_ARGS_MAX 16            /* words after the command's name */
/* Bytes of one answer's text: past it the text is cut, and says so. */
#define OFCD_CTL_REPLY_MAX ((size_t)4 << 20)

/* A handler's return when its answer comes later (ofcd_ctl_defer). */
#define OFCD_CTL_LATER 1

struct ofcd_ctl_out;

/* An answer that comes later (ofcd_ctl_defer). */
struct ofcd_ctl_later {
    /* On each wake-up of the serving thread (now_ms: its monotonic clock)
     * until it returns other than OFCD_CTL_LATER: 0 or a negative errno,
     * as a handler. */
    int (*poll)(void *arg, struct ofcd_ctl_out *out, uint64_t now_ms);
    /* The client went away or ran out of time first: let the work go.
     * May be NULL. */
    void (*cancel)(void *arg);
    void *arg;
};

/* The text of one answer: grows as written, up to max bytes; what would
 * pass max is left out and `cut` set (ofcd_ctl_out_finish says so in the
 * text). */
struct ofcd_ctl_out {
    char *buf;
    size_t len, cap, max;
    bool cut;
    struct ofcd_ctl_later later;        /* set by ofcd_ctl_defer */
};

/* 0 (ok) or a negative errno, with the answer (or the error's text) in out;
 * OFCD_CTL_LATER after ofcd_ctl_defer. argv[0] is the command's name. */
typedef int (*ofcd_ctl_fn)(void *arg, int argc, char **argv, struct ofcd_ctl_out *out);

struct ofcd_ctl_cmd {
    const char *name;                   /* "log/set": [a-z0-9/_-], OFCD_CTL_NAME_MAX at most */
    const char *usage;                  /* its arguments: "[MODULE] LEVEL", "" for none */
    const char *help;                   /* one line */
    unsigned min_args, max_args;        /* words after the name; max <= OFCD_CTL_ARGS_MAX */
    ofcd_ctl_fn fn;
    void *arg;
};

struct ofcd_ctl;

/* An empty registry but for `list-commands`; NULL when out of memory. */
struct ofcd_ctl *ofcd_ctl_create(void);
void ofcd_ctl_destroy(struct ofcd_ctl *c);

/* Copies cmd (its strings are borrowed: string literals). 0, -EEXIST (the
 * name is taken), -EINVAL (a bad name, no help or handler, min > max,
 * max over OFCD_CTL_ARGS_MAX), -ENOSPC (OFCD_CTL_COMMANDS_MAX). */
int ofcd_ctl_register(struct ofcd_ctl *c, const struct ofcd_ctl_cmd *cmd);

/* Run argv[0] with its arguments: what the handler returns, or -ENOENT
 * (no such command) / -EINVAL (wrong number of arguments) with the reason
 * and the usage in out. An error without text gets strerror's. */
int ofcd_ctl_execute(struct ofcd_ctl *c, int argc, char **argv, struct ofcd_ctl_out *out);

/* ---- the answer's text ------------------------------------------------------------ */

void ofcd_ctl_out_init(struct ofcd_ctl_out *o, size_t max);
void ofcd_ctl_out_free(struct ofcd_ctl_out *o);

/* Append: 0, or -ENOSPC when (part of) it was left out at max (or for want
 * of memory); the text already there stays. */
int ofcd_ctl_printf(struct ofcd_ctl_out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int ofcd_ctl_write(struct ofcd_ctl_out *o, const char *text, size_t len);

/* The answer will come from later->poll (copied); returns OFCD_CTL_LATER
 * for the handler to return. */
int ofcd_ctl_defer(struct ofcd_ctl_out *o, const struct ofcd_ctl_later *later);

/* Before it is sent: a text that does not end in a newline gets one, and a
 * cut text ends with a line saying it was cut at max bytes (so the answer
 * may pass max by that line). */
void ofcd_ctl_out_finish(struct ofcd_ctl_out *o);

#endif
