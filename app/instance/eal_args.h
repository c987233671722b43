/*
 * eal_args: turn the [eal] args string of the config into an argv for
 * rte_eal_init(), and read back the options ofcd itself cares about.
 */
#ifndef OFCD_EAL_ARGS_H
#define OFCD_EAL_ARGS_H

#define EAL_ARGS_MAX 64

struct eal_args {
    char buf[1024];             /* storage the argv points into */
    char *argv[EAL_ARGS_MAX + 2];
    int argc;
};

/*
 * Split args on blanks (no quoting: EAL options never need spaces) after an
 * argv[0] of prog. Returns 0, -E2BIG (too many words or too long) or
 * -EINVAL (empty).
 */
int eal_args_build(struct eal_args *ea, const char *prog, const char *args);

/* The next value of an EAL option from argv[*i] on — "--long=V",
 * "--long V", "-sV" or "-s V" (lng or shrt may be NULL) — with *i moved past
 * it; NULL when there is none. Points into ea. */
const char *eal_args_next(const struct eal_args *ea, int *i, const char *lng, const char *shrt);

/* The value of --file-prefix (either "--file-prefix=X" or "--file-prefix X"),
 * or "rte", EAL's own default. Points into ea. */
const char *eal_args_file_prefix(const struct eal_args *ea);

#endif
