/* Inside the NIB module only: what its files share. nib.c is the host side
 * and what both sides use (the neighbor cache, receiving, options);
 * nib_router.c what a router sends and answers (RAs, registrations) and its
 * configuration; nib_6lr.c the router side that follows the LoWPAN's state
 * each second. */
#ifndef WREN_NIB_NIB_PRIV_H
#define WREN_NIB_NIB_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nib/nib.h"
#include "wire/icmpv6.h"

/* Whether the neighbour cache is made (always without CONFIG_WREN_NODE_MEM):
 * a node that never had a neighbour has none. */
static inline bool wren_nib_nc_made(const struct wren_nib *nib)
{
#if CONFIG_WREN_NODE_MEM
    return nib->nc != NULL;
#else
    (void)nib;
    return true;
#endif
}

/* A node built without router features (CONFIG_WREN_IPV6_ROUTER=0) is a
 * host: advertising and answering registrations are left out */
#define IS_ROUTER(nib) (CONFIG_WREN_IPV6_ROUTER && (nib)->router)

#define WREN_NIB_ND_BUF 200 /* an ND message's bytes as the NIB builds it */
#define WREN_NIB_RS_INTERVAL_S 4 /* RFC 4861 10: RTR_SOLICITATION_INTERVAL */

/** The options of a received ND message the NIB reads (read_opts). */
struct wren_nib_nd_opts {
    struct icmpv6_lladdr sllao, tllao;
    struct icmpv6_aro aro;
    struct icmpv6_abro abro;
    bool has_sllao, has_tllao, has_aro, has_abro;
};

/* ---- nib.c, for the router side ------------------------------------------ */

/** The module registered for all of @p type (the IPv6 layer, 6LoWPAN), or NULL. */
struct wren_module *wren_nib_layer(struct wren_nib *nib, uint8_t type);
/** The interface's first link-local (@p global false) or global address
 *  into @p out, its state into @p state (may be NULL). @return found. */
bool wren_nib_own_addr(struct wren_nib *nib, uint8_t *out, bool global, uint8_t *state);
/** The state of @p a among the interface's addresses (UNUSED: not ours). */
uint8_t wren_nib_own_state(struct wren_nib *nib, const uint8_t *a);
/** Add or remove a RPL 6LR's /128 route to registered neighbour @p n. */
void wren_nib_host_route(struct wren_nib *nib, struct wren_nib_neighbor *n, bool add);
/** The neighbor cache's entry for @p ip, or NULL. */
struct wren_nib_neighbor *wren_nib_nc_find(struct wren_nib *nib, const uint8_t *ip);
/** Learn @p ip at @p l2 in @p state (nc_update's rules). @return the entry, or NULL (full). */
struct wren_nib_neighbor *wren_nib_nc_update(struct wren_nib *nib, const uint8_t *ip,
                                             const uint8_t *l2, uint8_t l2len, uint8_t state);
/** Our SLLAO/TLLAO (@p type) into @p b. @return its length (0: no room). */
size_t wren_nib_put_sllao(struct wren_nib *nib, uint8_t type, uint8_t *b, size_t room);
/** Send ND message @p m (hop limit 255) from @p src (NULL: the layer picks) to @p dst. */
void wren_nib_send_nd(struct wren_nib *nib, const uint8_t *src, const uint8_t *dst, uint8_t *m,
                      size_t len);
/** Send an NA for @p target to @p dst, with @p aro if not NULL. */
void wren_nib_send_na(struct wren_nib *nib, const uint8_t *dst, const uint8_t *target,
                      uint8_t flags, const struct icmpv6_aro *aro);

/* ---- nib_router.c ---------------------------------------------------------- */

/** The ABRO the node knows: this NIB's, else another NIB's of the node. */
bool wren_nib_learned_abro(struct wren_nib *nib, struct wren_nib_abro *out);
/** The ABRO this router's RAs carry: its own as the 6LBR, else learned. */
bool wren_nib_ra_abro(struct wren_nib *nib, struct wren_nib_abro *a);
/** Send an RA to @p dst (unicast, or all-nodes). */
void wren_nib_send_ra(struct wren_nib *nib, const uint8_t *dst);
/** A router's answer to a valid RS from @p src (options @p o). */
void wren_nib_rs_answer(struct wren_nib *nib, const uint8_t *src,
                        const struct wren_nib_nd_opts *o);
/** A router's handling of a valid NS from @p src with an ARO and an SLLAO:
 *  the registration, accepted or refused (RFC 6775 6.5, RFC 8505). */
void wren_nib_aro_register(struct wren_nib *nib, const uint8_t *src, const struct icmpv6_msg *m,
                           const struct wren_nib_nd_opts *o, const uint8_t *fsrc,
                           uint8_t fsrc_len);

/* ---- nib_6lr.c ------------------------------------------------------------- */

/** Each second (router builds): RPL 6LR role, ABRO announcements, the host
 *  routes of registrations that ended. */
void wren_nib_6lr_tick(struct wren_nib *nib, uint32_t now);

#endif
