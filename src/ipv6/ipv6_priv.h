/* Private to src/ipv6: what ipv6.c (addresses, source selection, the
 * module), ipv6_rx.c (receiving: checks, extension headers, SRH processing,
 * delivery) and ipv6_tx.c (sending and forwarding: RPL's hooks on the way
 * out, routes, next hops, the link) share. */
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

/* The routes (a table of none until the first is added: FIB made on first use). */
static inline const struct wren_fib *wren_ipv6_fib(const struct wren_ipv6 *ip)
{
#if CONFIG_WREN_NODE_MEM
    static const struct wren_fib none;
    return ip->fib ? ip->fib : &none;
#else
    return ip->fib;
#endif
}

/* Interface slots: how many there are (the first alone until the second
 * interface made the others, WREN_IPV6_IFS_LAZY), and slot @p i (< that;
 * @p i a plain variable). */
static inline unsigned wren_ipv6_n_ifs(const struct wren_ipv6 *ip)
{
#if WREN_IPV6_IFS_LAZY
    return ip->more_ifs ? CONFIG_WREN_IPV6_IFS : 1;
#else
    (void)ip;
    return CONFIG_WREN_IPV6_IFS;
#endif
}

#if WREN_IPV6_IFS_LAZY
#define WREN_IPV6_IF(ip, i) ((i) == 0 ? &(ip)->ifs[0] : &(ip)->more_ifs->e[(i) - 1])
#else
#define WREN_IPV6_IF(ip, i) (&(ip)->ifs[(i)])
#endif

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

#endif
