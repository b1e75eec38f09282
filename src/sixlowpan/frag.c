/* 6LoWPAN fragmentation (RFC 4944 section 5.3) and reassembly. */
#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "net/nettype.h"
#include "sixlowpan/sixlowpan_priv.h"
#include "wire/ipv6.h"
#include "wire/udp.h"

/* ---- sending ------------------------------------------------------------ */

/* One frame: a copy of the netif header, then [frag hdr | head | data];
 * no fragment header if f is NULL. */
static int send_frag(struct wren_sixlowpan *lp, struct wren_netif *netif,
                     const struct wren_netif_hdr *nh, const struct sixlowpan_frag *f,
                     const uint8_t *head, size_t hlen, const struct wren_snip *payload,
                     size_t off, size_t n)
{
    struct wren_pktbuf *pb = &lp->node->pktbuf;
    size_t flen = f ? wren_sixlowpan_frag_len(f) : 0;
    struct wren_snip *d = wren_pktbuf_add(pb, NULL, NULL, flen + hlen + n, WREN_NETTYPE_SIXLOWPAN);
    if (d == NULL) {
        return -ENOBUFS;
    }
    if (f) {
        wren_sixlowpan_frag_emit(f, d->data, flen);
        lp->stats.tx_frags++;
    }
    if (hlen) {
        memcpy(d->data + flen, head, hlen);
    }
    wren_pkt_copy_from(payload, off, d->data + flen + hlen, n);
    struct wren_snip *h = wren_pktbuf_add(pb, d, nh, sizeof(*nh), WREN_NETTYPE_NETIF);
    if (h == NULL) {
        wren_pktbuf_release(pb, d);
        return -ENOBUFS;
    }
    if (f && !f->first) {
        wren_netif_hdr(h)->flags |= WREN_NETIF_HDR_FRAG_CONT;
    }
    return wren_netapi_send(lp->node, &netif->module, h);
}

void wren_sixlowpan_frag_send(struct wren_sixlowpan *lp, struct wren_snip *pkt, const uint8_t *iphc,
                         size_t hlen, size_t uncomp_hdr, struct wren_snip *payload,
                         size_t dgram_size)
{
    struct wren_netif_hdr nh = *wren_netif_hdr(pkt);
    struct wren_netif *netif = wren_netif_get(lp->node, nh.if_id);
    size_t room = wren_sixlowpan_frame_room(&nh);
    size_t plen = wren_pkt_len(payload);
    uint16_t sec = 0;
    /* 802.15.4 security takes room too: auxiliary header and MIC */
    if (CONFIG_WREN_IEEE802154_SEC && netif &&
        wren_netapi_get(lp->node, &netif->module, WREN_NETOPT_SEC_OVERHEAD, 0, &sec, 2) == 2 &&
        sec < room) {
        room -= sec;
    }
    /* FRAG1 carries the compressed headers and as much payload as keeps the
     * uncompressed length covered a multiple of 8 */
    size_t first = room - SIXLOWPAN_FRAG1_LEN - hlen;
    first -= (uncomp_hdr + first) % 8;
    struct sixlowpan_frag f = { .size = (uint16_t)dgram_size, .tag = lp->next_tag, .first = true };
    const struct sixlowpan_frag *fp = &f;
    if (netif == NULL) {
        lp->stats.tx_drop_bad++;
        goto out;
    }
    if (hlen + plen <= room) {
        fp = NULL; /* one frame, no fragment header */
        first = plen;
    } else if (room < SIXLOWPAN_FRAG1_LEN + hlen + 8 || first > plen) {
        lp->stats.tx_drop_bad++;
        goto out;
    } else {
        lp->next_tag++;
    }
    if (send_frag(lp, netif, &nh, fp, iphc, hlen, payload, 0, first) < 0) {
        lp->stats.tx_drop_nobuf++;
        goto out;
    }
    size_t chunk = (room - SIXLOWPAN_FRAGN_LEN) & ~(size_t)7;
    f.first = false;
    for (size_t off = first; off < plen; off += chunk) {
        size_t n = plen - off < chunk ? plen - off : chunk;
        f.offset = (uint16_t)(uncomp_hdr + off);
        if (send_frag(lp, netif, &nh, &f, NULL, 0, payload, off, n) < 0) {
            lp->stats.tx_drop_nobuf++;
            break;
        }
    }
out:
    wren_pktbuf_release(&lp->node->pktbuf, pkt);
}

/* ---- reassembly --------------------------------------------------------- */

static void slot_free(struct wren_sixlowpan *lp, struct wren_sixlowpan_reass *r)
{
    wren_pktbuf_release(&lp->node->pktbuf, r->dg);
    r->dg = NULL;
}

void wren_sixlowpan_reass_gc(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_sixlowpan *lp = arg;
    uint64_t now = wren_node_now(lp->node);
    uint64_t next = UINT64_MAX;
    for (unsigned i = 0; i < CONFIG_WREN_SIXLOWPAN_REASS_SLOTS; i++) {
        struct wren_sixlowpan_reass *r = &lp->reass->e[i];
        if (r->dg == NULL) {
            continue;
        }
        if (r->deadline <= now) {
            lp->stats.frag_timeout++;
            slot_free(lp, r);
        } else if (r->deadline < next) {
            next = r->deadline;
        }
    }
    if (next != UINT64_MAX) {
        wren_timer_set_abs(lp->node, &lp->gc, next);
    }
}

/* Whether slot r holds a datagram between the link addresses of nh. */
static bool same_peers(const struct wren_sixlowpan_reass *r, const struct wren_netif_hdr *nh)
{
    return r->src_len == nh->src_len && r->dst_len == nh->dst_len &&
           memcmp(r->src, nh->src, nh->src_len) == 0 && memcmp(r->dst, nh->dst, nh->dst_len) == 0;
}

static struct wren_sixlowpan_reass *slot_find(struct wren_sixlowpan *lp,
                                              const struct wren_netif_hdr *nh, uint16_t tag)
{
    for (unsigned i = 0; i < CONFIG_WREN_SIXLOWPAN_REASS_SLOTS && wren_sixlowpan_slots_made(lp);
         i++) {
        struct wren_sixlowpan_reass *r = &lp->reass->e[i];
        if (r->dg && r->tag == tag && same_peers(r, nh)) {
            return r;
        }
    }
    return NULL;
}

/* Whether the reassembly slots exist, made now by the first fragment if not
 * (no memory for them counts as no packet buffer). */
static bool slots_ready(struct wren_sixlowpan *lp)
{
#if CONFIG_WREN_NODE_MEM
    if (WREN_LAZY_GET(lp->node, lp, reass) == NULL) {
        lp->stats.rx_drop_nobuf++;
        return false;
    }
#endif
    (void)lp;
    return true;
}

static struct wren_sixlowpan_reass *slot_new(struct wren_sixlowpan *lp,
                                             const struct wren_netif_hdr *nh,
                                             const struct sixlowpan_frag *f)
{
    struct wren_sixlowpan_reass *r = NULL;
    for (unsigned i = 0; r == NULL && i < CONFIG_WREN_SIXLOWPAN_REASS_SLOTS; i++) {
        r = lp->reass->e[i].dg == NULL ? &lp->reass->e[i] : NULL;
    }
    /* the deadline of a datagram begun now; an older one of the same peers
     * began (deadline - timeout) at least SUPERSEDE_MS ago */
    uint64_t deadline =
        wren_node_now(lp->node) + (uint64_t)CONFIG_WREN_SIXLOWPAN_REASS_TIMEOUT_MS * 1000u;
    for (unsigned i = 0; r == NULL && i < CONFIG_WREN_SIXLOWPAN_REASS_SLOTS; i++) {
        struct wren_sixlowpan_reass *o = &lp->reass->e[i];
        if (o->deadline + (uint64_t)CONFIG_WREN_SIXLOWPAN_SUPERSEDE_MS * 1000u <= deadline &&
            same_peers(o, nh)) {
            lp->stats.frag_superseded++;
            slot_free(lp, o);
            r = o;
        }
    }
    /* every slot busy: the datagram idle longest goes if it has been idle
     * CONFIG_WREN_SIXLOWPAN_IDLE_MS (its sender moved on: a fragment was
     * lost), else the new one is refused and the slots are left alone */
    uint64_t now = wren_node_now(lp->node);
    struct wren_sixlowpan_reass *idle = NULL;
    for (unsigned i = 0; r == NULL && i < CONFIG_WREN_SIXLOWPAN_REASS_SLOTS; i++) {
        struct wren_sixlowpan_reass *o = &lp->reass->e[i];
        if (o->last + (uint64_t)CONFIG_WREN_SIXLOWPAN_IDLE_MS * 1000u <= now &&
            (idle == NULL || o->last < idle->last)) {
            idle = o;
        }
    }
    if (r == NULL && idle != NULL) {
        lp->stats.frag_evicted++;
        slot_free(lp, idle);
        r = idle;
    }
    if (r == NULL) {
        lp->stats.frag_drop_full++;
        return NULL;
    }
    r->dg = wren_pktbuf_add(&lp->node->pktbuf, NULL, NULL, f->size, WREN_NETTYPE_IPV6);
    if (r->dg == NULL) {
        lp->stats.rx_drop_nobuf++;
        return NULL;
    }
    r->tag = f->tag;
    r->size = f->size;
    r->got = 0;
    r->udp_csum = false;
    memcpy(r->src, nh->src, nh->src_len);
    memcpy(r->dst, nh->dst, nh->dst_len);
    r->src_len = nh->src_len;
    r->dst_len = nh->dst_len;
    memset(r->map, 0, sizeof(r->map));
    r->deadline = deadline;
    if (!wren_timer_armed(&lp->gc) || lp->gc.deadline > deadline) {
        wren_timer_set_abs(lp->node, &lp->gc, deadline);
    }
    return r;
}

/* Mark units [from, to) received; returns how much of them already was:
 * 0 none, 1 all, 2 some (then the map no longer matters: the slot goes). */
static int coverage(struct wren_sixlowpan_reass *r, unsigned from, unsigned to)
{
    unsigned have = 0;
    for (unsigned u = from; u < to; u++) {
        uint8_t bit = (uint8_t)(1u << (u % 8));
        have += (r->map[u / 8] & bit) != 0;
        r->map[u / 8] |= bit;
    }
    return have == 0 ? 0 : have == to - from ? 1 : 2;
}

/* RFC 4944 5.3: the fragment's units [@p from, @p to) of 8 octets, new to
 * the datagram: a duplicate is dropped, an overlap discards the datagram.
 * false: counted, drop. */
static bool frag_new(struct wren_sixlowpan *lp, struct wren_sixlowpan_reass *r, unsigned from,
                     unsigned to)
{
    switch (coverage(r, from, to)) {
    case 1:
        lp->stats.frag_drop_dup++;
        return false;
    case 2:
        lp->stats.frag_drop_overlap++;
        slot_free(lp, r);
        return false;
    default:
        return true;
    }
}

void wren_sixlowpan_reass_rx(struct wren_sixlowpan *lp, struct wren_snip *pkt)
{
    struct wren_pktbuf *pb = &lp->node->pktbuf;
    struct wren_netif_hdr *nh = wren_netif_hdr(wren_pkt_search(pkt, WREN_NETTYPE_NETIF));
    struct sixlowpan_frag f;
    lp->stats.frag_rx++;
    int flen = wren_sixlowpan_frag_parse(pkt->data, pkt->size, &f); /* size >= 40 if it parsed */
    if (flen < 0) {
        lp->stats.frag_drop_hdr++;
        goto drop;
    }
    if (f.size > CONFIG_WREN_SIXLOWPAN_MAX_DGRAM) {
        lp->stats.frag_drop_size++;
        goto drop;
    }
    struct wren_sixlowpan_reass *r = slot_find(lp, nh, f.tag);
    if (r && r->size != f.size) {
        /* the same tag with another size: neither can be trusted */
        lp->stats.frag_drop_size++;
        slot_free(lp, r);
        goto drop;
    }
    const uint8_t *data = pkt->data + flen;
    size_t dlen = pkt->size - (size_t)flen;
    uint8_t hdr[IPV6_HDR_LEN + UDP_HDR_LEN];
    size_t hdr_len = 0;
    struct sixlowpan_iphc res; /* set if f.first */
    if (f.first) {
        int u = wren_sixlowpan_decompress(lp, data, dlen, nh, f.size, hdr, &res);
        if (u < 0) {
            goto drop; /* counted */
        }
        hdr_len = (size_t)u;
        data += res.hdr_len;
        dlen -= res.hdr_len;
    }
    size_t off = f.offset;
    size_t covered = hdr_len + dlen;
    if (off + covered > f.size) {
        lp->stats.frag_drop_range++;
        goto drop;
    }
    if (covered == 0 || ((off + covered) % 8 && off + covered != f.size)) {
        /* every fragment but the last ends on an 8-octet boundary */
        lp->stats.frag_drop_size++;
        goto drop;
    }
    if (r == NULL && (!slots_ready(lp) || (r = slot_new(lp, nh, &f)) == NULL)) {
        goto drop;
    }
    unsigned from = (unsigned)(off / 8), to = (unsigned)((off + covered + 7) / 8);
    if (!frag_new(lp, r, from, to)) {
        goto drop;
    }
    r->last = wren_node_now(lp->node);
    memcpy(r->dg->data + off, hdr, hdr_len);
    memcpy(r->dg->data + off + hdr_len, data, dlen);
    if (f.first && res.udp && res.udp_csum_elided) {
        r->udp_csum = true;
    }
    r->got = (uint16_t)(r->got + covered);
    if (r->got < r->size) {
        goto drop; /* this frame is consumed; the datagram waits for more */
    }
    /* complete: the datagram goes up with this frame's link headers */
    struct wren_snip *dg = r->dg;
    r->dg = NULL;
    lp->stats.frag_reassembled++;
    wren_sixlowpan_deliver(lp, pkt, dg, r->udp_csum);
    return;

drop:
    wren_pktbuf_release(pb, pkt);
}
