/* Tests of drifting node clocks (runtime/sim/world.h) and of the radio's
 * timing options (RX_TIMESTAMP, TX_DELAY), late switch-on and retuning
 * (runtime/sim/medium.h): the conversion between true and local time, timers
 * on a node's own clock, the offsets drawn from the seed, and the radio
 * driven directly as a slotted MAC drives it. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/byteorder.h"
#include "fixture.h"
#include "net/netopt.h"
#include "sim/sim.h"
#include "wire/ieee802154.h"

/* ---- the conversion ---------------------------------------------------- */

TEST(test_clock_true__first_instant_the_local_clock_reaches)
{
    struct wren_world w;
    wren_world_init(&w, 1);
    const double ppms[] = { 0, 30, -30, 100, -100, 0.25, -17.3, 1000, -1000 };
    uint64_t x = 12345;
    for (size_t i = 0; i < sizeof(ppms) / sizeof(ppms[0]); i++) {
        struct wren_world_clock c;
        CHECK_EQ(wren_world_clock_init(&c, &w, ppms[i]), 0);
        for (int k = 0; k < 20000; k++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            /* up to ~ 12 days, some near 0 */
            uint64_t l = k < 200 ? (uint64_t)k : (x >> 24);
            uint64_t t = wren_world_clock_true(&c, l);
            /* reached at t, not one microsecond before: never early, at
             * most 1 us late in local time */
            CHECK(wren_world_clock_local(&c, t) >= l);
            CHECK(t == 0 || wren_world_clock_local(&c, t - 1) < l);
            CHECK(wren_world_clock_local(&c, t) <= l + 1);
        }
        /* the rate: a day of true time is a day +- ppm in local time */
        double day = 86400e6;
        double got = (double)wren_world_clock_local(&c, (uint64_t)day) - day;
        CHECK(fabs(got - ppms[i] * 86400.0) <= 1.0);
    }
    struct wren_world_clock c;
    CHECK_EQ(wren_world_clock_init(&c, &w, 1000.5), -EINVAL);
    CHECK_EQ(wren_world_clock_init(&c, &w, NAN), -EINVAL);
    wren_world_destroy(&w);
}

/* ---- timers on a node's clock ------------------------------------------ */

struct fired {
    struct wren_node *node;
    struct wren_world *world;
    uint64_t local;  /**< the node's time in the callback */
    uint64_t true_t; /**< the world's */
    int n;
};

static void fired_cb(struct wren_timer *t, void *arg)
{
    (void)t;
    struct fired *f = arg;
    f->local = wren_node_now(f->node);
    f->true_t = f->world->now;
    f->n++;
}

TEST(test_timer__runs_on_the_nodes_clock)
{
    struct wren_sim *s = fx_sim(1);
    wren_sim_add_node(s, 0, 0, 0, 0);
    wren_sim_add_node(s, 1, 0, 0, 0);
    CHECK_EQ(wren_sim_set_drift(s, 0, 100.0), 0);
    CHECK_EQ(wren_sim_set_drift(s, 1, -100.0), 0);
    struct wren_timer t0, t1;
    struct fired f0 = { wren_sim_node(s, 0), &s->world, 0, 0, 0 };
    struct fired f1 = { wren_sim_node(s, 1), &s->world, 0, 0, 0 };
    wren_timer_init(&t0, fired_cb, &f0);
    wren_timer_init(&t1, fired_cb, &f1);
    /* 10 s of each node's own time */
    wren_timer_set(f0.node, &t0, 10000000);
    wren_timer_set(f1.node, &t1, 10000000);
    wren_sim_run(s, 20000000);
    CHECK_EQ(f0.n, 1);
    CHECK_EQ(f1.n, 1);
    /* the fast clock reaches 10 s 1 ms early in true time, the slow one
     * 1 ms late (10 s / (1 +- 1e-4)), each at the first true microsecond
     * at which its local clock reads 10 s */
    CHECK(f0.local == 10000000 || f0.local == 10000001);
    CHECK(f1.local == 10000000 || f1.local == 10000001);
    /* 10e6 / 1.0001 = 9999000.1, 10e6 / 0.9999 = 10001000.1 (the offsets
     * are kept to 2^-40: the last microsecond may round either way) */
    CHECK(f0.true_t == 9999001 || f0.true_t == 9999000);
    CHECK(f1.true_t == 10001001 || f1.true_t == 10001000);
    /* and wren_node_now is the clock: after 20 s of true time */
    CHECK(wren_sim_node_now(s, 0) - 20001999 <= 1);
    CHECK(wren_sim_node_now(s, 1) - 19997999 <= 1);
    CHECK_EQ(wren_node_now(f0.node), wren_sim_node_now(s, 0));
    CHECK_EQ(wren_sim_node_now(s, 2), UINT64_MAX);
    /* a periodic timer keeps its local period: 1000 periods of 1 ms */
    f0.n = 0;
    wren_timer_set_periodic(f0.node, &t0, 1000);
    uint64_t start = wren_node_now(f0.node);
    /* 1000 local ms = 999900.01 true us */
    wren_sim_run(s, s->world.now + 999901);
    CHECK_EQ(f0.n, 1000);
    CHECK(f0.local - (start + 1000000) <= 1);
    wren_timer_cancel(f0.node, &t0);
    FX_CLEAN(1000000);
}

TEST(test_drift__change_keeps_local_time_continuous_and_moves_timers)
{
    struct wren_sim *s = fx_sim(3);
    wren_sim_add_node(s, 0, 0, 0, 0);
    CHECK_EQ(wren_sim_set_drift(s, 0, 0.0), 0);
    wren_sim_run(s, 5000000);
    CHECK_EQ(wren_sim_node_now(s, 0), 5000000);
    struct wren_timer t;
    struct fired f = { wren_sim_node(s, 0), &s->world, 0, 0, 0 };
    wren_timer_init(&t, fired_cb, &f);
    wren_timer_set(f.node, &t, 1000000); /* local 6 s: true 6 s so far */
    /* from 5 s on the crystal runs 50 ppm slow: local time goes on from
     * 5 s, and the armed timer moves to the true time it now needs */
    CHECK_EQ(wren_sim_set_drift(s, 0, -50.0), 0);
    CHECK_EQ(wren_sim_node_now(s, 0), 5000000);
    wren_sim_run(s, 6000000);
    CHECK_EQ(f.n, 0); /* 1 s at 0.99995: 1000050.0025 us */
    wren_sim_run(s, 6000051);
    CHECK_EQ(f.n, 1);
    CHECK_EQ(f.local, 6000000);
    CHECK_EQ(f.true_t, 6000051);
    double ppm;
    CHECK_EQ(wren_sim_get_drift(s, 0, &ppm), 0);
    CHECK(ppm == -50.0);
    /* before the anchor (5 s) the clock still converts, at the new rate:
     * 1 s before it reads 1 s * 0.99995 less (to the microsecond: the
     * offset is kept to 2^-40) */
    CHECK(wren_world_clock_local(&s->nodes[0]->clock, 4000000) - 4000049 <= 1);
    CHECK_EQ(wren_sim_set_drift(s, 0, 2000.0), -EINVAL);
    CHECK_EQ(wren_sim_set_drift(s, 5, 1.0), -EINVAL);
    CHECK_EQ(wren_sim_get_drift(s, 5, &ppm), -EINVAL);
    FX_CLEAN(1000000);
}

TEST(test_drift__default_drawn_from_seed_within_30ppm)
{
    double a[50], b[50];
    struct wren_sim *s1 = fx_sim(77), *s2 = fx_sim(77), *s3 = fx_sim(78);
    int differ = 0, far = 0;
    for (uint32_t i = 0; i < 50; i++) {
        wren_sim_add_node(s1, i, 0, 0, 0);
        wren_sim_add_node(s2, i, 0, 0, 0);
        wren_sim_add_node(s3, i, 0, 0, 0);
        double c;
        CHECK_EQ(wren_sim_get_drift(s1, i, &a[i]), 0);
        CHECK_EQ(wren_sim_get_drift(s2, i, &b[i]), 0);
        CHECK_EQ(wren_sim_get_drift(s3, i, &c), 0);
        CHECK(a[i] == b[i]); /* same seed: same crystals */
        CHECK(fabs(a[i]) <= WREN_SIM_DRIFT_DEFAULT_PPM);
        differ += c != a[i];
        far += fabs(a[i]) > 15.0;
    }
    CHECK(differ >= 49);
    CHECK(far >= 10); /* spread over the range, not bunched at 0 */
    /* a fixed offset for every node, including later ones */
    CHECK_EQ(wren_sim_set_drift(s1, -1, 12.5), 0);
    wren_sim_add_node(s1, 0, 1, 0, 0);
    for (uint32_t i = 0; i < 51; i++) {
        CHECK_EQ(wren_sim_get_drift(s1, i, &a[0]), 0);
        CHECK(a[0] == 12.5);
    }
    /* a range for later nodes: 0 makes exact clocks; it forgets the fixed one */
    CHECK_EQ(wren_sim_set_drift_range(s1, 0.0), 0);
    wren_sim_add_node(s1, 0, 2, 0, 0);
    CHECK_EQ(wren_sim_get_drift(s1, 51, &a[0]), 0);
    CHECK(a[0] == 0.0);
    CHECK_EQ(wren_sim_set_drift_range(s2, 100.0), 0);
    int beyond = 0;
    for (uint32_t i = 50; i < 150; i++) {
        wren_sim_add_node(s2, i, 1, 0, 0);
        CHECK_EQ(wren_sim_get_drift(s2, i, &a[0]), 0);
        CHECK(fabs(a[0]) <= 100.0);
        beyond += fabs(a[0]) > 30.0;
    }
    CHECK(beyond >= 30);
    CHECK_EQ(wren_sim_set_drift_range(s2, -1.0), -EINVAL);
    CHECK_EQ(wren_sim_set_drift_range(s2, 1001.0), -EINVAL);
    FX_CLEAN(1000);
}

/* ---- the radio, driven directly ---------------------------------------- */

/* a radio with a recording event callback, as a MAC would drive it */
struct rig_radio {
    struct wren_sim_radio r;
    struct wren_world_clock clock;
    int rx;           /**< frames received */
    int tx_done;
    uint64_t stamp;   /**< RX_TIMESTAMP read when the last frame arrived */
    uint8_t buf[127];
    int len;
};

static void rig_event(struct wren_netdev *dev, enum wren_netdev_event ev)
{
    struct rig_radio *rr = (struct rig_radio *)dev;
    if (ev == WREN_NETDEV_EV_ISR) {
        dev->driver->isr(dev);
    } else if (ev == WREN_NETDEV_EV_RX_COMPLETE) {
        struct wren_netdev_rx_info info;
        rr->len = dev->driver->recv(dev, rr->buf, sizeof(rr->buf), &info);
        CHECK_EQ(dev->driver->get(dev, WREN_NETOPT_RX_TIMESTAMP, &rr->stamp, 8), 8);
        rr->rx++;
    } else if (ev == WREN_NETDEV_EV_TX_COMPLETE) {
        rr->tx_done++;
    }
}

struct rig {
    struct wren_world w;
    struct wren_medium m;
    struct rig_radio a, b;
};

static void rig_init(struct rig *g, double ppm_a, double ppm_b)
{
    wren_world_init(&g->w, 1);
    wren_medium_init(&g->m, &g->w);
    struct rig_radio *rs[2] = { &g->a, &g->b };
    double ppm[2] = { ppm_a, ppm_b };
    for (int i = 0; i < 2; i++) {
        memset(rs[i], 0, sizeof(*rs[i]));
        CHECK_EQ(wren_medium_add_radio(&g->m, &rs[i]->r, i, 0, 0), i);
        CHECK_EQ(wren_world_clock_init(&rs[i]->clock, &g->w, ppm[i]), 0);
        rs[i]->r.clock = &rs[i]->clock;
        rs[i]->r.netdev.event_cb = rig_event;
        CHECK_EQ(rs[i]->r.netdev.driver->init(&rs[i]->r.netdev), 0);
        uint8_t off = 0;
        CHECK_EQ(rs[i]->r.netdev.driver->set(&rs[i]->r.netdev, WREN_NETOPT_CCA_BEFORE_TX,
                                             &off, 1), 0);
    }
    CHECK_EQ(wren_medium_set_link(&g->m, 0, 1, 1.0), 0);
    CHECK_EQ(wren_medium_set_link(&g->m, 1, 0, 1.0), 0);
}

static void rig_done(struct rig *g)
{
    wren_medium_destroy(&g->m);
    wren_world_destroy(&g->w);
}

/* a broadcast data frame of @p psdu octets (FCS included) sent by @p rr now */
static void rig_send(struct rig_radio *rr, unsigned psdu, uint8_t seq)
{
    uint8_t f[125] = { 0x41, 0x98, seq, 0x23, 0x00, 0xff, 0xff, 0x42, 0x00 };
    struct wren_iolist iol = { .base = f, .len = psdu - 2, .next = NULL };
    CHECK_EQ(rr->r.netdev.driver->send(&rr->r.netdev, &iol), (int)psdu - 2);
}

static void rig_state(struct rig_radio *rr, uint8_t state)
{
    CHECK_EQ(rr->r.netdev.driver->set(&rr->r.netdev, WREN_NETOPT_STATE, &state, 1), 0);
}

static int rig_channel(struct rig_radio *rr, uint16_t ch)
{
    return rr->r.netdev.driver->set(&rr->r.netdev, WREN_NETOPT_CHANNEL, &ch, 2);
}

TEST(test_rx_timestamp__first_symbol_within_1us_with_exact_clocks)
{
    struct rig g;
    rig_init(&g, 0, 0);
    uint32_t d;
    CHECK_EQ(g.a.r.netdev.driver->get(&g.a.r.netdev, WREN_NETOPT_TX_DELAY, &d, 4), 4);
    CHECK_EQ(d, 192); /* 12 symbols of turnaround, no processing delay */
    /* a TSCH-like sender: send() TX_DELAY before the instant it wants */
    uint64_t instants[] = { 1000000, 1010000, 2345678 };
    for (int i = 0; i < 3; i++) {
        wren_world_run_until(&g.w, instants[i] - d);
        rig_send(&g.a, 40 + (unsigned)i, (uint8_t)i);
        wren_world_run_until(&g.w, instants[i] + 5000);
        CHECK_EQ(g.b.rx, i + 1);
        CHECK_EQ(g.b.len, 38 + i);
        CHECK_EQ(g.b.buf[2], i);
        CHECK_EQ(g.b.stamp, instants[i]); /* exactly, with true = local */
        CHECK_EQ(g.a.tx_done, i + 1);
    }
    /* with a processing delay, TX_DELAY includes a full frame's upload */
    g.a.r.proc_delay_us = 3080;
    CHECK_EQ(g.a.r.netdev.driver->get(&g.a.r.netdev, WREN_NETOPT_TX_DELAY, &d, 4), 4);
    CHECK_EQ(d, 192 + 3080);
    wren_world_run_until(&g.w, 3000000 - d);
    rig_send(&g.a, 127, 9);
    wren_world_run_until(&g.w, 3010000);
    CHECK_EQ(g.b.rx, 4);
    CHECK_EQ(g.b.stamp, 3000000);
    rig_done(&g);
}

TEST(test_rx_timestamp__scaled_by_the_receivers_drift)
{
    struct rig g;
    /* the sender 40 ppm fast, the receiver 100 ppm slow */
    rig_init(&g, 40.0, -100.0);
    /* the sender aims at 10 s of its own time */
    uint64_t aim = 10000000;
    uint32_t d;
    CHECK_EQ(g.a.r.netdev.driver->get(&g.a.r.netdev, WREN_NETOPT_TX_DELAY, &d, 4), 4);
    uint64_t send_true = wren_world_clock_true(&g.a.clock, aim - d);
    wren_world_run_until(&g.w, send_true);
    rig_send(&g.a, 60, 1);
    wren_world_run_until(&g.w, send_true + 10000);
    CHECK_EQ(g.b.rx, 1);
    /* true start of the frame: send_true + 192; the sender's clock reads
     * its aim there (within 1 us), the receiver's 140 ppm less of 10 s */
    uint64_t start = send_true + 192;
    CHECK(wren_world_clock_local(&g.a.clock, start) >= aim &&
          wren_world_clock_local(&g.a.clock, start) <= aim + 1);
    CHECK_EQ(g.b.stamp, wren_world_clock_local(&g.b.clock, start));
    /* 10 s * (1 - 100e-6) / (1 + 40e-6) = 10 s - 1399.94 us */
    double want = 10e6 * (1 - 100e-6) / (1 + 40e-6);
    CHECK(fabs((double)g.b.stamp - want) <= 1.0);
    rig_done(&g);
}

TEST(test_listen__switched_on_after_the_first_symbol_misses_the_frame)
{
    struct rig g;
    rig_init(&g, 0, 0);
    rig_state(&g.b, WREN_NETOPT_STATE_OFF);
    wren_world_run_until(&g.w, 1000);
    rig_send(&g.a, 100, 1); /* on the air 1192 .. 1192 + 3392 */
    wren_world_run_until(&g.w, 1193);
    rig_state(&g.b, WREN_NETOPT_STATE_IDLE); /* 1 us late */
    wren_world_run_until(&g.w, 10000);
    CHECK_EQ(g.b.rx, 0);
    CHECK_EQ(g.b.r.stats.rx_while_off, 1);
    /* on in time (at the first symbol): received */
    rig_state(&g.b, WREN_NETOPT_STATE_OFF);
    rig_send(&g.a, 100, 2); /* first symbol at 10192 */
    wren_world_run_until(&g.w, 10191);
    rig_state(&g.b, WREN_NETOPT_STATE_IDLE);
    wren_world_run_until(&g.w, 20000);
    CHECK_EQ(g.b.rx, 1);
    CHECK_EQ(g.b.stamp, 10192);
    /* switched off during a frame: the reception is abandoned */
    rig_send(&g.a, 100, 3);
    wren_world_run_until(&g.w, 21000);
    rig_state(&g.b, WREN_NETOPT_STATE_OFF);
    rig_state(&g.b, WREN_NETOPT_STATE_IDLE);
    wren_world_run_until(&g.w, 30000);
    CHECK_EQ(g.b.rx, 1);
    CHECK_EQ(g.b.r.stats.rx_aborted, 1);
    /* every microsecond on counts as listen or rx */
    wren_sim_radio_sync_time(&g.b.r);
    CHECK_EQ(g.b.r.time_in[WREN_NETOPT_STATE_OFF], (1193 - 0) + (10191 - 10000) + 0);
    CHECK_EQ(g.b.r.time_in[WREN_NETOPT_STATE_RX], 3392 + (21000 - 20192));
    CHECK_EQ(g.b.r.time_in[WREN_NETOPT_STATE_IDLE] + g.b.r.time_in[WREN_NETOPT_STATE_RX] +
                 g.b.r.time_in[WREN_NETOPT_STATE_OFF],
             30000);
    rig_done(&g);
}

TEST(test_channel__change_applies_to_frames_that_start_afterwards)
{
    struct rig g;
    rig_init(&g, 0, 0);
    /* retuned away during a frame: abandoned */
    rig_send(&g.a, 100, 1); /* first symbol at 192 */
    wren_world_run_until(&g.w, 1000);
    CHECK_EQ(rig_channel(&g.b, 15), 0);
    wren_world_run_until(&g.w, 10000);
    CHECK_EQ(g.b.rx, 0);
    CHECK_EQ(g.b.r.stats.rx_aborted, 1);
    /* retuned onto the channel of a frame already on the air: its energy is
     * there (CCA busy) but the frame is not received */
    CHECK_EQ(rig_channel(&g.a, 20), 0);
    rig_send(&g.a, 100, 2); /* 10192 .. 13584 */
    wren_world_run_until(&g.w, 11000);
    CHECK_EQ(rig_channel(&g.b, 20), 0);
    CHECK_EQ(g.b.r.audible, 1);
    wren_world_run_until(&g.w, 20000);
    CHECK_EQ(g.b.rx, 0);
    CHECK_EQ(g.b.r.audible, 0);
    /* on the channel before the next frame starts: received */
    rig_send(&g.a, 100, 3); /* first symbol at 20192 */
    wren_world_run_until(&g.w, 30000);
    CHECK_EQ(g.b.rx, 1);
    CHECK_EQ(g.b.buf[2], 3);
    CHECK_EQ(g.b.stamp, 20192);
    /* a channel change while sending is refused; out of range too */
    rig_send(&g.a, 100, 4);
    wren_world_run_until(&g.w, 30192);
    CHECK_EQ(rig_channel(&g.a, 11), -EBUSY);
    CHECK_EQ(rig_channel(&g.b, 27), -EINVAL);
    wren_world_run_until(&g.w, 40000);
    CHECK_EQ(g.b.rx, 2);
    rig_done(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_clock_true__first_instant_the_local_clock_reaches),
        FX_TEST(test_timer__runs_on_the_nodes_clock),
        FX_TEST(test_drift__change_keeps_local_time_continuous_and_moves_timers),
        FX_TEST(test_drift__default_drawn_from_seed_within_30ppm),
        FX_TEST(test_rx_timestamp__first_symbol_within_1us_with_exact_clocks),
        FX_TEST(test_rx_timestamp__scaled_by_the_receivers_drift),
        FX_TEST(test_listen__switched_on_after_the_first_symbol_misses_the_frame),
        FX_TEST(test_channel__change_applies_to_frames_that_start_afterwards),
    };
    return cmocka_run_group_tests_name("clock", tests, NULL, NULL);
}
