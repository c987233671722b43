/*
 * test_cl_elect: mastership of one switch across three nodes, as each
 * node's cl_decide sees etcd (the candidates) and its own fence, driven by
 * a fake clock: the lowest create revision wins and its revision is the
 * generation; a node that loses its channel resigns and the next one takes
 * over with a higher generation; a node whose keepalives stop steps down
 * before its lease can expire, and one revived with its old view never
 * writes; requests are one at a time; late keepalive answers do not move
 * the fence.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cl_elect.h"
#include "cl_fence.h"

#define SEC 1000000ull

static void test_cands(void **state)
{
    (void)state;
    struct cl_cands s = {0};
    char longname[CL_NODE_NAME_MAX + 1];

    assert_null(cl_cands_winner(&s));
    assert_int_equal(cl_cands_put(&s, "b", 12), 0);
    assert_int_equal(cl_cands_put(&s, "a", 15), 0);
    assert_int_equal(cl_cands_put(&s, "c", 9), 0);
    assert_string_equal(cl_cands_winner(&s)->node, "c");
    /* c's key gone and made again: a newer revision, so it loses its place. */
    cl_cands_del(&s, "c");
    assert_string_equal(cl_cands_winner(&s)->node, "b");
    assert_int_equal(cl_cands_put(&s, "c", 30), 0);
    assert_string_equal(cl_cands_winner(&s)->node, "b");
    assert_int_equal(s.n, 3);
    cl_cands_del(&s, "nobody");
    assert_int_equal(s.n, 3);

    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    assert_int_equal(cl_cands_put(&s, longname, 40), -EINVAL);
    assert_int_equal(cl_cands_put(&s, "", 40), -EINVAL);
    assert_int_equal(cl_cands_put(&s, "d", 0), -EINVAL);
    char name[8];
    for (unsigned i = s.n; i < CL_NODES_MAX; i++) {
        snprintf(name, sizeof(name), "n%u", i);
        assert_int_equal(cl_cands_put(&s, name, 100 + i), 0);
    }
    assert_int_equal(cl_cands_put(&s, "one-too-many", 999), -ENOSPC);
}

/* One node's whole view of the switch. */
struct node {
    struct cl_self self;
    struct cl_fence fence;
};

static struct cl_action step(struct cl_cands *s, struct node *n, uint64_t now)
{
    n->self.may_act = cl_fence_may_act(&n->fence, now);
    return cl_decide(s, &n->self);
}

/* The switch answers a request: the role is confirmed. */
static void confirm(struct node *n, enum cl_role role, int64_t gen)
{
    n->self.asking = false;
    n->self.role = role;
    n->self.generation = gen;
}

static void test_three_nodes(void **state)
{
    (void)state;
    struct cl_cands etcd = {0};
    struct node a = {.self = {.node = "a", .channel_up = true}};
    struct node b = {.self = {.node = "b", .channel_up = true}};
    struct node c = {.self = {.node = "c", .channel_up = true}};
    struct node *all[] = {&a, &b, &c};
    uint64_t now = 100 * SEC;
    const uint64_t margin = cl_fence_margin_us(3);
    struct cl_action act;

    assert_int_equal(margin, 300000);
    for (unsigned i = 0; i < 3; i++) {
        cl_fence_init(&all[i]->fence, margin);
        cl_fence_answer(&all[i]->fence, now, 3);
        /* Up, no key yet: each stands; etcd gives the keys revisions in order. */
        act = step(&etcd, all[i], now);
        assert_int_equal(act.kind, CL_DO_STAND);
        assert_int_equal(cl_cands_put(&etcd, all[i]->self.node, 10 + (int64_t)i), 0);
    }
    /* a holds the lowest revision: MASTER with generation 10; b, c SLAVE. */
    act = step(&etcd, &a, now);
    assert_int_equal(act.kind, CL_DO_ASK_MASTER);
    assert_int_equal(act.generation, 10);
    a.self.asking = true;
    assert_false(cl_may_write(&etcd, &a.self));              /* not before the reply */
    assert_int_equal(step(&etcd, &a, now).kind, CL_DO_NOTHING);   /* one at a time */
    confirm(&a, CL_ROLE_MASTER, 10);
    assert_true(cl_may_write(&etcd, &a.self));
    assert_int_equal(step(&etcd, &a, now).kind, CL_DO_NOTHING);
    for (unsigned i = 1; i < 3; i++) {
        act = step(&etcd, all[i], now);
        assert_int_equal(act.kind, CL_DO_ASK_SLAVE);
        /* A SLAVE request carries the winner's generation: a switch
         * refuses an older one as stale, SLAVE or MASTER. */
        assert_int_equal(act.generation, 10);
        confirm(all[i], CL_ROLE_SLAVE, act.generation);
        assert_int_equal(step(&etcd, all[i], now).kind, CL_DO_NOTHING);
        assert_false(cl_may_write(&etcd, &all[i]->self));
    }

    /* a loses its channel to the switch: it resigns; b wins with 11. */
    a.self.channel_up = false;
    assert_int_equal(step(&etcd, &a, now).kind, CL_DO_RESIGN);
    assert_false(cl_may_write(&etcd, &a.self));
    cl_cands_del(&etcd, "a");
    assert_int_equal(step(&etcd, &a, now).kind, CL_DO_NOTHING);
    act = step(&etcd, &b, now);
    assert_int_equal(act.kind, CL_DO_ASK_MASTER);
    assert_int_equal(act.generation, 11);
    confirm(&b, CL_ROLE_MASTER, 11);
    assert_true(cl_may_write(&etcd, &b.self));

    /* a's channel is back: it stands again behind the others (revision 20);
     * a new connection starts with no role. */
    a.self.channel_up = true;
    a.self.role = CL_ROLE_NONE;
    assert_int_equal(step(&etcd, &a, now).kind, CL_DO_STAND);
    assert_int_equal(cl_cands_put(&etcd, "a", 20), 0);
    act = step(&etcd, &a, now);
    assert_int_equal(act.kind, CL_DO_ASK_SLAVE);
    assert_int_equal(act.generation, 11);
    confirm(&a, CL_ROLE_SLAVE, 11);

    /* b's keepalives stop (SIGSTOP, a partition): its fence runs out a margin
     * before the lease, so it asks SLAVE while its key still wins. */
    for (unsigned t = 1; t <= 5; t++) {
        now += SEC;
        cl_fence_answer(&a.fence, now, 3);
        cl_fence_answer(&c.fence, now, 3);
    }
    /* b's last answered keepalive was sent at 100 s with 3 s left. */
    assert_false(cl_fence_may_act(&b.fence, 100 * SEC + 3 * SEC - margin));
    assert_true(cl_fence_may_act(&b.fence, 100 * SEC + 3 * SEC - margin - 1));
    act = step(&etcd, &b, now);
    assert_int_equal(act.kind, CL_DO_ASK_SLAVE);
    assert_false(cl_may_write(&etcd, &b.self));
    /* Its lease expires in etcd: the key goes, c (12) wins with a higher
     * generation than b's. */
    cl_cands_del(&etcd, "b");
    act = step(&etcd, &c, now);
    assert_int_equal(act.kind, CL_DO_ASK_MASTER);
    assert_int_equal(act.generation, 12);
    confirm(&c, CL_ROLE_MASTER, 12);
    /* b revived with its old view (still MASTER of 11 in its own eyes, its
     * key still listed): the fence keeps it from writing. */
    assert_int_equal(cl_cands_put(&etcd, "b", 11), 0);
    assert_false(cl_may_write(&etcd, &b.self));
    cl_cands_del(&etcd, "b");
    /* And when it learns its key is gone, it stands anew (behind a and c). */
    cl_fence_answer(&b.fence, now, 3);       /* a new lease */
    assert_int_equal(step(&etcd, &b, now).kind, CL_DO_STAND);
    assert_int_equal(cl_cands_put(&etcd, "b", 31), 0);
    /* Its own view still says MASTER (its SLAVE request went unanswered):
     * it asks the switch which role it has, which says SLAVE of 12. */
    assert_int_equal(step(&etcd, &b, now).kind, CL_DO_ASK_ROLE);
    assert_false(cl_may_write(&etcd, &b.self));
    confirm(&b, CL_ROLE_SLAVE, 12);
    assert_int_equal(step(&etcd, &b, now).kind, CL_DO_NOTHING);
    assert_true(cl_may_write(&etcd, &c.self));
}

/* A planned hand-over: the master does not step down when another node
 * wins (the switch would have no master until the winner asks), it asks
 * the switch its role until the winner's MASTER request made it SLAVE; a
 * node that leaves (SIGTERM, its keys gone with its lease) does the same
 * and never stands again; one that may not act steps down at once. */
static void test_hand_over(void **state)
{
    (void)state;
    struct cl_cands etcd = {0};
    struct node a = {.self = {.node = "a", .channel_up = true}};
    struct node b = {.self = {.node = "b", .channel_up = true}};
    uint64_t now = 100 * SEC;
    struct cl_action act;

    for (struct node *n = &a; n; n = n == &a ? &b : NULL) {
        cl_fence_init(&n->fence, cl_fence_margin_us(3));
        cl_fence_answer(&n->fence, now, 3);
    }
    assert_int_equal(cl_cands_put(&etcd, "a", 10), 0);
    assert_int_equal(cl_cands_put(&etcd, "b", 11), 0);
    confirm(&a, CL_ROLE_MASTER, 10);
    confirm(&b, CL_ROLE_SLAVE, 10);
    /* Balancing: a stands again behind b (revision 12): b wins. */
    assert_int_equal(cl_cands_put(&etcd, "a", 12), 0);
    act = step(&etcd, &a, now);
    assert_int_equal(act.kind, CL_DO_ASK_ROLE);              /* not ASK_SLAVE */
    assert_false(cl_may_write(&etcd, &a.self));              /* b's to write now */
    a.self.asking = true;
    assert_int_equal(step(&etcd, &a, now).kind, CL_DO_NOTHING);
    confirm(&a, CL_ROLE_MASTER, 10);                          /* b has not asked yet */
    assert_int_equal(step(&etcd, &a, now).kind, CL_DO_ASK_ROLE);
    act = step(&etcd, &b, now);
    assert_int_equal(act.kind, CL_DO_ASK_MASTER);
    assert_int_equal(act.generation, 11);
    confirm(&b, CL_ROLE_MASTER, 11);
    confirm(&a, CL_ROLE_SLAVE, 11);                           /* the switch demoted a */
    assert_int_equal(step(&etcd, &a, now).kind, CL_DO_NOTHING);

    /* b leaves: its key goes with its lease, it stays the switch's master
     * and asks its role; it never stands again. a wins (12) and asks. */
    b.self.leaving = true;
    cl_cands_del(&etcd, "b");
    assert_int_equal(step(&etcd, &b, now).kind, CL_DO_ASK_ROLE);
    act = step(&etcd, &a, now);
    assert_int_equal(act.kind, CL_DO_ASK_MASTER);
    assert_int_equal(act.generation, 12);
    confirm(&a, CL_ROLE_MASTER, 12);
    confirm(&b, CL_ROLE_SLAVE, 12);
    assert_int_equal(step(&etcd, &b, now).kind, CL_DO_NOTHING);   /* not STAND */
    b.self.channel_up = false;
    assert_int_equal(step(&etcd, &b, now).kind, CL_DO_NOTHING);

    /* a master whose fence closed steps down at once, hand-over or not. */
    assert_int_equal(cl_cands_put(&etcd, "b", 13), 0);
    b.self = (struct cl_self){.node = "b", .channel_up = true};
    assert_int_equal(cl_cands_put(&etcd, "a", 14), 0);        /* b wins (13) */
    act = step(&etcd, &a, now + 10 * SEC);                    /* a's fence is long shut */
    assert_int_equal(act.kind, CL_DO_ASK_SLAVE);
    assert_int_equal(act.generation, 13);
}

static void test_fence(void **state)
{
    (void)state;
    struct cl_fence f;

    assert_int_equal(cl_fence_margin_us(2), 200000);
    assert_int_equal(cl_fence_margin_us(10), 1000000);
    assert_int_equal(cl_fence_margin_us(0), 0);
    cl_fence_init(&f, 200000);
    assert_false(cl_fence_may_act(&f, 0));            /* no lease proved yet */
    cl_fence_answer(&f, 5 * SEC, 2);
    assert_true(cl_fence_may_act(&f, 5 * SEC));
    assert_int_equal(cl_fence_left_us(&f, 6 * SEC), 800000);
    assert_false(cl_fence_may_act(&f, 7 * SEC - 200000));
    /* A late answer to an older keepalive does not move the deadline. */
    cl_fence_answer(&f, 6 * SEC, 2);
    cl_fence_answer(&f, 5 * SEC + 1, 2);
    assert_int_equal(cl_fence_left_us(&f, 6 * SEC), 1800000);
    /* The lease gone: at once. */
    cl_fence_answer(&f, 7 * SEC, 0);
    assert_false(cl_fence_may_act(&f, 7 * SEC));
    cl_fence_answer(&f, 8 * SEC, 2);
    assert_true(cl_fence_may_act(&f, 8 * SEC));
    cl_fence_lost(&f);
    assert_false(cl_fence_may_act(&f, 8 * SEC));
    assert_int_equal(cl_fence_left_us(&f, 8 * SEC), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cands),
        cmocka_unit_test(test_three_nodes),
        cmocka_unit_test(test_hand_over),
        cmocka_unit_test(test_fence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
