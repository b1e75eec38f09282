/* The one node of a Cortex-M3 image and everything it owns: each global's
 * .bss section is the RAM of one module, reported apart from the code. */
#include "instance.h"

struct wren_rt_cortexm wren_inst_rt;
struct wren_node wren_inst_node;
_Alignas(8) uint8_t wren_inst_arena[CONFIG_WREN_PKTBUF_SIZE];
struct wren_loopback wren_inst_dev;
struct wren_ieee802154_netif wren_inst_netif;
struct wren_sixlowpan wren_inst_sixlowpan;
struct wren_ipv6 wren_inst_ipv6;
struct wren_icmpv6 wren_inst_icmpv6;
struct wren_nib wren_inst_nib;
struct wren_udp wren_inst_udp;
struct wren_coap wren_inst_coap;

int wren_inst_init(const struct wren_stack_desc *d)
{
    wren_rt_cortexm_init(&wren_inst_rt, 0);
    wren_node_init(&wren_inst_node, &wren_rt_cortexm_ops, &wren_inst_rt, wren_inst_arena,
                   sizeof(wren_inst_arena), 1, 1);
    return wren_stack_build(&wren_inst_node, d, NULL, 0, NULL);
}
