/* Cortex-M3 image: UDP through sock_udp between two nodes whose 802.15.4
 * interfaces are joined by a wire (a pair of loopback devices): socket,
 * UDP, IPv6, 6LoWPAN (fragmenting above ~100 bytes), link layer and
 * interface on both sides, the path of `bench_udp pipe` (bench/bench_udp.c)
 * and of the RIOT paper's L2-reflector figures (4 and 5), at every payload
 * size of udp_sizes.h. Per size: WARMUP datagrams, then MEASURED datagrams
 * between two bench_mark() calls (phase k = the k-th size,
 * python/wren/qemu_bench.py). Each node has its own runtime; the image
 * polls both until neither has work, as bench_udp runs its world. */
#include <stdio.h>
#include <string.h>

#include "instance.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "udp_sizes.h"

#define WARMUP 1
#define MEASURED 2

struct bnode {
    struct wren_rt_cortexm rt;
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

static struct bnode a, b;

__attribute__((noinline)) void bench_mark(int phase);
__attribute__((noinline)) void bench_mark(int phase)
{
    __asm volatile("" : : "r"(phase) : "memory");
}

/* as bench_udp's bnode_init with a link */
static int bnode_init(struct bnode *n, uint32_t id)
{
    wren_rt_cortexm_init(&n->rt, 0);
    wren_node_init(&n->node, &wren_rt_cortexm_ops, &n->rt, n->arena, sizeof(n->arena), id, 1);
    static const struct wren_module_ops *const mods[] = {
        &wren_sixlowpan_module, &wren_ipv6_module, &wren_icmpv6_module, &wren_udp_module,
    };
    void *const states[] = { &n->lp, &n->ip, &n->icmp, &n->udp };
    const struct wren_stack_iface ifs[] = {
        { .link = &wren_link_ieee802154, .dev = &n->dev.netdev, .state = &n->nif },
    };
    struct wren_stack_desc d = { .ifaces = ifs, .n_ifaces = 1, .mods = mods, .states = states,
                                 .n_mods = WREN_STACK_ARRAY_LEN(mods) };
    if (wren_stack_build(&n->node, &d, NULL, 0, NULL) < 0) {
        return -1;
    }
    uint16_t two = 2;
    wren_netapi_set(&n->node, &n->ip.module, WREN_NETOPT_ADDR_LEN, n->nif.netif.id, &two, 2);
    uint8_t g[16] = { 0x20, 0x01, 0x0d, 0xb8 };
    memcpy(g + 8, n->ip.ifs[0].addrs[0].addr + 8, 8);
    wren_ipv6_addr_add(&n->ip, n->nif.netif.id, g, 64, WREN_IPV6_ADDR_VALID);
    struct wren_fib_entry r = { .prefix = { 0x20, 0x01, 0x0d, 0xb8 }, .prefix_len = 64,
                                .if_id = n->nif.netif.id };
    wren_fib_add(n->ip.fib, &r); /* the FIB built in (CONFIG_WREN_NODE_MEM=0) */
    struct wren_sock_udp_ep l = { .port = 7000 };
    return wren_sock_udp_create(&n->node, &n->sock, &l, NULL);
}

/* both nodes until neither has work (bench_udp: wren_world_run_until(now)) */
static void run(void)
{
    do {
        wren_rt_cortexm_poll(&a.rt);
        wren_rt_cortexm_poll(&b.rt);
    } while (a.rt.pending || b.rt.pending);
}

static uint8_t data[WREN_UDP_SIZE_MAX];
static uint8_t buf[WREN_UDP_SIZE_MAX];

/* one datagram sent and received; @check: compare its bytes too (in the
 * warm-up only: the comparison is the benchmark's work, not the stack's) */
static int one(size_t len, const struct wren_sock_udp_ep *to, int check)
{
    wren_sock_udp_send(&a.sock, data, len, to);
    run();
    return wren_sock_udp_recv(&b.sock, buf, sizeof(buf), 0, NULL) == (ssize_t)len &&
           (!check || memcmp(buf, data, len) == 0);
}

int main(void)
{
    static const unsigned sizes[] = { WREN_UDP_SIZES };
    const unsigned n_sizes = sizeof(sizes) / sizeof(sizes[0]);
    wren_loopback_setup(&a.dev, WREN_NETDEV_TYPE_IEEE802154, 125);
    wren_loopback_setup(&b.dev, WREN_NETDEV_TYPE_IEEE802154, 125);
    wren_loopback_pair(&a.dev, &b.dev);
    if (bnode_init(&a, 1) < 0 || bnode_init(&b, 2) < 0) {
        return 2;
    }
    struct wren_sock_udp_ep to = { .port = 7000 };
    memcpy(to.addr, b.ip.ifs[0].addrs[1].addr, 16);
    memset(data, 0x5a, sizeof(data)); /* as bench_udp */
    unsigned ok = 0;
    for (unsigned k = 0; k < n_sizes; k++) {
        for (int i = 0; i < WARMUP; i++) {
            ok += (unsigned)one(sizes[k], &to, 1);
        }
        bench_mark((int)k + 1);
        for (int i = 0; i < MEASURED; i++) {
            ok += (unsigned)one(sizes[k], &to, 0);
        }
        bench_mark((int)k + 1);
    }
    int clean = wren_pktbuf_is_empty(&a.node.pktbuf) && wren_pktbuf_is_sane(&a.node.pktbuf) &&
                wren_pktbuf_is_empty(&b.node.pktbuf) && wren_pktbuf_is_sane(&b.node.pktbuf);
    wren_udp_sizes_print(sizes, n_sizes);
    printf("measured: %d datagrams per size\n", MEASURED);
    printf("wren cortex-m3 udp pipe: %u/%u datagrams, pktbufs %s\n", ok,
           n_sizes * (WARMUP + MEASURED), clean ? "empty" : "NOT EMPTY");
    return ok == n_sizes * (WARMUP + MEASURED) && clean ? 0 : 1;
}
