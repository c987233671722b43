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
    g->lines = calloc(g->cfg.track_max + REST_LOGIN_TRUSTED, sizeof(*g->lines));
    if (!g->failing || !g->lines) {
        free(g->failing);
        free(g->lines);
        g->failing = NULL;
        return -ENOMEM;
    }
    pthread_mutex_init(&g->lock, NULL);
    return 0;
}

void rest_login_guard_destroy(struct rest_login_guard *g)
{
    if (!g->failing)
        return;
    pthread_mutex_destroy(&g->lock);
    free(g->failing);
    free(g->lines);
    g->failing = NULL;
    g->lines = NULL;
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

/* The entry a login of addr is counted in now: its trusted one, else its
 * failing one (NULL: none). */
static struct rest_login_entry *entry_now(struct rest_login_guard *g, uint32_t addr,
                                          uint64_t now_s)
{
    struct rest_login_entry *t = trusted_find(g, addr, now_s);

    return t ? t : find(g->failing, g->cfg.track_max, addr);
}

static bool is_trusted(struct rest_login_guard *g, uint32_t addr, uint64_t now_s)
{
    struct rest_login_entry *t = trusted_find(g, addr, now_s);

    return t && now_s < t->ok_s + REST_LOGIN_TRUST_S;
}

/* A login of addr leaves the guard: the entry that counted it lets go.
 * Neither table frees an entry while a login of it is counted, so it is
 * there; a success may have moved the address to the trusted table while
 * earlier logins were counted in its failing entry: the trusted one first,
 * while it counts any. */
static struct rest_login_entry *entry_release(struct rest_login_guard *g, uint32_t addr)
{
    struct rest_login_entry *e = find(g->trusted, REST_LOGIN_TRUSTED, addr);

    if (!e || !e->checking)
        e = find(g->failing, g->cfg.track_max, addr);
    if (e && e->checking)
        e->checking--;
    return e;
}

static struct rest_login_line *line_find(struct rest_login_guard *g, uint32_t addr)
{
    for (size_t i = 0; i < g->cfg.track_max + REST_LOGIN_TRUSTED; i++)
        if (g->lines[i].used && g->lines[i].addr == addr)
            return &g->lines[i];
    return NULL;
}

/* A line for addr; there is one for each address with an entry alive at
 * most, so NULL only if that bound were broken. */
static struct rest_login_line *line_new(struct rest_login_guard *g, uint32_t addr)
{
    for (size_t i = 0; i < g->cfg.track_max + REST_LOGIN_TRUSTED; i++)
        if (!g->lines[i].used) {
            g->lines[i] = (struct rest_login_line){.addr = addr, .used = true};
            return &g->lines[i];
        }
    return NULL;
}

static void line_push(struct rest_login_line *l, struct rest_login_pass *p)
{
    p->next = NULL;
    if (l->tail)
        l->tail->next = p;
    else
        l->head = p;
    l->tail = p;
    l->waiting++;
}

static struct rest_login_pass *line_pop(struct rest_login_line *l)
{
    struct rest_login_pass *p = l->head;

    l->head = p->next;
    if (!l->head)
        l->tail = NULL;
    l->waiting--;
    p->next = NULL;
    return p;
}

static void ready_push(struct rest_login_guard *g, struct rest_login_line *l)
{
    l->ready_next = NULL;
    if (g->ready_tail)
        g->ready_tail->ready_next = l;
    else
        g->ready_head = l;
    g->ready_tail = l;
}

/* The first line in turn (of a trusted address only, when asked), taken
 * out of the round robin; NULL when none. */
static struct rest_login_line *ready_take(struct rest_login_guard *g, bool trusted_only,
                                          uint64_t now_s)
{
    struct rest_login_line *prev = NULL;

    for (struct rest_login_line *l = g->ready_head; l; prev = l, l = l->ready_next) {
        if (trusted_only && !is_trusted(g, l->addr, now_s))
            continue;
        if (prev)
            prev->ready_next = l->ready_next;
        else
            g->ready_head = l->ready_next;
        if (g->ready_tail == l)
            g->ready_tail = prev;
        l->ready_next = NULL;
        return l;
    }
    return NULL;
}

/* A general slot, else (for a trusted address) the trusted one. */
static bool slot_take(struct rest_login_guard *g, bool trusted, struct rest_login_pass *p)
{
    if (g->running < g->cfg.concurrency) {
        g->running++;
        p->trusted_slot = false;
        return true;
    }
    if (trusted && !g->running_trusted) {
        g->running_trusted = true;
        p->trusted_slot = true;
        return true;
    }
    return false;
}

/* Append p to the hand-back list whose last link is *tail. */
static void hand_back(struct rest_login_pass ***tail, struct rest_login_pass *p,
                      enum rest_login_verdict v, unsigned retry_s)
{
    p->verdict = v;
    p->retry_s = retry_s;
    p->next = NULL;
    **tail = p;
    *tail = &p->next;
}

/* Every waiting login of l's address refused LOCKED by e; l is freed. */
static void line_refuse(struct rest_login_guard *g, struct rest_login_line *l,
                        const struct rest_login_entry *e, uint64_t now_s,
                        struct rest_login_pass ***tail)
{
    unsigned retry = (unsigned)(lock_end(g, e) - now_s);

    while (l->head) {
        struct rest_login_pass *p = line_pop(l);
        entry_release(g, p->addr);
        hand_back(tail, p, REST_LOGIN_LOCKED, retry);
    }
    l->used = false;
}

/* Free slots to the lines waiting, in turn. */
static void hand_out(struct rest_login_guard *g, uint64_t now_s, struct rest_login_pass ***tail)
{
    for (;;) {
        bool general = g->running < g->cfg.concurrency;
        if (!general && g->running_trusted)
            return;
        struct rest_login_line *l = ready_take(g, !general, now_s);
        if (!l)
            return;
        const struct rest_login_entry *e = entry_now(g, l->addr, now_s);
        if (e && locked(g, e, now_s)) {
            line_refuse(g, l, e, now_s, tail);
            continue;
        }
        struct rest_login_pass *p = line_pop(l);
        slot_take(g, !general, p);
        l->running = true;
        hand_back(tail, p, REST_LOGIN_GO, 0);
    }
}

/* A login of addr, not locked, not refused for a full table: it runs now
 * or waits its turn behind the address's own and the others' checks. */
static enum rest_login_verdict login_admit(struct rest_login_guard *g, uint32_t addr,
                                           struct rest_login_entry *e, bool trusted,
                                           uint64_t now_s, struct rest_login_pass *p,
                                           unsigned *retry_s)
{
    struct rest_login_line *l = line_find(g, addr);

    if (l ? l->waiting >= REST_LOGIN_LINE_MAX : !(l = line_new(g, addr))) {
        *retry_s = 1;
        return REST_LOGIN_BUSY;
    }
    if (!e) {
        e = failing_free(g, now_s, retry_s);
        *e = (struct rest_login_entry){.addr = addr, .last_s = now_s, .used = true};
    }
    e->checking++;
    *p = (struct rest_login_pass){.addr = addr, .login = true, .verdict = REST_LOGIN_GO};
    if (!l->running && !l->waiting && slot_take(g, trusted, p)) {
        l->running = true;
        return REST_LOGIN_GO;
    }
    line_push(l, p);
    if (!l->running && l->waiting == 1)
        ready_push(g, l);
    p->verdict = REST_LOGIN_WAIT;
    return REST_LOGIN_WAIT;
}

bool rest_login_guard_locked(struct rest_login_guard *g, uint32_t addr, uint64_t now_s,
                             unsigned *retry_s)
{
    pthread_mutex_lock(&g->lock);
    const struct rest_login_entry *e = entry_now(g, addr, now_s);
    bool is = e && locked(g, e, now_s);
    if (is)
        *retry_s = (unsigned)(lock_end(g, e) - now_s);
    pthread_mutex_unlock(&g->lock);
    return is;
}

enum rest_login_verdict rest_login_guard_begin(struct rest_login_guard *g, uint32_t addr,
                                               bool login, uint64_t now_s,
                                               struct rest_login_pass *p, unsigned *retry_s)
{
    enum rest_login_verdict v = REST_LOGIN_GO;

    pthread_mutex_lock(&g->lock);
    bool trusted = is_trusted(g, addr, now_s);
    if (!login) {
        *p = (struct rest_login_pass){.addr = addr};
        if (!slot_take(g, trusted, p)) {
            *retry_s = 1;
            v = REST_LOGIN_BUSY;
        }
        pthread_mutex_unlock(&g->lock);
        return v;
    }
    struct rest_login_entry *e = entry_now(g, addr, now_s);
    if (e && locked(g, e, now_s)) {
        *retry_s = (unsigned)(lock_end(g, e) - now_s);
        v = REST_LOGIN_LOCKED;
    } else if (e && now_s >= lock_end(g, e)) {
        e->fails = 0;                   /* served its time, or its failures are old */
    }
    if (v == REST_LOGIN_GO && !e && !failing_free(g, now_s, retry_s))
        v = REST_LOGIN_FULL;
    if (v == REST_LOGIN_GO)
        v = login_admit(g, addr, e, trusted, now_s, p, retry_s);
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

struct rest_login_pass *rest_login_guard_done(struct rest_login_guard *g,
                                              const struct rest_login_pass *p, bool ok,
                                              uint64_t now_s)
{
    struct rest_login_pass *out = NULL, **tail = &out;

    pthread_mutex_lock(&g->lock);
    if (p->trusted_slot)
        g->running_trusted = false;
    else
        g->running--;
    if (p->login) {
        struct rest_login_entry *e = entry_release(g, p->addr);
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
        /* The address's next login, unless this failure locked it. */
        struct rest_login_line *l = line_find(g, p->addr);
        if (l) {
            l->running = false;
            e = entry_now(g, p->addr, now_s);
            if (!l->waiting)
                l->used = false;
            else if (e && locked(g, e, now_s))
                line_refuse(g, l, e, now_s, &tail);
            else
                ready_push(g, l);
        }
    }
    hand_out(g, now_s, &tail);
    pthread_mutex_unlock(&g->lock);
    return out;
}
