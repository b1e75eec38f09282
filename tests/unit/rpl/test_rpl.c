/* RPL (src/rpl) fed hand-made messages as other stacks send them, in
 * uncompressed 6LoWPAN frames from a neighbour that is not a node:
 * - a root that sends the DODAG configuration option only in some DIOs
 *   (RIOT's and Contiki-NG's do, RFC 6550 6.3.1 permits it): the DIO
 *   without it is not malformed; the node asks with one unicast DIS
 *   (rate-limited) and joins from the unicast DIO that answers (8.3);
 * - a node told to expect storing mode hears a non-storing DODAG: counted,
 *   not joined;
 * - a non-storing root receives a storing-mode DAO (a storing-only peer):
 *   refused with a DAO-ACK of a rejecting status, counted;
 * - the registrations the NIB passes on (SET WREN_NETOPT_RPL_REGISTERED):
 *   which are a RPL-unaware leaf's, the bounded table, deregistration and
 *   expiry.
 * Every test ends with the node's packet buffer empty. */
#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "fixture.h"
#include "net/netapi.h"
#include "wire/icmpv6.h"
#include "wire/ipv6.h"
#include "wire/rpl.h"
#include "wire/sixlowpan.h"

static struct fx_node *n;
static const uint8_t pfx[8] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1 };
static const uint8_t all_rpl[16] = { 0xff, 0x02, [15] = 0x1a };
/* the neighbour: short address 0x0042, fe80::ff:fe00:42 */
#define PEER 0x0042

static int setup(void **state)
{
    fx_setup(state);
    n = fx_node(FX_LOWPAN_NODE | FX_RPL);
    return 0;
}

static void peer_ll(uint8_t *a)
{
    uint8_t l2[2];
    put_be16(l2, PEER);
    memset(a, 0, 16);
    a[0] = 0xfe;
    a[1] = 0x80;
    wren_ipv6_iid_from_l2(a + 8, l2, 2);
}

static void node_ll(uint8_t *a)
{
    memset(a, 0, 16);
    a[0] = 0xfe;
    a[1] = 0x80;
    wren_ipv6_iid_from_l2(a + 8, n->nif->long_addr, 8);
}

/* ICMPv6 @p msg (checksum filled here) from @p from (NULL: the peer, a
 * neighbour that is not a node) to @p dst */
static void inject_from(const struct fx_node *from, const uint8_t *dst, uint8_t *msg, size_t len)
{
    uint8_t src[16], pl[120], psdu[WREN_PHY_MAX_PSDU];
    CHECK(1 + IPV6_HDR_LEN + len <= sizeof(pl));
    peer_ll(src);
    if (from) {
        wren_ipv6_iid_from_l2(src + 8, from->nif->long_addr, 8);
    }
    pl[0] = SIXLOWPAN_DISPATCH_IPV6_BYTE;
    wren_ipv6_hdr_init(pl + 1, src, dst, IPV6_NH_ICMPV6);
    put_be16(pl + 1 + 4, (uint16_t)len);
    pl[1 + 7] = 255;
    put_be16(msg + 2, 0);
    put_be16(msg + 2, wren_icmpv6_csum(src, dst, msg, len));
    memcpy(pl + 1 + IPV6_HDR_LEN, msg, len);
    struct fx_frame f = { .src = PEER, .src_eui = from ? from->nif->long_addr : NULL,
                          .dst = wren_ipv6_addr_is_multicast(dst)
                                     ? 0xffff : (uint16_t)n->radio->index };
    fx_inject(n, psdu, fx_frame_emit(&f, pl, 1 + IPV6_HDR_LEN + len, psdu));
    fx_run_us(100000);
}

static void inject(const uint8_t *dst, uint8_t *msg, size_t len)
{
    inject_from(NULL, dst, msg, len);
}

/* A DIO of instance 0, DODAG 2001:db8:0:1::1, rank 256 (the root's), mode
 * @p mop, with, if @p cfg, the DODAG configuration option (Imin 2^12 ms,
 * 8 doublings, k 10, OF0, lifetime 30 x 60 s), else a PIO (2001:db8:0:1::/64,
 * A; both do not fit an uncompressed frame). Written out byte by byte, as
 * a peer sends it. */
static size_t dio(uint8_t *m, uint8_t mop, bool cfg)
{
    size_t k = 0;
    m[k++] = ICMPV6_RPL;
    m[k++] = RPL_CODE_DIO;
    m[k++] = 0; /* checksum */
    m[k++] = 0;
    m[k++] = 0;    /* RPLInstanceID */
    m[k++] = 240;  /* version */
    m[k++] = 0x01; /* rank 256 */
    m[k++] = 0x00;
    m[k++] = (uint8_t)(0x80 | mop << 3); /* G, MOP, Prf 0 */
    m[k++] = 240;                        /* DTSN */
    m[k++] = 0;
    m[k++] = 0;
    memcpy(m + k, pfx, 8); /* DODAGID */
    memset(m + k + 8, 0, 8);
    m[k + 15] = 1;
    k += 16;
    if (cfg) {
        static const uint8_t c[16] = { RPL_OPT_CONFIG, 14, 0x00, 8, 12, 10, 0x07, 0x00,
                                       0x01, 0x00, 0x00, 0x00, 0x00, 30, 0x00, 60 };
        memcpy(m + k, c, sizeof(c));
        return k + sizeof(c);
    }
    static const uint8_t pio[16] = { RPL_OPT_PREFIX, 30, 64, 0x40, 0xff, 0xff, 0xff, 0xff,
                                     0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0 };
    memcpy(m + k, pio, sizeof(pio));
    memcpy(m + k + 16, pfx, 8);
    memset(m + k + 24, 0, 8);
    return k + 32;
}

static void role(uint8_t r, uint8_t mop, uint8_t flags)
{
    struct wren_rpl_role_cfg c = { .role = r, .mop = mop, .flags = flags, .prefix_len = 64 };
    memcpy(c.prefix, pfx, 8);
    CHECK_EQ(wren_netapi_set(&n->node, &n->rpl->module, WREN_NETOPT_RPL_ROLE, 0, &c, sizeof(c)),
             0);
    fx_run_us(3000000); /* its own DIS or DIO go out */
}

/* RFC 6550 6.3.1, 8.3: a DIO without the configuration is asked about,
 * once in a while, and the unicast answer with it is joined */
TEST(test_rpl_dio__no_config_asks_and_joins)
{
    uint8_t m[96], ll[16];
    role(WREN_RPL_ROUTER, 0, 0);
    size_t len = dio(m, RPL_MOP_STORING, false);
    inject(all_rpl, m, len);
    CHECK_EQ(n->rpl->stats.rx_drop_malformed, 0);
    CHECK_EQ(n->rpl->stats.dio_no_config, 1);
    CHECK_EQ(n->rpl->stats.dis_unicast_tx, 1);
    CHECK(!n->rpl->joined);
    /* the next Trickle DIO a moment later: no second DIS yet */
    len = dio(m, RPL_MOP_STORING, false);
    inject(all_rpl, m, len);
    CHECK_EQ(n->rpl->stats.dio_no_config, 2);
    CHECK_EQ(n->rpl->stats.dis_unicast_tx, 1);
    /* the root's unicast answer carries the configuration */
    node_ll(ll);
    len = dio(m, RPL_MOP_STORING, true);
    inject(ll, m, len);
    CHECK(n->rpl->joined);
    CHECK_EQ(n->rpl->stats.joined, 1);
    CHECK_EQ(n->rpl->rank, 256 + 3 * 256); /* OF0 over one hop */
    CHECK_EQ(n->rpl->cfg.dio_int_min, 12);
    CHECK_EQ(n->rpl->stats.rx_drop_malformed, 0);
    CHECK_EQ(n->rpl->stats.dio_no_config, 2);
    role(WREN_RPL_OFF, 0, 0);
    FX_CLEAN(20000000);
}

/* a configuration option that does not parse is still malformed */
TEST(test_rpl_dio__bad_config_is_malformed)
{
    uint8_t m[96];
    role(WREN_RPL_ROUTER, 0, 0);
    size_t len = dio(m, RPL_MOP_STORING, true);
    m[28 + 1] = 13; /* the configuration option's length: one byte short */
    inject(all_rpl, m, len);
    CHECK_EQ(n->rpl->stats.rx_drop_malformed, 1);
    CHECK_EQ(n->rpl->stats.dio_no_config, 0);
    CHECK_EQ(n->rpl->stats.dis_unicast_tx, 0);
    role(WREN_RPL_OFF, 0, 0);
    FX_CLEAN(20000000);
}

/* a router told to expect storing mode hears a non-storing DODAG */
TEST(test_rpl_dio__other_mode_counted_not_joined)
{
    uint8_t m[96];
    role(WREN_RPL_ROUTER, RPL_MOP_STORING, WREN_RPL_CFG_MOP);
    size_t len = dio(m, RPL_MOP_NON_STORING, true);
    inject(all_rpl, m, len);
    CHECK(!n->rpl->joined);
    CHECK_EQ(n->rpl->stats.dio_mop_mismatch, 1);
    CHECK_EQ(n->rpl->heard_mop, RPL_MOP_NON_STORING);
    len = dio(m, RPL_MOP_STORING, true);
    inject(all_rpl, m, len);
    CHECK(n->rpl->joined);
    role(WREN_RPL_OFF, 0, 0);
    FX_CLEAN(20000000);
}

/* RFC 6550 6.5: a storing-mode DAO (link-local, to its parent) at a
 * non-storing root is refused with a DAO-ACK status >= 128 */
TEST(test_rpl_dao__storing_dao_refused_by_non_storing_root)
{
    uint8_t m[64], ll[16], target[16];
    /* the storing-only peer: a node of its own, whose RPL messages a sink takes */
    struct fx_node *p = fx_node(FX_LOWPAN_NODE);
    fx_link2(n, p);
    struct fx_sink *got = fx_sink(p, WREN_NETTYPE_ICMPV6, ICMPV6_RPL);
    role(WREN_RPL_ROOT, RPL_MOP_NON_STORING, WREN_RPL_CFG_GROUNDED);
    uint32_t acks = n->rpl->stats.tx_dao_ack;
    memcpy(target, pfx, 8);
    memset(target + 8, 0, 8);
    target[15] = 0x42;
    size_t k = 0;
    m[k++] = ICMPV6_RPL;
    m[k++] = RPL_CODE_DAO;
    m[k++] = 0;
    m[k++] = 0;
    m[k++] = 0;       /* instance */
    m[k++] = RPL_DAO_K;
    m[k++] = 0;
    m[k++] = 241;     /* DAO sequence */
    m[k++] = RPL_OPT_TARGET;
    m[k++] = 18;
    m[k++] = 0;
    m[k++] = 128;
    memcpy(m + k, target, 16);
    k += 16;
    static const uint8_t transit[6] = { RPL_OPT_TRANSIT, 4, 0, 0, 240, 30 }; /* no parent */
    memcpy(m + k, transit, sizeof(transit));
    k += sizeof(transit);
    node_ll(ll);
    inject_from(p, ll, m, k);
    fx_run_us(1000000);
    CHECK_EQ(n->rpl->stats.dao_mop_refused, 1);
    CHECK_EQ(n->rpl->stats.rx_drop_malformed, 0);
    CHECK_EQ(n->rpl->stats.tx_dao_ack, acks + 1);
    /* the DAO-ACK, link-local to the peer: instance 0, sequence 241, a
     * rejecting status (RFC 6550 6.5: >= 128) */
    CHECK_EQ(got->got, 1);
    CHECK(got->len >= 8);
    CHECK_EQ(got->data[1], RPL_CODE_DAO_ACK);
    CHECK_EQ(got->data[4], 0);
    CHECK_EQ(got->data[6], 241);
    CHECK_EQ(got->data[7], RPL_DAO_ACK_UNABLE_TO_ACCEPT);
    uint8_t rr[17];
    memcpy(rr, target, 16);
    CHECK(wren_netapi_get(&n->node, &n->rpl->module, WREN_NETOPT_RPL_SRH, 0, rr, sizeof(rr)) < 0);
    role(WREN_RPL_OFF, 0, 0);
    FX_CLEAN(20000000);
}

static int reg(const uint8_t *addr, uint32_t lifetime_s, uint8_t flags)
{
    struct wren_rpl_reg r = { .lifetime_s = lifetime_s, .if_id = n->if_id, .flags = flags };
    memcpy(r.addr, addr, 16);
    return wren_netapi_set(&n->node, &n->rpl->module, WREN_NETOPT_RPL_REGISTERED, 0, &r,
                           sizeof(r));
}

static int rul_query(const uint8_t *addr, uint8_t if_id)
{
    uint8_t v[17];
    memcpy(v, addr, 16);
    v[16] = if_id;
    return wren_netapi_get(&n->node, &n->rpl->module, WREN_NETOPT_RPL_RUL, 0, v, sizeof(v));
}

/* RFC 9010 9.2.2: which registrations a router takes as a RPL-unaware
 * leaf's; the table is bounded; a deregistration takes one out */
TEST(test_rpl_rul__registrations_taken_and_refused)
{
    uint8_t a[16], ll[16];
    role(WREN_RPL_ROUTER, 0, 0);
    memcpy(a, pfx, 8);
    memset(a + 8, 0, 8);
    a[15] = 0x10;
    CHECK_EQ(reg(a, 600, WREN_RPL_REG_EARO), 0); /* EARO without R: not to be routed */
    CHECK_EQ(n->rpl->stats.rul_ignored, 1);
    CHECK_EQ(rul_query(a, n->if_id), -ENOENT); /* (not joined: not in the DODAG either) */
    peer_ll(ll);
    CHECK_EQ(reg(ll, 600, 0), 0); /* link-local: nothing to announce */
    for (unsigned i = 0; i < CONFIG_WREN_RPL_RULS; i++) {
        a[15] = (uint8_t)(0x10 + i);
        CHECK_EQ(reg(a, 600, i & 1 ? 0 : WREN_RPL_REG_EARO | WREN_RPL_REG_R), 0);
    }
    CHECK_EQ(n->rpl->stats.rul_added, CONFIG_WREN_RPL_RULS);
    a[15] = 0x10 + CONFIG_WREN_RPL_RULS;
    CHECK_EQ(reg(a, 600, 0), -ENOSPC);
    CHECK_EQ(n->rpl->stats.ruls_full, 1);
    a[15] = 0x10;
    CHECK_EQ(rul_query(a, n->if_id), 1);
    CHECK_EQ(reg(a, 600, 0), 0); /* a refresh: the same entry */
    CHECK_EQ(n->rpl->stats.rul_added, CONFIG_WREN_RPL_RULS);
    CHECK_EQ(reg(a, 0, 0), 0);   /* deregistered (never announced: forgotten) */
    CHECK_EQ(n->rpl->stats.rul_removed, 1);
    CHECK_EQ(rul_query(a, n->if_id), -ENOENT);
    a[15] = 0x10 + CONFIG_WREN_RPL_RULS;
    CHECK_EQ(reg(a, 600, 0), 0); /* room again */
    /* the registration runs out */
    fx_run_us(601u * 1000000u);
    CHECK_EQ(n->rpl->stats.rul_removed, 1 + CONFIG_WREN_RPL_RULS);
    CHECK_EQ(rul_query(a, n->if_id), -ENOENT);
    role(WREN_RPL_OFF, 0, 0);
    FX_CLEAN(20000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST_SETUP(test_rpl_dio__no_config_asks_and_joins, setup),
        FX_TEST_SETUP(test_rpl_dio__bad_config_is_malformed, setup),
        FX_TEST_SETUP(test_rpl_dio__other_mode_counted_not_joined, setup),
        FX_TEST_SETUP(test_rpl_dao__storing_dao_refused_by_non_storing_root, setup),
        FX_TEST_SETUP(test_rpl_rul__registrations_taken_and_refused, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
