/* wren in an application of its own, built against an installed wren: one
 * node on the platform's runtime (Linux real time, or bare metal on
 * Cortex-M3), a loopback device standing in for an 802.15.4 radio as its
 * interface, 6LoWPAN, IPv6, ICMPv6 and UDP, and one datagram sent to the
 * node's own link-local address through sock_udp. Prints one line and exits
 * 0 when the datagram arrived intact, 1 otherwise. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/node.h"
#include "drivers/loopback.h"
#include "icmpv6/icmpv6.h"
#include "ipv6/addr_str.h"
#include "ipv6/ipv6.h"
#include "link/ieee802154_link.h"
#include "sixlowpan/sixlowpan.h"
#include "sock/sock_udp.h"
#include "udp/udp.h"
#include "net/netapi.h"
#include "stack/stack.h"

/* The runtime: it owns the clock and the timers and runs the node. */
#if defined(__arm__) && !defined(__linux__)
#include "cortexm/rt_cortexm.h"
#define PLATFORM "cortex-m3"
static struct wren_rt_cortexm rt;
static const struct wren_rt_ops *rt_start(void)
{
    wren_rt_cortexm_init(&rt, NULL); /* virtual time: no board clock */
    return &wren_rt_cortexm_ops;
}
static void rt_attach(struct wren_node *n) /* the runtime learns its node on first work */
{
    (void)n;
}
static void rt_run(void) /* until nothing is left to do within 1 s */
{
    wren_rt_cortexm_run_until(&rt, rt.now + 1000000);
}
#else
#include "host/rt_host.h"
#define PLATFORM "host"
static struct wren_host rt;
static const struct wren_rt_ops *rt_start(void)
{
    return wren_host_init(&rt) == 0 ? &wren_host_rt_ops : NULL;
}
static void rt_attach(struct wren_node *n)
{
    wren_host_set_node(&rt, n);
}
static void rt_run(void) /* 1 ms of wall-clock time; the node runs at least once */
{
    wren_host_run_for(&rt, 1000);
}
#endif

/* The node, its device and the modules' state: static, nothing is allocated. */
static struct wren_node node;
static _Alignas(8) uint8_t arena[CONFIG_WREN_PKTBUF_SIZE];
static struct wren_loopback dev;
static _Alignas(8) uint8_t pool[4096]; /* >= wren_stack_pool_size(NULL, &desc), checked */
static struct wren_stack stack;
static struct wren_sock_udp server, client;

/* What the node is: an 802.15.4 interface on the device, 6LoWPAN, IPv6,
 * ICMPv6 and UDP (src/stack/stack.h) */
static const struct wren_stack_iface ifaces[] = {
    { .link = &wren_link_ieee802154, .dev = &dev.netdev },
};
static const struct wren_module_ops *const modules[] = {
    &wren_sixlowpan_module, &wren_ipv6_module, &wren_icmpv6_module, &wren_udp_module,
};
static const struct wren_stack_desc desc = WREN_STACK_DESC(ifaces, modules);

int main(void)
{
    const struct wren_rt_ops *ops = rt_start();
    if (ops == NULL) {
        return 1;
    }
    wren_node_init(&node, ops, &rt, arena, sizeof(arena), 1, 1);
    rt_attach(&node);
    wren_loopback_setup(&dev, WREN_NETDEV_TYPE_IEEE802154, 125);
    struct wren_sock_udp_ep local = { .port = 7000 };
    if (wren_stack_pool_size(NULL, &desc) > sizeof(pool) ||
        wren_stack_build(&node, &desc, pool, sizeof(pool), &stack) < 0 ||
        wren_sock_udp_create(&node, &server, &local, NULL) < 0 ||
        wren_sock_udp_create(&node, &client, NULL, NULL) < 0) {
        printf("wren embed (%s): setting up the node failed\n", PLATFORM);
        return 1;
    }

    /* to our own link-local address (from the loopback device's EUI-64) */
    struct wren_sock_udp_ep to = { .port = 7000 };
    struct wren_ipv6_addr addrs[CONFIG_WREN_IPV6_ADDRS];
    if (wren_netapi_get(&node, wren_stack_module(&stack, &wren_ipv6_module, 0),
                        WREN_NETOPT_IPV6_ADDR, node.netifs->id, addrs, sizeof(addrs)) <= 0) {
        return 1;
    }
    memcpy(to.addr, addrs[0].addr, 16);
    static const char msg[] = "hello from wren";
    ssize_t sent = wren_sock_udp_send(&client, msg, sizeof(msg), &to);
    rt_run();

    char buf[64];
    struct wren_sock_udp_ep from;
    ssize_t got = wren_sock_udp_recv(&server, buf, sizeof(buf), 0, &from);
    int ok = sent == (ssize_t)sizeof(msg) && got == (ssize_t)sizeof(msg) &&
             memcmp(buf, msg, sizeof(msg)) == 0 && from.port == client.local.port;
    char addr[WREN_IPV6_ADDR_STRLEN];
    printf("wren embed (%s): %d-byte UDP datagram to [%s]:%u %s\n", PLATFORM, (int)sent,
           wren_ipv6_addr_to_str(addr, to.addr), (unsigned)to.port,
           ok ? "arrived intact" : "LOST");
    return ok ? 0 : 1;
}
