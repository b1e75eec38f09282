/* Cortex-M3 image for the size of TSCH (./wren size, rom_tsch_bytes): the
 * rpl image's 6LoWPAN router and RPL non-storing root, its 802.15.4
 * interface running the TSCH MAC (mac/tsch/tsch.h: slot engine, minimal 6TiSCH
 * cell, EBs, synchronisation, per-neighbour queues) instead of CSMA, with
 * 6top (6P, RFC 8480) and MSF (RFC 9033) on it (WREN_IMAGE_SIXTOP). The
 * difference of this image and the rpl image (the same router on CSMA,
 * CONFIG_WREN_TSCH=0) is what TSCH + 6top + MSF cost. The node becomes the
 * TSCH coordinator and the DODAG root, runs its first slots and stops. */
#include <stdio.h>

#include "instance.h"
#include "mac/tsch/tsch.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "rpl/rpl.h"
#if WREN_IMAGE_SIXTOP
#include "sixtop/sixtop.h"
#endif

#define ROOT_ROUTES 8

struct wren_ieee802154_tsch_netif wren_inst_tsch_netif;
struct wren_rpl wren_inst_rpl;
struct wren_rpl_route wren_inst_rpl_routes[ROOT_ROUTES];
#if WREN_IMAGE_SIXTOP
struct wren_sixtop wren_inst_sixtop;
#endif

int main(void)
{
    static const struct wren_module_ops *const mods[] = {
        &wren_sixlowpan_module, &wren_ipv6_module, &wren_icmpv6_module, &wren_rpl_module,
#if WREN_IMAGE_SIXTOP
        &wren_sixtop_module,
#endif
    };
    static void *const states[] = {
        &wren_inst_sixlowpan, &wren_inst_ipv6, &wren_inst_icmpv6, &wren_inst_rpl,
#if WREN_IMAGE_SIXTOP
        &wren_inst_sixtop,
#endif
    };
    static const struct wren_stack_iface ifs[] = {
        { .link = &wren_link_ieee802154_tsch, .dev = &wren_inst_dev.netdev,
          .state = &wren_inst_tsch_netif },
    };
    static const struct wren_stack_desc d = { .ifaces = ifs, .n_ifaces = 1, .mods = mods,
                                              .states = states,
                                              .n_mods = WREN_STACK_ARRAY_LEN(mods) };
    wren_loopback_setup(&wren_inst_dev, WREN_NETDEV_TYPE_IEEE802154, 125);
    if (wren_inst_init(&d) < 0) {
        printf("wren cortex-m3 tsch: assembly failed\n");
        return 2;
    }
    struct wren_module *rpl = &wren_inst_rpl.module;
    struct wren_rpl_route_mem mem = { wren_inst_rpl_routes, ROOT_ROUTES };
    struct wren_rpl_role_cfg c = { .role = WREN_RPL_ROOT, .prefix_len = 64,
                                   .mop = RPL_MOP_NON_STORING, .prefix = { 0x20, 0x01, 0x0d, 0xb8 },
                                   .flags = WREN_RPL_CFG_GROUNDED };
    uint8_t role = WREN_TSCH_COORDINATOR;
    if (wren_netapi_set(&wren_inst_node, rpl, WREN_NETOPT_RPL_ROUTE_MEM, 0, &mem, sizeof(mem)) < 0 ||
        wren_netapi_set(&wren_inst_node, rpl, WREN_NETOPT_RPL_ROLE, 0, &c, sizeof(c)) < 0 ||
        wren_netapi_set(&wren_inst_node, &wren_inst_tsch_netif.nif.netif.module,
                        WREN_NETOPT_TSCH_ROLE, 0, &role, sizeof(role)) < 0) {
        printf("wren cortex-m3 tsch: no coordinator\n");
        return 1;
    }
    wren_rt_cortexm_poll(&wren_inst_rt);
    printf("wren cortex-m3 tsch: coordinator and non-storing root%s\n",
           WREN_IMAGE_SIXTOP ? ", 6top and MSF" : "");
    return 0;
}
