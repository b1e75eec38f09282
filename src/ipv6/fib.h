/**
 * @file fib.h
 * @brief Forwarding information base: prefixes to next hops, longest match.
 */
#ifndef WREN_IPV6_FIB_H
#define WREN_IPV6_FIB_H

#include <stdbool.h>
#include <stdint.h>

/** Routes a node can hold: static ones and a default route (RPL's via the
 *  preferred parent; its downward routes stay in RPL's own table, which IPv6
 *  asks with GET WREN_NETOPT_RPL_ROUTE). */
#ifndef CONFIG_WREN_FIB_ENTRIES
#define CONFIG_WREN_FIB_ENTRIES 4
#endif
_Static_assert(CONFIG_WREN_FIB_ENTRIES >= 1, "a default route at least");

struct wren_fib_entry {
    uint8_t prefix[16];
    uint8_t next_hop[16];  /**< :: for an on-link prefix */
    uint8_t prefix_len;    /**< 0 with len 0 = default route */
    uint8_t if_id;         /**< 0 = unused entry */
};

struct wren_fib {
    struct wren_fib_entry e[CONFIG_WREN_FIB_ENTRIES];
};

void wren_fib_init(struct wren_fib *fib);
/** @brief Add or replace the route for (prefix, len). @return 0, -EINVAL, -ENOSPC. */
int wren_fib_add(struct wren_fib *fib, const struct wren_fib_entry *r);
/** @brief Remove the route for (prefix, len). @return 0 or -ENOENT. */
int wren_fib_del(struct wren_fib *fib, const uint8_t *prefix, uint8_t len);
/** @brief The route with the longest prefix matching @p dst, or NULL. */
const struct wren_fib_entry *wren_fib_lookup(const struct wren_fib *fib, const uint8_t *dst);

#endif
