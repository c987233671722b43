/*
 * eline_req: a mef_eline v2 EVC as a client writes it (POST
 * /api/kytos/mef_eline/v2/evc/, Kytos-ng's NewCircuit) read into a typed
 * request, and an EVC rendered back as Kytos' GET shows it (its as_dict).
 * Pure: jansson values in and out, no I/O, no topology (whether an
 * interface exists and its tags are free is the app's to say).
 *
 * Accepted (any key order; a key NewCircuit does not have is a 400):
 *   name                 string, required
 *   uni_a, uni_z         {interface_id "<dpid>:<port>" (Kytos' pattern: 8
 *                        hex pairs then a port of 1..5 digits), tag
 *                        {tag_type "vlan" | 1, value: 1..4095, "any",
 *                        "untagged", or ranges [[first, last] | [vid] | vid,
 *                        ...]}}, required
 *   enabled, dynamic_backup_path   booleans, default false
 *   primary_path, backup_path, primary_links, backup_links   arrays of links
 *                        {id?, endpoint_a {id}, endpoint_b {id}}
 *   primary_constraints, secondary_constraints   objects (pathfinder's
 *                        constraints; read when a path is asked for)
 *   sb_priority          integer 0..65535 (an OpenFlow priority) or null; service_level 0..7 (0);
 *                        queue_id -1..7 or null (-1); max_paths 2..10 (2);
 *                        bandwidth integer (0)
 *   metadata             object ({}); circuit_scheduler array ([]);
 *                        start_date, end_date, frequency strings
 * Kytos' own rules beyond its schema: both UNIs' tags are ranges or
 * neither is, and then the same ranges; an EVC across two switches has a
 * primary_path or dynamic_backup_path.
 *
 * Errors: -EINVAL with the message Kytos answers in err: its schema's
 * ("The request body contains invalid API data. uni_a: 'interface_id' is a
 * required property") or its own rule's words.
 */
#ifndef OFCD_ELINE_REQ_H
#define OFCD_ELINE_REQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "eline_layout.h"

#define ELINE_IFACE_ID_MAX 32        /* "00:00:00:00:00:00:00:01:65535" and the NUL */
#define ELINE_RANGES_MAX 64

/* A UNI as asked for. */
struct eline_uni_req {
    char interface_id[ELINE_IFACE_ID_MAX];
    struct eline_end at;
    bool has_tag;
    struct eline_vlan vlan;          /* what its flows match (eline_layout.h) */
    uint16_t ranges[ELINE_RANGES_MAX][2];   /* a range value, as given (normalised) */
    unsigned n_ranges;
};

/* The request. The JSON members are borrowed from the body (valid while it
 * is). */
struct eline_req {
    const char *name;
    struct eline_uni_req uni_a, uni_z;
    bool enabled, dynamic_backup_path;
    json_t *primary_path, *backup_path, *primary_links, *backup_links;   /* arrays */
    json_t *primary_constraints, *secondary_constraints, *metadata;     /* objects */
    json_t *circuit_scheduler;                                          /* array */
    const char *start_date, *end_date, *frequency;                      /* NULL: none */
    int sb_priority;                 /* -1: null */
    int service_level;
    int queue_id;                    /* -1: the default (Kytos' -1 and null) */
    int max_paths;
    int64_t bandwidth;
};

/* body (a NewCircuit object) into *out. 0, or -EINVAL with Kytos' message. */
int eline_req_parse(json_t *body, struct eline_req *out, char *err, size_t errlen);

/* A request's start_date, end_date and circuit_scheduler read as they will
 * be run (eline_sched.h): 0, or -EINVAL naming the field. Asked of what a
 * client sends, not of a record read back (one an older ofcd kept stays
 * managed; a schedule that does not read is then not run). */
int eline_req_check_times(const struct eline_req *r, char *err, size_t errlen);

/* A UNI as Kytos shows it: {"interface_id", "tag"?: {"tag_type": "vlan",
 * "value"}}. New reference, NULL when out of memory. */
json_t *eline_uni_json(const struct eline_uni_req *u);

#endif
