/* Inside the 6LoWPAN module: shared by sixlowpan.c and frag.c. */
#ifndef WREN_SIXLOWPAN_PRIV_H
#define WREN_SIXLOWPAN_PRIV_H

#include "net/netif.h"
#include "sixlowpan/sixlowpan.h"

/* The contexts to compress with: none set yet is a table of unset ones. */
static inline const struct sixlowpan_ctx *wren_sixlowpan_ctxs(const struct wren_sixlowpan *lp)
{
#if CONFIG_WREN_NODE_MEM
    static const struct sixlowpan_ctx none[SIXLOWPAN_CTX_COUNT];
    return lp->ctx ? lp->ctx->e : none;
#else
    return lp->ctx->e;
#endif
}

/* Whether the reassembly slots are made (always without CONFIG_WREN_NODE_MEM). */
static inline bool wren_sixlowpan_slots_made(const struct wren_sixlowpan *lp)
{
#if CONFIG_WREN_NODE_MEM
    return lp->reass != NULL;
#else
    (void)lp;
    return true;
#endif
}

/* Largest 802.15.4 payload for these link addresses: a 127-octet PSDU less
 * the FCS and a 2006 MAC header with a compressed PAN ID. */
static inline size_t wren_sixlowpan_frame_room(const struct wren_netif_hdr *nh)
{
    size_t dst = nh->dst_len ? nh->dst_len : 2;
    return 127 - 2 - 5 - dst - nh->src_len;
}

/* The headers at the start of buf (len bytes, the rest of the frame or
 * FRAG1 after it): an uncompressed dispatch, or IPHC decompressed into out
 * (the IPv6 header and, with UDP NHC, the UDP header) for a datagram of
 * dgram_size bytes (0: this frame is the whole datagram). Returns the
 * uncompressed header length (0, 40 or 48) and fills *res (hdr_len: the
 * bytes consumed; udp), or -1 on a bad dispatch or header, counted. */
int wren_sixlowpan_decompress(struct wren_sixlowpan *lp, const uint8_t *buf, size_t len,
                         const struct wren_netif_hdr *nh, size_t dgram_size, uint8_t *out,
                         struct sixlowpan_iphc *res);

/* Send [iphc bytes][payload] in one frame if it fits, else as FRAG1 +
 * FRAGNs; each frame is a copy. Consumes @p pkt, the whole datagram
 * [netif] -> [IPv6] (-> [UDP]) -> payload, of which @p payload is the tail
 * after the compressed headers. */
void wren_sixlowpan_frag_send(struct wren_sixlowpan *lp, struct wren_snip *pkt, const uint8_t *iphc,
                         size_t hlen, size_t uncomp_hdr, struct wren_snip *payload,
                         size_t dgram_size);

/* A received FRAG1 or FRAGN frame: [frame] -> [MAC header] -> [netif]. */
void wren_sixlowpan_reass_rx(struct wren_sixlowpan *lp, struct wren_snip *pkt);

/* Free every reassembly slot whose time is up; re-arm the timer. */
void wren_sixlowpan_reass_gc(struct wren_timer *t, void *arg);

/* Hand datagram @p dg up to IPv6 in place of the frame snip at the head of
 * @p pkt, keeping the link and netif headers behind it (pkt is consumed).
 * @p udp_csum: the UDP checksum was elided (RFC 6282 4.3.2): compute it and
 * flag the netif header (WREN_NETIF_HDR_CSUM_ELIDED). */
void wren_sixlowpan_deliver(struct wren_sixlowpan *lp, struct wren_snip *pkt, struct wren_snip *dg,
                       bool udp_csum);

#endif
