/* ofcd_log_ctl: see ofcd_log_ctl.h. */
#include "ofcd_log_ctl.h"

#include <errno.h>

#include "ofcd_log.h"

static int log_list(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
{
    const char *help;
    const char *name;

    (void)arg;
    (void)argc;
    (void)argv;
    ofcd_ctl_printf(out, "%-10s %-6s %s\n", "module", "level", "what it covers");
    for (unsigned i = 0; (name = ofcd_log_module_name(i, &help)); i++)
        ofcd_ctl_printf(out, "%-10s %-6s %s\n", name,
                        ofcd_log_level_name((enum ofcd_log_level)ofcd_log_module_level(name)),
                        help);
    return 0;
}

/* log/set LEVEL (every module) or log/set MODULE LEVEL. */
static int log_set(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
{
    const char *module = argc == 3 ? argv[1] : NULL;
    const char *level_name = argv[argc - 1];
    int level = ofcd_log_level_parse(level_name);

    (void)arg;
    if (level < 0) {
        ofcd_ctl_printf(out, "unknown level '%s': error, warn, info or debug\n", level_name);
        return -EINVAL;
    }
    if (!module) {
        ofcd_log_set_level((enum ofcd_log_level)level);
        LOG_INFO("log", "every module's level set to %s (ofcdctl)", level_name);
        ofcd_ctl_printf(out, "every module: %s\n", ofcd_log_level_name(level));
        return 0;
    }
    if (ofcd_log_set_module_level(module, (enum ofcd_log_level)level) < 0) {
        ofcd_ctl_printf(out, "unknown module '%s' (log/list lists them)\n", module);
        return -ENOENT;
    }
    LOG_INFO("log", "module %s's level set to %s (ofcdctl)", module, ofcd_log_level_name(level));
    ofcd_ctl_printf(out, "%s: %s\n", module, ofcd_log_level_name(level));
    return 0;
}

int ofcd_log_ctl_register(struct ofcd_ctl *c)
{
    int rc = ofcd_ctl_register(c, &(struct ofcd_ctl_cmd){
        "log/list", "", "each log module, its level and what it covers", 0, 0, log_list, NULL});

    if (rc == 0)
        rc = ofcd_ctl_register(c, &(struct ofcd_ctl_cmd){
            "log/set", "[MODULE] LEVEL",
            "a module's level (error|warn|info|debug), or every module's without MODULE", 1, 2,
            log_set, NULL});
    return rc;
}
