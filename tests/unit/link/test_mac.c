/* The 802.15.4 MAC (src/mac/csma/ieee802154_mac.c) between nodes on the sim
 * medium, with explicit links and virtual time: unslotted CSMA-CA and its
 * backoff, channel access failure, the interframe space, ACK request / ACK
 * wait / retries up to macMaxFrameRetries, the no-ACK outcome, duplicate
 * suppression by (source, sequence), and indirect transmission to a sleepy
 * child that polls. Times are checked to the microsecond against the
 * 802.15.4 constants (2.4 GHz O-QPSK: 16 us symbols, 32 us octets), and
 * every MAC counter against what the case must produce. */
#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "fixture.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "wire/ieee802154.h"

/* 802.15.4-2015, 2.4 GHz O-QPSK PHY */
#define SYMBOL_US 16u
#define UNIT_BACKOFF_US (20u * SYMBOL_US) /* aUnitBackoffPeriod */
#define CCA_US (8u * SYMBOL_US)           /* CCA detection time */
#define TURNAROUND_US (12u * SYMBOL_US)   /* aTurnaroundTime */
#define ACK_WAIT_US (54u * SYMBOL_US)     /* macAckWaitDuration */
#define SIFS_US (12u * SYMBOL_US)         /* macSifsPeriod */
#define LIFS_US (40u * SYMBOL_US)         /* macLifsPeriod */
#define MAX_SIFS_FRAME 18u                /* aMaxSifsFrameSize */
#define ACK_PSDU 5u

/* a data frame with short addresses and PAN ID compression: 9 octets of
 * MAC header, 2 of FCS */
static unsigned psdu_of(size_t payload)
{
    return 9u + (unsigned)payload + 2u;
}

static uint64_t air_us(unsigned psdu)
{
    return wren_phy_airtime_us(psdu);
}

static struct wren_mac_stats *mac(struct fx_node *n)
{
    return &n->nif->mac.stats;
}

static void set_u8(struct fx_node *n, uint16_t opt, uint8_t v)
{
    CHECK_EQ(wren_netapi_set(&n->node, &n->netif->module, opt, 0, &v, 1), 0);
}

/* @p len bytes of raw (NALP) payload from @p from to @p to (NULL: broadcast) */
static void send_raw(struct fx_node *from, const struct fx_node *to, size_t len)
{
    struct wren_pktbuf *pb = &from->node.pktbuf;
    struct wren_snip *pl = wren_pktbuf_add(pb, NULL, NULL, len, WREN_NETTYPE_UNDEF);
    CHECK(pl != NULL);
    memset(pl->data, 0x5a, len);
    pl->data[0] = 0x3f; /* RFC 4944 NALP: not a LoWPAN frame */
    uint8_t dst[2];
    if (to) {
        put_be16(dst, (uint16_t)to->radio->index);
    }
    struct wren_snip *p = wren_netif_hdr_add(pb, pl, NULL, 0, to ? dst : NULL, to ? 2 : 0);
    CHECK(p != NULL);
    CHECK_EQ(wren_netapi_send(&from->node, &from->netif->module, p), 0);
}

#define CHECK_MAC(n, ...) \
    FX_CHECK_COUNTERS(WREN_MAC_COUNTERS, mac(n), (&(struct wren_mac_stats){ __VA_ARGS__ }))

/* two radio nodes that hear each other, and what b receives */
static struct fx_node *a, *b;
static struct fx_sink *at_b;

static int setup(void **state)
{
    fx_setup(state);
    a = fx_node(FX_RADIO);
    b = fx_node(FX_RADIO);
    /* frames from the short addresses: the 9-octet MAC header psdu_of() counts */
    uint16_t two = 2;
    CHECK_EQ(wren_netapi_set(&a->node, &a->netif->module, WREN_NETOPT_ADDR_LEN, 0, &two, 2), 0);
    CHECK_EQ(wren_netapi_set(&b->node, &b->netif->module, WREN_NETOPT_ADDR_LEN, 0, &two, 2), 0);
    fx_link2(a, b);
    at_b = fx_sink(b, WREN_NETTYPE_UNDEF, WREN_NETREG_DEMUX_ALL);
    fx_run_us(1000000); /* not at time 0: the interframe space has a past */
    return 0;
}

/* ---- CSMA-CA ---------------------------------------------------------------- */

TEST(test_mac_csma__backoff_is_0_to_2_pow_min_be_minus_1_unit_periods)
{
    /* 802.15.4-2015 6.2.5.1: wait a random number of unit backoff periods in
     * 0 .. 2^macMinBE - 1, then CCA; here the channel is always idle, so the
     * frame starts backoff + CCA + turnaround after it was handed over */
    const unsigned psdu = psdu_of(20);
    unsigned seen[8] = { 0 };
    set_u8(a, WREN_NETOPT_ACK_REQ, 0);
    for (int i = 0; i < 400; i++) {
        uint64_t t0 = fx_now();
        send_raw(a, NULL, 20);
        fx_run_us(20000);
        CHECK_EQ(at_b->got, (unsigned)i + 1);
        uint64_t start = at_b->at - air_us(psdu);
        uint64_t wait = start - t0 - CCA_US - TURNAROUND_US;
        CHECK_EQ(wait % UNIT_BACKOFF_US, 0);
        CHECK(wait / UNIT_BACKOFF_US < 8); /* macMinBE 3 */
        seen[wait / UNIT_BACKOFF_US]++;
    }
    for (int k = 0; k < 8; k++) {
        CHECK(seen[k] > 20); /* about 50 each */
    }
    CHECK_MAC(a, .tx_attempts = 400, .tx_ok = 400);
    CHECK_MAC(b);
    /* macMinBE 0: no backoff at all */
    set_u8(a, WREN_NETOPT_CSMA_MIN_BE, 0);
    for (int i = 0; i < 10; i++) {
        uint64_t t0 = fx_now();
        send_raw(a, NULL, 20);
        fx_run_us(20000);
        CHECK_EQ(at_b->at - air_us(psdu), t0 + CCA_US + TURNAROUND_US);
    }
    /* CSMA off: no CCA either, only the turnaround */
    set_u8(a, WREN_NETOPT_CSMA, 0);
    uint64_t t0 = fx_now();
    send_raw(a, NULL, 20);
    fx_run_us(20000);
    CHECK_EQ(at_b->at - air_us(psdu), t0 + TURNAROUND_US);
    CHECK_EQ(a->radio->stats.cca_busy, 0);
    FX_CLEAN(1000);
}

TEST(test_mac_ifs__sifs_after_short_lifs_after_long_frames)
{
    /* 6.2.4: frames of one sender are at least SIFS apart after a frame of
     * at most aMaxSifsFrameSize octets, LIFS after a longer one */
    set_u8(a, WREN_NETOPT_ACK_REQ, 0);
    set_u8(a, WREN_NETOPT_CSMA_MIN_BE, 0);
    static const size_t lens[2] = { 7, 40 }; /* PSDU 18 and 51 */
    for (int k = 0; k < 4; k++) {
        /* without CSMA (only the turnaround before a frame), then with CSMA
         * and no backoff: CCA + turnaround, 320 us, exceed the SIFS */
        bool csma = k >= 2;
        set_u8(a, WREN_NETOPT_CSMA, csma);
        unsigned psdu = psdu_of(lens[k % 2]);
        uint64_t ifs = psdu <= MAX_SIFS_FRAME ? SIFS_US : LIFS_US;
        uint64_t lead = csma ? CCA_US + TURNAROUND_US : TURNAROUND_US;
        unsigned got = at_b->got;
        uint64_t t0 = fx_now();
        send_raw(a, NULL, lens[k % 2]);
        send_raw(a, NULL, lens[k % 2]); /* queued behind the first */
        uint64_t end1 = t0 + lead + air_us(psdu);
        fx_run_until(end1);
        CHECK_EQ(at_b->got, got + 1);
        CHECK_EQ(at_b->at, end1);
        fx_run_us(20000);
        CHECK_EQ(at_b->got, got + 2);
        uint64_t start2 = at_b->at - air_us(psdu);
        /* no backoff: exactly the IFS, or what the radio needs if longer */
        CHECK_EQ(start2 - end1, ifs > lead ? ifs : lead);
    }
    FX_CLEAN(1000);
}

TEST(test_mac_ifs__lifs_follows_the_ack_of_an_acknowledged_frame)
{
    /* 6.2.4 (figure 6-4): "if the first transmission requires an
     * acknowledgment, the separation between the Ack frame and the second
     * transmission shall be at least an IFS period"; the frame's length, not
     * the ACK's, chooses SIFS or LIFS */
    set_u8(a, WREN_NETOPT_CSMA_MIN_BE, 0);
    static const size_t lens[2] = { 40, 7 }; /* PSDU 51 (LIFS) and 18 (SIFS) */
    for (int k = 0; k < 4; k++) {
        /* with CSMA and no backoff (CCA + turnaround before a frame), then
         * without CSMA (the turnaround only) */
        bool csma = k < 2;
        set_u8(a, WREN_NETOPT_CSMA, csma);
        const unsigned psdu = psdu_of(lens[k % 2]);
        const uint64_t ifs = psdu <= MAX_SIFS_FRAME ? SIFS_US : LIFS_US;
        const uint64_t lead = csma ? CCA_US + TURNAROUND_US : TURNAROUND_US;
        unsigned got = at_b->got;
        uint64_t t0 = fx_now();
        send_raw(a, b, lens[k % 2]);
        send_raw(a, b, lens[k % 2]); /* queued behind the first */
        uint64_t end1 = t0 + lead + air_us(psdu);
        /* b acknowledges aTurnaroundTime after the frame */
        uint64_t ack_end = end1 + TURNAROUND_US + air_us(ACK_PSDU);
        fx_run_until(ack_end);
        CHECK_EQ(at_b->got, got + 1);
        CHECK_EQ(at_b->at, end1);
        CHECK_EQ(mac(a)->ack_rx, (unsigned)(2 * k + 1));
        fx_run_us(20000);
        CHECK_EQ(at_b->got, got + 2);
        uint64_t start2 = at_b->at - air_us(psdu);
        /* no backoff: exactly the IFS from the ACK's end, or what the radio
         * needs if longer (CCA + turnaround, 320 us, exceed the SIFS) */
        CHECK_EQ(start2 - ack_end, ifs > lead ? ifs : lead);
    }
    CHECK_MAC(a, .tx_attempts = 8, .tx_ok = 8, .ack_rx = 8);
    CHECK_MAC(b, .ack_tx = 8);
    FX_CLEAN(1000);
}

/* a radio that keeps the channel busy: back-to-back 127-octet frames,
 * without CCA, heard as energy only (PRR 0) */
static bool jam_on;

static void jam_send(struct wren_netdev *dev)
{
    static uint8_t junk[125];
    struct wren_iolist iol = { .base = junk, .len = sizeof(junk) };
    CHECK_EQ(dev->driver->send(dev, &iol), (int)sizeof(junk));
}

static void jam_event(struct wren_netdev *dev, enum wren_netdev_event ev)
{
    if (ev == WREN_NETDEV_EV_ISR) {
        dev->driver->isr(dev);
    } else if (ev == WREN_NETDEV_EV_TX_COMPLETE && jam_on) {
        jam_send(dev);
    }
}

TEST(test_mac_csma__busy_channel_ends_in_channel_access_failure)
{
    /* two jammers half a frame apart: one of them is always on the air
     * (each is quiet only for its turnaround, 192 us in 4,448) */
    struct wren_sim_radio *j[2] = { fx_radio(), fx_radio() };
    jam_on = true;
    for (int i = 0; i < 2; i++) {
        j[i]->netdev.event_cb = jam_event;
        CHECK_EQ(wren_medium_set_link(&fx.medium, j[i]->index, a->radio->index, 0.0), 0);
        jam_send(&j[i]->netdev);
        fx_run_us((TURNAROUND_US + air_us(WREN_PHY_MAX_PSDU)) / 2);
    }
    fx_run_us(10000);
    /* macMaxCSMABackoffs 4: five CCAs, all busy, then failure; BE grows
     * from macMinBE 3 to macMaxBE 5 */
    uint64_t t0 = fx_now();
    send_raw(a, b, 20);
    uint64_t max_wait = 0;
    static const unsigned be[5] = { 3, 4, 5, 5, 5 };
    for (int k = 0; k < 5; k++) {
        max_wait += ((1u << be[k]) - 1) * UNIT_BACKOFF_US + CCA_US;
    }
    fx_run_us(5 * CCA_US - 1);
    CHECK_EQ(mac(a)->tx_caf, 0); /* not before five CCAs */
    fx_run_until(t0 + max_wait);
    CHECK_MAC(a, .cca_busy = 5, .tx_caf = 1);
    CHECK_EQ(a->radio->stats.cca_busy, 5);
    CHECK_EQ(a->netif->stats.tx_busy, 1);
    CHECK_EQ(a->radio->stats.tx_frames, 0);
    CHECK_EQ(at_b->got, 0);
    /* macMaxCSMABackoffs 0: one CCA */
    set_u8(a, WREN_NETOPT_CSMA_MAX_BACKOFFS, 0);
    t0 = fx_now();
    send_raw(a, b, 20);
    fx_run_until(t0 + 7 * UNIT_BACKOFF_US + CCA_US);
    CHECK_MAC(a, .cca_busy = 6, .tx_caf = 2);
    /* the jammers stop: the channel is free again */
    jam_on = false;
    fx_run_us(10000);
    send_raw(a, b, 20);
    fx_run_us(20000);
    CHECK_EQ(at_b->got, 1);
    CHECK_MAC(a, .cca_busy = 6, .tx_caf = 2, .tx_attempts = 1, .tx_ok = 1, .ack_rx = 1);
    FX_CLEAN(1000);
}

/* ---- acknowledgements and retries ------------------------------------------ */

TEST(test_mac_ack__unicast_is_acknowledged_after_the_turnaround)
{
    set_u8(a, WREN_NETOPT_CSMA_MIN_BE, 0);
    const unsigned psdu = psdu_of(30);
    uint64_t t0 = fx_now();
    send_raw(a, b, 30);
    uint64_t end = t0 + CCA_US + TURNAROUND_US + air_us(psdu);
    /* 6.7.4.2: b acknowledges aTurnaroundTime after the frame; the 5-octet
     * ACK ends 192 + 352 us after it, well inside macAckWaitDuration */
    fx_run_until(end);
    CHECK_EQ(at_b->got, 1);
    CHECK_EQ(at_b->at, end);
    fx_run_until(end + TURNAROUND_US + air_us(ACK_PSDU) - 1);
    CHECK_EQ(mac(a)->ack_rx, 0);
    CHECK_EQ(mac(a)->tx_ok, 0);
    fx_run_until(end + TURNAROUND_US + air_us(ACK_PSDU));
    CHECK_MAC(a, .tx_attempts = 1, .tx_ok = 1, .ack_rx = 1);
    CHECK_MAC(b, .ack_tx = 1);
    CHECK_EQ(a->netif->stats.tx_ok, 1);
    CHECK_EQ(b->radio->stats.tx_bytes, ACK_PSDU);
    /* broadcasts ask for no ACK */
    send_raw(a, NULL, 30);
    fx_run_us(20000);
    CHECK_EQ(at_b->got, 2);
    CHECK_MAC(a, .tx_attempts = 2, .tx_ok = 2, .ack_rx = 1);
    CHECK_MAC(b, .ack_tx = 1);
    FX_CLEAN(1000);
}

TEST(test_mac_ack__no_ack_retries_up_to_max_frame_retries)
{
    /* b hears a, a does not hear b: every ACK is lost */
    wren_medium_remove_link(&fx.medium, b->radio->index, a->radio->index);
    set_u8(a, WREN_NETOPT_CSMA_MIN_BE, 0);
    const unsigned psdu = psdu_of(30);
    /* one attempt: CCA, turnaround, the frame, macAckWaitDuration; the next
     * attempt's CCA starts right after (the LIFS, 640 us from the frame's
     * end, has passed) */
    const uint64_t attempt = CCA_US + TURNAROUND_US + air_us(psdu) + ACK_WAIT_US;
    for (unsigned retries = 0; retries <= 7; retries += 3) {
        set_u8(a, WREN_NETOPT_MAX_RETRIES, (uint8_t)retries);
        struct wren_mac_stats before = *mac(a);
        unsigned got = at_b->got, dups = mac(b)->rx_dup;
        uint64_t t0 = fx_now();
        send_raw(a, b, 30);
        fx_run_until(t0 + (retries + 1) * attempt - 1);
        CHECK_EQ(mac(a)->tx_noack, before.tx_noack);
        fx_run_until(t0 + (retries + 1) * attempt);
        CHECK_EQ(mac(a)->tx_noack, before.tx_noack + 1);
        CHECK_EQ(mac(a)->tx_attempts, before.tx_attempts + retries + 1);
        CHECK_EQ(mac(a)->tx_retries, before.tx_retries + retries);
        /* b took the frame once and recognised every retransmission */
        CHECK_EQ(at_b->got, got + 1);
        CHECK_EQ(mac(b)->rx_dup, dups + retries);
        fx_run_us(10000);
    }
    CHECK_MAC(a, .tx_attempts = 1 + 4 + 7, .tx_retries = 3 + 6, .tx_noack = 3);
    CHECK_MAC(b, .ack_tx = 1 + 4 + 7, .rx_dup = 3 + 6);
    CHECK_EQ(a->netif->stats.tx_noack, 3);
    /* the default: macMaxFrameRetries 3, after a random delay of 0 .. d ms */
    set_u8(a, WREN_NETOPT_MAX_RETRIES, 3);
    uint16_t d = 20;
    CHECK_EQ(wren_netapi_set(&a->node, &a->netif->module, WREN_NETOPT_RETRY_DELAY, 0, &d, 2), 0);
    uint64_t t0 = fx_now();
    send_raw(a, b, 30);
    fx_run_until(t0 + 4 * attempt - 1);
    CHECK_EQ(mac(a)->tx_noack, 3); /* the delays make it later */
    fx_run_until(t0 + 4 * attempt + 3 * 20000);
    CHECK_EQ(mac(a)->tx_noack, 4);
    CHECK_EQ(mac(a)->tx_retries, 3 + 6 + 3);
    FX_CLEAN(1000);
}

/* an ACK frame (802.15.4-2006 FCF, frame type 2) with sequence @p seq and
 * @p len bytes of payload, injected into @p n's radio */
static void inject_ack(struct fx_node *n, uint8_t seq, size_t len)
{
    uint8_t psdu[32] = { IEEE802154_TYPE_ACK, 0x10, seq };
    CHECK(3 + len + 2 <= sizeof(psdu));
    memset(psdu + 3, 0xa5, len);
    put_le16(psdu + 3 + len, wren_ieee802154_fcs(psdu, 3 + len));
    fx_inject(n, psdu, 3 + len + 2);
}

TEST(test_mac_ack__a_link_delay_lengthens_the_ack_wait)
{
    /* a device whose link delivers later than the air (ZEP: a hub, process
     * scheduling) reports WREN_NETOPT_LINK_DELAY, read when the MAC starts;
     * the MAC waits macAckWaitDuration plus that for each ACK */
    wren_medium_remove_link(&fx.medium, b->radio->index, a->radio->index);
    CHECK_EQ(a->nif->mac.link_delay_us, 0); /* the sim radio has none */
    a->nif->mac.link_delay_us = 3000;
    set_u8(a, WREN_NETOPT_CSMA_MIN_BE, 0);
    set_u8(a, WREN_NETOPT_MAX_RETRIES, 0);
    const uint64_t attempt = CCA_US + TURNAROUND_US + air_us(psdu_of(30)) + ACK_WAIT_US + 3000;
    uint64_t t0 = fx_now();
    send_raw(a, b, 30);
    fx_run_until(t0 + attempt - 1);
    CHECK_EQ(mac(a)->tx_noack, 0);
    fx_run_until(t0 + attempt);
    CHECK_MAC(a, .tx_attempts = 1, .tx_noack = 1);
    CHECK_EQ(at_b->got, 1);
    FX_CLEAN(10000);
}

TEST(test_mac_ack__an_ack_with_a_payload_is_counted_and_not_taken)
{
    /* found from outside: ACK frames that carry a payload went unnoticed.
     * 802.15.4-2015 7.3.3: an Imm-Ack is its MHR and FCS; one with a payload
     * is counted (rx_ack_payload) and dropped, not taken for our ACK */
    wren_medium_remove_link(&fx.medium, b->radio->index, a->radio->index); /* b's ACKs lost */
    set_u8(a, WREN_NETOPT_CSMA_MIN_BE, 0);
    set_u8(a, WREN_NETOPT_MAX_RETRIES, 0);
    uint64_t t0 = fx_now();
    send_raw(a, b, 30);
    fx_run_until(t0 + CCA_US + TURNAROUND_US + air_us(psdu_of(30)) + 10); /* a waits for its ACK */
    CHECK_EQ(at_b->got, 1);
    uint8_t seq = a->nif->mac.seq;
    inject_ack(a, seq, 4);
    CHECK_MAC(a, .tx_attempts = 1, .rx_ack_payload = 1);
    /* the same ACK without the payload, still inside macAckWaitDuration: ours */
    inject_ack(a, seq, 0);
    CHECK_MAC(a, .tx_attempts = 1, .tx_ok = 1, .ack_rx = 1, .rx_ack_payload = 1);
    /* with nothing awaited: counted as what it is, not as a stray ACK */
    fx_run_us(10000);
    inject_ack(a, seq, 1);
    inject_ack(a, (uint8_t)(seq + 1), 0);
    CHECK_MAC(a, .tx_attempts = 1, .tx_ok = 1, .ack_rx = 1, .rx_ack_payload = 2,
              .rx_ack_stray = 1);
    CHECK_EQ(a->netif->stats.rx_drop_malformed, 0);
    FX_CLEAN(1000);
}

TEST(test_mac_opts__out_of_range_values_are_refused)
{
    struct wren_module *m = &a->netif->module;
    uint8_t v = 9;
    CHECK_EQ(wren_netapi_set(&a->node, m, WREN_NETOPT_CSMA_MAX_BE, 0, &v, 1), -EINVAL);
    v = 2; /* below 3 */
    CHECK_EQ(wren_netapi_set(&a->node, m, WREN_NETOPT_CSMA_MAX_BE, 0, &v, 1), -EINVAL);
    v = 6; /* above macMaxBE 5 */
    CHECK_EQ(wren_netapi_set(&a->node, m, WREN_NETOPT_CSMA_MIN_BE, 0, &v, 1), -EINVAL);
    CHECK_EQ(wren_netapi_set(&a->node, m, WREN_NETOPT_CSMA_MAX_BACKOFFS, 0, &v, 1), -EINVAL);
    v = 8;
    CHECK_EQ(wren_netapi_set(&a->node, m, WREN_NETOPT_MAX_RETRIES, 0, &v, 1), -EINVAL);
    CHECK_EQ(wren_netapi_set(&a->node, m, WREN_NETOPT_MAX_RETRIES, 0, &v, 2), -EINVAL);
    uint8_t got;
    CHECK_EQ(wren_netapi_get(&a->node, m, WREN_NETOPT_MAX_RETRIES, 0, &got, 1), 1);
    CHECK_EQ(got, 3);
    CHECK_EQ(wren_netapi_get(&a->node, m, WREN_NETOPT_CSMA_MIN_BE, 0, &got, 1), 1);
    CHECK_EQ(got, 3);
    CHECK_EQ(wren_netapi_get(&a->node, m, WREN_NETOPT_CSMA_MAX_BE, 0, &got, 1), 1);
    CHECK_EQ(got, 5);
    CHECK_EQ(wren_netapi_get(&a->node, m, WREN_NETOPT_CSMA_MAX_BACKOFFS, 0, &got, 1), 1);
    CHECK_EQ(got, 4);
    FX_CLEAN(0);
}

/* ---- duplicates ------------------------------------------------------------ */

static void inject_to_b(uint16_t src, uint8_t seq, bool ack_req)
{
    uint8_t pl[10] = { 0x3f, 'd', 'u', 'p' };
    uint8_t psdu[WREN_PHY_MAX_PSDU];
    struct fx_frame f = { .src = src, .dst = (uint16_t)b->radio->index, .seq = seq,
                          .ack_req = ack_req };
    fx_inject(b, psdu, fx_frame_emit(&f, pl, sizeof(pl), psdu));
    fx_run_us(2000); /* b's ACK is out */
}

TEST(test_mac_rx__duplicates_suppressed_by_source_and_sequence)
{
    inject_to_b(0x10, 1, true);
    inject_to_b(0x10, 1, true); /* its ACK was lost: a retransmission */
    CHECK_EQ(at_b->got, 1);
    CHECK_MAC(b, .ack_tx = 2, .rx_dup = 1); /* acknowledged again, not passed up */
    inject_to_b(0x11, 1, true); /* another source, the same sequence number */
    inject_to_b(0x10, 2, true); /* the same source, the next one */
    CHECK_EQ(at_b->got, 3);
    inject_to_b(0x10, 2, true);
    CHECK_MAC(b, .ack_tx = 5, .rx_dup = 2);
    /* four neighbours are remembered: a fifth pushes the oldest out */
    inject_to_b(0x12, 7, true);
    inject_to_b(0x13, 7, true);
    inject_to_b(0x11, 1, true); /* still known */
    CHECK_MAC(b, .ack_tx = 8, .rx_dup = 3);
    inject_to_b(0x14, 7, true); /* the fifth: 0x10 forgotten */
    inject_to_b(0x10, 2, true);
    CHECK_EQ(at_b->got, 7);
    CHECK_MAC(b, .ack_tx = 10, .rx_dup = 3);
    /* frames without an ACK request are not checked: they pass */
    inject_to_b(0x20, 9, false);
    inject_to_b(0x20, 9, false);
    CHECK_EQ(at_b->got, 9);
    CHECK_MAC(b, .ack_tx = 10, .rx_dup = 3);
    FX_CLEAN(1000);
}

/* ---- indirect transmission -------------------------------------------------- */

#define POLL_MS 100u

/* b becomes a sleepy child of a, polling every POLL_MS */
static void make_sleepy(uint32_t min_ms, uint32_t max_ms)
{
    uint8_t parent[2];
    put_be16(parent, (uint16_t)a->radio->index);
    struct wren_module *m = &b->netif->module;
    uint32_t poll[2] = { min_ms, max_ms };
    CHECK_EQ(wren_netapi_set(&b->node, m, WREN_NETOPT_MAC_POLL, 0, poll, sizeof(poll)), -EINVAL);
    CHECK_EQ(wren_netapi_set(&b->node, m, WREN_NETOPT_MAC_PARENT, 0, parent, 2), 0);
    CHECK_EQ(wren_netapi_set(&b->node, m, WREN_NETOPT_MAC_POLL, 0, poll, sizeof(poll)), 0);
}

static uint8_t radio_state(struct fx_node *n)
{
    return n->radio->state;
}

static struct wren_radio_time radio_time(struct fx_node *n)
{
    struct wren_radio_time rt;
    CHECK_EQ(wren_netapi_get(&n->node, &n->netif->module, WREN_NETOPT_RADIO_TIME, 0, &rt,
                             sizeof(rt)),
             sizeof(rt));
    return rt;
}

TEST(test_mac_indirect__frames_for_a_sleepy_child_wait_for_its_poll)
{
    uint64_t t0 = fx_now();
    struct wren_radio_time rt0 = radio_time(b);
    make_sleepy(POLL_MS, POLL_MS);
    CHECK_EQ(radio_state(b), WREN_NETOPT_STATE_OFF);
    /* the first poll makes b a's child: nothing waits, b sleeps again */
    fx_run_until(t0 + POLL_MS * 1000u + 20000);
    CHECK_MAC(b, .polls = 1, .tx_attempts = 1, .tx_ok = 1, .ack_rx = 1);
    CHECK_MAC(a, .polls_rx = 1, .ack_tx = 1);
    CHECK_EQ(radio_state(b), WREN_NETOPT_STATE_OFF);
    /* three frames for b: held, not sent */
    for (int i = 0; i < 3; i++) {
        send_raw(a, b, 20 + (size_t)i);
    }
    fx_run_until(t0 + 2 * POLL_MS * 1000u - 1);
    CHECK_EQ(at_b->got, 0);
    CHECK_EQ(mac(a)->indirect_queued, 3);
    CHECK_EQ(a->radio->stats.tx_frames, 1); /* the ACK of the poll only */
    /* the next poll: its ACK says frame pending, a sends the first with
     * frame pending set, b polls again for each, all in this wake-up */
    fx_run_until(t0 + 2 * POLL_MS * 1000u + 50000);
    CHECK_EQ(at_b->got, 3);
    CHECK(at_b->at >= t0 + 2 * POLL_MS * 1000u);
    CHECK_EQ(at_b->len, 22);
    CHECK_MAC(a, .polls_rx = 4, .ack_tx = 4, .indirect_queued = 3, .indirect_sent = 3,
              .tx_attempts = 3, .tx_ok = 3, .ack_rx = 3);
    CHECK_MAC(b, .polls = 4, .tx_attempts = 4, .tx_ok = 4, .ack_rx = 4, .ack_tx = 3);
    /* then it sleeps until its next poll */
    fx_run_us(POLL_MS * 1000u / 2);
    CHECK_EQ(radio_state(b), WREN_NETOPT_STATE_OFF);
    /* a sleepy child's radio is off most of the time: on only around its
     * three polls (a wake-up with three frames, two empty) */
    struct wren_radio_time rt = radio_time(b);
    uint64_t on = rt.listen + rt.rx + rt.tx - (rt0.listen + rt0.rx + rt0.tx);
    CHECK_EQ(on + rt.off - rt0.off, fx_now() - t0);
    CHECK(on * 10 < fx_now() - t0);
    /* broadcasts are not held */
    send_raw(a, NULL, 20);
    fx_run_us(20000);
    CHECK_EQ(mac(a)->indirect_queued, 3);
    /* (the interface handed the held frames to the MAC for good: its tx_ok
     * counts the broadcast alone, the MAC's indirect_sent the others) */
    CHECK_EQ(a->netif->stats.tx_ok, 1);
    FX_CLEAN(1000);
}

TEST(test_mac_indirect__quota_and_a_silent_child_bound_what_is_held)
{
    uint64_t t0 = fx_now();
    make_sleepy(POLL_MS, POLL_MS);
    fx_run_until(t0 + POLL_MS * 1000u + 20000);
    CHECK_EQ(mac(a)->polls_rx, 1);
    /* the child dies: no more polls */
    uint32_t off[2] = { 0, 0 };
    CHECK_EQ(wren_netapi_set(&b->node, &b->netif->module, WREN_NETOPT_MAC_POLL, 0, off,
                             sizeof(off)),
             0);
    wren_medium_remove_link(&fx.medium, b->radio->index, a->radio->index);
    /* CONFIG_WREN_MAC_CHILD_QUOTA frames are held, the rest dropped */
    for (int i = 0; i < CONFIG_WREN_MAC_CHILD_QUOTA + 2; i++) {
        send_raw(a, b, 20);
    }
    fx_run_us(1000);
    CHECK_EQ(mac(a)->indirect_queued, CONFIG_WREN_MAC_CHILD_QUOTA);
    CHECK_EQ(mac(a)->indirect_drop, 2);
    CHECK(!fx_node_clean(a));
    /* silent for CONFIG_WREN_MAC_INDIRECT_TIMEOUT_S: its frames go */
    fx_run_us((CONFIG_WREN_MAC_INDIRECT_TIMEOUT_S + 16) * 1000000ull);
    CHECK_EQ(mac(a)->indirect_drop, 2 + CONFIG_WREN_MAC_CHILD_QUOTA);
    CHECK_EQ(mac(a)->indirect_sent, 0);
    CHECK(fx_node_clean(a));
    /* and it is no child any more: a frame for it goes out directly */
    send_raw(a, b, 20);
    fx_run_us(20000);
    CHECK_EQ(at_b->got, 1);
    CHECK_EQ(mac(a)->indirect_queued, CONFIG_WREN_MAC_CHILD_QUOTA);
    FX_CLEAN(1000);
}

/* A parent's table of sleepy children is made by the first child's poll, the
 * wake phases' table by LPL going on (CONFIG_WREN_NODE_MEM): without memory
 * the poll is dropped and LPL refused, each counted in mac.no_mem. */
TEST(test_mac_mem__children_and_lpl_tables_made_on_first_use)
{
#if CONFIG_WREN_NODE_MEM
    uint64_t t0 = fx_now();
    const struct wren_rt_ops ops = fx.world_ops;
    fx.world_ops.mem = NULL; /* the runtime has no memory to give */
    make_sleepy(POLL_MS, POLL_MS);
    fx_run_until(t0 + POLL_MS * 1000u + 20000);
    CHECK_EQ(mac(a)->polls_rx, 1);
    CHECK_EQ(mac(a)->no_mem, 1);
    uint16_t lpl = 100;
    CHECK_EQ(wren_netapi_set(&a->node, &a->netif->module, WREN_NETOPT_MAC_LPL, 0, &lpl, 2),
             -ENOMEM);
    CHECK_EQ(mac(a)->no_mem, 2);
    fx.world_ops = ops;
    unsigned pieces = fx_mem_pieces();
    /* the next poll makes the table: b is a's child, its frames wait */
    fx_run_until(t0 + 2 * POLL_MS * 1000u + 20000);
    CHECK_EQ(mac(a)->polls_rx, 2);
    CHECK_EQ(fx_mem_pieces(), pieces + 1);
    send_raw(a, b, 20);
    fx_run_us(1000);
    CHECK_EQ(mac(a)->indirect_queued, 1);
    CHECK_EQ(at_b->got, 0);
    fx_run_until(t0 + 3 * POLL_MS * 1000u + 50000);
    CHECK_EQ(at_b->got, 1);
    CHECK_EQ(mac(a)->indirect_sent, 1);
    /* LPL: its table made when it goes on */
    CHECK_EQ(wren_netapi_set(&a->node, &a->netif->module, WREN_NETOPT_MAC_LPL, 0, &lpl, 2), 0);
    CHECK_EQ(fx_mem_pieces(), pieces + 2);
    lpl = 0;
    CHECK_EQ(wren_netapi_set(&a->node, &a->netif->module, WREN_NETOPT_MAC_LPL, 0, &lpl, 2), 0);
    CHECK_EQ(mac(a)->no_mem, 2);
#endif
    FX_CLEAN(1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST_SETUP(test_mac_csma__backoff_is_0_to_2_pow_min_be_minus_1_unit_periods, setup),
        FX_TEST_SETUP(test_mac_ifs__sifs_after_short_lifs_after_long_frames, setup),
        FX_TEST_SETUP(test_mac_ifs__lifs_follows_the_ack_of_an_acknowledged_frame, setup),
        FX_TEST_SETUP(test_mac_csma__busy_channel_ends_in_channel_access_failure, setup),
        FX_TEST_SETUP(test_mac_ack__unicast_is_acknowledged_after_the_turnaround, setup),
        FX_TEST_SETUP(test_mac_ack__no_ack_retries_up_to_max_frame_retries, setup),
        FX_TEST_SETUP(test_mac_ack__a_link_delay_lengthens_the_ack_wait, setup),
        FX_TEST_SETUP(test_mac_ack__an_ack_with_a_payload_is_counted_and_not_taken, setup),
        FX_TEST_SETUP(test_mac_opts__out_of_range_values_are_refused, setup),
        FX_TEST_SETUP(test_mac_rx__duplicates_suppressed_by_source_and_sequence, setup),
        FX_TEST_SETUP(test_mac_indirect__frames_for_a_sleepy_child_wait_for_its_poll, setup),
        FX_TEST_SETUP(test_mac_indirect__quota_and_a_silent_child_bound_what_is_held, setup),
        FX_TEST_SETUP(test_mac_mem__children_and_lpl_tables_made_on_first_use, setup),
    };
    return cmocka_run_group_tests_name("mac", tests, NULL, NULL);
}
