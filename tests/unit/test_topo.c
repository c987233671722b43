/* topo_lldp, topo_fresh and topo_links: ofcd's LLDP frames read back as
 * sent, and anything else — truncated or broken TLVs, another controller's
 * frame, a forged or stale one — told apart; per sender port only a newer
 * send time passes (replays, relays); the link table's life with a fake
 * clock: up only when seen both ways, down on silence, port down, switch
 * down or a moved cable, loops shown as loops, a full table refusing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "topo_fresh.h"
#include "topo_links.h"
#include "topo_lldp.h"

static const uint8_t key[TOPO_LLDP_KEY_LEN] = "0123456789abcdef0123456789abcdef";
static const uint8_t mac[6] = {0x02, 0, 0, 0, 0x10, 0x01};

#define MS 1000ull
#define SKEW TOPO_LLDP_SKEW_US

/* Tagged with the LLDP VLAN as Kytos' of_lldp tags its own: 802.1Q with
 * priority 0 and the VLAN, then LLDP, in the same 64 bytes; read back as
 * ours, and told apart from other ethertypes under a tag. */
static void test_lldp_tagged(void **state)
{
    uint8_t f[TOPO_LLDP_FRAME_LEN];
    struct topo_lldp_id id;

    (void)state;
    assert_int_equal(topo_lldp_build(f, mac, 3799, 0x1001, 7, 5000 * MS, false, key),
                     TOPO_LLDP_FRAME_LEN);
    assert_int_equal(f[12], 0x81);
    assert_int_equal(f[13], 0x00);
    assert_int_equal((f[14] << 8 | f[15]), 3799);
    assert_int_equal(f[16], 0x88);
    assert_int_equal(f[17], 0xcc);
    assert_true(topo_lldp_is_lldp(f, sizeof(f)));
    assert_int_equal(topo_lldp_parse(f, sizeof(f), key, 5500 * MS, 9000 * MS, SKEW, &id),
                     TOPO_LLDP_OURS);
    assert_true(id.dpid == 0x1001);
    assert_int_equal(id.port, 7);
    f[16] = 0x08;
    f[17] = 0x00;
    assert_false(topo_lldp_is_lldp(f, sizeof(f)));
    assert_false(topo_lldp_is_lldp(f, 17));
    topo_lldp_build(f, mac, 0, 0x1001, 7, 5000 * MS, false, key);
    assert_true(topo_lldp_is_lldp(f, 14));
    assert_false(topo_lldp_is_lldp(f, 13));
}

static void test_lldp_round_trip(void **state)
{
    uint8_t f[TOPO_LLDP_FRAME_LEN];
    struct topo_lldp_id id;

    (void)state;
    assert_int_equal(topo_lldp_build(f, mac, 0, 0x1001, 7, 5000 * MS, false, key),
                     TOPO_LLDP_FRAME_LEN);
    assert_int_equal(f[12], 0x88);
    assert_int_equal(f[13], 0xcc);
    assert_int_equal(topo_lldp_parse(f, sizeof(f), key, 5500 * MS, 9000 * MS, SKEW, &id),
                     TOPO_LLDP_OURS);
    assert_true(id.dpid == 0x1001);
    assert_int_equal(id.port, 7);
    assert_true(id.sent_us == 5000 * MS);
    assert_false(id.ask);
    /* A probe that asks for an answer says so, under the same tag; turning
     * a scheduled probe into one that asks breaks the tag. */
    uint8_t a[TOPO_LLDP_FRAME_LEN];
    topo_lldp_build(a, mac, 0, 0x1001, 7, 5000 * MS, true, key);
    assert_int_equal(topo_lldp_parse(a, sizeof(a), key, 5500 * MS, 9000 * MS, SKEW, &id),
                     TOPO_LLDP_OURS);
    assert_true(id.ask);
    uint8_t forged[TOPO_LLDP_FRAME_LEN];
    memcpy(forged, f, sizeof(forged));
    forged[14 + 11 + 7 + 4 + 2 + 3] = 2;        /* the ofcd TLV's subtype byte */
    assert_int_equal(topo_lldp_parse(forged, sizeof(forged), key, 5500 * MS, 9000 * MS, SKEW, &id),
                     TOPO_LLDP_FOREIGN);
    /* Old, or from the future: stale. */
    assert_int_equal(topo_lldp_parse(f, sizeof(f), key, 5000 * MS + 9000 * MS + 1, 9000 * MS,
                                     SKEW, &id), TOPO_LLDP_STALE);
    assert_int_equal(topo_lldp_parse(f, sizeof(f), key, 5000 * MS - TOPO_LLDP_SKEW_US - 1,
                                     9000 * MS, SKEW, &id), TOPO_LLDP_STALE);
    /* A little ahead of the reader's clock (lcores read it once a loop): ours. */
    assert_int_equal(topo_lldp_parse(f, sizeof(f), key, 5000 * MS - 1000, 9000 * MS, SKEW, &id),
                     TOPO_LLDP_OURS);
    /* Another key: another ofcd's, or forged. */
    uint8_t other[TOPO_LLDP_KEY_LEN] = {1};
    assert_int_equal(topo_lldp_parse(f, sizeof(f), other, 5500 * MS, 9000 * MS, SKEW, &id),
                     TOPO_LLDP_FOREIGN);
    /* The port changed on the way (a forger re-pointing a frame). */
    uint8_t g[TOPO_LLDP_FRAME_LEN];
    memcpy(g, f, sizeof(g));
    g[14 + 2 + 9 + 2 + 4] ^= 1;                  /* the low byte of the port */
    assert_int_equal(topo_lldp_parse(g, sizeof(g), key, 5500 * MS, 9000 * MS, SKEW, &id),
                     TOPO_LLDP_FOREIGN);
    assert_int_equal(id.port, 6);
    /* Not LLDP at all. */
    memcpy(g, f, sizeof(g));
    g[12] = 0x08;
    g[13] = 0x00;
    assert_int_equal(topo_lldp_parse(g, sizeof(g), key, 5500 * MS, 9000 * MS, SKEW, &id),
                     TOPO_LLDP_NOT_LLDP);
}

/* Every truncation is malformed, never read past the end. */
static void test_lldp_truncated(void **state)
{
    uint8_t f[TOPO_LLDP_FRAME_LEN];
    struct topo_lldp_id id;

    (void)state;
    topo_lldp_build(f, mac, 0, 0x1001, 7, 5000 * MS, false, key);
    /* Chassis 11, port 7, TTL 4, ofcd 22, End 2: the End TLV ends at 14+46. */
    for (size_t len = 0; len < 14 + 46; len++)
        assert_int_equal(topo_lldp_parse(f, len, key, 5500 * MS, 9000 * MS, SKEW, &id),
                         TOPO_LLDP_MALFORMED);
    assert_int_equal(topo_lldp_parse(f, 14 + 46, key, 5500 * MS, 9000 * MS, SKEW, &id),
                     TOPO_LLDP_OURS);
}

/* Kytos-ng's of_lldp frame (VLAN-tagged, chassis and port subtype 7, no
 * ofcd TLV) reads as what it claims, marked foreign; a frame without the
 * mandatory order is malformed. */
static void test_lldp_foreign_and_broken(void **state)
{
    struct topo_lldp_id id;
    uint8_t k[] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e, 0x02, 0, 0, 0, 0, 1, 0x81, 0x00, 0x0e,
                   0xd7, 0x88, 0xcc,
                   0x02, 0x09, 0x07, 0, 0, 0, 0, 0, 0, 0x10, 0x02,
                   0x04, 0x05, 0x07, 0, 0, 0, 3,
                   0x06, 0x02, 0, 120,
                   0x00, 0x00};
    (void)state;
    assert_int_equal(topo_lldp_parse(k, sizeof(k), key, 1, 1000, SKEW, &id), TOPO_LLDP_FOREIGN);
    assert_true(id.dpid == 0x1002);
    assert_int_equal(id.port, 3);
    uint8_t swapped[sizeof(k)];
    memcpy(swapped, k, sizeof(k));
    memcpy(swapped + 18, k + 29, 7);             /* port TLV first */
    memcpy(swapped + 25, k + 18, 11);
    assert_int_equal(topo_lldp_parse(swapped, sizeof(swapped), key, 1, 1000, SKEW, &id),
                     TOPO_LLDP_MALFORMED);
    uint8_t longlen[sizeof(k)];
    memcpy(longlen, k, sizeof(k));
    longlen[19] = 0xff;                          /* chassis TLV longer than the frame */
    assert_int_equal(topo_lldp_parse(longlen, sizeof(longlen), key, 1, 1000, SKEW, &id),
                     TOPO_LLDP_MALFORMED);
}

/* ---- senders' send times ------------------------------------------------------------ */

#define FE(d, p) ((struct topo_end){(d), (p)})

/* Per sender port, only a newer send time passes: the same frame again (a
 * replay, or relayed to another port) or an older one does not; ports are
 * independent; age and the future are judged first; a sender's entry goes
 * once its send time is past max_age (nothing older could pass anyway),
 * which is what makes room in a full table. */
static void test_fresh_replays(void **state)
{
    struct topo_fresh *f = topo_fresh_create(2, 2000 * MS, SKEW);

    (void)state;
    assert_non_null(f);
    assert_int_equal(topo_fresh_check(f, FE(1, 1), 10000 * MS, 10001 * MS), TOPO_FRESH_OK);
    assert_int_equal(topo_fresh_check(f, FE(1, 1), 10000 * MS, 10002 * MS), TOPO_FRESH_REPLAY);
    assert_int_equal(topo_fresh_check(f, FE(1, 1), 9999 * MS, 10002 * MS), TOPO_FRESH_REPLAY);
    assert_int_equal(topo_fresh_check(f, FE(1, 1), 10000 * MS + 1, 10002 * MS), TOPO_FRESH_OK);
    assert_int_equal(topo_fresh_check(f, FE(1, 2), 9000 * MS, 10002 * MS), TOPO_FRESH_OK);
    assert_int_equal(topo_fresh_count(f), 2);
    /* Full: a third sender waits until an entry ages out. */
    assert_int_equal(topo_fresh_check(f, FE(2, 1), 10003 * MS, 10003 * MS), TOPO_FRESH_FULL);
    /* Older than max_age, or too far ahead: stale, whatever is known. */
    assert_int_equal(topo_fresh_check(f, FE(3, 1), 8000 * MS, 10003 * MS), TOPO_FRESH_STALE);
    assert_int_equal(topo_fresh_check(f, FE(3, 1), 10003 * MS + TOPO_LLDP_SKEW_US + 1,
                                      10003 * MS), TOPO_FRESH_STALE);
    /* At 12001 ms both entries are past max_age: they go, the newcomer
     * fits, and what they guarded is refused by age instead. */
    assert_int_equal(topo_fresh_check(f, FE(2, 1), 12001 * MS, 12001 * MS), TOPO_FRESH_OK);
    assert_int_equal(topo_fresh_count(f), 1);
    assert_int_equal(topo_fresh_check(f, FE(1, 1), 10000 * MS + 1, 12001 * MS),
                     TOPO_FRESH_STALE);
    topo_fresh_destroy(f);
}

/* Many senders and churn: chains and the age line stay right. */
static void test_fresh_many(void **state)
{
    struct topo_fresh *f = topo_fresh_create(1000, 2000 * MS, SKEW);

    (void)state;
    for (uint64_t t = 0; t < 20; t++) {
        uint64_t now = (100 + t * 500) * MS;
        for (uint32_t i = 1; i <= 1000; i++) {
            struct topo_end e = FE(i % 97 + 1, i);
            /* Each round, every sender's next frame is newer; then the same again. */
            if (topo_fresh_check(f, e, now - i, now) != TOPO_FRESH_OK)
                fail_msg("round %lu sender %u refused", (unsigned long)t, i);
            assert_int_equal(topo_fresh_check(f, e, now - i, now), TOPO_FRESH_REPLAY);
        }
        assert_int_equal(topo_fresh_count(f), 1000);
    }
    /* Silence past max_age: one new frame makes the old entries go. */
    assert_int_equal(topo_fresh_check(f, FE(5000, 1), 20000 * MS, 20000 * MS), TOPO_FRESH_OK);
    assert_int_equal(topo_fresh_count(f), 1);
    topo_fresh_destroy(f);
}

/* ---- links ------------------------------------------------------------------------ */

struct changes {
    unsigned up, down, loop;
    char why[96];
};

static void on_change(void *arg, const struct topo_link *l, enum topo_change c, const char *why)
{
    struct changes *ch = arg;
    (void)l;
    if (c == TOPO_LINK_UP)
        ch->up++;
    else if (c == TOPO_LINK_DOWN)
        ch->down++;
    else
        ch->loop++;
    strncpy(ch->why, why, sizeof(ch->why) - 1);
}

#define E(d, p) ((struct topo_end){(d), (p)})
#define SEC 1000000ull

static void test_links_up_both_ways_down_on_silence(void **state)
{
    struct changes ch = {0};
    struct topo_links *t = topo_links_create(16, 10 * SEC, on_change, &ch);

    (void)state;
    assert_int_equal(topo_links_seen(t, E(1, 1), E(2, 1), 1 * SEC), 0);
    assert_int_equal(ch.up, 0);                  /* one way only */
    assert_int_equal(topo_links_count(t), 1);
    assert_int_equal(topo_links_seen(t, E(2, 1), E(1, 1), 2 * SEC), 0);
    assert_int_equal(ch.up, 1);
    assert_int_equal(topo_links_seen(t, E(2, 1), E(1, 1), 3 * SEC), 0);
    assert_int_equal(ch.up, 1);                  /* once */
    /* 1 -> 2 goes quiet after its frame at 1 s: down 10 s later, though
     * 2 -> 1 goes on. */
    for (uint64_t s = 4; s <= 10; s++) {
        topo_links_seen(t, E(2, 1), E(1, 1), s * SEC);
        topo_links_expire(t, s * SEC);
    }
    assert_int_equal(ch.down, 0);
    topo_links_expire(t, 11 * SEC);
    assert_int_equal(ch.down, 1);
    assert_string_equal(ch.why, "no LLDP within topology.link_timeout_s");
    assert_int_equal(topo_links_count(t), 0);
    /* Seen one way only, never up: forgotten quietly. */
    topo_links_seen(t, E(3, 1), E(4, 1), 20 * SEC);
    topo_links_expire(t, 30 * SEC);
    assert_int_equal(topo_links_count(t), 0);
    assert_int_equal(ch.down, 1);
    topo_links_destroy(t);
}

static void test_links_port_switch_moved_loop_full(void **state)
{
    struct changes ch = {0};
    struct topo_links *t = topo_links_create(3, 10 * SEC, on_change, &ch);

    (void)state;
    topo_links_seen(t, E(1, 1), E(2, 1), SEC);
    topo_links_seen(t, E(2, 1), E(1, 1), SEC);
    topo_links_seen(t, E(2, 2), E(3, 1), SEC);
    topo_links_seen(t, E(3, 1), E(2, 2), SEC);
    assert_int_equal(ch.up, 2);
    topo_links_port_down(t, E(3, 1));
    assert_int_equal(ch.down, 1);
    assert_string_equal(ch.why, "a port went down");
    /* Forgotten (an operator deleted it): down, told why; the next frames
     * make it anew — one way first, up only when seen both ways again. */
    topo_links_seen(t, E(2, 2), E(3, 1), SEC);
    topo_links_seen(t, E(3, 1), E(2, 2), SEC);
    assert_int_equal(ch.up, 3);
    /* Another pair at that end (a record of before the cable moved): the
     * link there now is let be. */
    topo_links_forget_pair(t, E(1, 1), E(3, 1), "deleted");
    assert_int_equal(ch.down, 1);
    topo_links_forget_pair(t, E(2, 2), E(3, 1), "deleted");
    assert_int_equal(ch.down, 2);
    assert_string_equal(ch.why, "deleted");
    topo_links_seen(t, E(2, 2), E(3, 1), SEC);
    assert_int_equal(ch.up, 3);
    topo_links_seen(t, E(3, 1), E(2, 2), SEC);
    assert_int_equal(ch.up, 4);
    topo_links_forget_pair(t, E(2, 2), E(3, 1), "deleted");
    topo_links_forget_pair(t, E(2, 2), E(3, 1), "deleted");   /* none left: nothing told */
    assert_int_equal(ch.down, 3);
    ch.down = 1;
    topo_links_switch_down(t, 1);
    assert_int_equal(ch.down, 2);
    assert_string_equal(ch.why, "a switch disconnected");
    assert_int_equal(topo_links_count(t), 0);
    /* The cable from 2:1 moves to 4:1: the old link goes. */
    topo_links_seen(t, E(1, 1), E(2, 1), 2 * SEC);
    topo_links_seen(t, E(2, 1), E(1, 1), 2 * SEC);
    topo_links_seen(t, E(4, 1), E(2, 1), 3 * SEC);
    assert_int_equal(ch.down, 3);
    assert_string_equal(ch.why, "one of its ports is now linked elsewhere");
    assert_int_equal(topo_links_count(t), 1);
    /* A frame back to its own switch: a loop, never up. */
    topo_links_seen(t, E(5, 1), E(5, 2), 4 * SEC);
    assert_int_equal(ch.loop, 1);
    assert_int_equal(topo_links_count(t), 2);
    /* Full: 3 links at most. */
    assert_int_equal(topo_links_seen(t, E(6, 1), E(7, 1), 4 * SEC), 0);
    assert_int_equal(topo_links_seen(t, E(8, 1), E(9, 1), 4 * SEC), -ENOSPC);
    assert_int_equal(topo_links_seen(t, E(0, 1), E(9, 1), 4 * SEC), -EINVAL);
    assert_int_equal(topo_links_seen(t, E(8, 0), E(9, 1), 4 * SEC), -EINVAL);
    topo_links_destroy(t);
}

/* Many links and churn: the endpoint index stays right (backward shifts). */
static void test_links_many(void **state)
{
    struct changes ch = {0};
    struct topo_links *t = topo_links_create(2000, 10 * SEC, on_change, &ch);

    (void)state;
    for (uint32_t i = 1; i <= 2000; i++) {
        topo_links_seen(t, E(i, 1), E(i + 10000, 2), SEC);
        topo_links_seen(t, E(i + 10000, 2), E(i, 1), SEC);
    }
    assert_int_equal(ch.up, 2000);
    for (uint32_t i = 1; i <= 2000; i += 2)
        topo_links_port_down(t, E(i + 10000, 2));
    assert_int_equal(topo_links_count(t), 1000);
    for (uint32_t i = 2; i <= 2000; i += 2)
        topo_links_switch_down(t, i);
    assert_int_equal(topo_links_count(t), 0);
    assert_int_equal(ch.down, 2000);
    topo_links_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lldp_round_trip),
        cmocka_unit_test(test_lldp_tagged),
        cmocka_unit_test(test_fresh_replays),
        cmocka_unit_test(test_fresh_many),
        cmocka_unit_test(test_lldp_truncated),
        cmocka_unit_test(test_lldp_foreign_and_broken),
        cmocka_unit_test(test_links_up_both_ways_down_on_silence),
        cmocka_unit_test(test_links_port_switch_moved_loop_full),
        cmocka_unit_test(test_links_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
