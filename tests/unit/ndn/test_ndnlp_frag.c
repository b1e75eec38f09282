/**
 * @file test_ndnlp_frag.c
 * @brief NDNLPv2 fragmentation and reassembly (ndn/ndnlp_frag.h): a sender
 *        and a receiver, each with its own packet buffer from the fixture
 *        (the teardown checks both are empty). Every case checks the
 *        receiver's counters it concerns and that the others stay 0.
 */
#include <errno.h>

#include "fixture.h"
#include "ndn/ndnlp_frag.h"
#include "net/nettype.h"
#include "pktbuf/pktbuf.h"

#define TIMEOUT_US ((uint64_t)CONFIG_WREN_NDNLP_REASS_TIMEOUT_MS * 1000u)
#define MAX_PKT CONFIG_WREN_NDNLP_MAX_PKT
#define PEER 0x0257527fffe00001u
/* an 802.15.4 frame (127 octets) less a MAC header between EUI-64s with
 * PAN id compression (2 + 1 + 2 + 8 + 8) and the FCS (2) */
#define MTU_154 104u

static struct wren_ndnlp_frag tx, rx;
static struct wren_pktbuf *tx_pb, *rx_pb;
static uint8_t pkt[2 * MAX_PKT];
/* the pieces of one packet */
static uint8_t piece[CONFIG_WREN_NDNLP_MAX_FRAGS][400];
static size_t piece_len[CONFIG_WREN_NDNLP_MAX_FRAGS];

static int setup(void **state)
{
    fx_setup(state);
    tx_pb = fx_pktbuf(6144);
    rx_pb = fx_pktbuf(6144);
    wren_ndnlp_frag_init(&tx, tx_pb, 0x1000);
    wren_ndnlp_frag_init(&rx, rx_pb, 0);
    return 0;
}

#define T(name) FX_TEST_SETUP(name, setup)

static void fill(size_t len, uint8_t seed)
{
    for (size_t i = 0; i < len; i++) {
        pkt[i] = (uint8_t)(i * 31 + seed);
    }
}

/* cut pkt[0..len) for mtu into piece[]; @return the pieces (1: bare) */
static unsigned cut(size_t len, size_t mtu)
{
    struct ndnlp_frag_plan plan;
    CHECK_EQ(wren_ndnlp_frag_plan(&tx, len, mtu, &plan), 0);
    for (unsigned i = 0; i < plan.count && plan.count > 1; i++) {
        int n = wren_ndnlp_frag_emit(&plan, pkt, i, piece[i], sizeof(piece[i]));
        CHECK(n > 0 && (size_t)n <= mtu);
        piece_len[i] = (size_t)n;
    }
    return plan.count;
}

/* piece i into the receiver at @p now; @return the packet completed, if any */
static struct wren_snip *give(unsigned i, uint64_t peer, uint64_t now)
{
    struct ndnlp_pkt lp;
    return wren_ndnlp_frag_rx(&rx, peer, piece[i], piece_len[i], now, WREN_NETTYPE_UNDEF, &lp);
}

static void check_pkt(struct wren_snip *s, size_t len)
{
    CHECK(s != NULL);
    CHECK_EQ(s->size, len);
    CHECK(s->next == NULL);
    CHECK_EQ(memcmp(s->data, pkt, len), 0);
    wren_pktbuf_release(rx_pb, s);
}

/* every counter of the receiver not named in @p expect is 0 */
static void check_counters(const struct wren_ndnlp_frag_stats *expect)
{
    CHECK_EQ(memcmp(&rx.stats, expect, sizeof(*expect)), 0);
}

/* Every packet size up to the reassembly limit, at the 802.15.4 MTU and at
 * smaller ones: each piece fits, carries as much as its header leaves, and
 * the receiver gets the packet back, byte for byte, with the last piece. */
TEST(test_ndnlp_frag__roundtrip_every_size)
{
    static const size_t mtus[] = { MTU_154, 72, 48 };
    uint32_t frags = 0, reassembled = 0;
    for (size_t m = 0; m < sizeof(mtus) / sizeof(mtus[0]); m++) {
        for (size_t len = 1; len <= MAX_PKT; len++) {
            struct ndnlp_frag_plan plan;
            fill(len, (uint8_t)(len + m));
            int rc = wren_ndnlp_frag_plan(&tx, len, mtus[m], &plan);
            if (rc == -EMSGSIZE) {
                /* only when the pieces would pass the limit */
                CHECK((len + mtus[m] - 25) / (mtus[m] - 24) > CONFIG_WREN_NDNLP_MAX_FRAGS);
                continue;
            }
            CHECK_EQ(rc, 0);
            CHECK_EQ(plan.count == 1, len <= mtus[m]);
            if (plan.count == 1) {
                continue; /* sent bare */
            }
            CHECK(plan.chunk + 24 >= mtus[m]);
            unsigned n = cut(len, mtus[m]);
            for (unsigned i = 0; i + 1 < n; i++) {
                CHECK(give(i, PEER, 0) == NULL);
            }
            check_pkt(give(n - 1, PEER, 0), len);
            frags += n;
            reassembled++;
        }
    }
    struct wren_ndnlp_frag_stats want = { .lp_rx = frags, .lp_rx_frags = frags,
                                          .lp_reassembled = reassembled };
    check_counters(&want);
    CHECK(reassembled > 3 * 1000);
}

/* the plan refuses what needs more pieces than a receiver takes */
TEST(test_ndnlp_frag__plan_limits)
{
    struct ndnlp_frag_plan plan;
    CHECK_EQ(wren_ndnlp_frag_plan(&tx, 5000, MTU_154, &plan), -EMSGSIZE);
    CHECK_EQ(wren_ndnlp_frag_plan(&tx, 100, 20, &plan), -EMSGSIZE); /* no room for a byte */
    CHECK_EQ(tx.stats.lp_tx_drop_size, 2);
    CHECK_EQ(tx.tx_seq, 0x1000); /* no Sequence spent */
    CHECK_EQ(wren_ndnlp_frag_plan(&tx, 300, MTU_154, &plan), 0);
    CHECK_EQ(plan.seq, 0x1000);
    CHECK_EQ(tx.tx_seq, 0x1000 + plan.count);
}

/* pieces built from a packet in snips equal the ones built from flat bytes */
TEST(test_ndnlp_frag__piece_from_snips)
{
    fill(700, 3);
    struct wren_snip *b = wren_pktbuf_add(tx_pb, NULL, pkt + 200, 500, WREN_NETTYPE_UNDEF);
    struct wren_snip *a = wren_pktbuf_add(tx_pb, b, pkt, 200, WREN_NETTYPE_UNDEF);
    CHECK(a && b);
    struct ndnlp_frag_plan plan;
    CHECK_EQ(wren_ndnlp_frag_plan(&tx, 700, MTU_154, &plan), 0);
    for (unsigned i = 0; i < plan.count; i++) {
        uint8_t flat[MTU_154];
        int n = wren_ndnlp_frag_emit(&plan, pkt, i, flat, sizeof(flat));
        struct wren_snip *s = wren_ndnlp_frag_piece(&tx, &plan, a, i, WREN_NETTYPE_UNDEF);
        CHECK(s != NULL);
        CHECK_EQ(s->size, n);
        CHECK_EQ(memcmp(s->data, flat, (size_t)n), 0);
        wren_pktbuf_release(tx_pb, s);
    }
    CHECK_EQ(tx.stats.lp_tx_frags, plan.count);
    wren_pktbuf_release(tx_pb, a);
}

TEST(test_ndnlp_frag__reverse_order)
{
    fill(600, 1);
    unsigned n = cut(600, MTU_154);
    for (unsigned i = n - 1; i > 0; i--) {
        CHECK(give(i, PEER, 0) == NULL);
    }
    check_pkt(give(0, PEER, 0), 600);
    struct wren_ndnlp_frag_stats want = { .lp_rx = n, .lp_rx_frags = n, .lp_reassembled = 1,
                                          .lp_ooo = n };
    check_counters(&want);
}

/* a piece lost: nothing delivered, the packet given up at the timeout */
TEST(test_ndnlp_frag__lost_piece_times_out)
{
    fill(500, 2);
    unsigned n = cut(500, MTU_154);
    for (unsigned i = 0; i < n; i++) {
        if (i != 2) {
            CHECK(give(i, PEER, 1000 * i) == NULL);
        }
    }
    uint64_t last = 1000 * (n - 1);
    CHECK_EQ(wren_ndnlp_frag_next_deadline(&rx), last + TIMEOUT_US);
    CHECK_EQ(wren_ndnlp_frag_expire(&rx, last + TIMEOUT_US - 1), 0);
    CHECK(!wren_pktbuf_is_empty(rx_pb));
    CHECK_EQ(wren_ndnlp_frag_expire(&rx, last + TIMEOUT_US), 1);
    CHECK(wren_pktbuf_is_empty(rx_pb));
    CHECK_EQ(wren_ndnlp_frag_next_deadline(&rx), UINT64_MAX);
    /* the late piece starts a packet of its own, which times out too */
    CHECK(give(2, PEER, last + TIMEOUT_US + 1) == NULL);
    CHECK_EQ(wren_ndnlp_frag_expire(&rx, last + 2 * TIMEOUT_US + 1), 1);
    struct wren_ndnlp_frag_stats want = { .lp_rx = n, .lp_rx_frags = n, .lp_ooo = 2,
                                          .lp_drop_timeout = 2 };
    check_counters(&want);
}

/* each piece restarts the timeout (NFD's rule): a slow packet still completes */
TEST(test_ndnlp_frag__timeout_restarts_per_piece)
{
    fill(400, 4);
    unsigned n = cut(400, MTU_154);
    uint64_t t = 0;
    for (unsigned i = 0; i + 1 < n; i++, t += TIMEOUT_US - 1) {
        CHECK(give(i, PEER, t) == NULL);
    }
    check_pkt(give(n - 1, PEER, t), 400);
    CHECK_EQ(rx.stats.lp_drop_timeout, 0);
    CHECK_EQ(rx.stats.lp_reassembled, 1);
}

TEST(test_ndnlp_frag__duplicate_dropped)
{
    fill(300, 5);
    unsigned n = cut(300, MTU_154);
    CHECK(n >= 3);
    CHECK(give(0, PEER, 0) == NULL);
    CHECK(give(1, PEER, 0) == NULL);
    CHECK(give(1, PEER, 0) == NULL);
    CHECK(give(0, PEER, 0) == NULL);
    for (unsigned i = 2; i + 1 < n; i++) {
        CHECK(give(i, PEER, 0) == NULL);
    }
    check_pkt(give(n - 1, PEER, 0), 300);
    struct wren_ndnlp_frag_stats want = { .lp_rx = n + 2, .lp_rx_frags = n + 2,
                                          .lp_reassembled = 1, .lp_drop_dup = 2 };
    check_counters(&want);
}

/* with every slot busy the pieces of a further packet are dropped; a slot
 * freed takes the next packet */
TEST(test_ndnlp_frag__slot_exhaustion)
{
    uint8_t held[CONFIG_WREN_NDNLP_REASS_SLOTS + 1][256];
    size_t held_len[CONFIG_WREN_NDNLP_REASS_SLOTS + 1];
    unsigned n = 0;
    for (unsigned k = 0; k <= CONFIG_WREN_NDNLP_REASS_SLOTS; k++) {
        fill(250, (uint8_t)k);
        n = cut(250, MTU_154);
        /* keep the last piece back, give the others */
        memcpy(held[k], piece[n - 1], piece_len[n - 1]);
        held_len[k] = piece_len[n - 1];
        for (unsigned i = 0; i + 1 < n; i++) {
            CHECK(give(i, PEER, 0) == NULL);
        }
    }
    CHECK_EQ(rx.stats.lp_drop_no_slot, n - 1);
    struct ndnlp_pkt lp;
    /* the packet that had no slot cannot complete; the first one can */
    CHECK(wren_ndnlp_frag_rx(&rx, PEER, held[CONFIG_WREN_NDNLP_REASS_SLOTS],
                             held_len[CONFIG_WREN_NDNLP_REASS_SLOTS], 0, 0, &lp) == NULL);
    CHECK_EQ(rx.stats.lp_drop_no_slot, n);
    fill(250, 0);
    check_pkt(wren_ndnlp_frag_rx(&rx, PEER, held[0], held_len[0], 0, 0, &lp), 250);
    /* now the packet that was refused is taken whole */
    fill(250, CONFIG_WREN_NDNLP_REASS_SLOTS);
    n = cut(250, MTU_154);
    for (unsigned i = 0; i + 1 < n; i++) {
        CHECK(give(i, PEER, 0) == NULL);
    }
    check_pkt(give(n - 1, PEER, 0), 250);
    wren_ndnlp_frag_clear(&rx);
    CHECK(wren_pktbuf_is_empty(rx_pb));
    CHECK_EQ(rx.stats.lp_reassembled, 2);
}

/* the same message identifier from two senders: two packets */
TEST(test_ndnlp_frag__peers_apart)
{
    fill(200, 6);
    unsigned n = cut(200, MTU_154);
    for (unsigned i = 0; i + 1 < n; i++) {
        CHECK(give(i, PEER, 0) == NULL);
        CHECK(give(i, PEER + 1, 0) == NULL);
    }
    check_pkt(give(n - 1, PEER + 1, 0), 200);
    check_pkt(give(n - 1, PEER, 0), 200);
    CHECK_EQ(rx.stats.lp_reassembled, 2);
    CHECK_EQ(rx.stats.lp_drop_dup, 0);
}

/* rewrite piece i's FragCount octet (1-octet numbers at these sizes) */
static void set_count(unsigned i, uint8_t count)
{
    struct ndnlp_pkt lp;
    CHECK(wren_ndnlp_parse(piece[i], piece_len[i], &lp) > 0);
    /* Sequence (10) + FragIndex (3) + FragCount's type and length (2) */
    size_t at = 2 + 10 + 3 + 2;
    CHECK_EQ(piece[i][at - 2], NDNLP_TLV_FRAG_COUNT);
    piece[i][at] = count;
}

/* a piece whose FragCount differs from its packet's first piece: dropped,
 * the packet kept (NFD's LpReassembler does the same) */
TEST(test_ndnlp_frag__count_mismatch)
{
    fill(300, 7);
    unsigned n = cut(300, MTU_154);
    CHECK(give(0, PEER, 0) == NULL);
    uint8_t saved[400];
    memcpy(saved, piece[1], piece_len[1]);
    set_count(1, (uint8_t)(n + 1));
    CHECK(give(1, PEER, 0) == NULL);
    CHECK_EQ(rx.stats.lp_drop_count, 1);
    memcpy(piece[1], saved, piece_len[1]);
    for (unsigned i = 1; i + 1 < n; i++) {
        CHECK(give(i, PEER, 0) == NULL);
    }
    check_pkt(give(n - 1, PEER, 0), 300);
    struct wren_ndnlp_frag_stats want = { .lp_rx = n + 1, .lp_rx_frags = n + 1,
                                          .lp_reassembled = 1, .lp_drop_count = 1 };
    check_counters(&want);
}

/* a packet past the byte limit is dropped whole, when its bytes pass it */
TEST(test_ndnlp_frag__oversize_bytes)
{
    fill(MAX_PKT + 1, 8);
    unsigned n = cut(MAX_PKT + 1, MTU_154);
    CHECK(n <= CONFIG_WREN_NDNLP_MAX_FRAGS);
    for (unsigned i = 0; i < n; i++) {
        CHECK(give(i, PEER, 0) == NULL);
    }
    CHECK(wren_pktbuf_is_empty(rx_pb));
    CHECK_EQ(rx.stats.lp_drop_oversize, 1);
    /* the last piece passed the limit: nothing left waiting */
    CHECK_EQ(wren_ndnlp_frag_expire(&rx, TIMEOUT_US), 0);
    CHECK_EQ(rx.stats.lp_reassembled, 0);
}

/* a FragCount over the piece limit: every piece dropped on arrival */
TEST(test_ndnlp_frag__oversize_count)
{
    static const uint8_t one = 0x06;
    struct ndnlp_pkt p = { .seq = 9, .seq_len = 8, .frag_count = CONFIG_WREN_NDNLP_MAX_FRAGS + 1,
                           .frag = &one, .frag_len = 1 };
    uint8_t b[32];
    int n = wren_ndnlp_emit(&p, b, sizeof(b));
    struct ndnlp_pkt lp;
    CHECK(wren_ndnlp_frag_rx(&rx, PEER, b, (size_t)n, 0, 0, &lp) == NULL);
    struct wren_ndnlp_frag_stats want = { .lp_rx = 1, .lp_rx_frags = 1, .lp_drop_oversize = 1 };
    check_counters(&want);
    CHECK(wren_pktbuf_is_empty(rx_pb));
}

/* the Nack header rides on piece 0 and comes out with the packet */
TEST(test_ndnlp_frag__nack_on_piece_zero)
{
    static uint8_t b[256];
    fill(220, 9);
    unsigned n = cut(220, MTU_154);
    struct ndnlp_pkt lp;
    CHECK(wren_ndnlp_parse(piece[0], piece_len[0], &lp) > 0);
    lp.has_nack = true;
    lp.nack_reason = NDNLP_NACK_CONGESTION;
    int len = wren_ndnlp_emit(&lp, b, sizeof(b));
    CHECK(len > 0);
    CHECK(wren_ndnlp_frag_rx(&rx, PEER, b, (size_t)len, 0, 0, &lp) == NULL);
    for (unsigned i = 1; i + 1 < n; i++) {
        CHECK(give(i, PEER, 0) == NULL);
    }
    struct wren_snip *s = wren_ndnlp_frag_rx(&rx, PEER, piece[n - 1], piece_len[n - 1], 0, 0, &lp);
    CHECK(lp.has_nack);
    CHECK_EQ(lp.nack_reason, NDNLP_NACK_CONGESTION);
    check_pkt(s, 220);
}

/* no packet buffer for a piece, or for the packet at the end: dropped, counted, no leak */
TEST(test_ndnlp_frag__no_buffer)
{
    rx_pb = fx_pktbuf(768);
    wren_ndnlp_frag_init(&rx, rx_pb, 0);
    fill(MAX_PKT, 10);
    unsigned n = cut(MAX_PKT, MTU_154);
    for (unsigned i = 0; i < n; i++) {
        CHECK(give(i, PEER, 0) == NULL);
    }
    CHECK(rx.stats.lp_drop_nobuf > 0);
    wren_ndnlp_frag_clear(&rx);
    CHECK(wren_pktbuf_is_empty(rx_pb));
    /* pieces fit, the whole does not: 2 x 300 bytes in a 768-byte buffer */
    fill(600, 11);
    n = cut(600, 330);
    CHECK_EQ(n, 2);
    CHECK(give(0, PEER, 0) == NULL);
    uint32_t before = rx.stats.lp_drop_nobuf;
    CHECK(give(1, PEER, 0) == NULL);
    CHECK_EQ(rx.stats.lp_drop_nobuf, before + 1);
    CHECK(wren_pktbuf_is_empty(rx_pb));
}

/* whole packets in an LpPacket, IDLE packets, and malformed ones, by reason */
TEST(test_ndnlp_frag__rx_whole_idle_and_bad)
{
    static const uint8_t whole[] = { 0x64, 0x04, 0x50, 0x02, 0x06, 0x00 };
    static const uint8_t idle[] = { 0x64, 0x00 };
    static const uint8_t trailing[] = { 0x64, 0x00, 0x00 };
    static const uint8_t bare[] = { 0x06, 0x00 };
    static const uint8_t order[] = { 0x64, 0x06, 0x50, 0x01, 0x06, 0x51, 0x01, 0x00 };
    static const uint8_t critical[] = { 0x64, 0x02, 0x62, 0x00 };
    static const uint8_t field[] = { 0x64, 0x02, 0x50, 0x00 };
    static const uint8_t frag[] = { 0x64, 0x06, 0x53, 0x01, 0x02, 0x50, 0x01, 0x06 };
    struct ndnlp_pkt lp;
    struct wren_snip *s = wren_ndnlp_frag_rx(&rx, PEER, whole, sizeof(whole), 0, 0, &lp);
    CHECK(s != NULL);
    CHECK_EQ(s->size, 2);
    CHECK_EQ(s->data[0], 0x06);
    wren_pktbuf_release(rx_pb, s);
#define RX(b) CHECK(wren_ndnlp_frag_rx(&rx, PEER, b, sizeof(b), 0, 0, &lp) == NULL)
    RX(idle);
    RX(trailing);
    RX(bare);
    RX(order);
    RX(critical);
    RX(field);
    RX(frag);
#undef RX
    struct wren_ndnlp_frag_stats want = { .lp_rx = 8, .lp_idle = 1, .lp_drop_tlv = 2,
                                          .lp_drop_order = 1, .lp_drop_critical = 1,
                                          .lp_drop_field = 1, .lp_drop_frag = 1 };
    check_counters(&want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_ndnlp_frag__roundtrip_every_size),
        T(test_ndnlp_frag__plan_limits),
        T(test_ndnlp_frag__piece_from_snips),
        T(test_ndnlp_frag__reverse_order),
        T(test_ndnlp_frag__lost_piece_times_out),
        T(test_ndnlp_frag__timeout_restarts_per_piece),
        T(test_ndnlp_frag__duplicate_dropped),
        T(test_ndnlp_frag__slot_exhaustion),
        T(test_ndnlp_frag__peers_apart),
        T(test_ndnlp_frag__count_mismatch),
        T(test_ndnlp_frag__oversize_bytes),
        T(test_ndnlp_frag__oversize_count),
        T(test_ndnlp_frag__nack_on_piece_zero),
        T(test_ndnlp_frag__no_buffer),
        T(test_ndnlp_frag__rx_whole_idle_and_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
