/*
 * topo_rest: the topology's REST face, as rest_ext routes (rest.h):
 *
 *   /api/kytos/topology/v3     GET "" (topology), switches, interfaces,
 *                              links; POST switches/{dpid}/enable|disable,
 *                              interfaces/{id}/enable|disable,
 *                              interfaces/switch/{dpid}/enable|disable,
 *                              links/{id}/enable|disable; DELETE links/{id}
 *                              (a disabled one: 409 otherwise); GET|POST
 *                              .../metadata and DELETE .../metadata/{key}
 *                              for switches, interfaces and links; GET
 *                              interfaces/tag_ranges, GET|POST|DELETE
 *                              interfaces/{id}/tag_ranges, POST
 *                              interfaces/{id}/special_tags (VLAN pools)
 *   /api/kytos/of_lldp/v1      GET interfaces; POST interfaces/enable|disable
 *                              {"interfaces": [ids]}; GET|POST polling_time;
 *                              POST liveness/enable|disable, GET liveness/
 *                              (?interface_id=), GET liveness/pair
 *   /api/v1/topology           ofcd's compact graph: nodes and links with
 *                              state, age and change counts
 *   /api/kytos/pathfinder/v3   POST "": Kytos' pathfinder, the k shortest
 *                              paths under constraints (topo_rest_path.c)
 *
 * JSON shapes are Kytos-ng's (Switch/Interface/Link.as_dict, ids as
 * kytos/core/id.py makes them). The switch view's lock (the control
 * thread's, which also guards topo_view) is held only to copy: the GETs
 * of the whole topology copy one switch, or a piece of the links, per hold
 * (topo_snap.h, topo_rest_read.c) and build their JSON after; a POST's
 * body is parsed before it. Metadata lives here, under its own lock, at
 * most TOPO_META_MAX_KEYS keys and TOPO_META_MAX_BYTES of JSON per entity
 * (a POST past either: 413). What must survive a restart (metadata, disabled
 * switches/interfaces/links, LLDP and liveness flags) is written to the
 * flow store's database (topo_keep.h) after the switch view's lock is let
 * go and before the change is answered.
 */
#ifndef OFCD_TOPO_REST_H
#define OFCD_TOPO_REST_H

#include <jansson.h>
#include <pthread.h>

#include "rest.h"
#include "topo_admin.h"
#include "topo_app.h"
#include "topo_paths.h"
#include "topo_view.h"

struct sw_view;
struct fm;
struct store;

/* One use of tags another app reports: VIDs lo..hi (1..4095) on (dpid,
 * port), or special tags (TOPO_SPECIAL_*, lo = hi = 0). */
typedef void (*topo_tag_visit_fn)(void *v, uint64_t dpid, uint32_t port, unsigned lo,
                                  unsigned hi, unsigned special);
/* Every use of tags the app made on interface *only, or on every
 * interface when only is NULL (one walk for a whole listing, not one per
 * interface), each handed to visit. */
typedef void (*topo_tags_walk_fn)(void *arg, const struct topo_end *only,
                                  topo_tag_visit_fn visit, void *v);

struct topo_rest {
    /* the switch view and topo_view, valid until unlock */
    void *lock_arg;
    const struct sw_view *(*lock)(void *arg);
    void (*unlock)(void *arg);
    struct topo_view *ctl;
    struct topo_admin *admin;
    struct topo_app_cfg *app;
    struct store *store;                /* the LLDP flow's (NULL: not touched) */
    struct fm *fm;
    /* meta_lock: the in-memory copy, held only to read or swap it (the
     * control thread reads it: never across a store call). keep_lock: the
     * REST writers in turn, held across their store writes. */
    pthread_mutex_t meta_lock;
    pthread_mutex_t keep_lock;
    /* pool_lock: the VLAN pools' turn, outside keep_lock. A change of an
     * interface's tag_ranges or special_tags holds it from its check of
     * the tags in use to its commit; the app that takes tags (the
     * circuits) holds it from its check of a pool to taking the tags
     * (topo_rest_pools_hold), so neither sees the other half done. */
    pthread_mutex_t pool_lock;
    json_t *meta;                       /* {"switch"|"interface"|"link": {id: {...}}} */
    char *meta_path;                    /* an earlier ofcd's metadata file, imported */
    struct rest_ext ext_topology, ext_lldp, ext_ofcd, ext_path;
    struct topo_paths_cache paths;      /* the graph other apps' paths are found on */
    /* The tags another app took (NULL: none), asked with pool_lock alone
     * held (topo_rest_tags_user). */
    topo_tags_walk_fn tags_used;
    void *tags_used_arg;
};

/* Make the four routes (the rest of *t is the caller's to fill). 0 or
 * -ENOMEM. */
int topo_rest_init(struct topo_rest *t, const char *data_dir);
/* Once the store is open (t->admin and t->ctl set): read back what
 * topo_keep stored, after moving an earlier ofcd's
 * data_dir/topology_metadata.json into the store. 0, or a negative errno
 * (logged: the file is not JSON, the store cannot be read). */
int topo_rest_load(struct topo_rest *t, struct store *s);
/* A record of the topology's changed in the store by another node (a
 * cluster): this node's copy follows it (topo_keep_follow_*). On the
 * control thread, without the view's lock. */
void topo_rest_follow(struct topo_rest *t, const char *key);
void topo_rest_fini(struct topo_rest *t);

/* The VLAN pool of interface (dpid, port) for another app (the circuits):
 * its tag_ranges as a set of TOPO_TAGS_WORDS words (topo_tags.h), the LLDP
 * VLAN out while in use there, and its special tags' bits. 0 or -ENOMEM.
 * Any thread; takes the meta lock. */
int topo_rest_tags_allowed(struct topo_rest *t, uint64_t dpid, uint32_t port, uint64_t *set,
                           unsigned *special);
/* The app that takes tags from the pools (once, before REST serves): what
 * it took is out of available_tags and special_available_tags, and a
 * tag_ranges or special_tags that leaves one out is refused. fn is called
 * from REST threads with pool_lock alone held: the app takes its tags under
 * topo_rest_pools_hold. */
void topo_rest_tags_user(struct topo_rest *t, topo_tags_walk_fn fn, void *arg);

/* The pools' turn for the app that takes tags: between hold and release
 * no pool changes. Not under meta_lock or keep_lock; the tags_used
 * callback runs under it (its own lock comes after). */
void topo_rest_pools_hold(struct topo_rest *t);
void topo_rest_pools_release(struct topo_rest *t);

/* Is the loop between ports a and b of switch dpid one an operator told
 * of_lldp to ignore: [a, b] or [b, a] in the switch's metadata
 * "ignored_loops" (a list of port pairs)? Takes the meta lock. */
bool topo_rest_loop_ignored(struct topo_rest *t, uint64_t dpid, uint32_t a, uint32_t b);

#endif
