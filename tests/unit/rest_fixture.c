/*
 * rest_fixture: the REST server over a real flow manager and LMDB store,
 * driven over a loopback socket (rest_fixture.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fm.h"
#include "free_port.h"
#include "of_event.h"
#include "ofcd_clock.h"
#include "ofp_msg.h"
#include "rest.h"
#include "rest_fixture.h"
#include "store.h"

#define FIX_CONN_BIT (1ull << 40)       /* a connection handle made from a dpid */

static unsigned f_room(void *arg, conn_handle_t conn, uint8_t cls)
{
    struct rest_fixture *f = arg;
    (void)conn;
    (void)cls;
    pthread_mutex_lock(&f->lock);
    unsigned room = f->room;
    pthread_mutex_unlock(&f->lock);
    return room;
}

/* A FLOW_MOD's command byte: header 8, cookie 8, cookie_mask 8, table 1. */
#define FIX_FM_COMMAND_OFF 25

static int f_send(void *arg, conn_handle_t conn, const uint8_t *msg, size_t len, uint8_t cls)
{
    struct rest_fixture *f = arg;
    (void)conn;
    (void)cls;
    pthread_mutex_lock(&f->lock);
    if (len > FIX_FM_COMMAND_OFF && msg[1] == OFPT_FLOW_MOD) {
        f->flow_mods++;
        if (msg[FIX_FM_COMMAND_OFF] == OFPFC_ADD)
            f->flow_mod_adds++;
        else
            f->flow_mod_deletes++;
    }
    pthread_mutex_unlock(&f->lock);
    return 0;
}

static uint64_t f_now(void *arg)
{
    (void)arg;
    return ofcd_clock_mono_us();
}

void rest_fixture_start(struct rest_fixture *f, const struct rest_fixture_cfg *cfg)
{
    memset(f, 0, sizeof(*f));
    pthread_mutex_init(&f->lock, NULL);
    f->room = 1000;
    snprintf(f->dir, sizeof(f->dir), "/tmp/ofcd-test-rest-face.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    struct store_config sc = {.dir = f->dir, .map_size = cfg->store_map};
    assert_non_null(f->store = store_open(&sc));
    uint32_t queue_max = cfg->queue_max ? cfg->queue_max : 1000;
    if (!cfg->no_fm) {
        struct fm_cfg fc = {.queue_max = queue_max};
        struct fm_env env = {.arg = f, .room = f_room, .send = f_send, .now_us = f_now};
        assert_non_null(f->fm = fm_create(&fc, &env, f->store));
    }
    char users[128];
    snprintf(users, sizeof(users), "%s/users.json", f->dir);
    f->port = free_port();
    struct rest_cfg rc = {
        .ip = INADDR_LOOPBACK, .port = f->port, .threads = 2, .max_body_kb = 16384,
        .max_conns_per_ip = 128, .fm_queue_max = queue_max,
        .max_flows_per_request = cfg->max_flows_per_request ? cfg->max_flows_per_request
                                                            : 100000,
        .keep_deleted = true, .answer_queued = cfg->answer_queued, .users_file = users,
        .reader_tokens_file = "",
        .data_dir = f->dir, .token_minutes = 60, .login_lock_s = 60, .login_track_max = 64,
        .login_concurrency = 1,
    };
    struct rest_sources src = {.fm = f->fm, .store = f->store};
    assert_non_null(f->rs = rest_start(&rc, &src));
}

void rest_fixture_stop(struct rest_fixture *f)
{
    rest_stop(f->rs);
    store_close(f->store);              /* commits what is queued, hands it to fm */
    fm_destroy(f->fm);
    DIR *d = opendir(f->dir);
    assert_non_null(d);
    struct dirent *e;
    char path[sizeof(f->dir) + 258];
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", f->dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    assert_int_equal(rmdir(f->dir), 0);
    pthread_mutex_destroy(&f->lock);
}

struct rest_fixture *rest_fixture_new(const struct rest_fixture_cfg *cfg)
{
    struct rest_fixture *f = malloc(sizeof(*f));

    assert_non_null(f);
    rest_fixture_start(f, cfg);
    return f;
}

int rest_fixture_teardown(void **state)
{
    rest_fixture_stop(*state);
    free(*state);
    return 0;
}

static void fm_event(struct rest_fixture *f, uint64_t dpid, uint16_t kind)
{
    struct of_event_hdr h = {.dpid = dpid, .time_us = f_now(NULL)};
    struct qmsg *q = calloc(1, sizeof(*q) + sizeof(h));

    assert_non_null(q);
    q->kind = kind;
    q->conn = dpid | FIX_CONN_BIT;
    q->len = sizeof(h);
    memcpy(q->data, &h, sizeof(h));
    fm_on_event(f->fm, q);
    free(q);
}

void rest_fixture_switch_up(struct rest_fixture *f, uint64_t dpid)
{
    fm_event(f, dpid, QMSG_EV_SWITCH_UP);
}

void rest_fixture_switch_down(struct rest_fixture *f, uint64_t dpid)
{
    fm_event(f, dpid, QMSG_EV_SWITCH_DOWN);
}

unsigned rest_fixture_tick(struct rest_fixture *f)
{
    fm_tick(f->fm);
    pthread_mutex_lock(&f->lock);
    unsigned n = f->flow_mods;
    pthread_mutex_unlock(&f->lock);
    return n;
}

/* ---- the client ---------------------------------------------------------------------- */

static void send_all(int s, const char *p, size_t n)
{
    while (n) {
        ssize_t k = send(s, p, n, MSG_NOSIGNAL);
        assert_true(k > 0);
        p += k;
        n -= (size_t)k;
    }
}

/* Everything the server sends until it closes. */
static char *read_all(int s, size_t *len)
{
    size_t cap = 65536, n = 0;
    char *b = malloc(cap + 1);

    assert_non_null(b);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            assert_non_null(b = realloc(b, cap + 1));
        }
        ssize_t k = recv(s, b + n, cap - n, 0);
        if (k < 0 && errno == EINTR)
            continue;
        assert_true(k >= 0);
        if (k == 0)
            break;
        n += (size_t)k;
    }
    b[n] = '\0';
    *len = n;
    return b;
}

/* A chunked body decoded in place: its length, and the pieces counted. */
static size_t dechunk(char *body, size_t len, unsigned *chunks)
{
    char *in = body, *end = body + len, *out = body;

    *chunks = 0;
    for (;;) {
        char *eol = strstr(in, "\r\n");
        assert_non_null(eol);
        unsigned long n = strtoul(in, NULL, 16);
        in = eol + 2;
        if (n == 0)
            break;
        assert_true(in + n + 2 <= end);
        memmove(out, in, n);
        out += n;
        in += n + 2;
        (*chunks)++;
    }
    *out = '\0';
    return (size_t)(out - body);
}

void rest_fixture_http_ct(struct rest_fixture *f, const char *method, const char *path,
                          const char *content_type, const char *body, struct rest_answer *a)
{
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(f->port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int s = socket(AF_INET, SOCK_STREAM, 0);
    char head[1024];
    size_t blen = body ? strlen(body) : 0;

    memset(a, 0, sizeof(*a));
    assert_true(s >= 0);
    assert_int_equal(connect(s, (struct sockaddr *)&to, sizeof(to)), 0);
    int n = snprintf(head, sizeof(head), "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     "Connection: close\r\n", method, path);
    if (content_type)
        n += snprintf(head + n, sizeof(head) - (size_t)n, "Content-Type: %s\r\n", content_type);
    if (body)
        n += snprintf(head + n, sizeof(head) - (size_t)n, "Content-Length: %zu\r\n", blen);
    n += snprintf(head + n, sizeof(head) - (size_t)n, "\r\n");
    assert_true(n < (int)sizeof(head));
    send_all(s, head, (size_t)n);
    if (body)
        send_all(s, body, blen);
    size_t len;
    char *all = read_all(s, &len);
    close(s);

    assert_int_equal(sscanf(all, "HTTP/1.1 %u", &a->status), 1);
    char *sep = strstr(all, "\r\n\r\n");
    assert_non_null(sep);
    *sep = '\0';
    a->headers = strdup(all);
    assert_non_null(a->headers);
    char *b = sep + 4;
    a->body_len = len - (size_t)(b - all);
    memmove(all, b, a->body_len + 1);
    a->body = all;
    for (const char *h = a->headers; h; h = strchr(h, '\n') ? strchr(h, '\n') + 1 : NULL) {
        if (strncasecmp(h, "Transfer-Encoding: chunked", 26) == 0)
            a->body_len = dechunk(a->body, a->body_len, &a->chunks);
        else if (strncasecmp(h, "Retry-After:", 12) == 0)
            a->retry_after = (unsigned)strtoul(h + 12, NULL, 10);
    }
    json_error_t je;
    a->json = json_loadb(a->body, a->body_len, JSON_DECODE_ANY, &je);
}

void rest_fixture_http(struct rest_fixture *f, const char *method, const char *path,
                       const char *body, struct rest_answer *a)
{
    rest_fixture_http_ct(f, method, path, body ? "application/json" : NULL, body, a);
}

void rest_answer_free(struct rest_answer *a)
{
    free(a->headers);
    free(a->body);
    json_decref(a->json);
    memset(a, 0, sizeof(*a));
}

const char *rest_answer_description(const struct rest_answer *a)
{
    json_t *code = json_object_get(a->json, "code");
    const char *d = json_string_value(json_object_get(a->json, "description"));

    if (!code || !d)
        fail_msg("status %u: not a JSON error: %s", a->status, a->body);
    assert_int_equal(json_integer_value(code), a->status);
    return d;
}
