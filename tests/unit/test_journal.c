/* ofcd_journal: a log line as journald's native entry, and sent to a
 * datagram socket standing in for journald's. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "ofcd_journal.h"
#include "ofcd_log.h"

static size_t entry(const char *line, char *out, size_t cap)
{
    return ofcd_journal_entry(line, strlen(line), out, cap);
}

static void test_entry(void **state)
{
    (void)state;
    char out[1024];

    assert_true(entry("2026-12-06T15:32:24.342Z WARN  of: switch 00000000000010a0 disconnected "
                      "after 3.0 s: echo timeout", out, sizeof(out)) > 0);
    assert_string_equal(out, "PRIORITY=4\nSYSLOG_IDENTIFIER=ofcd\nOFCD_MODULE=of\n"
                             "OFCD_DPID=00000000000010a0\nMESSAGE=of: switch 00000000000010a0 "
                             "disconnected after 3.0 s: echo timeout\n");
    assert_true(entry("2026-12-06T15:32:24.342Z INFO  main: ofcd ready", out, sizeof(out)) > 0);
    assert_string_equal(out, "PRIORITY=6\nSYSLOG_IDENTIFIER=ofcd\nOFCD_MODULE=main\n"
                             "MESSAGE=main: ofcd ready\n");
    assert_true(entry("2026-12-06T15:32:24.342Z ERROR store: x", out, sizeof(out)) > 0);
    assert_non_null(strstr(out, "PRIORITY=3\n"));
    assert_true(entry("2026-12-06T15:32:24.342Z DEBUG tcp: y", out, sizeof(out)) > 0);
    assert_non_null(strstr(out, "PRIORITY=7\n"));
    /* 15 or 17 hex digits name no switch; the first whole one is taken. */
    assert_true(entry("t INFO ctl: switch 00000000000010a: switch 00000000000010a01 "
                      "switch 0000000000000001: up", out, sizeof(out)) > 0);
    assert_non_null(strstr(out, "OFCD_DPID=0000000000000001\n"));
    /* A newline inside the message stays inside MESSAGE. */
    assert_true(entry("t INFO rest: a\nb", out, sizeof(out)) > 0);
    assert_non_null(strstr(out, "MESSAGE=rest: a b\n"));
    /* Not ofcd_log's form (DPDK's own lines), or too long: as it is. */
    assert_int_equal(entry("EAL: Detected CPU lcores: 2", out, sizeof(out)), 0);
    assert_int_equal(entry("t LOUD x: y", out, sizeof(out)), 0);
    assert_int_equal(entry("t INFO nocolon", out, sizeof(out)), 0);
    assert_int_equal(entry("t INFO main: ofcd ready", out, 20), 0);
}

/* Sent to a socket of the test's: the journal's lines arrive as entries,
 * and with the journal set, stderr gets none of them. */
static void test_send(void **state)
{
    (void)state;
    char dir[] = "/tmp/ofcd-test-journal.XXXXXX", path[96], got[1024];
    struct ofcd_journal j;

    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/socket", dir);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
    int srv = socket(AF_UNIX, SOCK_DGRAM, 0);
    assert_int_equal(bind(srv, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(ofcd_journal_open(&j, path), 0);

    const char line[] = "2026-12-06T15:32:24.342Z INFO  of: switch 0000000000000c71 established";
    assert_int_equal(ofcd_journal_send(&j, line, strlen(line)), 0);
    ssize_t n = recv(srv, got, sizeof(got) - 1, 0);
    assert_true(n > 0);
    got[n] = '\0';
    assert_non_null(strstr(got, "OFCD_DPID=0000000000000c71\n"));

    /* Through ofcd_log itself, stderr to a file: nothing there. */
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    char errf[160];
    snprintf(errf, sizeof(errf), "%s/stderr", dir);
    FILE *f = freopen(errf, "w", stderr);
    assert_non_null(f);
    ofcd_log_set_level(OFCD_LOG_INFO);
    ofcd_log_use_journal(&j);
    ofcd_log(OFCD_LOG_WARN, "flows", "switch %016x: refused", 0xabcu);
    ofcd_log_use_journal(NULL);
    ofcd_log(OFCD_LOG_WARN, "flows", "back on stderr");
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    n = recv(srv, got, sizeof(got) - 1, MSG_DONTWAIT);
    assert_true(n > 0);
    got[n] = '\0';
    assert_non_null(strstr(got, "PRIORITY=4\n"));
    assert_non_null(strstr(got, "OFCD_DPID=0000000000000abc\nMESSAGE=flows: switch "
                                "0000000000000abc: refused\n"));
    assert_true(recv(srv, got, sizeof(got), MSG_DONTWAIT) < 0);
    FILE *e = fopen(errf, "r");
    char text[512] = "";
    size_t r = fread(text, 1, sizeof(text) - 1, e);
    text[r] = '\0';
    fclose(e);
    assert_null(strstr(text, "refused"));
    assert_non_null(strstr(text, "back on stderr"));

    /* journald gone: the line is refused, and ofcd_log writes it to stderr. */
    close(srv);
    unlink(path);
    assert_true(ofcd_journal_send(&j, line, strlen(line)) < 0);
    ofcd_journal_close(&j);
    unlink(errf);
    rmdir(dir);
}

/* JOURNAL_STREAM names stderr's device and inode under systemd: only then. */
static void test_wanted(void **state)
{
    (void)state;
    struct stat st;
    char v[64];

    assert_int_equal(fstat(STDERR_FILENO, &st), 0);
    unsetenv("JOURNAL_STREAM");
    assert_false(ofcd_journal_wanted());
    snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino);
    setenv("JOURNAL_STREAM", v, 1);
    assert_true(ofcd_journal_wanted());
    snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino + 1);
    setenv("JOURNAL_STREAM", v, 1);
    assert_false(ofcd_journal_wanted());
    unsetenv("JOURNAL_STREAM");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entry),
        cmocka_unit_test(test_send),
        cmocka_unit_test(test_wanted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
