/*
 * fuzz_journal: libFuzzer target for the flow store journal's reader
 * (control/store/store_journal.c) — the bytes a crash, a bad disk or anyone
 * with the data directory leaves in the file, read back at start. Every
 * record it hands over must lie within the file, carry consecutive
 * sequence numbers and at most STORE_JOURNAL_REC_MAX bytes, and end where
 * the reader says the good records end; the checkpoint it gives back fits
 * its bound; reading twice gives the same.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "store_journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

struct walk {
    uint64_t first, next, bytes;
    size_t n;
};

static int check(void *arg, uint64_t seq, const void *rec, size_t len)
{
    struct walk *w = arg;
    (void)rec;
    if (len == 0 || len > STORE_JOURNAL_REC_MAX || (w->n && seq != w->next))
        abort();
    if (!w->n)
        w->first = seq;
    w->next = seq + 1;
    w->bytes += 16 + ((len + 7) & ~(size_t)7);
    w->n++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    char path[64];
    int fd = memfd_create("journal", 0);
    if (fd < 0 || write(fd, data, len) != (ssize_t)len) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    static uint8_t meta[STORE_JOURNAL_META_MAX], meta2[STORE_JOURNAL_META_MAX];
    struct walk a = {0}, b = {0};
    uint64_t end, next, end2, next2;
    size_t ml, ml2;
    int rc = store_journal_replay(path, check, &a, &end, &next, meta, &ml);
    if (rc == 0 && len) {
        if (end > len || ml > STORE_JOURNAL_META_MAX ||
            (a.n && (end != 2 * 8192 + a.bytes || next != a.next)))
            abort();
        if (store_journal_replay(path, check, &b, &end2, &next2, meta2, &ml2) != 0 ||
            end2 != end || next2 != next || b.n != a.n || ml2 != ml || memcmp(meta, meta2, ml))
            abort();
    }
    close(fd);
    return 0;
}
