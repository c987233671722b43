/*
 * fuzz_relay: libFuzzer target for the reader of the event batches other
 * nodes put under <prefix>events/ (apps/cluster/cnode_relay.c), which anyone
 * who can write to the cluster's etcd can fill. Every event it hands on
 * must be a kind and an object, and going out again through an outbox
 * must read back the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cnode_relay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static void again(void *arg, const char *kind, const json_t *d)
{
    struct cnode_outbox *o = arg;

    /* A kind goes into the stream's "event:" line as it is. */
    if (!kind || !kind[0] || strlen(kind) > CNODE_RELAY_KIND_MAX || strpbrk(kind, "\r\n: ") ||
        !json_is_object(d))
        abort();
    cnode_outbox_add(o, kind, d);
}

static void count(void *arg, const char *kind, const json_t *d)
{
    (void)kind, (void)d;
    (*(int *)arg)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    struct cnode_outbox o;
    unsigned bad = 0;

    cnode_outbox_init(&o, 1u << 20);
    int n = cnode_relay_each((const char *)data, len, again, &o, &bad);
    if (n >= 0 && (uint32_t)n != o.n + (uint32_t)o.dropped)
        abort();
    size_t blen;
    uint32_t bn;
    char *batch = cnode_outbox_take(&o, &blen, &bn);
    if (batch) {
        int m = 0;
        if (cnode_relay_each(batch, blen, count, &m, &bad) != (int)bn || bad)
            abort();
        free(batch);
    }
    cnode_outbox_fini(&o);
    return 0;
}
