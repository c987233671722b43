/*
 * topo_path_cons: pathfinder's constraints read from JSON, as Kytos-ng
 * gives them — in POST /api/kytos/pathfinder/v3/'s body, and as an EVC's
 * primary_constraints and secondary_constraints (mef_eline's
 * PathConstraints): spf_attribute (hop, delay, priority),
 * spf_max_path_cost, mandatory_metrics, flexible_metrics,
 * minimum_flexible_hits, undesired_links. Checked as Kytos' schema checks
 * them; each metric becomes a path_constraint (apps/path/path_query.h).
 *
 * A null spf_attribute reads as none (mef_eline's model allows it;
 * pathfinder's route refuses it before). Pure. The JSON object read must
 * outlive the struct (names and the metric objects point into it).
 */
#ifndef OFCD_TOPO_PATH_CONS_H
#define OFCD_TOPO_PATH_CONS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "path_query.h"

/* undesired_links, and each not_ownership: at most this many (Kytos: no bound). */
#define TOPO_PATH_CONS_MAX_LIST 1024
#define TOPO_PATH_CONS_MAX_MANDATORY 16

struct topo_path_cons {
    int weight;                     /* PATH_KSP_HOP (the default), PATH_DELAY, PATH_PRIORITY */
    bool has_max_cost;
    double max_cost;
    json_t *undesired;              /* an array of link ids, or NULL */
    json_t *mandatory, *flexible;   /* the metric objects, or NULL */
    unsigned min_hits;
    struct path_constraint mand[TOPO_PATH_CONS_MAX_MANDATORY], flex[PATH_QUERY_MAX_FLEX];
    const char *flex_name[PATH_QUERY_MAX_FLEX];
    size_t n_mand, n_flex;
    const char **names;             /* not_ownership lists, pointing into the object */
    size_t n_names;
};

/*
 * The constraints of obj (NULL or an empty object: none) into c. 0;
 * -EINVAL with err (errlen bytes) "FIELD: why", FIELD prefixed with
 * prefix ("primary_constraints." or ""), in the words of Kytos' schema
 * ("not of type 'string'", "5 is greater than the maximum of 4");
 * -ENOMEM. topo_path_cons_free after either.
 */
int topo_path_cons_read(json_t *obj, const char *prefix, struct topo_path_cons *c, char *err,
                        size_t errlen);
void topo_path_cons_free(struct topo_path_cons *c);

#endif
