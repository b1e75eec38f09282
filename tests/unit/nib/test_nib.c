/* Neighbor discovery for 6LoWPAN links (src/nib/nib.c; RFC 4861, 4862,
 * RFC 6775) between whole nodes on the sim medium: a router with a /64 and
 * hosts that solicit it, configure an address from its PIO and register
 * it (ARO). The router's neighbor cache is then attacked with crafted
 * messages injected into its radio as if from other neighbours: duplicate
 * registrations, a cache-full flood, solicitations from many sources (LRU
 * replacement among them only), unsolicited advertisements. Every test
 * ends with every node's packet buffer empty. */
#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "fixture.h"
#include "ipv6/fib.h"
#include "net/netapi.h"
#include "wire/icmpv6.h"
#include "wire/icmpv6_types.h"
#include "wire/ipv6.h"
#include "wire/sixlowpan.h"

static struct fx_node *r, *h; /* the router (radio 0) and a host (radio 1) */
static const uint8_t pfx[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1 };

/* @p prefix (its first 64 bits) with the IID of short address @p s: the
 * addresses of crafted neighbours */
static void addr_of(uint8_t *a, const uint8_t *prefix, uint16_t s)
{
    uint8_t l2[2];
    put_be16(l2, s);
    memset(a, 0, 16);
    memcpy(a, prefix, 8);
    wren_ipv6_iid_from_l2(a + 8, l2, 2);
}

/* @p prefix with the IID of node @p x's EUI-64: a node's own addresses
 * (RFC 4944 6) */
static void node_addr(uint8_t *a, const uint8_t *prefix, const struct fx_node *x)
{
    memset(a, 0, 16);
    memcpy(a, prefix, 8);
    wren_ipv6_iid_from_l2(a + 8, x->nif->long_addr, 8);
}

/* a link address: a crafted neighbour's short one, or a node's EUI-64 */
struct l2a {
    uint8_t a[8];
    uint8_t len; /* 0: none */
};

static struct l2a sh(uint16_t s)
{
    struct l2a l = { .len = 2 };
    put_be16(l.a, s);
    return l;
}

static struct l2a eui_of(const struct fx_node *x)
{
    struct l2a l = { .len = 8 };
    memcpy(l.a, x->nif->long_addr, 8);
    return l;
}

/* neighbour entry @p e holds link address @p w */
static bool l2_is(const struct wren_nib_neighbor *e, struct l2a w)
{
    return e->l2len == w.len && memcmp(e->l2, w.a, w.len) == 0;
}

static const uint8_t ll_prefix[8] = { 0xfe, 0x80 };

static uint8_t addr_state(const struct fx_node *n, const uint8_t *a)
{
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
        const struct wren_ipv6_addr *x = &n->ip->ifs[0].addrs[i];
        if (x->state && memcmp(x->addr, a, 16) == 0) {
            return x->state;
        }
    }
    return WREN_IPV6_ADDR_UNUSED;
}

static const struct wren_nib_neighbor *nc_of(const struct fx_node *n, const uint8_t *ip)
{
    for (unsigned i = 0; i < CONFIG_WREN_NIB_NEIGHBORS && n->nib->nc; i++) {
        const struct wren_nib_neighbor *e = &n->nib->nc->e[i];
        if (e->state && memcmp(e->ip, ip, 16) == 0) {
            return e;
        }
    }
    return NULL;
}

static unsigned nc_count(const struct fx_node *n, uint8_t state)
{
    unsigned c = 0;
    for (unsigned i = 0; i < CONFIG_WREN_NIB_NEIGHBORS && n->nib->nc; i++) { /* made? */
        c += state ? n->nib->nc->e[i].state == state : n->nib->nc->e[i].state != 0;
    }
    return c;
}

static int setup(void **state)
{
    fx_setup(state);
    r = fx_node(FX_LOWPAN_NODE);
    h = fx_node(FX_LOWPAN_NODE);
    fx_link2(r, h);
    CHECK_EQ(wren_nib_prefix_add(r->nib, pfx, 64, 0), 0);
    fx_run_us(1000000);
    return 0;
}

/* @p n solicits the router and registers: its global address is valid */
static void join(struct fx_node *n)
{
    wren_nib_solicit(n->nib);
    fx_run_us(1000000);
    uint8_t g[16];
    node_addr(g, pfx, n);
    CHECK_EQ(addr_state(n, g), WREN_IPV6_ADDR_VALID);
}

/* ---- crafted messages from neighbours that are not nodes --------------------- */

/* ICMPv6 @p msg (checksum filled here) from @p src to @p dst in one
 * uncompressed 6LoWPAN frame from link address @p l2src to node @p to */
static void nd_inject(struct fx_node *to, struct l2a l2src, const uint8_t *src, const uint8_t *dst,
                      uint8_t *msg, size_t len, uint8_t hop_limit)
{
    uint8_t pl[116];
    CHECK(1 + IPV6_HDR_LEN + len <= sizeof(pl));
    pl[0] = SIXLOWPAN_DISPATCH_IPV6_BYTE;
    wren_ipv6_hdr_init(pl + 1, src, dst, IPV6_NH_ICMPV6);
    put_be16(pl + 1 + 4, (uint16_t)len);
    pl[1 + 7] = hop_limit;
    put_be16(msg + 2, wren_icmpv6_csum(src, dst, msg, len));
    memcpy(pl + 1 + IPV6_HDR_LEN, msg, len);
    uint8_t psdu[WREN_PHY_MAX_PSDU];
    struct fx_frame f = { .src = get_be16(l2src.a), .src_eui = l2src.len == 8 ? l2src.a : NULL,
                          .dst = (uint16_t)to->radio->index };
    fx_inject(to, psdu, fx_frame_emit(&f, pl, 1 + IPV6_HDR_LEN + len, psdu));
    fx_run_us(100000); /* and whatever the node answers */
}

/* NS for @p target, with an SLLAO of @p sllao (none: without) and an ARO
 * of @p eui (NULL: none) for @p lifetime minutes */
static size_t ns_msg(uint8_t *m, const uint8_t *target, struct l2a sllao, const uint8_t *eui,
                     uint16_t lifetime)
{
    memset(m, 0, 24);
    m[0] = ICMPV6_ND_NS;
    memcpy(m + 8, target, 16);
    size_t n = 24;
    if (sllao.len) {
        n += (size_t)wren_icmpv6_opt_lladdr_emit(ICMPV6_OPT_SLLAO, sllao.a, sllao.len, m + n, 64);
    }
    if (eui) {
        struct icmpv6_aro aro = { .lifetime = lifetime, .rovr = eui, .rovr_len = 8 };
        n += (size_t)wren_icmpv6_opt_aro_emit(&aro, m + n, 64);
    }
    return n;
}

/* a registration of @p addr by EUI-64 @p eui from link address @p l2 */
static void register_eui(struct l2a l2, const uint8_t *addr, const uint8_t *eui, uint16_t lifetime)
{
    uint8_t m[96], ll_r[16];
    node_addr(ll_r, ll_prefix, r);
    size_t n = ns_msg(m, addr, l2, eui, lifetime);
    nd_inject(r, l2, addr, ll_r, m, n, 255);
}

/* ... by EUI-64 02:00:00:00:00:00:ee:<id> */
static void register_as(struct l2a l2, const uint8_t *addr, uint8_t id, uint16_t lifetime)
{
    const uint8_t eui[8] = { 0x02, 0, 0, 0, 0, 0, 0xee, id };
    register_eui(l2, addr, eui, lifetime);
}

#define CHECK_NIB(n, ...) \
    FX_CHECK_COUNTERS(WREN_NIB_COUNTERS, &(n)->nib->stats, \
                      (&(struct wren_nib_stats){ __VA_ARGS__ }))

/* ---- router discovery, SLAAC, registration ------------------------------------ */

TEST(test_nib_rs__solicited_router_answers_with_a_unicast_ra)
{
    struct fx_node *quiet = fx_node(FX_LOWPAN_NODE); /* hears the router, solicits nothing */
    fx_link2(r, quiet);
    wren_nib_solicit(h->nib);
    fx_run_us(100000);
    CHECK_EQ(h->nib->stats.tx_rs, 1);
    CHECK_EQ(r->nib->stats.rx_rs, 1);
    CHECK_EQ(r->nib->stats.tx_ra, 1);
    CHECK_EQ(h->nib->stats.rx_ra, 1);
    CHECK_EQ(quiet->nib->stats.rx_ra, 0); /* unicast to the host */
    /* the router: a default route via the router's link-local address */
    uint8_t ll_r[16], far[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff, [15] = 1 };
    node_addr(ll_r, ll_prefix, r);
    const struct wren_fib_entry *d = wren_fib_lookup(h->ip->fib, far);
    CHECK(d != NULL);
    CHECK_EQ(d->prefix_len, 0);
    CHECK_MEM(d->next_hop, ll_r, 16);
    const struct wren_nib_neighbor *e = nc_of(h, ll_r);
    CHECK(e != NULL && e->state == WREN_NIB_ROUTER);
    /* the 6CO: context 0 is the prefix, for compression too */
    CHECK(h->lp->ctx->e[0].valid && h->lp->ctx->e[0].compress);
    CHECK_EQ(h->lp->ctx->e[0].prefix_len, 64);
    CHECK_MEM(h->lp->ctx->e[0].prefix, pfx, 8);
    /* the router learned the host's link-local address from the RS's SLLAO:
     * its EUI-64, which the address is made of and its frames come from */
    uint8_t ll_h[16];
    node_addr(ll_h, ll_prefix, h);
    e = nc_of(r, ll_h);
    CHECK(e != NULL && e->state == WREN_NIB_STALE);
    CHECK(l2_is(e, eui_of(h)));
    FX_CLEAN(1000);
}

TEST(test_nib_rs__solicitations_repeat_then_back_off_to_60_s)
{
    struct fx_node *alone = fx_node(FX_LOWPAN_NODE); /* no router in reach */
    uint64_t t0 = fx_now();
    wren_nib_solicit(alone->nib);
    /* RFC 4861: three, RTR_SOLICITATION_INTERVAL (4 s) apart; then RFC
     * 6775 5.3: every MAX_RTR_SOLICITATION_INTERVAL (60 s) */
    fx_run_until(t0 + 9000000);
    CHECK_EQ(alone->nib->stats.tx_rs, 3);
    fx_run_until(t0 + 8000000 + 59000000);
    CHECK_EQ(alone->nib->stats.tx_rs, 3);
    fx_run_until(t0 + 8000000 + 61000000);
    CHECK_EQ(alone->nib->stats.tx_rs, 4);
    FX_CLEAN(1000);
}

TEST(test_nib_slaac__address_from_the_pio_registered_then_valid)
{
    uint8_t g[16], ll_r[16];
    node_addr(g, pfx, h);
    node_addr(ll_r, ll_prefix, r);
    wren_nib_solicit(h->nib);
    /* the RA's PIO gives the address, tentative until registered (RFC 6775
     * 5.5: the registration is the duplicate address detection) */
    uint64_t t0 = fx_now();
    while (h->nib->stats.rx_ra == 0 && fx_now() < t0 + 100000) {
        fx_run_us(100);
    }
    CHECK_EQ(h->nib->stats.rx_ra, 1);
    CHECK_EQ(addr_state(h, g), WREN_IPV6_ADDR_TENTATIVE);
    fx_run_us(100000);
    CHECK_EQ(addr_state(h, g), WREN_IPV6_ADDR_VALID);
    CHECK_NIB(h, .tx_rs = 1, .rx_ra = 1, .tx_ns = 1, .rx_na = 1, .reg_ok = 1);
    CHECK_NIB(r, .rx_rs = 1, .tx_ra = 1, .rx_ns = 1, .tx_na = 1, .aro_ok = 1);
    /* the router holds the registration: the host's EUI-64, its address */
    const struct wren_nib_neighbor *e = nc_of(r, g);
    CHECK(e != NULL);
    CHECK_EQ(e->state, WREN_NIB_REGISTERED);
    CHECK_MEM(e->eui64, h->radio->long_addr, 8);
    CHECK(l2_is(e, eui_of(h)));
    /* and reaches it */
    uint8_t echo[16] = { ICMPV6_ECHO_REQUEST, 0, 0, 0, 0, 1, 0, 1 };
    CHECK_EQ(wren_icmpv6_send(&r->node, NULL, g, 0, 0, echo, sizeof(echo)), 0);
    fx_run_us(100000);
    CHECK_EQ(h->icmp->stats.rx_echo_req, 1);
    /* the host registers again at 3/4 of the lifetime it asked for */
    uint64_t again = (uint64_t)CONFIG_WREN_NIB_ARO_LIFETIME_MIN * 45u * 1000000u;
    fx_run_until(t0 + again - 1000000);
    CHECK_EQ(h->nib->stats.tx_ns, 1);
    fx_run_until(t0 + again + 2000000);
    CHECK_EQ(h->nib->stats.tx_ns, 2);
    CHECK_EQ(r->nib->stats.aro_ok, 2);
    CHECK_EQ(addr_state(h, g), WREN_IPV6_ADDR_VALID);
    FX_CLEAN(1000);
}

/* ---- registrations: duplicate, cache full ------------------------------------ */

TEST(test_nib_aro__duplicate_registration_is_refused)
{
    join(h);
    uint8_t g[16];
    node_addr(g, pfx, h);
    const struct wren_nib_neighbor *e = nc_of(r, g);
    CHECK(e != NULL);
    struct wren_nib_neighbor before = *e;
    /* another owner (EUI-64 ...:ee:07, at short address 0x42) claims it */
    register_as(sh(0x42), g, 7, 15);
    CHECK_EQ(r->nib->stats.aro_dup, 1);
    CHECK_EQ(r->nib->stats.aro_ok, 1);
    /* the registration stands: the owner, its link address, its lifetime */
    e = nc_of(r, g);
    CHECK(e != NULL);
    CHECK_EQ(e->state, WREN_NIB_REGISTERED);
    CHECK_MEM(e->eui64, before.eui64, 8);
    CHECK_EQ(e->expires_s, before.expires_s);
    CHECK(l2_is(e, eui_of(h)));
    /* the owner renewing is no duplicate */
    register_eui(eui_of(h), g, h->radio->long_addr, 15);
    CHECK_EQ(r->nib->stats.aro_dup, 1);
    CHECK_EQ(r->nib->stats.aro_ok, 2);
    FX_CLEAN(1000);
}

TEST(test_nib_aro__the_owner_keeps_its_address_when_another_claims_it)
{
    join(h);
    uint8_t g[16];
    node_addr(g, pfx, h);
    unsigned na_before = h->nib->stats.rx_na, ip_before = h->ip->stats.rx_pkts;
    register_as(sh(0x42), g, 7, 15);
    CHECK_EQ(r->nib->stats.aro_dup, 1);
    CHECK_EQ(r->nib->stats.tx_na, 2); /* the owner's registration, the refusal */
    /* the refusal is the claimant's business, not the owner's (RFC 6775
     * 6.5.2: error NAs go to the link-local address formed from the EUI-64
     * in the ARO, not to the NS's source, which is the contested address) */
    CHECK_EQ(h->nib->stats.rx_na, na_before);
    CHECK_EQ(h->ip->stats.rx_pkts, ip_before);
    CHECK_EQ(addr_state(h, g), WREN_IPV6_ADDR_VALID);
    CHECK_NIB(h, .tx_rs = 1, .rx_ra = 1, .tx_ns = 1, .rx_na = 1, .reg_ok = 1);
    FX_CLEAN(100000);
    CHECK_EQ(addr_state(h, g), WREN_IPV6_ADDR_VALID);
}

/* an NS from node @p from's radio (frame source: its EUI-64) for @p target,
 * SLLAO @p sllao, ARO of EUI-64 @p eui */
static void claim_from(struct fx_node *from, struct l2a sllao, const uint8_t *target,
                       const uint8_t *eui)
{
    uint8_t m[96], ll_r[16];
    node_addr(ll_r, ll_prefix, r);
    size_t n = ns_msg(m, target, sllao, eui, 15);
    nd_inject(r, eui_of(from), target, ll_r, m, n, 255);
}

TEST(test_nib_aro__the_refusal_goes_to_the_claimant)
{
    struct fx_node *c = fx_node(FX_LOWPAN_NODE);
    fx_link2(r, c);
    join(h);
    uint8_t g[16];
    node_addr(g, pfx, h);
    /* c claims the host's address with its own EUI-64 and link address:
     * the refusal reaches c's radio, nobody else's, at the link-local
     * address of c's EUI-64, c's own (its NIB reads the refusal: c has no
     * global address, so nothing changes) */
    unsigned c_rx = c->ip->stats.rx_pkts, h_rx = h->ip->stats.rx_pkts;
    unsigned c_na = c->nib->stats.rx_na;
    claim_from(c, eui_of(c), g, c->radio->long_addr);
    CHECK_EQ(r->nib->stats.aro_dup, 1);
    CHECK_EQ(c->ip->stats.rx_pkts - c_rx, 1);
    CHECK_EQ(c->ip->stats.rx_drop_not_for_us, 0);
    CHECK_EQ(c->nib->stats.rx_na - c_na, 1);
    CHECK_EQ(h->ip->stats.rx_pkts, h_rx);
    /* the router kept c's link address only for that NA */
    for (unsigned i = 0; i < CONFIG_WREN_NIB_REFUSALS; i++) {
        CHECK_EQ(r->nib->refused[i].l2len, 0);
    }
    uint8_t ll_c[16];
    addr_of(ll_c, ll_prefix, 0);
    memcpy(ll_c + 8, c->radio->long_addr, 8);
    ll_c[8] ^= 0x02;
    CHECK(nc_of(r, ll_c) == NULL);
    /* an SLLAO naming the owner's link address does not send the refusal
     * there: it goes to the frame's source, the claimant */
    claim_from(c, eui_of(h), g, c->radio->long_addr);
    CHECK_EQ(r->nib->stats.aro_dup, 2);
    CHECK_EQ(c->ip->stats.rx_pkts - c_rx, 2);
    CHECK_EQ(h->ip->stats.rx_pkts, h_rx);
    /* and when the frame comes from the owner's link address too, nobody
     * gets it (an EUI-64 whose link-local address is the owner's is the
     * owner's EUI-64: the owner's registration, which moves nothing here) */
    const uint8_t forged[8] = { 0x02, 0, 0, 0, 0, 0, 0xee, 9 };
    unsigned na = r->nib->stats.tx_na;
    claim_from(h, eui_of(h), g, forged);
    CHECK_EQ(r->nib->stats.aro_dup, 3);
    CHECK_EQ(r->nib->stats.tx_na, na);
    CHECK_EQ(h->ip->stats.rx_pkts, h_rx);
    CHECK_EQ(addr_state(h, g), WREN_IPV6_ADDR_VALID);
    const struct wren_nib_neighbor *e = nc_of(r, g);
    CHECK(e != NULL && e->state == WREN_NIB_REGISTERED);
    CHECK_MEM(e->eui64, h->radio->long_addr, 8);
    CHECK(l2_is(e, eui_of(h)));
    FX_CLEAN(1000);
}

TEST(test_nib_aro__a_host_takes_only_an_aro_with_its_own_eui64)
{
    join(h);
    uint8_t g[16], ll_r[16], ll_h[16], m[64];
    node_addr(g, pfx, h);
    node_addr(ll_r, ll_prefix, r);
    node_addr(ll_h, ll_prefix, h);
    /* an NA refusing someone else's registration of the host's address,
     * delivered to the host anyway (a forged destination): not the host's */
    const uint8_t other[8] = { 0x02, 0, 0, 0, 0, 0, 0xee, 7 };
    memset(m, 0, 24);
    m[0] = ICMPV6_ND_NA;
    m[4] = ICMPV6_NA_S | ICMPV6_NA_R;
    memcpy(m + 8, g, 16);
    struct icmpv6_aro aro = { .status = ICMPV6_ARO_DUPLICATE, .lifetime = 15, .rovr = other,
                              .rovr_len = 8 };
    size_t n = 24 + (size_t)wren_icmpv6_opt_aro_emit(&aro, m + 24, 40);
    nd_inject(h, eui_of(r), ll_r, ll_h, m, n, 255);
    CHECK_EQ(h->nib->stats.rx_na, 2);
    CHECK_EQ(h->nib->stats.reg_failed, 0);
    CHECK_EQ(addr_state(h, g), WREN_IPV6_ADDR_VALID);
    /* with its own EUI-64 it is its registration's answer */
    aro.rovr = h->radio->long_addr;
    n = 24 + (size_t)wren_icmpv6_opt_aro_emit(&aro, m + 24, 40);
    nd_inject(h, eui_of(r), ll_r, ll_h, m, n, 255);
    CHECK_EQ(h->nib->stats.reg_failed, 1);
    CHECK_EQ(addr_state(h, g), WREN_IPV6_ADDR_UNUSED);
    FX_CLEAN(1000);
}

TEST(test_nib_aro__cache_full_is_refused_registered_entries_survive)
{
    join(h);
    uint8_t g[16];
    node_addr(g, pfx, h);
    /* the cache holds the host's link-local (STALE, from its RS) and its
     * registration: fill it with registrations of other owners */
    unsigned ok = r->nib->stats.aro_ok;
    for (uint8_t i = 0; i < CONFIG_WREN_NIB_NEIGHBORS + 3; i++) {
        uint8_t a[16];
        addr_of(a, pfx, (uint16_t)(0x100 + i));
        register_as(sh((uint16_t)(0x100 + i)), a, (uint8_t)(0x10 + i), 15);
    }
    /* registrations may take the slot of the solicitation-learned entry,
     * never another registration */
    CHECK_EQ(nc_count(r, 0), CONFIG_WREN_NIB_NEIGHBORS);
    CHECK_EQ(nc_count(r, WREN_NIB_REGISTERED), CONFIG_WREN_NIB_NEIGHBORS);
    CHECK_EQ(r->nib->stats.aro_ok - ok, CONFIG_WREN_NIB_NEIGHBORS - 1);
    CHECK_EQ(r->nib->stats.aro_full, 4);
    CHECK_EQ(r->nib->stats.nc_replaced, 1);
    CHECK_EQ(r->nib->stats.nc_full, 4);
    const struct wren_nib_neighbor *e = nc_of(r, g);
    CHECK(e != NULL && e->state == WREN_NIB_REGISTERED);
    /* the refused got no entry */
    uint8_t a[16];
    addr_of(a, pfx, 0x100 + CONFIG_WREN_NIB_NEIGHBORS);
    CHECK(nc_of(r, a) == NULL);
    /* a registration with lifetime 0 removes one (RFC 6775 5.5.3): room again */
    addr_of(a, pfx, 0x100);
    register_as(sh(0x100), a, 0x10, 0);
    addr_of(a, pfx, 0x1ff);
    register_as(sh(0x1ff), a, 0x40, 15);
    e = nc_of(r, a);
    CHECK(e != NULL && e->state == WREN_NIB_REGISTERED);
    FX_CLEAN(1000);
}

/* ---- the neighbor cache against unsolicited traffic -------------------------- */

TEST(test_nib_nc__solicitations_fill_a_bounded_cache_lru_first)
{
    join(h);
    uint8_t g[16];
    node_addr(g, pfx, h);
    /* NSs for the router's link-local address from 20 neighbours, one a
     * second: each leaves a STALE entry (from its SLLAO) and gets an NA; the
     * cache stays at its bound and the least recently used go first, never
     * the registration */
    uint8_t gr[16], m[96];
    node_addr(gr, ll_prefix, r);
    for (uint16_t i = 0; i < 20; i++) {
        uint8_t src[16];
        addr_of(src, pfx, (uint16_t)(0x200 + i));
        size_t n = ns_msg(m, gr, sh((uint16_t)(0x200 + i)), NULL, 0);
        nd_inject(r, sh((uint16_t)(0x200 + i)), src, gr, m, n, 255);
        fx_run_us(1000000);
        CHECK(nc_count(r, 0) <= CONFIG_WREN_NIB_NEIGHBORS);
    }
    CHECK_EQ(nc_count(r, 0), CONFIG_WREN_NIB_NEIGHBORS);
    CHECK_EQ(nc_count(r, WREN_NIB_REGISTERED), 1);
    CHECK(nc_of(r, g) != NULL);
    /* the newest seven solicitors are there, the older ones replaced */
    for (uint16_t i = 0; i < 20; i++) {
        uint8_t src[16];
        addr_of(src, pfx, (uint16_t)(0x200 + i));
        CHECK_EQ(nc_of(r, src) != NULL, i >= 20 - (CONFIG_WREN_NIB_NEIGHBORS - 1));
    }
    CHECK_EQ(r->nib->stats.nc_full, 0);
    CHECK_EQ(r->nib->stats.tx_na, 1 + 20); /* the registration's, then one per NS */
    /* a used entry is not the least recently used */
    uint8_t keep[16], q[16];
    addr_of(keep, pfx, 0x200 + 13);
    memcpy(q, keep, 16);
    CHECK_EQ(wren_netapi_get(&r->node, &r->nib->module, WREN_NETOPT_NIB_L2, r->if_id, q, 16), 2);
    fx_run_us(1000000);
    uint8_t src[16];
    addr_of(src, pfx, 0x300);
    size_t n = ns_msg(m, gr, sh(0x300), NULL, 0);
    nd_inject(r, sh(0x300), src, gr, m, n, 255);
    CHECK(nc_of(r, keep) != NULL);
    addr_of(src, pfx, 0x200 + 14); /* the oldest unused went */
    CHECK(nc_of(r, src) == NULL);
    FX_CLEAN(1000);
}

TEST(test_nib_ns__solicitation_for_an_own_address_is_answered)
{
    join(h);
    uint8_t m[96], ll_r[16], gr[16], g[16];
    node_addr(ll_r, ll_prefix, r);
    node_addr(gr, pfx, r);
    node_addr(g, pfx, h);
    /* neighbour unreachability detection: unicast NSs for the router's
     * link-local address and for its global one, from the host's */
    size_t n = ns_msg(m, ll_r, eui_of(h), NULL, 0);
    nd_inject(r, eui_of(h), g, ll_r, m, n, 255);
    CHECK_EQ(r->nib->stats.rx_ns, 2); /* the registration, this one */
    unsigned na = r->nib->stats.tx_na;
    CHECK_EQ(na, 2);
    n = ns_msg(m, gr, eui_of(h), NULL, 0);
    nd_inject(r, eui_of(h), g, gr, m, n, 255);
    CHECK_EQ(r->nib->stats.rx_ns, 3);
    unsigned na_global = r->nib->stats.tx_na - na;
    /* an NS for someone else's address is not answered */
    uint8_t other[16];
    addr_of(other, pfx, 0x55);
    n = ns_msg(m, other, eui_of(h), NULL, 0);
    nd_inject(r, eui_of(h), g, gr, m, n, 255);
    CHECK_EQ(r->nib->stats.tx_na, na + na_global);
    /* RFC 4861 7.2.3: any address of the interface, not only the
     * link-local one */
    CHECK_EQ(na_global, 1);
    FX_CLEAN(1000);
}

TEST(test_nib_ns__no_answer_for_a_tentative_address)
{
    join(h);
    uint8_t g[16], t[16], ll_h[16], src[16], m[96];
    node_addr(g, pfx, h);
    node_addr(ll_h, ll_prefix, h);
    addr_of(src, ll_prefix, 0x77);
    /* a second global address, tentative (not registered yet) */
    const uint8_t pfx2[8] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 2 };
    node_addr(t, pfx2, h);
    struct wren_ipv6_addr a = { .prefix_len = 64, .state = WREN_IPV6_ADDR_TENTATIVE };
    memcpy(a.addr, t, 16);
    CHECK_EQ(wren_netapi_set(&h->node, &h->ip->module, WREN_NETOPT_IPV6_ADDR, h->if_id, &a,
                             sizeof(a)),
             0);
    /* RFC 4862 5.4.3: no NA for it; the valid ones are answered */
    unsigned na = h->nib->stats.tx_na;
    size_t n = ns_msg(m, t, sh(0x77), NULL, 0);
    nd_inject(h, sh(0x77), src, ll_h, m, n, 255);
    CHECK_EQ(h->nib->stats.tx_na, na);
    n = ns_msg(m, g, sh(0x77), NULL, 0);
    nd_inject(h, sh(0x77), src, ll_h, m, n, 255);
    CHECK_EQ(h->nib->stats.tx_na, na + 1);
    n = ns_msg(m, ll_h, sh(0x77), NULL, 0);
    nd_inject(h, sh(0x77), src, ll_h, m, n, 255);
    CHECK_EQ(h->nib->stats.tx_na, na + 2);
    CHECK_EQ(h->nib->stats.rx_ns, 3);
    FX_CLEAN(1000);
}

TEST(test_nib_na__unsolicited_advertisements_create_nothing)
{
    join(h);
    uint8_t m[64], ll_all[16] = { 0xff, 0x02, [15] = 1 };
    unsigned before = nc_count(r, 0);
    for (uint16_t i = 0; i < 20; i++) {
        /* NA for an address nobody asked about, with its link address */
        uint8_t t[16];
        addr_of(t, pfx, (uint16_t)(0x400 + i));
        memset(m, 0, 24);
        m[0] = ICMPV6_ND_NA;
        m[4] = ICMPV6_NA_O;
        memcpy(m + 8, t, 16);
        uint8_t l2[2];
        put_be16(l2, (uint16_t)(0x400 + i));
        size_t n = 24 + (size_t)wren_icmpv6_opt_lladdr_emit(ICMPV6_OPT_TLLAO, l2, 2, m + 24, 40);
        nd_inject(r, sh((uint16_t)(0x400 + i)), t, ll_all, m, n, 255);
    }
    CHECK_EQ(r->nib->stats.rx_na, 20);
    CHECK_EQ(nc_count(r, 0), before);
    CHECK_EQ(r->nib->stats.nc_replaced, 0);
    FX_CLEAN(1000);
}

TEST(test_nib_nc__registered_entry_keeps_its_link_address_against_spoofed_nd)
{
    join(h);
    uint8_t g[16], gr[16], m[96];
    node_addr(g, pfx, h);
    node_addr(gr, pfx, r);
    /* an NS without ARO from the host's registered address, with another
     * link address (0x66), and an NA for it with that link address */
    size_t n = ns_msg(m, gr, sh(0x66), NULL, 0);
    nd_inject(r, sh(0x66), g, gr, m, n, 255);
    const struct wren_nib_neighbor *e = nc_of(r, g);
    CHECK(e != NULL && e->state == WREN_NIB_REGISTERED);
    bool after_ns = l2_is(e, eui_of(h));
    memset(m, 0, 24);
    m[0] = ICMPV6_ND_NA;
    m[4] = ICMPV6_NA_O | ICMPV6_NA_S;
    memcpy(m + 8, g, 16);
    uint8_t l2[2] = { 0x00, 0x66 };
    n = 24 + (size_t)wren_icmpv6_opt_lladdr_emit(ICMPV6_OPT_TLLAO, l2, 2, m + 24, 40);
    nd_inject(r, sh(0x66), g, gr, m, n, 255);
    e = nc_of(r, g);
    CHECK(e != NULL && e->state == WREN_NIB_REGISTERED);
    bool after_na = l2_is(e, eui_of(h));
    /* RFC 6775 6.5.2 / RFC 8505: only the owner's registration changes a
     * registered entry */
    CHECK(after_ns);
    CHECK(after_na);
    /* nor does an RS with an SLLAO from the registered address */
    uint8_t ll_r[16], rs[16] = { ICMPV6_ND_RS };
    node_addr(ll_r, ll_prefix, r);
    n = 8 + (size_t)wren_icmpv6_opt_lladdr_emit(ICMPV6_OPT_SLLAO, l2, 2, rs + 8, 8);
    nd_inject(r, sh(0x66), g, ll_r, rs, n, 255);
    e = nc_of(r, g);
    CHECK(e != NULL && e->state == WREN_NIB_REGISTERED);
    CHECK(l2_is(e, eui_of(h)));
    /* the router's traffic for the address still goes to the owner */
    uint8_t echo[16] = { ICMPV6_ECHO_REQUEST, 0, 0, 0, 0, 1, 0, 1 };
    CHECK_EQ(wren_icmpv6_send(&r->node, NULL, g, 0, 0, echo, sizeof(echo)), 0);
    fx_run_us(100000);
    CHECK_EQ(h->icmp->stats.rx_echo_req, 1);
    /* the owner registering from another link address moves it */
    register_eui(sh(0x66), g, h->radio->long_addr, 15);
    e = nc_of(r, g);
    CHECK(e != NULL && e->state == WREN_NIB_REGISTERED);
    CHECK_EQ(get_be16(e->l2), 0x66);
    FX_CLEAN(1000);
}

TEST(test_nib_nd__invalid_messages_are_counted_not_used)
{
    uint8_t ll_r[16], ll_x[16], m[96];
    node_addr(ll_r, ll_prefix, r);
    addr_of(ll_x, ll_prefix, 0x77);
    /* RFC 4861 7.1.1: hop limit below 255 (forwarded), code not 0 */
    size_t n = ns_msg(m, ll_r, sh(0x77), NULL, 0);
    nd_inject(r, sh(0x77), ll_x, ll_r, m, n, 64);
    n = ns_msg(m, ll_r, sh(0x77), NULL, 0);
    m[1] = 1;
    nd_inject(r, sh(0x77), ll_x, ll_r, m, n, 255);
    /* a multicast target */
    uint8_t mc[16] = { 0xff, 0x02, [15] = 1 };
    n = ns_msg(m, mc, sh(0x77), NULL, 0);
    nd_inject(r, sh(0x77), ll_x, ll_r, m, n, 255);
    /* an option of length 0 */
    n = ns_msg(m, ll_r, sh(0x77), NULL, 0);
    m[25] = 0;
    nd_inject(r, sh(0x77), ll_x, ll_r, m, n, 255);
    CHECK_EQ(r->nib->stats.rx_invalid, 4);
    CHECK_EQ(r->nib->stats.rx_ns, 0);
    CHECK_EQ(r->nib->stats.tx_na, 0);
    CHECK(nc_of(r, ll_x) == NULL);
    /* an RA from a global address is no RA (RFC 4861 6.1.2) */
    uint8_t ra[16] = { ICMPV6_ND_RA, 0, 0, 0, 64, 0, 0x07, 0x08 };
    uint8_t gx[16];
    addr_of(gx, pfx, 0x77);
    uint8_t ll_h[16];
    node_addr(ll_h, ll_prefix, h);
    nd_inject(h, sh(0x77), gx, ll_h, ra, sizeof(ra), 255);
    CHECK_EQ(h->nib->stats.rx_invalid, 1);
    CHECK_EQ(h->nib->stats.rx_ra, 0);
    FX_CLEAN(1000);
}

/* an SLLAO/TLLAO of one unit holding a 6-byte MAC (as lwIP 2.1.3 sends it
 * on 802.15.4): not a short address followed by zero padding */
static size_t put_mac_lladdr(uint8_t *b, uint8_t type)
{
    const uint8_t o[8] = { type, 1, 0xaa, 0xbb, 0x11, 0x22, 0x33, 0x44 };
    memcpy(b, o, sizeof(o));
    return sizeof(o);
}

TEST(test_nib_lladdr__nonzero_padding_is_refused_the_frame_source_taken)
{
    /* found from outside (lwIP as a host): RFC 4944 8 pads a short address
     * with zeros; anything else in a one-unit option is refused, counted,
     * and the frame's link source stands in (the option used to be read as
     * the short address 0xaabb) */
    uint8_t ll_r[16], ll_x[16], gx[16], m[96];
    node_addr(ll_r, ll_prefix, r);
    addr_of(ll_x, ll_prefix, 0x42);
    addr_of(gx, pfx, 0x42);
    uint8_t ll_all_routers[16] = { 0xff, 0x02, [15] = 2 };
    /* RS */
    memset(m, 0, 8);
    m[0] = ICMPV6_ND_RS;
    size_t n = 8 + put_mac_lladdr(m + 8, ICMPV6_OPT_SLLAO);
    nd_inject(r, sh(0x42), ll_x, ll_all_routers, m, n, 255);
    CHECK_NIB(r, .rx_rs = 1, .rx_bad_lladdr = 1, .tx_ra = 1);
    const struct wren_nib_neighbor *e = nc_of(r, ll_x);
    CHECK(e != NULL && e->state == WREN_NIB_STALE);
    CHECK_EQ(e->l2len, 2);
    CHECK_EQ(get_be16(e->l2), 0x42);
    /* a registration (NS + ARO): taken, at the frame's source */
    const uint8_t eui[8] = { 0x02, 0, 0, 0, 0, 0, 0xee, 0x42 };
    memset(m, 0, 24);
    m[0] = ICMPV6_ND_NS;
    memcpy(m + 8, gx, 16);
    n = 24 + put_mac_lladdr(m + 24, ICMPV6_OPT_SLLAO);
    struct icmpv6_aro aro = { .lifetime = 10, .rovr = eui, .rovr_len = 8 };
    n += (size_t)wren_icmpv6_opt_aro_emit(&aro, m + n, 64);
    nd_inject(r, sh(0x42), gx, ll_r, m, n, 255);
    CHECK_NIB(r, .rx_rs = 1, .rx_ns = 1, .rx_bad_lladdr = 2, .tx_ra = 1, .tx_na = 1,
              .aro_ok = 1);
    e = nc_of(r, gx);
    CHECK(e != NULL && e->state == WREN_NIB_REGISTERED);
    CHECK_EQ(e->l2len, 2);
    CHECK_EQ(get_be16(e->l2), 0x42);
    /* a TLLAO the same: the (unregistered) entry takes the frame's source */
    memset(m, 0, 24);
    m[0] = ICMPV6_ND_NA;
    m[4] = ICMPV6_NA_S | ICMPV6_NA_O;
    memcpy(m + 8, ll_x, 16);
    n = 24 + put_mac_lladdr(m + 24, ICMPV6_OPT_TLLAO);
    nd_inject(r, sh(0x43), ll_x, ll_r, m, n, 255);
    CHECK_EQ(r->nib->stats.rx_na, 1);
    CHECK_EQ(r->nib->stats.rx_bad_lladdr, 3);
    e = nc_of(r, ll_x);
    CHECK(e != NULL && e->l2len == 2 && get_be16(e->l2) == 0x43);
    /* zero padding is a short address, as before */
    n = ns_msg(m, ll_r, sh(0x44), NULL, 0);
    nd_inject(r, sh(0x45), ll_x, ll_r, m, n, 255);
    CHECK_EQ(r->nib->stats.rx_bad_lladdr, 3);
    e = nc_of(r, ll_x);
    CHECK(e != NULL && get_be16(e->l2) == 0x44);
    CHECK_EQ(r->nib->stats.rx_invalid, 0);
    FX_CLEAN(1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST_SETUP(test_nib_rs__solicited_router_answers_with_a_unicast_ra, setup),
        FX_TEST_SETUP(test_nib_rs__solicitations_repeat_then_back_off_to_60_s, setup),
        FX_TEST_SETUP(test_nib_slaac__address_from_the_pio_registered_then_valid, setup),
        FX_TEST_SETUP(test_nib_aro__duplicate_registration_is_refused, setup),
        FX_TEST_SETUP(test_nib_aro__the_owner_keeps_its_address_when_another_claims_it, setup),
        FX_TEST_SETUP(test_nib_aro__the_refusal_goes_to_the_claimant, setup),
        FX_TEST_SETUP(test_nib_aro__a_host_takes_only_an_aro_with_its_own_eui64, setup),
        FX_TEST_SETUP(test_nib_aro__cache_full_is_refused_registered_entries_survive, setup),
        FX_TEST_SETUP(test_nib_nc__solicitations_fill_a_bounded_cache_lru_first, setup),
        FX_TEST_SETUP(test_nib_ns__solicitation_for_an_own_address_is_answered, setup),
        FX_TEST_SETUP(test_nib_ns__no_answer_for_a_tentative_address, setup),
        FX_TEST_SETUP(test_nib_na__unsolicited_advertisements_create_nothing, setup),
        FX_TEST_SETUP(test_nib_nc__registered_entry_keeps_its_link_address_against_spoofed_nd,
                      setup),
        FX_TEST_SETUP(test_nib_nd__invalid_messages_are_counted_not_used, setup),
        FX_TEST_SETUP(test_nib_lladdr__nonzero_padding_is_refused_the_frame_source_taken, setup),
    };
    return cmocka_run_group_tests_name("nib", tests, NULL, NULL);
}
