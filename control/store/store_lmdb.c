/*
 * store_lmdb: the store's durable backend, one LMDB environment (see
 * store.h); the group commit is store_queue's, each of its transactions one
 * LMDB write transaction whose commit is the batch's one sync.
 *
 * Owns the "flows" database and the apps' records ("apps"). Only the
 * committer writes, so there is never more than one writer waiting on
 * LMDB's own lock; readers use read transactions of their own (MVCC) and
 * never wait for it.
 *
 * Durability: with store_config.journal (opt-in, store.journal) each
 * commit is one append and one fdatasync of a journal and LMDB runs
 * without syncs, made durable at checkpoints (store_lmdb_jnl.h); without
 * it LMDB's default synchronous commit (two syncs). Either way a change
 * confirmed with 0 survives SIGKILL of the process and, on storage that
 * honours fsync, a power cut; reopening after a crash sees exactly the
 * committed batches. With store_config.lazy_meta_sync (a replica's copy;
 * flow_manager.durability = group with meta_sync_ms) a commit syncs its
 * pages only and its meta page goes down with the next commit or late
 * (store_lmdb_meta.h): SIGKILL still loses nothing confirmed, a power cut
 * may undo the last commit, never half of one.
 *
 * Record layout (native byte order: the file never leaves this machine):
 *   key   = dpid (8, big-endian) | match_id (8, big-endian), so keys sort by
 *           dpid and one cursor range walks one switch
 *   value = header | owner bytes | JSON bytes, coded (store_jcode.h) when
 *           that makes them shorter (store_lmdb_rec.h: 22 bytes of header
 *           for most flows; version 1's 40-byte records are still read)
 *
 * A flow is written once. Its state changes (store_set_state: installed,
 * error) go to a small record of their own in the "state" database, same
 * key, 18 bytes (22 with an error: store_lmdb_rec.h; the flow_id it is
 * about, when),
 * not into a new copy of the flow's record: match_ids are hashes, so a
 * batch's flows lie on as many leaf pages as there are flows, and
 * rewriting each record copied every one of those 4 KiB pages a second
 * time (at 1 M flows 4.9 KB written per flow, half of it state updates).
 * The state records are ~8 times denser. Every read of a flow takes its
 * state record when there is one for that flow_id; a put, delete or mark
 * as deleted of the flow drops it (a deleted flow's state is its record's),
 * so a state record only ever describes the record it followed, and a
 * store without any (older ones) reads as before.
 */
#include "store.h"

#include <errno.h>
#include <limits.h>
#include <lmdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ofcd_clock.h"
#include "ofcd_log.h"
#include "store_jcode.h"
#include "store_lmdb_jnl.h"
#include "store_lmdb_meta.h"
#include "store_lmdb_rec.h"
#include "store_queue.h"

#define STORE_COMP "store"
#define STORE_DB_NAME "flows"
#define STORE_KV_DB_NAME "apps"
#define STORE_STATE_DB_NAME "state"
#define STORE_KEY_LEN 16

/* The databases as the journal's records name them. */
#define DB_FLOWS 0u
#define DB_APPS 1u
#define DB_STATE 2u

/* What one may take in its tree (key, value, node header and pointer, on
 * leaf pages half full after random inserts split them), for the room a
 * put keeps for its flow's state record to come. */
#define STATE_ENTRY_COST (2 * (STORE_KEY_LEN + REC_STATE_MAX + 8 + 2))

/*
 * LMDB copies on write: a delete needs free pages too, so a map filled to
 * the last page could never be emptied again. Puts stop at map size minus
 * this reserve (1/8 of the map, at least 16 pages, at most 64 MiB of 4 KiB
 * pages); deletes and state updates may use it.
 */
#define STORE_RESERVE_MIN_PAGES 16u
#define STORE_RESERVE_MAX_PAGES 16384u
/*
 * No commit reuses a page the commit before it freed (LMDB keeps the last
 * snapshot whole), so right after a transaction that rewrote many pages the
 * reserve holds their old copies too. Near the map's end a transaction
 * touches at most this share of the reserve in records (about a leaf page
 * each, plus the branches above them): what is left still takes the next
 * delete. Found by a full test map whose state updates came in batches of
 * hundreds. Far from it, the pages never used yet bound it (lmdb_budget).
 */
#define STORE_TXN_RESERVE_SHARE 4u

/*
 * The data file is kept written (with zeros) ahead of LMDB's last page, so
 * that a commit's pages land in blocks the file system has already
 * allocated and initialised: its two fdatasyncs (data, then meta page)
 * then carry no size or extent change to journal. Measured on this
 * machine's ext4: 0.13 ms per 8 KiB sync against 0.34 ms when the file
 * grows. Zeros are only ever written past the file's end, which LMDB has
 * never used, and only on the committer thread, between transactions.
 */
#define STORE_AHEAD_BYTES (4u << 20)

struct store_lmdb {
    struct store_queue q;     /* first: the group commit, then struct store */
    bool keep_times;          /* store_config.keep_times */
    bool lazy_meta_sync;      /* store_config.lazy_meta_sync */
    struct lmdb_jnl *jnl;     /* store_config.journal; NULL: LMDB's own syncs */
    struct lmdb_meta_sync *meta;  /* store_config.meta_sync_ms: the last commit's late sync */
    MDB_env *env;
    MDB_dbi dbi;
    MDB_dbi kv_dbi;           /* the apps' records (store_kv_*) */
    MDB_dbi state_dbi;        /* the flows' state records (see the top) */
    size_t map_size;
    size_t psize;
    size_t put_limit_pages;   /* flow pages beyond which puts get -ENOSPC */
    unsigned txn_records;     /* records per commit near the map's end (lmdb_budget) */

    /* committer thread only */
    MDB_txn *txn;             /* the write transaction being applied */
    uint8_t *scratch;
    size_t scratch_cap;
    uint64_t written_ahead;   /* the data file is initialised up to here (bytes) */
    bool prealloc_failed;     /* logged once; commits still work, only slower */
    int apply_rc;             /* the failing apply of the transaction being aborted */
};

static struct store_lmdb *L(struct store *s)
{
    return (struct store_lmdb *)s;
}

static struct store_lmdb *LQ(struct store_queue *q)
{
    return (struct store_lmdb *)q;
}

/* LMDB codes are negative numbers of their own; keep them out of errno space. */
static int store_err(int mdb_rc)
{
    switch (mdb_rc) {
    case MDB_SUCCESS:
        return 0;
    case MDB_NOTFOUND:
        return -ENOENT;
    case MDB_MAP_FULL:
        return -ENOSPC;
    case MDB_TXN_FULL:
        return -E2BIG;
    case MDB_READERS_FULL:
        return -EAGAIN;
    default:
        return mdb_rc > 0 ? -mdb_rc : -EIO;
    }
}

static void store_key(uint8_t key[STORE_KEY_LEN], uint64_t dpid, uint64_t match_id)
{
    for (int i = 0; i < 8; i++) {
        key[i] = (uint8_t)(dpid >> (56 - 8 * i));
        key[8 + i] = (uint8_t)(match_id >> (56 - 8 * i));
    }
}

static uint64_t store_key_u64(const uint8_t *p)
{
    uint64_t v = 0;

    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

/*
 * The flows' and states' key order: LMDB's own (memcmp, then the shorter
 * first), computed as two big-endian integers for the 16-byte keys they
 * all are. Finding a key is most of a batch's CPU in LMDB, and its
 * default compare is two calls per step for 16 bytes. The order is the
 * same, so files written with either read with either.
 */
static int store_key_cmp(const MDB_val *a, const MDB_val *b)
{
    if (a->mv_size != STORE_KEY_LEN || b->mv_size != STORE_KEY_LEN) {
        size_t n = a->mv_size < b->mv_size ? a->mv_size : b->mv_size;
        int c = memcmp(a->mv_data, b->mv_data, n);
        return c ? c : a->mv_size < b->mv_size ? -1 : a->mv_size > b->mv_size;
    }
    const uint8_t *p = a->mv_data, *q = b->mv_data;
    for (int i = 0; i < STORE_KEY_LEN; i += 8) {
        uint64_t x = store_key_u64(p + i), y = store_key_u64(q + i);
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

/* The header f's record gets, put now. */
static struct rec_hdr rec_hdr_of(const struct store_flow *f, uint64_t now, bool keep_times,
                                 bool coded)
{
    bool err = f->state == STORE_FLOW_ERROR;

    return (struct rec_hdr){
        .state = (uint8_t)f->state,
        .coded = coded,
        .err_type = err ? f->err_type : 0,
        .err_code = err ? f->err_code : 0,
        .owner_len = (uint8_t)store_owner_len(f),
        .json_len = (uint32_t)f->json_len,
        .flow_id = f->flow_id,
        .added_ns = keep_times && f->added_ns ? f->added_ns : now,
        .changed_ns = keep_times && f->changed_ns ? f->changed_ns : now,
    };
}

/* h, then f's owner, then its JSON: coded (coded_len bytes) or, when NULL,
 * f's as is. */
static void rec_encode(uint8_t *v, const struct rec_hdr *h, const struct store_flow *f,
                       const uint8_t *coded, size_t coded_len)
{
    size_t at = rec_hdr_write(v, h);

    if (h->owner_len)
        memcpy(v + at, f->owner, h->owner_len);
    at += h->owner_len;
    if (coded)
        memcpy(v + at, coded, coded_len);
    else if (f->json_len)
        memcpy(v + at, f->json, f->json_len);
}

/* The flow's state record, when there is one about this version of it. */
static void state_merge(MDB_txn *txn, MDB_dbi state_dbi, const MDB_val *k, struct store_flow *f)
{
    MDB_val sk = *k, sv;
    struct rec_state st;

    if (f->state == STORE_FLOW_DELETED || mdb_get(txn, state_dbi, &sk, &sv) != 0 ||
        rec_state_read(sv.mv_data, sv.mv_size, &st) != 0 || st.flow_id != f->flow_id)
        return;
    f->state = (enum store_flow_state)st.state;
    f->err_type = st.err_type;
    f->err_code = st.err_code;
    f->changed_ns = st.changed_ns;
}

/* Where a reader decodes coded JSON: grown as needed, freed by rec_text_free. */
struct rec_text {
    char *p;
    size_t cap;
};

static void rec_text_free(struct rec_text *t)
{
    free(t->p);
    t->p = NULL;
    t->cap = 0;
}

/* The record's JSON: in place, or decoded into text. 0, -EIO, -ENOMEM. */
static int rec_json(const uint8_t *p, size_t coded_len, size_t jlen, bool coded,
                    struct rec_text *text, const char **out)
{
    if (!coded) {
        *out = (const char *)p;
        return 0;
    }
    if (jlen + 1 > text->cap) {
        char *np = realloc(text->p, jlen + 1);

        if (!np)
            return -ENOMEM;
        text->p = np;
        text->cap = jlen + 1;
    }
    if (store_jcode_decode(p, coded_len, text->p, jlen) != 0)
        return -EIO;
    text->p[jlen] = '\0';
    *out = text->p;
    return 0;
}

/*
 * Decode a record as written, without its state record; owner is copied
 * into owner_buf (STORE_OWNER_MAX + 1) so it can be NUL-terminated, json
 * points into v, or into text when it was coded (valid until text's next
 * use); with text NULL json is left NULL (json_len still the text's): a
 * coded text is not decoded for a caller that reads none. -EIO for a
 * damaged record, -ENOMEM.
 */
static int rec_decode_own(const MDB_val *k, const MDB_val *v, struct store_flow *f,
                          char *owner_buf, struct rec_text *text)
{
    const uint8_t *p = v->mv_data;
    struct rec_hdr h;
    const char *json = NULL;
    int len, rc;

    if (k->mv_size != STORE_KEY_LEN || (len = rec_hdr_read(p, v->mv_size, &h)) < 0)
        return -EIO;
    p += len;
    rc = text ? rec_json(p + h.owner_len, v->mv_size - (size_t)len - h.owner_len, h.json_len,
                         h.coded, text, &json) : 0;
    if (rc)
        return rc;
    memset(f, 0, sizeof(*f));
    f->dpid = store_key_u64(k->mv_data);
    f->match_id = store_key_u64((const uint8_t *)k->mv_data + 8);
    f->flow_id = h.flow_id;
    f->state = (enum store_flow_state)h.state;
    f->err_type = h.err_type;
    f->err_code = h.err_code;
    f->added_ns = h.added_ns;
    f->changed_ns = h.changed_ns;
    memcpy(owner_buf, p, h.owner_len);
    owner_buf[h.owner_len] = '\0';
    f->owner = owner_buf;
    f->json = json;
    f->json_len = h.json_len;
    return 0;
}

/* rec_decode_own, then the flow's state record merged as of txn. */
static int rec_decode(MDB_txn *txn, MDB_dbi state_dbi, const MDB_val *k, const MDB_val *v,
                      struct store_flow *f, char *owner_buf, struct rec_text *text)
{
    int rc = rec_decode_own(k, v, f, owner_buf, text);

    if (rc == 0)
        state_merge(txn, state_dbi, k, f);
    return rc;
}

/* ---- committer side: store_queue's transaction --------------------------- */

/* The database a journal record names. */
static MDB_dbi db_dbi(const struct store_lmdb *s, unsigned db)
{
    return db == DB_APPS ? s->kv_dbi : db == DB_STATE ? s->state_dbi : s->dbi;
}

/* mdb_put / mdb_del of the committer's transaction, kept in the journal
 * when there is one. A put with MDB_RESERVE is journaled by the caller
 * once the value is written (lmdb_jnl_put). */
static int txn_put(struct store_lmdb *s, unsigned db, MDB_val *k, MDB_val *v)
{
    int rc = store_err(mdb_put(s->txn, db_dbi(s, db), k, v, 0));

    return !rc && s->jnl ? lmdb_jnl_put(s->jnl, db, k, v) : rc;
}

static int txn_del(struct store_lmdb *s, unsigned db, MDB_val *k)
{
    int rc = store_err(mdb_del(s->txn, db_dbi(s, db), k, NULL));

    return !rc && s->jnl ? lmdb_jnl_del(s->jnl, db, k) : rc;
}

/* The flow record at k is replaced or goes: its state record (if any) goes
 * with it. */
static int state_drop(struct store_lmdb *s, MDB_val *k)
{
    int rc = txn_del(s, DB_STATE, k);

    return rc == -ENOENT ? 0 : rc;
}

/* Remove the flow record at k and its state record. */
static int flow_del(struct store_lmdb *s, MDB_val *k)
{
    int rc = txn_del(s, DB_FLOWS, k);

    return rc ? rc : state_drop(s, k);
}

/* -ENOSPC when a record of vlen bytes would push the flows into the
 * reserve. The state records every flow may still get count as taken:
 * state updates are never refused for room, so they must not be what
 * eats the reserve deletes need. */
static int store_room_check(struct store_lmdb *s, size_t vlen)
{
    MDB_stat ms, ss;
    size_t pages;
    int rc;

    rc = mdb_stat(s->txn, s->dbi, &ms);
    if (!rc)
        rc = mdb_stat(s->txn, s->state_dbi, &ss);
    if (rc)
        return store_err(rc);
    /* Current trees (this transaction included) + the record's own pages. */
    pages = ms.ms_branch_pages + ms.ms_leaf_pages + ms.ms_overflow_pages;
    pages += ss.ms_branch_pages + ss.ms_leaf_pages + ss.ms_overflow_pages;
    size_t to_come = ms.ms_entries > ss.ms_entries ? ms.ms_entries - ss.ms_entries : 0;
    pages += (to_come + 1) * STATE_ENTRY_COST / s->psize + 1;
    pages += 1 + (vlen + STORE_KEY_LEN) / s->psize;
    return pages > s->put_limit_pages ? -ENOSPC : 0;
}

/* The committer's staging copy of n bytes: a value read from the map must
 * be copied before mdb_put, which may reuse its page; a put's coded JSON
 * waits there for its page. */
static uint8_t *store_scratch(struct store_lmdb *s, size_t n)
{
    if (n > s->scratch_cap) {
        uint8_t *ns = realloc(s->scratch, n);

        if (!ns)
            return NULL;
        s->scratch = ns;
        s->scratch_cap = n;
    }
    return s->scratch;
}

static int store_apply_put(struct store_lmdb *s, struct store_op *op, uint64_t now,
                           struct store_tally *t)
{
    for (size_t i = 0; i < op->u.put.n; i++) {
        const struct store_flow *f = &op->u.put.flows[i];
        uint8_t kb[STORE_KEY_LEN], *coded = store_scratch(s, f->json_len);
        long clen = coded && f->json_len ? store_jcode_encode(f->json, f->json_len, coded) : -1;
        size_t body = clen > 0 ? (size_t)clen : f->json_len;
        MDB_val k = { STORE_KEY_LEN, kb };
        struct rec_hdr h = rec_hdr_of(f, now, s->keep_times, clen > 0);
        MDB_val v = { rec_hdr_len(&h) + h.owner_len + body, NULL };
        int rc;

        rc = store_room_check(s, v.mv_size);
        if (rc)
            return rc;
        store_key(kb, f->dpid, f->match_id);
        /* MDB_RESERVE: encode straight into the page, no staging copy.
         * A new key cannot have a state record (one is only written next
         * to its flow's record and goes with it): only a replaced flow
         * pays the search of the state tree, a second B-tree descent per
         * put otherwise (a batch's largest CPU cost is LMDB's key search). */
        size_t vlen = v.mv_size;
        rc = mdb_put(s->txn, s->dbi, &k, &v, MDB_RESERVE | MDB_NOOVERWRITE);
        bool replaced = rc == MDB_KEYEXIST;
        if (replaced) {
            v = (MDB_val){ vlen, NULL };
            rc = mdb_put(s->txn, s->dbi, &k, &v, MDB_RESERVE);
        }
        if (rc)
            return store_err(rc);
        rec_encode(v.mv_data, &h, f, clen > 0 ? coded : NULL, body);
        if (s->jnl && (rc = lmdb_jnl_put(s->jnl, DB_FLOWS, &k, &v)) != 0)
            return rc;
        if (replaced && (rc = state_drop(s, &k)) != 0)
            return rc;
        t->put++;
        rc = store_queue_changed_flow(&s->q, f->dpid, f->match_id, false);
        if (rc)
            return rc;
    }
    return 0;
}

static int store_apply_del(struct store_lmdb *s, struct store_op *op, struct store_tally *t)
{
    uint8_t kb[STORE_KEY_LEN];
    MDB_val k = { STORE_KEY_LEN, kb };
    int rc;

    store_key(kb, op->u.del.dpid, op->u.del.match_id);
    rc = flow_del(s, &k);
    if (rc)
        return rc;
    t->deleted++;
    return store_queue_changed_flow(&s->q, op->u.del.dpid, op->u.del.match_id, true);
}

/* Rewrite the record at k in state DELETED, changed now (its deleted_at). */
static int store_mark_deleted(struct store_lmdb *s, MDB_val *k, uint64_t now)
{
    MDB_val v;
    struct rec_hdr h;
    int len, rc = mdb_get(s->txn, s->dbi, k, &v);

    if (rc)
        return store_err(rc);
    if ((len = rec_hdr_read(v.mv_data, v.mv_size, &h)) < 0)
        return len;
    size_t rest = v.mv_size - (size_t)len;  /* owner and JSON, as they are */
    h.state = STORE_FLOW_DELETED;
    h.err_type = h.err_code = 0;
    h.changed_ns = now;
    uint8_t *p = store_scratch(s, rec_hdr_len(&h) + rest);
    if (!p)
        return -ENOMEM;
    size_t at = rec_hdr_write(p, &h);
    memcpy(p + at, (const uint8_t *)v.mv_data + len, rest);
    v = (MDB_val){at + rest, p};
    rc = txn_put(s, DB_FLOWS, k, &v);
    return rc ? rc : state_drop(s, k);
}

/*
 * Matching keys are collected first and deleted afterwards so the walk never
 * depends on where a cursor lands after a delete.
 */
static int store_apply_del_if(struct store_lmdb *s, struct store_op *op, uint64_t now,
                              struct store_tally *t)
{
    uint8_t kb[STORE_KEY_LEN], *keys = NULL;
    size_t nkeys = 0, cap = 0;
    char owner[STORE_OWNER_MAX + 1];
    struct rec_text text = {0};
    MDB_cursor *cur;
    MDB_val k, v;
    int rc;

    op->u.del_if.deleted = 0;
    rc = mdb_cursor_open(s->txn, s->dbi, &cur);
    if (rc)
        return store_err(rc);
    if (op->u.del_if.all) {
        rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
    } else {
        store_key(kb, op->u.del_if.dpid, 0);
        k.mv_size = STORE_KEY_LEN;
        k.mv_data = kb;
        rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
    }
    for (; rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        struct store_flow f;

        int drc = rec_decode(s->txn, s->state_dbi, &k, &v, &f, owner, &text);

        if (drc == -EIO) {
            LOG_WARN(STORE_COMP, "skipping a damaged record in a bulk delete");
            continue;
        }
        if (drc) {
            rc = -drc;
            break;
        }
        if (!op->u.del_if.all && f.dpid != op->u.del_if.dpid)
            break;
        if (op->u.del_if.mark && f.state == STORE_FLOW_DELETED)
            continue;                               /* already: its deleted_at stays */
        if (!op->u.del_if.pred(&f, op->u.del_if.arg))
            continue;
        if (nkeys == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            uint8_t *nk = realloc(keys, ncap * STORE_KEY_LEN);

            if (!nk) {
                rc = ENOMEM;
                break;
            }
            keys = nk;
            cap = ncap;
        }
        memcpy(keys + nkeys * STORE_KEY_LEN, k.mv_data, STORE_KEY_LEN);
        nkeys++;
    }
    mdb_cursor_close(cur);
    rec_text_free(&text);
    if (rc != MDB_NOTFOUND && rc != 0) {
        free(keys);
        return store_err(rc);
    }
    for (size_t i = 0; i < nkeys; i++) {
        const uint8_t *kp = keys + i * STORE_KEY_LEN;

        k.mv_size = STORE_KEY_LEN;
        k.mv_data = (void *)kp;
        rc = op->u.del_if.mark ? store_mark_deleted(s, &k, now) : flow_del(s, &k);
        if (!rc)
            rc = store_queue_changed_flow(&s->q, store_key_u64(kp), store_key_u64(kp + 8),
                                          !op->u.del_if.mark);
        if (rc) {
            free(keys);
            return rc;
        }
    }
    free(keys);
    op->u.del_if.deleted = nkeys;
    if (op->u.del_if.mark)
        t->marked += nkeys;
    else
        t->deleted += nkeys;
    return 0;
}

static int store_apply_state(struct store_lmdb *s, struct store_op *op, uint64_t now,
                             struct store_tally *t)
{
    uint8_t kb[STORE_KEY_LEN];
    MDB_val k = { STORE_KEY_LEN, kb }, v;
    int rc;

    store_key(kb, op->u.st.dpid, op->u.st.match_id);
    rc = mdb_get(s->txn, s->dbi, &k, &v);
    if (rc == MDB_NOTFOUND) {
        t->state_stale++;
        return 0;
    }
    if (rc)
        return store_err(rc);
    /* A deleted flow's late barrier reply or error does not bring it back. */
    struct rec_hdr h;
    if (rec_hdr_read(v.mv_data, v.mv_size, &h) < 0 || h.state == STORE_FLOW_DELETED ||
        (op->u.st.flow_id && h.flow_id != op->u.st.flow_id)) {
        t->state_stale++;
        return 0;
    }
    bool err = op->u.st.state == STORE_FLOW_ERROR;
    struct rec_state st = {
        .state = (uint8_t)op->u.st.state,
        .err_type = err ? op->u.st.err_type : 0,
        .err_code = err ? op->u.st.err_code : 0,
        .flow_id = h.flow_id,
        .changed_ns = now,
    };
    uint8_t sb[REC_STATE_MAX];
    v = (MDB_val){rec_state_write(sb, &st), sb};
    rc = txn_put(s, DB_STATE, &k, &v);
    if (rc)
        return rc;
    t->state_updates++;
    return store_queue_changed_state(&s->q, op->u.st.dpid, op->u.st.match_id);
}

static int store_apply_kv(struct store_lmdb *s, struct store_op *op)
{
    MDB_val k = { strlen(op->u.kv.key), (void *)op->u.kv.key };
    int rc;

    if (!op->u.kv.val) {
        rc = txn_del(s, DB_APPS, &k);
    } else {
        /* The flows' reserve applies: an app's records never eat the room
         * deletes need. */
        rc = store_room_check(s, op->u.kv.len);
        MDB_val v = { op->u.kv.len, (void *)op->u.kv.val };
        if (!rc)
            rc = txn_put(s, DB_APPS, &k, &v);
    }
    return rc ? rc : store_queue_changed_kv(&s->q, op->u.kv.key, !op->u.kv.val);
}

static int lmdb_apply_op(struct store_queue *q, struct store_op *op, uint64_t now,
                      struct store_tally *t)
{
    struct store_lmdb *s = LQ(q);

    switch (op->kind) {
    case STORE_OP_PUT:
        return store_apply_put(s, op, now, t);
    case STORE_OP_DEL:
        return store_apply_del(s, op, t);
    case STORE_OP_DEL_IF:
        return store_apply_del_if(s, op, now, t);
    case STORE_OP_STATE:
        return store_apply_state(s, op, now, t);
    case STORE_OP_SYNC:
        return 0;
    case STORE_OP_KV:
        return store_apply_kv(s, op);
    }
    return -EINVAL;
}

static int lmdb_apply(struct store_queue *q, struct store_op *op, uint64_t now,
                      struct store_tally *t)
{
    int rc = lmdb_apply_op(q, op, now, t);

    LQ(q)->apply_rc = rc;
    return rc;
}

static int lmdb_begin(struct store_queue *q)
{
    struct store_lmdb *s = LQ(q);
    int rc = s->jnl ? lmdb_jnl_failed(s->jnl) : s->meta ? lmdb_meta_sync_failed(s->meta) : 0;

    return rc ? rc : store_err(mdb_txn_begin(s->env, NULL, 0, &s->txn));
}

/* The sync of the whole batch happens here: the journal's, or LMDB's
 * default durable commit. */
static int lmdb_commit(struct store_queue *q)
{
    struct store_lmdb *s = LQ(q);
    int rc = s->jnl ? lmdb_jnl_commit(s->jnl, s->txn) : store_err(mdb_txn_commit(s->txn));

    s->txn = NULL;
    if (rc == 0 && s->meta)
        lmdb_meta_sync_committed(s->meta);
    return rc;
}

static void lmdb_abort(struct store_queue *q)
{
    struct store_lmdb *s = LQ(q);

    mdb_txn_abort(s->txn);
    s->txn = NULL;
    if (s->jnl)
        lmdb_jnl_abort(s->jnl, s->apply_rc == -ENOSPC);
}

/* Between batches: a checkpoint if one is due; keep the data file written
 * ahead (STORE_AHEAD_BYTES). */
static void lmdb_write_ahead(struct store_queue *q)
{
    static const uint8_t zeros[65536];
    struct store_lmdb *s = LQ(q);
    MDB_envinfo info;
    struct stat stt;
    int fd;

    if (s->jnl)
        lmdb_jnl_idle(s->jnl, ofcd_clock_mono_ns());
    if (s->prealloc_failed || mdb_env_info(s->env, &info) != 0 ||
        mdb_env_get_fd(s->env, &fd) != 0)
        return;
    uint64_t used = (uint64_t)(info.me_last_pgno + 1) * s->psize;
    uint64_t cap = info.me_mapsize;
    if (s->written_ahead >= cap || s->written_ahead >= used + STORE_AHEAD_BYTES / 2)
        return;
    if (fstat(fd, &stt) != 0)
        goto failed;
    uint64_t end = used + STORE_AHEAD_BYTES < cap ? used + STORE_AHEAD_BYTES : cap;
    uint64_t at = (uint64_t)stt.st_size;
    for (; at < end; at += sizeof(zeros)) {
        size_t n = end - at < sizeof(zeros) ? (size_t)(end - at) : sizeof(zeros);
        if (pwrite(fd, zeros, n, (off_t)at) != (ssize_t)n)
            goto failed;
    }
    /* With the journal the flusher syncs this file, and alone: a second
     * syncer could take the one report of a failed write-back from it. */
    if (!s->jnl && fdatasync(fd) != 0)
        goto failed;
    s->written_ahead = end > (uint64_t)stt.st_size ? end : (uint64_t)stt.st_size;
    return;
failed:
    s->prealloc_failed = true;
    LOG_WARN(STORE_COMP, "cannot write the data file ahead (%s): commits stay correct, "
             "each sync is slower", strerror(errno));
}

/* The queue's budget (store_queue.h): a quarter of the pages the file has
 * never used, so this commit and the next fit there whatever the free list
 * holds; once that is below it, a share of the reserve. Only the committer
 * writes, so the meta read here is the latest commit's. */
static unsigned lmdb_budget(struct store_queue *q)
{
    struct store_lmdb *s = LQ(q);
    MDB_envinfo info;
    size_t unused;

    if (mdb_env_info(s->env, &info) != 0)
        return s->txn_records;
    unused = info.me_mapsize / s->psize - (info.me_last_pgno + 1);
    if (unused / 4 > s->txn_records)
        return unused / 4 < UINT_MAX ? (unsigned)(unused / 4) : UINT_MAX;
    return s->txn_records;
}

static const struct store_txn_ops lmdb_txn = {
    .begin = lmdb_begin,
    .apply = lmdb_apply,
    .commit = lmdb_commit,
    .abort = lmdb_abort,
    .idle = lmdb_write_ahead,
    .budget = lmdb_budget,
};

/* ---- readers ----------------------------------------------------------- */

static int lmdb_get(struct store *st, uint64_t dpid, uint64_t match_id, struct store_flow *out)
{
    struct store_lmdb *s = L(st);
    uint8_t kb[STORE_KEY_LEN];
    char owner[STORE_OWNER_MAX + 1];
    MDB_val k = { STORE_KEY_LEN, kb }, v;
    struct rec_text text = {0};
    MDB_txn *txn;
    struct store_flow f;
    size_t olen;
    char *copy;
    int rc;

    if (!out)
        return -EINVAL;
    memset(out, 0, sizeof(*out));
    rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc)
        return store_err(rc);
    store_key(kb, dpid, match_id);
    rc = mdb_get(txn, s->dbi, &k, &v);
    if (rc) {
        mdb_txn_abort(txn);
        return store_err(rc);
    }
    rc = rec_decode(txn, s->state_dbi, &k, &v, &f, owner, &text);
    if (rc) {
        mdb_txn_abort(txn);
        rec_text_free(&text);
        return rc;
    }
    olen = strlen(owner);
    /* One block: owner with its NUL, then the JSON (plus a NUL for convenience). */
    copy = malloc(olen + 1 + f.json_len + 1);
    if (!copy) {
        mdb_txn_abort(txn);
        rec_text_free(&text);
        return -ENOMEM;
    }
    memcpy(copy, owner, olen + 1);
    memcpy(copy + olen + 1, f.json, f.json_len);
    copy[olen + 1 + f.json_len] = '\0';
    mdb_txn_abort(txn);
    rec_text_free(&text);
    *out = f;
    out->owner = copy;
    out->json = copy + olen + 1;
    out->priv = copy;
    return 0;
}

static int lmdb_foreach_from(struct store *st, const uint64_t *dpid, uint64_t from_dpid,
                             uint64_t from_match_id, store_iter_fn cb, void *arg)
{
    struct store_lmdb *s = L(st);
    uint8_t kb[STORE_KEY_LEN];
    char owner[STORE_OWNER_MAX + 1];
    struct rec_text text = {0};
    MDB_cursor *cur;
    MDB_txn *txn;
    MDB_val k, v;
    int rc, ret = 0;

    if (!cb)
        return -EINVAL;
    rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc)
        return store_err(rc);
    rc = mdb_cursor_open(txn, s->dbi, &cur);
    if (rc) {
        mdb_txn_abort(txn);
        return store_err(rc);
    }
    store_key(kb, from_dpid, from_match_id);
    k.mv_size = STORE_KEY_LEN;
    k.mv_data = kb;
    rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
    for (; rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        struct store_flow f;
        int drc = rec_decode(txn, s->state_dbi, &k, &v, &f, owner, &text);

        if (drc == -EIO) {
            LOG_WARN(STORE_COMP, "skipping a damaged record");
            continue;
        }
        if (drc) {
            ret = drc;
            break;
        }
        if (dpid && f.dpid != *dpid)
            break;
        ret = cb(&f, arg);
        if (ret)
            break;
    }
    if (rc != 0 && rc != MDB_NOTFOUND)
        ret = store_err(rc);
    mdb_cursor_close(cur);
    mdb_txn_abort(txn);
    rec_text_free(&text);
    return ret > 0 ? 0 : ret;
}

static int lmdb_get_each(struct store *st, uint64_t dpid, const uint64_t *match_ids, size_t n,
                         unsigned what, store_iter_fn cb, void *arg)
{
    struct store_lmdb *s = L(st);
    uint8_t kb[STORE_KEY_LEN];
    char owner[STORE_OWNER_MAX + 1];
    struct rec_text text = {0};
    MDB_txn *txn;
    int rc, ret = 0;

    if (!cb || (n && !match_ids))
        return -EINVAL;
    rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc)
        return store_err(rc);
    for (size_t i = 0; i < n && !ret; i++) {
        MDB_val k = { STORE_KEY_LEN, kb }, v;
        struct store_flow f;

        store_key(kb, dpid, match_ids[i]);
        rc = mdb_get(txn, s->dbi, &k, &v);
        if (rc == MDB_NOTFOUND)
            continue;                   /* gone since the caller saw it */
        if (rc) {
            ret = store_err(rc);
            break;
        }
        /* A version's reader needs no state record: deleted is the
         * record's own state (a mark as deleted drops the state record). */
        if (what == STORE_READ_VERSION)
            rc = rec_decode_own(&k, &v, &f, owner, NULL);
        else
            rc = rec_decode(txn, s->state_dbi, &k, &v, &f, owner, &text);
        if (rc == -EIO) {
            LOG_WARN(STORE_COMP, "skipping a damaged record");
            continue;
        }
        ret = rc ? rc : cb(&f, arg);
    }
    mdb_txn_abort(txn);
    rec_text_free(&text);
    return ret > 0 ? 0 : ret;
}

static int lmdb_kv_foreach(struct store *st, const char *prefix, store_kv_fn cb, void *arg)
{
    struct store_lmdb *s = L(st);
    char key[STORE_KV_KEY_MAX + 1];
    size_t plen = prefix ? strlen(prefix) : 0;
    MDB_cursor *cur;
    MDB_txn *txn;
    MDB_val k = { plen, (void *)prefix }, v;
    int rc, ret = 0;

    if (!cb || plen > STORE_KV_KEY_MAX)
        return -EINVAL;
    rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc)
        return store_err(rc);
    rc = mdb_cursor_open(txn, s->kv_dbi, &cur);
    if (rc) {
        mdb_txn_abort(txn);
        return store_err(rc);
    }
    rc = plen ? mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE) : mdb_cursor_get(cur, &k, &v, MDB_FIRST);
    for (; rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        if (plen && (k.mv_size < plen || memcmp(k.mv_data, prefix, plen) != 0))
            break;                      /* keys sort bytewise: past the prefix */
        if (k.mv_size > STORE_KV_KEY_MAX)
            continue;
        memcpy(key, k.mv_data, k.mv_size);
        key[k.mv_size] = '\0';
        ret = cb(key, v.mv_data, v.mv_size, arg);
        if (ret)
            break;
    }
    if (rc != 0 && rc != MDB_NOTFOUND && !ret)
        ret = store_err(rc);
    mdb_cursor_close(cur);
    mdb_txn_abort(txn);
    return ret > 0 ? 0 : ret;
}

static int lmdb_get_stats(struct store *st_, struct store_stats *st)
{
    struct store_lmdb *s = L(st_);
    MDB_envinfo info;
    MDB_stat ms;
    MDB_txn *txn;
    int rc;

    if (!st)
        return -EINVAL;
    store_queue_stats(&s->q, st);
    rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
    if (rc)
        return store_err(rc);
    rc = mdb_stat(txn, s->dbi, &ms);
    mdb_txn_abort(txn);
    if (rc)
        return store_err(rc);
    st->records = ms.ms_entries;
    if (s->meta)
        st->meta_syncs = lmdb_meta_sync_count(s->meta);
    if (mdb_env_info(s->env, &info) == 0) {
        st->map_size = info.me_mapsize;
        st->map_used = (uint64_t)(info.me_last_pgno + 1) * ms.ms_psize;
    }
    return 0;
}

/* ---- lifecycle --------------------------------------------------------- */

static int store_limits(struct store_lmdb *s)
{
    MDB_envinfo info;
    MDB_stat ms;
    size_t map_pages, reserve;
    int rc;

    rc = mdb_env_stat(s->env, &ms);
    if (!rc)
        rc = mdb_env_info(s->env, &info);
    if (rc)
        return rc;
    s->psize = ms.ms_psize;
    map_pages = info.me_mapsize / ms.ms_psize;
    reserve = map_pages / 8;
    if (reserve < STORE_RESERVE_MIN_PAGES)
        reserve = STORE_RESERVE_MIN_PAGES;
    if (reserve > STORE_RESERVE_MAX_PAGES)
        reserve = STORE_RESERVE_MAX_PAGES;
    if (map_pages < 2 * reserve) {
        LOG_ERR(STORE_COMP, "map size %zu bytes is below the minimum of %zu",
                (size_t)info.me_mapsize, 2 * reserve * ms.ms_psize);
        return EINVAL;
    }
    s->put_limit_pages = map_pages - reserve;
    s->txn_records = (unsigned)(reserve / STORE_TXN_RESERVE_SHARE);   /* >= 4: never 0, no bound */
    return 0;
}

static int store_env_open(struct store_lmdb *s, const char *dir, bool journal)
{
    unsigned flags = MDB_NOTLS;
    MDB_txn *txn;
    int dead = 0, rc;

    /* MDB_NOTLS: read transactions are made on any MHD pool thread. With
     * the journal LMDB never syncs by itself: the checkpoints do. */
    if (journal)
        flags |= MDB_NOSYNC;
    else if (s->lazy_meta_sync)
        flags |= MDB_NOMETASYNC;

    rc = mdb_env_create(&s->env);
    if (rc) {
        s->env = NULL;
        return rc;
    }
    rc = mdb_env_set_mapsize(s->env, s->map_size);
    if (!rc)
        rc = mdb_env_set_maxdbs(s->env, 4);
    if (!rc)
        rc = mdb_env_open(s->env, dir, flags, 0640);
    if (rc)
        return rc;
    /* A SIGKILLed ofcd leaves its reader slots behind; they would pin old pages. */
    mdb_reader_check(s->env, &dead);
    if (dead)
        LOG_INFO(STORE_COMP, "cleared %d stale reader slot(s)", dead);
    rc = store_limits(s);
    if (rc)
        return rc;
    rc = mdb_txn_begin(s->env, NULL, 0, &txn);
    if (rc)
        return rc;
    rc = mdb_dbi_open(txn, STORE_DB_NAME, MDB_CREATE, &s->dbi);
    if (!rc)
        rc = mdb_dbi_open(txn, STORE_KV_DB_NAME, MDB_CREATE, &s->kv_dbi);
    if (!rc)
        rc = mdb_dbi_open(txn, STORE_STATE_DB_NAME, MDB_CREATE, &s->state_dbi);
    if (!rc)
        rc = mdb_set_compare(txn, s->dbi, store_key_cmp);
    if (!rc)
        rc = mdb_set_compare(txn, s->state_dbi, store_key_cmp);
    if (rc) {
        mdb_txn_abort(txn);
        return rc;
    }
    return mdb_txn_commit(txn);
}

static void lmdb_close(struct store *st)
{
    struct store_lmdb *s = L(st);

    store_queue_stop(&s->q);
    lmdb_meta_sync_stop(s->meta);       /* after the last commit: syncs it */
    lmdb_jnl_close(s->jnl);
    mdb_env_close(s->env);
    free(s->scratch);
    free(s);
}

static const struct store_ops lmdb_ops = {
    .name = "lmdb",
    .close = lmdb_close,
    STORE_QUEUE_WRITE_OPS,
    .get = lmdb_get,
    .foreach_from = lmdb_foreach_from,
    .get_each = lmdb_get_each,
    .kv_foreach = lmdb_kv_foreach,
    .get_stats = lmdb_get_stats,
    .watch = store_queue_watch,
    .batch_times = store_queue_batch_times,
    .batch_final = store_queue_batch_final,
};

/*
 * The journal (cfg->journal), after LMDB opened in the mode open_journal
 * chose. A journal left by a run with it on is recovered even when it is
 * now off, then removed and LMDB's own syncs switched back on: a stale
 * journal must never set a later LMDB back to its checkpoint.
 */
static bool journal_exists(const char *dir)
{
    char path[PATH_MAX];

    for (unsigned i = 0; i < LMDB_JNL_FILES; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, lmdb_jnl_files[i]);
        if (access(path, F_OK) == 0)
            return true;
    }
    return false;
}

static int store_jnl_start(struct store_lmdb *s, const struct store_config *cfg,
                           const struct lmdb_jnl_plan *plan)
{
    const MDB_dbi dbi[LMDB_JNL_DBS] = {[DB_FLOWS] = s->dbi, [DB_APPS] = s->kv_dbi,
                                       [DB_STATE] = s->state_dbi};
    struct lmdb_jnl_cfg jc = {cfg->checkpoint_ms, cfg->checkpoint_bytes};
    int rc = lmdb_jnl_open(s->env, dbi, cfg->dir, &jc, plan, &s->jnl);

    if (rc || cfg->journal)
        return rc;
    lmdb_jnl_close(s->jnl);
    s->jnl = NULL;
    rc = lmdb_jnl_remove(cfg->dir);
    if (rc)
        return rc;
    LOG_INFO(STORE_COMP, "the journal in %s recovered and removed: store.journal is off",
             cfg->dir);
    int rc2 = mdb_env_set_flags(s->env, MDB_NOSYNC, 0);
    if (!rc2 && s->lazy_meta_sync)
        rc2 = mdb_env_set_flags(s->env, MDB_NOMETASYNC, 1);
    return store_err(rc2);
}

struct store *store_lmdb_open(const struct store_config *cfg)
{
    struct lmdb_jnl_plan plan;
    bool open_journal;
    struct store_lmdb *s;
    int rc;

    if (!cfg || !cfg->dir || !cfg->dir[0]) {
        LOG_ERR(STORE_COMP, "no data directory configured");
        return NULL;
    }
    if (mkdir(cfg->dir, 0750) < 0 && errno != EEXIST) {
        LOG_ERR(STORE_COMP, "cannot create %s: %s", cfg->dir, strerror(errno));
        return NULL;
    }
    s = calloc(1, sizeof(*s));
    if (!s) {
        LOG_ERR(STORE_COMP, "out of memory");
        return NULL;
    }
    s->map_size = cfg->map_size ? cfg->map_size : STORE_DEFAULT_MAP_SIZE;
    s->keep_times = cfg->keep_times;
    s->lazy_meta_sync = cfg->lazy_meta_sync;
    open_journal = cfg->journal || journal_exists(cfg->dir);
    if (open_journal && lmdb_jnl_restore(cfg->dir, &plan) != 0) {
        free(s);
        return NULL;
    }
    rc = store_env_open(s, cfg->dir, open_journal);
    if (rc) {
        LOG_ERR(STORE_COMP, "cannot open LMDB in %s: %s", cfg->dir, mdb_strerror(rc));
        if (s->env)
            mdb_env_close(s->env);
        free(s);
        return NULL;
    }
    if (open_journal && store_jnl_start(s, cfg, &plan) != 0) {
        mdb_env_close(s->env);
        free(s);
        return NULL;
    }
    /* One sync per commit: the meta page's comes late (and only without a
     * journal, whose own sync already is the only one). */
    if (!s->jnl && s->lazy_meta_sync && cfg->meta_sync_ms &&
        !(s->meta = lmdb_meta_sync_start(s->env, cfg->meta_sync_ms, cfg->meta_sync_fault))) {
        mdb_env_close(s->env);
        free(s);
        return NULL;
    }
    if (store_queue_init(&s->q, &lmdb_ops, &lmdb_txn, cfg) < 0) {
        LOG_ERR(STORE_COMP, "cannot initialise locks");
        lmdb_meta_sync_stop(s->meta);
        lmdb_jnl_close(s->jnl);
        mdb_env_close(s->env);
        free(s);
        return NULL;
    }
    /* Every flow change is reported (store_apply_*); as an etcd copy it is
     * read through the etcd store, which never calls it final. */
    s->q.exclusive = true;
    if (store_queue_start(&s->q) < 0) {
        lmdb_close(&s->q.base);
        return NULL;
    }
    return &s->q.base;
}
