/* Cortex-M3 images for the size of RPL (./wren size, rom_rpl_bytes and its
 * twins; runtime/cortexm/CMakeLists.txt says which features each has): a
 * 6LoWPAN router (802.15.4, 6LoWPAN, IPv6 with forwarding, ICMPv6) with RPL
 * (rpl) and the same router without it (rpl_none: no RPL module and
 * CONFIG_WREN_IPV6_RPL=0, IPv6 without its RPL hooks), under the same
 * configuration otherwise; the difference of the two images is what RPL
 * costs. The node becomes a non-storing root with route memory of its own
 * (a root is sized apart from a router), announces its DODAG and stops. */
#include <errno.h>
#include <stdio.h>

#include "instance.h"
#include "net/netapi.h"
#include "net/netopt.h"
#if WREN_IMAGE_RPL
#include "rpl/rpl.h"

#define ROOT_ROUTES 8

struct wren_rpl wren_inst_rpl;
struct wren_rpl_route wren_inst_rpl_routes[ROOT_ROUTES];
#endif

#if WREN_IMAGE_RPL
/* A build with one mode of operation refuses the other, as a root and as
 * the mode a router is told to join (-ENOTSUP); one with both takes both.
 * Returns whether it does so. */
static int modes_as_built(struct wren_module *rpl)
{
    static const uint8_t mops[2] = { RPL_MOP_STORING, RPL_MOP_NON_STORING };
    static const int built[2] = { CONFIG_WREN_RPL_STORING, CONFIG_WREN_RPL_NONSTORING };
    for (unsigned i = 0; i < 2; i++) {
        struct wren_rpl_role_cfg root = { .role = WREN_RPL_ROOT, .prefix_len = 64,
                                          .mop = mops[i], .prefix = { 0x20, 0x01, 0x0d, 0xb8 } };
        struct wren_rpl_role_cfg router = { .role = WREN_RPL_ROUTER, .mop = mops[i],
                                            .flags = WREN_RPL_CFG_MOP };
        int want = built[i] ? 0 : -ENOTSUP;
        if (wren_netapi_set(&wren_inst_node, rpl, WREN_NETOPT_RPL_ROLE, 0, &root,
                            sizeof(root)) != want ||
            wren_netapi_set(&wren_inst_node, rpl, WREN_NETOPT_RPL_ROLE, 0, &router,
                            sizeof(router)) != want) {
            printf("wren cortex-m3 rpl: mode %u %s\n", mops[i],
                   built[i] ? "refused" : "taken though left out");
            return 0;
        }
    }
    struct wren_rpl_role_cfg off = { .role = WREN_RPL_OFF };
    return wren_netapi_set(&wren_inst_node, rpl, WREN_NETOPT_RPL_ROLE, 0, &off, sizeof(off)) == 0;
}
#endif

int main(void)
{
    static const struct wren_module_ops *const mods[] = {
        &wren_sixlowpan_module, &wren_ipv6_module, &wren_icmpv6_module,
#if WREN_IMAGE_RPL
        &wren_rpl_module,
#endif
    };
    static void *const states[] = { &wren_inst_sixlowpan, &wren_inst_ipv6, &wren_inst_icmpv6,
#if WREN_IMAGE_RPL
                                    &wren_inst_rpl,
#endif
    };
    static const struct wren_stack_iface ifs[] = { WREN_INST_IFACE };
    static const struct wren_stack_desc d = { .ifaces = ifs, .n_ifaces = 1, .mods = mods,
                                              .states = states,
                                              .n_mods = WREN_STACK_ARRAY_LEN(mods) };
    wren_loopback_setup(&wren_inst_dev, WREN_NETDEV_TYPE_IEEE802154, 125);
    if (wren_inst_init(&d) < 0) {
        printf("wren cortex-m3 rpl: assembly failed\n");
        return 2;
    }
#if WREN_IMAGE_RPL
    struct wren_module *rpl = &wren_inst_rpl.module;
    if (!modes_as_built(rpl)) {
        return 3;
    }
    struct wren_rpl_route_mem mem = { wren_inst_rpl_routes, ROOT_ROUTES };
    /* non-storing where built (the storing-only twin roots a storing DODAG) */
    struct wren_rpl_role_cfg c = { .role = WREN_RPL_ROOT, .prefix_len = 64,
                                   .mop = CONFIG_WREN_RPL_NONSTORING ? RPL_MOP_NON_STORING
                                                                     : RPL_MOP_STORING,
                                   .prefix = { 0x20, 0x01, 0x0d, 0xb8 },
                                   .flags = WREN_RPL_CFG_GROUNDED };
    if (wren_netapi_set(&wren_inst_node, rpl, WREN_NETOPT_RPL_ROUTE_MEM, 0, &mem, sizeof(mem)) < 0 ||
        wren_netapi_set(&wren_inst_node, rpl, WREN_NETOPT_RPL_ROLE, 0, &c, sizeof(c)) < 0) {
        printf("wren cortex-m3 rpl: no root\n");
        return 1;
    }
#endif
    wren_rt_cortexm_poll(&wren_inst_rt);
    printf("wren cortex-m3 rpl: %s\n", !WREN_IMAGE_RPL            ? "router without RPL"
                                      : CONFIG_WREN_RPL_NONSTORING ? "non-storing root"
                                                                   : "storing root");
    return 0;
}
