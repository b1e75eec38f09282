/* 6LoWPAN fragmentation and reassembly (src/sixlowpan/frag.c, RFC 4944 5.3)
 * through a node's 802.15.4 interface: fragments are injected into a sim
 * radio as whole frames (FCS checked, MAC header parsed), and what 6LoWPAN
 * hands up to (IPV6, ALL) is recorded by a sink in the IPv6 layer's place.
 * Every case checks every 6LoWPAN counter (the ones not named stay 0) and
 * ends with the node's packet buffer empty: slots freed on completion,
 * discard or timeout. The last tests send: a node fragments, another
 * reassembles, over the simulated channel. */
#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "net/netapi.h"
#include "wire/ieee802154.h"
#include "fixture.h"
#include "sock/sock_udp.h"
#include "wire/icmpv6_types.h"
#include "wire/ipv6.h"
#include "wire/sixlowpan.h"

#define TIMEOUT_US ((uint64_t)CONFIG_WREN_SIXLOWPAN_REASS_TIMEOUT_MS * 1000u)
#define SUPERSEDE_US ((uint64_t)CONFIG_WREN_SIXLOWPAN_SUPERSEDE_MS * 1000u)
/* datagram bytes per fragment: a 116-octet frame payload less FRAGN's 5 (or
 * FRAG1's 4 and the uncompressed dispatch), rounded down to 8 */
#define CHUNK 104u

static struct fx_node *n;  /* the receiver: sim radio (short address 0) and 6LoWPAN */
static struct fx_sink *up; /* in the IPv6 layer's place */
static uint8_t dg[CONFIG_WREN_SIXLOWPAN_MAX_DGRAM];
/* frames go to the node's short address (0), or to its EUI-64 when set */
static const uint8_t *to_eui;

static int setup(void **state)
{
    fx_setup(state);
    n = fx_node(FX_RADIO | FX_SIXLOWPAN);
    up = fx_sink(n, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL);
    to_eui = NULL;
    return 0;
}

/* datagram @p seed of @p size bytes in dg: an IPv6 header, then a pattern */
static void dgram(size_t size, uint8_t seed)
{
    static const uint8_t a[16] = { 0xfe, 0x80, [15] = 1 }, b[16] = { 0xfe, 0x80, [15] = 2 };
    wren_ipv6_hdr_init(dg, a, b, 59 /* no next header */);
    put_be16(dg + 4, (uint16_t)(size - IPV6_HDR_LEN));
    for (size_t i = IPV6_HDR_LEN; i < size; i++) {
        dg[i] = (uint8_t)(i * 7 + seed);
    }
}

/* A frame from short address @p src to the node carrying @p pl. */
static void frame(uint16_t src, const uint8_t *pl, size_t len)
{
    uint8_t psdu[WREN_PHY_MAX_PSDU];
    struct fx_frame f = { .src = src, .dst = 0x0000, .dst_eui = to_eui };
    fx_inject(n, psdu, fx_frame_emit(&f, pl, len, psdu));
}

/* FRAG1 (@p off 0: uncompressed dispatch and dg[0, len)) or FRAGN (dg[off,
 * off + len), offset in 8-octet units) of a datagram of @p size with @p tag,
 * from @p src. Headers are written by hand: some tests lie in them. */
static void frag(uint16_t src, uint16_t size, uint16_t tag, uint16_t off, uint16_t len)
{
    uint8_t pl[116];
    size_t h;
    if (off == 0) {
        put_be16(pl, (uint16_t)(0xc000u | (size & 0x7ffu)));
        put_be16(pl + 2, tag);
        pl[4] = SIXLOWPAN_DISPATCH_IPV6_BYTE;
        h = 5;
    } else {
        put_be16(pl, (uint16_t)(0xe000u | (size & 0x7ffu)));
        put_be16(pl + 2, tag);
        pl[4] = (uint8_t)(off / 8);
        h = 5;
    }
    CHECK(h + len <= sizeof(pl));
    memcpy(pl + h, dg + off, len);
    frame(src, pl, h + len);
}

/* the fragments of dg (@p size bytes) from offset @p from on, in order */
static void frags_from(uint16_t src, uint16_t size, uint16_t tag, unsigned from)
{
    for (unsigned off = from; off < size; off += CHUNK) {
        unsigned len = size - off < CHUNK ? size - off : CHUNK;
        frag(src, size, tag, (uint16_t)off, (uint16_t)len);
    }
}

/* the sink got @p count datagrams, the last one dg's first @p size bytes */
static void check_up(unsigned count, size_t size)
{
    CHECK_EQ(up->got, count);
    CHECK_EQ(up->len, size);
    CHECK_MEM(up->data, dg, size);
}

#define CHECK_LP(...) \
    FX_CHECK_COUNTERS(WREN_SIXLOWPAN_COUNTERS, &n->lp->stats, \
                      (&(struct wren_sixlowpan_stats){ __VA_ARGS__ }))

/* ---- reassembly ----------------------------------------------------------- */

TEST(test_reass__in_order_fragments_make_the_datagram)
{
    dgram(300, 1);
    frag(0x10, 300, 7, 0, CHUNK);
    frag(0x10, 300, 7, CHUNK, CHUNK);
    CHECK_EQ(up->got, 0); /* not before the last */
    frag(0x10, 300, 7, 2 * CHUNK, 300 - 2 * CHUNK);
    check_up(1, 300);
    CHECK_EQ(up->src_len, 2); /* with the link headers of the last frame */
    CHECK_EQ(get_be16(up->src), 0x10);
    CHECK_LP(.rx_frames = 3, .frag_rx = 3, .frag_reassembled = 1);
    /* the largest datagram, in 13 fragments */
    dgram(1280, 2);
    frags_from(0x10, 1280, 8, 0);
    check_up(2, 1280);
    CHECK_LP(.rx_frames = 16, .frag_rx = 16, .frag_reassembled = 2);
    FX_CLEAN(1000);
}

TEST(test_reass__out_of_order_fragments_make_the_datagram)
{
    dgram(500, 3);
    /* last, first, then the middle ones backwards */
    frag(0x10, 500, 9, 4 * CHUNK, 500 - 4 * CHUNK);
    frag(0x10, 500, 9, 0, CHUNK);
    frag(0x10, 500, 9, 3 * CHUNK, CHUNK);
    frag(0x10, 500, 9, 2 * CHUNK, CHUNK);
    CHECK_EQ(up->got, 0);
    frag(0x10, 500, 9, CHUNK, CHUNK);
    check_up(1, 500);
    CHECK_LP(.rx_frames = 5, .frag_rx = 5, .frag_reassembled = 1);
    FX_CLEAN(1000);
}

TEST(test_reass__duplicate_fragment_is_dropped_datagram_still_whole)
{
    dgram(300, 4);
    frag(0x10, 300, 1, 0, CHUNK);
    frag(0x10, 300, 1, CHUNK, CHUNK);
    frag(0x10, 300, 1, CHUNK, CHUNK); /* a link-layer retransmission */
    frag(0x10, 300, 1, 0, CHUNK);
    CHECK_EQ(up->got, 0);
    frag(0x10, 300, 1, 2 * CHUNK, 300 - 2 * CHUNK);
    check_up(1, 300);
    CHECK_LP(.rx_frames = 5, .frag_rx = 5, .frag_drop_dup = 2, .frag_reassembled = 1);
    /* a duplicate after delivery starts a datagram that never completes:
     * it holds a slot until the timeout, then nothing is left */
    frag(0x10, 300, 1, CHUNK, CHUNK);
    CHECK_EQ(up->got, 1);
    fx_run_us(TIMEOUT_US);
    CHECK_LP(.rx_frames = 6, .frag_rx = 6, .frag_drop_dup = 2, .frag_reassembled = 1,
             .frag_timeout = 1);
    FX_CLEAN(1000);
}

TEST(test_reass__overlap_discards_the_whole_datagram)
{
    /* RFC 4944 5.3: a fragment overlapping another without being its
     * duplicate means the datagram cannot be trusted */
    dgram(400, 5);
    frag(0x10, 400, 2, 0, CHUNK);              /* [0, 104) */
    frag(0x10, 400, 2, CHUNK, CHUNK);          /* [104, 208) */
    frag(0x10, 400, 2, CHUNK + 8, CHUNK);      /* [112, 216): overlaps */
    CHECK_LP(.rx_frames = 3, .frag_rx = 3, .frag_drop_overlap = 1);
    CHECK(fx_node_clean(n)); /* the half-built datagram is gone at once */
    /* the rest of it makes a new, incomplete datagram: nothing goes up */
    frag(0x10, 400, 2, 2 * CHUNK, CHUNK);
    frag(0x10, 400, 2, 3 * CHUNK, 400 - 3 * CHUNK);
    CHECK_EQ(up->got, 0);
    fx_run_us(TIMEOUT_US);
    CHECK_LP(.rx_frames = 5, .frag_rx = 5, .frag_drop_overlap = 1, .frag_timeout = 1);
    /* an overlap with the first fragment from the other side, too */
    frag(0x10, 400, 3, CHUNK - 8, CHUNK);      /* [96, 200) */
    frag(0x10, 400, 3, 0, CHUNK);              /* [0, 104): overlaps */
    CHECK_EQ(n->lp->stats.frag_drop_overlap, 2);
    CHECK(fx_node_clean(n));
    CHECK_EQ(up->got, 0);
    FX_CLEAN(1000);
}

TEST(test_reass__size_mismatch_drops_both)
{
    dgram(400, 6);
    frag(0x10, 400, 4, 0, CHUNK);
    frag(0x10, 408, 4, CHUNK, CHUNK); /* the same tag with another size */
    CHECK_LP(.rx_frames = 2, .frag_rx = 2, .frag_drop_size = 1);
    CHECK(fx_node_clean(n)); /* the slot is freed */
    /* larger than any datagram, or below an IPv6 header */
    frag(0x10, 1288, 5, 0, CHUNK);
    frag(0x10, 39, 6, 0, 39);
    CHECK_LP(.rx_frames = 4, .frag_rx = 4, .frag_drop_size = 2, .frag_drop_hdr = 1);
    /* a middle fragment that does not end on an 8-octet boundary */
    frag(0x10, 400, 7, CHUNK, CHUNK - 4);
    CHECK_LP(.rx_frames = 5, .frag_rx = 5, .frag_drop_size = 3, .frag_drop_hdr = 1);
    CHECK_EQ(up->got, 0);
    FX_CLEAN(1000);
}

TEST(test_reass__fragment_beyond_the_size_is_dropped_datagram_completes)
{
    dgram(300, 7);
    frag(0x10, 300, 8, 0, CHUNK);
    frag(0x10, 300, 8, 2 * CHUNK, CHUNK);  /* [208, 312): past 300 */
    frag(0x10, 300, 8, 296, 8);            /* [296, 304): past 300 */
    CHECK_LP(.rx_frames = 3, .frag_rx = 3, .frag_drop_range = 2);
    /* a FRAG1 whose own payload exceeds the size it announces */
    frag(0x10, 64, 9, 0, CHUNK);
    CHECK_EQ(n->lp->stats.frag_drop_range, 3);
    /* the datagram still completes */
    frag(0x10, 300, 8, CHUNK, CHUNK);
    frag(0x10, 300, 8, 2 * CHUNK, 300 - 2 * CHUNK);
    check_up(1, 300);
    CHECK_LP(.rx_frames = 6, .frag_rx = 6, .frag_drop_range = 3, .frag_reassembled = 1);
    FX_CLEAN(1000);
}

TEST(test_reass__truncated_fragment_headers_are_dropped)
{
    const uint8_t frag1[3] = { 0xc1, 0x2c, 0x00 }; /* FRAG1 needs 4 */
    const uint8_t fragn[4] = { 0xe1, 0x2c, 0x00, 0x01 }; /* FRAGN needs 5 */
    frame(0x10, frag1, sizeof(frag1));
    frame(0x10, fragn, sizeof(fragn));
    /* a FRAG1 with nothing after its header, and with a bad IPHC */
    const uint8_t empty[5] = { 0xc1, 0x2c, 0x00, 0x01, SIXLOWPAN_DISPATCH_IPV6_BYTE };
    const uint8_t bad_iphc[6] = { 0xc1, 0x2c, 0x00, 0x02, 0x7b, 0xff };
    frame(0x10, empty, sizeof(empty));
    frame(0x10, bad_iphc, sizeof(bad_iphc));
    CHECK_LP(.rx_frames = 4, .frag_rx = 4, .frag_drop_hdr = 2, .frag_drop_size = 1,
             .rx_drop_iphc = 1);
    CHECK_EQ(up->got, 0);
    FX_CLEAN(1000);
}

TEST(test_decompress__failed_iphc_reads_nothing_of_the_result)
{
    /* found by hostile input from outside: a frame for short address 0x0001
     * on PAN 0x23 (what wren-node --id 1 has by default), ACK requested,
     * from an EUI-64; its IPHC names context 1 without a CID byte, so it
     * does not decompress, and decompression used to read the unset
     * result's UDP flag before checking (UBSan: invalid _Bool, wren-node
     * aborted under the sanitizers) */
    static const uint8_t psdu[17] = { 0x61, 0xd8, 0x26, 0x23, 0x00, 0x01, 0x00, 0x66, 0x00,
                                      0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x7a, 0xf7 };
    uint8_t f[sizeof(psdu) + 2];
    memcpy(f, psdu, sizeof(psdu));
    put_le16(f + sizeof(psdu), wren_ieee802154_fcs(psdu, sizeof(psdu)));
    /* the node as the frame addresses it: no promiscuous mode */
    const uint8_t addr[2] = { 0x00, 0x01 };
    CHECK_EQ(wren_netapi_set(&n->node, &n->netif->module, WREN_NETOPT_ADDRESS, 0, addr, 2), 0);
    uint16_t pan = 0;
    CHECK_EQ(wren_netapi_get(&n->node, &n->netif->module, WREN_NETOPT_NID, 0, &pan, 2), 2);
    CHECK_EQ(pan, 0x23);
    fx_inject(n, f, sizeof(f));
    fx_run_us(10000);
    /* the whole receive path: MAC (acknowledged), link layer, 6LoWPAN */
    CHECK_EQ(n->nif->mac.stats.ack_tx, 1);
    CHECK_EQ(n->netif->stats.rx_frames, 1);
    CHECK_EQ(n->netif->stats.rx_drop_not_for_us, 0);
    CHECK_LP(.rx_frames = 1, .rx_drop_iphc = 1);
    CHECK_EQ(up->got, 0);
    /* and again in promiscuous mode, as a sniffer would take it */
    uint8_t on = 1;
    CHECK_EQ(wren_netapi_set(&n->node, &n->netif->module, WREN_NETOPT_PROMISCUOUS, 0, &on, 1),
             0);
    f[2] = 0x27; /* a new sequence number: not a duplicate */
    put_le16(f + sizeof(psdu), wren_ieee802154_fcs(f, sizeof(psdu)));
    fx_inject(n, f, sizeof(f));
    CHECK_LP(.rx_frames = 2, .rx_drop_iphc = 2);
    CHECK_EQ(up->got, 0);
    FX_CLEAN(1000);
}

TEST(test_reass__slots_exhausted_then_timeout_frees_them)
{
    CHECK_EQ(CONFIG_WREN_SIXLOWPAN_REASS_SLOTS, 2);
    dgram(1280, 8);
    /* three senders' first fragments, each claiming 1,280 bytes: two slots */
    uint64_t t0 = fx_now();
    frag(0x10, 1280, 1, 0, CHUNK);
    frag(0x11, 1280, 1, 0, CHUNK);
    frag(0x12, 1280, 1, 0, CHUNK);
    CHECK_LP(.rx_frames = 3, .frag_rx = 3, .frag_drop_full = 1);
    /* a fragment of a datagram in a slot is still taken */
    frag(0x11, 1280, 1, CHUNK, CHUNK);
    CHECK_EQ(n->lp->stats.frag_drop_dup + n->lp->stats.frag_drop_full, 1);
    /* the slots time out CONFIG_WREN_SIXLOWPAN_REASS_TIMEOUT_MS after their
     * first fragment, not a microsecond earlier */
    fx_run_until(t0 + TIMEOUT_US - 2);
    CHECK_EQ(n->lp->stats.frag_timeout, 0);
    fx_run_until(t0 + TIMEOUT_US + 10);
    CHECK_LP(.rx_frames = 4, .frag_rx = 4, .frag_drop_full = 1, .frag_timeout = 2);
    CHECK(fx_node_clean(n));
    /* a legitimate datagram gets through afterwards */
    dgram(300, 9);
    frags_from(0x12, 300, 2, 0);
    check_up(1, 300);
    CHECK_EQ(n->lp->stats.frag_reassembled, 1);
    FX_CLEAN(1000);
}

TEST(test_reass__same_sender_next_datagram_supersedes_an_old_one)
{
    dgram(600, 10);
    frag(0x10, 600, 1, 0, CHUNK); /* A's datagram 1 lost a fragment... */
    frag(0x11, 600, 1, 0, CHUNK); /* ...and B's is under way: no slot free */
    /* A's next datagram within CONFIG_WREN_SIXLOWPAN_SUPERSEDE_MS: a burst of
     * first fragments from one sender still meets the slot limit */
    fx_run_us(SUPERSEDE_US / 2);
    frag(0x10, 600, 2, 0, CHUNK);
    CHECK_LP(.rx_frames = 3, .frag_rx = 3, .frag_drop_full = 1);
    /* later: datagram 1 of A is given up for A's datagram 2 */
    fx_run_us(SUPERSEDE_US);
    frag(0x10, 600, 2, 0, CHUNK);
    CHECK_LP(.rx_frames = 4, .frag_rx = 4, .frag_drop_full = 1, .frag_superseded = 1);
    frags_from(0x10, 600, 2, CHUNK);
    check_up(1, 600);
    /* B's is never superseded by A's: another sender */
    fx_run_us(SUPERSEDE_US * 2);
    frag(0x10, 600, 3, 0, CHUNK); /* takes the free slot */
    frag(0x10, 600, 4, 0, CHUNK); /* at once: no slot, and B's old one is not A's */
    CHECK_EQ(n->lp->stats.frag_superseded, 1);
    CHECK_EQ(n->lp->stats.frag_drop_full, 2);
    fx_run_us(SUPERSEDE_US * 2);
    frag(0x10, 600, 5, 0, CHUNK);
    CHECK_EQ(n->lp->stats.frag_superseded, 2);
    frags_from(0x11, 600, 1, CHUNK);
    check_up(2, 600); /* B's completes */
    fx_run_us(TIMEOUT_US);
    CHECK_LP(.rx_frames = 17, .frag_rx = 17, .frag_drop_full = 2, .frag_superseded = 2,
             .frag_reassembled = 2, .frag_timeout = 1);
    FX_CLEAN(1000);
}

/* Two half datagrams hold both slots (their senders lost a fragment and
 * moved on): a third sender's datagram is refused while they are fresh and
 * takes the slot idle longest once it has been idle
 * CONFIG_WREN_SIXLOWPAN_IDLE_MS, not before; a datagram still receiving
 * fragments keeps its slot. (Seen on a router in the RPL simulation: both
 * slots held by a ping storm's half datagrams for 10 s, every echo of the
 * root refused.) */
TEST(test_reass__idle_half_datagram_is_evicted_for_a_new_one)
{
    CHECK_EQ(CONFIG_WREN_SIXLOWPAN_REASS_SLOTS, 2);
    CHECK(CONFIG_WREN_SIXLOWPAN_IDLE_MS < CONFIG_WREN_SIXLOWPAN_REASS_TIMEOUT_MS);
    const uint64_t idle_us = (uint64_t)CONFIG_WREN_SIXLOWPAN_IDLE_MS * 1000u;
    dgram(600, 11);
    frag(0x10, 600, 1, 0, CHUNK); /* A: first fragment, then nothing */
    fx_run_us(idle_us / 2);
    frag(0x11, 600, 1, 0, CHUNK); /* B: half a period later */
    frag(0x12, 600, 1, 0, CHUNK); /* C: refused, A is not idle long enough */
    CHECK_LP(.rx_frames = 3, .frag_rx = 3, .frag_drop_full = 1);
    fx_run_us(idle_us / 2 - 10); /* each frame above took 1 us */
    frag(0x12, 600, 1, 0, CHUNK); /* still a few microseconds short for A */
    CHECK_LP(.rx_frames = 4, .frag_rx = 4, .frag_drop_full = 2);
    fx_run_us(10);
    frag(0x11, 600, 1, CHUNK, CHUNK); /* B moves on: its slot is fresh again */
    frags_from(0x12, 600, 1, 0);      /* C takes A's slot (idle longest) */
    CHECK_LP(.rx_frames = 11, .frag_rx = 11, .frag_drop_full = 2, .frag_evicted = 1,
             .frag_reassembled = 1);
    check_up(1, 600);
    /* B's datagram was not touched: it completes */
    frags_from(0x11, 600, 1, 2 * CHUNK);
    check_up(2, 600);
    /* A's remaining fragments start a datagram of their own that never
     * completes; it times out, nothing leaks */
    frag(0x10, 600, 1, CHUNK, CHUNK);
    fx_run_us(TIMEOUT_US + 10);
    CHECK_LP(.rx_frames = 16, .frag_rx = 16, .frag_drop_full = 2, .frag_evicted = 1,
             .frag_reassembled = 2, .frag_timeout = 1);
    FX_CLEAN(1000);
}

/* RFC 6282 4.3.2: a UDP checksum elided by the sender is computed by the
 * receiver, over the whole reassembled datagram (a receiver with the IP
 * stack: UDP verifies it); UDP delivers such a datagram only to a socket
 * that asked for them, and drops and counts it otherwise */
static int setup_ip(void **state)
{
    fx_setup(state);
    n = fx_node(FX_RADIO | FX_SIXLOWPAN | FX_IP);
    up = NULL;
    to_eui = n->nif->long_addr; /* its IPv6 address is the EUI-64's */
    return 0;
}

TEST(test_reass__elided_udp_checksum_is_computed_over_the_datagram)
{
    static struct wren_sock_udp sock; /* static: registered past a failed CHECK */
    struct wren_sock_udp *s = &sock;
    struct wren_sock_udp_ep l = { .port = 0xf0b1 };
    CHECK_EQ(wren_sock_udp_create(&n->node, s, &l, NULL), 0);
    /* the socket asks for them, the netapi way */
    uint8_t on = 1, got = 0;
    CHECK_EQ(wren_netapi_set(&n->node, &s->module, WREN_NETOPT_UDP_CSUM_ELIDED_OK, 0, &on, 1), 0);
    CHECK_EQ(wren_netapi_get(&n->node, &s->module, WREN_NETOPT_UDP_CSUM_ELIDED_OK, 0, &got, 1), 1);
    CHECK_EQ(got, 1);
    /* 400 bytes of UDP payload: a 448-byte datagram. FRAG1, to the node's
     * EUI-64: IPHC (link-local addresses from the MAC header, the
     * destination the node's own, hop limit 255, next header compressed),
     * UDP NHC with ports inline and the checksum elided, 48 bytes of payload
     * (48 + 48 = 96 bytes of datagram); then FRAGNs of 104 */
    dgram(448, 11);
    const uint8_t hc[7] = { 0x7f, 0x33, 0xf4, 0xf0, 0xb2, 0xf0, 0xb1 };
    uint8_t pl[116];
    put_be16(pl, 0xc000u | 448);
    put_be16(pl + 2, 0x77);
    memcpy(pl + 4, hc, 7);
    memcpy(pl + 11, dg + 48, 48);
    frame(0x10, pl, 11 + 48);
    frags_from(0x10, 448, 0x77, 96);
    CHECK_EQ(n->lp->stats.frag_reassembled, 1);
    CHECK_EQ(n->udp->stats.rx, 1);
    CHECK_EQ(n->udp->stats.rx_drop_csum, 0);
    CHECK_EQ(n->udp->stats.rx_drop_csum_elided, 0);
    uint8_t buf[512];
    struct wren_sock_udp_ep from;
    CHECK_EQ(wren_sock_udp_recv(s, buf, sizeof(buf), 0, &from), 400);
    CHECK_MEM(buf, dg + 48, 400);
    CHECK_EQ(from.port, 0xf0b2);
    /* by default a socket does not take them: the same datagram again */
    on = 0;
    CHECK_EQ(wren_netapi_set(&n->node, &s->module, WREN_NETOPT_UDP_CSUM_ELIDED_OK, 0, &on, 1), 0);
    put_be16(pl + 2, 0x78);
    frame(0x10, pl, 11 + 48);
    frags_from(0x10, 448, 0x78, 96);
    CHECK_EQ(n->lp->stats.frag_reassembled, 2);
    CHECK_EQ(n->udp->stats.rx_drop_csum_elided, 1);
    CHECK_EQ(wren_sock_udp_recv(s, buf, sizeof(buf), 0, &from), -EAGAIN);
    wren_sock_udp_close(s);
    FX_CLEAN(1000);
}

/* One frame: IPHC with link-local addresses from the MAC header, UDP NHC
 * from port 0xf0b2 to @p port with the checksum elided (C bit), 6 bytes of
 * payload. */
static void elided_frame(uint16_t port, uint8_t seq)
{
    uint8_t pl[] = { 0x7f, 0x33, 0xf4, 0xf0, 0xb2, 0, 0, 'h', 'e', 'l', 'l', 'o', seq };
    put_be16(pl + 5, port);
    frame(0x10, pl, sizeof(pl));
}

TEST(test_udp__elided_checksum_is_dropped_and_counted_unless_the_socket_asks)
{
    static struct wren_sock_udp sock; /* static: registered past a failed CHECK */
    struct wren_sock_udp *s = &sock;
    struct wren_sock_udp_ep l = { .port = 0xf0b1 };
    CHECK_EQ(wren_sock_udp_create(&n->node, s, &l, NULL), 0);
    uint8_t buf[64];
    struct wren_sock_udp_ep from;
    /* default: dropped and counted, nothing queued, no ICMPv6 error */
    elided_frame(0xf0b1, 1);
    CHECK_EQ(n->lp->stats.rx_iphc, 1);
    CHECK_EQ(n->udp->stats.rx, 1);
    CHECK_EQ(n->udp->stats.rx_drop_csum_elided, 1);
    CHECK_EQ(n->udp->stats.rx_drop_csum, 0);
    CHECK_EQ(n->udp->stats.rx_drop_no_port, 0);
    CHECK_EQ(wren_sock_udp_recv(s, buf, sizeof(buf), 0, &from), -EAGAIN);
    /* a port nobody listens on: the same drop, no port unreachable */
    elided_frame(0xf0b9, 2);
    CHECK_EQ(n->udp->stats.rx_drop_csum_elided, 2);
    CHECK_EQ(n->udp->stats.rx_drop_no_port, 0);
    CHECK_EQ(n->icmp->stats.tx_errors, 0);
    /* the socket asks for them: delivered, intact */
    wren_sock_udp_accept_csum_elided(s, true);
    elided_frame(0xf0b1, 3);
    CHECK_EQ(n->udp->stats.rx_drop_csum_elided, 2);
    CHECK_EQ(wren_sock_udp_recv(s, buf, sizeof(buf), 0, &from), 6);
    CHECK_MEM(buf, "hello\x03", 6);
    CHECK_EQ(from.port, 0xf0b2);
    /* and stops taking them when told */
    wren_sock_udp_accept_csum_elided(s, false);
    elided_frame(0xf0b1, 4);
    CHECK_EQ(n->udp->stats.rx_drop_csum_elided, 3);
    CHECK_EQ(wren_sock_udp_recv(s, buf, sizeof(buf), 0, &from), -EAGAIN);
    CHECK_EQ(n->udp->stats.rx, 4);
    wren_sock_udp_close(s);
    FX_CLEAN(1000);
}

/* ---- fragmentation: one node sends, another reassembles -------------------- */

/* a node's link-local address: fe80:: and the IID of its EUI-64 */
static void ll_of(uint8_t *a, const struct fx_node *x)
{
    memset(a, 0, 16);
    a[0] = 0xfe;
    a[1] = 0x80;
    wren_ipv6_iid_from_l2(a + 8, x->nif->long_addr, 8);
}

TEST(test_frag__echo_of_every_size_crosses_the_channel)
{
    /* two IP nodes on the medium (radios 1 and 2; node 0 is the receiver
     * of the tests above, silent here) */
    struct fx_node *a = fx_node(FX_RADIO | FX_SIXLOWPAN | FX_IP);
    struct fx_node *b = fx_node(FX_RADIO | FX_SIXLOWPAN | FX_IP);
    fx_link2(a, b);
    uint8_t to_b[16];
    ll_of(to_b, b);
    static uint8_t echo[1232];
    unsigned sent = 0;
    for (size_t len = 8; len <= sizeof(echo); len += 97) {
        memset(echo, 0, 8);
        echo[0] = ICMPV6_ECHO_REQUEST;
        echo[7] = (uint8_t)sent;
        for (size_t i = 8; i < len; i++) {
            echo[i] = (uint8_t)(i + len);
        }
        CHECK_EQ(wren_icmpv6_send(&a->node, NULL, to_b, 0, a->if_id, echo, len), 0);
        fx_run_us(500000);
        sent++;
        CHECK_EQ(b->icmp->stats.rx_echo_req, sent);
        CHECK_EQ(b->icmp->stats.tx_echo_reply, sent);
    }
    /* every request and reply arrived whole (ICMPv6 checks its checksum) */
    CHECK_EQ(b->icmp->stats.rx_drop_csum, 0);
    CHECK_EQ(a->icmp->stats.rx_drop_csum, 0);
    CHECK_EQ(a->lp->stats.tx_datagrams, sent);
    CHECK_EQ(b->lp->stats.frag_reassembled, a->lp->stats.frag_reassembled);
    CHECK(a->lp->stats.tx_frags > 0);
    CHECK_EQ(a->lp->stats.tx_frags, b->lp->stats.frag_rx);
    CHECK_EQ(b->lp->stats.tx_frags, a->lp->stats.frag_rx);
    CHECK_EQ(b->lp->stats.frag_drop_dup + b->lp->stats.frag_drop_overlap, 0);
    FX_CLEAN(1000);
}

TEST(test_frag__datagram_over_1280_is_refused_not_sent)
{
    struct fx_node *a = fx_node(FX_RADIO | FX_SIXLOWPAN | FX_IP);
    struct fx_node *b = fx_node(FX_RADIO | FX_SIXLOWPAN | FX_IP);
    fx_link2(a, b);
    uint8_t to_b[16];
    ll_of(to_b, b);
    static uint8_t echo[1300] = { ICMPV6_ECHO_REQUEST };
    /* 1,241 bytes of ICMPv6 in IPv6: above the IPv6 minimum MTU that
     * 6LoWPAN promises (RFC 4944: 1,280) */
    wren_icmpv6_send(&a->node, NULL, to_b, 0, a->if_id, echo, 1241);
    fx_run_us(500000);
    CHECK_EQ(a->lp->stats.tx_frags, 0);
    CHECK_EQ(b->icmp->stats.rx_echo_req, 0);
    CHECK_EQ(a->lp->stats.tx_drop_bad + a->ip->stats.tx_drop_too_big, 1);
    FX_CLEAN(1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST_SETUP(test_reass__in_order_fragments_make_the_datagram, setup),
        FX_TEST_SETUP(test_reass__out_of_order_fragments_make_the_datagram, setup),
        FX_TEST_SETUP(test_reass__duplicate_fragment_is_dropped_datagram_still_whole, setup),
        FX_TEST_SETUP(test_reass__overlap_discards_the_whole_datagram, setup),
        FX_TEST_SETUP(test_reass__size_mismatch_drops_both, setup),
        FX_TEST_SETUP(test_reass__fragment_beyond_the_size_is_dropped_datagram_completes, setup),
        FX_TEST_SETUP(test_reass__truncated_fragment_headers_are_dropped, setup),
        FX_TEST_SETUP(test_decompress__failed_iphc_reads_nothing_of_the_result, setup),
        FX_TEST_SETUP(test_reass__slots_exhausted_then_timeout_frees_them, setup),
        FX_TEST_SETUP(test_reass__same_sender_next_datagram_supersedes_an_old_one, setup),
        FX_TEST_SETUP(test_reass__idle_half_datagram_is_evicted_for_a_new_one, setup),
        FX_TEST_SETUP(test_reass__elided_udp_checksum_is_computed_over_the_datagram, setup_ip),
        FX_TEST_SETUP(test_udp__elided_checksum_is_dropped_and_counted_unless_the_socket_asks,
                      setup_ip),
        FX_TEST_SETUP(test_frag__echo_of_every_size_crosses_the_channel, setup),
        FX_TEST_SETUP(test_frag__datagram_over_1280_is_refused_not_sent, setup),
    };
    return cmocka_run_group_tests_name("sixlowpan_frag", tests, NULL, NULL);
}
