/* config_args: see config_args.h. */
#include "config_args.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int config_args_parse(int argc, char *const *argv, struct config_args *a,
                      struct ofcd_config *cfg, char *err, size_t errlen)
{
    *a = (struct config_args){0};
    /* First pass: the file, so overrides apply on top of it whatever the order. */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            a->help = true;
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0) {
            a->version = true;
            return 0;
        }
        if (strcmp(argv[i], "--config") == 0) {
            if (i + 1 >= argc) {
                snprintf(err, errlen, "--config needs a file name");
                return -EINVAL;
            }
            a->config_path = argv[++i];
        } else if (strncmp(argv[i], "--config=", 9) == 0) {
            a->config_path = argv[i] + 9;
        }
    }
    if (a->config_path && cfg_load_file(cfg, a->config_path, err, errlen) < 0)
        return -EINVAL;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "--config") == 0) {
            i++;
        } else if (strncmp(s, "--config=", 9) == 0) {
            continue;
        } else if (strcmp(s, "--check") == 0) {
            a->check_only = true;
        } else if (strcmp(s, "--check-machine") == 0) {
            a->check_only = a->check_machine = true;
        } else if (strcmp(s, "--print-config") == 0) {
            a->print_config = true;
        } else if (strncmp(s, "--", 2) == 0 && strchr(s, '.')) {
            if (cfg_apply_override(cfg, s + 2, err, errlen) < 0)
                return -EINVAL;
        } else {
            snprintf(err, errlen, "unknown option '%s' (see ofcd --help)", s);
            return -EINVAL;
        }
    }
    return cfg_finish(cfg, err, errlen) < 0 ? -EINVAL : 0;
}
