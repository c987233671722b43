/*
 * test_emu_flowtable.c - flow-table semantics of the switch emulator (emu_flowtable.c,
 * emu_oxm.c): what a controller relies on when it adds, modifies and deletes flows on a
 * real OpenFlow 1.3 switch — overlap checking, identical-flow replacement, priorities,
 * strict vs non-strict selection, cookie masks, out_port filters, table full, masked
 * field subset rules, OXM validation and timeouts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu_flowtable.h"
#include "emu_oxm.h"

#define SEC 1000000000ull

/* A match under construction, normalised on demand. */
struct m {
    uint8_t raw[256];
    struct emu_wr w;
    uint8_t norm[256];
    size_t norm_len;
};

static struct m *m_new(void)
{
    struct m *m = calloc(1, sizeof(*m));
    assert_non_null(m);
    emu_wr_init(&m->w, m->raw, sizeof(m->raw));
    return m;
}

static int m_norm(struct m *m, struct emu_oferr *err)
{
    return emu_oxm_normalise(m->raw, m->w.len, m->norm, sizeof(m->norm), &m->norm_len, err);
}

static void m_ok(struct m *m)
{
    struct emu_oferr err;
    assert_int_equal(m_norm(m, &err), 0);
}

static void m_ipv4_dst(struct m *m, uint32_t addr, uint32_t mask)
{
    emu_oxm_put_u16(&m->w, EMU_OXM_ETH_TYPE, 0x0800);
    if (mask == 0xffffffffu)
        emu_oxm_put_u32(&m->w, EMU_OXM_IPV4_DST, addr);
    else
        emu_oxm_put_u32m(&m->w, EMU_OXM_IPV4_DST, addr, mask);
    m_ok(m);
}

static void m_in_port(struct m *m, uint32_t port)
{
    emu_oxm_put_u32(&m->w, EMU_OXM_IN_PORT, port);
    m_ok(m);
}

struct instr {
    uint8_t b[64];
    size_t len;
};

static struct instr out_to(uint32_t port)
{
    struct instr i;
    struct emu_wr w;
    emu_wr_init(&w, i.b, sizeof(i.b));
    if (port)
        emu_ofp_enc_instr_output(&w, port);
    i.len = w.len;
    return i;
}

/* Two outputs in one APPLY_ACTIONS. */
static struct instr out_two(uint32_t a, uint32_t b)
{
    struct instr i;
    struct emu_wr w;
    emu_wr_init(&w, i.b, sizeof(i.b));
    emu_wr_u16(&w, EMU_OFPIT_APPLY_ACTIONS);
    emu_wr_u16(&w, 40);
    emu_wr_zero(&w, 4);
    for (int k = 0; k < 2; k++) {
        emu_wr_u16(&w, EMU_OFPAT_OUTPUT);
        emu_wr_u16(&w, 16);
        emu_wr_u32(&w, k ? b : a);
        emu_wr_u16(&w, 0xffff);
        emu_wr_zero(&w, 6);
    }
    i.len = w.len;
    return i;
}

struct removed {
    int n;
    int reasons[8];
    uint64_t last_cookie;
};

static void on_removed(void *arg, uint8_t table_id, const struct emu_ft_flow *f, uint8_t reason,
                       uint64_t now)
{
    struct removed *r = arg;
    (void)table_id, (void)now;
    if (r->n < 8)
        r->reasons[r->n] = reason;
    r->n++;
    r->last_cookie = f->cookie;
}

static struct emu_ft_mod mod(uint8_t cmd, uint8_t table, uint16_t prio, const struct m *m,
                             const struct instr *in)
{
    return (struct emu_ft_mod){
        .command = cmd,
        .table_id = table,
        .priority = prio,
        .out_port = EMU_OFPP_ANY,
        .out_group = EMU_OFPG_ANY,
        .match = m ? m->norm : NULL,
        .match_len = m ? m->norm_len : 0,
        .instr = in ? in->b : NULL,
        .instr_len = in ? in->len : 0,
    };
}

static int apply(struct emu_ft *ft, const struct emu_ft_mod *md, struct emu_oferr *err)
{
    return emu_ft_apply(ft, md, 1 * SEC, NULL, NULL, err);
}

static void apply_ok(struct emu_ft *ft, struct emu_ft_mod md)
{
    struct emu_oferr err = {0};
    assert_int_equal(apply(ft, &md, &err), 0);
}

static void apply_fails(struct emu_ft *ft, struct emu_ft_mod md, uint16_t type, uint16_t code)
{
    struct emu_oferr err = {0};
    assert_int_equal(apply(ft, &md, &err), -EINVAL);
    assert_int_equal(err.type, type);
    assert_int_equal(err.code, code);
}

/* The flow of `table` with this priority and cookie, or NULL. */
static const struct emu_ft_flow *find(const struct emu_ft *ft, uint8_t table, uint16_t prio,
                                      uint64_t cookie)
{
    for (uint32_t i = 0; i < emu_ft_table_count(ft, table); i++) {
        const struct emu_ft_flow *f = emu_ft_get(ft, table, i);
        if (f->priority == prio && f->cookie == cookie)
            return f;
    }
    return NULL;
}

static bool outputs_to(const struct emu_ft_flow *f, uint32_t port)
{
    return emu_ofp_instr_outputs(emu_ft_flow_instr(f), f->instr_len, port, EMU_OFPG_ANY);
}

/* ---- add ----------------------------------------------------------------------------- */

static void test_identical_add_replaces(void **state)
{
    (void)state;
    struct emu_ft *ft = emu_ft_new(4, 100);
    struct m *a = m_new();
    m_in_port(a, 1);
    struct instr o2 = out_to(2), o3 = out_to(3);
    struct emu_ft_mod md = mod(EMU_OFPFC_ADD, 0, 10, a, &o2);
    md.cookie = 1;
    apply_ok(ft, md);
    emu_ft_table(ft, 0)->flows[0].packet_count = 42;
    md.cookie = 2;
    md.instr = o3.b;
    md.instr_len = o3.len;
    apply_ok(ft, md);
    assert_int_equal(emu_ft_table_count(ft, 0), 1);
    const struct emu_ft_flow *f = emu_ft_get(ft, 0, 0);
    assert_int_equal(f->cookie, 2);
    assert_true(outputs_to(f, 3));
    assert_false(outputs_to(f, 2));
    assert_int_equal(f->packet_count, 0); /* the old entry is cleared, counters too */

    /* Same match at another priority, or in another table, is another flow. */
    apply_ok(ft, mod(EMU_OFPFC_ADD, 0, 11, a, &o2));
    apply_ok(ft, mod(EMU_OFPFC_ADD, 1, 10, a, &o2));
    assert_int_equal(emu_ft_table_count(ft, 0), 2);
    assert_int_equal(emu_ft_table_count(ft, 1), 1);
    assert_int_equal(ft->n_flows, 3);
    free(a);
    emu_ft_free(ft);
}

static void test_normal_form_makes_equal_matches_identical(void **state)
{
    (void)state;
    struct emu_ft *ft = emu_ft_new(1, 100);
    struct m *a = m_new(), *b = m_new(), *c = m_new();
    /* a: in_port, eth_type, ipv4_dst/32; b: the same fields in another order with an
     * all-ones mask and an extra all-zero-mask field; c: a real /24. */
    emu_oxm_put_u32(&a->w, EMU_OXM_IN_PORT, 3);
    emu_oxm_put_u16(&a->w, EMU_OXM_ETH_TYPE, 0x0800);
    emu_oxm_put_u32(&a->w, EMU_OXM_IPV4_DST, 0x0a000001);
    m_ok(a);
    emu_oxm_put_u16(&b->w, EMU_OXM_ETH_TYPE, 0x0800);
    emu_oxm_put_u32m(&b->w, EMU_OXM_IPV4_DST, 0x0a000001, 0xffffffff);
    emu_oxm_put_u32m(&b->w, EMU_OXM_IPV4_SRC, 0, 0);
    emu_oxm_put_u32(&b->w, EMU_OXM_IN_PORT, 3);
    m_ok(b);
    assert_int_equal(a->norm_len, b->norm_len);
    assert_memory_equal(a->norm, b->norm, a->norm_len);
    emu_oxm_put_u16(&c->w, EMU_OXM_ETH_TYPE, 0x0800);
    emu_oxm_put_u32m(&c->w, EMU_OXM_IPV4_DST, 0x0a000000, 0xffffff00);
    emu_oxm_put_u32(&c->w, EMU_OXM_IN_PORT, 3);
    m_ok(c);

    struct instr o = out_to(1);
    apply_ok(ft, mod(EMU_OFPFC_ADD, 0, 5, a, &o));
    apply_ok(ft, mod(EMU_OFPFC_ADD, 0, 5, b, &o));
    assert_int_equal(emu_ft_table_count(ft, 0), 1);
    apply_ok(ft, mod(EMU_OFPFC_ADD, 0, 5, c, &o));
    assert_int_equal(emu_ft_table_count(ft, 0), 2);
    free(a), free(b), free(c);
    emu_ft_free(ft);
}

static void test_check_overlap(void **state)
{
    (void)state;
    struct emu_ft *ft = emu_ft_new(1, 100);
    struct m *net8 = m_new(), *net16 = m_new(), *other8 = m_new(), *port1 = m_new();
    struct m *tcp80 = m_new(), *udp = m_new();
    m_ipv4_dst(net8, 0x0a000000, 0xff000000);
    m_ipv4_dst(net16, 0x0a010000, 0xffff0000);
    m_ipv4_dst(other8, 0x0b000000, 0xff000000);
    m_in_port(port1, 1);
    emu_oxm_put_u16(&tcp80->w, EMU_OXM_ETH_TYPE, 0x0800);
    emu_oxm_put_u8(&tcp80->w, EMU_OXM_IP_PROTO, 6);
    emu_oxm_put_u16(&tcp80->w, EMU_OXM_TCP_DST, 80);
    m_ok(tcp80);
    emu_oxm_put_u16(&udp->w, EMU_OXM_ETH_TYPE, 0x0800);
    emu_oxm_put_u8(&udp->w, EMU_OXM_IP_PROTO, 17);
    m_ok(udp);

    struct instr o = out_to(1);
    apply_ok(ft, mod(EMU_OFPFC_ADD, 0, 10, net8, &o));
    struct emu_ft_mod md = mod(EMU_OFPFC_ADD, 0, 10, net16, &o);
    md.flags = EMU_OFPFF_CHECK_OVERLAP;
    apply_fails(ft, md, EMU_OFPET_FLOW_MOD_FAILED, EMU_OFPFMFC_OVERLAP);
    md.match = port1->norm; /* in_port=1 and any IP: a packet can match both */
    md.match_len = port1->norm_len;
    apply_fails(ft, md, EMU_OFPET_FLOW_MOD_FAILED, EMU_OFPFMFC_OVERLAP);
    md.match = net8->norm; /* identical flows overlap too */
    md.match_len = net8->norm_len;
    apply_fails(ft, md, EMU_OFPET_FLOW_MOD_FAILED, EMU_OFPFMFC_OVERLAP);
    assert_int_equal(emu_ft_table_count(ft, 0), 1);

    md.match = other8->norm; /* disjoint prefix: no packet matches both */
    md.match_len = other8->norm_len;
    apply_ok(ft, md);
    md = mod(EMU_OFPFC_ADD, 0, 11, net16, &o); /* another priority never overlaps */
    md.flags = EMU_OFPFF_CHECK_OVERLAP;
    apply_ok(ft, md);
    md = mod(EMU_OFPFC_ADD, 0, 20, tcp80, &o);
    apply_ok(ft, md);
    md = mod(EMU_OFPFC_ADD, 0, 20, udp, &o); /* ip_proto 6 vs 17: disjoint */
    md.flags = EMU_OFPFF_CHECK_OVERLAP;
    apply_ok(ft, md);
    /* Without the flag, overlapping flows coexist. */
    apply_ok(ft, mod(EMU_OFPFC_ADD, 0, 10, net16, &o));
    assert_int_equal(emu_ft_table_count(ft, 0), 6);
    free(net8), free(net16), free(other8), free(port1), free(tcp80), free(udp);
    emu_ft_free(ft);
}

/* ---- delete -------------------------------------------------------------------------- */

static void test_strict_delete_honours_priority(void **state)
{
    (void)state;
    struct emu_ft *ft = emu_ft_new(1, 100);
    struct m *a = m_new();
    m_in_port(a, 7);
    struct instr o = out_to(1);
    for (uint16_t p = 10; p <= 30; p += 10)
        apply_ok(ft, mod(EMU_OFPFC_ADD, 0, p, a, &o));
    struct removed r = {0};
    struct emu_ft_mod del = mod(EMU_OFPFC_DELETE_STRICT, 0, 20, a, NULL);
    assert_int_equal(emu_ft_apply(ft, &del, SEC, on_removed, &r, NULL), 0);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.reasons[0], EMU_OFPRR_DELETE);
    assert_int_equal(emu_ft_table_count(ft, 0), 2);
    assert_non_null(find(ft, 0, 10, 0));
    assert_null(find(ft, 0, 20, 0));
    assert_non_null(find(ft, 0, 30, 0));
    /* Strict delete of an absent priority removes nothing. */
    del.priority = 25;
    assert_int_equal(emu_ft_apply(ft, &del, SEC, on_removed, &r, NULL), 0);
    assert_int_equal(r.n, 1);
    /* Non-strict ignores priority. */
    del = mod(EMU_OFPFC_DELETE, 0, 0, a, NULL);
    assert_int_equal(emu_ft_apply(ft, &del, SEC, on_removed, &r, NULL), 0);
    assert_int_equal(r.n, 3);
    assert_int_equal(emu_ft_table_count(ft, 0), 0);
    free(a);
    emu_ft_free(ft);
}

static void test_nonstrict_delete_takes_more_specific_flows(void **state)
{
    (void)state;
    struct emu_ft *ft = emu_ft_new(1, 100);
    struct m *p1dst = m_new(), *p1 = m_new(), *p2 = m_new(), *all = m_new();
    emu_oxm_put_u32(&p1dst->w, EMU_OXM_IN_PORT, 1);
    const uint8_t mac[6] = {0x0a, 0, 0, 0, 0, 2};
    emu_oxm_put(&p1dst->w, EMU_OXM_ETH_DST, mac, NULL, 6);
    m_ok(p1dst);
    m_in_port(p1, 1);
    m_in_port(p2, 2);
    m_ok(all);
    struct instr o = out_to(1);
    struct emu_ft_mod add = mod(EMU_OFPFC_ADD, 0, 5, p1dst, &o);
    add.cookie = 1;
    apply_ok(ft, add);
    add = mod(EMU_OFPFC_ADD, 0, 5, p1, &o);
    add.cookie = 2;
    apply_ok(ft, add);
    add = mod(EMU_OFPFC_ADD, 0, 5, p2, &o);
    add.cookie = 3;
    apply_ok(ft, add);
    add = mod(EMU_OFPFC_ADD, 0, 0, all, &o);
    add.cookie = 4;
    apply_ok(ft, add);

    apply_ok(ft, mod(EMU_OFPFC_DELETE, 0, 0, p1, NULL));
    assert_int_equal(emu_ft_table_count(ft, 0), 2);
    assert_null(find(ft, 0, 5, 1));
    assert_null(find(ft, 0, 5, 2));
    assert_non_null(find(ft, 0, 5, 3));
    assert_non_null(find(ft, 0, 0, 4)); /* more general than the filter: stays */
    apply_ok(ft, mod(EMU_OFPFC_DELETE, 0, 0, all, NULL));
    assert_int_equal(emu_ft_table_count(ft, 0), 0);
    free(p1dst), free(p1), free(p2), free(all);
    emu_ft_free(ft);
}

static void test_masked_fields_subset_rules(void **state)
{
    (void)state;
    struct m *host = m_new(), *net16 = m_new(), *net8 = m_new(), *other = m_new();
    m_ipv4_dst(host, 0x0a010203, 0xffffffff);
    m_ipv4_dst(net16, 0x0a010000, 0xffff0000);
    m_ipv4_dst(net8, 0x0a000000, 0xff000000);
    m_ipv4_dst(other, 0x0b000000, 0xff000000);
    /* within(filter, flow): the flow must be inside the filter. */
    assert_true(emu_oxm_within(net8->norm, net8->norm_len, host->norm, host->norm_len));
    assert_true(emu_oxm_within(net8->norm, net8->norm_len, net16->norm, net16->norm_len));
    assert_true(emu_oxm_within(net16->norm, net16->norm_len, net16->norm, net16->norm_len));
    assert_false(emu_oxm_within(net16->norm, net16->norm_len, net8->norm, net8->norm_len));
    assert_false(emu_oxm_within(host->norm, host->norm_len, net16->norm, net16->norm_len));
    assert_false(emu_oxm_within(other->norm, other->norm_len, host->norm, host->norm_len));
    /* Same value bits but a narrower filter mask: the /8 flow is not inside 10.0/16. */
    struct m *net16z = m_new(), *host0 = m_new();
    m_ipv4_dst(net16z, 0x0a000000, 0xffff0000);
    m_ipv4_dst(host0, 0x0a000000, 0xffffffff);
    assert_false(emu_oxm_within(net16z->norm, net16z->norm_len, net8->norm, net8->norm_len));
    assert_false(emu_oxm_within(host0->norm, host0->norm_len, net8->norm, net8->norm_len));
    assert_true(emu_oxm_within(net16z->norm, net16z->norm_len, host0->norm, host0->norm_len));
    free(net16z), free(host0);

    /* Non-contiguous Ethernet masks: the multicast bit. */
    struct m *mcast = m_new(), *flow_mc = m_new(), *flow_uc = m_new(), *oui = m_new();
    const uint8_t bit[6] = {1, 0, 0, 0, 0, 0};
    const uint8_t mc[6] = {0x01, 0x00, 0x5e, 0, 0, 1}, uc[6] = {0x0a, 0, 0, 0, 0, 1};
    const uint8_t oui_v[6] = {0x0a, 0, 0, 0, 0, 0}, oui_m[6] = {0xff, 0xff, 0xff, 0, 0, 0};
    emu_oxm_put(&mcast->w, EMU_OXM_ETH_DST, bit, bit, 6);
    m_ok(mcast);
    emu_oxm_put(&flow_mc->w, EMU_OXM_ETH_DST, mc, NULL, 6);
    m_ok(flow_mc);
    emu_oxm_put(&flow_uc->w, EMU_OXM_ETH_DST, uc, NULL, 6);
    m_ok(flow_uc);
    emu_oxm_put(&oui->w, EMU_OXM_ETH_DST, oui_v, oui_m, 6);
    m_ok(oui);
    assert_true(emu_oxm_within(mcast->norm, mcast->norm_len, flow_mc->norm, flow_mc->norm_len));
    assert_false(emu_oxm_within(mcast->norm, mcast->norm_len, flow_uc->norm, flow_uc->norm_len));
    assert_true(emu_oxm_within(oui->norm, oui->norm_len, flow_uc->norm, flow_uc->norm_len));
    /* The OUI flow wildcards the multicast bit's neighbours but fixes the bit to 0. */
    assert_false(emu_oxm_within(mcast->norm, mcast->norm_len, oui->norm, oui->norm_len));
    assert_false(emu_oxm_overlap(mcast->norm, mcast->norm_len, oui->norm, oui->norm_len));
    assert_true(emu_oxm_overlap(oui->norm, oui->norm_len, flow_uc->norm, flow_uc->norm_len));

    /* VLAN: OFPVID_PRESENT/OFPVID_PRESENT selects every tagged flow, not untagged ones. */
    struct m *any_vlan = m_new(), *vlan5 = m_new(), *untagged = m_new();
    const uint8_t present[2] = {0x10, 0x00};
    emu_oxm_put(&any_vlan->w, EMU_OXM_VLAN_VID, present, present, 2);
    m_ok(any_vlan);
    emu_oxm_put_u16(&vlan5->w, EMU_OXM_VLAN_VID, 0x1005);
    m_ok(vlan5);
    emu_oxm_put_u16(&untagged->w, EMU_OXM_VLAN_VID, 0x0000);
    m_ok(untagged);
    assert_true(emu_oxm_within(any_vlan->norm, any_vlan->norm_len, vlan5->norm, vlan5->norm_len));
    assert_false(emu_oxm_within(any_vlan->norm, any_vlan->norm_len, untagged->norm,
                                untagged->norm_len));

    /* Through the table: a /8 delete takes the /32 and /16 flows, not the other /8. */
    struct emu_ft *ft = emu_ft_new(1, 100);
    struct instr o = out_to(1);
    apply_ok(ft, mod(EMU_OFPFC_ADD, 0, 1, host, &o));
    apply_ok(ft, mod(EMU_OFPFC_ADD, 0, 2, net16, &o));
    apply_ok(ft, mod(EMU_OFPFC_ADD, 0, 3, other, &o));
    apply_ok(ft, mod(EMU_OFPFC_DELETE, 0, 0, net8, NULL));
    assert_int_equal(emu_ft_table_count(ft, 0), 1);
    assert_non_null(find(ft, 0, 3, 0));
    emu_ft_free(ft);
    free(host), free(net16), free(net8), free(other), free(mcast), free(flow_mc);
    free(flow_uc), free(oui), free(any_vlan), free(vlan5), free(untagged);
}

static void test_unknown_class_compared_exactly(void **state)
{
    (void)state;
    /* An NXM-class TLV (class 0x0001) the emulator has no semantics for. */
    struct m *a = m_new(), *b = m_new(), *c = m_new();
    const uint8_t tlv_a[8] = {0x00, 0x01, 0x02, 0x04, 0xde, 0xad, 0xbe, 0xef};
    const uint8_t tlv_b[8] = {0x00, 0x01, 0x02, 0x04, 0xde, 0xad, 0xbe, 0xee};
    emu_wr_bytes(&a->w, tlv_a, 8);
    m_ok(a);
    emu_wr_bytes(&b->w, tlv_a, 8);
    emu_oxm_put_u32(&b->w, EMU_OXM_IN_PORT, 1);
    m_ok(b);
    emu_wr_bytes(&c->w, tlv_b, 8);
    m_ok(c);
    assert_true(emu_oxm_within(a->norm, a->norm_len, b->norm, b->norm_len));
    assert_false(emu_oxm_within(a->norm, a->norm_len, c->norm, c->norm_len));
    assert_false(emu_oxm_overlap(a->norm, a->norm_len, c->norm, c->norm_len));
    free(a), free(b), free(c);
}

static void test_cookie_mask_selects(void **state)
{
    (void)state;
    struct emu_ft *ft = emu_ft_new(1, 100);
    struct m *all = m_new(), *p[3];
    m_ok(all);
    struct instr o2 = out_to(2), o3 = out_to(3);
    const uint64_t cookies[3] = {0x10, 0x11, 0x20};
    for (int i = 0; i < 3; i++) {
        p[i] = m_new();
        m_in_port(p[i], (uint32_t)i + 1);
        struct emu_ft_mod md = mod(EMU_OFPFC_ADD, 0, 1, p[i], &o2);
        md.cookie = cookies[i];
        apply_ok(ft, md);
    }
    /* Modify only the 0x1X flows' instructions; cookies stay. */
    struct emu_ft_mod md = mod(EMU_OFPFC_MODIFY, 0, 0, all, &o3);
    md.cookie = 0x10;
    md.cookie_mask = 0xf0;
    apply_ok(ft, md);
    assert_true(outputs_to(find(ft, 0, 1, 0x10), 3));
    assert_true(outputs_to(find(ft, 0, 1, 0x11), 3));
    assert_true(outputs_to(find(ft, 0, 1, 0x20), 2));
    /* Exact cookie mask on delete. */
    md = mod(EMU_OFPFC_DELETE, 0, 0, all, NULL);
    md.cookie = 0x11;
    md.cookie_mask = UINT64_MAX;
    apply_ok(ft, md);
    assert_int_equal(emu_ft_table_count(ft, 0), 2);
    assert_null(find(ft, 0, 1, 0x11));
    /* Strict delete also honours the cookie: wrong cookie, nothing goes. */
    md = mod(EMU_OFPFC_DELETE_STRICT, 0, 1, p[2], NULL);
    md.cookie = 0x99;
    md.cookie_mask = UINT64_MAX;
    apply_ok(ft, md);
    assert_int_equal(emu_ft_table_count(ft, 0), 2);
    /* Mask 0: every cookie. */
    md = mod(EMU_OFPFC_DELETE, 0, 0, all, NULL);
    md.cookie = 0x99;
    apply_ok(ft, md);
    assert_int_equal(emu_ft_table_count(ft, 0), 0);
    for (int i = 0; i < 3; i++)
        free(p[i]);
    free(all);
    emu_ft_free(ft);
}

static void test_modify_strict_vs_nonstrict(void **state)
{
    (void)state;
    struct emu_ft *ft = emu_ft_new(1, 100);
    struct m *a = m_new(), *b = m_new(), *c = m_new();
    m_in_port(a, 1);
    emu_oxm_put_u32(&b->w, EMU_OXM_IN_PORT, 1);
    emu_oxm_put_u16(&b->w, EMU_OXM_ETH_TYPE, 0x0800);
    m_ok(b);
    m_in_port(c, 9);
    struct instr o2 = out_to(2), o3 = out_to(3), o4 = out_to(4);
    struct emu_ft_mod md = mod(EMU_OFPFC_ADD, 0, 10, a, &o2);
    md.cookie = 0xa;
    md.hard_timeout = 100;
    apply_ok(ft, md);
    md = mod(EMU_OFPFC_ADD, 0, 20, b, &o2);
    md.cookie = 0xb;
    apply_ok(ft, md);
    emu_ft_table(ft, 0)->flows[0].packet_count = 5;
    emu_ft_table(ft, 0)->flows[1].packet_count = 5;

    apply_ok(ft, mod(EMU_OFPFC_MODIFY, 0, 0, a, &o3));
    const struct emu_ft_flow *fa = find(ft, 0, 10, 0xa), *fb = find(ft, 0, 20, 0xb);
    assert_true(outputs_to(fa, 3) && outputs_to(fb, 3));
    assert_int_equal(fa->hard_timeout, 100); /* timeouts and cookie are not modified */
    assert_int_equal(fa->packet_count, 5);   /* counters kept without RESET_COUNTS */

    md = mod(EMU_OFPFC_MODIFY_STRICT, 0, 10, a, &o4);
    md.flags = EMU_OFPFF_RESET_COUNTS;
    apply_ok(ft, md);
    fa = find(ft, 0, 10, 0xa);
    fb = find(ft, 0, 20, 0xb);
    assert_true(outputs_to(fa, 4));
    assert_true(outputs_to(fb, 3));
    assert_int_equal(fa->packet_count, 0);
    assert_int_equal(fb->packet_count, 5);

    /* OF1.3: modifying what is not there adds nothing. */
    apply_ok(ft, mod(EMU_OFPFC_MODIFY_STRICT, 0, 11, a, &o4));
    apply_ok(ft, mod(EMU_OFPFC_MODIFY, 0, 0, c, &o4));
    assert_int_equal(emu_ft_table_count(ft, 0), 2);
    free(a), free(b), free(c);
    emu_ft_free(ft);
}

static void test_out_port_filter(void **state)
{
    (void)state;
    struct emu_ft *ft = emu_ft_new(1, 100);
    struct m *all = m_new(), *p[3];
    m_ok(all);
    struct instr ins[3] = {out_to(1), out_to(2), out_two(3, 2)};
    for (int i = 0; i < 3; i++) {
        p[i] = m_new();
        m_in_port(p[i], (uint32_t)i + 1);
        struct emu_ft_mod md = mod(EMU_OFPFC_ADD, 0, 1, p[i], &ins[i]);
        md.cookie = (uint64_t)i;
        apply_ok(ft, md);
    }
    /* Strict delete with a non-matching out_port keeps the flow. */
    struct emu_ft_mod md = mod(EMU_OFPFC_DELETE_STRICT, 0, 1, p[0], NULL);
    md.out_port = 2;
    apply_ok(ft, md);
    assert_int_equal(emu_ft_table_count(ft, 0), 3);
    md = mod(EMU_OFPFC_DELETE, 0, 0, all, NULL);
    md.out_port = 2;
    apply_ok(ft, md);
    assert_int_equal(emu_ft_table_count(ft, 0), 1);
    assert_non_null(find(ft, 0, 1, 0));
    /* out_port is ignored by modify. */
    struct instr o4 = out_to(4);
    md = mod(EMU_OFPFC_MODIFY, 0, 0, all, &o4);
    md.out_port = 77;
    apply_ok(ft, md);
    assert_true(outputs_to(find(ft, 0, 1, 0), 4));
    for (int i = 0; i < 3; i++)
        free(p[i]);
    free(all);
    emu_ft_free(ft);
}

/* ---- errors and limits ---------------------------------------------------------------- */

static void test_table_full(void **state)
{
    (void)state;
    struct emu_ft *ft = emu_ft_new(2, 2);
    struct m *p[3];
    struct instr o = out_to(1);
    for (int i = 0; i < 3; i++) {
        p[i] = m_new();
        m_in_port(p[i], (uint32_t)i + 1);
    }
    apply_ok(ft, mod(EMU_OFPFC_ADD, 0, 1, p[0], &o));
    apply_ok(ft, mod(EMU_OFPFC_ADD, 0, 1, p[1], &o));
    apply_fails(ft, mod(EMU_OFPFC_ADD, 0, 1, p[2], &o), EMU_OFPET_FLOW_MOD_FAILED,
                EMU_OFPFMFC_TABLE_FULL);
    apply_ok(ft, mod(EMU_OFPFC_ADD, 0, 1, p[1], &o)); /* replacing needs no room */
    apply_ok(ft, mod(EMU_OFPFC_ADD, 1, 1, p[2], &o)); /* the limit is per table */
    apply_ok(ft, mod(EMU_OFPFC_DELETE_STRICT, 0, 1, p[0], NULL));
    apply_ok(ft, mod(EMU_OFPFC_ADD, 0, 1, p[2], &o));
    assert_int_equal(emu_ft_table_count(ft, 0), 2);
    assert_int_equal(ft->n_flows, 3);
    for (int i = 0; i < 3; i++)
        free(p[i]);
    emu_ft_free(ft);
}

static void test_bad_table_command_flags(void **state)
{
    (void)state;
    struct emu_ft *ft = emu_ft_new(8, 10);
    struct m *a = m_new();
    m_in_port(a, 1);
    struct instr o = out_to(1);
    uint16_t fmf = EMU_OFPET_FLOW_MOD_FAILED;
    apply_fails(ft, mod(EMU_OFPFC_ADD, 8, 1, a, &o), fmf, EMU_OFPFMFC_BAD_TABLE_ID);
    apply_fails(ft, mod(EMU_OFPFC_ADD, EMU_OFPTT_ALL, 1, a, &o), fmf, EMU_OFPFMFC_BAD_TABLE_ID);
    apply_fails(ft, mod(EMU_OFPFC_MODIFY, EMU_OFPTT_ALL, 1, a, &o), fmf,
                EMU_OFPFMFC_BAD_TABLE_ID);
    apply_fails(ft, mod(7, 0, 1, a, &o), fmf, EMU_OFPFMFC_BAD_COMMAND);
    struct emu_ft_mod md = mod(EMU_OFPFC_ADD, 0, 1, a, &o);
    md.flags = 0x100;
    apply_fails(ft, md, fmf, EMU_OFPFMFC_BAD_FLAGS);
    assert_int_equal(ft->n_flows, 0);
    /* Delete on OFPTT_ALL reaches every table. */
    apply_ok(ft, mod(EMU_OFPFC_ADD, 0, 1, a, &o));
    apply_ok(ft, mod(EMU_OFPFC_ADD, 5, 1, a, &o));
    apply_ok(ft, mod(EMU_OFPFC_DELETE, EMU_OFPTT_ALL, 0, a, NULL));
    assert_int_equal(ft->n_flows, 0);
    free(a);
    emu_ft_free(ft);
}

static void test_oxm_validation_errors(void **state)
{
    (void)state;
    struct emu_oferr err;
    struct m *m;
    /* Prerequisite: ipv4_dst without eth_type=0x0800. */
    m = m_new();
    emu_oxm_put_u32(&m->w, EMU_OXM_IPV4_DST, 1);
    assert_int_equal(m_norm(m, &err), -EBADMSG);
    assert_int_equal(err.type, EMU_OFPET_BAD_MATCH);
    assert_int_equal(err.code, EMU_OFPBMC_BAD_PREREQ);
    free(m);
    /* tcp_dst with ip_proto=17. */
    m = m_new();
    emu_oxm_put_u16(&m->w, EMU_OXM_ETH_TYPE, 0x0800);
    emu_oxm_put_u8(&m->w, EMU_OXM_IP_PROTO, 17);
    emu_oxm_put_u16(&m->w, EMU_OXM_TCP_DST, 80);
    assert_int_equal(m_norm(m, &err), -EBADMSG);
    assert_int_equal(err.code, EMU_OFPBMC_BAD_PREREQ);
    free(m);
    /* vlan_pcp needs a VLAN present. */
    m = m_new();
    emu_oxm_put_u16(&m->w, EMU_OXM_VLAN_VID, 0);
    emu_oxm_put_u8(&m->w, EMU_OXM_VLAN_PCP, 3);
    assert_int_equal(m_norm(m, &err), -EBADMSG);
    assert_int_equal(err.code, EMU_OFPBMC_BAD_PREREQ);
    free(m);
    /* Duplicate field. */
    m = m_new();
    emu_oxm_put_u32(&m->w, EMU_OXM_IN_PORT, 1);
    emu_oxm_put_u32(&m->w, EMU_OXM_IN_PORT, 2);
    assert_int_equal(m_norm(m, &err), -EBADMSG);
    assert_int_equal(err.code, EMU_OFPBMC_DUP_FIELD);
    free(m);
    /* Mask on a field that has none. */
    m = m_new();
    emu_oxm_put_u32m(&m->w, EMU_OXM_IN_PORT, 1, 0xff);
    assert_int_equal(m_norm(m, &err), -EBADMSG);
    assert_int_equal(err.code, EMU_OFPBMC_BAD_MASK);
    free(m);
    /* Value bits outside the mask. */
    m = m_new();
    emu_oxm_put_u16(&m->w, EMU_OXM_ETH_TYPE, 0x0800);
    emu_oxm_put_u32m(&m->w, EMU_OXM_IPV4_SRC, 0x0a000001, 0xff000000);
    assert_int_equal(m_norm(m, &err), -EBADMSG);
    assert_int_equal(err.code, EMU_OFPBMC_BAD_WILDCARDS);
    free(m);
    /* Wrong payload length for the field. */
    m = m_new();
    uint8_t v[2] = {0, 1};
    emu_oxm_put(&m->w, EMU_OXM_IN_PORT, v, NULL, 2);
    assert_int_equal(m_norm(m, &err), -EBADMSG);
    assert_int_equal(err.code, EMU_OFPBMC_BAD_LEN);
    free(m);
    /* Unknown basic field, and a TLV running past the match. */
    m = m_new();
    emu_oxm_put_u32(&m->w, 50, 1);
    assert_int_equal(m_norm(m, &err), -EBADMSG);
    assert_int_equal(err.code, EMU_OFPBMC_BAD_FIELD);
    free(m);
    m = m_new();
    emu_oxm_put_u32(&m->w, EMU_OXM_IN_PORT, 1);
    m->w.len -= 1;
    assert_int_equal(m_norm(m, &err), -EBADMSG);
    assert_int_equal(err.code, EMU_OFPBMC_BAD_LEN);
    free(m);
    /* VLAN id beyond 13 bits. */
    m = m_new();
    emu_oxm_put_u16(&m->w, EMU_OXM_VLAN_VID, 0x2001);
    assert_int_equal(m_norm(m, &err), -EBADMSG);
    assert_int_equal(err.code, EMU_OFPBMC_BAD_VALUE);
    free(m);
}

static void test_timeouts_expire(void **state)
{
    (void)state;
    struct emu_ft *ft = emu_ft_new(1, 10);
    struct m *a = m_new(), *b = m_new(), *c = m_new();
    m_in_port(a, 1);
    m_in_port(b, 2);
    m_in_port(c, 3);
    struct instr o = out_to(1);
    struct emu_ft_mod md = mod(EMU_OFPFC_ADD, 0, 1, a, &o);
    md.hard_timeout = 2;
    md.cookie = 1;
    assert_int_equal(emu_ft_apply(ft, &md, 10 * SEC, NULL, NULL, NULL), 0);
    md = mod(EMU_OFPFC_ADD, 0, 1, b, &o);
    md.idle_timeout = 5;
    md.cookie = 2;
    assert_int_equal(emu_ft_apply(ft, &md, 10 * SEC, NULL, NULL, NULL), 0);
    apply_ok(ft, mod(EMU_OFPFC_ADD, 0, 1, c, &o)); /* permanent */
    assert_true(emu_ft_has_timeouts(ft));
    struct removed r = {0};
    assert_int_equal(emu_ft_expire(ft, 11 * SEC, on_removed, &r), 0);
    assert_int_equal(emu_ft_expire(ft, 12 * SEC, on_removed, &r), 1);
    assert_int_equal(r.reasons[0], EMU_OFPRR_HARD_TIMEOUT);
    assert_int_equal(r.last_cookie, 1);
    assert_int_equal(emu_ft_expire(ft, 15 * SEC, on_removed, &r), 1);
    assert_int_equal(r.reasons[1], EMU_OFPRR_IDLE_TIMEOUT);
    assert_false(emu_ft_has_timeouts(ft));
    assert_int_equal(emu_ft_table_count(ft, 0), 1);
    free(a), free(b), free(c);
    emu_ft_free(ft);
}

/* Many flows with churn: every flow stays findable by its exact key (the hash index). */
static void test_many_flows_with_churn(void **state)
{
    (void)state;
    enum { N = 2000 };
    struct emu_ft *ft = emu_ft_new(1, N);
    struct instr o = out_to(1);
    struct m *m = m_new();
    for (uint32_t i = 0; i < N; i++) {
        emu_wr_init(&m->w, m->raw, sizeof(m->raw));
        m_in_port(m, i % 64 + 1);
        struct emu_ft_mod md = mod(EMU_OFPFC_ADD, 0, (uint16_t)(i / 64), m, &o);
        md.cookie = i;
        apply_ok(ft, md);
    }
    assert_int_equal(emu_ft_table_count(ft, 0), N);
    /* Delete every third flow strictly, in a scattered order. */
    uint32_t deleted = 0;
    for (uint32_t k = 0; k < N; k++) {
        uint32_t i = (k * 7919u) % N;
        if (i % 3)
            continue;
        emu_wr_init(&m->w, m->raw, sizeof(m->raw));
        m_in_port(m, i % 64 + 1);
        apply_ok(ft, mod(EMU_OFPFC_DELETE_STRICT, 0, (uint16_t)(i / 64), m, NULL));
        deleted++;
    }
    assert_int_equal(emu_ft_table_count(ft, 0), N - deleted);
    /* Re-adding each survivor replaces it (count unchanged, new cookie). */
    for (uint32_t i = 0; i < N; i++) {
        if (i % 3 == 0)
            continue;
        emu_wr_init(&m->w, m->raw, sizeof(m->raw));
        m_in_port(m, i % 64 + 1);
        struct emu_ft_mod md = mod(EMU_OFPFC_ADD, 0, (uint16_t)(i / 64), m, &o);
        md.cookie = i + 100000;
        apply_ok(ft, md);
    }
    assert_int_equal(emu_ft_table_count(ft, 0), N - deleted);
    for (uint32_t i = 0; i < emu_ft_table_count(ft, 0); i++)
        assert_true(emu_ft_get(ft, 0, i)->cookie >= 100000);
    free(m);
    emu_ft_free(ft);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical_add_replaces),
        cmocka_unit_test(test_normal_form_makes_equal_matches_identical),
        cmocka_unit_test(test_check_overlap),
        cmocka_unit_test(test_strict_delete_honours_priority),
        cmocka_unit_test(test_nonstrict_delete_takes_more_specific_flows),
        cmocka_unit_test(test_masked_fields_subset_rules),
        cmocka_unit_test(test_unknown_class_compared_exactly),
        cmocka_unit_test(test_cookie_mask_selects),
        cmocka_unit_test(test_modify_strict_vs_nonstrict),
        cmocka_unit_test(test_out_port_filter),
        cmocka_unit_test(test_table_full),
        cmocka_unit_test(test_bad_table_command_flags),
        cmocka_unit_test(test_oxm_validation_errors),
        cmocka_unit_test(test_timeouts_expire),
        cmocka_unit_test(test_many_flows_with_churn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
