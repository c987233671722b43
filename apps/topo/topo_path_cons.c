/* topo_path_cons: see topo_path_cons.h. */
#include "topo_path_cons.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST_TEXT "1024"

/* The bounds Kytos' Attributes schema puts on each number (inclusive). */
static const struct {
    const char *name;
    double lo, hi;
} metric_bounds[] = {
    {"bandwidth", 0.1, INFINITY}, {"utilization", 0, 100}, {"priority", 0, INFINITY},
    {"reliability", 1, 100},      {"delay", 0.1, INFINITY},
};

struct reader {
    const char *prefix;
    char *err;
    size_t errlen;
};

static int invalid(const struct reader *rd, const char *field, const char *fmt, ...)
{
    char why[160];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    snprintf(rd->err, rd->errlen, "%s%s: %s", rd->prefix, field, why);
    return -EINVAL;
}

/* x, the value of field: a number (an integer when integer) in [lo, hi]. */
static int number_value(const struct reader *rd, const json_t *x, const char *field, double lo,
                        double hi, bool integer, double *v)
{
    if (integer ? !json_is_integer(x) : !json_is_number(x))
        return invalid(rd, field, integer ? "not of type 'integer'" : "not of type 'number'");
    *v = json_number_value(x);
    if (*v < lo)
        return invalid(rd, field, "%g is less than the minimum of %g", *v, lo);
    if (*v > hi)
        return invalid(rd, field, "%g is greater than the maximum of %g", *v, hi);
    return 0;
}

static int number_field(const struct reader *rd, json_t *obj, const char *key, double lo,
                        double hi, bool integer, bool *given, double *v)
{
    json_t *x = json_object_get(obj, key);

    *given = x != NULL;
    return x ? number_value(rd, x, key, lo, hi, integer, v) : 0;
}

/* One metric of mandatory_metrics or flexible_metrics. */
static int metric(const struct reader *rd, struct topo_path_cons *c, const char *obj,
                  const char *key, json_t *v, struct path_constraint *pc)
{
    char field[128];

    snprintf(field, sizeof(field), "%s.%s", obj, key);
    path_constraint_kind(key, pc);
    if (pc->kind == PATH_CONS_OWNER) {
        if (!json_is_string(v))
            return invalid(rd, field, "not of type 'string'");
        pc->owner = json_string_value(v);
    } else if (pc->kind == PATH_CONS_NOT_OWNER) {
        size_t i;
        json_t *x;
        if (!json_is_array(v))
            return invalid(rd, field, "not of type 'array'");
        if (json_array_size(v) > TOPO_PATH_CONS_MAX_LIST)
            return invalid(rd, field, "at most " MAX_LIST_TEXT " names");
        pc->names = c->names + c->n_names;
        json_array_foreach(v, i, x) {
            if (!json_is_string(x))
                return invalid(rd, field, "an item is not of type 'string'");
            c->names[c->n_names++] = json_string_value(x);
        }
        pc->n_names = json_array_size(v);
    } else if (pc->kind != PATH_CONS_NONE) {
        for (size_t i = 0; i < sizeof(metric_bounds) / sizeof(metric_bounds[0]); i++)
            if (strcmp(metric_bounds[i].name, key) == 0)
                return number_value(rd, v, field, metric_bounds[i].lo, metric_bounds[i].hi,
                                    false, &pc->v);
    }
    return 0;
}

static int metrics(const struct reader *rd, struct topo_path_cons *c, json_t *obj,
                   const char *key, json_t **m, struct path_constraint *cs, const char **names,
                   size_t max, size_t *n)
{
    const char *k;
    json_t *v;

    *m = json_object_get(obj, key);
    if (!*m)
        return 0;
    if (!json_is_object(*m))
        return invalid(rd, key, "not of type 'object'");
    if (json_object_size(*m) > max)
        return invalid(rd, key, "at most %zu metrics are weighed", max);
    json_object_foreach(*m, k, v) {
        int rc = metric(rd, c, key, k, v, &cs[*n]);
        if (rc)
            return rc;
        if (names)
            names[*n] = k;
        (*n)++;
    }
    return 0;
}

static int spf_attribute(const struct reader *rd, json_t *obj, int *weight)
{
    json_t *a = json_object_get(obj, "spf_attribute");
    const char *s = json_string_value(a);

    *weight = PATH_KSP_HOP;
    if (!a || json_is_null(a))
        return 0;
    if (!json_is_string(a))
        return invalid(rd, "spf_attribute", "not of type 'string'");
    if (strcmp(s, "delay") == 0)
        *weight = PATH_DELAY;
    else if (strcmp(s, "priority") == 0)
        *weight = PATH_PRIORITY;
    else if (strcmp(s, "hop") != 0)
        return invalid(rd, "spf_attribute", "'%.64s' is not one of ['hop', 'delay', 'priority']",
                       s);
    return 0;
}

static int undesired_links(const struct reader *rd, json_t *obj, json_t **out)
{
    size_t i;
    json_t *x, *u = json_object_get(obj, "undesired_links");

    *out = NULL;
    if (!u)
        return 0;
    if (!json_is_array(u))
        return invalid(rd, "undesired_links", "not of type 'array'");
    /* Each is looked up among the links: bounded, so one body cannot hold
     * a thread for seconds. */
    if (json_array_size(u) > TOPO_PATH_CONS_MAX_LIST)
        return invalid(rd, "undesired_links", "at most " MAX_LIST_TEXT " link ids");
    json_array_foreach(u, i, x)
        if (!json_is_string(x))
            return invalid(rd, "undesired_links", "an item is not of type 'string'");
    *out = u;
    return 0;
}

int topo_path_cons_read(json_t *obj, const char *prefix, struct topo_path_cons *c, char *err,
                        size_t errlen)
{
    struct reader rd = {prefix ? prefix : "", err, errlen};
    size_t n_names = 0;
    bool given;
    double v;
    int rc;

    memset(c, 0, sizeof(*c));
    c->weight = PATH_KSP_HOP;
    if (!obj)
        return 0;
    if (!json_is_object(obj))
        return invalid(&rd, "", "not of type 'object'");
    if ((rc = spf_attribute(&rd, obj, &c->weight)) ||
        (rc = number_field(&rd, obj, "spf_max_path_cost", 1, INFINITY, false, &c->has_max_cost,
                           &c->max_cost)) ||
        (rc = number_field(&rd, obj, "minimum_flexible_hits", 0, 6, true, &given, &v)) ||
        (rc = undesired_links(&rd, obj, &c->undesired)))
        return rc;
    c->min_hits = given ? (unsigned)v : 0;
    /* not_ownership names of both objects, pointing into obj */
    const char *k;
    json_t *m;
    for (unsigned o = 0; o < 2; o++)
        json_object_foreach(json_object_get(obj, o ? "flexible_metrics" : "mandatory_metrics"),
                            k, m)
            n_names += json_is_array(m) ? json_array_size(m) : 0;
    if (!(c->names = malloc((n_names + 1) * sizeof(*c->names))))
        return -ENOMEM;
    if ((rc = metrics(&rd, c, obj, "mandatory_metrics", &c->mandatory, c->mand, NULL,
                      TOPO_PATH_CONS_MAX_MANDATORY, &c->n_mand)))
        return rc;
    return metrics(&rd, c, obj, "flexible_metrics", &c->flexible, c->flex, c->flex_name,
                   PATH_QUERY_MAX_FLEX, &c->n_flex);
}

void topo_path_cons_free(struct topo_path_cons *c)
{
    free(c->names);
    c->names = NULL;
}
