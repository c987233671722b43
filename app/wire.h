/*
 * wire: the appliance's wiring — ofcd's configuration turned into each
 * module's own config struct (modules never see struct ofcd_config), and
 * the lcores and the OpenFlow plumbing built from it: an lcore context per
 * lcore with a role, message buffers, a worker per worker lcore (its
 * msg_in), an of_io per io lcore (listeners, its msg_out), the events ring
 * to the control thread, and each lcore's tasks in loop order.
 */
#ifndef OFCD_WIRE_H
#define OFCD_WIRE_H

#include "app.h"
#include "fm.h"
#include "store.h"

/* The REST face's config. ui_dir[ui_len] holds the dashboard's folder:
 * rest.ui_dir, or when that is empty the first of ../ui (a build tree)
 * and ../share/ofcd/ui (an installed one) from the program's folder that
 * has an index.html; "" when none does. */
void wire_rest_cfg(const struct ofcd_config *c, char *ui_dir, size_t ui_len,
                   struct rest_cfg *out);

/* The event stream and an instance of every app class [apps] enables
 * (app/apps.c; in the order the workers call their hooks). 0 or a negative
 * errno (logged). */
int wire_apps(struct app_ctx *app);
/* Once the store and the flow manager exist: lend them to the apps
 * (app->host) and let each read back what it kept. 0, or a negative errno
 * (logged). */
int wire_apps_load(struct app_ctx *app);
/* Each app's own threads stopped (app_class quiesce), before the store
 * and the flow manager close. */
void wire_apps_quiesce(struct app_ctx *app);
/* Free what wire_apps made, once no thread reads it. */
void unwire_apps(struct app_ctx *app);
/* The flow manager's config, the apps' cookies included (after wire_apps):
 * window = max(consistency_min_interval_s, 1.5 x stats interval). */
void wire_fm(const struct app_ctx *app, struct fm_cfg *out);

/* The store's config ([store], flow_manager.store_*), its directory
 * (app.data_dir/flows) written into dir (len bytes). 0, or -EINVAL (logged)
 * for a backend cfg_finish would have refused. */
int wire_store_cfg(const struct ofcd_config *c, char *dir, size_t len, struct store_config *out);

/* The lcore contexts from lcores.io / lcores.worker, checked against the
 * lcores EAL enabled (app->port and app->pool set). 0 or a negative errno
 * (logged). */
int wire_lcores(struct app_ctx *app);

/* Buffers, rings, workers, io sides and test services, with their lcore
 * tasks. 0 or a negative errno (logged). */
int wire_openflow(struct app_ctx *app);

/* Undo wire_openflow, then wire_lcores (after the lcores stopped). */
void unwire(struct app_ctx *app);

#endif
