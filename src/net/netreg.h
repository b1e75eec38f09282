/**
 * @file netreg.h
 * @brief Which modules want which packets: (protocol type, demux context).
 *
 * A module that wants, say, UDP packets for port 5683 registers an entry
 * (owned by the module, static memory) under (WREN_NETTYPE_UDP, 5683).
 * A layer that has a packet for the next layer up or down dispatches it
 * with wren_netapi_dispatch(), which gives each registered module its own
 * reference.
 */
#ifndef WREN_NET_NETREG_H
#define WREN_NET_NETREG_H

#include <stdint.h>

#include "net/nettype.h"

/**
 * Demux context of the module that handles a whole protocol (the UDP module
 * registers (UDP, ALL); a socket on port 5683 registers (UDP, 5683)).
 * Matching is exact: a layer dispatching to (UDP, 5683) reaches only the
 * socket, and one dispatching to (UDP, ALL) only the protocol module, so a
 * module never receives the packets it hands on.
 */
#define WREN_NETREG_DEMUX_ALL UINT32_MAX

struct wren_module;

struct wren_netreg_entry {
    struct wren_netreg_entry *next;
    struct wren_module *module;
    uint32_t demux;
};

struct wren_netreg {
    struct wren_netreg_entry *head[WREN_NETTYPE_NUMOF];
};

struct wren_node;

void wren_netreg_init(struct wren_netreg *reg);

/**
 * @brief Register @p module for packets of @p type and @p demux.
 * @param[out] entry  storage for the registration, owned by the caller
 * @return 0, or -EINVAL for an unknown type, -EALREADY if @p entry is in use.
 */
int wren_netreg_register(struct wren_node *node, uint8_t type, uint32_t demux,
                         struct wren_module *module, struct wren_netreg_entry *entry);

/** @brief Remove @p entry (no-op if not registered). */
void wren_netreg_unregister(struct wren_node *node, uint8_t type,
                            struct wren_netreg_entry *entry);

/**
 * @brief First entry for exactly (type, demux) after @p prev (NULL: from the start).
 */
struct wren_netreg_entry *wren_netreg_lookup(struct wren_node *node, uint8_t type,
                                             uint32_t demux,
                                             struct wren_netreg_entry *prev);

/** @brief Number of entries matching (type, demux). */
unsigned wren_netreg_count(struct wren_node *node, uint8_t type, uint32_t demux);

#endif
