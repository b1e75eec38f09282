/**
 * @file instance.h
 * @brief The statically allocated node of a Cortex-M image.
 */
#ifndef WREN_PORT_INSTANCE_H
#define WREN_PORT_INSTANCE_H

#include "core/config.h"
#include "core/node.h"
#include "drivers/loopback.h"
#include "link/ieee802154_link.h"
#include "rt_cortexm.h"

struct wren_instance {
    struct wren_rt_cortexm rt;
    struct wren_node node;
    struct wren_ieee802154_netif netif;
    struct wren_loopback radio;   /**< the L2 reflector stands in for a radio */
};

extern struct wren_instance wren_instance;
extern uint8_t wren_instance_arena[CONFIG_WREN_PKTBUF_SIZE];

#endif
