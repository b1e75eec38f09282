/* UDP micro-benchmarks, as in the RIOT paper's figures 4 and 5.
 *
 *   bench_udp loopback SIZE N  N datagrams of SIZE bytes sent and received
 *                              through sock_udp over the IPv6 loopback (::1)
 *   bench_udp pipe SIZE N      the same between two nodes whose 802.15.4
 *                              interfaces are joined by a wire (a pair of
 *                              loopback devices): socket, UDP, IPv6, 6LoWPAN
 *                              (fragmenting above ~100 bytes), link layer and
 *                              interface on both sides
 *
 * Prints "<mode> <size> <n> <received> <seconds>". Under callgrind, two
 * values of N give the instructions of one datagram without start-up. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/node.h"
#include "drivers/loopback.h"
#include "icmpv6/icmpv6.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "ipv6/ipv6.h"
#include "link/ieee802154_link.h"
#include "sim/world.h"
#include "sixlowpan/sixlowpan.h"
#include "sock/sock_udp.h"
#include "udp/udp.h"
#include "stack/stack.h"

struct bnode {
    struct wren_node node;
    _Alignas(8) uint8_t arena[CONFIG_WREN_PKTBUF_SIZE];
    struct wren_ipv6 ip;
    struct wren_icmpv6 icmp;
    struct wren_udp udp;
    struct wren_sixlowpan lp;
    struct wren_ieee802154_netif nif;
    struct wren_loopback dev;
    struct wren_sock_udp sock;
};

static struct wren_world world;
static struct bnode a, b;

/* State the modules make on first use (rt op `mem`, core/node.h): from a
 * static arena, reset by each run (its nodes are built again). */
static _Alignas(16) uint8_t mem_arena[16384];
static size_t mem_used;
static struct wren_rt_ops rt_ops;

static void *bench_mem(void *rt, struct wren_node *node, const struct wren_module_ops *owner,
                       size_t size)
{
    (void)rt, (void)node, (void)owner;
    size = (size + 15) & ~(size_t)15;
    if (size > sizeof(mem_arena) - mem_used) {
        return NULL;
    }
    void *p = mem_arena + mem_used;
    memset(p, 0, size);
    mem_used += size;
    return p;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void bnode_init(struct bnode *n, uint32_t id, int link)
{
    wren_node_init(&n->node, &rt_ops, &world, n->arena, sizeof(n->arena), id, 1);
    /* IPv6 + ICMPv6 + UDP, with link: 6LoWPAN on an 802.15.4 interface */
    static const struct wren_module_ops *const mods[] = {
        &wren_sixlowpan_module, &wren_ipv6_module, &wren_icmpv6_module, &wren_udp_module,
    };
    void *const states[] = { &n->lp, &n->ip, &n->icmp, &n->udp };
    const struct wren_stack_iface ifs[] = {
        { .link = &wren_link_ieee802154, .dev = &n->dev.netdev, .state = &n->nif },
    };
    struct wren_stack_desc d = WREN_STACK_DESC(ifs, mods);
    d.states = states;
    d.n_ifaces = link ? 1 : 0;
    if (wren_stack_build(&n->node, &d, NULL, 0, NULL) < 0) {
        abort();
    }
    if (link) {
        /* frames from the short address (9-octet MAC headers; the loopback
         * device's EUI-64 ends in it, so the IIDs are the same) */
        uint16_t two = 2;
        wren_netapi_set(&n->node, &n->ip.module, WREN_NETOPT_ADDR_LEN, n->nif.netif.id, &two, 2);
        /* 2001:db8::ff:fe00:<short address>, the prefix on-link */
        uint8_t g[16] = { 0x20, 0x01, 0x0d, 0xb8 };
        memcpy(g + 8, n->ip.ifs[0].addrs[0].addr + 8, 8);
        wren_ipv6_addr_add(&n->ip, n->nif.netif.id, g, 64, WREN_IPV6_ADDR_VALID);
        struct wren_fib_entry r = { .prefix = { 0x20, 0x01, 0x0d, 0xb8 }, .prefix_len = 64,
                                    .if_id = n->nif.netif.id };
        wren_netapi_set(&n->node, &n->ip.module, WREN_NETOPT_IPV6_ROUTE_ADD, 0, &r, sizeof(r));
    }
    struct wren_sock_udp_ep l = { .port = 7000 };
    wren_sock_udp_create(&n->node, &n->sock, &l, NULL);
}

static unsigned long run_wren(int pipe, size_t size, unsigned long n)
{
    wren_world_init(&world, 1);
    rt_ops = wren_world_rt_ops;
    rt_ops.mem = bench_mem;
    mem_used = 0;
    if (pipe) {
        wren_loopback_setup(&a.dev, WREN_NETDEV_TYPE_IEEE802154, 125);
        wren_loopback_setup(&b.dev, WREN_NETDEV_TYPE_IEEE802154, 125);
        wren_loopback_pair(&a.dev, &b.dev);
    }
    bnode_init(&a, 1, pipe);
    struct bnode *rx = &a;
    struct wren_sock_udp_ep to = { .port = 7000 };
    if (pipe) {
        bnode_init(&b, 2, 1);
        rx = &b;
        memcpy(to.addr, b.ip.ifs[0].addrs[1].addr, 16);
    } else {
        to.addr[15] = 1;
    }
    static uint8_t data[1300], buf[1300];
    memset(data, 0x5a, sizeof(data));
    unsigned long got = 0;
    for (unsigned long i = 0; i < n; i++) {
        wren_sock_udp_send(&a.sock, data, size, &to);
        wren_world_run_until(&world, world.now);
        got += wren_sock_udp_recv(&rx->sock, buf, sizeof(buf), 0, NULL) == (ssize_t)size;
    }
    if (!wren_pktbuf_is_empty(&a.node.pktbuf) || !wren_pktbuf_is_empty(&rx->node.pktbuf)) {
        fprintf(stderr, "packet buffer not empty\n");
        return 0;
    }
    return got;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: bench_udp loopback|pipe SIZE N\n");
        return 2;
    }
    const char *mode = argv[1];
    size_t size = strtoul(argv[2], NULL, 10);
    unsigned long n = strtoul(argv[3], NULL, 10);
    double t0 = now_s();
    if (strcmp(mode, "loopback") != 0 && strcmp(mode, "pipe") != 0) {
        fprintf(stderr, "usage: bench_udp loopback|pipe SIZE N\n");
        return 2;
    }
    unsigned long got = run_wren(strcmp(mode, "pipe") == 0, size, n);
    double dt = now_s() - t0;
    printf("%s %zu %lu %lu %.6f\n", mode, size, n, got, dt);
    return got == n ? 0 : 1;
}
