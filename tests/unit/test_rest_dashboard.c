/*
 * test_rest_dashboard: what the dashboard's server side promises, without a
 * server: the history's ring keeps the last 15 minutes in order and answers
 * "since"; a percentile of a histogram's difference is the bucket's upper
 * bound (never below the truth), unknown when nothing happened; unknown
 * values are null in the JSON. The dashboard's files load from a folder
 * only by plain names, no link or subfolder followed; a path reaches a file
 * of that table only.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rest_history.h"
#include "rest_ui.h"

/* ---- history ------------------------------------------------------------------- */

static struct rest_history_sample at(int64_t t)
{
    return (struct rest_history_sample){.t_ms = t, .switches_up = t / 1000, .links_up = -1,
                                        .rest_rps = -1, .echo_p99_ms = 2.5};
}

static void test_ring_keeps_the_last_in_order(void **state)
{
    static struct rest_history_ring r;
    static struct rest_history_sample out[REST_HISTORY_SAMPLES];

    (void)state;
    memset(&r, 0, sizeof(r));
    assert_int_equal(rest_history_since(&r, -1, out), 0);
    for (int i = 1; i <= REST_HISTORY_SAMPLES + 20; i++) {
        struct rest_history_sample s = at(i * 5000);
        rest_history_push(&r, &s);
    }
    unsigned n = rest_history_since(&r, -1, out);
    assert_int_equal(n, REST_HISTORY_SAMPLES);
    assert_int_equal(out[0].t_ms, 21 * 5000);              /* the 20 oldest are gone */
    for (unsigned i = 1; i < n; i++)
        assert_int_equal(out[i].t_ms, out[i - 1].t_ms + 5000);
    /* since: only the newer ones, none when since is the newest */
    n = rest_history_since(&r, (REST_HISTORY_SAMPLES + 18) * 5000, out);
    assert_int_equal(n, 2);
    assert_int_equal(out[1].t_ms, (REST_HISTORY_SAMPLES + 20) * 5000);
    assert_int_equal(rest_history_since(&r, (REST_HISTORY_SAMPLES + 20) * 5000, out), 0);
}

static void test_quantile_is_the_bucket_bound(void **state)
{
    const double upper[4] = {1, 2.5, 5, 10};
    uint64_t prev[4] = {100, 0, 0, 7};
    uint64_t now[4] = {190, 9, 0, 8};     /* this interval: 90 in <=1, 9 in <=2.5, 1 in <=10 */

    (void)state;
    assert_true(rest_history_quantile(now, prev, 4, upper, 0.5) == 1);
    assert_true(rest_history_quantile(now, prev, 4, upper, 0.9) == 1);
    assert_true(rest_history_quantile(now, prev, 4, upper, 0.95) == 2.5);
    assert_true(rest_history_quantile(now, prev, 4, upper, 0.99) == 2.5);
    assert_true(rest_history_quantile(now, prev, 4, upper, 0.999) == 10);
    /* Without prev, everything since the start counts: the 8 slow ones
     * of 207 push the p99 into the last bucket. */
    assert_true(rest_history_quantile(now, NULL, 4, upper, 0.99) == 10);
    /* Nothing happened: unknown, not 0. */
    assert_true(rest_history_quantile(prev, prev, 4, upper, 0.99) == -1);
}

static void test_json_columns_and_nulls(void **state)
{
    struct rest_history_sample v[2] = {at(5000), at(10000)};
    struct rest_history_sample now = at(12000);

    (void)state;
    v[1].rest_rps = 12.5;
    json_t *o = rest_history_json(v, 2, &now);
    assert_non_null(o);
    assert_int_equal(json_integer_value(json_object_get(o, "interval_s")), 5);
    assert_int_equal(json_array_size(json_object_get(o, "t")), 2);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(o, "t"), 1)), 10000);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(o, "switches_up"), 0)), 5);
    assert_true(json_is_null(json_array_get(json_object_get(o, "links_up"), 0)));
    assert_true(json_is_null(json_array_get(json_object_get(o, "rest_rps"), 0)));
    assert_true(json_real_value(json_array_get(json_object_get(o, "rest_rps"), 1)) == 12.5);
    json_t *n = json_object_get(o, "now");
    assert_int_equal(json_integer_value(json_object_get(n, "switches_up")), 12);
    assert_null(json_object_get(n, "rest_rps"));          /* rates are not gauges */
    json_decref(o);
}

/* ---- the dashboard's files -------------------------------------------------------- */

static void put(const char *dir, const char *name, const char *text)
{
    char p[600];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_ui_loads_plain_files_only(void **state)
{
    char dir[] = "/tmp/ofcd-test-ui.XXXXXX", p[300], err[256];
    static struct rest_ui ui;

    (void)state;
    assert_non_null(mkdtemp(dir));
    assert_int_equal(rest_ui_load(&ui, dir, err, sizeof(err)), -ENOENT);   /* no index.html */
    assert_non_null(strstr(err, "index.html"));
    put(dir, "index.html", "<html>");
    put(dir, "app.js", "x()");
    put(dir, ".hidden", "secret");
    snprintf(p, sizeof(p), "%s/sub", dir);
    assert_int_equal(mkdir(p, 0700), 0);
    put(p, "inner.js", "no");
    snprintf(p, sizeof(p), "%s/link.js", dir);
    assert_int_equal(symlink("/etc/passwd", p), 0);
    assert_int_equal(rest_ui_load(&ui, dir, err, sizeof(err)), 0);
    assert_int_equal(ui.n, 2);
    const struct rest_ui_file *f = rest_ui_find(&ui, "app.js");
    assert_non_null(f);
    assert_int_equal(f->len, 3);
    assert_memory_equal(f->data, "x()", 3);
    assert_string_equal(f->type, "text/javascript; charset=utf-8");
    assert_string_equal(rest_ui_find(&ui, "index.html")->type, "text/html; charset=utf-8");
    assert_null(rest_ui_find(&ui, ".hidden"));
    assert_null(rest_ui_find(&ui, "link.js"));
    assert_null(rest_ui_find(&ui, "sub"));
    assert_null(rest_ui_find(&ui, "../index.html"));
    rest_ui_free(&ui);
    assert_int_equal(ui.n, 0);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_ui_routes(void **state)
{
    const char *name = NULL;

    (void)state;
    assert_int_equal(rest_ui_route("/", &name), REST_UI_REDIRECT);
    assert_int_equal(rest_ui_route("/ui", &name), REST_UI_REDIRECT);
    assert_int_equal(rest_ui_route("/ui/", &name), REST_UI_FILE);
    assert_string_equal(name, "index.html");
    assert_int_equal(rest_ui_route("/ui/app.js", &name), REST_UI_FILE);
    assert_string_equal(name, "app.js");
    assert_int_equal(rest_ui_route("/uix", &name), REST_UI_NONE);
    assert_int_equal(rest_ui_route("/api/v1/health", &name), REST_UI_NONE);
    assert_string_equal(rest_ui_type("a.css"), "text/css; charset=utf-8");
    assert_string_equal(rest_ui_type("a"), "application/octet-stream");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_keeps_the_last_in_order),
        cmocka_unit_test(test_quantile_is_the_bucket_bound),
        cmocka_unit_test(test_json_columns_and_nulls),
        cmocka_unit_test(test_ui_loads_plain_files_only),
        cmocka_unit_test(test_ui_routes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
