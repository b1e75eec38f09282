/* The TAP driver's fault injector, over a SOCK_SEQPACKET socketpair in place
 * of a TAP device (no root needed): loss and reordering in both directions,
 * counted, reproducible from the seed; held frames never stay stuck. The
 * test plays the stack: it services the device's ISR and reads frames. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/node.h"
#include "host/tap.h"
#include "host/rt_host.h"
#include "net/netopt.h"
#include "fixture.h"

#define N_FRAMES 2000
#define BATCH 8

static struct wren_host host;
static struct wren_node *node;
static struct wren_tap tap;
static int peer = -1; /* the "kernel" end */
static int isr_due;
static uint16_t got[N_FRAMES * 2];
static int n_got;

static void ev(struct wren_netdev *dev, enum wren_netdev_event e)
{
    if (e == WREN_NETDEV_EV_ISR) {
        isr_due = 1;
    } else if (e == WREN_NETDEV_EV_RX_COMPLETE) {
        uint8_t buf[WREN_TAP_FRAME_MAX];
        int n = dev->driver->recv(dev, buf, sizeof(buf), NULL);
        if (n >= 2 && n_got < N_FRAMES * 2) {
            got[n_got++] = (uint16_t)(buf[0] << 8 | buf[1]);
        }
    }
}

static int setup(const struct wren_netopt_faults *f)
{
    int sv[2];
    static const uint8_t mac[6] = { 2, 0x57, 0x52, 0, 0, 1 };
    if (wren_host_init(&host) < 0 ||
        socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0) {
        return -1;
    }
    node = &fx_host_node(&host, 2048)->node;
    if (wren_tap_attach(&tap, &host, sv[0], "test0", mac) < 0 ||
        wren_tap_set_faults(&tap, f) < 0) {
        return -1;
    }
    tap.netdev.event_cb = ev;
    peer = sv[1];
    n_got = 0;
    isr_due = 0;
    return 0;
}

static void teardown(void)
{
    wren_tap_close(&tap);
    close(peer);
    peer = -1;
    wren_host_fini(&host);
}

/* cmocka's teardown: the device and the host too if a failed test left them */
static int tap_teardown(void **state)
{
    if (peer >= 0) {
        teardown();
    }
    return fx_teardown(state);
}

/* run the loop (timers, the descriptor) and the device's ISR for @p us */
static void spin(uint64_t us)
{
    uint64_t end = wren_host_now() + us;
    do {
        wren_host_run_for(&host, 10);
        while (isr_due) {
            isr_due = 0;
            tap.netdev.driver->isr(&tap.netdev);
        }
    } while (wren_host_now() < end);
}

/* spin until @p n frames from the kernel are accounted for (a second at most) */
static void spin_rx(int n)
{
    for (int i = 0; i < 10000; i++) {
        if (n_got + (int)tap.fault_stats.rx_dropped + tap.frx.held >= n) {
            return;
        }
        spin(0);
    }
}

static void frame_of(uint8_t *b, int seq)
{
    memset(b, 0xa5, 60);
    b[0] = (uint8_t)(seq >> 8);
    b[1] = (uint8_t)seq;
}

/* Frames from the "kernel" to the stack: @p n in batches; returns how many
 * arrived (in got[]). */
static int kernel_to_stack(int n)
{
    uint8_t b[60];
    for (int i = 0; i < n; i += BATCH) {
        for (int k = i; k < i + BATCH && k < n; k++) {
            frame_of(b, k);
            if (write(peer, b, sizeof(b)) != (ssize_t)sizeof(b)) {
                return -1;
            }
        }
        spin_rx(i + BATCH < n ? i + BATCH : n);
    }
    /* a frame still held goes after its hold time */
    for (int i = 0; i < 1000 && n_got + (int)tap.fault_stats.rx_dropped < n; i++) {
        spin(100);
    }
    return n_got;
}

/* Frames from the stack to the "kernel": @p n; their numbers go to @p out. */
static int stack_to_kernel(int n, uint16_t *out)
{
    uint8_t b[60];
    int m = 0;
    for (int i = 0; i < n; i++) {
        frame_of(b, i);
        struct wren_iolist iol = { .base = b, .len = sizeof(b) };
        if (tap.netdev.driver->send(&tap.netdev, &iol) != (int)sizeof(b)) {
            return -1;
        }
        spin(0);
        if (i % BATCH == BATCH - 1 || i == n - 1) {
            for (int t = 0; t < 1000; t++) {
                while (read(peer, b, sizeof(b)) == (ssize_t)sizeof(b)) {
                    out[m++] = (uint16_t)(b[0] << 8 | b[1]);
                }
                /* at the end, wait for a held frame */
                if (i < n - 1 || m + (int)tap.fault_stats.tx_dropped >= n) {
                    break;
                }
                spin(100);
            }
        }
    }
    return m;
}

/* adjacent swaps in @p v, and whether it is otherwise increasing */
static int swaps(const uint16_t *v, int n, int *in_order_otherwise)
{
    int s = 0;
    *in_order_otherwise = 1;
    for (int i = 0; i + 1 < n; i++) {
        if (v[i] > v[i + 1]) {
            s++;
            if (v[i] != v[i + 1] + 1 || (i + 2 < n && v[i + 2] < v[i])) {
                *in_order_otherwise = 0;
            }
        }
    }
    return s;
}

TEST(test_tap_faults__off_passes_everything_in_order)
{
    struct wren_netopt_faults f = { 0 };
    CHECK_EQ(setup(&f), 0);
    CHECK_EQ(kernel_to_stack(500), 500);
    for (int i = 0; i < 500; i++) {
        CHECK_EQ(got[i], i);
    }
    static uint16_t out[500];
    CHECK_EQ(stack_to_kernel(500, out), 500);
    for (int i = 0; i < 500; i++) {
        CHECK_EQ(out[i], i);
    }
    CHECK_EQ(tap.stats.rx_frames, 500);
    CHECK_EQ(tap.stats.tx_frames, 500);
    struct wren_netopt_fault_stats z = { 0 };
    CHECK(memcmp(&tap.fault_stats, &z, sizeof(z)) == 0);
    teardown();
    FX_CLEAN(0);
}

static int lossy_run(uint64_t seed, uint16_t *rx, int *n_rx, uint16_t *tx, int *n_tx)
{
    struct wren_netopt_faults f = { .seed = seed, .loss = 2000 };
    if (setup(&f) < 0) {
        return -1;
    }
    *n_rx = kernel_to_stack(N_FRAMES);
    memcpy(rx, got, sizeof(got[0]) * (size_t)*n_rx);
    *n_tx = stack_to_kernel(N_FRAMES, tx);
    return 0;
}

TEST(test_tap_faults__loss_is_counted_and_reproducible)
{
    static uint16_t rx1[N_FRAMES], tx1[N_FRAMES], rx2[N_FRAMES], tx2[N_FRAMES];
    int nr1, nt1, nr2, nt2;
    CHECK_EQ(lossy_run(7, rx1, &nr1, tx1, &nt1), 0);
    /* 20 %: 400 of 2000 expected each way (sd 18) */
    CHECK(tap.fault_stats.rx_dropped > 300 && tap.fault_stats.rx_dropped < 500);
    CHECK(tap.fault_stats.tx_dropped > 300 && tap.fault_stats.tx_dropped < 500);
    CHECK_EQ(nr1 + (int)tap.fault_stats.rx_dropped, N_FRAMES);
    CHECK_EQ(nt1 + (int)tap.fault_stats.tx_dropped, N_FRAMES);
    CHECK_EQ(tap.stats.rx_frames, N_FRAMES);
    CHECK_EQ(tap.stats.tx_frames, nt1);
    int ok;
    CHECK_EQ(swaps(rx1, nr1, &ok), 0);
    CHECK_EQ(swaps(tx1, nt1, &ok), 0);
    /* the directions draw independently: not the same frames lost */
    CHECK(nr1 != nt1 || memcmp(rx1, tx1, sizeof(rx1[0]) * (size_t)nr1) != 0);
    teardown();
    /* the same seed, the same frames lost; another seed, others */
    CHECK_EQ(lossy_run(7, rx2, &nr2, tx2, &nt2), 0);
    teardown();
    CHECK(nr1 == nr2 && memcmp(rx1, rx2, sizeof(rx1[0]) * (size_t)nr1) == 0);
    CHECK(nt1 == nt2 && memcmp(tx1, tx2, sizeof(tx1[0]) * (size_t)nt1) == 0);
    CHECK_EQ(lossy_run(8, rx2, &nr2, tx2, &nt2), 0);
    teardown();
    CHECK(nr1 != nr2 || memcmp(rx1, rx2, sizeof(rx1[0]) * (size_t)nr1) != 0);
    FX_CLEAN(0);
}

TEST(test_tap_faults__reordering_loses_nothing)
{
    struct wren_netopt_faults f = { .seed = 3, .reorder = 3000 };
    CHECK_EQ(setup(&f), 0);
    CHECK_EQ(kernel_to_stack(N_FRAMES), N_FRAMES);
    int ok;
    int s = swaps(got, n_got, &ok);
    CHECK(ok);
    /* every overtaken frame is one swap; the last batch's may go alone */
    CHECK_EQ(s, tap.fault_stats.rx_reordered);
    CHECK(s > 300);
    CHECK_EQ(tap.fault_stats.rx_dropped, 0);
    static uint16_t out[N_FRAMES];
    CHECK_EQ(stack_to_kernel(N_FRAMES, out), N_FRAMES);
    s = swaps(out, N_FRAMES, &ok);
    CHECK(ok);
    CHECK_EQ(s, tap.fault_stats.tx_reordered);
    CHECK(s > 300);
    /* sorted, each number exactly once */
    static uint8_t seen[N_FRAMES];
    memset(seen, 0, sizeof(seen));
    for (int i = 0; i < N_FRAMES; i++) {
        CHECK(out[i] < N_FRAMES && !seen[out[i]]);
        seen[out[i]] = 1;
    }
    teardown();
    FX_CLEAN(0);
}

TEST(test_tap_faults__held_frame_goes_alone_after_hold_ms)
{
    struct wren_netopt_faults f = { .seed = 1, .reorder = 10000, .hold_ms = 2 };
    CHECK_EQ(setup(&f), 0);
    /* 100 %: every frame is held; alone, each leaves when its time is up */
    CHECK_EQ(kernel_to_stack(1), 1);
    CHECK_EQ(tap.fault_stats.rx_held_timeout, 1);
    static uint16_t out[4];
    CHECK_EQ(stack_to_kernel(1, out), 1);
    CHECK_EQ(tap.fault_stats.tx_held_timeout, 1);
    /* two back to back: the second is not held (one at a time) and overtakes */
    n_got = 0;
    CHECK_EQ(kernel_to_stack(2), 2);
    CHECK_EQ(got[0], 1);
    CHECK_EQ(got[1], 0);
    CHECK_EQ(tap.fault_stats.rx_reordered, 1);
    /* netopt: GET what was set; SET refuses more than 100 % */
    struct wren_netopt_faults g;
    CHECK_EQ(tap.netdev.driver->get(&tap.netdev, WREN_NETOPT_FAULTS, &g, sizeof(g)),
             sizeof(g));
    CHECK_EQ(g.reorder, 10000);
    CHECK_EQ(g.seed, 1);
    g.loss = 10001;
    CHECK_EQ(tap.netdev.driver->set(&tap.netdev, WREN_NETOPT_FAULTS, &g, sizeof(g)), -EINVAL);
    struct wren_netopt_fault_stats st;
    CHECK_EQ(tap.netdev.driver->get(&tap.netdev, WREN_NETOPT_FAULT_STATS, &st, sizeof(st)),
             sizeof(st));
    CHECK_EQ(st.rx_reordered, 1);
    teardown();
    CHECK(wren_pktbuf_is_empty(&node->pktbuf));
    FX_CLEAN(0);
}

#define TAP_TEST(t) cmocka_unit_test_setup_teardown(t, fx_setup, tap_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        TAP_TEST(test_tap_faults__off_passes_everything_in_order),
        TAP_TEST(test_tap_faults__loss_is_counted_and_reproducible),
        TAP_TEST(test_tap_faults__reordering_loses_nothing),
        TAP_TEST(test_tap_faults__held_frame_goes_alone_after_hold_ms),
    };
    return cmocka_run_group_tests_name("tap", tests, NULL, NULL);
}
