/* Unit tests of ofcdctl's channel: the command registry (names, arguments,
 * list-commands, errors), the line protocol (requests split, answers framed
 * and parsed, a cut answer told from a whole one), the answer's bounded
 * text, the socket server over real unix sockets with a fake clock (mode
 * 600, one request and its answer, a deferred answer, each bound reached
 * and counted: clients at once, request size, answer size, a client that
 * sends nothing or never reads), counters/show's text and group filter, and
 * the text an lcore hands over. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ofcd_counters_ctl.h"
#include "ofcd_ctl.h"
#include "ofcd_ctl_server.h"
#include "ofcd_ctl_wire.h"
#include "ofcd_log.h"
#include "ofcd_log_ctl.h"
#include "ofcd_textreq.h"

/* ---- registry ---------------------------------------------------------------------- */

static int echo_args(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
{
    int *calls = arg;

    ++*calls;
    for (int i = 1; i < argc; i++)
        ofcd_ctl_printf(out, "%s%s", i > 1 ? " " : "", argv[i]);
    return 0;
}

static int fails_quietly(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
{
    (void)arg;
    (void)argc;
    (void)argv;
    (void)out;
    return -ENODEV;
}

/* Run one command line through the registry: its status, its text in *text
 * (malloc'd). */
static int run(struct ofcd_ctl *c, const char *line, char **text)
{
    char buf[OFCD_CTL_REQUEST_MAX], *words[OFCD_CTL_ARGS_MAX + 1];
    const char *why;
    struct ofcd_ctl_out out;

    snprintf(buf, sizeof(buf), "%s", line);
    int n = ofcd_ctl_wire_split(buf, words, OFCD_CTL_ARGS_MAX + 1, &why);
    assert_true(n > 0);
    ofcd_ctl_out_init(&out, OFCD_CTL_REPLY_MAX);
    int rc = ofcd_ctl_execute(c, n, words, &out);
    ofcd_ctl_out_finish(&out);
    *text = strdup(out.buf ? out.buf : "");
    ofcd_ctl_out_free(&out);
    return rc;
}

/* line run in c: want_rc, and needle in the answer's text. */
static void expect(struct ofcd_ctl *c, const char *line, int want_rc, const char *needle)
{
    char *text;

    assert_int_equal(run(c, line, &text), want_rc);
    if (!strstr(text, needle))
        fail_msg("'%s' answered '%s', without '%s'", line, text, needle);
    free(text);
}

static void test_registry(void **state)
{
    struct ofcd_ctl *c = ofcd_ctl_create();
    int calls = 0;
    char *text;

    (void)state;
    assert_non_null(c);
    struct ofcd_ctl_cmd echo = {"test/echo", "A [B]", "says its arguments back", 1, 2,
                                echo_args, &calls};
    assert_int_equal(ofcd_ctl_register(c, &echo), 0);
    assert_int_equal(ofcd_ctl_register(c, &echo), -EEXIST);
    struct ofcd_ctl_cmd bad = echo;
    bad.name = "Test/Echo";
    assert_int_equal(ofcd_ctl_register(c, &bad), -EINVAL);
    bad.name = "test/ok";
    bad.help = "";
    assert_int_equal(ofcd_ctl_register(c, &bad), -EINVAL);
    bad.help = "h";
    bad.min_args = 3;
    assert_int_equal(ofcd_ctl_register(c, &bad), -EINVAL);
    bad.min_args = 0;
    bad.max_args = OFCD_CTL_ARGS_MAX + 1;
    assert_int_equal(ofcd_ctl_register(c, &bad), -EINVAL);
    bad.max_args = 0;
    bad.name = "test/fail";
    bad.fn = fails_quietly;
    assert_int_equal(ofcd_ctl_register(c, &bad), 0);

    assert_int_equal(run(c, "test/echo a b", &text), 0);
    assert_string_equal(text, "a b\n");
    free(text);
    assert_int_equal(calls, 1);
    /* Argument counts are checked before the handler runs. */
    expect(c, "test/echo a b c", -EINVAL,
           "test/echo takes fewer arguments; usage: test/echo A [B]");
    expect(c, "test/echo", -EINVAL, "test/echo takes more arguments");
    assert_int_equal(calls, 1);
    expect(c, "no/such", -ENOENT, "unknown command 'no/such'");
    /* An error without text says what the errno says. */
    expect(c, "test/fail", -ENODEV, "test/fail: No such device\n");

    /* list-commands: every command once, in name order, with its usage
     * and help. */
    assert_int_equal(run(c, "list-commands", &text), 0);
    const char *l = strstr(text, "list-commands "), *e = strstr(text, "test/echo A [B] ");
    const char *f = strstr(text, "test/fail ");
    assert_non_null(l);
    assert_non_null(e);
    assert_non_null(f);
    assert_true(l < e && e < f);
    assert_non_null(strstr(e, "says its arguments back\n"));
    free(text);
    ofcd_ctl_destroy(c);
}

static void test_registry_full(void **state)
{
    struct ofcd_ctl *c = ofcd_ctl_create();
    char names[OFCD_CTL_COMMANDS_MAX][16];
    int calls = 0;

    (void)state;
    for (unsigned i = 1; i < OFCD_CTL_COMMANDS_MAX; i++) {
        snprintf(names[i], sizeof(names[i]), "c%u", i);
        assert_int_equal(ofcd_ctl_register(c, &(struct ofcd_ctl_cmd){
                             names[i], "", "h", 0, 0, echo_args, &calls}), 0);
    }
    assert_int_equal(ofcd_ctl_register(c, &(struct ofcd_ctl_cmd){
                         "one/more", "", "h", 0, 0, echo_args, &calls}), -ENOSPC);
    ofcd_ctl_destroy(c);
}

/* ---- the answer's text ------------------------------------------------------------- */

static void test_out_bounded(void **state)
{
    struct ofcd_ctl_out o;

    (void)state;
    ofcd_ctl_out_init(&o, 64);
    assert_int_equal(ofcd_ctl_printf(&o, "line one\n"), 0);
    for (int i = 0; i < 20; i++)
        ofcd_ctl_printf(&o, "line %d of many\n", i);
    assert_true(o.cut);
    assert_true(o.len <= 64);
    ofcd_ctl_out_finish(&o);
    /* Whole lines, then the note. */
    assert_non_null(strstr(o.buf, "line one\n"));
    assert_non_null(strstr(o.buf, "of many\n... (the answer was cut at 64 bytes)\n"));
    assert_int_equal(strlen(o.buf), o.len);
    ofcd_ctl_out_free(&o);

    /* A text without its last newline gets one; an empty one stays empty. */
    ofcd_ctl_out_init(&o, 64);
    ofcd_ctl_out_finish(&o);
    assert_int_equal(o.len, 0);
    ofcd_ctl_printf(&o, "no newline");
    ofcd_ctl_out_finish(&o);
    assert_string_equal(o.buf, "no newline\n");
    assert_false(o.cut);
    ofcd_ctl_out_free(&o);
}

/* ---- the line protocol ------------------------------------------------------------- */

static void test_wire(void **state)
{
    char line[64], *w[4];
    const char *why;
    bool ok;
    const char *text;
    size_t len;
    char head[OFCD_CTL_HEAD_MAX];

    (void)state;
    snprintf(line, sizeof(line), "  log/set\tof  debug\r");
    assert_int_equal(ofcd_ctl_wire_split(line, w, 4, &why), 3);
    assert_string_equal(w[0], "log/set");
    assert_string_equal(w[1], "of");
    assert_string_equal(w[2], "debug");
    snprintf(line, sizeof(line), "   ");
    assert_int_equal(ofcd_ctl_wire_split(line, w, 4, &why), -EINVAL);
    assert_non_null(strstr(why, "empty"));
    snprintf(line, sizeof(line), "log/set \x1b[2J");
    assert_int_equal(ofcd_ctl_wire_split(line, w, 4, &why), -EINVAL);
    assert_non_null(strstr(why, "printable"));
    snprintf(line, sizeof(line), "a b c d e");
    assert_int_equal(ofcd_ctl_wire_split(line, w, 4, &why), -E2BIG);

    int h = ofcd_ctl_wire_head(head, sizeof(head), true, 6);
    assert_string_equal(head, "ok 6\n");
    char reply[64];
    snprintf(reply, sizeof(reply), "%shello\n", head);
    assert_int_equal(ofcd_ctl_wire_parse(reply, strlen(reply), &ok, &text, &len), 0);
    assert_true(ok);
    assert_int_equal(len, 6);
    assert_memory_equal(text, "hello\n", 6);
    /* Cut short (the connection broke) or longer than said: not an answer. */
    assert_int_equal(ofcd_ctl_wire_parse(reply, (size_t)h + 3, &ok, &text, &len), -EPROTO);
    snprintf(reply, sizeof(reply), "ok 2\nhello\n");
    assert_int_equal(ofcd_ctl_wire_parse(reply, strlen(reply), &ok, &text, &len), -EPROTO);
    snprintf(reply, sizeof(reply), "error 4\nbad\n");
    assert_int_equal(ofcd_ctl_wire_parse(reply, strlen(reply), &ok, &text, &len), 0);
    assert_false(ok);
    assert_int_equal(ofcd_ctl_wire_parse("okay 1\nx", 9, &ok, &text, &len), -EPROTO);
    assert_int_equal(ofcd_ctl_wire_parse("ok x\n", 5, &ok, &text, &len), -EPROTO);
}

/* ---- the server --------------------------------------------------------------------- */

struct later_state {
    bool ready;
    int polls, cancels;
    uint64_t last_now_ms;
};

static int later_poll(void *arg, struct ofcd_ctl_out *out, uint64_t now_ms)
{
    struct later_state *ls = arg;

    ls->polls++;
    ls->last_now_ms = now_ms;
    if (!ls->ready)
        return OFCD_CTL_LATER;
    ofcd_ctl_printf(out, "late answer\n");
    return 0;
}

static void later_cancel(void *arg)
{
    ((struct later_state *)arg)->cancels++;
}

static int deferring(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
{
    (void)argc;
    (void)argv;
    ofcd_ctl_printf(out, "early part\n");
    return ofcd_ctl_defer(out, &(struct ofcd_ctl_later){later_poll, later_cancel, arg});
}

/* More than an answer may hold. */
static int big(void *arg, int argc, char **argv, struct ofcd_ctl_out *out)
{
    char line[101];

    (void)arg;
    (void)argc;
    (void)argv;
    memset(line, 'x', 99);
    line[99] = '\n';
    line[100] = '\0';
    while (ofcd_ctl_write(out, line, 100) == 0)
        ;
    return 0;
}

struct fixture {
    char dir[64], path[96];
    struct ofcd_ctl *cmds;
    struct ofcd_ctl_server *srv;
    int calls;
    struct later_state later;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    char err[256];

    snprintf(f->dir, sizeof(f->dir), "/tmp/ofcd-test-ctl.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->path, sizeof(f->path), "%s/ofcd.ctl", f->dir);
    f->cmds = ofcd_ctl_create();
    assert_int_equal(ofcd_ctl_register(f->cmds, &(struct ofcd_ctl_cmd){
                         "test/echo", "A [B]", "says its arguments back", 1, 2, echo_args,
                         &f->calls}), 0);
    assert_int_equal(ofcd_ctl_register(f->cmds, &(struct ofcd_ctl_cmd){
                         "test/later", "", "answers later", 0, 0, deferring, &f->later}), 0);
    assert_int_equal(ofcd_ctl_register(f->cmds, &(struct ofcd_ctl_cmd){
                         "test/big", "", "too much", 0, 0, big, NULL}), 0);
    f->srv = ofcd_ctl_server_open(f->path, f->cmds, err, sizeof(err));
    assert_non_null(f->srv);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    ofcd_ctl_server_close(f->srv);
    ofcd_ctl_destroy(f->cmds);
    rmdir(f->dir);
    free(f);
    return 0;
}

/* Serve what is ready (waiting up to wait_ms for it), at now_ms. */
static void serve(struct fixture *f, uint64_t now_ms, int wait_ms)
{
    struct pollfd fds[OFCD_CTL_POLLFDS];
    unsigned n = ofcd_ctl_server_fds(f->srv, fds);

    if (poll(fds, n, wait_ms) < 0)
        n = 0;
    ofcd_ctl_server_run(f->srv, fds, n, now_ms);
}

static int client(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
    assert_true(fd >= 0);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    return fd;
}

/* What the server sent fd, to its close: malloc'd, *len bytes. The server
 * is served meanwhile, at now_ms. */
static char *answer_of(struct fixture *f, int fd, uint64_t now_ms, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);

    fcntl(fd, F_SETFL, O_NONBLOCK);
    for (int rounds = 0; rounds < 10000; rounds++) {
        serve(f, now_ms, 1);
        ssize_t r;
        while ((r = read(fd, buf + n, cap - n - 1)) > 0) {
            n += (size_t)r;
            if (n + 1 == cap)
                buf = realloc(buf, cap *= 2);
        }
        if (r == 0 || (r < 0 && errno != EAGAIN))
            break;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static char *ask(struct fixture *f, const char *request, uint64_t now_ms)
{
    int fd = client(f->path);
    size_t len;

    assert_int_equal(write(fd, request, strlen(request)), (ssize_t)strlen(request));
    if (!strchr(request, '\n'))
        shutdown(fd, SHUT_WR);
    char *a = answer_of(f, fd, now_ms, &len);
    close(fd);
    return a;
}

static void test_server_answers(void **state)
{
    struct fixture *f = *state;
    struct ofcd_ctl_stats st;
    struct stat sb;

    /* Owner only. */
    assert_int_equal(stat(f->path, &sb), 0);
    assert_true(S_ISSOCK(sb.st_mode));
    assert_int_equal(sb.st_mode & 0777, 0600);

    char *a = ask(f, "test/echo hi there\n", 0);
    assert_string_equal(a, "ok 9\nhi there\n");
    free(a);
    /* The end of the stream ends a request as well as a newline does. */
    a = ask(f, "test/echo eof", 0);
    assert_string_equal(a, "ok 4\neof\n");
    free(a);
    a = ask(f, "no/such\n", 0);
    assert_non_null(strstr(a, "error "));
    assert_non_null(strstr(a, "unknown command 'no/such'"));
    free(a);
    a = ask(f, "test/echo \x01\n", 0);
    assert_non_null(strstr(a, "printable ASCII"));
    free(a);
    ofcd_ctl_server_get_stats(f->srv, &st);
    assert_int_equal(st.requests, 4);
    assert_int_equal(st.errors, 2);
    assert_int_equal(st.clients, 0);
    assert_int_equal(f->calls, 2);
}

/* The listener's path: a dead server's socket is replaced, anything else
 * is left alone and named in the error. */
static void test_server_path(void **state)
{
    struct fixture *f = *state;
    char path[100], err[256];

    snprintf(path, sizeof(path), "%s/stale.ctl", f->dir);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    close(fd);                                  /* left behind, as by a crash */
    struct ofcd_ctl_server *s = ofcd_ctl_server_open(path, f->cmds, err, sizeof(err));
    assert_non_null(s);
    ofcd_ctl_server_close(s);
    assert_int_equal(access(path, F_OK), -1);   /* removed at close */

    /* A live server's socket (app.ctl_socket shared by two ofcds by
     * mistake) is not taken from it. */
    struct ofcd_ctl_server *live = ofcd_ctl_server_open(path, f->cmds, err, sizeof(err));
    assert_non_null(live);
    assert_null(ofcd_ctl_server_open(path, f->cmds, err, sizeof(err)));
    assert_non_null(strstr(err, "another server listens there"));
    assert_int_equal(access(path, F_OK), 0);
    ofcd_ctl_server_close(live);

    snprintf(path, sizeof(path), "%s/file.ctl", f->dir);
    fd = open(path, O_CREAT | O_WRONLY, 0600);
    close(fd);
    assert_null(ofcd_ctl_server_open(path, f->cmds, err, sizeof(err)));
    assert_non_null(strstr(err, "is not a socket"));
    assert_int_equal(access(path, F_OK), 0);    /* not removed */
    unlink(path);
}

/* The mode of what bind(2) made, seen before anything else runs (the
 * test is linked with --wrap=bind). */
int __real_bind(int fd, const struct sockaddr *a, socklen_t len);
static mode_t bound_mode;

int __wrap_bind(int fd, const struct sockaddr *a, socklen_t len)
{
    int rc = __real_bind(fd, a, len);
    struct stat st;

    if (rc == 0 && a->sa_family == AF_UNIX &&
        stat(((const struct sockaddr_un *)a)->sun_path, &st) == 0)
        bound_mode = st.st_mode & 07777;
    return rc;
}

/* The control socket is the owner's from the moment it exists, under any
 * umask (it used to be made with the umask's mode and narrowed after). */
static void test_server_mode(void **state)
{
    struct fixture *f = *state;
    char path[100], err[256];
    struct stat st;

    snprintf(path, sizeof(path), "%s/mode.ctl", f->dir);
    mode_t old = umask(0);
    bound_mode = 07777;
    struct ofcd_ctl_server *s = ofcd_ctl_server_open(path, f->cmds, err, sizeof(err));
    umask(old);
    assert_non_null(s);
    assert_int_equal(bound_mode, 0600);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    ofcd_ctl_server_close(s);
}

/* Shared with a group: the socket carries it, mode 660 (an operator in
 * the service's group runs ofcdctl without root); never wider before. */
static void test_server_group(void **state)
{
    struct fixture *f = *state;
    char path[100], err[256];
    struct stat st;
    gid_t g = getgid();

    snprintf(path, sizeof(path), "%s/group.ctl", f->dir);
    mode_t old = umask(0);
    bound_mode = 07777;
    struct ofcd_ctl_server *s = ofcd_ctl_server_open_shared(path, g, f->cmds, err, sizeof(err));
    umask(old);
    assert_non_null(s);
    assert_int_equal(bound_mode, 0600);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0660);
    assert_int_equal(st.st_gid, g);
    int fd = client(path);
    assert_true(fd >= 0);
    close(fd);
    ofcd_ctl_server_close(s);
}

/* 16 clients at once; the 17th is told it is busy and closed, and the
 * others are served. */
static void test_server_clients_bound(void **state)
{
    struct fixture *f = *state;
    int fds[OFCD_CTL_CLIENTS_MAX];
    struct ofcd_ctl_stats st;
    size_t len;

    for (unsigned i = 0; i < OFCD_CTL_CLIENTS_MAX; i++) {
        fds[i] = client(f->path);
        serve(f, 0, 100);
    }
    ofcd_ctl_server_get_stats(f->srv, &st);
    assert_int_equal(st.clients, OFCD_CTL_CLIENTS_MAX);
    int extra = client(f->path);
    char *a = answer_of(f, extra, 0, &len);
    assert_non_null(strstr(a, "error "));
    assert_non_null(strstr(a, "busy: 16 clients"));
    free(a);
    close(extra);
    ofcd_ctl_server_get_stats(f->srv, &st);
    assert_int_equal(st.refused_busy, 1);
    assert_int_equal(write(fds[3], "test/echo still\n", 16), 16);
    a = answer_of(f, fds[3], 0, &len);
    assert_string_equal(a, "ok 6\nstill\n");
    free(a);
    for (unsigned i = 0; i < OFCD_CTL_CLIENTS_MAX; i++)
        close(fds[i]);
}

/* A request past 4096 bytes is refused with an error and the client
 * closed; a client that sends nothing is dropped after its 5 s, while
 * another is served meanwhile. */
static void test_server_request_bounds(void **state)
{
    struct fixture *f = *state;
    struct ofcd_ctl_stats st;
    char big_req[OFCD_CTL_REQUEST_MAX + 100];
    size_t len;

    memset(big_req, 'a', sizeof(big_req));
    int fd = client(f->path);
    assert_int_equal(write(fd, big_req, sizeof(big_req)), (ssize_t)sizeof(big_req));
    char *a = answer_of(f, fd, 0, &len);
    assert_non_null(strstr(a, "error "));
    assert_non_null(strstr(a, "longer than 4096 bytes"));
    free(a);
    close(fd);

    int silent = client(f->path);
    serve(f, 1000, 100);
    a = ask(f, "test/echo served\n", 4000);
    assert_string_equal(a, "ok 7\nserved\n");
    free(a);
    serve(f, 1000 + OFCD_CTL_CLIENT_TIMEOUT_MS - 1, 0);
    ofcd_ctl_server_get_stats(f->srv, &st);
    assert_int_equal(st.clients, 1);
    serve(f, 1000 + OFCD_CTL_CLIENT_TIMEOUT_MS, 0);
    ofcd_ctl_server_get_stats(f->srv, &st);
    assert_int_equal(st.clients, 0);
    assert_int_equal(st.timed_out, 1);
    assert_int_equal(st.too_long, 1);
    assert_int_equal(read(silent, big_req, 1), 0);     /* closed on it */
    close(silent);
}

/* An answer over 4 MiB is cut, and says so; a client that never reads it
 * is dropped 5 s after it was ready, the server never waiting on it. */
static void test_server_answer_bounds(void **state)
{
    struct fixture *f = *state;
    struct ofcd_ctl_stats st;
    size_t len;
    bool ok;
    const char *text;
    size_t text_len;

    char *a = ask(f, "test/big\n", 0);
    len = strlen(a);
    assert_int_equal(ofcd_ctl_wire_parse(a, len, &ok, &text, &text_len), 0);
    assert_true(ok);
    assert_true(text_len <= OFCD_CTL_REPLY_MAX + 64);
    assert_non_null(strstr(text, "... (the answer was cut at 4194304 bytes)\n"));
    free(a);

    int fd = client(f->path);
    assert_int_equal(write(fd, "test/big\n", 9), 9);
    for (int i = 0; i < 5; i++)
        serve(f, 100, 10);                      /* the socket's buffer fills */
    ofcd_ctl_server_get_stats(f->srv, &st);
    assert_int_equal(st.clients, 1);
    serve(f, 100 + OFCD_CTL_CLIENT_TIMEOUT_MS, 0);
    ofcd_ctl_server_get_stats(f->srv, &st);
    assert_int_equal(st.clients, 0);
    assert_int_equal(st.timed_out, 1);
    assert_int_equal(st.replies_cut, 2);
    close(fd);
}

/* A deferred answer: polled at each wake-up, sent when it is whole (with
 * what the handler wrote first); a client whose time runs out while it
 * waits has its request cancelled. */
static void test_server_later(void **state)
{
    struct fixture *f = *state;
    struct ofcd_ctl_stats st;
    size_t len;

    int fd = client(f->path);
    assert_int_equal(write(fd, "test/later\n", 11), 11);
    for (int i = 0; i < 5; i++)
        serve(f, 10, 10);
    assert_true(f->later.polls >= 1);
    assert_int_equal(f->later.last_now_ms, 10);
    ofcd_ctl_server_get_stats(f->srv, &st);
    assert_int_equal(st.requests, 0);
    f->later.ready = true;
    char *a = answer_of(f, fd, 20, &len);
    assert_string_equal(a, "ok 23\nearly part\nlate answer\n");
    free(a);
    close(fd);

    f->later.ready = false;
    fd = client(f->path);
    assert_int_equal(write(fd, "test/later\n", 11), 11);
    for (int i = 0; i < 5; i++)
        serve(f, 30, 10);
    serve(f, 30 + OFCD_CTL_CLIENT_TIMEOUT_MS, 0);
    assert_int_equal(f->later.cancels, 1);
    ofcd_ctl_server_get_stats(f->srv, &st);
    assert_int_equal(st.timed_out, 1);
    assert_int_equal(st.clients, 0);
    close(fd);
}

/* ---- the log's commands -------------------------------------------------------------- */

static void test_log_commands(void **state)
{
    struct ofcd_ctl *c = ofcd_ctl_create();
    char *text;

    (void)state;
    assert_int_equal(ofcd_log_ctl_register(c), 0);
    ofcd_log_set_level(OFCD_LOG_INFO);
    assert_int_equal(run(c, "log/set of debug", &text), 0);
    assert_string_equal(text, "of: debug\n");
    free(text);
    assert_int_equal(ofcd_log_module_level("of"), OFCD_LOG_DEBUG);
    assert_int_equal(ofcd_log_module_level("tcp"), OFCD_LOG_INFO);
    assert_int_equal(run(c, "log/list", &text), 0);
    assert_non_null(strstr(text, "\nof         debug  OpenFlow"));
    assert_non_null(strstr(text, "\ntcp        info   "));
    free(text);
    expect(c, "log/set nosuch info", -ENOENT, "unknown module 'nosuch'");
    expect(c, "log/set of loud", -EINVAL, "unknown level 'loud'");
    expect(c, "log/set of info extra", -EINVAL, "log/set takes fewer arguments");
    expect(c, "log/set", -EINVAL, "log/set takes more arguments");
    assert_int_equal(ofcd_log_module_level("of"), OFCD_LOG_DEBUG);
    assert_int_equal(run(c, "log/set WARN", &text), 0);
    free(text);
    assert_int_equal(ofcd_log_module_level("of"), OFCD_LOG_WARN);
    assert_int_equal(ofcd_log_module_level("other"), OFCD_LOG_WARN);
    ofcd_log_set_level(OFCD_LOG_INFO);
    ofcd_ctl_destroy(c);
}

/* ---- counters/show -------------------------------------------------------------------- */

#define T_TCP(X) X(segs_in, "segments in") X(retransmits, "segments sent again")
#define T_TCP_STATE(X) X(established, "connections established now")
struct t_tcp { T_TCP(OFCD_COUNTER_FIELD) };
struct t_tcp_state { T_TCP_STATE(OFCD_COUNTER_FIELD) };
OFCD_COUNTER_GROUP(t_tcp_counters, "tcp", struct t_tcp, T_TCP, OFCD_NO_COUNTERS);
OFCD_COUNTER_GROUP(t_tcp_state_counters, "tcp_state", struct t_tcp_state,
                   OFCD_NO_COUNTERS, T_TCP_STATE);

/* Two lcores' tcp sets and a tcp_state set, as app_visit_counters walks. */
static void fake_visit(void *src, ofcd_counter_fn fn, void *arg)
{
    const struct t_tcp *tcp = src;
    struct t_tcp_state st = {.established = 3};

    fn(arg, &t_tcp_counters, "lcore=\"0\"", OFCD_COUNTER_VALUES(&tcp[0]));
    fn(arg, &t_tcp_state_counters, "", OFCD_COUNTER_VALUES(&st));
    fn(arg, &t_tcp_counters, "lcore=\"1\"", OFCD_COUNTER_VALUES(&tcp[1]));
}

static char *show(const char *group, int want_rc)
{
    struct t_tcp tcp[2] = {{.segs_in = 12, .retransmits = 0}, {.segs_in = 7, .retransmits = 1}};
    struct ofcd_ctl_out out;

    ofcd_ctl_out_init(&out, OFCD_CTL_REPLY_MAX);
    assert_int_equal(ofcd_counters_show(fake_visit, tcp, group, &out), want_rc);
    ofcd_ctl_out_finish(&out);
    char *text = strdup(out.buf ? out.buf : "");
    ofcd_ctl_out_free(&out);
    return text;
}

static void test_counters_show(void **state)
{
    char *text, line[32];

    (void)state;
    /* Every set, a line each as the log writes it: labels without quotes,
     * every value, zeros too. */
    text = show(NULL, 0);
    assert_string_equal(text, "lcore=0 tcp: segs_in=12 retransmits=0\n"
                              "tcp_state: established=3\n"
                              "lcore=1 tcp: segs_in=7 retransmits=1\n");
    free(text);
    /* One group: its sets only; a group whose name starts the same is
     * another group. */
    text = show("tcp", 0);
    assert_string_equal(text, "lcore=0 tcp: segs_in=12 retransmits=0\n"
                              "lcore=1 tcp: segs_in=7 retransmits=1\n");
    free(text);
    text = show("tcp_state", 0);
    assert_string_equal(text, "tcp_state: established=3\n");
    free(text);
    /* An unknown group: the error names the groups there are, once each. */
    text = show("tc", -ENOENT);
    assert_string_equal(text, "no counter group 'tc'; the groups: tcp tcp_state\n");
    free(text);

    /* A line longer than its buffer is cut, NUL-terminated, its length
     * what it holds. */
    struct t_tcp v = {.segs_in = 123456789, .retransmits = 5};
    size_t n = ofcd_counter_set_format(line, sizeof(line), &t_tcp_counters, "lcore=\"0\"",
                                       OFCD_COUNTER_VALUES(&v));
    assert_int_equal(n, sizeof(line) - 1);
    assert_int_equal(strlen(line), n);
    assert_string_equal(line, "lcore=0 tcp: segs_in=123456789 ");
}

/* ---- the text an lcore hands over ------------------------------------------------------ */

struct answerer {
    struct ofcd_textreq *t;
    atomic_bool stop;
    unsigned answered;
};

static void *answer_loop(void *arg)
{
    struct answerer *an = arg;

    while (!atomic_load(&an->stop)) {
        if (!ofcd_textreq_pending(an->t))
            continue;
        for (int i = 0; i < 3; i++)
            ofcd_textreq_printf(an->t, "ask %u line %d\n", an->answered, i);
        an->answered++;
        ofcd_textreq_answer(an->t);
    }
    return NULL;
}

static void test_textreq(void **state)
{
    struct ofcd_textreq t = {0};
    struct answerer an = {.t = &t};
    pthread_t th;
    char want[64];

    (void)state;
    assert_true(ofcd_textreq_ready(&t));        /* nothing asked */
    /* One thread: a second ask waits for the first answer; past cap the
     * text is cut at a whole line. */
    assert_int_equal(ofcd_textreq_ask(&t, 20), 0);
    assert_false(ofcd_textreq_ready(&t));
    assert_int_equal(ofcd_textreq_ask(&t, 20), -EBUSY);
    assert_true(ofcd_textreq_pending(&t));
    ofcd_textreq_printf(&t, "0123456789\n");
    ofcd_textreq_printf(&t, "0123456789\n");
    ofcd_textreq_answer(&t);
    assert_false(ofcd_textreq_pending(&t));
    assert_true(ofcd_textreq_ready(&t));
    assert_true(t.cut);
    assert_int_equal(t.len, 11);
    assert_memory_equal(t.buf, "0123456789\n", 11);

    /* Two threads: every answer is the whole text of its own ask. */
    assert_int_equal(pthread_create(&th, NULL, answer_loop, &an), 0);
    for (unsigned i = 0; i < 2000; i++) {
        assert_int_equal(ofcd_textreq_ask(&t, 256), 0);
        while (!ofcd_textreq_ready(&t))
            ;
        snprintf(want, sizeof(want), "ask %u line 2\n", i);
        assert_false(t.cut);
        assert_non_null(strstr(t.buf, want));
        assert_int_equal(t.len, strlen(t.buf));
    }
    atomic_store(&an.stop, true);
    pthread_join(th, NULL);
    ofcd_textreq_fini(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_registry_full),
        cmocka_unit_test(test_out_bounded),
        cmocka_unit_test(test_wire),
        cmocka_unit_test_setup_teardown(test_server_answers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_server_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_server_group, setup, teardown),
        cmocka_unit_test_setup_teardown(test_server_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_server_clients_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_server_request_bounds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_server_answer_bounds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_server_later, setup, teardown),
        cmocka_unit_test(test_log_commands),
        cmocka_unit_test(test_counters_show),
        cmocka_unit_test(test_textreq),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
