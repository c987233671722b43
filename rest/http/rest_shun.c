/* rest_shun: see rest_shun.h. */
#include "rest_shun.h"

#include <string.h>

void rest_shun_init(struct rest_shun *s, unsigned per_s, unsigned burst)
{
    memset(s->slot, 0, sizeof(s->slot));
    s->per_s = per_s;
    s->burst = burst ? burst : 1;
    pthread_mutex_init(&s->lock, NULL);
}

void rest_shun_destroy(struct rest_shun *s)
{
    pthread_mutex_destroy(&s->lock);
}

static unsigned home(uint32_t addr)
{
    return (addr * 2654435761u) >> 20;         /* 12 bits: REST_SHUN_SLOTS */
}

/* addr's slot within its window, or NULL (under s->lock). */
static struct rest_shun_slot *find(struct rest_shun *s, uint32_t addr)
{
    for (unsigned i = 0; i < REST_SHUN_PROBE; i++) {
        struct rest_shun_slot *sl = &s->slot[(home(addr) + i) % REST_SHUN_SLOTS];
        if (sl->addr == addr)
            return sl;
    }
    return NULL;
}

/* A slot for addr, new: a free one of its window, else the fullest. */
static struct rest_shun_slot *place(struct rest_shun *s, uint32_t addr, uint64_t now_us)
{
    struct rest_shun_slot *best = NULL;

    for (unsigned i = 0; i < REST_SHUN_PROBE; i++) {
        struct rest_shun_slot *sl = &s->slot[(home(addr) + i) % REST_SHUN_SLOTS];
        if (!sl->addr) {
            best = sl;
            break;
        }
        ofcd_tbucket_refill(&sl->bucket, now_us, s->per_s, s->burst);
        if (!best || sl->bucket.tokens > best->bucket.tokens)
            best = sl;
    }
    best->addr = addr;
    ofcd_tbucket_init(&best->bucket, now_us, s->burst);
    return best;
}

bool rest_shun_refused(struct rest_shun *s, uint32_t addr, uint64_t now_us)
{
    if (!s->per_s || !addr)
        return false;
    pthread_mutex_lock(&s->lock);
    struct rest_shun_slot *sl = find(s, addr);
    if (!sl)
        sl = place(s, addr, now_us);
    ofcd_tbucket_refill(&sl->bucket, now_us, s->per_s, s->burst);
    bool had = sl->bucket.tokens >= 1.0;
    /* Into debt: the refusals of connections accepted together, while it
     * still had a token, are paid back before it is accepted again. */
    if (sl->bucket.tokens > -(double)s->burst)
        ofcd_tbucket_spend(&sl->bucket);
    bool shunned = had && sl->bucket.tokens < 1.0;
    pthread_mutex_unlock(&s->lock);
    return shunned;
}

bool rest_shun_accept(struct rest_shun *s, uint32_t addr, uint64_t now_us)
{
    if (!s->per_s || !addr)
        return true;
    pthread_mutex_lock(&s->lock);
    struct rest_shun_slot *sl = find(s, addr);
    bool ok = !sl || ofcd_tbucket_ready(&sl->bucket, now_us, s->per_s, s->burst);
    pthread_mutex_unlock(&s->lock);
    return ok;
}
