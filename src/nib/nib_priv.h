/* Inside the NIB module only (nib.c, nib_6lr.c): what the router side in
 * nib_6lr.c uses of nib.c. */
#ifndef WREN_NIB_NIB_PRIV_H
#define WREN_NIB_NIB_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "nib/nib.h"

/* A node built without router features (CONFIG_WREN_IPV6_ROUTER=0) is a
 * host: advertising and answering registrations are left out */
#define IS_ROUTER(nib) (CONFIG_WREN_IPV6_ROUTER && (nib)->router)

/** The module registered for all of @p type (the IPv6 layer, 6LoWPAN), or NULL. */
struct wren_module *wren_nib_layer(struct wren_nib *nib, uint8_t type);
/** The interface's first link-local (@p global false) or global address
 *  into @p out, its state into @p state (may be NULL). @return found. */
bool wren_nib_own_addr(struct wren_nib *nib, uint8_t *out, bool global, uint8_t *state);
/** The ABRO this router's RAs carry: its own as the 6LBR, else learned. */
bool wren_nib_ra_abro(struct wren_nib *nib, struct wren_nib_abro *a);
/** Send an RA to @p dst (unicast, or all-nodes). */
void wren_nib_send_ra(struct wren_nib *nib, const uint8_t *dst);
/** Add or remove a RPL 6LR's /128 route to registered neighbour @p n. */
void wren_nib_host_route(struct wren_nib *nib, struct wren_nib_neighbor *n, bool add);
/** Each second (router builds): RPL 6LR role, ABRO announcements, the host
 *  routes of registrations that ended. */
void wren_nib_6lr_tick(struct wren_nib *nib, uint32_t now);

#endif
