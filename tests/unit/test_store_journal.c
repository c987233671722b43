/* Unit tests of the flow store's journal (store_journal.c): what was synced
 * comes back in order after a reopen; a crash mid-append (the file cut at
 * every byte of the last batch) loses only the records of it that did not
 * reach the disk whole, and the journal
 * goes on from the good records without ever reading the torn bytes as
 * records; a flipped byte stops the replay at its record; a reset empties
 * it while its sequence numbers go on and keeps the checkpoint it is given,
 * and a reset torn by a crash leaves the one before in force; what is only
 * queued is not on disk. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_journal.h"

struct seen {
    uint64_t first, last;
    size_t n;
    char text[64][64];
};

static int collect(void *arg, uint64_t seq, const void *rec, size_t len)
{
    struct seen *s = arg;
    if (!s->n)
        s->first = seq;
    s->last = seq;
    if (s->n < 64)
        snprintf(s->text[s->n], sizeof(s->text[0]), "%.*s", (int)len, (const char *)rec);
    s->n++;
    return 0;
}

static struct seen replay(const char *path, uint64_t *end, uint64_t *next)
{
    struct seen s = {0};
    assert_int_equal(store_journal_replay(path, collect, &s, end, next, NULL, NULL), 0);
    return s;
}

static void put(struct store_journal *j, const char *text)
{
    assert_int_equal(store_journal_append(j, text, strlen(text)), 0);
}

static void tmp_path(char *out, size_t n)
{
    snprintf(out, n, "/tmp/test_store_journal.%d.XXXXXX", (int)getpid());
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
    unlink(out);
}

static void test_round_trip(void **state)
{
    char path[64];
    uint64_t end, next;
    struct store_journal *j;

    (void)state;
    tmp_path(path, sizeof(path));
    struct seen s = replay(path, &end, &next);
    assert_int_equal(s.n, 0);
    assert_int_equal(next, 1);
    assert_int_equal(store_journal_open(path, &j), 0);
    put(j, "one");
    put(j, "two, a little longer than eight bytes");
    assert_int_equal(store_journal_sync(j), 0);
    struct stat st1, st2;
    assert_int_equal(stat(path, &st1), 0);
    assert_true(st1.st_size >= STORE_JOURNAL_AHEAD);      /* written ahead */
    put(j, "three");
    assert_int_equal(store_journal_sync(j), 0);
    assert_int_equal(stat(path, &st2), 0);
    assert_int_equal(st2.st_size, st1.st_size);           /* a sync does not grow it */
    put(j, "queued, never synced");
    assert_int_equal(store_journal_next_seq(j), 4);
    store_journal_close(j);
    s = replay(path, &end, &next);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.first, 1);
    assert_int_equal(next, 4);
    assert_string_equal(s.text[1], "two, a little longer than eight bytes");
    assert_string_equal(s.text[2], "three");
    /* Reopened: appends go on after the good records. */
    assert_int_equal(store_journal_open(path, &j), 0);
    put(j, "four");
    assert_int_equal(store_journal_sync(j), 0);
    store_journal_close(j);
    s = replay(path, &end, &next);
    assert_int_equal(s.n, 4);
    assert_string_equal(s.text[3], "four");
    assert_int_equal(s.last, 4);
    /* Bounds. */
    assert_int_equal(store_journal_open(path, &j), 0);
    assert_int_equal(store_journal_append(j, "x", 0), -EINVAL);
    assert_int_equal(store_journal_append(j, "x", STORE_JOURNAL_REC_MAX + 1), -E2BIG);
    store_journal_close(j);
    unlink(path);
    /* Not a journal. */
    FILE *f = fopen(path, "w");
    fputs("something else entirely", f);
    fclose(f);
    assert_int_equal(store_journal_replay(path, collect, &(struct seen){0}, &end, &next, NULL,
                                          NULL),
                     -EINVAL);
    unlink(path);
}

/* The last batch cut at every byte, as a crash mid-write leaves it: the
 * earlier batch whole, of the torn one the records whose bytes all reached
 * the disk and nothing from the first one cut short; reopened, a new batch
 * is read back and no leftover after it. */
static void test_torn_tail(void **state)
{
    char path[64];
    uint64_t end, next, good_end;
    struct store_journal *j;
    struct stat st;

    (void)state;
    tmp_path(path, sizeof(path));
    assert_int_equal(store_journal_open(path, &j), 0);
    put(j, "kept 1");
    put(j, "kept 2");
    assert_int_equal(store_journal_sync(j), 0);
    good_end = store_journal_bytes(j);
    const char *t3 = "torn 3, whose bytes reach the disk only in part";
    /* Its last payload byte: the padding after it is no data. */
    uint64_t r3_end = good_end + 16 + strlen(t3);
    uint64_t r4_end = good_end + 16 + ((strlen(t3) + 7) & ~(size_t)7) + 16 + strlen("torn 4");
    put(j, t3);
    put(j, "torn 4");
    assert_int_equal(store_journal_sync(j), 0);
    uint64_t full_end = store_journal_bytes(j);
    store_journal_close(j);
    assert_int_equal(stat(path, &st), 0);
    int fd = open(path, O_RDONLY);
    uint8_t *whole = malloc((size_t)st.st_size);
    assert_int_equal(read(fd, whole, (size_t)st.st_size), st.st_size);
    close(fd);
    for (uint64_t cut = good_end; cut < full_end; cut++) {
        fd = open(path, O_WRONLY | O_TRUNC);
        /* The tail as a crash leaves it: the first cut bytes, then what
         * the file held before (zeros written ahead, or older bytes). */
        assert_int_equal(write(fd, whole, (size_t)cut), (ssize_t)cut);
        uint8_t junk[64];
        memset(junk, 0xa5, sizeof(junk));
        assert_int_equal(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
        close(fd);
        struct seen s = replay(path, &end, &next);
        size_t want = cut >= r4_end ? 4 : cut >= r3_end ? 3 : 2;
        if (s.n != want)
            fail_msg("cut at %llu: %zu records, expected %zu", (unsigned long long)cut, s.n,
                     want);
        assert_string_equal(s.text[0], "kept 1");
        assert_int_equal(next, 1 + s.n);
        /* Reopened and written: the new record, then nothing. */
        assert_int_equal(store_journal_open(path, &j), 0);
        put(j, "after the crash");
        assert_int_equal(store_journal_sync(j), 0);
        store_journal_close(j);
        struct seen t = replay(path, &end, &next);
        assert_int_equal(t.n, s.n + 1);
        assert_string_equal(t.text[s.n], "after the crash");
    }
    free(whole);
    unlink(path);
}

static void test_flipped_byte_stops_there(void **state)
{
    char path[64];
    uint64_t end, next;
    struct store_journal *j;

    (void)state;
    tmp_path(path, sizeof(path));
    assert_int_equal(store_journal_open(path, &j), 0);
    put(j, "first");
    assert_int_equal(store_journal_sync(j), 0);
    uint64_t second = store_journal_bytes(j);
    put(j, "second");
    put(j, "third");
    assert_int_equal(store_journal_sync(j), 0);
    store_journal_close(j);
    int fd = open(path, O_RDWR);
    uint8_t b;
    assert_int_equal(pread(fd, &b, 1, (off_t)second + 16 + 2), 1);
    b ^= 0x10;
    assert_int_equal(pwrite(fd, &b, 1, (off_t)second + 16 + 2), 1);
    close(fd);
    struct seen s = replay(path, &end, &next);
    assert_int_equal(s.n, 1);
    assert_int_equal(end, second);
    unlink(path);
}

/* A checkpoint made everything durable elsewhere: the journal is empty,
 * its numbers go on, and the old records behind the header are never
 * read again (even those the new ones do not overwrite). */
static void test_reset(void **state)
{
    char path[64], meta[STORE_JOURNAL_META_MAX];
    uint64_t end, next;
    size_t ml;
    struct store_journal *j;

    (void)state;
    tmp_path(path, sizeof(path));
    assert_int_equal(store_journal_open(path, &j), 0);
    for (int i = 0; i < 10; i++)
        put(j, "a record from before the checkpoint");
    assert_int_equal(store_journal_sync(j), 0);
    uint64_t head = store_journal_bytes(j) - 10 * (16 + 40);
    assert_int_equal(store_journal_reset(j, "checkpoint one", 14), 0);
    assert_int_equal(store_journal_bytes(j), head);
    struct seen s = {0};
    assert_int_equal(store_journal_replay(path, collect, &s, &end, &next, meta, &ml), 0);
    assert_int_equal(s.n, 0);
    assert_int_equal(next, 11);
    assert_int_equal(ml, 14);
    assert_memory_equal(meta, "checkpoint one", 14);
    put(j, "new");
    assert_int_equal(store_journal_sync(j), 0);
    assert_int_equal(store_journal_reset(j, NULL, STORE_JOURNAL_META_MAX + 1), -E2BIG);
    store_journal_close(j);
    s = (struct seen){0};
    assert_int_equal(store_journal_replay(path, collect, &s, &end, &next, meta, &ml), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.first, 11);
    assert_string_equal(s.text[0], "new");

    /* A second reset torn by a crash (its slot half written): the first
     * stays in force, with the records after it. */
    assert_int_equal(store_journal_open(path, &j), 0);
    assert_int_equal(store_journal_reset(j, "checkpoint two", 14), 0);
    store_journal_close(j);
    int fd = open(path, O_RDWR);
    uint8_t junk[100];
    memset(junk, 0x5a, sizeof(junk));
    /* generation 3 is in slot 1 (8 KiB in): its checkpoint bytes torn. */
    assert_int_equal(pwrite(fd, junk, sizeof(junk), 8192 + 32), (ssize_t)sizeof(junk));
    close(fd);
    s = (struct seen){0};
    assert_int_equal(store_journal_replay(path, collect, &s, &end, &next, meta, &ml), 0);
    assert_int_equal(ml, 14);
    assert_memory_equal(meta, "checkpoint one", 14);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.text[0], "new");
    unlink(path);
}

/* Invalidated (both slots zeroed): no journal to a replay; an open makes
 * it anew, and its old records never follow the new header. */
static void test_invalidated_is_made_anew(void **state)
{
    char path[64];
    uint64_t end, next;
    struct store_journal *j;

    (void)state;
    tmp_path(path, sizeof(path));
    assert_int_equal(store_journal_open(path, &j), 0);
    put(j, "one");
    put(j, "two");
    assert_int_equal(store_journal_sync(j), 0);
    store_journal_close(j);
    assert_int_equal(store_journal_invalidate(path), 0);
    assert_int_equal(store_journal_replay(path, collect, NULL, &end, &next, NULL, NULL),
                     -EINVAL);
    assert_int_equal(store_journal_open(path, &j), 0);
    assert_int_equal(store_journal_next_seq(j), 1);
    store_journal_close(j);
    struct seen s = replay(path, &end, &next);
    assert_int_equal(s.n, 0);
    assert_int_equal(next, 1);
    assert_int_equal(store_journal_invalidate("/tmp/no-such-journal-file"), 0);
    unlink(path);
}

/* reset_at starts the records at a later sequence (another file carried
 * the ones between); set_meta keeps the records and their first sequence. */
static void test_reset_at_and_set_meta(void **state)
{
    char path[64], meta[16];
    uint64_t end, next, first;
    size_t ml;
    struct store_journal *j;

    (void)state;
    tmp_path(path, sizeof(path));
    assert_int_equal(store_journal_open(path, &j), 0);
    put(j, "old");
    assert_int_equal(store_journal_sync(j), 0);
    assert_int_equal(store_journal_reset_at(j, 1, "p", 1), -EINVAL);   /* behind */
    assert_int_equal(store_journal_reset_at(j, 40, "pending", 7), 0);
    put(j, "a");
    put(j, "b");
    assert_int_equal(store_journal_sync(j), 0);
    assert_int_equal(store_journal_set_meta(j, "complete", 8), 0);
    store_journal_close(j);
    struct seen s = {0};
    assert_int_equal(store_journal_replay_from(path, collect, &s, &end, &first, &next, meta,
                                               &ml), 0);
    assert_int_equal(first, 40);
    assert_int_equal(next, 42);
    assert_int_equal(s.n, 2);
    assert_int_equal(ml, 8);
    assert_memory_equal(meta, "complete", 8);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_torn_tail),
        cmocka_unit_test(test_flipped_byte_stops_there),
        cmocka_unit_test(test_reset),
        cmocka_unit_test(test_invalidated_is_made_anew),
        cmocka_unit_test(test_reset_at_and_set_meta),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
