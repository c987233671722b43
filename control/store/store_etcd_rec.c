/* store_etcd_rec: the etcd backend's keys and values (store_etcd.h). Pure:
 * it links alone (the fuzz target fuzz_store_etcd builds it so). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_etcd.h"

#define REC_MAGIC "ofcd-flow 1 "
#define STATE_MAGIC "ofcd-state 1 "
#define INST_MAGIC "ofcd-inst 1 "

static int key_of(char *buf, size_t cap, const char *data_prefix, const char *kind,
                  uint64_t dpid, uint64_t match_id)
{
    int n = snprintf(buf, cap, "%s%s/%016" PRIx64 "/%016" PRIx64, data_prefix, kind, dpid,
                     match_id);
    return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : n;
}

int store_etcd_key_flow(char *buf, size_t cap, const char *data_prefix, uint64_t dpid,
                        uint64_t match_id)
{
    return key_of(buf, cap, data_prefix, "flows", dpid, match_id);
}

int store_etcd_key_state(char *buf, size_t cap, const char *data_prefix, uint64_t dpid,
                         uint64_t match_id)
{
    return key_of(buf, cap, data_prefix, "state", dpid, match_id);
}

int store_etcd_key_inst(char *buf, size_t cap, const char *data_prefix, uint64_t dpid)
{
    int n = snprintf(buf, cap, "%sinst/%016" PRIx64, data_prefix, dpid);
    return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : n;
}

int store_etcd_key_app(char *buf, size_t cap, const char *data_prefix, const char *key)
{
    int n = snprintf(buf, cap, "%sapps/%s", data_prefix, key);
    return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : n;
}

/* 16 lowercase hex digits, as the keys are written (so etcd's byte order is
 * the numbers' order, the mirror's). */
static int hex16(const uint8_t *p, uint64_t *out)
{
    uint64_t v = 0;

    for (int i = 0; i < 16; i++) {
        uint8_t c = p[i];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : 16u;
        if (d > 15)
            return -EINVAL;
        v = v << 4 | d;
    }
    *out = v;
    return 0;
}

static bool two_ids(const uint8_t *p, size_t len, uint64_t *a, uint64_t *b)
{
    return len == 33 && p[16] == '/' && hex16(p, a) == 0 && hex16(p + 17, b) == 0;
}

int store_etcd_key_parse(const char *data_prefix, const uint8_t *key, size_t len,
                         struct store_etcd_key *out)
{
    size_t pl = strlen(data_prefix);

    *out = (struct store_etcd_key){.kind = STORE_ETCD_KEY_OTHER};
    if (len < pl || memcmp(key, data_prefix, pl) != 0)
        return -EINVAL;
    const uint8_t *p = key + pl;
    size_t n = len - pl;
    if (n > 6 && memcmp(p, "flows/", 6) == 0 && two_ids(p + 6, n - 6, &out->dpid,
                                                       &out->match_id))
        out->kind = STORE_ETCD_KEY_FLOW;
    else if (n > 6 && memcmp(p, "state/", 6) == 0 && two_ids(p + 6, n - 6, &out->dpid,
                                                            &out->match_id))
        out->kind = STORE_ETCD_KEY_STATE;
    else if (n == 21 && memcmp(p, "inst/", 5) == 0 && hex16(p + 5, &out->dpid) == 0)
        out->kind = STORE_ETCD_KEY_INST;
    else if (n == strlen(STORE_ETCD_SYNC_KEY) && memcmp(p, STORE_ETCD_SYNC_KEY, n) == 0)
        out->kind = STORE_ETCD_KEY_SYNC;
    else if (n > 5 && memcmp(p, "apps/", 5) == 0 && n - 5 <= STORE_KV_KEY_MAX &&
             !memchr(p + 5, '\0', n - 5) &&
             !(n - 5 >= strlen(STORE_ETCD_OWN_PREFIX) &&
               memcmp(p + 5, STORE_ETCD_OWN_PREFIX, strlen(STORE_ETCD_OWN_PREFIX)) == 0)) {
        out->kind = STORE_ETCD_KEY_APP;
        out->app = (const char *)p + 5;
        out->app_len = n - 5;
    }
    return 0;
}

int64_t store_etcd_watch_rev(const struct etcd_watch_resp *r)
{
    if (r->n_ev)
        return r->ev[r->n_ev - 1].kv.mod_revision;
    /* A creation's header is etcd's revision when the watch was made,
     * before the catch-up; a cancellation's says nothing delivered. */
    return r->created || r->canceled ? 0 : r->hdr.revision;
}

int store_etcd_rec_encode(const struct store_flow *f, char **out)
{
    size_t olen = f->owner ? strlen(f->owner) : 0;
    char head[128];
    int h = snprintf(head, sizeof(head),
                     REC_MAGIC "%016" PRIx64 " %u %u %u %" PRIu64 " %" PRIu64 " %zu\n",
                     f->flow_id, (unsigned)f->state, (unsigned)f->err_type,
                     (unsigned)f->err_code, f->added_ns, f->changed_ns, olen);

    if (h < 0 || (size_t)h >= sizeof(head) || (unsigned)f->state > STORE_FLOW_DELETED)
        return -EINVAL;
    size_t len = (size_t)h + olen + f->json_len;
    char *v = malloc(len + 1);
    if (!v)
        return -ENOMEM;
    memcpy(v, head, (size_t)h);
    if (olen)
        memcpy(v + h, f->owner, olen);
    if (f->json_len)
        memcpy(v + h + olen, f->json, f->json_len);
    v[len] = '\0';
    *out = v;
    return (int)len;
}

/* The times and the owner's length of a flow's header line. */
struct rec_tail {
    uint64_t added_ns, changed_ns;
    size_t owner_len;
};

/* Reads "<hex16> <u> <u> <u>" and, when tail is not NULL, " <u64> <u64>
 * <size>": the numbers of both values' header lines. Returns the bytes
 * read, or -1. */
static int read_head(const uint8_t *v, size_t len, uint64_t *flow_id, unsigned *state,
                     unsigned *et, unsigned *ec, struct rec_tail *tail)
{
    char line[128];
    size_t n = 0;

    while (n < len && n < sizeof(line) - 1 && v[n] != '\n')
        n++;
    memcpy(line, v, n);
    line[n] = '\0';
    uint64_t id;
    unsigned s, t, c;
    struct rec_tail r = {0, 0, 0};
    int used = 0;
    int got = tail ? sscanf(line, "%16" SCNx64 " %u %u %u %" SCNu64 " %" SCNu64 " %zu%n", &id,
                            &s, &t, &c, &r.added_ns, &r.changed_ns, &r.owner_len, &used)
                   : sscanf(line, "%16" SCNx64 " %u %u %u%n", &id, &s, &t, &c, &used);
    if (got != (tail ? 7 : 4) || (size_t)used != n || s > STORE_FLOW_DELETED || t > 0xffff ||
        c > 0xffff)
        return -1;
    *flow_id = id;
    *state = s;
    *et = t;
    *ec = c;
    if (tail)
        *tail = r;
    return (int)n;
}

int store_etcd_rec_decode(const uint8_t *v, size_t len, struct store_flow *f, size_t *owner_len)
{
    size_t ml = sizeof(REC_MAGIC) - 1;
    unsigned s, t, c;
    struct rec_tail r;

    if (len < ml || memcmp(v, REC_MAGIC, ml) != 0)
        return -EBADMSG;
    int n = read_head(v + ml, len - ml, &f->flow_id, &s, &t, &c, &r);
    size_t olen = r.owner_len;
    if (n < 0)
        return -EBADMSG;
    size_t body = ml + (size_t)n + 1;
    if (body > len || olen > STORE_OWNER_MAX || olen > len - body)
        return -EBADMSG;
    f->state = (enum store_flow_state)s;
    f->err_type = (uint16_t)t;
    f->err_code = (uint16_t)c;
    f->owner = (const char *)v + body;   /* not NUL-terminated: the caller copies */
    f->json = v + body + olen;
    f->json_len = len - body - olen;
    f->added_ns = r.added_ns;
    f->changed_ns = r.changed_ns;
    f->priv = NULL;
    *owner_len = olen;
    return 0;
}

int store_etcd_state_encode(char *buf, size_t cap, uint64_t flow_id,
                            enum store_flow_state state, uint16_t err_type, uint16_t err_code)
{
    int n = snprintf(buf, cap, STATE_MAGIC "%016" PRIx64 " %u %u %u", flow_id, (unsigned)state,
                     (unsigned)err_type, (unsigned)err_code);
    return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : n;
}

int store_etcd_state_decode(const uint8_t *v, size_t len, uint64_t *flow_id,
                            enum store_flow_state *state, uint16_t *err_type,
                            uint16_t *err_code)
{
    size_t ml = sizeof(STATE_MAGIC) - 1;
    unsigned s, t, c;

    if (len < ml || memcmp(v, STATE_MAGIC, ml) != 0 ||
        read_head(v + ml, len - ml, flow_id, &s, &t, &c, NULL) != (int)(len - ml) ||
        s == STORE_FLOW_DELETED)
        return -EBADMSG;
    *state = (enum store_flow_state)s;
    *err_type = (uint16_t)t;
    *err_code = (uint16_t)c;
    return 0;
}

int store_etcd_inst_encode(int64_t rev, const struct store_etcd_inst_ent *e, size_t n,
                           char **out)
{
    if (rev < 0 || n > STORE_ETCD_INST_MAX)
        return -EINVAL;
    size_t cap = sizeof(INST_MAGIC) + 48 + n * 34;
    char *v = malloc(cap);
    if (!v)
        return -ENOMEM;
    int len = snprintf(v, cap, INST_MAGIC "%" PRId64 " %zu\n", rev, n);
    for (size_t i = 0; i < n && len > 0; i++)
        len += snprintf(v + len, cap - (size_t)len, "%016" PRIx64 " %016" PRIx64 "\n",
                        e[i].match_id, e[i].flow_id);
    if (len < 0 || (size_t)len >= cap) {
        free(v);
        return -EINVAL;
    }
    *out = v;
    return len;
}

int store_etcd_inst_decode(const uint8_t *v, size_t len, int64_t *rev,
                           struct store_etcd_inst_ent *e, size_t *n)
{
    size_t ml = sizeof(INST_MAGIC) - 1, i = ml, count = 0;
    int64_t r = 0;

    if (len < ml || memcmp(v, INST_MAGIC, ml) != 0)
        return -EBADMSG;
    /* "<rev> <n>\n", both decimal, then n lines of two hex16. */
    for (; i < len && v[i] >= '0' && v[i] <= '9' && r <= INT64_MAX / 10 - 9; i++)
        r = r * 10 + (v[i] - '0');
    if (i == ml || i >= len || v[i++] != ' ')
        return -EBADMSG;
    size_t s = i;
    for (; i < len && v[i] >= '0' && v[i] <= '9' && count <= STORE_ETCD_INST_MAX; i++)
        count = count * 10 + (size_t)(v[i] - '0');
    if (i == s || count > STORE_ETCD_INST_MAX || i >= len || v[i++] != '\n' ||
        len - i != count * 34)
        return -EBADMSG;
    for (size_t k = 0; k < count; k++, i += 34)
        if (hex16(v + i, &e[k].match_id) < 0 || v[i + 16] != ' ' ||
            hex16(v + i + 17, &e[k].flow_id) < 0 || v[i + 33] != '\n')
            return -EBADMSG;
    *rev = r;
    *n = count;
    return 0;
}
