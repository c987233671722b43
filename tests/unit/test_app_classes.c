/*
 * test_app_classes: the app class table (app/apps.c, apps/api/app_class.h)
 * as wire.c, control.c and views.c use it: every class is complete, owns
 * config keys the schema knows and is switched by its own apps.* key; the
 * topology and L2 instances fill the worker hooks, lend what the appliance
 * loops over (counters, routes, status, ticks under the view's lock) and
 * free what they made (ASan checks that).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "apps.h"
#include "cfg.h"
#include "of_app.h"
#include "rest.h"
#include "rest_events.h"

struct view_calls {
    unsigned locks, unlocks;
};

static const struct sw_view *fake_lock(void *arg)
{
    ((struct view_calls *)arg)->locks++;
    return NULL;
}

static void fake_unlock(void *arg)
{
    ((struct view_calls *)arg)->unlocks++;
}

static char *help_text(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assert_non_null(f);
    cfg_print_help(f);
    fclose(f);
    return buf;
}

/* Every class: a unique name, create and destroy, its keys in the schema,
 * and apps.<name> switching it on alone. */
static void test_every_class_complete(void **state)
{
    (void)state;
    char *help = help_text();

    assert_true(app_classes_n >= 2);
    for (unsigned i = 0; i < app_classes_n; i++) {
        const struct app_class *c = app_classes[i];
        char key[96], err[256];
        struct ofcd_config cfg;

        assert_non_null(c->name);
        assert_ptr_equal(app_class_find(c->name), c);
        assert_non_null(c->create);
        assert_non_null(c->destroy);
        assert_non_null(c->enabled);
        assert_non_null(c->config_keys);
        for (const char *const *k = c->config_keys; *k; k++) {
            assert_non_null(strchr(*k, '.'));
            /* cfg_print_help lists every key as "  --section.key=". */
            snprintf(key, sizeof(key), "  --%s=", *k);
            if (!strstr(help, key))
                fail_msg("app %s: config key %s is not in the schema", c->name, *k);
        }
        if (c->switched_by)
            snprintf(key, sizeof(key), "%s", c->switched_by);
        else
            snprintf(key, sizeof(key), "apps.%s=true", c->name);
        /* From the defaults with every app off (topology is on by
         * default: the apps a class switches itself are off)... */
        cfg_defaults(&cfg);
        for (unsigned j = 0; j < app_classes_n; j++) {
            char off[96];
            if (app_classes[j]->switched_by)
                continue;
            snprintf(off, sizeof(off), "apps.%s=false", app_classes[j]->name);
            assert_int_equal(cfg_apply_override(&cfg, off, err, sizeof(err)), 0);
        }
        for (unsigned j = 0; j < app_classes_n; j++)
            assert_false(app_classes[j]->enabled(&cfg));
        /* ...its own key turns on that one alone. */
        assert_int_equal(cfg_apply_override(&cfg, key, err, sizeof(err)), 0);
        for (unsigned j = 0; j < app_classes_n; j++)
            assert_int_equal(app_classes[j]->enabled(&cfg), j == i);
    }
    assert_null(app_class_find("no-such-app"));
    free(help);
}

struct seen_groups {
    char names[8][32];
    unsigned n;
};

static void collect(void *arg, const struct ofcd_counter_group *g, const char *labels,
                    const uint64_t *values)
{
    struct seen_groups *s = arg;

    (void)labels;
    (void)values;
    if (s->n < 8)
        snprintf(s->names[s->n++], sizeof(s->names[0]), "%s", g->name);
}

/* The topology instance as the appliance drives it. */
static void test_topology_instance(void **state)
{
    (void)state;
    struct ofcd_config cfg;
    struct view_calls calls = {0};
    char dir[] = "/tmp/test_app_classes.XXXXXX";
    const struct app_class *c = app_class_find("topology");
    struct of_app hooks = {0};
    void *self = NULL;

    assert_non_null(c);
    assert_non_null(mkdtemp(dir));
    cfg_defaults(&cfg);
    assert_true(c->enabled(&cfg));      /* on by default, as Kytos-ng's */
    snprintf(cfg.data_dir, sizeof(cfg.data_dir), "%s", dir);
    struct rest_events *stream = rest_events_create(4, 65536);
    assert_non_null(stream);
    struct app_host host = {.cfg = &cfg, .stream = stream, .view_arg = &calls,
                            .view_lock = fake_lock, .view_unlock = fake_unlock};

    assert_int_equal(c->create(&host, 0, &hooks, &self), 0);
    assert_non_null(self);
    assert_string_equal(hooks.name, "topology");
    assert_non_null(hooks.on_packet_in);
    assert_non_null(hooks.on_tick);
    /* No store lent: nothing to read back, and a switch up asks for none. */
    assert_int_equal(c->load(self), 0);

    struct seen_groups seen = {0};
    c->counters(self, collect, &seen);
    assert_int_equal(seen.n, 2);
    assert_string_equal(seen.names[0], "topology");
    assert_string_equal(seen.names[1], "topology_lldp");
    assert_int_equal(calls.locks, 1);
    assert_int_equal(calls.unlocks, 1);

    c->on_tick(self, 1000000);
    assert_int_equal(calls.locks, 2);
    assert_int_equal(calls.unlocks, 2);

    const struct rest_ext *ext[REST_EXT_MAX];
    assert_int_equal(c->routes(self, ext, REST_EXT_MAX), 4);  /* topology, of_lldp, ofcd's, pathfinder */
    assert_string_equal(ext[3]->prefix, "/api/kytos/pathfinder/v3");
    assert_int_equal(c->routes(self, ext, 2), 2);

    char line[160];
    c->status(self, line, sizeof(line));
    assert_non_null(strstr(line, "0 links known"));
    assert_non_null(strstr(line, "LLDP every 3000 ms"));
    c->destroy(self);
    rest_events_destroy(stream);
    rmdir(dir);
}

/* The learning switch: hooks with its cookie, its table size in status. */
static void test_l2_instance(void **state)
{
    (void)state;
    struct ofcd_config cfg;
    const struct app_class *c = app_class_find("l2_learning");
    struct of_app hooks = {0};
    void *self = NULL;
    char err[256], line[160];

    assert_non_null(c);
    cfg_defaults(&cfg);
    assert_int_equal(cfg_apply_override(&cfg, "apps.l2_table_size=512", err, sizeof(err)), 0);
    struct app_host host = {.cfg = &cfg};
    assert_int_equal(c->create(&host, 1, &hooks, &self), 0);
    assert_string_equal(hooks.name, "l2_learning");
    assert_non_null(hooks.on_switch_up);
    assert_true(hooks.cookies.lo <= hooks.cookies.hi);
    c->status(self, line, sizeof(line));
    assert_non_null(strstr(line, "512 MAC entries"));
    c->destroy(self);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_class_complete),
        cmocka_unit_test(test_topology_instance),
        cmocka_unit_test(test_l2_instance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
