/**
 * @file instance.h
 * @brief The statically allocated node of a Cortex-M image, one global per
 *        module so that the linker map shows each module's RAM; images link
 *        only the ones they use (--gc-sections).
 */
#ifndef WREN_PORT_INSTANCE_H
#define WREN_PORT_INSTANCE_H

#include "coap/coap.h"
#include "core/config.h"
#include "core/node.h"
#include "drivers/loopback.h"
#include "icmpv6/icmpv6.h"
#include "ipv6/ipv6.h"
#include "link/ieee802154_link.h"
#include "nib/nib.h"
#include "rt_cortexm.h"
#include "sixlowpan/sixlowpan.h"
#include "sock/sock_udp.h"
#include "udp/udp.h"
#include "stack/stack.h"

extern struct wren_rt_cortexm wren_inst_rt;
extern struct wren_node wren_inst_node;
extern uint8_t wren_inst_arena[CONFIG_WREN_PKTBUF_SIZE];
extern struct wren_loopback wren_inst_dev;  /**< stands in for a radio */
extern struct wren_ieee802154_netif wren_inst_netif;
extern struct wren_sixlowpan wren_inst_sixlowpan;
extern struct wren_ipv6 wren_inst_ipv6;
extern struct wren_icmpv6 wren_inst_icmpv6;
extern struct wren_nib wren_inst_nib;
extern struct wren_udp wren_inst_udp;
extern struct wren_coap wren_inst_coap;

/**
 * @brief Bring up the runtime and the node, assembled (src/stack/stack.h)
 *        from @p d, whose states are the globals above. An image with an
 *        interface sets up wren_inst_dev (a loopback standing in for a
 *        radio, or the L2 reflector) first and describes it with
 *        WREN_INST_IFACE; images without one link no link layer or device.
 * @return 0 or -errno.
 */
int wren_inst_init(const struct wren_stack_desc *d);

/** The 802.15.4 interface of images that have one, on the stand-in device. */
#define WREN_INST_IFACE \
    { .link = &wren_link_ieee802154, .dev = &wren_inst_dev.netdev, .state = &wren_inst_netif }

#endif
