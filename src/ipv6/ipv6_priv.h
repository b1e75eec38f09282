/* Private to src/ipv6: what ipv6.c (addresses, source selection, the module),
 * ipv6_rx.c (receiving: checks, extension headers, delivery), ipv6_tx.c
 * (sending and forwarding: routes, next hops, the link) and ipv6_rpl.c
 * (RPL's hooks: RPI, SRH, RFC 9008 tunnels) share. */
#ifndef WREN_IPV6_IPV6_PRIV_H
#define WREN_IPV6_IPV6_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"
#include "core/node.h"
#include "ipv6/ipv6.h"
#include "net/netapi.h"
#include "net/netreg.h"
#include "net/nettype.h"

/* ipv6.c */
/* The interface @p if_id of ours, or NULL (0 names none). */
struct wren_ipv6_if *wren_ipv6_if_get(struct wren_ipv6 *ip, uint8_t if_id);

/* @p pkt to the ICMPv6 module for an error message (or released) */
static inline void ipv6_icmp_error_post(struct wren_ipv6 *ip, struct wren_snip *pkt, uint8_t type,
                                        uint8_t code, uint16_t param)
{
    struct wren_netreg_entry *e =
        wren_netreg_lookup(ip->node, WREN_NETTYPE_ICMPV6, WREN_NETREG_DEMUX_ALL, NULL);
    struct wren_msg msg = { .type = WREN_MSG_ICMPV6_ERROR(type, code), .arg = param, .ptr = pkt };
    if (e == NULL || wren_sched_post(ip->node, e->module, &msg) < 0) {
        wren_pktbuf_release(&ip->node->pktbuf, pkt);
    }
}
/* A router sends ICMPv6 errors from its receive, forwarding and RPL paths:
 * one copy, in ipv6.c; a host only from the receive path, inline there */
#if CONFIG_WREN_IPV6_ROUTER
void wren_ipv6_icmp_error(struct wren_ipv6 *ip, struct wren_snip *pkt, uint8_t type, uint8_t code,
                          uint16_t param);
#else
static inline void wren_ipv6_icmp_error(struct wren_ipv6 *ip, struct wren_snip *pkt, uint8_t type,
                                        uint8_t code, uint16_t param)
{
    ipv6_icmp_error_post(ip, pkt, type, code, param);
}
#endif

/* ipv6_rx.c */
void wren_ipv6_receive(struct wren_ipv6 *ip, struct wren_snip *pkt);

/* ipv6_tx.c */
void wren_ipv6_send(struct wren_ipv6 *ip, struct wren_snip *pkt);
void wren_ipv6_forward(struct wren_ipv6 *ip, struct wren_snip *pkt, uint8_t direct,
                       bool decapped);

/* ipv6_rpl.c; without RPL's hooks (CONFIG_WREN_IPV6_RPL 0) each answers
 * as the hook would: nothing to do */
#if CONFIG_WREN_IPV6_RPL
bool wren_ipv6_rpl_route(struct wren_ipv6 *ip, const uint8_t *dst, uint8_t rr[18]);
bool wren_ipv6_rpl_outside(struct wren_ipv6 *ip, uint8_t if_id, const uint8_t *dst,
                           bool forwarded);
void wren_ipv6_rpi_strip(struct wren_ipv6 *ip, struct wren_snip *hs);
int wren_ipv6_srh_insert(struct wren_ipv6 *ip, struct wren_snip *hs, uint8_t pinned);
int wren_ipv6_rpi_insert(struct wren_ipv6 *ip, struct wren_snip *hs);
int wren_ipv6_rpi_forward(struct wren_ipv6 *ip, struct wren_snip *dg, const uint8_t *prev_iid);
bool wren_ipv6_tunnel_origin(struct wren_ipv6 *ip, struct wren_snip *pkt, struct wren_snip *hs);
bool wren_ipv6_tunnel_down(struct wren_ipv6 *ip, struct wren_snip *dg);
int wren_ipv6_srh_step(struct wren_ipv6 *ip, struct wren_snip *pkt, uint16_t plen,
                       uint16_t rh_off);
#else
static inline bool wren_ipv6_rpl_route(struct wren_ipv6 *ip, const uint8_t *dst, uint8_t rr[18])
{
    (void)ip, (void)dst, (void)rr;
    return false;
}
static inline bool wren_ipv6_rpl_outside(struct wren_ipv6 *ip, uint8_t if_id, const uint8_t *dst,
                                         bool forwarded)
{
    (void)ip, (void)if_id, (void)dst, (void)forwarded;
    return false;
}
static inline void wren_ipv6_rpi_strip(struct wren_ipv6 *ip, struct wren_snip *hs)
{
    (void)ip, (void)hs;
}
static inline int wren_ipv6_srh_insert(struct wren_ipv6 *ip, struct wren_snip *hs, uint8_t pinned)
{
    (void)ip, (void)hs, (void)pinned;
    return 0;
}
static inline int wren_ipv6_rpi_insert(struct wren_ipv6 *ip, struct wren_snip *hs)
{
    (void)ip, (void)hs;
    return 0;
}
static inline int wren_ipv6_rpi_forward(struct wren_ipv6 *ip, struct wren_snip *dg,
                                        const uint8_t *prev_iid)
{
    (void)ip, (void)dg, (void)prev_iid;
    return 0;
}
static inline bool wren_ipv6_tunnel_origin(struct wren_ipv6 *ip, struct wren_snip *pkt,
                                           struct wren_snip *hs)
{
    (void)ip, (void)pkt, (void)hs;
    return false;
}
static inline bool wren_ipv6_tunnel_down(struct wren_ipv6 *ip, struct wren_snip *dg)
{
    (void)ip, (void)dg;
    return false;
}
static inline int wren_ipv6_srh_step(struct wren_ipv6 *ip, struct wren_snip *pkt, uint16_t plen,
                                     uint16_t rh_off)
{
    (void)ip, (void)pkt, (void)plen, (void)rh_off;
    return -1;
}
#endif

#endif
