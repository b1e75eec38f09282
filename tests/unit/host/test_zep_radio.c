/* The ZEP radio: the air model (pure, on given times), then the device over
 * real UDP sockets on the loopback with the host runtime's loop, the test
 * playing both the stack (it services the ISR, reads frames) and a peer
 * radio (a socket sending ZEP). Times are only lower bounds: no timer fires
 * early and a datagram's kernel timestamp falls inside the peer's sendto(),
 * so each bound holds however loaded the machine is. Where an outcome
 * depends on the test itself being quick (the CCA that must find a burst
 * still on the air), the test checks that it was before asserting it. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
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

TEST(test_zep_air__a_frame_occupies_its_airtime)
{
    struct wren_zep_air a = {0};
    bool ov;
    CHECK_EQ(air(127), 4256u); /* 133 octets at 32 us */
    CHECK_EQ(wren_zep_air_heard(&a, 1000, 10, &ov), 1000 + air(10));
    CHECK(!ov);
    CHECK(!wren_zep_air_busy(&a, 0, 999));
    CHECK(wren_zep_air_busy(&a, 0, 1000));
    CHECK(wren_zep_air_busy(&a, 1000 + air(10) - 1, 5000));
    CHECK(!wren_zep_air_busy(&a, 1000 + air(10), 5000));
    FX_CLEAN(0);
}

TEST(test_zep_air__overlapping_frames_follow_each_other)
{
    struct wren_zep_air a = {0};
    bool ov;
    uint64_t e1 = wren_zep_air_heard(&a, 0, 127, &ov);
    CHECK(!ov);
    /* arrives while the first is on the air: received after it */
    uint64_t e2 = wren_zep_air_heard(&a, 10, 20, &ov);
    CHECK(ov);
    CHECK_EQ(e2, e1 + air(20));
    CHECK(wren_zep_air_busy(&a, e1, e1));
    CHECK(!wren_zep_air_busy(&a, e2, e2 + 100));
    /* after a silence: from its own arrival */
    uint64_t e3 = wren_zep_air_heard(&a, e2 + 5000, 5, &ov);
    CHECK(!ov);
    CHECK_EQ(e3, e2 + 5000 + air(5));
    CHECK(!wren_zep_air_busy(&a, e2, e2 + 4999));
    /* a long burst stays one busy spell, however many frames it holds */
    struct wren_zep_air b = {0};
    for (unsigned i = 0; i < 3 * WREN_ZEP_AIR_HIST; i++) {
        wren_zep_air_heard(&b, 100 + i, 127, &ov);
        CHECK_EQ(ov, i > 0);
    }
    CHECK(wren_zep_air_busy(&b, 100, 100));
    CHECK(wren_zep_air_busy(&b, 100 + 3 * WREN_ZEP_AIR_HIST * air(127) - 1, UINT64_MAX));
    CHECK(!wren_zep_air_busy(&b, 100 + 3 * WREN_ZEP_AIR_HIST * air(127), UINT64_MAX));
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
static uint8_t rx_seqs[16];  /* every frame read: its sequence number, when */
static uint64_t rx_ats[16];
static int n_rx;

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
            rx_seqs[n_rx] = rx_buf[2];
            rx_ats[n_rx++] = rx_at;
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

static uint16_t bound_port(int fd)
{
    struct sockaddr_in a;
    socklen_t l = sizeof(a);
    CHECK_EQ(getsockname(fd, (struct sockaddr *)&a, &l), 0);
    return ntohs(a.sin_port);
}

static int setup(void **state)
{
    fx_setup(state);
    host = fx_host();
    fx_host_node(host, 2048);
    peer = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    CHECK(peer >= 0);
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

/* the peer radio sends one frame of @p psdu_len octets (FCS included) on @p ch */
static void peer_send(uint8_t ch, unsigned psdu_len, uint8_t seq)
{
    uint8_t b[ZEP_V2_HDR_LEN + ZEP_MAX_PSDU];
    struct zep_hdr h = {.type = ZEP_TYPE_DATA, .channel = ch, .device_id = 9, .crc_mode = 1,
                        .lqi = 200, .seq = seq, .len = (uint8_t)psdu_len};
    CHECK_EQ(wren_zep_emit(&h, b, ZEP_V2_HDR_LEN), ZEP_V2_HDR_LEN);
    uint8_t *p = b + ZEP_V2_HDR_LEN;
    memset(p, 0, psdu_len);
    p[0] = 0x41; /* data frame, PAN ID compression */
    p[1] = 0x88; /* short addresses */
    p[2] = seq;
    put_le16(p + psdu_len - 2, wren_ieee802154_fcs(p, psdu_len - 2));
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(zep_port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK_EQ(sendto(peer, b, ZEP_V2_HDR_LEN + psdu_len, 0, (struct sockaddr *)&to, sizeof(to)),
             (ssize_t)(ZEP_V2_HDR_LEN + psdu_len));
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

/* run the loop until a frame is handed over (or 2 s) */
static void run_rx(void)
{
    for (int i = 0; i < 2000 && rx_len == 0; i++) {
        wren_host_run_for(host, 1000);
    }
}

TEST(test_zep_send__cca_turnaround_then_the_airtime)
{
    static const uint8_t frame[20] = {0x41, 0x88, 1};
    set_cca(true);
    uint64_t t0 = wren_host_now();
    CHECK_EQ(dev_send(frame, sizeof(frame)), 20);
    CHECK_EQ(dev_send(frame, sizeof(frame)), -EBUSY); /* one at a time */
    run_tx();
    CHECK_EQ(last_tx, WREN_NETDEV_EV_TX_COMPLETE);
    CHECK(last_tx_at >= t0 + WREN_ZEP_CCA_US + WREN_ZEP_TURNAROUND_US + air(22));
    /* on the wire: ZEP v2, channel 26, the frame and its FCS */
    uint8_t b[256];
    ssize_t n = recv(peer, b, sizeof(b), 0);
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

TEST(test_zep_send__ack_after_turnaround_without_cca)
{
    static const uint8_t ack[3] = {IEEE802154_TYPE_ACK, 0, 42};
    set_cca(true); /* an Imm-Ack goes without CCA all the same */
    uint64_t t0 = wren_host_now();
    CHECK_EQ(dev_send(ack, sizeof(ack)), 3);
    run_tx();
    CHECK_EQ(last_tx, WREN_NETDEV_EV_TX_COMPLETE);
    CHECK(last_tx_at >= t0 + WREN_ZEP_TURNAROUND_US + air(5));
    CHECK_EQ(zep.stats.tx_acks, 1);
    uint8_t b[64];
    CHECK_EQ(recv(peer, b, sizeof(b), 0), ZEP_V2_HDR_LEN + 5);
    FX_CLEAN(0);
}

TEST(test_zep_recv__a_frame_is_handed_over_when_it_ends)
{
    uint64_t t0 = wren_host_now();
    peer_send(26, 50, 3);
    run_rx();
    CHECK_EQ(rx_len, 48); /* the FCS stripped */
    CHECK(rx_at >= t0 + air(50));
    CHECK_EQ(rx_buf[2], 3);
    CHECK_EQ(zep.stats.rx_frames, 1);
    FX_CLEAN(0);
}

TEST(test_zep_recv__other_channels_dropped_unless_any_channel)
{
    peer_send(11, 30, 1);
    peer_send(0, 30, 2);
    peer_send(26, 30, 3);
    run_rx();
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
    run_rx();
    CHECK_EQ(rx_buf[2], 5);
    CHECK_EQ(zep.stats.rx_other_channel, 3);
    /* any channel */
    zep.any_channel = true;
    rx_len = 0;
    peer_send(15, 30, 6);
    run_rx();
    CHECK_EQ(rx_buf[2], 6);
    CHECK_EQ(zep.stats.rx_other_channel, 3);
    CHECK_EQ(zep.stats.rx_frames, 3);
    FX_CLEAN(0);
}

TEST(test_zep_cca__busy_while_a_peer_is_on_the_air)
{
    /* the peer sends like a wire: eight full frames at once, on the air
     * one after the other for 8 * 4.256 ms from the first one's arrival */
    static const uint8_t frame[20] = {0x41, 0x88, 1};
    set_cca(true);
    uint64_t t0 = wren_host_now();
    for (uint8_t i = 0; i < 8; i++) {
        peer_send(26, 127, i);
    }
    uint64_t t1 = wren_host_now();
    CHECK_EQ(dev_send(frame, sizeof(frame)), 20);
    run_tx();
    CHECK_EQ(zep.stats.rx_packets, 8);
    if (last_tx_at < t0 + 8 * air(127)) {
        /* the CCA ended while the burst was still on the air */
        CHECK_EQ(last_tx, WREN_NETDEV_EV_TX_MEDIUM_BUSY);
        CHECK_EQ(zep.stats.cca_busy, 1);
        CHECK_EQ(zep.stats.tx_frames, 0);
    }
    if (t1 - t0 < air(127)) {
        /* each came while the one before was on the air */
        CHECK_EQ(zep.stats.rx_overlap, 7);
    }
    /* the frames are all handed over, one after the other, each at its end */
    for (int i = 0; i < 200 && n_rx < 8; i++) {
        wren_host_run_for(host, 10000);
    }
    CHECK_EQ(n_rx, 8);
    for (int i = 0; i < 8; i++) {
        CHECK_EQ(rx_seqs[i], i);
        CHECK(rx_ats[i] >= t0 + (uint64_t)(i + 1) * air(127));
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_zep_air__a_frame_occupies_its_airtime),
        FX_TEST(test_zep_air__overlapping_frames_follow_each_other),
        cmocka_unit_test_setup_teardown(test_zep_send__cca_turnaround_then_the_airtime, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_zep_send__ack_after_turnaround_without_cca, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_zep_recv__a_frame_is_handed_over_when_it_ends,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_zep_recv__other_channels_dropped_unless_any_channel,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_zep_cca__busy_while_a_peer_is_on_the_air, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_zep_get__a_radio_with_a_link_delay, setup,
                                        teardown),
    };
    return cmocka_run_group_tests_name("zep_radio", tests, NULL, NULL);
}
