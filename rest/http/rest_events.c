/* rest_events: see rest_events.h. */
#include "rest_events.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ofcd_clock.h"
#include "ofcd_log.h"
#include "ofcd_ratelimit.h"

OFCD_COUNTER_GROUP(rest_events_counters, "rest_events", struct rest_events_stats,
                   REST_EVENTS_COUNTERS, REST_EVENTS_GAUGES);

#define EV_KINDS_MAX 8
#define EV_WAKE_MAX 256                 /* clients woken by one publish: the hub's limit */
#define EV_KIND_LEN 32

struct rest_events_client {
    struct rest_events *hub;
    struct rest_events_client *next;
    struct rest_events_io io;
    void *conn;
    char *buf;
    size_t len, cap;
    bool waiting;                       /* read found nothing: wake on the next event */
    bool suspending;                    /* between read's 0 and rest_events_suspended */
    bool wake_pending;                  /* an event came while suspending */
    bool cut;
    char who[REST_EVENTS_WHO_LEN];      /* for the log line when it is cut off */
    unsigned n_kinds;
    char kinds[EV_KINDS_MAX][EV_KIND_LEN];
};

struct rest_events {
    pthread_mutex_t lock;
    struct rest_events_client *clients;
    unsigned n, max;
    bool closed;                        /* close_all: no one joins any more */
    size_t queue_bytes;
    struct ofcd_ratelimit rl_cut;
    struct rest_events_stats st;        /* under the lock, but for published: */
    uint64_t published;                 /* relaxed atomic (publish counts without the lock) */
    rest_events_tap_fn tap;             /* set before anyone publishes */
    void *tap_arg;
};

struct rest_events *rest_events_create(unsigned max_clients, size_t queue_bytes)
{
    struct rest_events *h = calloc(1, sizeof(*h));

    if (!h)
        return NULL;
    pthread_mutex_init(&h->lock, NULL);
    h->max = max_clients < EV_WAKE_MAX ? max_clients : EV_WAKE_MAX;
    h->queue_bytes = queue_bytes;
    h->rl_cut = (struct ofcd_ratelimit)OFCD_RATELIMIT_INIT(5, 10000);
    return h;
}

void rest_events_destroy(struct rest_events *h)
{
    if (!h)
        return;
    /* Every client has left (the server is gone): nothing to free here. */
    pthread_mutex_destroy(&h->lock);
    free(h);
}

static void parse_kinds(struct rest_events_client *c, const char *kinds)
{
    const char *p = kinds;

    while (p && *p && c->n_kinds < EV_KINDS_MAX) {
        size_t n = strcspn(p, ",");
        if (n > 0 && n < EV_KIND_LEN) {
            memcpy(c->kinds[c->n_kinds], p, n);
            c->kinds[c->n_kinds++][n] = '\0';
        }
        p += n;
        if (*p == ',')
            p++;
    }
}

static bool wanted(const struct rest_events_client *c, const char *kind)
{
    if (!c->n_kinds)
        return true;
    for (unsigned i = 0; i < c->n_kinds; i++)
        if (strncmp(kind, c->kinds[i], strlen(c->kinds[i])) == 0)
            return true;
    return false;
}

struct rest_events_client *rest_events_join(struct rest_events *h, const char *kinds,
                                            const char *who, const struct rest_events_io *io,
                                            void *conn)
{
    struct rest_events_client *c = calloc(1, sizeof(*c));

    if (!c)
        return NULL;
    snprintf(c->who, sizeof(c->who), "%s", who ? who : "?");
    c->hub = h;
    c->io = *io;
    c->conn = conn;
    parse_kinds(c, kinds);
    pthread_mutex_lock(&h->lock);
    if (h->n >= h->max || h->closed) {
        h->st.clients_refused += !h->closed;
        pthread_mutex_unlock(&h->lock);
        free(c);
        return NULL;
    }
    c->next = h->clients;
    h->clients = c;
    __atomic_store_n(&h->n, h->n + 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&h->lock);
    return c;
}

void rest_events_leave(struct rest_events_client *c)
{
    struct rest_events *h = c->hub;
    struct rest_events_client **pp;

    pthread_mutex_lock(&h->lock);
    for (pp = &h->clients; *pp && *pp != c; pp = &(*pp)->next)
        ;
    if (*pp) {
        *pp = c->next;
        __atomic_store_n(&h->n, h->n - 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&h->lock);
    free(c->buf);
    free(c);
}

/* Who to wake once the lock is released: io.wake takes MHD's own lock,
 * which must never be taken under the hub's. */
struct wake_list {
    unsigned n;
    struct rest_events_client *c[EV_WAKE_MAX];
};

/* Under the lock: c waits no more. */
static void wake(struct rest_events_client *c, struct wake_list *w)
{
    if (!c->waiting)
        return;
    c->waiting = false;
    if (c->suspending)
        c->wake_pending = true;         /* its reader resumes itself */
    else if (w->n < EV_WAKE_MAX)
        w->c[w->n++] = c;
}

static void wake_all(struct wake_list *w)
{
    /* Each is suspended and stays so until woken: it cannot leave meanwhile. */
    for (unsigned i = 0; i < w->n; i++)
        w->c[i]->io.wake(w->c[i]->conn);
}

/* Under the lock. */
static void cut(struct rest_events *h, struct rest_events_client *c, const char *why,
                struct wake_list *w)
{
    uint64_t missed;

    if (c->cut)
        return;
    c->cut = true;
    free(c->buf);
    c->buf = NULL;
    c->len = c->cap = 0;
    h->st.clients_cut++;
    uint64_t now = ofcd_clock_mono_us();
    if (ofcd_ratelimit(&h->rl_cut, now, &missed))
        LOG_WARN("rest", "event stream client %s cut off: %s (%lu more unlogged)", c->who, why,
                 (unsigned long)missed);
    wake(c, w);                         /* its reader then ends the stream */
}

/* Under the lock. */
static void append(struct rest_events *h, struct rest_events_client *c, const char *text,
                   size_t n, struct wake_list *w)
{
    if (c->cut)
        return;
    if (c->len + n > h->queue_bytes) {
        cut(h, c, "its queue of rest.events_queue_kb is full", w);
        return;
    }
    if (c->len + n > c->cap) {
        size_t nc = c->cap ? c->cap : 4096;
        while (nc < c->len + n)
            nc *= 2;
        char *nb = realloc(c->buf, nc);
        if (!nb) {
            cut(h, c, "out of memory for its queue", w);
            return;
        }
        c->buf = nb;
        c->cap = nc;
    }
    memcpy(c->buf + c->len, text, n);
    c->len += n;
    h->st.queued++;
    wake(c, w);
}

void rest_events_set_tap(struct rest_events *h, rest_events_tap_fn fn, void *arg)
{
    h->tap = fn;
    h->tap_arg = arg;
}

static void publish(struct rest_events *h, const char *kind, const json_t *data);

void rest_events_publish(struct rest_events *h, const char *kind, const json_t *data)
{
    if (h->tap)
        h->tap(h->tap_arg, kind, data);
    publish(h, kind, data);
}

void rest_events_publish_relayed(struct rest_events *h, const char *kind, const json_t *data,
                                 const char *node)
{
    json_t *j = json_copy((json_t *)data);

    if (!j)
        return;
    if (json_object_set_new(j, "node", json_string(node)) == 0)
        publish(h, kind, j);
    json_decref(j);
}

static void publish(struct rest_events *h, const char *kind, const json_t *data)
{
    /* No client: no text made (the flow manager publishes per barrier). */
    if (!__atomic_load_n(&h->n, __ATOMIC_RELAXED)) {
        __atomic_fetch_add(&h->published, 1, __ATOMIC_RELAXED);
        return;
    }
    char *body = json_dumps(data, JSON_COMPACT);
    char *text = NULL;

    if (!body)
        return;
    int n = asprintf(&text, "event: %s\ndata: %s\n\n", kind, body);
    free(body);
    if (n < 0)
        return;
    struct wake_list w;
    w.n = 0;
    __atomic_fetch_add(&h->published, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&h->lock);
    for (struct rest_events_client *c = h->clients; c; c = c->next)
        if (wanted(c, kind))
            append(h, c, text, (size_t)n, &w);
    pthread_mutex_unlock(&h->lock);
    wake_all(&w);
    free(text);
}

void rest_events_keepalive(struct rest_events *h)
{
    static const char ka[] = ": keepalive\n\n";

    struct wake_list w;
    w.n = 0;
    pthread_mutex_lock(&h->lock);
    for (struct rest_events_client *c = h->clients; c; c = c->next)
        append(h, c, ka, sizeof(ka) - 1, &w);
    pthread_mutex_unlock(&h->lock);
    wake_all(&w);
}

void rest_events_close_all(struct rest_events *h)
{
    struct wake_list w;
    w.n = 0;
    pthread_mutex_lock(&h->lock);
    h->closed = true;
    for (struct rest_events_client *c = h->clients; c; c = c->next) {
        c->cut = true;
        wake(c, &w);
    }
    pthread_mutex_unlock(&h->lock);
    wake_all(&w);
}

ssize_t rest_events_read(struct rest_events_client *c, char *buf, size_t max)
{
    struct rest_events *h = c->hub;
    ssize_t n;

    pthread_mutex_lock(&h->lock);
    if (c->cut) {
        n = -1;
    } else if (c->len == 0) {
        c->waiting = true;
        c->suspending = true;
        c->wake_pending = false;
        n = 0;
    } else {
        size_t k = c->len < max ? c->len : max;
        memcpy(buf, c->buf, k);
        memmove(c->buf, c->buf + k, c->len - k);
        c->len -= k;
        n = (ssize_t)k;
    }
    pthread_mutex_unlock(&h->lock);
    return n;
}

bool rest_events_suspended(struct rest_events_client *c)
{
    struct rest_events *h = c->hub;

    pthread_mutex_lock(&h->lock);
    c->suspending = false;
    bool resume = c->wake_pending;
    c->wake_pending = false;
    pthread_mutex_unlock(&h->lock);
    return resume;
}

void rest_events_get_stats(struct rest_events *h, struct rest_events_stats *out)
{
    pthread_mutex_lock(&h->lock);
    *out = h->st;
    out->published = __atomic_load_n(&h->published, __ATOMIC_RELAXED);
    out->clients = h->n;
    pthread_mutex_unlock(&h->lock);
}
