/* l2_class: see l2_class.h. */
#include "l2_class.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cfg.h"
#include "of_app.h"
#include "of_l2learn.h"

static const char *const l2_keys[] = {"apps.l2_learning", "apps.l2_table_size",
                                      "apps.l2_idle_timeout_s",
                                      NULL};

static bool l2_enabled(const struct ofcd_config *c)
{
    return c->l2_learning;
}

/* The config the workers read lives as long as the instance. */
static int l2_create(const struct app_host *host, unsigned index, struct of_app *hooks,
                     void **self)
{
    struct l2_cfg *cfg = malloc(sizeof(*cfg));

    (void)index;
    if (!cfg)
        return -ENOMEM;
    *cfg = (struct l2_cfg){.table_size = host->cfg->l2_table_size,
                           .idle_timeout_s = host->cfg->l2_idle_timeout_s,
                           .priority = L2_FLOW_PRIORITY};
    l2_app_init(hooks, cfg);
    *self = cfg;
    return 0;
}

static void l2_status(void *self, char *buf, size_t len)
{
    const struct l2_cfg *cfg = self;

    snprintf(buf, len, "on: %u MAC entries per switch, idle timeout %u s", cfg->table_size,
             (unsigned)cfg->idle_timeout_s);
}

static void l2_destroy(void *self)
{
    free(self);
}

const struct app_class l2_class = {
    .name = "l2_learning",
    .config_keys = l2_keys,
    .enabled = l2_enabled,
    .create = l2_create,
    .status = l2_status,
    .destroy = l2_destroy,
};
