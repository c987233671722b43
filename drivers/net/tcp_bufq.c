/*
 * tcp_bufq: payload storage of a connection — byte queues made of fixed
 * chunks from the env's pool (send and receive buffers), and the sorted,
 * non-overlapping out-of-order queue (one segment per chunk).
 *
 * Chunks are taken only while bytes are queued, so an idle connection holds
 * none; bounds come from the caller (rcv_buf, snd_buf, ooo_max_segs).
 */
#include <errno.h>
#include <string.h>

#include "tcp_priv.h"

void *tcp_chunk_take(struct tcp_stack *s)
{
    void *ch = s->env.chunk_alloc(s->env.arg);

    if (ch)
        s->chunks_used++;
    return ch;
}

void tcp_chunk_give(struct tcp_stack *s, void *chunk)
{
    s->chunks_used--;
    s->env.chunk_free(s->env.arg, chunk);
}

static struct tcp_chunk *chunk_get(struct tcp_stack *s)
{
    struct tcp_chunk *ch = tcp_chunk_take(s);
    if (ch)
        ch->next = NULL;
    return ch;
}

uint32_t tcp_bufq_append(struct tcp_stack *s, struct tcp_bufq *q, const uint8_t *data,
                         uint32_t len, uint32_t limit)
{
    uint32_t room = limit > q->len ? limit - q->len : 0;
    uint32_t todo = len < room ? len : room;
    uint32_t done = 0;

    while (done < todo) {
        if (!q->tail || q->tail_used == TCP_CHUNK_DATA) {
            struct tcp_chunk *ch = chunk_get(s);
            if (!ch)
                break;
            if (q->tail)
                q->tail->next = ch;
            else {
                q->head = ch;
                q->head_off = 0;
            }
            q->tail = ch;
            q->tail_used = 0;
            q->nchunks++;
        }
        uint32_t n = TCP_CHUNK_DATA - q->tail_used;
        if (n > todo - done)
            n = todo - done;
        memcpy(q->tail->data + q->tail_used, data + done, n);
        q->tail_used += n;
        done += n;
    }
    q->len += done;
    return done;
}

void tcp_bufq_copy(const struct tcp_bufq *q, uint32_t off, uint8_t *out, uint32_t len)
{
    const struct tcp_chunk *ch = q->head;
    uint32_t pos = q->head_off + off;

    while (ch && pos >= TCP_CHUNK_DATA) {
        pos -= TCP_CHUNK_DATA;
        ch = ch->next;
    }
    while (len > 0 && ch) {
        uint32_t avail = (ch == q->tail ? q->tail_used : TCP_CHUNK_DATA) - pos;
        uint32_t n = avail < len ? avail : len;
        memcpy(out, ch->data + pos, n);
        out += n;
        len -= n;
        pos = 0;
        ch = ch->next;
    }
}

void tcp_bufq_consume(struct tcp_stack *s, struct tcp_bufq *q, uint32_t n)
{
    if (n > q->len)
        n = q->len;
    q->len -= n;
    while (n > 0) {
        uint32_t in_head = (q->head == q->tail ? q->tail_used : TCP_CHUNK_DATA) - q->head_off;
        if (n < in_head) {
            q->head_off += n;
            break;
        }
        n -= in_head;
        struct tcp_chunk *ch = q->head;
        q->head = ch->next;
        q->head_off = 0;
        if (!q->head) {
            q->tail = NULL;
            q->tail_used = 0;
        }
        q->nchunks--;
        tcp_chunk_give(s, ch);
    }
    /* An emptied head chunk that is also the tail is kept for appends only
     * if it still has room; otherwise give it back now (idle = no chunks). */
    if (q->len == 0 && q->head) {
        tcp_chunk_give(s, q->head);
        q->head = q->tail = NULL;
        q->head_off = q->tail_used = 0;
        q->nchunks = 0;
    }
}

void tcp_bufq_clear(struct tcp_stack *s, struct tcp_bufq *q)
{
    while (q->head) {
        struct tcp_chunk *ch = q->head;
        q->head = ch->next;
        tcp_chunk_give(s, ch);
    }
    memset(q, 0, sizeof(*q));
}

size_t tcp_bufq_peek(const struct tcp_bufq *q, struct tcp_iovec *iov, unsigned *iovcnt)
{
    unsigned max = *iovcnt, n = 0;
    size_t total = 0;
    uint32_t pos = q->head_off;

    for (const struct tcp_chunk *ch = q->head; ch && n < max; ch = ch->next) {
        uint32_t end = ch == q->tail ? q->tail_used : TCP_CHUNK_DATA;
        if (end > pos) {
            iov[n].base = ch->data + pos;
            iov[n].len = end - pos;
            total += iov[n].len;
            n++;
        }
        pos = 0;
    }
    *iovcnt = n;
    return total;
}

/* ---- out-of-order queue ---------------------------------------------------------- */

static void ooo_free(struct tcp_conn *c, struct tcp_ooo_seg *seg)
{
    c->ooo_count--;
    tcp_chunk_give(c->stack, seg);
}

int tcp_ooo_insert(struct tcp_conn *c, uint32_t seq, const uint8_t *data, uint32_t len)
{
    struct tcp_stack *s = c->stack;
    struct tcp_ooo_seg **pp = &c->ooo;
    uint32_t end = seq + len;

    /* Skip segments wholly before the new one. */
    while (*pp && seq_leq((*pp)->seq + (*pp)->len, seq))
        pp = &(*pp)->next;
    /* Trim the front against the one that overlaps it. */
    if (*pp && seq_lt((*pp)->seq, seq) && seq_gt((*pp)->seq + (*pp)->len, seq)) {
        uint32_t cut = (*pp)->seq + (*pp)->len - seq;
        if (cut >= len)
            return 0;               /* wholly held already */
        seq += cut;
        data += cut;
        len -= cut;
        pp = &(*pp)->next;
    }
    /* Drop held segments the new one covers completely; trim its tail against
     * the next one it overlaps. */
    while (*pp && seq_leq((*pp)->seq + (*pp)->len, end) && seq_geq((*pp)->seq, seq)) {
        struct tcp_ooo_seg *gone = *pp;
        *pp = gone->next;
        ooo_free(c, gone);
    }
    if (*pp && seq_lt((*pp)->seq, end)) {
        len = (*pp)->seq - seq;
        end = seq + len;
    }
    if (len == 0)
        return 0;
    if (len > TCP_OOO_DATA)
        return -ENOSPC;
    if (c->ooo_count >= s->cfg.ooo_max_segs)
        return -ENOSPC;
    /* Each held segment pins a whole chunk, whatever its length: bound what
     * they pin by bytes, not by count, so a peer sending 1-byte segments
     * holds no more than a full window of MSS-sized ones would (a chunk per
     * segment within 1.5 x tcp.rcv_buf). */
    if ((uint64_t)(c->ooo_count + 1) * TCP_CHUNK_SIZE > (uint64_t)s->cfg.rcv_buf * 3 / 2)
        return -ENOSPC;
    struct tcp_ooo_seg *seg = tcp_chunk_take(s);
    if (!seg)
        return -ENOMEM;
    seg->seq = seq;
    seg->len = len;
    memcpy(seg->data, data, len);
    seg->next = *pp;
    *pp = seg;
    c->ooo_count++;
    return 0;
}

uint32_t tcp_ooo_drain(struct tcp_conn *c)
{
    struct tcp_stack *s = c->stack;
    uint32_t moved = 0;

    while (c->ooo && seq_leq(c->ooo->seq, c->rcv_nxt)) {
        struct tcp_ooo_seg *seg = c->ooo;
        uint32_t skip = c->rcv_nxt - seg->seq;
        if (skip < seg->len) {
            uint32_t want = seg->len - skip;
            uint32_t got = tcp_bufq_append(s, &c->rcvq, seg->data + skip, want,
                                           tcp_rcv_limit(c));
            c->rcv_nxt += got;
            moved += got;
            if (got < want) {
                /* No chunk: keep the rest queued and try again later. */
                memmove(seg->data, seg->data + skip + got, want - got);
                seg->seq = c->rcv_nxt;
                seg->len = want - got;
                break;
            }
        }
        c->ooo = seg->next;
        ooo_free(c, seg);
    }
    return moved;
}

void tcp_ooo_clear(struct tcp_conn *c)
{
    while (c->ooo) {
        struct tcp_ooo_seg *seg = c->ooo;
        c->ooo = seg->next;
        ooo_free(c, seg);
    }
}
