/*
 * config_args: ofcd's command line as a configuration — the file of
 * --config, then each --SECTION.KEY=VALUE on top of it whatever their
 * order, then the checks across keys. main reads it at start; a reload
 * (reload.h) reads it again from the same arguments, so the file an
 * operator edited wins except where the command line says otherwise.
 */
#ifndef OFCD_CONFIG_ARGS_H
#define OFCD_CONFIG_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "cfg.h"

struct config_args {
    const char *config_path;    /* NULL: the built-in defaults */
    bool check_only;            /* --check */
    bool check_machine;         /* --check-machine: --check, then machine_check.h */
    bool print_config;          /* --print-config */
    bool help, version;         /* -h/--help, --version: nothing else was read */
};

/* argv[0] is the program. 0, or -EINVAL with the reason in err (a bad
 * option, a file that does not load, a key or a value refused). cfg must
 * hold the defaults (cfg_defaults, and no_test_services as built). */
int config_args_parse(int argc, char *const *argv, struct config_args *a,
                      struct ofcd_config *cfg, char *err, size_t errlen);

#endif
