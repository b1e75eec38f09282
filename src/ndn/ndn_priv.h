/* Inside the NDN module: what its files share. */
#ifndef WREN_NDN_PRIV_H
#define WREN_NDN_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "ndn/ndn.h"
#include "pktbuf/pktbuf.h"
#include "wire/ndn_tlv.h"

struct wren_ndn_face_cfg;

#define NDN_PIT_CBP 1 /* CanBePrefix */
#define NDN_PIT_MBF 2 /* MustBeFresh */

static inline uint16_t wren_ndn_face_bit(uint8_t face)
{
    return (uint16_t)(1u << (face - 1));
}

/* ---- faces (wren_ndn_face.c) ---- */
/* The face @p cfg describes, found or made: its id, or -ENOSPC / -EINVAL. */
int wren_ndn_face_add(struct wren_ndn *ndn, const struct wren_ndn_face_cfg *cfg);
/* Face @p id, or NULL. */
struct wren_ndn_face *wren_ndn_face(struct wren_ndn *ndn, uint8_t id);
/* Remove face @p id: its next hops and PIT records go too. */
void wren_ndn_face_del(struct wren_ndn *ndn, uint8_t id);
/* Send the NDN packet @p pkt (one snip, kept by the caller: the face holds
 * its own reference) on face @p id. 0, or -errno (counted). */
int wren_ndn_face_send(struct wren_ndn *ndn, uint8_t id, struct wren_snip *pkt);
/* A packet larger than face @p id's frame: on a link face sent in NDNLPv2
 * pieces (0, or -errno counted in tx_drop), elsewhere dropped and counted
 * (too_big, -EMSGSIZE), as is a packet too big even in pieces. */
int wren_ndn_face_send_large(struct wren_ndn *ndn, uint8_t id, struct wren_snip *pkt);
/* A packet from a link layer (RCV: payload first, netif header last). Owns it. */
void wren_ndn_face_link_rx(struct wren_ndn *ndn, struct wren_snip *pkt);
/* The NDNLPv2 timer: give up pieces past their deadline. */
void wren_ndn_lp_timer(struct wren_timer *t, void *arg);
/* Open the UDP face's socket (port 6363); -errno if UDP has none. */
int wren_ndn_face_udp_open(struct wren_ndn *ndn);

/* ---- forwarding (wren_ndn_fwd.c) ---- */
/* An NDN packet (one snip, owned) arrived on face @p face. */
void wren_ndn_fwd_rx(struct wren_ndn *ndn, uint8_t face, struct wren_snip *pkt);
/* The PIT timer: expire entries. */
void wren_ndn_pit_timer(struct wren_timer *t, void *arg);
/* FIB: add/remove a next hop (SET WREN_NETOPT_NDN_ROUTE). */
int wren_ndn_fib_set(struct wren_ndn *ndn, const struct wren_ndn_route *r);
/* The FIB entry with the longest prefix of @p name, or NULL. */
struct wren_ndn_fib_entry *wren_ndn_fib_lookup(struct wren_ndn *ndn, const struct ndn_name *name);
/* Forget face @p face in FIB and PIT. */
void wren_ndn_fwd_face_gone(struct wren_ndn *ndn, uint8_t face);
/* Release everything the PIT and CS hold. */
void wren_ndn_fwd_flush(struct wren_ndn *ndn);

#endif
