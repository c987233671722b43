/* rest_login_guard: see rest_login_guard.h. */
#include "rest_login_guard.h"

#include <string.h>

void rest_login_guard_init(struct rest_login_guard *g)
{
    memset(g->slot, 0, sizeof(g->slot));
    pthread_mutex_init(&g->lock, NULL);
}

void rest_login_guard_destroy(struct rest_login_guard *g)
{
    pthread_mutex_destroy(&g->lock);
}

static struct rest_login_slot *find(struct rest_login_guard *g, uint32_t addr)
{
    for (unsigned i = 0; i < REST_LOGIN_SLOTS; i++)
        if (g->slot[i].addr == addr)
            return &g->slot[i];
    return NULL;
}

unsigned rest_login_guard_wait(struct rest_login_guard *g, uint32_t addr, uint64_t now_s)
{
    unsigned wait = 0;

    pthread_mutex_lock(&g->lock);
    struct rest_login_slot *s = addr ? find(g, addr) : NULL;
    if (s && s->fails >= REST_LOGIN_FAILS_MAX) {
        if (now_s >= s->last_s + REST_LOGIN_WINDOW_S)
            memset(s, 0, sizeof(*s));   /* served its time: a clean slate */
        else
            wait = (unsigned)(s->last_s + REST_LOGIN_WINDOW_S - now_s);
    }
    pthread_mutex_unlock(&g->lock);
    return wait;
}

void rest_login_guard_result(struct rest_login_guard *g, uint32_t addr, bool ok, uint64_t now_s)
{
    if (!addr)
        return;
    pthread_mutex_lock(&g->lock);
    struct rest_login_slot *s = find(g, addr);
    if (ok) {
        if (s)
            memset(s, 0, sizeof(*s));
    } else {
        if (s && now_s >= s->last_s + REST_LOGIN_WINDOW_S)
            s->fails = 0;               /* old failures no longer count */
        if (!s) {
            /* A free slot, or the one whose last failure is oldest. */
            for (unsigned i = 0; i < REST_LOGIN_SLOTS; i++) {
                if (!g->slot[i].addr) {
                    s = &g->slot[i];
                    break;
                }
                if (!s || g->slot[i].last_s < s->last_s)
                    s = &g->slot[i];
            }
            memset(s, 0, sizeof(*s));
            s->addr = addr;
        }
        s->fails++;
        s->last_s = now_s;
    }
    pthread_mutex_unlock(&g->lock);
}
