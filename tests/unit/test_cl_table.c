/*
 * test_cl_table: the cluster's keys, its member list and every switch's
 * election and role handshake as the two threads drive them, on a fake
 * clock: keys made and read back (and hostile ones refused); a switch
 * whose channel comes up is stood for, asked MASTER once this node wins
 * with the winner's revision, never asked twice while a request is out;
 * a reply confirms, a refusal waits before asking again, a silent switch
 * is asked again after the timeout; a lost channel resigns; the table is
 * bounded and sweeps what holds nothing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cl_keys.h"
#include "cl_members.h"
#include "cl_table.h"

#define MS 1000ull
#define P "/ofcd/v1/"

static int parse(const char *key, struct cl_key *k)
{
    return cl_key_parse(P, (const uint8_t *)key, strlen(key), k);
}

static void test_keys(void **state)
{
    (void)state;
    char buf[CL_KEY_MAX];
    struct cl_key k;

    assert_int_equal(cl_key_cand(buf, sizeof(buf), P, 0x1001, "node-2"),
                     (int)strlen("/ofcd/v1/switches/0000000000001001/cand/node-2"));
    assert_string_equal(buf, "/ofcd/v1/switches/0000000000001001/cand/node-2");
    assert_int_equal(parse(buf, &k), 0);
    assert_int_equal(k.kind, CL_KEY_CAND);
    assert_true(k.dpid == 0x1001);
    assert_string_equal(k.node, "node-2");
    cl_key_cand(buf, sizeof(buf), P, UINT64_MAX, "n");
    assert_int_equal(parse(buf, &k), 0);
    assert_true(k.dpid == UINT64_MAX);

    cl_key_member(buf, sizeof(buf), P, "node1");
    assert_string_equal(buf, "/ofcd/v1/members/node1");
    assert_int_equal(parse(buf, &k), 0);
    assert_int_equal(k.kind, CL_KEY_MEMBER);
    assert_string_equal(k.node, "node1");
    cl_key_switches(buf, sizeof(buf), P);
    assert_string_equal(buf, "/ofcd/v1/switches/");
    cl_key_members(buf, sizeof(buf), P);
    assert_string_equal(buf, "/ofcd/v1/members/");
    assert_int_equal(cl_key_member(buf, 10, P, "node1"), -ENAMETOOLONG);
    cl_key_events(buf, sizeof(buf), P, "node3");
    assert_string_equal(buf, "/ofcd/v1/events/node3");
    assert_int_equal(parse(buf, &k), 0);
    assert_int_equal(k.kind, CL_KEY_EVENTS);
    assert_string_equal(k.node, "node3");
    assert_int_equal(parse("/ofcd/v1/events/", &k), -EINVAL);
    /* The view: events/ to switches/, the store's data/ outside it. */
    char from[CL_KEY_MAX], to[CL_KEY_MAX];
    assert_int_equal(cl_key_view(from, to, P), 0);
    assert_true(strcmp("/ofcd/v1/events/node3", from) >= 0);
    assert_true(strcmp("/ofcd/v1/members/node1", to) < 0);
    assert_true(strcmp("/ofcd/v1/switches/ffffffffffffffff/cand/n", to) < 0);
    assert_true(strcmp("/ofcd/v1/data/flows/0000000000001001/1", from) < 0);

    /* Another layout's keys under the prefix are not ours to read. */
    assert_int_equal(parse("/ofcd/v1/flows/abc", &k), 0);
    assert_int_equal(k.kind, CL_KEY_OTHER);
    assert_int_equal(parse("/ofcd/v1/switches/0000000000001001/admin", &k), 0);
    assert_int_equal(k.kind, CL_KEY_OTHER);
    /* Outside the prefix, or ours and malformed: refused. */
    assert_int_equal(parse("/other/members/x", &k), -EINVAL);
    assert_int_equal(parse("/ofcd/v1/members/", &k), -EINVAL);
    assert_int_equal(parse("/ofcd/v1/members/a/b", &k), -EINVAL);
    assert_int_equal(parse("/ofcd/v1/switches/000000000000100G/cand/n", &k), -EINVAL);
    assert_int_equal(parse("/ofcd/v1/switches/0000000000001001/cand/", &k), -EINVAL);
    char longkey[CL_KEY_MAX];
    snprintf(longkey, sizeof(longkey), "/ofcd/v1/members/%0*d", CL_NODE_NAME_MAX, 7);
    assert_int_equal(parse(longkey, &k), -EINVAL);
    static const uint8_t nul[] = "/ofcd/v1/members/a\0b";
    assert_int_equal(cl_key_parse(P, nul, sizeof(nul) - 1, &k), -EINVAL);
    /* A name no ofcd could have: not UTF-8, a blank, a quote, an escape. */
    static const uint8_t latin1[] = "/ofcd/v1/members/caf\xe9";
    assert_int_equal(cl_key_parse(P, latin1, sizeof(latin1) - 1, &k), -EINVAL);
    assert_int_equal(parse("/ofcd/v1/members/a b", &k), -EINVAL);
    assert_int_equal(parse("/ofcd/v1/switches/0000000000001001/cand/\"x\"", &k), -EINVAL);
    assert_int_equal(parse("/ofcd/v1/events/\x1b[2J", &k), -EINVAL);
    assert_int_equal(parse("/ofcd/v1/members/node-1.lab_2", &k), 0);
    assert_string_equal(k.node, "node-1.lab_2");
}

static void test_members(void **state)
{
    (void)state;
    struct cl_members s = {0};
    char big[CL_CARD_MAX];

    assert_int_equal(cl_members_put(&s, "n1", "{\"a\":1}", 7, 11, 5), 0);
    assert_int_equal(cl_members_put(&s, "n2", "{}", 2, 12, 6), 0);
    assert_int_equal(cl_members_put(&s, "n1", "{\"a\":2}", 7, 13, 8), 0);
    assert_int_equal(s.n, 2);
    assert_string_equal(cl_members_find(&s, "n1")->card, "{\"a\":2}");
    assert_true(cl_members_find(&s, "n1")->lease == 13);
    memset(big, 'x', sizeof(big));
    assert_int_equal(cl_members_put(&s, "n3", big, sizeof(big), 1, 1), -EINVAL);
    assert_int_equal(cl_members_put(&s, "", "{}", 2, 1, 1), -EINVAL);
    cl_members_del(&s, "n1");
    assert_null(cl_members_find(&s, "n1"));
    assert_non_null(cl_members_find(&s, "n2"));
    for (int i = 0; i < CL_NODES_MAX - 1; i++) {
        char name[16];
        snprintf(name, sizeof(name), "m%d", i);
        assert_int_equal(cl_members_put(&s, name, "{}", 2, 1, 1), 0);
    }
    assert_int_equal(cl_members_put(&s, "onemore", "{}", 2, 1, 1), -ENOSPC);
}

/* The leader is the node that joined first, whatever the order the keys
 * were read in; it stays until it leaves; one that rejoins comes last. */
static void test_members_eldest(void **state)
{
    (void)state;
    struct cl_members s = {0};

    assert_null(cl_members_eldest(&s));
    assert_int_equal(cl_members_put(&s, "n3", "{}", 2, 13, 40), 0);
    assert_int_equal(cl_members_put(&s, "n1", "{}", 2, 11, 22), 0);
    assert_int_equal(cl_members_put(&s, "n2", "{}", 2, 12, 31), 0);
    assert_string_equal(cl_members_eldest(&s)->node, "n1");
    assert_int_equal(cl_members_put(&s, "n1", "{\"x\":1}", 7, 11, 22), 0);   /* its card again */
    assert_string_equal(cl_members_eldest(&s)->node, "n1");
    cl_members_del(&s, "n1");
    assert_string_equal(cl_members_eldest(&s)->node, "n2");
    assert_int_equal(cl_members_put(&s, "n1", "{}", 2, 14, 50), 0);          /* back: last */
    assert_string_equal(cl_members_eldest(&s)->node, "n2");
    assert_int_equal(cl_members_put(&s, "n0", "{}", 2, 15, 31), 0);          /* a tie: by name */
    assert_string_equal(cl_members_eldest(&s)->node, "n0");
}

/* A node's lease TTL left: not known until etcd said it, then counting
 * down on the clock from that answer (0 at the least); an answer about a
 * lease the node no longer holds is not taken, and a node back with a new
 * lease is not known again. */
static void test_member_ttl(void **state)
{
    (void)state;
    struct cl_members s = {0};
    const uint64_t S = 1000000;

    assert_int_equal(cl_members_put(&s, "n1", "{}", 2, 11, 5), 0);
    assert_int_equal(cl_member_ttl_left(cl_members_find(&s, "n1"), 10 * S), -1);
    cl_members_ttl(&s, "n1", 11, 3, 10 * S);
    assert_int_equal(cl_member_ttl_left(cl_members_find(&s, "n1"), 10 * S), 3);
    assert_int_equal(cl_member_ttl_left(cl_members_find(&s, "n1"), 12 * S), 1);
    assert_int_equal(cl_member_ttl_left(cl_members_find(&s, "n1"), 20 * S), 0);
    cl_members_ttl(&s, "n1", 99, 7, 20 * S);                   /* not its lease */
    assert_int_equal(cl_member_ttl_left(cl_members_find(&s, "n1"), 20 * S), 0);
    assert_int_equal(cl_members_put(&s, "n1", "{}", 2, 11, 5), 0);   /* same lease */
    assert_int_equal(cl_member_ttl_left(cl_members_find(&s, "n1"), 10 * S), 3);
    assert_int_equal(cl_members_put(&s, "n1", "{}", 2, 12, 9), 0);   /* back, new lease */
    assert_int_equal(cl_member_ttl_left(cl_members_find(&s, "n1"), 20 * S), -1);
}

/* One switch, this node "a": up → stand; the watch shows a's key → ask
 * MASTER with a's revision; nothing more while it is out; confirmed → quiet. */
static void test_master_handshake(void **state)
{
    (void)state;
    struct cl_table t;
    struct cl_ask ask;
    uint64_t now = 1000 * MS;

    assert_int_equal(cl_table_init(&t, 4), 0);
    struct cl_sw *sw = cl_table_get(&t, 0x1001);
    assert_non_null(sw);
    assert_false(cl_sw_step(sw, "a", true, now, &ask));   /* channel down: nothing */
    assert_false(ask.send);
    cl_sw_up(sw, 77);
    assert_true(cl_sw_step(sw, "a", true, now, &ask));    /* stand */
    assert_true(sw->want_stand);
    assert_false(ask.send);
    assert_false(cl_sw_step(sw, "a", true, now, &ask));   /* still waiting for the key */
    cl_cands_put(&sw->cands, "b", 40);                     /* b stood later */
    cl_cands_put(&sw->cands, "a", 31);
    cl_sw_step(sw, "a", true, now, &ask);
    assert_true(ask.send);
    assert_int_equal(ask.role, CL_ROLE_MASTER);
    assert_true(ask.generation == 31);
    cl_sw_asked(sw, &ask, 900, now);
    cl_sw_step(sw, "a", true, now + 10 * MS, &ask);
    assert_false(ask.send);                                /* one request at a time */
    assert_int_equal(cl_sw_reply(sw, 899, CL_ROLE_MASTER, 31), -ESRCH);
    assert_int_equal(cl_sw_reply(sw, 900, CL_ROLE_MASTER, 31), 1);
    assert_int_equal(sw->role, CL_ROLE_MASTER);
    cl_sw_step(sw, "a", true, now + 20 * MS, &ask);
    assert_false(ask.send);
    /* The fence closes: step down at once. */
    cl_sw_step(sw, "a", false, now + 30 * MS, &ask);
    assert_true(ask.send);
    assert_int_equal(ask.role, CL_ROLE_SLAVE);
    assert_true(ask.generation == 31);
    cl_table_free(&t);
}

/* A refused request waits CL_RETRY_AFTER_US; an unanswered one is given
 * up after CL_ASK_TIMEOUT_US and asked again. */
static void test_refusal_and_timeout(void **state)
{
    (void)state;
    struct cl_table t;
    struct cl_ask ask;
    uint64_t now = 5000 * MS;

    cl_table_init(&t, 4);
    struct cl_sw *sw = cl_table_get(&t, 7);
    cl_sw_up(sw, 1);
    cl_cands_put(&sw->cands, "a", 10);
    cl_sw_step(sw, "a", true, now, &ask);
    assert_true(ask.send);
    cl_sw_asked(sw, &ask, 1, now);
    assert_int_equal(cl_sw_refused(sw, 2, now), -ESRCH);
    assert_int_equal(cl_sw_refused(sw, 1, now), 0);
    assert_true(sw->refusals == 1);
    cl_sw_step(sw, "a", true, now + CL_RETRY_AFTER_US - 1, &ask);
    assert_false(ask.send);
    cl_sw_step(sw, "a", true, now + CL_RETRY_AFTER_US, &ask);
    assert_true(ask.send);
    now += CL_RETRY_AFTER_US;
    cl_sw_asked(sw, &ask, 3, now);
    cl_sw_step(sw, "a", true, now + CL_ASK_TIMEOUT_US - 1, &ask);
    assert_false(ask.send);
    cl_sw_step(sw, "a", true, now + CL_ASK_TIMEOUT_US, &ask);
    assert_true(ask.send);
    assert_true(sw->ask_timeouts == 1);
    /* A late reply to the given-up request changes nothing. */
    assert_int_equal(cl_sw_reply(sw, 3, CL_ROLE_MASTER, 10), -ESRCH);
    cl_table_free(&t);
}

/* Another node's older key wins: SLAVE; it resigns: MASTER with our
 * revision; our channel goes: resign, the confirmed role void. */
static void test_takeover_and_resign(void **state)
{
    (void)state;
    struct cl_table t;
    struct cl_ask ask;
    uint64_t now = 0;

    cl_table_init(&t, 4);
    struct cl_sw *sw = cl_table_get(&t, 9);
    cl_sw_up(sw, 5);
    assert_true(cl_sw_step(sw, "a", true, now, &ask));       /* stand */
    cl_cands_put(&sw->cands, "b", 20);
    cl_cands_put(&sw->cands, "a", 21);
    cl_sw_step(sw, "a", true, now, &ask);
    assert_int_equal(ask.role, CL_ROLE_SLAVE);
    /* OpenFlow 1.3 checks the generation of SLAVE requests too: the
     * winner's, or the switch refuses it as stale. */
    assert_true(ask.generation == 20);
    cl_sw_asked(sw, &ask, 1, now);
    assert_int_equal(cl_sw_reply(sw, 1, CL_ROLE_SLAVE, 20), 1);
    cl_sw_step(sw, "a", true, now, &ask);
    assert_false(ask.send);
    cl_cands_del(&sw->cands, "b");                          /* b died: its lease expired */
    cl_sw_step(sw, "a", true, now, &ask);
    assert_int_equal(ask.role, CL_ROLE_MASTER);
    assert_true(ask.generation == 21);
    cl_sw_asked(sw, &ask, 2, now);
    assert_int_equal(cl_sw_reply(sw, 2, CL_ROLE_MASTER, 21), 1);
    assert_true(sw->role_changes == 2);
    cl_sw_down(sw);
    assert_true(cl_sw_step(sw, "a", true, now, &ask));       /* resign */
    assert_false(sw->want_stand);
    assert_int_equal(sw->role, CL_ROLE_NONE);
    /* Up again on a new connection: nothing confirmed, stand again. */
    cl_sw_up(sw, 6);
    assert_true(cl_sw_step(sw, "a", true, now, &ask));
    assert_true(sw->want_stand);
    cl_table_free(&t);
}

/* Switch dpid up on conn, "a" its only candidate (revision rev) and its
 * confirmed master at now. */
static struct cl_sw *mastered(struct cl_table *t, uint64_t dpid, uint64_t conn, int64_t rev,
                              uint64_t now)
{
    struct cl_ask ask;
    struct cl_sw *sw = cl_table_get(t, dpid);

    assert_non_null(sw);
    cl_sw_up(sw, conn);
    cl_cands_put(&sw->cands, "a", rev);
    cl_sw_step(sw, "a", true, now, &ask);
    assert_true(ask.send && ask.role == CL_ROLE_MASTER);
    cl_sw_asked(sw, &ask, (uint32_t)conn, now);
    assert_int_equal(cl_sw_reply(sw, (uint32_t)conn, CL_ROLE_MASTER, rev), 1);
    return sw;
}

/* A hand-over through the table: the master asks NOCHANGE (not SLAVE)
 * when b wins; an answer still MASTER is asked again
 * CL_ROLE_QUERY_EVERY_US later; SLAVE takes the switch's generation and
 * ends it. Leaving: no key wanted, NOCHANGE while master. */
static void test_hand_over_queries(void **state)
{
    (void)state;
    struct cl_table t;
    struct cl_ask ask;
    uint64_t now = 1000 * MS;

    cl_table_init(&t, 4);
    struct cl_sw *sw = mastered(&t, 0x1002, 1, 10, now);
    cl_cands_put(&sw->cands, "b", 11);
    cl_cands_put(&sw->cands, "a", 12);                      /* a yielded: b wins */
    cl_sw_step(sw, "a", true, now, &ask);
    assert_true(ask.send);
    assert_true(ask.nochange);
    cl_sw_asked(sw, &ask, 2, now);
    assert_int_equal(cl_sw_reply(sw, 2, CL_ROLE_MASTER, 10), 0);   /* b not yet */
    cl_sw_step(sw, "a", true, now + CL_ROLE_QUERY_EVERY_US - 1, &ask);
    assert_false(ask.send);
    cl_sw_step(sw, "a", true, now + CL_ROLE_QUERY_EVERY_US, &ask);
    assert_true(ask.send && ask.nochange);
    cl_sw_asked(sw, &ask, 3, now + CL_ROLE_QUERY_EVERY_US);
    assert_int_equal(cl_sw_reply(sw, 3, CL_ROLE_SLAVE, 11), 1);
    assert_int_equal(sw->role, CL_ROLE_SLAVE);
    assert_true(sw->generation == 11);
    cl_sw_step(sw, "a", true, now + 2 * CL_ROLE_QUERY_EVERY_US, &ask);
    assert_false(ask.send);                                 /* SLAVE of the winner's */

    /* Another switch a masters, and a leaves. */
    struct cl_sw *s2 = mastered(&t, 0x1003, 4, 20, now);
    s2->leaving = true;
    cl_cands_del(&s2->cands, "a");                          /* the lease is revoked */
    cl_sw_step(s2, "a", false, now, &ask);
    assert_false(s2->want_stand);
    assert_true(ask.send && ask.nochange);
    cl_table_free(&t);
}

/* The bound holds; the sweep drops only records that hold nothing. */
static void test_bound_and_sweep(void **state)
{
    (void)state;
    struct cl_table t;

    assert_int_equal(cl_table_init(&t, 0), -EINVAL);
    cl_table_init(&t, 3);
    struct cl_sw *a = cl_table_get(&t, 1), *b = cl_table_get(&t, 2), *c = cl_table_get(&t, 3);
    assert_non_null(a);
    assert_ptr_equal(cl_table_get(&t, 1), a);
    assert_null(cl_table_get(&t, 4));
    cl_sw_up(a, 1);
    cl_cands_put(&b->cands, "z", 3);
    c->stood = true;
    assert_int_equal(cl_table_sweep(&t), 0);
    c->stood = false;
    assert_int_equal(cl_table_sweep(&t), 1);
    assert_null(cl_table_find(&t, 3));
    assert_non_null(cl_table_get(&t, 4));
    assert_int_equal(t.n, 3);
    cl_table_free(&t);
}

/* Six switches, dpids 1..6: nodes a, b and c each win two. */
static void assert_two_each(const struct cl_table *t)
{
    unsigned wins[3] = {0};

    for (uint64_t d = 1; d <= 6; d++)
        wins[cl_sw_winner(cl_table_find(t, d))->node[0] - 'a']++;
    assert_int_equal(wins[0], 2);
    assert_int_equal(wins[1], 2);
    assert_int_equal(wins[2], 2);
}

/* Three nodes connected to six switches, "a" won all (it stood first):
 * a yields four, two to b and two to c (the runners-up, which win fewer
 * than their share of 2); after the yields are seen each node wins two
 * and nobody yields more. Alone, a yields nothing. */
static void test_balance(void **state)
{
    (void)state;
    struct cl_table t;
    struct cl_ask ask;
    uint64_t out[8];
    int64_t rev = 1;

    cl_table_init(&t, 16);
    for (uint64_t d = 1; d <= 6; d++) {
        struct cl_sw *sw = cl_table_get(&t, d);
        cl_sw_up(sw, d);
        cl_sw_step(sw, "a", true, 0, &ask);
        sw->stood = true;
        cl_cands_put(&sw->cands, "a", rev++);
        /* b and c stood later, in alternating order */
        cl_cands_put(&sw->cands, d % 2 ? "b" : "c", rev++);
        cl_cands_put(&sw->cands, d % 2 ? "c" : "b", rev++);
    }
    assert_int_equal(cl_table_balance(&t, "a", 1, out, 8), 0);
    assert_int_equal(cl_table_balance(&t, "b", 3, out, 8), 0);     /* b wins none */
    unsigned n = cl_table_balance(&t, "a", 3, out, 8);
    assert_int_equal(n, 4);
    unsigned to_b = 0, to_c = 0;
    for (unsigned i = 0; i < n; i++) {
        struct cl_sw *sw = cl_table_find(&t, out[i]);
        const char *next = sw->cands.c[1].node;
        to_b += strcmp(next, "b") == 0;
        to_c += strcmp(next, "c") == 0;
        cl_sw_yield(sw);
    }
    assert_int_equal(to_b, 2);
    assert_int_equal(to_c, 2);
    /* While the yields are under way, no more. */
    assert_int_equal(cl_table_balance(&t, "a", 3, out, 8), 0);
    /* The cluster thread carries each out: key deleted, then written anew
     * behind the others, as the watch shows. */
    for (unsigned i = 0; i < n; i++) {
        struct cl_sw *sw = cl_table_find(&t, out[i]);
        assert_true(cl_sw_step(sw, "a", true, 0, &ask));        /* resign */
        assert_false(sw->want_stand);
        sw->stood = false;
        cl_cands_del(&sw->cands, "a");
        assert_true(cl_sw_step(sw, "a", true, 0, &ask));        /* stand again */
        assert_true(sw->want_stand);
        assert_false(sw->yielding);
        sw->stood = true;
        cl_cands_put(&sw->cands, "a", rev++);
    }
    assert_two_each(&t);
    assert_int_equal(cl_table_balance(&t, "a", 3, out, 8), 0);
    assert_int_equal(cl_table_balance(&t, "b", 3, out, 8), 0);
    cl_table_free(&t);
}

/* A node back from a restart stands last everywhere: b and c master three
 * each. To give it its share, the winner and every candidate ahead of it
 * yield the same switch, each node working out the same plan from the
 * same view: b and c each yield two switches (one where it wins, one
 * where it stands in the way), and a ends with two. */
static void test_balance_rejoin(void **state)
{
    (void)state;
    struct cl_table t;
    struct cl_ask ask;
    uint64_t out_b[8], out_c[8];
    int64_t rev = 100;

    cl_table_init(&t, 16);
    for (uint64_t d = 1; d <= 6; d++) {
        struct cl_sw *sw = cl_table_get(&t, d);
        cl_sw_up(sw, d);
        cl_cands_put(&sw->cands, d <= 3 ? "b" : "c", rev++);
        cl_cands_put(&sw->cands, d <= 3 ? "c" : "b", rev++);
    }
    for (uint64_t d = 1; d <= 6; d++)
        cl_cands_put(&cl_table_find(&t, d)->cands, "a", rev++);
    unsigned nb = cl_table_balance(&t, "b", 3, out_b, 8);
    unsigned nc = cl_table_balance(&t, "c", 3, out_c, 8);
    assert_int_equal(cl_table_balance(&t, "a", 3, out_b + 4, 4), 0);
    assert_int_equal(nb, 2);
    assert_int_equal(nc, 2);
    /* The same two switches, from both. */
    assert_true((out_b[0] == out_c[0] && out_b[1] == out_c[1]) ||
                (out_b[0] == out_c[1] && out_b[1] == out_c[0]));
    for (unsigned i = 0; i < nb; i++) {
        struct cl_sw *sw = cl_table_find(&t, out_b[i]);
        cl_sw_yield(sw);
        cl_sw_step(sw, "b", true, 0, &ask);
        assert_false(sw->want_stand);
        cl_cands_del(&sw->cands, "b");
        cl_cands_del(&sw->cands, "c");
        cl_cands_put(&sw->cands, "b", rev++);
        cl_cands_put(&sw->cands, "c", rev++);
    }
    assert_two_each(&t);
    cl_table_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_members),
        cmocka_unit_test(test_member_ttl),
        cmocka_unit_test(test_master_handshake),
        cmocka_unit_test(test_refusal_and_timeout),
        cmocka_unit_test(test_takeover_and_resign),
        cmocka_unit_test(test_hand_over_queries),
        cmocka_unit_test(test_bound_and_sweep),
        cmocka_unit_test(test_balance),
        cmocka_unit_test(test_balance_rejoin),
        cmocka_unit_test(test_members_eldest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
