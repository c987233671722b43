/*
 * topo_keep: what the topology keeps over a restart, as records of the
 * flow store's database (store_kv_*, the "apps" database next to the
 * flows), one per entity, each written before the REST change is answered:
 *
 *   topology/meta/<switch|interface|link>/<id>   its metadata, a JSON object
 *   topology/meta/tags/<interface id>            its VLAN pool where it is not
 *                                                Kytos' default (topo_rest_tags.c)
 *   topology/admin/<dpid>/<port>                 topo_admin flags (port 0:
 *                                                the switch), when not 0
 *   topology/link/<id>                           {"a", "b", "enabled"}: every
 *                                                link seen (Kytos keeps them
 *                                                all), written when LLDP
 *                                                first finds it; a record
 *                                                without "enabled" (an
 *                                                earlier ofcd kept disabled
 *                                                links only) is disabled
 *
 * ids are Kytos-ng's (switch dpid "00:..", interface "dpid:port", link
 * hex SHA-256). Kytos keeps the same things in MongoDB.
 *
 * topo_keep_load() reads them all back at start: metadata into a JSON
 * object {"switch"|"interface"|"link": {id: {...}}} (a record over the
 * bounds below is logged and left in the store, not loaded), flags into
 * topo_admin, links into topo_view (inactive until seen again; one whose
 * ends LLDP finds linked elsewhere shows mismatched_link).
 */
#ifndef OFCD_TOPO_KEEP_H
#define OFCD_TOPO_KEEP_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>
#include <pthread.h>

#include "topo_admin.h"
#include "topo_view.h"

struct store;

/* What one entity's metadata may hold (switch, interface or link): keys,
 * and bytes of its JSON as stored (compact). A POST that would pass either
 * is refused (413), and a stored record past either is not loaded. */
#define TOPO_META_MAX_KEYS 64
#define TOPO_META_MAX_BYTES 16384

/* Is meta within both bounds? 0, or -E2BIG with what is over and the bound
 * in why (e.g. "65 keys, at most 64 keys per entity"). */
int topo_meta_check(const json_t *meta, char *why, size_t len);

/* One entity's metadata (an empty object deletes the record). 0 or the
 * store's negative errno. */
int topo_keep_meta(struct store *s, const char *kind, const char *id, const json_t *meta);
/* The flags of (dpid, port) (0 deletes the record). */
int topo_keep_admin(struct store *s, uint64_t dpid, uint32_t port, uint32_t flags);
/* Link l's record with its enabled state; _del: a link deleted (DELETE
 * links/{id}). _async: the same queued, for the control thread, which
 * never waits; a failure is logged through the calling thread's limiter
 * when the store refuses it, the committer thread's when it fails later. */
int topo_keep_link(struct store *s, const struct topo_link_rec *l, bool enabled);
int topo_keep_link_del(struct store *s, const char *id);
struct ofcd_ratelimit;
int topo_keep_link_async(struct store *s, const struct topo_link_rec *l, bool gone,
                         struct ofcd_ratelimit *rl_caller, struct ofcd_ratelimit *rl_committer);
/* topo_keep_admin, queued as topo_keep_link_async is. */
int topo_keep_admin_async(struct store *s, uint64_t dpid, uint32_t port, uint32_t flags,
                          struct ofcd_ratelimit *rl_caller, struct ofcd_ratelimit *rl_committer);

/* Forget what is kept of an entity an operator deleted: of interface
 * (dpid, port) its metadata, VLAN pool and flags; of switch dpid (port
 * TOPO_ADMIN_SWITCH) its own and all its interfaces'. Out of the store
 * first (s may be NULL: nothing stored), then out of meta (taking
 * meta_lock: readers never wait for the store) and admin. 0 or the
 * store's negative errno (what was not deleted is still kept). */
int topo_keep_forget(struct store *s, uint64_t dpid, uint32_t port, json_t *meta,
                     pthread_mutex_t *meta_lock, struct topo_admin *admin);

/* Everything back. *meta: a new object. Records that do not parse are
 * logged and skipped; a flag that finds no room in admin, or a link none
 * in ctl, is logged. 0, or the store's negative errno. */
int topo_keep_load(struct store *s, json_t **meta, struct topo_admin *admin,
                   struct topo_view *ctl);

/*
 * Following another node's change (a cluster's store: the records are
 * shared, each node holds its own copy in memory). key is one of the
 * records above, changed or removed; its value is read from the store now
 * and applied as at load, a removed one undone (metadata gone, flags 0, the
 * link enabled). topo_keep_is_ours: a key of the topology's;
 * topo_keep_is_meta: one of its metadata (follow_meta, under the meta
 * lock), else follow_state (admin flags and links, under the view's lock).
 * 0, -EINVAL for a key that does not parse, or the store's error.
 */
bool topo_keep_is_ours(const char *key);
bool topo_keep_is_meta(const char *key);
int topo_keep_follow_meta(struct store *s, const char *key, json_t *meta);
int topo_keep_follow_state(struct store *s, const char *key, struct topo_admin *admin,
                           struct topo_view *ctl);

#endif
