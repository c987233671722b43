/*
 * cluster_store: a cluster node's flow store — the store's etcd backend
 * (control/store/store_etcd*.c) set up from the [cluster] keys, its
 * master-only writes guarded by the cluster app's mastership, and the
 * flow manager following every node's changes through the store's watch.
 *
 * In cluster mode a flow POSTed to any node is committed to etcd; every
 * node's mirror applies it, and this watch hands each changed flow to
 * fm_sync(), which mirrors it and queues its FLOW_MOD — sent by the
 * switch's master only (fm_env.may_write). The node that took the
 * request answers once its own mirror shows it. A group's or meter's
 * record goes to fm_gm_follow() the same way; another app record changed
 * (the topology's metadata, flags, links) goes to the apps'
 * store_changed hook.
 */
#ifndef OFCD_CLUSTER_STORE_H
#define OFCD_CLUSTER_STORE_H

#include <stddef.h>

#include "app.h"
#include "cfg.h"
#include "store.h"

/* What the store's etcd settings point to while store_open reads them
 * (the password too: the caller wipes it after). */
struct cluster_store_buf {
    struct cfg_cluster_etcd access;
    struct store_etcd_cfg etcd;
};

/* The etcd part of the store's settings (sc->etcd) from app->cfg, in *b.
 * 0, or a negative errno (logged). */
int cluster_store_cfg(struct app_ctx *app, struct store_config *sc, struct cluster_store_buf *b);

/* The flow manager follows the store's changes (after fm_create: it
 * loaded what the mirror held; the watch brings the rest). */
int cluster_store_follow(struct app_ctx *app);

#endif
