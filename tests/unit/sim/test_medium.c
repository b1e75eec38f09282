/* Tests of the simulated medium through whole nodes: airtime, half duplex,
 * hidden terminals, channels, link PRR, determinism of captures, injected
 * malformed frames, radio time accounting, and scale. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/byteorder.h"
#include "net/netopt.h"
#include "sim/sim.h"
#include "fixture.h"
#include "wire/ieee802154.h"

static uint64_t counter(struct wren_sim *s, uint32_t id, const char *name)
{
    const char *names[512];
    uint64_t vals[512];
    int n = wren_sim_counters(s, id, names, vals, 512);
    for (int i = 0; i < n && i < 512; i++) {
        if (strcmp(names[i], name) == 0) {
            return vals[i];
        }
    }
    print_error("no counter %s\n", name);
    wren_test_fail(__FILE__, __LINE__);
}

/* The raw radio behaviour these tests are about: one clear channel
 * assessment before each frame (or none), no backoff, no ACKs, no retries. */
static void set_cca(struct wren_sim *s, uint32_t id, int on)
{
    uint8_t v = (uint8_t)on, zero = 0;
    wren_sim_netopt_set(s, id, WREN_NETOPT_CSMA, &v, 1);
    wren_sim_netopt_set(s, id, WREN_NETOPT_CSMA_MIN_BE, &zero, 1);
    wren_sim_netopt_set(s, id, WREN_NETOPT_CSMA_MAX_BACKOFFS, &zero, 1);
    wren_sim_netopt_set(s, id, WREN_NETOPT_ACK_REQ, &zero, 1);
}

/* every test ends by letting traffic drain (2 s) and checking every packet
 * buffer of every simulation (the fixture's: its teardown checks them again,
 * also after a failure, and frees them) */
#define CHECK_DRAINED() FX_CLEAN(2000000)

TEST(test_airtime__127_octet_psdu_is_4256us)
{
    CHECK_EQ(wren_phy_airtime_us(127), 4256);
    struct wren_sim *s = fx_sim(1);
    wren_sim_add_node(s, 0, 0, 0, 0);
    wren_sim_add_node(s, 1, 0, 0, 0);
    wren_sim_set_link(s, 0, 1, 1.0);
    wren_sim_set_link(s, 1, 0, 1.0); /* for the ACK */
    /* MHR with a short destination, the EUI-64 source and PAN compression
     * is 15 octets, FCS 2: a payload of 110 makes a 127-octet PSDU */
    CHECK_EQ(wren_sim_rawgen(s, 0, 1, 110, 1000000, WREN_RAWGEN_PERIODIC, 1, 0), 0);
    CHECK_EQ(wren_sim_rawgen(s, 1, -1, 110, 0, 0, 0, 0), 0);
    wren_sim_run(s, 2000000);
    CHECK_EQ(counter(s, 0, "radio.tx_bytes"), 127);
    CHECK_EQ(counter(s, 0, "radio.time_tx_us"), 4256);
    CHECK_EQ(counter(s, 1, "radio.time_rx_us"), 4256);
    CHECK_EQ(counter(s, 1, "app.received"), 1);
    CHECK_EQ(counter(s, 1, "app.rx_bytes"), 110);
    /* acknowledged: a 5-octet ACK came back */
    CHECK_EQ(counter(s, 0, "mac.ack_rx"), 1);
    CHECK_EQ(counter(s, 1, "radio.tx_bytes"), 5);
    /* too long for one frame: dropped and counted, not truncated */
    struct wren_sim *s2 = fx_sim(1);
    wren_sim_add_node(s2, 0, 0, 0, 0);
    CHECK_EQ(wren_sim_rawgen(s2, 0, -1, 111, 1000, WREN_RAWGEN_PERIODIC, 1, 0), 0);
    wren_sim_run(s2, 10000);
    CHECK_EQ(counter(s2, 0, "netif.tx_drop_bad"), 1);
    CHECK_EQ(counter(s2, 0, "radio.tx_frames"), 0);
    CHECK_DRAINED();
}

TEST(test_time_accounting__states_sum_to_elapsed)
{
    struct wren_sim *s = fx_sim(3);
    for (int i = 0; i < 4; i++) {
        wren_sim_add_node(s, i, 0, 0, 0);
    }
    for (uint32_t a = 0; a < 4; a++) {
        for (uint32_t b = 0; b < 4; b++) {
            if (a != b) {
                wren_sim_set_link(s, a, b, 1.0);
            }
        }
        /* about 5 s of traffic, then it ends (and drains: the run goes on
         * a second longer, so that no frame is on the air at its end) */
        wren_sim_rawgen(s, a, -1, 50, 20000, WREN_RAWGEN_POISSON, 250, 0);
    }
    wren_sim_run(s, 6000000);
    for (uint32_t a = 0; a < 4; a++) {
        uint64_t sum = counter(s, a, "radio.time_off_us") + counter(s, a, "radio.time_listen_us") +
                       counter(s, a, "radio.time_rx_us") + counter(s, a, "radio.time_tx_us");
        CHECK_EQ(sum, 6000000);
        CHECK_EQ(counter(s, a, "radio.time_tx_us"),
                 32 * (counter(s, a, "radio.tx_bytes") + 6 * counter(s, a, "radio.tx_frames")));
    }
    /* netopt RADIO_TIME reads the same through netapi */
    struct wren_radio_time rt;
    CHECK_EQ(wren_sim_netopt_get(s, 0, WREN_NETOPT_RADIO_TIME, &rt, sizeof(rt)), sizeof(rt));
    CHECK_EQ(rt.tx, counter(s, 0, "radio.time_tx_us"));
    CHECK_DRAINED();
}

/* A and C both reach B but not each other; both send to B. */
static uint64_t hidden_terminal(int a_hears_c, uint64_t *sent)
{
    struct wren_sim *s = fx_sim(11);
    wren_sim_add_node(s, 0, 0, 0, 0);  /* A */
    wren_sim_add_node(s, 10, 0, 0, 0); /* B */
    wren_sim_add_node(s, 20, 0, 0, 0); /* C */
    wren_sim_set_link(s, 0, 1, 1.0);
    wren_sim_set_link(s, 1, 0, 1.0);
    wren_sim_set_link(s, 2, 1, 1.0);
    wren_sim_set_link(s, 1, 2, 1.0);
    if (a_hears_c) {
        wren_sim_set_link(s, 0, 2, 1.0);
        wren_sim_set_link(s, 2, 0, 1.0);
    }
    for (uint32_t i = 0; i < 3; i++) {
        set_cca(s, i, 1);
    }
    wren_sim_rawgen(s, 0, 1, 100, 30000, WREN_RAWGEN_POISSON, 1000, 0);
    wren_sim_rawgen(s, 2, 1, 100, 30000, WREN_RAWGEN_POISSON, 1000, 0);
    wren_sim_rawgen(s, 1, -1, 100, 0, 0, 0, 0);
    /* long enough for both generators to finish and the air to clear */
    wren_sim_run(s, 60000000);
    uint64_t coll = counter(s, 1, "radio.rx_collisions");
    *sent = counter(s, 0, "radio.tx_frames") + counter(s, 2, "radio.tx_frames");
    /* accounting at B: every frame A and C put on the air either arrived
     * or was destroyed by an overlap (links are perfect) */
    uint64_t rx = counter(s, 1, "radio.rx_frames");
    if (rx + coll != *sent) {
        printf("  B: rx %llu + collisions %llu != sent %llu\n", (unsigned long long)rx,
               (unsigned long long)coll, (unsigned long long)*sent);
        coll = UINT64_MAX;
    }
    wren_sim_run(s, wren_sim_now(s) + 1000000);
    fx_sim_done(s);
    return coll;
}

TEST(test_hidden_terminal__collisions_vanish_when_senders_hear_each_other)
{
    uint64_t sent_hidden, sent_heard;
    uint64_t hidden = hidden_terminal(0, &sent_hidden);
    uint64_t heard = hidden_terminal(1, &sent_heard);
    printf("  hidden: %llu of %llu frames collided at B; heard: %llu of %llu\n",
           (unsigned long long)hidden, (unsigned long long)sent_hidden,
           (unsigned long long)heard, (unsigned long long)sent_heard);
    CHECK(hidden != UINT64_MAX && heard != UINT64_MAX);
    /* hidden: offered load ~2 x 3.6 ms / 30 ms, so about a quarter collide */
    CHECK(hidden * 10 > sent_hidden);
    /* heard: CCA defers one sender; what is left are the frames both
     * senders start within the vulnerable window (CCA + turnaround, 320 us),
     * about 2 x 0.32 ms / 30 ms of them */
    CHECK(heard * 100 < sent_heard * 3);
    CHECK(heard * 10 < hidden);
    CHECK_DRAINED();
}

TEST(test_half_duplex__sender_misses_frames)
{
    struct wren_sim *s = fx_sim(5);
    wren_sim_add_node(s, 0, 0, 0, 0);
    wren_sim_add_node(s, 1, 0, 0, 0);
    wren_sim_set_link(s, 0, 1, 1.0);
    wren_sim_set_link(s, 1, 0, 1.0);
    set_cca(s, 0, 0);
    set_cca(s, 1, 0);
    /* no CCA, both send at exactly the same periodic instants: nothing gets through */
    wren_sim_rawgen(s, 0, 1, 50, 10000, WREN_RAWGEN_PERIODIC, 20, 10000);
    wren_sim_rawgen(s, 1, 0, 50, 10000, WREN_RAWGEN_PERIODIC, 20, 10000);
    wren_sim_run(s, 1000000);
    uint64_t rx = counter(s, 0, "radio.rx_frames") + counter(s, 1, "radio.rx_frames");
    uint64_t missed = counter(s, 0, "radio.rx_while_tx") + counter(s, 1, "radio.rx_while_tx");
    uint64_t tx = counter(s, 0, "radio.tx_frames") + counter(s, 1, "radio.tx_frames");
    CHECK_EQ(tx, 40);
    CHECK_EQ(rx + missed, tx);
    CHECK_DRAINED();
}

TEST(test_channels__different_channels_do_not_hear)
{
    struct wren_sim *s = fx_sim(5);
    for (int i = 0; i < 3; i++) {
        wren_sim_add_node(s, i, 0, 0, 0);
    }
    for (uint32_t a = 0; a < 3; a++) {
        for (uint32_t b = 0; b < 3; b++) {
            if (a != b) {
                wren_sim_set_link(s, a, b, 1.0);
            }
        }
    }
    uint16_t ch = 15;
    CHECK_EQ(wren_sim_netopt_set(s, 2, WREN_NETOPT_CHANNEL, &ch, 2), 0);
    ch = 27;
    CHECK_EQ(wren_sim_netopt_set(s, 2, WREN_NETOPT_CHANNEL, &ch, 2), -EINVAL);
    wren_sim_rawgen(s, 0, -1, 30, 50000, WREN_RAWGEN_PERIODIC, 10, 0);
    wren_sim_rawgen(s, 1, -1, 30, 0, 0, 0, 0);
    wren_sim_rawgen(s, 2, -1, 30, 0, 0, 0, 0);
    wren_sim_run(s, 1000000);
    CHECK_EQ(counter(s, 1, "app.received"), 10);
    CHECK_EQ(counter(s, 2, "app.received"), 0);
    CHECK_EQ(counter(s, 2, "radio.rx_frames"), 0);
    CHECK_DRAINED();
}

TEST(test_link_prr__delivery_ratio_follows_prr)
{
    struct wren_sim *s = fx_sim(9);
    wren_sim_add_node(s, 0, 0, 0, 0);
    wren_sim_add_node(s, 1, 0, 0, 0);
    wren_sim_add_node(s, 2, 0, 0, 0);
    wren_sim_set_link(s, 0, 1, 0.7);
    wren_sim_set_link(s, 0, 2, 0.0); /* energy only */
    wren_sim_rawgen(s, 0, -1, 30, 10000, WREN_RAWGEN_PERIODIC, 1000, 0);
    wren_sim_rawgen(s, 1, -1, 30, 0, 0, 0, 0);
    wren_sim_rawgen(s, 2, -1, 30, 0, 0, 0, 0);
    wren_sim_run(s, 20000000);
    uint64_t got = counter(s, 1, "app.received");
    CHECK(got > 650 && got < 750);
    CHECK_EQ(got + counter(s, 1, "radio.rx_link_loss"), 1000);
    CHECK_EQ(counter(s, 2, "radio.rx_frames"), 0);
    CHECK_DRAINED();
}

static long capture(uint64_t seed, const char *path, uint8_t **data)
{
    struct wren_sim *s = fx_sim(seed);
    wren_sim_set_range(s, 15.0, 0.9);
    for (int i = 0; i < 16; i++) {
        wren_sim_add_node(s, 10.0 * (i % 4), 10.0 * (i / 4), 0, 0);
        set_cca(s, (uint32_t)i, 1);
    }
    wren_sim_open_pcap(s, path);
    for (uint32_t i = 0; i < 16; i++) {
        /* about 3 s of traffic, then it ends and drains */
        wren_sim_rawgen(s, i, (int32_t)((i + 1) % 16), 40, 50000, WREN_RAWGEN_POISSON, 60, 0);
    }
    wren_sim_run(s, 5000000);
    fx_sim_done(s); /* also closes the capture */
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    *data = malloc((size_t)n);
    if (fread(*data, 1, (size_t)n, f) != (size_t)n) {
        n = -1;
    }
    fclose(f);
    remove(path);
    return n;
}

TEST(test_determinism__same_seed_same_pcap_bytes)
{
    uint8_t *a, *b, *c;
    long na = capture(1234, "/tmp/wren_det_a.pcap", &a);
    long nb = capture(1234, "/tmp/wren_det_b.pcap", &b);
    long nc = capture(4321, "/tmp/wren_det_c.pcap", &c);
    int ok = na > 24 + 1000 && na == nb && memcmp(a, b, (size_t)na) == 0 &&
             (na != nc || memcmp(a, c, (size_t)na) != 0);
    /* pcap header: little-endian magic, LINKTYPE 195 */
    ok = ok && get_le32(a) == 0xa1b2c3d4u && get_le32(a + 20) == 195;
    free(a);
    free(b);
    free(c);
    CHECK(ok);
    CHECK_DRAINED();
}

/* ---- per-frame processing delay ---------------------------------------- */

/* Start times (us) of the data frames (not ACKs) node 0 put on the air,
 * read back from a capture of a run: node 0 sends @p n back-to-back unicast
 * frames of @p payload octets to node 1, CSMA with one CCA and no random
 * backoff, ACKs on, the radio's processing delay @p proc_us. */
static int data_frame_starts(uint32_t proc_us, uint16_t payload, int n, uint64_t *t,
                             uint8_t **cap, long *cap_len)
{
    const char *path = "/tmp/wren_proc_delay.pcap";
    struct wren_sim *s = fx_sim(5);
    wren_sim_add_node(s, 0, 0, 0, 0);
    wren_sim_add_node(s, 1, 0, 0, 0);
    wren_sim_set_link(s, 0, 1, 1.0);
    wren_sim_set_link(s, 1, 0, 1.0);
    uint8_t zero = 0;
    for (uint32_t i = 0; i < 2; i++) {
        wren_sim_netopt_set(s, i, WREN_NETOPT_CSMA_MIN_BE, &zero, 1);
        wren_sim_netopt_set(s, i, WREN_NETOPT_CSMA_MAX_BE, &zero, 1);
    }
    if (wren_sim_set_proc_delay(s, -1, proc_us) != 0 ||
        wren_sim_set_proc_delay(s, 7, 1) != -EINVAL) {
        return -1;
    }
    wren_sim_open_pcap(s, path);
    /* all queued at once: each frame goes as soon as the last is acknowledged */
    wren_sim_rawgen(s, 0, 1, payload, 1, WREN_RAWGEN_PERIODIC, (uint32_t)n, 0);
    wren_sim_rawgen(s, 1, -1, payload, 0, 0, 0, 0);
    wren_sim_run(s, 2000000);
    int ok = counter(s, 1, "app.received") == (uint64_t)n &&
             counter(s, 0, "mac.tx_retries") == 0 && wren_sim_pktbufs_clean(s) &&
             counter(s, 0, "radio.proc_us") ==
                 (uint64_t)n * proc_us * (payload + 17u) / 127u;
    fx_sim_done(s); /* also closes the capture */
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    uint8_t *d = malloc((size_t)len);
    if (fread(d, 1, (size_t)len, f) != (size_t)len) {
        ok = 0;
    }
    fclose(f);
    remove(path);
    int k = 0;
    for (long off = 24; off + 16 <= len && k < n;) {
        uint32_t incl = get_le32(d + off + 8);
        uint64_t ts = (uint64_t)get_le32(d + off) * 1000000u + get_le32(d + off + 4);
        if (incl > 5) { /* not an ACK */
            t[k++] = ts;
        }
        off += 16 + incl;
    }
    *cap = d;
    *cap_len = len;
    return ok && k == n ? 0 : -1;
}

TEST(test_proc_delay__gap_between_frames_grows_by_the_delay)
{
    uint64_t t0[4], t1[4], t2[4];
    uint8_t *c0, *c1, *c2;
    long n0, n1, n2;
    /* 110 octets of payload: a full 127-octet PSDU costs exactly the delay */
    CHECK_EQ(data_frame_starts(0, 110, 4, t0, &c0, &n0), 0);
    CHECK_EQ(data_frame_starts(4100, 110, 4, t1, &c1, &n1), 0);
    for (int i = 1; i < 4; i++) {
        CHECK_EQ(t1[i] - t1[i - 1], t0[i] - t0[i - 1] + 4100);
    }
    /* the first frame too is delayed (from the same send) */
    CHECK_EQ(t1[0], t0[0] + 4100);
    /* the same bytes on the air, only later; a run repeats exactly */
    CHECK_EQ(n0, n1);
    CHECK_EQ(data_frame_starts(4100, 110, 4, t2, &c2, &n2), 0);
    CHECK(n1 == n2 && memcmp(c1, c2, (size_t)n1) == 0);
    free(c0);
    free(c1);
    free(c2);
    /* a 64-octet PSDU (47 octets of payload) costs 64/127 of it */
    CHECK_EQ(data_frame_starts(0, 47, 3, t0, &c0, &n0), 0);
    CHECK_EQ(data_frame_starts(8200, 47, 3, t1, &c1, &n1), 0);
    free(c0);
    free(c1);
    CHECK_EQ((t1[2] - t1[1]) - (t0[2] - t0[1]), 8200u * 64u / 127u);
    CHECK_DRAINED();
}

TEST(test_proc_delay__acks_go_out_during_an_upload)
{
    /* both nodes send to each other all the time: frames arrive while the
     * receiver uploads its own, and are acknowledged at once all the same */
    struct wren_sim *s = fx_sim(8);
    wren_sim_add_node(s, 0, 0, 0, 0);
    wren_sim_add_node(s, 1, 0, 0, 0);
    wren_sim_set_link(s, 0, 1, 1.0);
    wren_sim_set_link(s, 1, 0, 1.0);
    wren_sim_set_proc_delay(s, -1, 4100);
    wren_sim_rawgen(s, 0, 1, 100, 30000, WREN_RAWGEN_POISSON, 300, 0);
    wren_sim_rawgen(s, 1, 0, 100, 30000, WREN_RAWGEN_POISSON, 300, 0);
    wren_sim_run(s, 10000000);
    uint64_t acks = counter(s, 0, "mac.ack_tx") + counter(s, 1, "mac.ack_tx");
    /* (busy ACKs come only from frames ending in a CCA or turnaround: a few,
     * 0 to 8 of about 600 over seeds 1..20, 4 with this one; at most 2 %) */
    CHECK((counter(s, 0, "mac.ack_tx_busy") + counter(s, 1, "mac.ack_tx_busy")) * 50 <= acks);
    CHECK_EQ(counter(s, 0, "mac.tx_noack") + counter(s, 1, "mac.tx_noack"), 0);
    CHECK(counter(s, 0, "radio.ack_during_proc") + counter(s, 1, "radio.ack_during_proc") >= 20);
    CHECK_EQ(counter(s, 0, "app.received") + counter(s, 1, "app.received"), 600);
    CHECK(acks >= 600);
    /* radio time still sums to the elapsed time; the delay is time on */
    for (uint32_t a = 0; a < 2; a++) {
        uint64_t sum = counter(s, a, "radio.time_off_us") + counter(s, a, "radio.time_listen_us") +
                       counter(s, a, "radio.time_rx_us") + counter(s, a, "radio.time_tx_us");
        CHECK_EQ(sum, 10000000);
        CHECK(counter(s, a, "radio.proc_us") >= 300u * 4100u * 117u / 127u);
    }
    CHECK_DRAINED();
}

/* ---- captures with channels (LINKTYPE_IEEE802_15_4_TAP) ----------------- */

/* node 0 sends 3 broadcasts on channel 15, then 3 on 20; the capture in
 * @p linktype; returns its bytes (malloc'ed) and length */
static long tap_capture(uint64_t seed, uint32_t linktype, uint8_t **out)
{
    const char *path = "/tmp/wren_tap.pcap";
    struct wren_sim *s = fx_sim(seed);
    wren_sim_add_node(s, 0, 0, 0, 0);
    wren_sim_add_node(s, 1, 0, 0, 0);
    wren_sim_set_link(s, 0, 1, 1.0);
    set_cca(s, 0, 0);
    if (wren_sim_open_pcap_as(s, path, linktype) != 0) {
        return -1;
    }
    uint16_t ch = 15;
    wren_sim_netopt_set(s, 0, WREN_NETOPT_CHANNEL, &ch, 2);
    wren_sim_rawgen(s, 0, -1, 20, 100000, WREN_RAWGEN_PERIODIC, 6, 0);
    wren_sim_run(s, 350000);
    ch = 20;
    wren_sim_netopt_set(s, 0, WREN_NETOPT_CHANNEL, &ch, 2);
    wren_sim_run(s, 1000000);
    fx_sim_done(s);
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    *out = malloc((size_t)len);
    if (fread(*out, 1, (size_t)len, f) != (size_t)len) {
        len = -1;
    }
    fclose(f);
    remove(path);
    return len;
}

TEST(test_pcap_tap__channel_of_each_frame)
{
    uint8_t *a, *b;
    long n = tap_capture(4, WREN_PCAP_LINKTYPE_IEEE802154_TAP, &a);
    CHECK(n > 24);
    CHECK_EQ(get_le32(a + 20), 283);
    int k = 0, on15 = 0;
    for (long off = 24; off + 16 <= n; k++) {
        uint32_t incl = get_le32(a + off + 8);
        const uint8_t *t = a + off + 16;
        /* TAP header: version 0, length 20: the FCS type TLV (16-bit CRC),
         * the channel TLV (channel, page 0), each padded to 4 octets */
        CHECK_EQ(t[0], 0);
        CHECK_EQ(get_le16(t + 2), 20);
        CHECK_EQ(get_le16(t + 4), 0);
        CHECK_EQ(get_le16(t + 6), 1);
        CHECK_EQ(t[8], 1);
        CHECK_EQ(get_le16(t + 12), 3);
        CHECK_EQ(get_le16(t + 14), 3);
        /* retuned at 350 ms */
        uint64_t ts = (uint64_t)get_le32(a + off) * 1000000u + get_le32(a + off + 4);
        CHECK_EQ(get_le16(t + 16), (ts < 350000 ? 15 : 20));
        on15 += ts < 350000;
        CHECK_EQ(t[18], 0);
        /* then the PSDU, whose FCS checks */
        CHECK_EQ(wren_ieee802154_fcs_check(t + 20, incl - 20), 0);
        off += 16 + incl;
    }
    CHECK_EQ(k, 6);
    CHECK(on15 >= 3 && on15 <= 4);
    /* the same seed: the same bytes */
    CHECK_EQ(tap_capture(4, WREN_PCAP_LINKTYPE_IEEE802154_TAP, &b), n);
    CHECK(memcmp(a, b, (size_t)n) == 0);
    free(a);
    free(b);
    /* the default format is 195, without TAP headers; other types refused */
    long n195 = tap_capture(4, WREN_PCAP_LINKTYPE_IEEE802154_FCS, &b);
    CHECK_EQ(n195, n - 6 * 20);
    CHECK_EQ(get_le32(b + 20), 195);
    free(b);
    CHECK_EQ(tap_capture(4, 1, &b), -1);
    CHECK_DRAINED();
}

/* ---- the path-loss model ----------------------------------------------- */

TEST(test_pathloss__prr_follows_the_oqpsk_curve)
{
    /* (1 - BER)^(8 L) with the 802.15.4 O-QPSK BER; values of the formula
     * computed independently (Python, math.comb) */
    CHECK(fabs(wren_pathloss_prr(0.0, 127) - 0.84864) < 1e-4);
    CHECK(fabs(wren_pathloss_prr(-1.0, 127) - 0.31099) < 1e-4);
    CHECK(fabs(wren_pathloss_prr(-3.0, 5) - 0.51572) < 1e-4);
    CHECK(fabs(wren_pathloss_ber(-2.0) - 0.0051970) < 1e-6);
    CHECK(wren_pathloss_prr(2.0, 127) > 0.999);
    CHECK(wren_pathloss_prr(WREN_PATHLOSS_MIN_SNR_DB, 5) < 0.01);
    CHECK(wren_pathloss_prr(20.0, 127) == 1.0);
    CHECK(wren_pathloss_ber(-40.0) <= 0.5);
    double last = 0;
    for (double snr = -10; snr <= 10; snr += 0.25) {
        double p = wren_pathloss_prr(snr, 60);
        CHECK(p >= last && p <= 1.0);
        CHECK(wren_pathloss_prr(snr, 5) >= p); /* shorter frames survive better */
        last = p;
    }
}

TEST(test_pathloss__links_from_distance_and_shadowing)
{
    struct wren_sim *s = fx_sim(9);
    /* no shadowing: RSSI = -40 - 30 log10(d); SNR = RSSI + 100 */
    CHECK_EQ(wren_sim_set_pathloss(s, 3.0, 40.0, 0.0, 0.0, -100.0), 0);
    const double xs[] = { 0, 50, 108, 200 };
    for (int i = 0; i < 4; i++) {
        wren_sim_add_node(s, xs[i], 0, 0, 0);
    }
    double prr;
    int32_t rssi;
    CHECK_EQ(wren_sim_link_info(s, 0, 1, 127, &prr, &rssi), 0);
    CHECK_EQ(rssi, -91); /* -40 - 30 log10(50) = -90.97 */
    CHECK(prr > 0.9999);
    CHECK_EQ(wren_sim_link_info(s, 0, 2, 127, &prr, &rssi), 0);
    CHECK_EQ(rssi, -101); /* SNR -1.0 dB */
    CHECK(fabs(prr - wren_pathloss_prr(60 - 30 * log10(108.0), 127)) < 1e-4);
    double prr_ack;
    CHECK_EQ(wren_sim_link_info(s, 2, 0, 5, &prr_ack, NULL), 0);
    CHECK(prr_ack > 0.9);
    CHECK_EQ(wren_sim_link_info(s, 0, 3, 127, &prr, &rssi), -ENOENT); /* SNR -9 dB */
    CHECK_EQ(wren_sim_link_info(s, 0, 9, 127, &prr, &rssi), -EINVAL);
    CHECK_EQ(wren_sim_link_info(s, 0, 1, 0, &prr, &rssi), -EINVAL);
    CHECK_EQ(wren_sim_set_pathloss(s, -1.0, 40.0, 0.0, 0.0, -100.0), -EINVAL);
    CHECK_EQ(wren_sim_set_pathloss(s, 3.0, 40.0, -2.0, 0.0, -100.0), -EINVAL);

    /* frames over the 108 m link get through at the PRR of their length:
     * 1000 broadcasts of a 60-octet PSDU (43 octets of payload) */
    set_cca(s, 0, 0);
    wren_sim_rawgen(s, 0, -1, 43, 10000, WREN_RAWGEN_PERIODIC, 1000, 0);
    wren_sim_rawgen(s, 2, -1, 43, 0, 0, 0, 0);
    wren_sim_run(s, 11000000);
    CHECK_EQ(counter(s, 0, "radio.tx_frames"), 1000);
    CHECK_EQ(wren_sim_link_info(s, 0, 2, 60, &prr, NULL), 0);
    double got = (double)counter(s, 2, "app.received") / 1000.0;
    /* binomial: 4.5 standard deviations (sqrt(p (1 - p) / 1000) < 0.016) */
    CHECK(prr > 0.5 && prr < 0.8);
    CHECK(fabs(got - prr) < 0.07);
    CHECK_EQ(counter(s, 2, "radio.rx_link_loss") + counter(s, 2, "app.received"), 1000);

    /* shadowing: drawn once per pair from the seed, the same both ways,
     * about N(0, sigma) over many pairs */
    struct wren_sim *s2 = fx_sim(10), *s3 = fx_sim(10), *s4 = fx_sim(11);
    struct wren_sim *v[3] = { s2, s3, s4 };
    for (int k = 0; k < 3; k++) {
        CHECK_EQ(wren_sim_set_pathloss(v[k], 3.0, 40.0, 6.0, 0.0, -100.0), 0);
        for (int i = 0; i < 40; i++) {
            wren_sim_add_node(v[k], 10.0 * i, 0, 0, 0); /* a line, 10 m apart */
        }
    }
    double sum = 0, sq = 0;
    int pairs = 0, same = 0, differ = 0;
    for (uint32_t a = 0; a < 40; a++) {
        for (uint32_t b = a + 1; b < 40; b++) {
            int32_t r_ab, r_ba, r3, r4;
            if (wren_sim_link_info(s2, a, b, 127, NULL, &r_ab) != 0) {
                continue;
            }
            CHECK_EQ(wren_sim_link_info(s2, b, a, 127, NULL, &r_ba), 0);
            CHECK_EQ(r_ab, r_ba);
            CHECK_EQ(wren_sim_link_info(s3, a, b, 127, NULL, &r3), 0);
            same += r3 == r_ab;
            differ += wren_sim_link_info(s4, a, b, 127, NULL, &r4) != 0 || r4 != r_ab;
            double mean = -40.0 - 30.0 * log10(10.0 * (b - a));
            sum += r_ab - mean;
            sq += (r_ab - mean) * (r_ab - mean);
            pairs++;
        }
    }
    CHECK(pairs > 200);
    CHECK_EQ(same, pairs);
    CHECK(differ > pairs / 2);
    /* (pairs far apart are only linked when shadowing helps: that biases
     * the mean up; the spread stays near sigma) */
    double m = sum / pairs, sd = sqrt(sq / pairs - m * m);
    CHECK(m > -2.0 && m < 4.0);
    CHECK(sd > 4.0 && sd < 7.5);
    CHECK_DRAINED();
}

static size_t make_frame(uint8_t *buf, uint16_t dst, uint16_t pan, const uint8_t *pl,
                         size_t plen)
{
    struct ieee802154_frame f;
    memset(&f, 0, sizeof(f));
    f.hdr.type = IEEE802154_TYPE_DATA;
    f.hdr.version = IEEE802154_VERSION_2006;
    f.hdr.dst_mode = IEEE802154_ADDR_SHORT;
    f.hdr.src_mode = IEEE802154_ADDR_SHORT;
    f.hdr.panid_comp = true;
    f.hdr.dst_pan = pan;
    put_be16(f.hdr.dst_addr, dst);
    put_be16(f.hdr.src_addr, 0x0042);
    f.payload = pl;
    f.payload_len = plen;
    int n = wren_ieee802154_emit(&f, buf, 125);
    put_le16(buf + n, wren_ieee802154_fcs(buf, (size_t)n));
    return (size_t)n + 2;
}

TEST(test_inject__malformed_frames_dropped_by_reason)
{
    struct wren_sim *s = fx_sim(2);
    wren_sim_add_node(s, 0, 0, 0, 0);
    wren_sim_rawgen(s, 0, -1, 30, 0, 0, 0, 0);
    uint8_t f[127];
    uint8_t pl[12] = { WREN_RAWGEN_NALP, 'w', 0, 0, 0, 9, 0, 0, 0, 1, 0, 0 };
    pl[10] = (uint8_t)(9 * 31 + 1 * 7 + 10);
    pl[11] = (uint8_t)(9 * 31 + 1 * 7 + 11);

    /* a good one */
    size_t n = make_frame(f, 0x0000, 0x0023, pl, sizeof(pl));
    CHECK_EQ(wren_sim_inject(s, 0, f, n), 0);
    wren_sim_run(s, 1);
    CHECK_EQ(counter(s, 0, "app.received"), 1);
    /* bad FCS: the radio drops it */
    f[3] ^= 1;
    CHECK_EQ(wren_sim_inject(s, 0, f, n), 0);
    wren_sim_run(s, 2);
    CHECK_EQ(counter(s, 0, "radio.rx_bad_fcs"), 1);
    /* another PAN, another address */
    n = make_frame(f, 0x0000, 0x0099, pl, sizeof(pl));
    wren_sim_inject(s, 0, f, n);
    wren_sim_run(s, 3);
    n = make_frame(f, 0x0007, 0x0023, pl, sizeof(pl));
    wren_sim_inject(s, 0, f, n);
    wren_sim_run(s, 4);
    CHECK_EQ(counter(s, 0, "netif.rx_drop_not_for_us"), 2);
    /* truncated headers: every prefix of a good frame, with a valid FCS */
    uint8_t good[127];
    size_t gn = make_frame(good, 0xffff, 0x0023, pl, sizeof(pl));
    uint64_t before = counter(s, 0, "netif.rx_drop_malformed");
    for (size_t k = 1; k < 9; k++) {
        memcpy(f, good, k);
        put_le16(f + k, wren_ieee802154_fcs(f, k));
        CHECK_EQ(wren_sim_inject(s, 0, f, k + 2), 0);
        wren_sim_run(s, 10 + k);
    }
    CHECK_EQ(counter(s, 0, "netif.rx_drop_malformed") - before, 8);
    /* reserved frame version and address mode, an ACK, a MAC command */
    memcpy(f, good, gn);
    f[1] |= 0x30; /* version 3 */
    put_le16(f + gn - 2, wren_ieee802154_fcs(f, gn - 2));
    wren_sim_inject(s, 0, f, gn);
    wren_sim_run(s, 30);
    memcpy(f, good, gn);
    f[1] = (uint8_t)((f[1] & ~0x0c) | 0x04); /* dst mode 1 */
    put_le16(f + gn - 2, wren_ieee802154_fcs(f, gn - 2));
    wren_sim_inject(s, 0, f, gn);
    wren_sim_run(s, 31);
    CHECK_EQ(counter(s, 0, "netif.rx_drop_malformed") - before, 10);
    uint8_t ack[5] = { 0x02, 0x00, 0x17, 0, 0 };
    put_le16(ack + 3, wren_ieee802154_fcs(ack, 3));
    wren_sim_inject(s, 0, ack, 5);
    wren_sim_run(s, 32);
    CHECK_EQ(counter(s, 0, "mac.rx_ack_stray"), 1); /* nobody waited for it */
    /* 6LoWPAN frames: an uncompressed IPv6 header cut short, a mesh header */
    uint8_t ipv6[3] = { 0x41, 0x60, 0x00 };
    n = make_frame(f, 0xffff, 0x0023, ipv6, sizeof(ipv6));
    wren_sim_inject(s, 0, f, n);
    wren_sim_run(s, 33);
    CHECK_EQ(counter(s, 0, "ipv6.rx_drop_hdr"), 1);
    uint8_t mesh[4] = { 0x80, 0x01, 0x02, 0x03 };
    n = make_frame(f, 0xffff, 0x0023, mesh, sizeof(mesh));
    wren_sim_inject(s, 0, f, n);
    wren_sim_run(s, 34);
    CHECK_EQ(counter(s, 0, "6lowpan.rx_drop_dispatch"), 1);
    /* an unread frame blocks the next injection */
    wren_sim_inject(s, 0, f, n);
    CHECK_EQ(wren_sim_inject(s, 0, f, n), -EBUSY);
    wren_sim_run(s, 40);
    CHECK_EQ(counter(s, 0, "app.received"), 1);
    CHECK_EQ(counter(s, 0, "app.rx_bad"), 0);
    CHECK_DRAINED();
}

TEST(test_scale__ten_thousand_nodes)
{
    struct wren_sim *s = fx_sim(77);
    wren_sim_set_range(s, 12.0, 1.0);
    uint32_t seed = 1;
    for (int i = 0; i < 10000; i++) {
        seed = seed * 1103515245u + 12345u;
        double x = (seed >> 8) % 1000, y = (seed >> 4) % 1000;
        CHECK_EQ(wren_sim_add_node(s, x, y, 0, 0), i);
    }
    CHECK_EQ(wren_sim_node_count(s), 10000);
    for (uint32_t i = 0; i < 10000; i += 10) {
        wren_sim_rawgen(s, i, -1, 20, 500000, WREN_RAWGEN_JITTER, 4, 0);
    }
    wren_sim_run(s, 2000000);
    uint64_t tx = 0;
    for (uint32_t i = 0; i < 10000; i += 10) {
        tx += counter(s, i, "radio.tx_frames");
    }
    CHECK(tx >= 3000);
    printf("  10000 nodes, %zu bytes per node\n", wren_sim_bytes_per_node(s));
    CHECK_DRAINED();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_airtime__127_octet_psdu_is_4256us),
        FX_TEST(test_time_accounting__states_sum_to_elapsed),
        FX_TEST(test_hidden_terminal__collisions_vanish_when_senders_hear_each_other),
        FX_TEST(test_half_duplex__sender_misses_frames),
        FX_TEST(test_channels__different_channels_do_not_hear),
        FX_TEST(test_link_prr__delivery_ratio_follows_prr),
        FX_TEST(test_determinism__same_seed_same_pcap_bytes),
        FX_TEST(test_proc_delay__gap_between_frames_grows_by_the_delay),
        FX_TEST(test_proc_delay__acks_go_out_during_an_upload),
        FX_TEST(test_inject__malformed_frames_dropped_by_reason),
        FX_TEST(test_pcap_tap__channel_of_each_frame),
        FX_TEST(test_pathloss__prr_follows_the_oqpsk_curve),
        FX_TEST(test_pathloss__links_from_distance_and_shadowing),
        FX_TEST(test_scale__ten_thousand_nodes),
    };
    return cmocka_run_group_tests_name("medium", tests, NULL, NULL);
}
