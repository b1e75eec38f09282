/* The ZEP radio: the air model (pure, on given times), then the device over
 * real UDP sockets on the loopback with the host runtime's loop, the test
 * playing both the stack (it services the ISR, reads frames) and a peer
 * radio (a socket sending ZEP). A datagram marks its frame's end (RX-done).
 * Times are only lower bounds: no timer fires early and a datagram's kernel
 * timestamp falls inside its sender's sendto(), so each bound holds however
 * loaded the machine is. Where an outcome
 * depends on the test itself being quick (the CCA that must find a burst
 * still on the air), the test checks that it was before asserting it. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/byteorder.h"
#include "host/rt_host.h"
#include "host/zep.h"
#include "net/netopt.h"
#include "wire/ieee802154.h"
#include "wire/zep.h"
#include "fixture.h"

static uint64_t air(unsigned psdu)
{
    return wren_zep_airtime_us(psdu);
}

TEST(test_zep_air__a_frame_ended_at_its_arrival)
{
    /* RX-done: a datagram arriving at t is a frame on the air in [t - airtime, t] */
    struct wren_zep_air a = {0};
    bool ov;
    CHECK_EQ(air(127), 4256u); /* 133 octets at 32 us */
    CHECK_EQ(wren_zep_air_heard(&a, 1000, 10, &ov), 1000 - air(10));
    CHECK(!ov);
    CHECK(!wren_zep_air_busy(&a, 0, 1000 - air(10) - 1));
    CHECK(wren_zep_air_busy(&a, 0, 1000 - air(10)));
    CHECK(wren_zep_air_busy(&a, 1000, 5000));
    CHECK(!wren_zep_air_busy(&a, 1001, 5000));
    FX_CLEAN(0);
}

TEST(test_zep_air__overlapping_frames_make_one_spell)
{
    struct wren_zep_air a = {0};
    bool ov;
    uint64_t s1 = wren_zep_air_heard(&a, 5000, 127, &ov);
    CHECK(!ov);
    CHECK_EQ(s1, 5000 - air(127));
    /* ends 10 us after the first: it began while the first was on the air */
    uint64_t s2 = wren_zep_air_heard(&a, 5010, 20, &ov);
    CHECK(ov);
    CHECK_EQ(s2, 5010 - air(20));
    CHECK(wren_zep_air_busy(&a, s1, s1));
    CHECK(wren_zep_air_busy(&a, 5010, 5010));
    CHECK(!wren_zep_air_busy(&a, 5011, 9000));
    /* a long frame that began before the short one it follows ended */
    uint64_t s3 = wren_zep_air_heard(&a, 6000, 127, &ov);
    CHECK(ov);
    CHECK_EQ(s3, 6000 - air(127));
    CHECK(wren_zep_air_busy(&a, 5500, 5500));
    /* after a silence: its own spell */
    uint64_t s4 = wren_zep_air_heard(&a, 20000, 5, &ov);
    CHECK(!ov);
    CHECK_EQ(s4, 20000 - air(5));
    CHECK(!wren_zep_air_busy(&a, 6001, s4 - 1));
    /* a burst stays one busy spell, however many frames it holds */
    struct wren_zep_air b = {0};
    for (unsigned i = 0; i < 3 * WREN_ZEP_AIR_HIST; i++) {
        wren_zep_air_heard(&b, 10000 + i * 100, 127, &ov);
        CHECK_EQ(ov, i > 0);
    }
    CHECK(wren_zep_air_busy(&b, 10000 - air(127), 10000 - air(127)));
    CHECK(wren_zep_air_busy(&b, 10000 + (3 * WREN_ZEP_AIR_HIST - 1) * 100, UINT64_MAX));
    CHECK(!wren_zep_air_busy(&b, 10000 + (3 * WREN_ZEP_AIR_HIST - 1) * 100 + 1, UINT64_MAX));
    FX_CLEAN(0);
}

/* ---- the device over sockets --------------------------------------------- */

static struct wren_host *host;
static struct wren_zep zep;
static int peer = -1;        /* the other radio: where the device sends */
static uint16_t zep_port;    /* where the device listens */
static enum wren_netdev_event last_tx;
static uint64_t last_tx_at;
static uint8_t rx_buf[128]; /* the last frame read */
static int rx_len;
static uint64_t rx_at;
static uint8_t rx_seqs[16];  /* every frame read: its sequence number */
static int n_rx;
static bool ack_on_rx;       /* play the MAC: acknowledge each frame read */
static uint64_t ack_sent_at; /* when the stack asked for that ACK */

static void ev(struct wren_netdev *dev, enum wren_netdev_event e)
{
    switch (e) {
    case WREN_NETDEV_EV_ISR:
        dev->driver->isr(dev); /* the stack's thread, right away */
        break;
    case WREN_NETDEV_EV_RX_COMPLETE:
        rx_at = wren_host_now();
        rx_len = dev->driver->recv(dev, rx_buf, sizeof(rx_buf), NULL);
        if (rx_len >= 3 && n_rx < 16) {
            rx_seqs[n_rx++] = rx_buf[2];
        }
        if (ack_on_rx && rx_len >= 3) {
            const uint8_t ack[3] = {IEEE802154_TYPE_ACK, 0, rx_buf[2]};
            struct wren_iolist iol = {.base = ack, .len = sizeof(ack)};
            ack_sent_at = wren_host_now();
            CHECK_EQ(dev->driver->send(dev, &iol), 3);
        }
        break;
    case WREN_NETDEV_EV_TX_COMPLETE:
    case WREN_NETDEV_EV_TX_MEDIUM_BUSY:
        last_tx = e;
        last_tx_at = wren_host_now();
        wren_host_stop(host);
        break;
    default:
        break;
    }
}

/* the wall clock in us: what the kernel stamps datagrams with */
static uint64_t real_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static uint16_t bound_port(int fd)
{
    struct sockaddr_in a;
    socklen_t l = sizeof(a);
    CHECK_EQ(getsockname(fd, (struct sockaddr *)&a, &l), 0);
    return ntohs(a.sin_port);
}

/* a datagram at the peer and the kernel's receive time of it (wall clock, us) */
static ssize_t peer_recv(uint8_t *buf, size_t len, uint64_t *stamp)
{
    union {
        char b[CMSG_SPACE(sizeof(struct timespec))];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = {.iov_base = buf, .iov_len = len};
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b, .msg_controllen = sizeof(ctl.b)};
    ssize_t n = recvmsg(peer, &mh, 0);
    *stamp = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec ts;
            memcpy(&ts, CMSG_DATA(c), sizeof(ts));
            *stamp = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
        }
    }
    CHECK(*stamp != 0);
    return n;
}

static int setup(void **state)
{
    fx_setup(state);
    host = fx_host();
    fx_host_node(host, 2048);
    peer = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    CHECK(peer >= 0);
    int on = 1;
    CHECK_EQ(setsockopt(peer, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)), 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK_EQ(bind(peer, (struct sockaddr *)&a, sizeof(a)), 0);
    char why[200];
    CHECK_EQ(wren_zep_open(&zep, host, 0, "127.0.0.1", bound_port(peer), 7, why, sizeof(why)),
             0);
    zep.netdev.event_cb = ev;
    zep_port = bound_port(zep.hfd.fd);
    /* the hello the device sends a dispatcher */
    uint8_t b[64];
    CHECK_EQ(recv(peer, b, sizeof(b), 0), ZEP_V2_ACK_LEN);
    last_tx = 0;
    rx_len = 0;
    n_rx = 0;
    ack_on_rx = false;
    return 0;
}

static int teardown(void **state)
{
    wren_zep_close(&zep);
    if (peer >= 0) {
        close(peer);
        peer = -1;
    }
    return fx_teardown(state); /* (the fixture's host with it) */
}

/* the peer radio's frame of @p psdu_len octets (FCS included) on @p ch,
 * @p fc0 its first frame-control octet */
static void peer_send_fc(uint8_t ch, unsigned psdu_len, uint8_t seq, uint8_t fc0)
{
    uint8_t b[ZEP_V2_HDR_LEN + ZEP_MAX_PSDU];
    struct zep_hdr h = {.type = ZEP_TYPE_DATA, .channel = ch, .device_id = 9, .crc_mode = 1,
                        .lqi = 200, .seq = seq, .len = (uint8_t)psdu_len};
    CHECK_EQ(wren_zep_emit(&h, b, ZEP_V2_HDR_LEN), ZEP_V2_HDR_LEN);
    uint8_t *p = b + ZEP_V2_HDR_LEN;
    memset(p, 0, psdu_len);
    p[0] = fc0;
    p[1] = psdu_len > 5 ? 0x88 : 0; /* short addresses (an Imm-Ack has none) */
    p[2] = seq;
    put_le16(p + psdu_len - 2, wren_ieee802154_fcs(p, psdu_len - 2));
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(zep_port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK_EQ(sendto(peer, b, ZEP_V2_HDR_LEN + psdu_len, 0, (struct sockaddr *)&to, sizeof(to)),
             (ssize_t)(ZEP_V2_HDR_LEN + psdu_len));
}

static void peer_send(uint8_t ch, unsigned psdu_len, uint8_t seq)
{
    peer_send_fc(ch, psdu_len, seq, 0x41); /* data frame, PAN ID compression */
}

static int dev_send(const uint8_t *frame, size_t len)
{
    struct wren_iolist iol = {.base = frame, .len = len};
    return zep.netdev.driver->send(&zep.netdev, &iol);
}

static void set_cca(bool on)
{
    uint8_t v = on;
    CHECK_EQ(zep.netdev.driver->set(&zep.netdev, WREN_NETOPT_CCA_BEFORE_TX, &v, 1), 0);
}

/* run the loop until a TX outcome (or 2 s, a hang guard) */
static void run_tx(void)
{
    wren_host_run_for(host, 2000000);
    host->stop = false;
}

/* what has arrived at the device's socket is read, as the loop would when
 * it is readable, and nothing else: no timer runs */
static void read_now(unsigned expect)
{
    struct pollfd p = {.fd = zep.hfd.fd, .events = POLLIN};
    unsigned before = zep.stats.rx_packets;
    for (int i = 0; i < 200 && zep.stats.rx_packets < before + expect; i++) {
        CHECK_EQ(poll(&p, 1, 10), 1);
        zep.hfd.cb(&zep.hfd, POLLIN);
    }
    CHECK_EQ(zep.stats.rx_packets, before + expect);
}

TEST(test_zep_send__the_datagram_leaves_when_the_frame_ends)
{
    static const uint8_t frame[20] = {0x41, 0x88, 1};
    set_cca(true);
    uint64_t r0 = real_us();
    uint64_t t0 = wren_host_now();
    CHECK_EQ(dev_send(frame, sizeof(frame)), 20);
    CHECK_EQ(dev_send(frame, sizeof(frame)), -EBUSY); /* one at a time */
    run_tx();
    CHECK_EQ(last_tx, WREN_NETDEV_EV_TX_COMPLETE);
    CHECK(last_tx_at >= t0 + WREN_ZEP_CCA_US + WREN_ZEP_TURNAROUND_US + air(22));
    /* on the wire: ZEP v2, channel 26, the frame and its FCS, once the
     * CCA, the turnaround and the frame's whole airtime have passed */
    uint8_t b[256];
    uint64_t stamp;
    ssize_t n = peer_recv(b, sizeof(b), &stamp);
    CHECK(stamp >= r0 + WREN_ZEP_CCA_US + WREN_ZEP_TURNAROUND_US + air(22));
    struct zep_frame f;
    CHECK_EQ(wren_zep_parse(b, (size_t)n, &f), 0);
    CHECK_EQ(f.hdr.type, ZEP_TYPE_DATA);
    CHECK_EQ(f.hdr.channel, 26);
    CHECK_EQ(f.hdr.device_id, 7);
    CHECK_EQ(f.hdr.len, 22);
    CHECK_EQ(memcmp(f.psdu, frame, 20), 0);
    CHECK_EQ(wren_ieee802154_fcs_check(f.psdu, 22), 0);
    CHECK_EQ(zep.stats.tx_frames, 1);
    CHECK_EQ(zep.stats.cca_busy, 0);
    FX_CLEAN(0);
}

TEST(test_zep_ack__turnaround_and_airtime_after_the_frame_it_answers)
{
    /* the peer's frame asks for an ACK; the stack answers as it reads it */
    set_cca(true); /* an Imm-Ack goes without CCA all the same */
    ack_on_rx = true;
    uint64_t r0 = real_us();
    peer_send_fc(26, 60, 42, 0x61); /* data, ACK request, PAN ID compression */
    read_now(1);
    CHECK_EQ(rx_len, 58);
    CHECK_EQ(zep.stats.rx_frames, 1);
    /* on the air aTurnaroundTime after the frame's end (its arrival), not
     * after the stack got to it */
    CHECK(zep.tx_on_air >= zep.rx_last_end + WREN_ZEP_TURNAROUND_US);
    if (ack_sent_at < zep.rx_last_end + WREN_ZEP_TURNAROUND_US) {
        CHECK_EQ(zep.tx_on_air, zep.rx_last_end + WREN_ZEP_TURNAROUND_US);
    }
    run_tx();
    CHECK_EQ(last_tx, WREN_NETDEV_EV_TX_COMPLETE);
    CHECK_EQ(zep.stats.tx_acks, 1);
    CHECK_EQ(zep.stats.cca_busy, 0);
    /* the ACK's datagram: 192 us + its own airtime (352 us) after the frame's */
    uint8_t b[64];
    uint64_t stamp;
    CHECK_EQ(peer_recv(b, sizeof(b), &stamp), ZEP_V2_HDR_LEN + 5);
    CHECK(stamp >= r0 + WREN_ZEP_TURNAROUND_US + air(5));
    CHECK_EQ(b[ZEP_V2_HDR_LEN] & 7, IEEE802154_TYPE_ACK);
    CHECK_EQ(b[ZEP_V2_HDR_LEN + 2], 42);
    FX_CLEAN(0);
}

TEST(test_zep_recv__a_frame_is_handed_over_at_its_arrival)
{
    /* RX-done: no timer between the datagram and the stack */
    peer_send(26, 127, 3);
    read_now(1);
    CHECK_EQ(rx_len, 125); /* the FCS stripped */
    CHECK_EQ(rx_buf[2], 3);
    CHECK_EQ(zep.stats.rx_frames, 1);
    CHECK_EQ(zep.rx_count, 0u);
    FX_CLEAN(0);
}

TEST(test_zep_recv__other_channels_dropped_unless_any_channel)
{
    peer_send(11, 30, 1);
    peer_send(0, 30, 2);
    peer_send(26, 30, 3);
    read_now(3);
    CHECK_EQ(rx_buf[2], 3);
    CHECK_EQ(zep.stats.rx_other_channel, 2);
    /* channel 0 (lwIP's zepif): a channel like the others */
    uint16_t ch = 0;
    CHECK_EQ(zep.netdev.driver->set(&zep.netdev, WREN_NETOPT_CHANNEL, &ch, 2), 0);
    ch = 10;
    CHECK_EQ(zep.netdev.driver->set(&zep.netdev, WREN_NETOPT_CHANNEL, &ch, 2), -EINVAL);
    rx_len = 0;
    peer_send(26, 30, 4);
    peer_send(0, 30, 5);
    read_now(2);
    CHECK_EQ(rx_buf[2], 5);
    CHECK_EQ(zep.stats.rx_other_channel, 3);
    /* any channel */
    zep.any_channel = true;
    rx_len = 0;
    peer_send(15, 30, 6);
    read_now(1);
    CHECK_EQ(rx_buf[2], 6);
    CHECK_EQ(zep.stats.rx_other_channel, 3);
    CHECK_EQ(zep.stats.rx_frames, 3);
    FX_CLEAN(0);
}

TEST(test_zep_half_duplex__a_frame_on_the_air_during_ours_is_lost)
{
    /* a long frame from the peer ends while ours is being sent: it began
     * before ours ended, so the radio, sending, missed it */
    static const uint8_t frame[20] = {0x41, 0x88, 1};
    set_cca(false);
    uint64_t t0 = wren_host_now();
    CHECK_EQ(dev_send(frame, sizeof(frame)), 20);
    peer_send(26, 127, 9);
    uint64_t t1 = wren_host_now();
    run_tx();
    CHECK_EQ(last_tx, WREN_NETDEV_EV_TX_COMPLETE);
    for (int i = 0; i < 50 && zep.stats.rx_packets < 1; i++) {
        wren_host_run_for(host, 1000);
    }
    CHECK_EQ(zep.stats.rx_packets, 1);
    if (t1 < t0 + WREN_ZEP_TURNAROUND_US + air(22)) {
        /* it arrived before ours had ended */
        CHECK_EQ(zep.stats.rx_while_tx, 1);
        CHECK_EQ(zep.stats.rx_frames, 0);
    }
    FX_CLEAN(0);
}

TEST(test_zep_cca__a_frame_on_the_air_during_it_stops_ours_when_heard_later)
{
    /* RX-done: a frame on the air during our CCA is heard only at its end,
     * while ours is on the air; nobody has heard of ours yet, so the CCA
     * was busy after all: ours is not sent, and the frame is received */
    static const uint8_t frame[20] = {0x41, 0x88, 1};
    set_cca(true);
    CHECK_EQ(dev_send(frame, sizeof(frame)), 20);
    for (int i = 0; i < 2000 && zep.tx_phase == WREN_ZEP_TX_CCA; i++) {
        wren_host_run_for(host, 20);
    }
    uint64_t planned_end = zep.tx_until;
    peer_send(26, 127, 5); /* 4,256 us on the air, ending now */
    uint64_t t1 = wren_host_now();
    run_tx();
    if (t1 < planned_end && t1 < zep.cca_end + air(127)) {
        /* it arrived before ours ended, and began before our CCA ended */
        CHECK_EQ(last_tx, WREN_NETDEV_EV_TX_MEDIUM_BUSY);
        CHECK_EQ(zep.stats.cca_busy, 1);
        CHECK_EQ(zep.stats.tx_frames, 0);
        CHECK_EQ(zep.stats.rx_while_tx, 0);
        CHECK_EQ(n_rx, 1);
        CHECK_EQ(rx_seqs[0], 5);
        uint8_t b[256];
        CHECK_EQ(recv(peer, b, sizeof(b), MSG_DONTWAIT), -1); /* nothing went out */
    }
    FX_CLEAN(0);
}

TEST(test_zep_half_duplex__an_ack_after_our_frame_is_received)
{
    /* a peer that answers at once, with no turnaround at all: its ACK
     * arrives after our datagram left, so it answers our frame and was on
     * the air (if anywhere) after it: never lost to half-duplex */
    static const uint8_t frame[20] = {0x61, 0x88, 77};
    set_cca(false);
    CHECK_EQ(dev_send(frame, sizeof(frame)), 20);
    run_tx();
    CHECK_EQ(last_tx, WREN_NETDEV_EV_TX_COMPLETE);
    uint8_t b[256];
    uint64_t stamp;
    CHECK(peer_recv(b, sizeof(b), &stamp) > 0);
    peer_send_fc(26, 5, 77, IEEE802154_TYPE_ACK);
    read_now(1);
    CHECK_EQ(zep.stats.rx_while_tx, 0);
    CHECK_EQ(zep.stats.rx_frames, 1);
    CHECK_EQ(rx_len, 3);
    CHECK_EQ(rx_buf[2], 77);
    FX_CLEAN(0);
}

TEST(test_zep_cca__a_frame_that_ended_before_it_leaves_it_clear)
{
    /* RX-done: a frame read before the CCA began was on the air before it */
    static const uint8_t frame[20] = {0x41, 0x88, 1};
    peer_send(26, 127, 1);
    read_now(1);
    set_cca(true);
    CHECK_EQ(dev_send(frame, sizeof(frame)), 20);
    run_tx();
    CHECK_EQ(last_tx, WREN_NETDEV_EV_TX_COMPLETE);
    CHECK_EQ(zep.stats.cca_busy, 0);
    FX_CLEAN(0);
}

TEST(test_zep_cca__busy_when_a_frame_ends_during_it)
{
    /* the peer sends like a wire: eight full frames at once, each ending
     * (arriving) while the one before was on the air */
    static const uint8_t frame[20] = {0x41, 0x88, 1};
    set_cca(true);
    uint64_t t0 = wren_host_now();
    CHECK_EQ(dev_send(frame, sizeof(frame)), 20);
    for (uint8_t i = 0; i < 8; i++) {
        peer_send(26, 127, i);
    }
    uint64_t t1 = wren_host_now();
    run_tx();
    CHECK_EQ(zep.stats.rx_packets, 8);
    if (t1 < t0 + WREN_ZEP_CCA_US) {
        /* they all ended during the CCA */
        CHECK_EQ(last_tx, WREN_NETDEV_EV_TX_MEDIUM_BUSY);
        CHECK_EQ(zep.stats.cca_busy, 1);
        CHECK_EQ(zep.stats.tx_frames, 0);
    }
    if (t1 - t0 < air(127)) {
        /* each began while the one before was on the air: received all the same */
        CHECK_EQ(zep.stats.rx_overlap, 7);
    }
    /* every frame is handed over, in order */
    CHECK_EQ(n_rx, 8);
    for (int i = 0; i < 8; i++) {
        CHECK_EQ(rx_seqs[i], i);
    }
    /* the air is quiet again: a CCA finds it clear */
    last_tx = 0;
    CHECK_EQ(dev_send(frame, sizeof(frame)), 20);
    run_tx();
    CHECK_EQ(last_tx, WREN_NETDEV_EV_TX_COMPLETE);
    FX_CLEAN(0);
}

TEST(test_zep_get__a_radio_with_a_link_delay)
{
    uint8_t b = 1;
    uint32_t d = 0;
    CHECK_EQ(zep.netdev.driver->get(&zep.netdev, WREN_NETOPT_IS_WIRED, &b, 1), 1);
    CHECK_EQ(b, 0);
    CHECK_EQ(zep.netdev.driver->get(&zep.netdev, WREN_NETOPT_LINK_DELAY, &d, 4), 4);
    CHECK_EQ(d, CONFIG_WREN_ZEP_LINK_DELAY_US);
    FX_CLEAN(0);
}

#define DEV_TEST(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_zep_air__a_frame_ended_at_its_arrival),
        FX_TEST(test_zep_air__overlapping_frames_make_one_spell),
        DEV_TEST(test_zep_send__the_datagram_leaves_when_the_frame_ends),
        DEV_TEST(test_zep_ack__turnaround_and_airtime_after_the_frame_it_answers),
        DEV_TEST(test_zep_recv__a_frame_is_handed_over_at_its_arrival),
        DEV_TEST(test_zep_recv__other_channels_dropped_unless_any_channel),
        DEV_TEST(test_zep_half_duplex__a_frame_on_the_air_during_ours_is_lost),
        DEV_TEST(test_zep_cca__a_frame_on_the_air_during_it_stops_ours_when_heard_later),
        DEV_TEST(test_zep_half_duplex__an_ack_after_our_frame_is_received),
        DEV_TEST(test_zep_cca__a_frame_that_ended_before_it_leaves_it_clear),
        DEV_TEST(test_zep_cca__busy_when_a_frame_ends_during_it),
        DEV_TEST(test_zep_get__a_radio_with_a_link_delay),
    };
    return cmocka_run_group_tests_name("zep_radio", tests, NULL, NULL);
}
