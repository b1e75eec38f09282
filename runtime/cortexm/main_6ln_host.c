/* Cortex-M3 image: a 6LoWPAN host (6LN) with the feature set of RIOT's
 * GNRC 6LN the size report compares it with — IPv6, 6LoWPAN (IPHC, 16
 * contexts, fragmentation, 4 reassembly buffers), ICMPv6 echo and
 * 6LoWPAN-ND as a host (RS/RA, SLAAC, address registration) — on a radio
 * that does CSMA-CA and ACKs itself (wren_6ln_host) or with wren's software
 * MAC (wren_6ln_host_softmac).
 *
 * The image proves that every feature it is charged for works: its radio
 * is one end of a loopback pair whose other end is played here by a router
 * (short address 0x0002). The host solicits; the router answers with an RA
 * carrying an SLLAO, a PIO, a 6CO (context 3) and an ABRO; the host forms
 * its address, registers it (NS with ARO), the router accepts (NA with
 * ARO, compressed with context 3); then a remote node's two echo requests
 * arrive as interleaved fragments (two reassemblies at once) and the host
 * answers each, fragmented and compressed with the context. Every frame the
 * host sends is decoded here with the stack's own parsers (which the host
 * links anyway: nothing is linked for this test alone) and checked; any
 * step that fails makes the image exit non-zero.
 *
 * It also measures the deepest call stack of the node: before each run of
 * the node the stack below the caller is painted, and afterwards searched
 * for the lowest word written; the deepest of the runs is printed (the size
 * report reads it from that line). What is measured is the node's runtime
 * loop and everything it calls: the stack's handlers, the device driver and
 * the few words of this image's receive callback (air_event). */
#include <stdio.h>
#include <string.h>

#include "core/byteorder.h"
#include "instance.h"
#include "nib/nib.h"
#include "wire/icmpv6.h"
#include "wire/icmpv6_types.h"
#include "wire/ieee802154.h"
#include "wire/inet_csum.h"
#include "wire/ipv6.h"
#include "wire/sixlowpan.h"

#define ROUTER 0x0002      /* the router's short address */
#define CID 3              /* the context the router hands out */
#define PAYLOAD 300        /* echo data: 348-byte datagrams, 4 fragments each */
#define PAINT 0x5eedc0deu
#define PAINT_BYTES 6144u  /* painted below the caller of each run */

/* ---- the router's end of the radio: every frame the host sends ---------- */

static struct wren_loopback air;
#define MAX_TX 16
static uint8_t tx[MAX_TX][CONFIG_WREN_LOOPBACK_MTU];
static uint16_t tx_len[MAX_TX];
static unsigned n_tx, tx_lost;

static void air_event(struct wren_netdev *dev, enum wren_netdev_event ev)
{
    static uint8_t scratch[CONFIG_WREN_LOOPBACK_MTU];
    if (ev != WREN_NETDEV_EV_ISR) {
        return;
    }
    uint8_t *b = n_tx < MAX_TX ? tx[n_tx] : scratch;
    int n = dev->driver->recv(dev, b, CONFIG_WREN_LOOPBACK_MTU, NULL);
    if (n > 0 && n_tx < MAX_TX) {
        tx_len[n_tx++] = (uint16_t)n;
    } else if (n > 0) {
        tx_lost++;
    }
}

/* ---- what the router knows ---------------------------------------------- */

static struct sixlowpan_ctx ctxs[SIXLOWPAN_CTX_COUNT]; /* the router's, CID 3 */
static const uint8_t prefix[8] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0 };
static const uint8_t router_ll[16] = { 0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = ROUTER };
static const uint8_t router_global[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, [15] = 0x01 };
static const uint8_t remote[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 2, [15] = 0x99 };
static uint8_t host_ll[16], host_global[16], host_l2[8], host_eui64[8];
static uint8_t host_l2_mode;

static int fail(const char *what)
{
    printf("wren cortex-m3 6ln_host: FAILED: %s\n", what);
    return 1;
}

static uint16_t csum(const uint8_t *src, const uint8_t *dst, const uint8_t *m, size_t len)
{
    struct inet_csum c;
    wren_inet_csum_init(&c);
    wren_inet_csum_pseudo(&c, src, dst, (uint32_t)len, IPV6_NH_ICMPV6);
    wren_inet_csum_update(&c, m, len);
    return wren_inet_csum_final(&c);
}

/* ---- frames to the host ---------------------------------------------------- */

/* MAC header from the router to the host's link address */
static size_t mhr(uint8_t *f)
{
    struct ieee802154_hdr h;
    memset(&h, 0, sizeof(h));
    h.type = IEEE802154_TYPE_DATA;
    h.version = IEEE802154_VERSION_2006;
    h.dst_mode = host_l2_mode;
    h.src_mode = IEEE802154_ADDR_SHORT;
    h.panid_comp = true;
    h.dst_pan = h.src_pan = 0x0023;
    memcpy(h.dst_addr, host_l2, 8);
    put_be16(h.src_addr, ROUTER);
    return (size_t)wren_ieee802154_hdr_emit(&h, f, 32);
}

/* IPHC of @p ip (compressed with the router's contexts once it gave them) */
static size_t iphc(const struct ipv6_hdr *ip, uint8_t *out)
{
    uint8_t r2[2];
    put_be16(r2, ROUTER);
    struct sixlowpan_l2 l2 = { .src = r2, .src_len = 2, .dst = host_l2,
                               .dst_len = (uint8_t)wren_ieee802154_addr_len(host_l2_mode) };
    return (size_t)wren_sixlowpan_iphc_emit(ip, NULL, &l2, ctxs, out, SIXLOWPAN_IPHC_MAX_LEN);
}

/* Run the node for 1 ms of virtual time (it never needs more to answer),
 * after a router solicitation if @p solicit; measure its stack. */
static uint32_t deepest;
static void run_node(bool solicit)
{
    uint32_t *sp;
    __asm volatile("mov %0, sp" : "=r"(sp));
    uint32_t *bottom = sp - PAINT_BYTES / 4;
    for (uint32_t *p = bottom; p < sp - 8; p++) {
        *p = PAINT;
    }
    if (solicit) {
        wren_nib_solicit(&wren_inst_nib);
    }
    wren_rt_cortexm_run_until(&wren_inst_rt, wren_inst_rt.now + 1000);
    const uint32_t *p = bottom;
    while (p < sp && *p == PAINT) {
        p++;
    }
    uint32_t depth = (uint32_t)((const uint8_t *)sp - (const uint8_t *)p);
    deepest = depth > deepest ? depth : deepest;
}

/* Hand the host a frame and let it answer. */
static int deliver(const uint8_t *f, size_t n)
{
    if (wren_loopback_inject(&wren_inst_dev, f, n) < 0) {
        return -1;
    }
    run_node(false);
    return 0;
}

/* An ND message @p m (checksum filled here) from @p src to @p dst, hop limit 255. */
static int send_nd(const uint8_t *src, const uint8_t *dst, uint8_t *m, size_t len)
{
    struct ipv6_hdr ip = { .payload_len = (uint16_t)len, .next = IPV6_NH_ICMPV6, .hop_limit = 255 };
    memcpy(ip.src, src, 16);
    memcpy(ip.dst, dst, 16);
    put_be16(m + 2, csum(src, dst, m, len));
    uint8_t f[CONFIG_WREN_LOOPBACK_MTU];
    size_t h = mhr(f);
    h += iphc(&ip, f + h);
    if (h + len > sizeof(f)) {
        return -1;
    }
    memcpy(f + h, m, len);
    return deliver(f, h + len);
}

/* ---- frames from the host ---------------------------------------------------- */

struct rx {
    struct ieee802154_hdr mh;
    struct ipv6_hdr ip;       /* whole frames and FRAG1 */
    struct sixlowpan_frag frag;
    bool fragment;
    uint8_t sci;              /* IPHC: the source's context, 0xff: none */
    const uint8_t *pl;        /* after the IPv6 header (or the FRAGN header) */
    size_t pl_len;
};

static int decode(unsigned i, struct rx *r)
{
    struct ieee802154_frame f;
    memset(r, 0, sizeof(*r));
    if (i >= n_tx || wren_ieee802154_parse(tx[i], tx_len[i], &f) < 0 || f.payload_len == 0) {
        return -1;
    }
    r->mh = f.hdr;
    const uint8_t *p = f.payload;
    size_t n = f.payload_len;
    enum wren_sixlowpan_dispatch d = wren_sixlowpan_dispatch(p[0]);
    if (d == SIXLOWPAN_DISPATCH_FRAG1 || d == SIXLOWPAN_DISPATCH_FRAGN) {
        int k = wren_sixlowpan_frag_parse(p, n, &r->frag);
        if (k < 0) {
            return -1;
        }
        r->fragment = true;
        p += k;
        n -= (size_t)k;
        if (d == SIXLOWPAN_DISPATCH_FRAGN) {
            r->pl = p;
            r->pl_len = n;
            return 0;
        }
    }
    struct sixlowpan_l2 l2 = { .src = f.hdr.src_addr,
                               .src_len = (uint8_t)wren_ieee802154_addr_len(f.hdr.src_mode),
                               .dst = f.hdr.dst_addr,
                               .dst_len = (uint8_t)wren_ieee802154_addr_len(f.hdr.dst_mode) };
    struct sixlowpan_iphc h;
    if (wren_sixlowpan_dispatch(p[0]) != SIXLOWPAN_DISPATCH_IPHC ||
        wren_sixlowpan_iphc_parse(p, n, &l2, ctxs, &h) < 0 || h.udp) {
        return -1;
    }
    r->ip = h.ip;
    /* RFC 6282 3.1.1: CID=1 adds a byte (SCI | DCI), SAC=1 uses it */
    r->sci = (p[1] & 0x40) && (p[1] & 0x30) ? (p[1] & 0x80 ? p[2] >> 4 : 0) : 0xff;
    r->pl = p + h.hdr_len;
    r->pl_len = n - h.hdr_len;
    return 0;
}

/* The option of @p type in ND message @p m of @p len bytes after @p fixed bytes. */
static const uint8_t *nd_opt(const uint8_t *m, size_t len, size_t fixed, uint8_t type)
{
    for (size_t o = fixed; o + 2 <= len && m[o + 1]; o += 8u * m[o + 1]) {
        if (m[o] == type && o + 8u * m[o + 1] <= len) {
            return m + o;
        }
    }
    return NULL;
}

/* The host's ICMPv6 message in frame @p i, whole frames only. */
static const uint8_t *icmp_of(unsigned i, struct rx *r, uint8_t type)
{
    if (decode(i, r) < 0 || r->fragment || r->ip.next != IPV6_NH_ICMPV6 || r->pl_len < 8 ||
        r->pl[0] != type || csum(r->ip.src, r->ip.dst, r->pl, r->pl_len) != 0) {
        return NULL;
    }
    return r->pl;
}

/* ---- the exchange ------------------------------------------------------------- */

/* RS: the host's addresses, from the frame and the SLLAO */
static int expect_rs(unsigned i)
{
    struct rx r;
    const uint8_t *m = icmp_of(i, &r, ICMPV6_ND_RS);
    static const uint8_t all_routers[16] = { 0xff, 0x02, [15] = 2 };
    if (m == NULL || r.ip.hop_limit != 255 || memcmp(r.ip.dst, all_routers, 16) != 0 ||
        !wren_ipv6_addr_is_link_local(r.ip.src) || nd_opt(m, r.pl_len, 8, ICMPV6_OPT_SLLAO) == NULL) {
        return -1;
    }
    memcpy(host_ll, r.ip.src, 16);
    host_l2_mode = r.mh.src_mode;
    memcpy(host_l2, r.mh.src_addr, 8);
    return 0;
}

/* RA: SLLAO, PIO (A, /64), 6CO (C, CID 3, /64), ABRO (RFC 6775 4.3) */
static int send_ra(void)
{
    uint8_t m[16 + 8 + 32 + 16 + 24] = { ICMPV6_ND_RA, 0, 0, 0, 64, 0 };
    put_be16(m + 6, 1800);                 /* router lifetime, s */
    uint8_t *o = m + 16;
    o[0] = ICMPV6_OPT_SLLAO;
    o[1] = 1;
    put_be16(o + 2, ROUTER);
    o += 8;
    o[0] = ICMPV6_OPT_PIO;
    o[1] = 4;
    o[2] = 64;
    o[3] = ICMPV6_PIO_A;
    put_be32(o + 4, 86400);
    put_be32(o + 8, 14400);
    memcpy(o + 16, prefix, 8);
    o += 32;
    o[0] = ICMPV6_OPT_6CO;
    o[1] = 2;
    o[2] = 64;
    o[3] = ICMPV6_6CO_C | CID;
    put_be16(o + 6, 60);                   /* minutes */
    memcpy(o + 8, prefix, 8);
    o += 16;
    o[0] = ICMPV6_OPT_ABRO;
    o[1] = 3;
    put_be16(o + 2, 1);                    /* version low */
    put_be16(o + 6, 0);                    /* lifetime: default */
    memcpy(o + 8, router_global, 16);
    return send_nd(router_ll, host_ll, m, sizeof(m));
}

/* NS registering the host's global address with its EUI-64 */
static int expect_ns_aro(unsigned i)
{
    struct rx r;
    const uint8_t *m = icmp_of(i, &r, ICMPV6_ND_NS);
    if (m == NULL || r.pl_len < 24 || r.ip.hop_limit != 255 || memcmp(r.ip.dst, router_ll, 16) != 0 ||
        memcmp(m + 8, prefix, 8) != 0) {
        return -1;
    }
    const uint8_t *aro = nd_opt(m, r.pl_len, 24, ICMPV6_OPT_ARO);
    if (aro == NULL || aro[1] != 2 || aro[2] != 0 || get_be16(aro + 6) == 0) {
        return -1;
    }
    memcpy(host_global, m + 8, 16);
    memcpy(host_eui64, aro + 8, 8);
    return 0;
}

/* NA+ARO, status 0: registered (to the address registered, context-compressed) */
static int send_na_aro(void)
{
    uint8_t m[24 + 16] = { ICMPV6_ND_NA, 0, 0, 0, ICMPV6_NA_S };
    memcpy(m + 8, host_global, 16);
    uint8_t *o = m + 24;
    o[0] = ICMPV6_OPT_ARO;
    o[1] = 2;
    put_be16(o + 6, 15);                   /* minutes */
    memcpy(o + 8, host_eui64, 8);
    return send_nd(router_ll, host_global, m, sizeof(m));
}

/* Echo request @p seq from the remote node, as a datagram at @p dg. */
static size_t echo_request(uint8_t *dg, uint16_t seq)
{
    struct ipv6_hdr ip = { .payload_len = 8 + PAYLOAD, .next = IPV6_NH_ICMPV6, .hop_limit = 63 };
    memcpy(ip.src, remote, 16);
    memcpy(ip.dst, host_global, 16);
    wren_ipv6_hdr_emit(&ip, dg);
    uint8_t *m = dg + IPV6_HDR_LEN;
    memset(m, 0, 8);
    m[0] = ICMPV6_ECHO_REQUEST;
    put_be16(m + 4, 0x6c6e);
    put_be16(m + 6, seq);
    for (size_t i = 0; i < PAYLOAD; i++) {
        m[8 + i] = (uint8_t)(i * 7 + seq);
    }
    put_be16(m + 2, csum(remote, host_global, m, 8 + PAYLOAD));
    return IPV6_HDR_LEN + 8 + PAYLOAD;
}

#define DG_LEN (IPV6_HDR_LEN + 8 + PAYLOAD)
#define CHUNK 96 /* bytes of datagram per FRAGN */

/* Fragment @p k of datagram @p dg (tag @p tag) to the host: FRAG1 carries
 * the compressed header and the datagram up to offset 96. @return 1 if
 * there are more, 0 after the last, -1 on error. */
static int send_fragment(const uint8_t *dg, uint16_t tag, unsigned k)
{
    uint8_t f[CONFIG_WREN_LOOPBACK_MTU];
    size_t n = mhr(f);
    size_t off = k * CHUNK;
    struct sixlowpan_frag fr = { .size = DG_LEN, .tag = tag, .offset = (uint16_t)off, .first = k == 0 };
    n += (size_t)wren_sixlowpan_frag_emit(&fr, f + n, sizeof(f) - n);
    size_t from = off;
    if (k == 0) {
        struct ipv6_hdr ip;
        memset(&ip, 0, sizeof(ip));
        ip.next = dg[6];
        ip.hop_limit = dg[7];
        memcpy(ip.src, dg + 8, 16);
        memcpy(ip.dst, dg + 24, 16);
        n += iphc(&ip, f + n);
        from = IPV6_HDR_LEN;
    }
    size_t to = off + CHUNK < DG_LEN ? off + CHUNK : DG_LEN;
    if (n + (to - from) > sizeof(f)) {
        return -1;
    }
    memcpy(f + n, dg + from, to - from);
    if (deliver(f, n + to - from) < 0) {
        return -1;
    }
    return to < DG_LEN;
}

/* The host's fragmented echo replies, reassembled here and checked. */
static int expect_replies(unsigned first, unsigned *frags)
{
    static uint8_t dg[2][DG_LEN];
    uint16_t tags[2] = { 0 }, got[2] = { 0 };
    unsigned ndg = 0;
    *frags = 0;
    for (unsigned i = first; i < n_tx; i++) {
        struct rx r;
        if (decode(i, &r) < 0 || !r.fragment || r.frag.size != DG_LEN) {
            return -1;
        }
        unsigned d = 0;
        while (d < ndg && tags[d] != r.frag.tag) {
            d++;
        }
        if (d == ndg) {
            if (ndg == 2) {
                return -1;
            }
            tags[ndg++] = r.frag.tag;
        }
        size_t at = r.frag.offset;
        if (r.frag.first) {
            /* the source compressed with the context the router gave */
            if (r.sci != CID || r.ip.next != IPV6_NH_ICMPV6 || memcmp(r.ip.src, host_global, 16) != 0 ||
                memcmp(r.ip.dst, remote, 16) != 0) {
                return -1;
            }
            r.ip.payload_len = DG_LEN - IPV6_HDR_LEN;
            wren_ipv6_hdr_emit(&r.ip, dg[d]);
            at = IPV6_HDR_LEN;
        }
        if (at + r.pl_len > DG_LEN) {
            return -1;
        }
        memcpy(dg[d] + at, r.pl, r.pl_len);
        got[d] = (uint16_t)(got[d] + r.pl_len + (r.frag.first ? IPV6_HDR_LEN : 0));
        (*frags)++;
    }
    if (ndg != 2) {
        return -1;
    }
    for (unsigned d = 0; d < 2; d++) {
        const uint8_t *m = dg[d] + IPV6_HDR_LEN;
        uint8_t want[DG_LEN];
        echo_request(want, get_be16(m + 6));
        if (got[d] != DG_LEN || m[0] != ICMPV6_ECHO_REPLY ||
            csum(host_global, remote, m, 8 + PAYLOAD) != 0 ||
            memcmp(m + 4, want + IPV6_HDR_LEN + 4, 4 + PAYLOAD) != 0) {
            return -1;
        }
    }
    return 0;
}

int main(void)
{
    static const struct wren_module_ops *const mods[] = {
        &wren_sixlowpan_module, &wren_ipv6_module, &wren_icmpv6_module, &wren_nib_module,
    };
    static void *const states[] = { &wren_inst_sixlowpan, &wren_inst_ipv6, &wren_inst_icmpv6,
                                    &wren_inst_nib };
    static const struct wren_stack_iface ifs[] = { WREN_INST_IFACE };
    static const struct wren_stack_desc d = { .ifaces = ifs, .n_ifaces = 1, .mods = mods,
                                              .states = states, .n_mods = 4 };
    wren_loopback_setup(&wren_inst_dev, WREN_NETDEV_TYPE_IEEE802154, 125);
    wren_loopback_setup(&air, WREN_NETDEV_TYPE_IEEE802154, 125);
    wren_loopback_pair(&wren_inst_dev, &air);
    air.netdev.event_cb = air_event;
    if (wren_inst_init(&d) < 0) {
        return fail("assembly");
    }
    /* router discovery */
    run_node(true);
    if (n_tx != 1 || expect_rs(0) < 0) {
        return fail("no RS");
    }
    memcpy(ctxs[CID].prefix, prefix, 8);
    ctxs[CID].prefix_len = 64;
    ctxs[CID].valid = ctxs[CID].compress = true;
    if (send_ra() < 0) {
        return fail("RA not taken");
    }
    /* SLAAC and registration */
    if (n_tx != 2 || expect_ns_aro(1) < 0) {
        return fail("no NS with ARO");
    }
    if (send_na_aro() < 0 || wren_inst_nib.stats.reg_ok != 1) {
        return fail("registration");
    }
    unsigned before = n_tx;
    /* two echo requests from a remote node, in interleaved fragments */
    static uint8_t dg1[DG_LEN], dg2[DG_LEN];
    echo_request(dg1, 1);
    echo_request(dg2, 2);
    int more1 = 1, more2 = 1;
    for (unsigned k = 0; more1 > 0 || more2 > 0; k++) {
        more1 = more1 > 0 ? send_fragment(dg1, 0x101, k) : more1;
        more2 = more2 > 0 ? send_fragment(dg2, 0x102, k) : more2;
        if (more1 < 0 || more2 < 0) {
            return fail("fragment not taken");
        }
    }
    run_node(false); /* whatever is still due */
    unsigned frags = 0;
    if (expect_replies(before, &frags) < 0) {
        return fail("echo replies (fragmented, context-compressed)");
    }
    struct wren_node *node = &wren_inst_node;
    int clean = wren_pktbuf_is_empty(&node->pktbuf) && wren_pktbuf_is_sane(&node->pktbuf);
    printf("wren cortex-m3 6ln_host: RS, RA (PIO, 6CO, ABRO), NS+ARO registered %lu, "
           "echo requests %lu in %lu fragments reassembled %lu, replies %lu in %u fragments, "
           "frames lost %u, pktbuf %s\n",
           (unsigned long)wren_inst_nib.stats.reg_ok,
           (unsigned long)wren_inst_icmpv6.stats.rx_echo_req,
           (unsigned long)wren_inst_sixlowpan.stats.frag_rx,
           (unsigned long)wren_inst_sixlowpan.stats.frag_reassembled,
           (unsigned long)wren_inst_icmpv6.stats.tx_echo_reply, frags, tx_lost,
           clean ? "empty" : "NOT EMPTY");
    printf("wren cortex-m3 6ln_host: deepest call stack %lu bytes\n", (unsigned long)deepest);
    return wren_inst_icmpv6.stats.tx_echo_reply == 2 &&
                   wren_inst_sixlowpan.stats.frag_reassembled == 2 && frags >= 6 && tx_lost == 0 &&
                   deepest < PAINT_BYTES && clean
               ? 0
               : fail("counters");
}
