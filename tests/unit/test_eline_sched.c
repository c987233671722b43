/*
 * test_eline_sched: an EVC's schedules (eline_sched.h) — what is accepted
 * and refused, naming the field, and when each kind fires next: a date
 * once, an interval from the EVC's start or creation, a crontab as Kytos'
 * scheduler reads it (days of week from Monday, every field matching),
 * bounded by start and end; the last firing of a window (the order of
 * firings found together).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "eline_sched.h"

/* 2026-12-07T00:00:00Z, a Monday. */
#define MON 1796601600ll
#define DAY 86400ll

static int parse(const char *text, struct eline_sched *s, char *err)
{
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    if (!j)
        fail_msg("bad test JSON %s: %s", text, je.text);
    int rc = eline_sched_parse(j, "circuit_scheduler[0]", s, err, 256);
    json_decref(j);
    return rc;
}

static void refused(const char *text, const char *want)
{
    struct eline_sched s;
    char err[256] = "";
    assert_int_equal(parse(text, &s, err), -EINVAL);
    if (!strstr(err, want))
        fail_msg("%s: got '%s', want '%s'", text, err, want);
}

static void test_times(void **state)
{
    (void)state;
    int64_t t;
    assert_int_equal(eline_sched_time("2026-12-07T00:00:00", &t), 0);
    assert_true(t == MON);
    assert_int_equal(eline_sched_time("2026-12-07T14:52:10.967Z", &t), 0);
    assert_true(t == MON + 14 * 3600 + 52 * 60 + 10);
    assert_int_equal(eline_sched_time("2026-12-07T00:00:00+00:00", &t), 0);
    assert_int_equal(eline_sched_time("2026-02-30T00:00:00", &t), -EINVAL);
    assert_int_equal(eline_sched_time("2026-12-07 00:00:00", &t), -EINVAL);
    assert_int_equal(eline_sched_time("2026-12-07T02:00:00+02:00", &t), 0);  /* an offset */
    assert_true(t == MON);
    assert_int_equal(eline_sched_time("2026-12-06T21:00:00-0300", &t), 0);   /* Kytos' +HHMM */
    assert_true(t == MON);
    assert_int_equal(eline_sched_time("2026-12-07T00:00:00+2", &t), -EINVAL);
    assert_int_equal(eline_sched_time("2026-+1-07T00:00:00", &t), -EINVAL);
    assert_int_equal(eline_sched_time(NULL, &t), -EINVAL);
}

static void test_parse_and_refusals(void **state)
{
    (void)state;
    struct eline_sched s;
    char err[256];

    assert_int_equal(parse("{\"date\": \"2026-12-07T10:00:00\"}", &s, err), 0);
    assert_int_equal(s.kind, ELINE_SCHED_DATE);
    assert_int_equal(s.action, ELINE_SCHED_CREATE);           /* Kytos' default */
    assert_string_equal(s.id, "");
    assert_int_equal(parse("{\"id\": \"a1\", \"action\": \"remove\", \"interval\": "
                           "{\"hours\": 1, \"minutes\": 30}}", &s, err), 0);
    assert_int_equal(s.kind, ELINE_SCHED_INTERVAL);
    assert_int_equal(s.action, ELINE_SCHED_REMOVE);
    assert_string_equal(s.id, "a1");
    assert_true(s.every == 5400);
    assert_int_equal(parse("{\"frequency\": \"*/15 8-18 * jan-mar,12 mon-fri\"}", &s, err), 0);
    assert_int_equal(s.kind, ELINE_SCHED_CRON);
    assert_true(s.cron.minute == (1ull | 1ull << 15 | 1ull << 30 | 1ull << 45));
    assert_int_equal(s.cron.month, 1 << 1 | 1 << 2 | 1 << 3 | 1 << 12);
    assert_int_equal(s.cron.dow, 0x1f);
    assert_int_equal(parse("{\"frequency\": \"5/15 * * * *\"}", &s, err), 0);   /* 5 to 59 */
    assert_true(s.cron.minute == (1ull << 5 | 1ull << 20 | 1ull << 35 | 1ull << 50));

    refused("{\"action\": \"remove\"}", "circuit_scheduler[0].date: exactly one of");
    refused("{\"date\": \"2026-12-07T10:00:00\", \"frequency\": \"* * * * *\"}", "exactly one");
    refused("{\"action\": \"start\", \"date\": \"2026-12-07T10:00:00\"}",
            "circuit_scheduler[0].action: 'create' or 'remove'");
    refused("{\"date\": \"tomorrow\"}", "circuit_scheduler[0].date: an ISO 8601 time");
    refused("{\"interval\": {\"hours\": -1}}", "circuit_scheduler[0].interval: hours");
    refused("{\"interval\": {\"fortnights\": 1}}", "'fortnights' is not one of");
    refused("{\"interval\": {\"seconds\": 0}}", "at least one second");
    refused("{\"interval\": \"1h\"}", "an object of weeks");
    refused("{\"frequency\": \"* * * *\"}", "circuit_scheduler[0].frequency: a crontab line has 5");
    refused("{\"frequency\": \"* * * * * *\"}", "not more");
    refused("{\"frequency\": \"61 * * * *\"}", "'61' is not a minute");
    refused("{\"frequency\": \"* * * * sunday-x\"}", "is not a day_of_week");
    refused("{\"frequency\": \"*/0 * * * *\"}", "is not a minute");
    /* A step past the field's range, as APScheduler refuses it. */
    refused("{\"frequency\": \"*/60 * * * *\"}",
            "'*/60': a step of the minute past its range (at most 59)");
    refused("{\"frequency\": \"0 */24 * * *\"}", "a step of the hour past its range (at most 23)");
    refused("{\"frequency\": \"10-20/15 * * * *\"}", "(at most 10)");
    refused("{\"frequency\": \"50/20 * * * *\"}", "(at most 9)");
    assert_int_equal(parse("{\"frequency\": \"10-20/10 * * * *\"}", &s, err), 0);
    assert_true(s.cron.minute == (1ull << 10 | 1ull << 20));
    assert_int_equal(parse("{\"frequency\": \"*/59 * * * *\"}", &s, err), 0);
    assert_true(s.cron.minute == (1ull | 1ull << 59));
    refused("{\"frequency\": \"5-2 * * * *\"}", "is not a minute");
    refused("{\"frequency\": 5}", "a crontab line as text");
    refused("{\"id\": \"\", \"date\": \"2026-12-07T10:00:00\"}", "circuit_scheduler[0].id");
    refused("{\"when\": 1}", "circuit_scheduler[0].when: not a schedule's field");
    refused("[]", "circuit_scheduler[0]: a schedule object");
}

static void test_next_date_and_interval(void **state)
{
    (void)state;
    struct eline_sched s;
    char err[256];

    assert_int_equal(parse("{\"date\": \"2026-12-07T10:00:00Z\"}", &s, err), 0);
    assert_true(eline_sched_next(&s, MON, 0, 0, MON) == MON + 36000);
    assert_true(eline_sched_next(&s, MON + 36000, 0, 0, MON) == -1);   /* once */

    assert_int_equal(parse("{\"interval\": {\"minutes\": 10}}", &s, err), 0);
    /* No start: from the creation plus one interval, then every 10 minutes. */
    assert_true(eline_sched_next(&s, MON, 0, 0, MON) == MON + 600);
    assert_true(eline_sched_next(&s, MON + 600, 0, 0, MON) == MON + 1200);
    assert_true(eline_sched_next(&s, MON + 1234, 0, 0, MON) == MON + 1800);
    /* A start: from it (fired at it), and nothing past the end. */
    assert_true(eline_sched_next(&s, MON, MON + 5, 0, MON) == MON + 5);
    assert_true(eline_sched_next(&s, MON + 5, MON + 5, MON + 700, MON) == MON + 605);
    assert_true(eline_sched_next(&s, MON + 605, MON + 5, MON + 700, MON) == -1);
}

static void test_next_cron(void **state)
{
    (void)state;
    struct eline_sched s;
    char err[256];

    /* Every 15 minutes: the next quarter, never the minute asked at. */
    assert_int_equal(parse("{\"frequency\": \"*/15 * * * *\"}", &s, err), 0);
    assert_true(eline_sched_next(&s, MON, 0, 0, 0) == MON + 900);
    assert_true(eline_sched_next(&s, MON + 901, 0, 0, 0) == MON + 1800);
    /* 08:30 on weekdays, 0 being Monday as Kytos' scheduler counts. */
    assert_int_equal(parse("{\"frequency\": \"30 8 * * 0\"}", &s, err), 0);
    assert_true(eline_sched_next(&s, MON, 0, 0, 0) == MON + 8 * 3600 + 1800);
    assert_true(eline_sched_next(&s, MON + 9 * 3600, 0, 0, 0) == MON + 7 * DAY + 8 * 3600 + 1800);
    assert_int_equal(parse("{\"frequency\": \"0 0 * * sat,sun\"}", &s, err), 0);
    assert_true(eline_sched_next(&s, MON, 0, 0, 0) == MON + 5 * DAY);
    /* Day and day of week both: only a day that is both (the 1st of a
     * month that is a Monday: 2027-02-01). */
    assert_int_equal(parse("{\"frequency\": \"0 12 1 * mon\"}", &s, err), 0);
    int64_t feb1;
    assert_int_equal(eline_sched_time("2027-02-01T12:00:00", &feb1), 0);
    assert_true(eline_sched_next(&s, MON, 0, 0, 0) == feb1);
    /* New year, across the month and year. */
    assert_int_equal(parse("{\"frequency\": \"0 0 1 jan *\"}", &s, err), 0);
    int64_t jan1;
    assert_int_equal(eline_sched_time("2027-01-01T00:00:00", &jan1), 0);
    assert_true(eline_sched_next(&s, MON, 0, 0, 0) == jan1);
    /* A day that comes once in 28 years is found (eight years were looked
     * at before: none); one that never comes is refused. */
    assert_int_equal(parse("{\"frequency\": \"0 0 29 feb mon\"}", &s, err), 0);
    int64_t leap;
    assert_int_equal(eline_sched_time("2044-02-29T00:00:00", &leap), 0);
    assert_true(eline_sched_next(&s, MON, 0, 0, 0) == leap);
    refused("{\"frequency\": \"0 0 31 feb *\"}", "'0 0 31 feb *' matches no date");
    refused("{\"frequency\": \"0 0 31 4,6,9,11 *\"}", "matches no date");
    /* Bounded: from the start, and not past the end. */
    assert_int_equal(parse("{\"frequency\": \"0 * * * *\"}", &s, err), 0);
    assert_true(eline_sched_next(&s, MON, MON + DAY, 0, 0) == MON + DAY);
    assert_true(eline_sched_next(&s, MON, 0, MON + 1800, 0) == -1);
}

/* The last firing of a window: what firings seen together are ordered by. */
static void test_last_in_window(void **state)
{
    (void)state;
    struct eline_sched s;
    char err[256];

    assert_int_equal(parse("{\"interval\": {\"minutes\": 10}}", &s, err), 0);
    assert_true(eline_sched_last(&s, MON, MON + 1900, 0, 0, MON) == MON + 1800);
    assert_true(eline_sched_last(&s, MON, MON + 1800, 0, 0, MON) == MON + 1800);
    assert_true(eline_sched_last(&s, MON, MON + 599, 0, 0, MON) == -1);
    /* Not past the end: the last before it. */
    assert_true(eline_sched_last(&s, MON, MON + 1900, 0, MON + 1700, MON) == MON + 1200);
    assert_true(eline_sched_last(&s, MON, MON + 1900, 0, MON + 1800, MON) == MON + 1800);
    assert_int_equal(parse("{\"frequency\": \"*/15 * * * *\"}", &s, err), 0);
    assert_true(eline_sched_last(&s, MON, MON + 2000, 0, 0, 0) == MON + 1800);
    assert_true(eline_sched_last(&s, MON, MON + 899, 0, 0, 0) == -1);
    assert_int_equal(parse("{\"date\": \"2026-12-07T00:10:00Z\"}", &s, err), 0);
    assert_true(eline_sched_last(&s, MON, MON + 3600, 0, 0, 0) == MON + 600);
    assert_true(eline_sched_last(&s, MON + 600, MON + 3600, 0, 0, 0) == -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_times),
        cmocka_unit_test(test_parse_and_refusals),
        cmocka_unit_test(test_next_date_and_interval),
        cmocka_unit_test(test_next_cron),
        cmocka_unit_test(test_last_in_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
