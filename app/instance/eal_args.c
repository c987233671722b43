/* eal_args: see eal_args.h. */
#include "eal_args.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

int eal_args_build(struct eal_args *ea, const char *prog, const char *args)
{
    size_t need = strlen(prog) + 1 + strlen(args) + 1;

    if (need > sizeof(ea->buf))
        return -E2BIG;
    memset(ea, 0, sizeof(*ea));
    strcpy(ea->buf, prog);
    char *words = ea->buf + strlen(prog) + 1;
    strcpy(words, args);

    ea->argv[0] = ea->buf;
    ea->argc = 1;
    char *save = NULL;
    for (char *w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (ea->argc > EAL_ARGS_MAX)
            return -E2BIG;
        ea->argv[ea->argc++] = w;
    }
    ea->argv[ea->argc] = NULL;
    return ea->argc > 1 ? 0 : -EINVAL;
}

const char *eal_args_next(const struct eal_args *ea, int *i, const char *lng, const char *shrt)
{
    size_t ll = lng ? strlen(lng) : 0, sl = shrt ? strlen(shrt) : 0;

    while (*i < ea->argc) {
        const char *a = ea->argv[(*i)++];
        if (lng && strncmp(a, lng, ll) == 0 && a[ll] == '=')
            return a + ll + 1;
        bool whole = (lng && strcmp(a, lng) == 0) || (shrt && strcmp(a, shrt) == 0);
        if (whole)
            return *i < ea->argc ? ea->argv[(*i)++] : NULL;
        if (shrt && a[1] != '-' && strncmp(a, shrt, sl) == 0)
            return a + sl;                      /* glued: -a0000:03:00.0 */
    }
    return NULL;
}

const char *eal_args_file_prefix(const struct eal_args *ea)
{
    const char *prefix = "rte", *v;
    int i = 1;

    /* Last one wins, as in EAL's getopt loop. */
    while ((v = eal_args_next(ea, &i, "--file-prefix", NULL)))
        prefix = v;
    return prefix;
}
