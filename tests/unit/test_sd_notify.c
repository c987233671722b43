/* Unit tests of ofcd_sd_notify: the messages reach the socket $NOTIFY_SOCKET
 * names (a path, or '@' an abstract name); without it, or with a name that
 * is no socket's, nothing is sent and nothing fails; the watchdog's
 * keep-alive is due every half of $WATCHDOG_USEC, only for the process
 * $WATCHDOG_PID names (time passed in). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ofcd_sd_notify.h"

/* A datagram socket at name (a path, or '@' abstract), as systemd's. */
static int listener(const char *name)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    size_t len = strlen(name);
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);

    assert_true(fd >= 0);
    memcpy(a.sun_path, name, len);
    if (name[0] == '@')
        a.sun_path[0] = '\0';
    socklen_t al = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
                               (name[0] == '@' ? 0 : 1));
    assert_int_equal(bind(fd, (struct sockaddr *)&a, al), 0);
    return fd;
}

/* The next message, or "" when none is waiting. */
static void next_msg(int fd, char *buf, size_t cap)
{
    ssize_t n = recv(fd, buf, cap - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
}

static void test_path_and_abstract(void **state)
{
    (void)state;
    char path[64], abstract[64], buf[600], err[256];
    struct ofcd_sd_notify n;

    snprintf(path, sizeof(path), "/tmp/ofcd-sd-notify-%d.sock", (int)getpid());
    unlink(path);
    int fd = listener(path);
    setenv("NOTIFY_SOCKET", path, 1);
    assert_int_equal(ofcd_sd_notify_init(&n, err, sizeof(err)), 0);
    assert_true(n.on);
    assert_int_equal(ofcd_sd_notify_send(&n, "READY=1\nSTATUS=ready: %s", "10.0.0.2"), 0);
    next_msg(fd, buf, sizeof(buf));
    assert_string_equal(buf, "READY=1\nSTATUS=ready: 10.0.0.2");
    /* A long STATUS is cut, not lost. */
    char long_text[700];
    memset(long_text, 'x', sizeof(long_text) - 1);
    long_text[sizeof(long_text) - 1] = '\0';
    assert_int_equal(ofcd_sd_notify_send(&n, "STATUS=%s", long_text), 0);
    next_msg(fd, buf, sizeof(buf));
    assert_int_equal(strlen(buf), 511);
    close(fd);
    unlink(path);

    snprintf(abstract, sizeof(abstract), "@ofcd-sd-notify-%d", (int)getpid());
    fd = listener(abstract);
    setenv("NOTIFY_SOCKET", abstract, 1);
    assert_int_equal(ofcd_sd_notify_init(&n, err, sizeof(err)), 0);
    assert_int_equal(ofcd_sd_notify_send(&n, "STOPPING=1"), 0);
    next_msg(fd, buf, sizeof(buf));
    assert_string_equal(buf, "STOPPING=1");
    close(fd);
    unsetenv("NOTIFY_SOCKET");
}

static void test_off(void **state)
{
    (void)state;
    char err[256] = "";
    struct ofcd_sd_notify n;

    unsetenv("NOTIFY_SOCKET");
    assert_int_equal(ofcd_sd_notify_init(&n, err, sizeof(err)), 0);
    assert_false(n.on);
    assert_int_equal(ofcd_sd_notify_send(&n, "READY=1"), 0);
    /* Not a path nor an abstract name: said, and off. */
    setenv("NOTIFY_SOCKET", "relative/notify", 1);
    assert_int_equal(ofcd_sd_notify_init(&n, err, sizeof(err)), -EINVAL);
    assert_false(n.on);
    assert_non_null(strstr(err, "relative/notify"));
    assert_int_equal(ofcd_sd_notify_send(&n, "READY=1"), 0);
    unsetenv("NOTIFY_SOCKET");
}

static void test_watchdog(void **state)
{
    (void)state;
    char path[64], buf[64], err[256], pid[16];
    struct ofcd_sd_notify n;

    snprintf(path, sizeof(path), "/tmp/ofcd-sd-wd-%d.sock", (int)getpid());
    unlink(path);
    int fd = listener(path);
    setenv("NOTIFY_SOCKET", path, 1);
    setenv("WATCHDOG_USEC", "2000000", 1);
    snprintf(pid, sizeof(pid), "%d", (int)getpid());
    setenv("WATCHDOG_PID", pid, 1);
    assert_int_equal(ofcd_sd_notify_init(&n, err, sizeof(err)), 0);
    assert_int_equal(n.watchdog_ms, 2000);
    ofcd_sd_notify_watchdog(&n, 10000);
    next_msg(fd, buf, sizeof(buf));
    assert_string_equal(buf, "WATCHDOG=1");
    ofcd_sd_notify_watchdog(&n, 10999);          /* within half the interval */
    next_msg(fd, buf, sizeof(buf));
    assert_string_equal(buf, "");
    ofcd_sd_notify_watchdog(&n, 11000);
    next_msg(fd, buf, sizeof(buf));
    assert_string_equal(buf, "WATCHDOG=1");
    /* Another process's watchdog: not ours to feed. */
    setenv("WATCHDOG_PID", "1", 1);
    assert_int_equal(ofcd_sd_notify_init(&n, err, sizeof(err)), 0);
    assert_int_equal(n.watchdog_ms, 0);
    ofcd_sd_notify_watchdog(&n, 20000);
    next_msg(fd, buf, sizeof(buf));
    assert_string_equal(buf, "");
    close(fd);
    unlink(path);
    unsetenv("NOTIFY_SOCKET");
    unsetenv("WATCHDOG_USEC");
    unsetenv("WATCHDOG_PID");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_and_abstract),
        cmocka_unit_test(test_off),
        cmocka_unit_test(test_watchdog),
    };
    return cmocka_run_group_tests_name("ofcd_sd_notify", tests, NULL, NULL);
}
