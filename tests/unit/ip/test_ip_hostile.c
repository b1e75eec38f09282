/* IPv6 (src/ipv6) fed hostile datagrams by a neighbour, in uncompressed
 * 6LoWPAN frames; what the node sends back is caught by the neighbour, a
 * node of its own with a raw ICMPv6 sink:
 * - hop-by-hop headers of datagrams the node forwards are checked first
 *   (RFC 8200 4.2, 4.3): lengths, option TLVs, the RPL option's length
 *   (RFC 6553), unknown options by their action bits; what is refused gets
 *   a Parameter Problem (code 0 or 2, the pointer at the offending byte)
 *   and is not forwarded;
 * - an RPL source routing header (RFC 6554) whose next address is the
 *   node's own is a loop: Parameter Problem, nothing sent on;
 * - a route through the node itself: nothing goes to its own link address.
 * Every test ends with both packet buffers empty. */
#include <string.h>

#include "core/byteorder.h"
#include "fixture.h"
#include "net/netapi.h"
#include "wire/icmpv6.h"
#include "wire/icmpv6_types.h"
#include "wire/ipv6.h"
#include "wire/ipv6_ext.h"
#include "wire/rpl.h"
#include "wire/sixlowpan.h"

static struct fx_node *n, *p;
static struct fx_sink *got; /* ICMPv6 reaching p */
static const uint8_t pfx[8] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1 };
static uint8_t n_addr[16], p_addr[16], far_addr[16];

static void global(uint8_t *a, const struct fx_node *x)
{
    memcpy(a, pfx, 8);
    wren_ipv6_iid_from_l2(a + 8, x->nif->long_addr, 8);
}

static void route(const uint8_t *prefix, uint8_t plen, const uint8_t *via)
{
    struct wren_fib_entry r = { .prefix_len = plen, .if_id = n->if_id };
    memcpy(r.prefix, prefix, 16);
    if (via) {
        memcpy(r.next_hop, via, 16);
    }
    CHECK_EQ(wren_netapi_set(&n->node, &n->ip->module, WREN_NETOPT_IPV6_ROUTE_ADD, 0, &r,
                             sizeof(r)),
             0);
}

/* n routes (forwarding on), its prefix on-link (p is reached by its IID);
 * p has a global address and a sink for the ICMPv6 it receives */
static int setup(void **state)
{
    fx_setup(state);
    n = fx_node(FX_LOWPAN_NODE);
    p = fx_node(FX_LOWPAN_NODE);
    fx_link2(n, p);
    global(n_addr, n);
    global(p_addr, p);
    memcpy(far_addr, pfx, 8);
    memset(far_addr + 8, 0, 8);
    far_addr[15] = 0x99;
    CHECK_EQ(wren_ipv6_addr_add(n->ip, n->if_id, n_addr, 64, WREN_IPV6_ADDR_VALID), 0);
    CHECK_EQ(wren_ipv6_addr_add(p->ip, p->if_id, p_addr, 64, WREN_IPV6_ADDR_VALID), 0);
    uint8_t fwd = 1, on_link[16] = { 0 };
    memcpy(on_link, pfx, 8);
    CHECK_EQ(wren_netapi_set(&n->node, &n->ip->module, WREN_NETOPT_IPV6_FORWARDING, 0, &fwd, 1),
             0);
    route(on_link, 64, NULL);
    got = fx_sink(p, WREN_NETTYPE_IPV6, IPV6_NH_ICMPV6);
    fx_run_us(2000000); /* the NIBs' start-up traffic */
    got->got = 0;
    return 0;
}

/* A datagram from p (its global address) to @p dst: next header @p nh,
 * @p body after the fixed header, hop limit 64, in an uncompressed frame */
static void inject(const uint8_t *dst, uint8_t nh, const uint8_t *body, size_t len)
{
    uint8_t pl[120], psdu[WREN_PHY_MAX_PSDU];
    CHECK(1 + IPV6_HDR_LEN + len <= sizeof(pl));
    pl[0] = SIXLOWPAN_DISPATCH_IPV6_BYTE;
    wren_ipv6_hdr_init(pl + 1, p_addr, dst, nh);
    put_be16(pl + 1 + 4, (uint16_t)len);
    pl[1 + 7] = 64;
    memcpy(pl + 1 + IPV6_HDR_LEN, body, len);
    struct fx_frame f = { .src_eui = p->nif->long_addr, .dst = (uint16_t)n->radio->index };
    fx_inject(n, psdu, fx_frame_emit(&f, pl, 1 + IPV6_HDR_LEN + len, psdu));
    fx_run_us(200000);
}

/* A hop-by-hop header of 8 bytes holding @p opt (6 bytes, its options),
 * then an ICMPv6 echo request of 8 bytes (checksum over p -> @p dst) */
static size_t hbh_echo(uint8_t *b, const uint8_t *dst, const uint8_t opt[6])
{
    b[0] = IPV6_NH_ICMPV6;
    b[1] = 0;
    memcpy(b + 2, opt, 6);
    uint8_t *e = b + 8;
    memset(e, 0, 8);
    e[0] = ICMPV6_ECHO_REQUEST;
    e[4] = 0x12;
    e[7] = 1;
    put_be16(e + 2, wren_icmpv6_csum(p_addr, dst, e, 8));
    return 16;
}

/* p got one Parameter Problem of @p code pointing at @p ptr */
static void check_pp(uint8_t code, uint32_t ptr)
{
    CHECK_EQ(got->got, 1);
    CHECK(got->len >= 8 + IPV6_HDR_LEN);
    CHECK_EQ(got->data[0], ICMPV6_PARAM_PROBLEM);
    CHECK_EQ(got->data[1], code);
    CHECK_EQ(get_be32(got->data + 4), ptr);
    /* the invoking datagram quoted from its start: from p */
    CHECK(memcmp(got->data + 8 + IPV6_OFF_SRC, p_addr, 16) == 0);
    got->got = 0;
}

/* RFC 8200 4.2: a forwarding router checks the hop-by-hop options; an
 * unknown option is skipped (00), discards (01), discards with a
 * Parameter Problem code 2 at the option (10; 11 as the destination is
 * unicast); nothing refused is forwarded */
TEST(test_ip_forward__hbh_option_actions)
{
    uint8_t b[32];
    struct {
        uint8_t type;
        bool fwd, pp;
    } cases[] = {
        { 0x1e, true, false },  /* 00: skip */
        { 0x5e, false, false }, /* 01: discard */
        { 0x9e, false, true },  /* 10: discard, parameter problem */
        { 0xde, false, true },  /* 11: the same for a unicast destination */
    };
    uint32_t fwd = 0, drops = 0;
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const uint8_t opt[6] = { cases[i].type, 4, 0, 0, 0, 0 };
        inject(far_addr, IPV6_NH_HOPOPT, b, hbh_echo(b, far_addr, opt));
        fwd += cases[i].fwd;
        drops += !cases[i].fwd;
        CHECK_EQ(n->ip->stats.rx_forwarded, fwd);
        CHECK_EQ(n->ip->stats.rx_drop_hbh_fwd, drops);
        if (cases[i].pp) {
            check_pp(ICMPV6_PARAM_OPTION, IPV6_HDR_LEN + 2);
        }
        /* (what is forwarded goes on to nobody: far_addr is not p's) */
        CHECK_EQ(got->got, 0);
    }
    CHECK_EQ(n->ip->stats.rx_drop_ext, 0);
    FX_CLEAN(1000000);
}

/* RFC 8200 4.2, 4.3: a malformed hop-by-hop header of a datagram to be
 * forwarded: Parameter Problem code 0 at the offending byte, not forwarded */
TEST(test_ip_forward__hbh_malformed_not_forwarded)
{
    uint8_t b[32];
    /* a PadN running past the header: the pointer at the option */
    static const uint8_t padn_long[6] = { IPV6_OPT_PADN, 6, 0, 0, 0, 0 };
    inject(far_addr, IPV6_NH_HOPOPT, b, hbh_echo(b, far_addr, padn_long));
    check_pp(ICMPV6_PARAM_HDR, IPV6_HDR_LEN + 2);
    /* the RPL option shorter than flags, instance and rank (RFC 6553 3):
     * the pointer at its length */
    static const uint8_t rpi_short[6] = { RPL_RPI_TYPE, 2, 0, 0, IPV6_OPT_PADN, 0 };
    inject(far_addr, IPV6_NH_HOPOPT, b, hbh_echo(b, far_addr, rpi_short));
    check_pp(ICMPV6_PARAM_HDR, IPV6_HDR_LEN + 3);
    /* Hdr Ext Len beyond the payload: the pointer at it */
    static const uint8_t pad[6] = { IPV6_OPT_PADN, 4, 0, 0, 0, 0 };
    size_t len = hbh_echo(b, far_addr, pad);
    b[1] = 2;
    inject(far_addr, IPV6_NH_HOPOPT, b, len);
    check_pp(ICMPV6_PARAM_HDR, IPV6_HDR_LEN + 1);
    CHECK_EQ(n->ip->stats.rx_forwarded, 0);
    CHECK_EQ(n->ip->stats.rx_drop_hbh_fwd, 3);
    /* a well-formed one with the padding and an RPL option goes on */
    static const uint8_t rpi[6] = { RPL_RPI_TYPE, 4, 0, 0, 0x01, 0x00 };
    inject(far_addr, IPV6_NH_HOPOPT, b, hbh_echo(b, far_addr, rpi));
    CHECK_EQ(n->ip->stats.rx_forwarded, 1);
    CHECK_EQ(n->ip->stats.rx_drop_hbh_fwd, 3);
    FX_CLEAN(1000000);
}

/* the local-delivery path: a short RPL option in a datagram for us is a
 * Parameter Problem too (the walk already refused the rest) */
TEST(test_ip_receive__rpi_short_param_problem)
{
    uint8_t b[32];
    static const uint8_t rpi_short[6] = { RPL_RPI_TYPE, 2, 0, 0, IPV6_OPT_PADN, 0 };
    inject(n_addr, IPV6_NH_HOPOPT, b, hbh_echo(b, n_addr, rpi_short));
    check_pp(ICMPV6_PARAM_HDR, IPV6_HDR_LEN + 3);
    CHECK_EQ(n->ip->stats.rx_drop_ext, 1);
    CHECK_EQ(n->icmp->stats.rx_echo_req, 0);
    FX_CLEAN(1000000);
}

/* RFC 6554 4.2: a source route whose next address is ours is a loop:
 * Parameter Problem code 0 at that address, nothing sent on (before, the
 * node sent the datagram to its own link address) */
TEST(test_ip_srh__next_hop_self_param_problem)
{
    uint8_t b[48];
    /* SRH: next header ICMPv6, Hdr Ext Len 2 (one full address),
     * routing type 3, segments left 1, CmprI 0, CmprE 0, Pad 0 */
    b[0] = IPV6_NH_ICMPV6;
    b[1] = 2;
    b[2] = RPL_SRH_TYPE;
    b[3] = 1;
    memset(b + 4, 0, 4);
    memcpy(b + 8, n_addr, 16);
    uint8_t *e = b + 24;
    memset(e, 0, 8);
    e[0] = ICMPV6_ECHO_REQUEST;
    put_be16(e + 2, wren_icmpv6_csum(p_addr, n_addr, e, 8));
    uint32_t tx = n->ip->stats.tx_pkts;
    inject(n_addr, IPV6_NH_ROUTING, b, 32);
    check_pp(ICMPV6_PARAM_HDR, IPV6_HDR_LEN + 8);
    CHECK_EQ(n->ip->stats.rx_drop_srh, 1);
    CHECK_EQ(n->ip->stats.rx_srh_forwarded, 0);
    CHECK_EQ(n->ip->stats.tx_drop_self, 0);
    CHECK_EQ(n->ip->stats.tx_pkts, tx + 1); /* the error alone */
    FX_CLEAN(1000000);
}

/* a route through ourselves (here a FIB entry via our own link-local
 * address; a spoofed RPL route does the same): nothing is sent to our own
 * link address, counted */
TEST(test_ip_route__next_hop_self_not_sent)
{
    uint8_t ll[16] = { 0xfe, 0x80 }, dst[16];
    wren_ipv6_iid_from_l2(ll + 8, n->nif->long_addr, 8);
    memcpy(dst, far_addr, 16);
    dst[0] = 0x30; /* outside the on-link prefix */
    route(dst, 128, ll);
    static const uint8_t echo[8] = { ICMPV6_ECHO_REQUEST, 0, 0, 0, 0, 1, 0, 1 };
    uint32_t tx = n->ip->stats.tx_pkts;
    CHECK_EQ(wren_icmpv6_send(&n->node, NULL, dst, 0, 0, echo, sizeof(echo)), 0);
    fx_run_us(100000);
    CHECK_EQ(n->ip->stats.tx_drop_self, 1);
    CHECK_EQ(n->ip->stats.tx_pkts, tx);
    /* the same forwarded: dropped, not sent back to us */
    uint8_t b[16];
    static const uint8_t pad[6] = { IPV6_OPT_PADN, 4, 0, 0, 0, 0 };
    inject(dst, IPV6_NH_HOPOPT, b, hbh_echo(b, dst, pad));
    CHECK_EQ(n->ip->stats.rx_forwarded, 1);
    CHECK_EQ(n->ip->stats.tx_drop_self, 2);
    CHECK_EQ(n->ip->stats.tx_pkts, tx);
    FX_CLEAN(1000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST_SETUP(test_ip_forward__hbh_option_actions, setup),
        FX_TEST_SETUP(test_ip_forward__hbh_malformed_not_forwarded, setup),
        FX_TEST_SETUP(test_ip_receive__rpi_short_param_problem, setup),
        FX_TEST_SETUP(test_ip_srh__next_hop_self_param_problem, setup),
        FX_TEST_SETUP(test_ip_route__next_hop_self_not_sent, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
