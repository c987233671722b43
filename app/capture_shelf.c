/* capture_shelf: see capture_shelf.h. */
#include "capture_shelf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

const char *capture_kind_name(enum capture_kind k)
{
    switch (k) {
    case CAPTURE_KIND_DISCONNECT:
        return "disconnect";
    case CAPTURE_KIND_ERROR:
        return "error";
    case CAPTURE_KIND_INCONSISTENT:
        return "inconsistent";
    case CAPTURE_KIND_ASKED:
        return "asked";
    }
    return "?";
}

int capture_shelf_init(struct capture_shelf *s, unsigned max, size_t max_bytes)
{
    *s = (struct capture_shelf){.max = max, .max_bytes = max_bytes, .next_id = 1};
    if (max && !(s->copies = calloc(max, sizeof(*s->copies))))
        return -ENOMEM;
    return 0;
}

void capture_shelf_free(struct capture_shelf *s)
{
    for (unsigned i = 0; i < s->n; i++)
        free(s->copies[(s->head + i) % s->max].pcap);
    free(s->copies);
    s->copies = NULL;
    s->n = 0;
}

void capture_copy_when(const struct capture_copy *c, char out[CAPTURE_WHEN_LEN])
{
    time_t t = (time_t)(c->wall_ns / 1000000000u);
    struct tm tm;

    if (!gmtime_r(&t, &tm) || !strftime(out, CAPTURE_WHEN_LEN, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(out, CAPTURE_WHEN_LEN, "-");
}

const struct capture_copy *capture_shelf_at(const struct capture_shelf *s, unsigned i)
{
    return i < s->n ? &s->copies[(s->head + i) % s->max] : NULL;
}

const struct capture_copy *capture_shelf_find(const struct capture_shelf *s, uint32_t id)
{
    for (unsigned i = 0; i < s->n; i++) {
        const struct capture_copy *c = capture_shelf_at(s, i);
        if (c->id == id)
            return c;
    }
    return NULL;
}

/* The same switch and kind waiting, or frozen within the gap. */
static bool recent(const struct capture_shelf *s, uint64_t dpid, enum capture_kind kind,
                   uint64_t now_us)
{
    if (s->has_inflight && s->inflight.dpid == dpid && s->inflight.kind == kind)
        return true;
    for (unsigned i = 0; i < s->n_asks; i++) {
        const struct capture_ask *a = &s->asks[(s->ask_head + i) % CAPTURE_SHELF_ASKS];
        if (a->dpid == dpid && a->kind == kind)
            return true;
    }
    for (unsigned i = 0; i < s->n; i++) {
        const struct capture_copy *c = capture_shelf_at(s, i);
        if (c->dpid == dpid && c->kind == kind && now_us - c->at_us < CAPTURE_SHELF_GAP_US)
            return true;
    }
    return false;
}

int capture_shelf_ask(struct capture_shelf *s, uint64_t dpid, uint64_t conn,
                      enum capture_kind kind, const char *reason, uint64_t now_us)
{
    if (!s->max)
        return -ENOTSUP;
    if (kind != CAPTURE_KIND_ASKED && recent(s, dpid, kind, now_us)) {
        s->st.skipped++;
        return -EALREADY;
    }
    if (s->n_asks == CAPTURE_SHELF_ASKS) {
        s->st.ask_full++;
        return -ENOSPC;
    }
    struct capture_ask *a = &s->asks[(s->ask_head + s->n_asks++) % CAPTURE_SHELF_ASKS];
    *a = (struct capture_ask){.dpid = dpid, .conn = conn, .kind = kind, .at_us = now_us};
    snprintf(a->reason, sizeof(a->reason), "%s", reason ? reason : "");
    s->st.asked++;
    return 0;
}

bool capture_shelf_take_ask(struct capture_shelf *s, struct capture_ask *out)
{
    if (!s->n_asks)
        return false;
    *out = s->inflight = s->asks[s->ask_head];
    s->has_inflight = true;
    s->ask_head = (s->ask_head + 1) % CAPTURE_SHELF_ASKS;
    s->n_asks--;
    return true;
}

void capture_shelf_done(struct capture_shelf *s)
{
    if (s->has_inflight)
        s->st.failed++;
    s->has_inflight = false;
}

static void drop_oldest(struct capture_shelf *s)
{
    struct capture_copy *c = &s->copies[s->head];

    s->bytes -= c->len;
    free(c->pcap);
    c->pcap = NULL;
    s->head = (s->head + 1) % s->max;
    s->n--;
    s->st.evicted++;
}

int capture_shelf_put(struct capture_shelf *s, uint64_t wall_ns, const char *summary,
                      uint8_t *pcap, size_t len, uint32_t *id)
{
    const struct capture_ask *a = &s->inflight;

    if (!s->max || !s->has_inflight || len > s->max_bytes) {
        free(pcap);
        capture_shelf_done(s);
        return !s->max ? -ENOTSUP : len > s->max_bytes ? -E2BIG : -EINVAL;
    }
    while (s->n && (s->n == s->max || s->bytes + len > s->max_bytes))
        drop_oldest(s);
    struct capture_copy *c = &s->copies[(s->head + s->n++) % s->max];
    if (!s->next_id)
        s->next_id = 1;                 /* 0 names the live record */
    *c = (struct capture_copy){.id = s->next_id++, .dpid = a->dpid, .kind = a->kind,
                               .at_us = a->at_us, .wall_ns = wall_ns, .pcap = pcap, .len = len};
    snprintf(c->reason, sizeof(c->reason), "%s", a->reason);
    snprintf(c->summary, sizeof(c->summary), "%s", summary ? summary : "");
    s->bytes += len;
    s->st.frozen++;
    s->has_inflight = false;
    *id = c->id;
    return 0;
}
