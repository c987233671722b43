/* eal_args: see eal_args.h. */
#include "eal_args.h"

#include <errno.h>
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

const char *eal_args_file_prefix(const struct eal_args *ea)
{
    static const char opt[] = "--file-prefix";
    const char *prefix = "rte";

    /* Last one wins, as in EAL's getopt loop. */
    for (int i = 1; i < ea->argc; i++) {
        const char *a = ea->argv[i];
        if (strncmp(a, opt, sizeof(opt) - 1) != 0)
            continue;
        if (a[sizeof(opt) - 1] == '=')
            prefix = a + sizeof(opt);
        else if (a[sizeof(opt) - 1] == '\0' && i + 1 < ea->argc)
            prefix = ea->argv[++i];
    }
    return prefix;
}
