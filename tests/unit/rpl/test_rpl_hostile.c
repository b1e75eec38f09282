/* RPL (src/rpl) fed hostile or broken messages by a neighbour (IPHC or
 * uncompressed 6LoWPAN frames written out by hand):
 * - a DODAG configuration whose timers would make the node flood (Imin
 *   2^0 ms, a route lifetime of 1 s) is bounded by the local limits
 *   (CONFIG_WREN_RPL_DIO_IMIN_MIN, _LIFETIME_MIN_S), and a changed
 *   configuration (a new version, or new values) restarts Trickle with the
 *   new values at once;
 * - a Prefix Information option with a multicast, link-local, loopback or
 *   unspecified prefix, or a length above 128, is neither used for an
 *   address nor passed on (RFC 4862 5.5.3, RFC 6550 6.7.10);
 * - DAO targets that are multicast, shorter than the node's policy
 *   (CONFIG_WREN_RPL_TARGET_MIN_PLEN inside the DODAG's prefix, _EXT_ outside
 *   it), or cover the DODAG's prefix are refused (DAO-ACK status 128), and
 *   so is a leaf's registration of the DODAGID.
 * Every test ends with the packet buffers empty. */
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

static void ll_of(uint8_t *a, const struct fx_node *from)
{
    uint8_t l2[2];
    memset(a, 0, 16);
    a[0] = 0xfe;
    a[1] = 0x80;
    put_be16(l2, PEER);
    if (from) {
        wren_ipv6_iid_from_l2(a + 8, from->nif->long_addr, 8);
    } else {
        wren_ipv6_iid_from_l2(a + 8, l2, 2);
    }
}

/* ICMPv6 @p msg (checksum filled here) from the link-local address of
 * @p from (NULL: the peer, which is no node) to @p dst, in an IPHC frame:
 * source from the link address, hop limit 255, next header inline, the
 * destination ff02::XX in a byte or inline */
static void inject_from(const struct fx_node *from, const uint8_t *dst, uint8_t *msg, size_t len)
{
    uint8_t src[16], pl[120], psdu[WREN_PHY_MAX_PSDU];
    static const uint8_t ff02[15] = { 0xff, 0x02 };
    bool m8 = memcmp(dst, ff02, 15) == 0;
    size_t k = 0;
    CHECK(4 + 16 + len <= sizeof(pl));
    ll_of(src, from);
    pl[k++] = 0x7b;                      /* 011, TF 11, NH inline, HLIM 11 (255) */
    pl[k++] = m8 ? 0x3b : 0x30;          /* SAM 11; M and DAM 11, or DAM 00 */
    pl[k++] = IPV6_NH_ICMPV6;
    if (m8) {
        pl[k++] = dst[15];
    } else {
        memcpy(pl + k, dst, 16);
        k += 16;
    }
    put_be16(msg + 2, 0);
    put_be16(msg + 2, wren_icmpv6_csum(src, dst, msg, len));
    memcpy(pl + k, msg, len);
    struct fx_frame f = { .src = PEER, .src_eui = from ? from->nif->long_addr : NULL,
                          .dst = m8 ? 0xffff : (uint16_t)n->radio->index };
    fx_inject(n, psdu, fx_frame_emit(&f, pl, k + len, psdu));
    fx_run_us(100000);
}

struct dio_cfg {
    uint8_t imin, doublings, k, lifetime;
    uint16_t unit;
};

/* A DIO of instance 0, DODAG 2001:db8:0:1::1, rank 256, storing, version
 * @p ver, with the configuration @p c (NULL: none; OF0, MinHopRankIncrease
 * 256) and, if @p prefix, a PIO (A set) of @p plen bits */
static size_t dio(uint8_t *m, uint8_t ver, const struct dio_cfg *c, const uint8_t *prefix,
                  uint8_t plen)
{
    size_t k = 0;
    m[k++] = ICMPV6_RPL;
    m[k++] = RPL_CODE_DIO;
    m[k++] = 0;
    m[k++] = 0;
    m[k++] = 0;   /* RPLInstanceID */
    m[k++] = ver; /* version */
    m[k++] = 0x01; /* rank 256 */
    m[k++] = 0x00;
    m[k++] = (uint8_t)(0x80 | RPL_MOP_STORING << 3);
    m[k++] = 240; /* DTSN */
    m[k++] = 0;
    m[k++] = 0;
    memcpy(m + k, pfx, 8); /* DODAGID */
    memset(m + k + 8, 0, 8);
    m[k + 15] = 1;
    k += 16;
    if (c) {
        const uint8_t o[16] = { RPL_OPT_CONFIG, 14, 0x00, c->doublings, c->imin, c->k,
                                0x07, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, c->lifetime,
                                (uint8_t)(c->unit >> 8), (uint8_t)c->unit };
        memcpy(m + k, o, sizeof(o));
        k += sizeof(o);
    }
    if (prefix) {
        const uint8_t o[16] = { RPL_OPT_PREFIX, 30, plen, 0x40, 0xff, 0xff, 0xff, 0xff,
                                0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0 };
        memcpy(m + k, o, sizeof(o));
        memcpy(m + k + 16, prefix, 16);
        k += 32;
    }
    return k;
}

static void role(uint8_t r)
{
    struct wren_rpl_role_cfg c = { .role = r, .mop = RPL_MOP_STORING, .prefix_len = 64,
                                   .flags = r == WREN_RPL_ROOT ? WREN_RPL_CFG_GROUNDED : 0 };
    memcpy(c.prefix, pfx, 8);
    CHECK_EQ(wren_netapi_set(&n->node, &n->rpl->module, WREN_NETOPT_RPL_ROLE, 0, &c, sizeof(c)),
             0);
    fx_run_us(3000000);
}

static uint32_t dios_in(uint64_t us)
{
    uint32_t before = n->rpl->stats.tx_dio;
    fx_run_us(us);
    return n->rpl->stats.tx_dio - before;
}

/* DIOIntervalMin 0 (Imin 1 ms) made a router send a DIO every 8 ms, and a
 * later version with sane timers did not stop it: the configuration is
 * bounded, and a changed one restarts Trickle with its values at once */
TEST(test_rpl_cfg__hostile_timers_bounded_new_ones_at_once)
{
    uint8_t m[96];
    role(WREN_RPL_ROUTER);
    const struct dio_cfg flood = { .imin = 0, .doublings = 0, .k = 0, .lifetime = 30, .unit = 60 };
    inject_from(NULL, all_rpl, m, dio(m, 240, &flood, NULL, 0));
    CHECK(n->rpl->joined);
    /* one DIO per Imin at most (k 0: never suppressed) */
    CHECK(dios_in(10000000) <= 10000u / (1u << CONFIG_WREN_RPL_DIO_IMIN_MIN) + 1);
    CHECK_EQ(n->rpl->trickle.imin, 1u << CONFIG_WREN_RPL_DIO_IMIN_MIN);
    CHECK_EQ(n->rpl->cfg.dio_int_min, CONFIG_WREN_RPL_DIO_IMIN_MIN);
    CHECK_EQ(n->rpl->stats.cfg_clamped, 1);
    /* a new version with sane timers: Imin 2^12 ms, 8 doublings, at once */
    const struct dio_cfg sane = { .imin = 12, .doublings = 8, .k = 10, .lifetime = 30, .unit = 60 };
    inject_from(NULL, all_rpl, m, dio(m, 241, &sane, NULL, 0));
    CHECK_EQ(n->rpl->stats.new_version, 1);
    CHECK_EQ(n->rpl->trickle.imin, 4096);
    CHECK(dios_in(10000000) <= 3);
    /* the same version, new values: Imin 2^14 ms at once too */
    const struct dio_cfg slower = { .imin = 14, .doublings = 8, .k = 10, .lifetime = 30, .unit = 60 };
    inject_from(NULL, all_rpl, m, dio(m, 241, &slower, NULL, 0));
    CHECK_EQ(n->rpl->trickle.imin, 16384);
    CHECK_EQ(n->rpl->trickle.imax, 16384u << 8);
    /* Imax beyond the limit: the doublings are cut */
    const struct dio_cfg silent = { .imin = 20, .doublings = 20, .k = 10, .lifetime = 30, .unit = 60 };
    inject_from(NULL, all_rpl, m, dio(m, 241, &silent, NULL, 0));
    CHECK_EQ(n->rpl->stats.cfg_clamped, 2);
    CHECK_EQ(n->rpl->cfg.dio_int_min + n->rpl->cfg.dio_int_doublings, CONFIG_WREN_RPL_DIO_IMAX_MAX);
    CHECK_EQ(n->rpl->trickle.imax, 1u << CONFIG_WREN_RPL_DIO_IMAX_MAX);
    role(WREN_RPL_OFF);
    FX_CLEAN(20000000);
}

/* a route lifetime of 1 s made every node send a DAO each second: at
 * least CONFIG_WREN_RPL_LIFETIME_MIN_S, refreshed at half of it */
TEST(test_rpl_cfg__short_lifetime_bounded)
{
    uint8_t m[96], p[16] = { 0 };
    memcpy(p, pfx, 8);
    role(WREN_RPL_ROUTER);
    const struct dio_cfg c = { .imin = 12, .doublings = 8, .k = 10, .lifetime = 1, .unit = 1 };
    inject_from(NULL, all_rpl, m, dio(m, 240, &c, p, 64));
    CHECK(n->rpl->joined);
    CHECK(n->rpl->addr[0] != 0);
    /* unanswered DAOs: the first and its retries (2, 4, 8 ... s), no refresh
     * each second */
    uint32_t before = n->rpl->stats.tx_dao;
    fx_run_us(20000000);
    CHECK(n->rpl->stats.tx_dao - before >= 1);
    CHECK(n->rpl->stats.tx_dao - before <= 6);
    CHECK((uint32_t)n->rpl->cfg.def_lifetime * n->rpl->cfg.lifetime_unit >=
          CONFIG_WREN_RPL_LIFETIME_MIN_S);
    CHECK_EQ(n->rpl->stats.cfg_clamped, 1);
    role(WREN_RPL_OFF);
    FX_CLEAN(20000000);
}

/* a root's own timers must lie within the limits every node applies */
TEST(test_rpl_cfg__root_timers_within_limits)
{
    struct wren_rpl_role_cfg c = { .role = WREN_RPL_ROOT, .mop = RPL_MOP_STORING,
                                   .prefix_len = 64, .flags = WREN_RPL_CFG_TIMERS,
                                   .dio_imin = 3, .dio_doublings = 0, .dio_k = 0,
                                   .lifetime = 30, .lifetime_unit = 60 };
    memcpy(c.prefix, pfx, 8);
    if (!CONFIG_WREN_RPL_ROOT_TIMERS) {
        return;
    }
    CHECK_EQ(wren_rpl_set_role(n->rpl, &c), -EINVAL);
    c.dio_imin = CONFIG_WREN_RPL_DIO_IMIN_MIN;
    c.lifetime = 1;
    c.lifetime_unit = 1;
    CHECK_EQ(wren_rpl_set_role(n->rpl, &c), -EINVAL);
    c.lifetime = 2;
    c.lifetime_unit = 60;
    CHECK_EQ(wren_rpl_set_role(n->rpl, &c), 0);
    role(WREN_RPL_OFF);
    FX_CLEAN(20000000);
}

static int prefix_get(void)
{
    struct wren_rpl_prefix q;
    return wren_netapi_get(&n->node, &n->rpl->module, WREN_NETOPT_RPL_PREFIX, 0, &q, sizeof(q));
}

/* RFC 4862 5.5.3, RFC 6550 6.7.10: ff02::/64 and fe80::/64 were taken
 * (the router's RPL address became its link-local one) and passed on */
TEST(test_rpl_pio__unusable_prefixes_not_taken)
{
    uint8_t m[96], ll[16];
    static const struct {
        uint8_t p[16];
        uint8_t plen;
    } bad[] = {
        { { 0xff, 0x02 }, 64 },           /* multicast */
        { { 0xfe, 0x80 }, 64 },           /* link-local */
        { { 0 }, 64 },                    /* unspecified (and loopback) */
        { { [15] = 1 }, 128 },            /* loopback */
        { { 0 }, 0 },                     /* everything */
        { { 0x20, 0x01, 0x0d, 0xb8 }, 129 }, /* longer than an address */
    };
    const struct dio_cfg c = { .imin = 12, .doublings = 8, .k = 10, .lifetime = 30, .unit = 60 };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        role(WREN_RPL_ROUTER);
        inject_from(NULL, all_rpl, m, dio(m, 240, &c, bad[i].p, bad[i].plen));
        CHECK(n->rpl->joined); /* the DIO is fine; its prefix is not */
        CHECK_EQ(n->rpl->prefix_len, 0); /* (our DIOs carry no PIO then) */
        CHECK_EQ(n->rpl->addr[0], 0);
        CHECK_EQ(prefix_get(), -ENOENT); /* the NIBs advertise nothing */
        CHECK_EQ(n->rpl->stats.rx_drop_malformed, 0);
        CHECK_EQ(n->rpl->stats.pio_refused, i + 1);
        role(WREN_RPL_OFF);
    }
    /* the link-local address is still the only one of its kind */
    ll_of(ll, n);
    CHECK(wren_ipv6_is_own(n->ip, ll));
    /* a usable prefix is taken */
    uint8_t good[16] = { 0 };
    memcpy(good, pfx, 8);
    role(WREN_RPL_ROUTER);
    inject_from(NULL, all_rpl, m, dio(m, 240, &c, good, 64));
    CHECK_EQ(n->rpl->prefix_len, 64);
    CHECK(memcmp(n->rpl->addr, pfx, 8) == 0);
    CHECK(prefix_get() > 0);
    role(WREN_RPL_OFF);
    FX_CLEAN(20000000);
}

/* A DAO (K, sequence @p seq) from @p from's link-local address to ours
 * with one target @p t / @p plen and a transit option (no parent) */
static void dao_one(struct fx_node *from, const uint8_t *t, uint8_t plen, uint8_t seq)
{
    uint8_t m[64], ll[16];
    size_t k = 0, tb = (plen + 7u) / 8;
    m[k++] = ICMPV6_RPL;
    m[k++] = RPL_CODE_DAO;
    m[k++] = 0;
    m[k++] = 0;
    m[k++] = 0; /* instance */
    m[k++] = RPL_DAO_K;
    m[k++] = 0;
    m[k++] = seq;
    m[k++] = RPL_OPT_TARGET;
    m[k++] = (uint8_t)(2 + tb);
    m[k++] = 0;
    m[k++] = plen;
    memcpy(m + k, t, tb);
    k += tb;
    static const uint8_t transit[6] = { RPL_OPT_TRANSIT, 4, 0, 0, 240, 30 };
    memcpy(m + k, transit, sizeof(transit));
    k += sizeof(transit);
    ll_of(ll, n);
    inject_from(from, ll, m, k);
}

static int route_to(const uint8_t *dst)
{
    uint8_t rr[18];
    memcpy(rr, dst, 16);
    return wren_netapi_get(&n->node, &n->rpl->module, WREN_NETOPT_RPL_ROUTE, 0, rr, sizeof(rr));
}

/* a child's DAO must not draw the DODAG's traffic to it: targets covering
 * the prefix (::/0, the /64), shorter than the policy, or multicast are
 * refused (DAO-ACK status 128), a /128 of the prefix is taken */
TEST(test_rpl_dao__hijacking_targets_refused)
{
    struct fx_node *p = fx_node(FX_LOWPAN_NODE);
    fx_link2(n, p);
    struct fx_sink *got = fx_sink(p, WREN_NETTYPE_ICMPV6, ICMPV6_RPL);
    role(WREN_RPL_ROOT);
    uint8_t other[16] = { 0 }, t[16] = { 0 };
    memcpy(other, pfx, 8);
    other[15] = 0x77; /* a node of the DODAG nobody announced */
    static const struct {
        uint8_t p[16];
        uint8_t plen;
    } bad[] = {
        { { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1 }, 64 }, /* the DODAG's prefix */
        { { 0 }, 0 },                                  /* ::/0 */
        { { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1 }, 96 }, /* shorter than /128 */
        { { 0x20, 0x01 }, 16 },                        /* covers the prefix */
        { { 0xff, 0x05, [15] = 1 }, 128 },             /* multicast */
        { { 0x30 }, 8 },                               /* too much of the outside */
    };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        dao_one(p, bad[i].p, bad[i].plen, (uint8_t)(241 + i));
        CHECK_EQ(route_to(other), -ENOENT);
        CHECK_EQ(got->got, i + 1);
        CHECK_EQ(got->data[1], RPL_CODE_DAO_ACK);
        CHECK_EQ(got->data[6], 241 + i);
        CHECK(got->data[7] >= 128); /* RFC 6550 6.5: rejected */
        CHECK_EQ(n->rpl->stats.dao_target_refused, i + 1);
    }
    /* a node's own address is taken */
    memcpy(t, pfx, 8);
    t[15] = 0x42;
    dao_one(p, t, 128, 250);
    CHECK_EQ(got->data[7], RPL_DAO_ACK_OK);
    CHECK_EQ(route_to(t), 18);
    CHECK_EQ(route_to(other), -ENOENT);
    /* and a network behind a node, outside the prefix (RFC 6550 6.7.7) */
    static const uint8_t ext[16] = { 0x20, 0x01, 0x0c, 0x00 };
    dao_one(p, ext, 32, 251);
    CHECK_EQ(got->data[7], RPL_DAO_ACK_OK);
    CHECK_EQ(route_to(ext), 18);
    CHECK_EQ(n->rpl->stats.dao_target_refused, sizeof(bad) / sizeof(bad[0]));
    role(WREN_RPL_OFF);
    FX_CLEAN(20000000);
}

/* RFC 9010: a host registering the DODAGID (the root's address) at a 6LR
 * would be routed to before the root (a leaf's /128 comes first) */
TEST(test_rpl_rul__dodagid_registration_refused)
{
    uint8_t m[96], id[16] = { 0 };
    role(WREN_RPL_ROUTER);
    const struct dio_cfg c = { .imin = 12, .doublings = 8, .k = 10, .lifetime = 30, .unit = 60 };
    inject_from(NULL, all_rpl, m, dio(m, 240, &c, NULL, 0));
    CHECK(n->rpl->joined);
    memcpy(id, pfx, 8);
    id[15] = 1; /* the DODAGID */
    struct wren_rpl_reg r = { .lifetime_s = 600, .if_id = n->if_id };
    memcpy(r.addr, id, 16);
    CHECK_EQ(wren_netapi_set(&n->node, &n->rpl->module, WREN_NETOPT_RPL_REGISTERED, 0, &r,
                             sizeof(r)),
             -EINVAL);
    CHECK_EQ(n->rpl->stats.dao_target_refused, 1);
    CHECK_EQ(n->rpl->stats.rul_added, 0);
    CHECK_EQ(route_to(id), -ENOENT);
    /* another host's address is a leaf's */
    r.addr[15] = 0x10;
    CHECK_EQ(wren_netapi_set(&n->node, &n->rpl->module, WREN_NETOPT_RPL_REGISTERED, 0, &r,
                             sizeof(r)),
             0);
    CHECK_EQ(n->rpl->stats.rul_added, 1);
    role(WREN_RPL_OFF);
    FX_CLEAN(20000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST_SETUP(test_rpl_cfg__hostile_timers_bounded_new_ones_at_once, setup),
        FX_TEST_SETUP(test_rpl_cfg__short_lifetime_bounded, setup),
        FX_TEST_SETUP(test_rpl_cfg__root_timers_within_limits, setup),
        FX_TEST_SETUP(test_rpl_pio__unusable_prefixes_not_taken, setup),
        FX_TEST_SETUP(test_rpl_dao__hijacking_targets_refused, setup),
        FX_TEST_SETUP(test_rpl_rul__dodagid_registration_refused, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
