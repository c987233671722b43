/*
 * store_open: picking the backend (see store.h: store_open,
 * store_backend_by_name). The one file of the store that calls into the
 * backends; they call store.c, never this, so calls run one way.
 */
#include "store.h"

#include <errno.h>
#include <string.h>

#include "ofcd_log.h"

struct store *store_open(const struct store_config *cfg)
{
    if (cfg && cfg->backend == STORE_BACKEND_MEMORY)
        return store_mem_open(cfg);
    if (cfg && cfg->backend == STORE_BACKEND_ETCD)
        return store_etcd_open(cfg);
    if (cfg && cfg->backend != STORE_BACKEND_LMDB) {
        LOG_ERR("store", "unknown backend %d", (int)cfg->backend);
        return NULL;
    }
    return store_lmdb_open(cfg);
}

int store_backend_by_name(const char *name, enum store_backend *out)
{
    if (name && strcmp(name, "lmdb") == 0)
        *out = STORE_BACKEND_LMDB;
    else if (name && strcmp(name, "memory") == 0)
        *out = STORE_BACKEND_MEMORY;
    else
        return -EINVAL;
    return 0;
}
