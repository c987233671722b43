/* rest_login_guard: see rest_login_guard.h. */
#include "rest_login_guard.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int rest_login_guard_init(struct rest_login_guard *g, const struct rest_login_guard_cfg *cfg)
{
    memset(g, 0, sizeof(*g));
    g->cfg = *cfg;
    if (!g->cfg.track_max)
        g->cfg.track_max = 1;
    if (!g->cfg.concurrency)
        g->cfg.concurrency = 1;
    g->failing = calloc(g->cfg.track_max, sizeof(*g->failing));
    if (!g->failing)
        return -ENOMEM;
    pthread_mutex_init(&g->lock, NULL);
    return 0;
}

void rest_login_guard_destroy(struct rest_login_guard *g)
{
    if (!g->failing)
        return;
    pthread_mutex_destroy(&g->lock);
    free(g->failing);
    g->failing = NULL;
}

static struct rest_login_entry *find(struct rest_login_entry *t, size_t n, uint32_t addr)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].used && t[i].addr == addr)
            return &t[i];
    return NULL;
}

static uint64_t lock_end(const struct rest_login_guard *g, const struct rest_login_entry *e)
{
    return e->last_s + g->cfg.lock_s;
}

/* Its failures still count, or a check of it runs: it keeps its entry. */
static bool alive(const struct rest_login_guard *g, const struct rest_login_entry *e,
                  uint64_t now_s)
{
    return e->used && (e->checking || now_s < lock_end(g, e));
}

static bool locked(const struct rest_login_guard *g, const struct rest_login_entry *e,
                   uint64_t now_s)
{
    return e->fails >= REST_LOGIN_FAILS_MAX && now_s < lock_end(g, e);
}

/* addr's entry among the trusted, while it is trusted or still locked. */
static struct rest_login_entry *trusted_find(struct rest_login_guard *g, uint32_t addr,
                                             uint64_t now_s)
{
    struct rest_login_entry *t = find(g->trusted, REST_LOGIN_TRUSTED, addr);

    if (t && now_s >= t->ok_s + REST_LOGIN_TRUST_S && !t->checking && !locked(g, t, now_s)) {
        t->used = false;                /* trust ran out */
        return NULL;
    }
    return t;
}

/* A free entry of the failing table, or NULL with *retry_s until one is. */
static struct rest_login_entry *failing_free(struct rest_login_guard *g, uint64_t now_s,
                                             unsigned *retry_s)
{
    uint64_t first = UINT64_MAX;

    for (size_t i = 0; i < g->cfg.track_max; i++) {
        struct rest_login_entry *e = &g->failing[i];
        if (!alive(g, e, now_s))
            return e;
        if (!e->checking && lock_end(g, e) < first)
            first = lock_end(g, e);
    }
    *retry_s = first == UINT64_MAX ? 1 : (unsigned)(first - now_s);
    return NULL;
}

enum rest_login_verdict rest_login_guard_begin(struct rest_login_guard *g, uint32_t addr,
                                               bool login, uint64_t now_s,
                                               struct rest_login_pass *p, unsigned *retry_s)
{
    enum rest_login_verdict v = REST_LOGIN_GO;
    struct rest_login_entry *e = NULL;

    pthread_mutex_lock(&g->lock);
    struct rest_login_entry *t = trusted_find(g, addr, now_s);
    bool trusted = t && now_s < t->ok_s + REST_LOGIN_TRUST_S;
    if (login) {
        e = t ? t : find(g->failing, g->cfg.track_max, addr);
        if (e && locked(g, e, now_s)) {
            *retry_s = (unsigned)(lock_end(g, e) - now_s);
            v = REST_LOGIN_LOCKED;
        } else if (e && now_s >= lock_end(g, e)) {
            e->fails = 0;               /* served its time, or its failures are old */
        }
        if (v == REST_LOGIN_GO && !e && !failing_free(g, now_s, retry_s))
            v = REST_LOGIN_FULL;
    }
    bool general = g->running < g->cfg.concurrency;
    if (v == REST_LOGIN_GO && !general && !(trusted && !g->running_trusted)) {
        *retry_s = 1;
        v = REST_LOGIN_BUSY;
    }
    if (v == REST_LOGIN_GO) {
        if (login && !e) {
            e = failing_free(g, now_s, retry_s);
            *e = (struct rest_login_entry){.addr = addr, .last_s = now_s, .used = true};
        }
        if (e)
            e->checking++;
        if (general)
            g->running++;
        else
            g->running_trusted = true;
        *p = (struct rest_login_pass){.addr = addr, .login = login, .trusted_slot = !general};
    }
    pthread_mutex_unlock(&g->lock);
    return v;
}

/* Remember that addr logged in: a trusted entry, made from a free or
 * expired one, else the oldest that no check holds and that is not locked. */
static void trust(struct rest_login_guard *g, uint32_t addr, uint64_t now_s)
{
    struct rest_login_entry *t = find(g->trusted, REST_LOGIN_TRUSTED, addr);

    for (size_t i = 0; !t && i < REST_LOGIN_TRUSTED; i++) {
        struct rest_login_entry *c = &g->trusted[i];
        if (!c->used)
            t = c;
    }
    for (size_t i = 0; !t && i < REST_LOGIN_TRUSTED; i++) {
        struct rest_login_entry *c = &g->trusted[i];
        if (!c->checking && !locked(g, c, now_s) && (!t || c->ok_s < t->ok_s))
            t = c;
    }
    if (!t)
        return;
    uint32_t checking = t->used && t->addr == addr ? t->checking : 0;
    *t = (struct rest_login_entry){.addr = addr, .ok_s = now_s, .used = true,
                                   .checking = checking};
}

void rest_login_guard_done(struct rest_login_guard *g, const struct rest_login_pass *p, bool ok,
                           uint64_t now_s)
{
    pthread_mutex_lock(&g->lock);
    if (p->trusted_slot)
        g->running_trusted = false;
    else
        g->running--;
    if (p->login) {
        /* Neither table frees an entry while its check runs: it is there. */
        struct rest_login_entry *e = find(g->trusted, REST_LOGIN_TRUSTED, p->addr);
        if (!e || !e->checking)
            e = find(g->failing, g->cfg.track_max, p->addr);
        if (e && e->checking)
            e->checking--;
        if (e && ok) {
            if (e >= g->failing && e < g->failing + g->cfg.track_max && !e->checking)
                e->used = false;
            trust(g, p->addr, now_s);
        } else if (e) {
            if (e->fails && now_s >= lock_end(g, e))
                e->fails = 0;           /* the earlier failures are old */
            e->fails++;
            e->last_s = now_s;
        }
    }
    pthread_mutex_unlock(&g->lock);
}
