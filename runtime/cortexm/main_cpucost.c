/* Cortex-M3 image: what one frame or datagram costs the CPU, for the
 * simulator's CPU active-time model (python/wren/cpu.py, the costs file
 * python/wren/data/cpu_costs.toml made by `./wren cpucosts`).
 *
 * A 6LoWPAN router (802.15.4 without a software MAC, as on the iotlab-m3
 * whose AT86RF231 does CSMA-CA and ACKs itself; 6LoWPAN, IPv6 with
 * forwarding, ICMPv6, UDP) on one end of a loopback pair; the other end,
 * played here, injects frames and takes every frame the node sends.
 * Each operation runs REPS times between two bench_mark() calls, after a
 * warm-up outside them; an instruction trace (qemu -d exec) counts what the
 * CPU executes between each pair of marks (python/wren/qemu_bench.py).
 * The operations, in the order of their mark pairs:
 *   1 frame_tx     a raw frame (NALP, RAW_LEN bytes) down the link layer
 *   2 frame_rx     a raw frame for this node up to an application
 *   3 frame_drop   a frame for another node, dropped by address
 *   4 udp_tx       a UDP datagram (UDP_LEN bytes) from a socket into a frame
 *   5 udp_rx       a frame with a UDP datagram up to a socket
 *   6 forward      a frame with a datagram for another node, forwarded
 * Every operation is checked (frames out, datagrams in, counters); the
 * image exits non-zero if any did not happen as it should. */
#include <stdio.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/module.h"
#include "instance.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "net/netopt.h"
#include "net/netreg.h"
#include "wire/ieee802154.h"
#include "wire/inet_csum.h"
#include "wire/ipv6.h"
#include "wire/sixlowpan.h"
#include "wire/udp.h"

#define WARMUP 2
#define REPS 8
#define RAW_LEN 40
#define UDP_LEN 20
#define PORT 7000
#define PEER 0x0002 /* the other end's short address (wren_loopback_pair) */

__attribute__((noinline)) void bench_mark(int phase);
__attribute__((noinline)) void bench_mark(int phase)
{
    __asm volatile("" : : "r"(phase) : "memory");
}

/* ---- the other end of the wire ------------------------------------------- */

static struct wren_loopback air;
static uint8_t out[CONFIG_WREN_LOOPBACK_MTU];
static unsigned n_out;

static void air_event(struct wren_netdev *dev, enum wren_netdev_event ev)
{
    if (ev == WREN_NETDEV_EV_ISR && dev->driver->recv(dev, out, sizeof(out), NULL) > 0) {
        n_out++;
    }
}

/* ---- an application that takes raw frames ---------------------------------- */

struct sink {
    struct wren_module module;
    struct wren_netreg_entry reg;
    unsigned received;
};

static struct sink sink;

static void sink_handle(struct wren_node *node, struct wren_module *self,
                        const struct wren_msg *msg)
{
    if (msg->type == WREN_MSG_RCV) {
        ((struct sink *)self)->received++;
    }
    wren_pktbuf_release(&node->pktbuf, msg->ptr);
}

static const struct wren_module_ops sink_ops = { .name = "sink", .handle = sink_handle };

struct wren_sock_udp wren_inst_sock;

/* ---- frames to the node ---------------------------------------------------- */

static const uint8_t peer_ll[16] = { 0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = PEER };
static const uint8_t node_ll[16] = { 0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 0x01 };
static const uint8_t remote_a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x0a };
static const uint8_t remote_b[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x0b };

/* MAC header from the peer to @p dst (short, network order) */
static size_t mhr(uint8_t *f, const uint8_t *dst)
{
    struct ieee802154_hdr h;
    memset(&h, 0, sizeof(h));
    h.type = IEEE802154_TYPE_DATA;
    h.version = IEEE802154_VERSION_2006;
    h.dst_mode = h.src_mode = IEEE802154_ADDR_SHORT;
    h.panid_comp = true;
    h.dst_pan = h.src_pan = 0x0023;
    memcpy(h.dst_addr, dst, 2);
    put_be16(h.src_addr, PEER);
    return (size_t)wren_ieee802154_hdr_emit(&h, f, 32);
}

/* A frame from the peer to @p l2dst with a UDP datagram @p src -> @p dst. */
static size_t udp_frame(uint8_t *f, const uint8_t *l2dst, const uint8_t *src, const uint8_t *dst)
{
    uint8_t pl[UDP_LEN];
    memset(pl, 0x5a, sizeof(pl));
    struct ipv6_hdr ip = { .payload_len = UDP_HDR_LEN + UDP_LEN, .next = IPV6_NH_UDP,
                           .hop_limit = 64 };
    memcpy(ip.src, src, 16);
    memcpy(ip.dst, dst, 16);
    struct udp_hdr uh = { .src_port = PORT, .dst_port = PORT, .len = UDP_HDR_LEN + UDP_LEN };
    uint8_t u[UDP_HDR_LEN];
    put_be16(u, PORT);
    put_be16(u + 2, PORT);
    put_be16(u + 4, uh.len);
    put_be16(u + 6, 0);
    struct inet_csum c;
    wren_inet_csum_init(&c);
    wren_inet_csum_pseudo(&c, src, dst, uh.len, IPV6_NH_UDP);
    wren_inet_csum_update(&c, u, sizeof(u));
    wren_inet_csum_update(&c, pl, sizeof(pl));
    uh.csum = wren_inet_csum_final(&c);
    uint8_t p2[2];
    put_be16(p2, PEER);
    struct sixlowpan_l2 l2 = { .src = p2, .src_len = 2, .dst = l2dst, .dst_len = 2 };
    size_t n = mhr(f, l2dst);
    n += (size_t)wren_sixlowpan_iphc_emit(&ip, &uh, &l2, NULL, f + n, SIXLOWPAN_IPHC_MAX_LEN);
    memcpy(f + n, pl, sizeof(pl));
    return n + sizeof(pl);
}

static size_t raw_frame(uint8_t *f, const uint8_t *dst)
{
    size_t n = mhr(f, dst);
    f[n] = 0x3f; /* NALP: not a 6LoWPAN frame */
    memset(f + n + 1, 0xa5, RAW_LEN - 1);
    return n + RAW_LEN;
}

/* ---- the operations ---------------------------------------------------------- */

static void send_raw(void)
{
    struct wren_node *node = &wren_inst_node;
    static const uint8_t peer[2] = { PEER >> 8, PEER & 0xff };
    struct wren_snip *pl = wren_pktbuf_add(&node->pktbuf, NULL, NULL, RAW_LEN, WREN_NETTYPE_UNDEF);
    if (pl == NULL) {
        return;
    }
    pl->data[0] = 0x3f;
    memset(pl->data + 1, 0xa5, RAW_LEN - 1);
    struct wren_snip *pkt = wren_netif_hdr_add(&node->pktbuf, pl, NULL, 0, peer, 2);
    if (pkt == NULL) {
        wren_pktbuf_release(&node->pktbuf, pl);
        return;
    }
    wren_netapi_send(node, &wren_inst_netif.netif.module, pkt);
    wren_rt_cortexm_poll(&wren_inst_rt);
}

static void send_udp(void)
{
    static const uint8_t pl[UDP_LEN] = { 0x5a };
    struct wren_sock_udp_ep to = { .port = PORT };
    memcpy(to.addr, peer_ll, 16);
    wren_sock_udp_send(&wren_inst_sock, pl, sizeof(pl), &to);
    wren_rt_cortexm_poll(&wren_inst_rt);
}

static unsigned udp_in;

static void inject(const uint8_t *f, size_t n, int take_udp)
{
    if (wren_loopback_inject(&wren_inst_dev, f, n) == 0) {
        wren_rt_cortexm_poll(&wren_inst_rt);
    }
    if (take_udp) {
        uint8_t buf[64];
        udp_in += wren_sock_udp_recv(&wren_inst_sock, buf, sizeof(buf), 0, NULL) == UDP_LEN;
    }
}

static int fail(const char *what)
{
    printf("wren cortex-m3 cpucost: FAILED: %s\n", what);
    return 1;
}

int main(void)
{
    static const struct wren_module_ops *const mods[] = {
        &wren_sixlowpan_module, &wren_ipv6_module, &wren_icmpv6_module, &wren_udp_module,
    };
    static void *const states[] = { &wren_inst_sixlowpan, &wren_inst_ipv6, &wren_inst_icmpv6,
                                    &wren_inst_udp };
    static const struct wren_stack_iface ifs[] = { WREN_INST_IFACE };
    static const struct wren_stack_desc d = { .ifaces = ifs, .n_ifaces = 1, .mods = mods,
                                              .states = states,
                                              .n_mods = WREN_STACK_ARRAY_LEN(mods) };
    struct wren_node *node = &wren_inst_node;
    wren_loopback_setup(&wren_inst_dev, WREN_NETDEV_TYPE_IEEE802154, 125);
    wren_loopback_setup(&air, WREN_NETDEV_TYPE_IEEE802154, 125);
    wren_loopback_pair(&wren_inst_dev, &air);
    air.netdev.event_cb = air_event;
    if (wren_inst_init(&d) < 0) {
        return fail("assembly");
    }
    struct wren_module *ip = &wren_inst_ipv6.module;
    uint8_t on = 1;
    struct wren_fib_entry r = { .prefix_len = 128, .if_id = wren_inst_netif.netif.id };
    memcpy(r.prefix, remote_b, 16);
    memcpy(r.next_hop, peer_ll, 16);
    struct wren_sock_udp_ep l = { .port = PORT };
    if (wren_netapi_set(node, ip, WREN_NETOPT_IPV6_FORWARDING, 0, &on, 1) < 0 ||
        wren_netapi_set(node, ip, WREN_NETOPT_IPV6_ROUTE_ADD, 0, &r, sizeof(r)) < 0 ||
        wren_sock_udp_create(node, &wren_inst_sock, &l, NULL) < 0) {
        return fail("configuration");
    }
    sink.module.ops = &sink_ops;
    sink.module.prio = WREN_PRIO_APP;
    wren_netreg_register(node, WREN_NETTYPE_UNDEF, WREN_NETREG_DEMUX_ALL, &sink.module, &sink.reg);
    wren_rt_cortexm_poll(&wren_inst_rt);

    const uint8_t *me = wren_inst_netif.short_addr;
    static const uint8_t other[2] = { 0x00, 0x09 };
    static uint8_t f_raw[CONFIG_WREN_LOOPBACK_MTU], f_drop[CONFIG_WREN_LOOPBACK_MTU];
    static uint8_t f_udp[CONFIG_WREN_LOOPBACK_MTU], f_fwd[CONFIG_WREN_LOOPBACK_MTU];
    size_t n_raw = raw_frame(f_raw, me);
    size_t n_drop = udp_frame(f_drop, other, peer_ll, node_ll);
    size_t n_udp = udp_frame(f_udp, me, peer_ll, node_ll);
    size_t n_fwd = udp_frame(f_fwd, me, remote_a, remote_b);
    struct wren_netif_stats *st = &wren_inst_netif.netif.stats;
    unsigned bad = 0;

    /* 1 frame_tx */
    unsigned o = n_out;
    for (int i = 0; i < WARMUP; i++) {
        send_raw();
    }
    bench_mark(1);
    for (int i = 0; i < REPS; i++) {
        send_raw();
    }
    bench_mark(1);
    bad |= (n_out - o != WARMUP + REPS) << 0;
    /* 2 frame_rx */
    for (int i = 0; i < WARMUP; i++) {
        inject(f_raw, n_raw, 0);
    }
    bench_mark(2);
    for (int i = 0; i < REPS; i++) {
        inject(f_raw, n_raw, 0);
    }
    bench_mark(2);
    bad |= (sink.received != WARMUP + REPS) << 1;
    /* 3 frame_drop */
    uint32_t nfu = st->rx_drop_not_for_us;
    for (int i = 0; i < WARMUP; i++) {
        inject(f_drop, n_drop, 0);
    }
    bench_mark(3);
    for (int i = 0; i < REPS; i++) {
        inject(f_drop, n_drop, 0);
    }
    bench_mark(3);
    bad |= (st->rx_drop_not_for_us - nfu != WARMUP + REPS) << 2;
    /* 4 udp_tx */
    o = n_out;
    for (int i = 0; i < WARMUP; i++) {
        send_udp();
    }
    bench_mark(4);
    for (int i = 0; i < REPS; i++) {
        send_udp();
    }
    bench_mark(4);
    bad |= (n_out - o != WARMUP + REPS) << 3;
    /* 5 udp_rx */
    for (int i = 0; i < WARMUP; i++) {
        inject(f_udp, n_udp, 1);
    }
    bench_mark(5);
    for (int i = 0; i < REPS; i++) {
        inject(f_udp, n_udp, 1);
    }
    bench_mark(5);
    bad |= (udp_in != WARMUP + REPS) << 4;
    /* 6 forward */
    o = n_out;
    for (int i = 0; i < WARMUP; i++) {
        inject(f_fwd, n_fwd, 0);
    }
    bench_mark(6);
    for (int i = 0; i < REPS; i++) {
        inject(f_fwd, n_fwd, 0);
    }
    bench_mark(6);
    bad |= (n_out - o != WARMUP + REPS || wren_inst_ipv6.stats.rx_forwarded != WARMUP + REPS) << 5;

    int clean = wren_pktbuf_is_empty(&node->pktbuf) && wren_pktbuf_is_sane(&node->pktbuf);
    printf("wren cortex-m3 cpucost: %d reps per operation, checks %s (0x%x), pktbuf %s\n", REPS,
           bad ? "FAILED" : "passed", bad, clean ? "empty" : "NOT EMPTY");
    return bad == 0 && clean ? 0 : 1;
}
