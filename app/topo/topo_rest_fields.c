/*
 * topo_rest_fields: what both the topology's changes (topo_rest.c) and its
 * reads (topo_rest_read.c) show of an entity — Kytos' interface id, a
 * switch's enabled flag, the active/enabled/status fields, a copy of its
 * metadata — so the two files each depend on this one and not on each
 * other (topo_rest.c calls the reads; the reads call nothing back).
 */
#include "topo_rest_priv.h"

#include <pthread.h>

#include "topo_admin.h"
#include "topo_ctl.h"

void topo_rest_iface_id(uint64_t dpid, uint32_t port, char out[TOPO_END_ID_LEN])
{
    topo_end_id((struct topo_end){dpid, port}, out);
}

bool topo_rest_switch_enabled(const struct topo_rest *t, uint64_t dpid)
{
    return !(topo_admin_get(t->admin, dpid, TOPO_ADMIN_SWITCH) & TOPO_ADMIN_DISABLED);
}

void topo_rest_status_fields(json_t *j, bool active, bool enabled)
{
    json_t *why = json_array();
    /* Sorted, as Kytos' as_dict gives them. */
    if (!active)
        json_array_append_new(why, json_string("deactivated"));
    if (!enabled)
        json_array_append_new(why, json_string("disabled"));
    json_object_set_new(j, "active", json_boolean(active));
    json_object_set_new(j, "enabled", json_boolean(enabled));
    json_object_set_new(j, "status",
                        json_string(enabled && active ? "UP" : !enabled ? "DISABLED" : "DOWN"));
    json_object_set_new(j, "status_reason", why);
}

json_t *topo_rest_meta_copy(struct topo_rest *t, const char *kind, const char *id)
{
    pthread_mutex_lock(&t->meta_lock);
    json_t *m = json_object_get(json_object_get(t->meta, kind), id);
    m = m ? json_deep_copy(m) : json_object();
    pthread_mutex_unlock(&t->meta_lock);
    return m;
}
