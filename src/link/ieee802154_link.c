#include "link/ieee802154_link.h"

#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/node.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "net/nettype.h"
#include "link/mac_priv.h"
#include "wire/ieee802154.h"
#include "wire/ndn_tlv.h"

#define MAX_PSDU 127
#define MAX_MHR 23 /* FCF, seq, two PANs, two extended addresses */

static struct wren_ieee802154_netif *to_nif(struct wren_netif *netif)
{
    return (struct wren_ieee802154_netif *)netif;
}

void wren_ieee802154_eui64_from_id(uint32_t id, uint8_t eui64[8])
{
    eui64[0] = 0x02; /* locally administered, individual */
    eui64[1] = 0x57;
    eui64[2] = 0x52;
    eui64[3] = 0xff;
    eui64[4] = (uint8_t)(0xfe ^ (id >> 24));
    eui64[5] = (uint8_t)(id >> 16);
    eui64[6] = (uint8_t)(id >> 8);
    eui64[7] = (uint8_t)id;
}

/* Whether data frames leave secured. */
static bool sec_data(const struct wren_ieee802154_netif *nif)
{
#if CONFIG_WREN_IEEE802154_SEC
    return nif->sec.level[IEEE802154_TYPE_DATA] != 0;
#else
    (void)nif;
    return false;
#endif
}

static bool all_zero(const uint8_t *a, size_t n)
{
    while (n && a[n - 1] == 0) {
        n--;
    }
    return n == 0;
}

/* An EUI-64 is individual and not all zeros. */
static bool eui64_ok(const uint8_t *a, size_t len)
{
    return len == 8 && !all_zero(a, 8) && !(a[0] & 0x01);
}

static void link_init(struct wren_netif *netif)
{
    struct wren_ieee802154_netif *nif = to_nif(netif);
    struct wren_netdev *dev = netif->dev;
    uint16_t pan;
    if (dev->driver->get(dev, WREN_NETOPT_NID, &pan, sizeof(pan)) == sizeof(pan)) {
        nif->pan = pan;
    } else {
        nif->pan = WREN_IEEE802154_DEFAULT_PAN;
    }
    if (dev->driver->get(dev, WREN_NETOPT_ADDRESS, nif->short_addr, 2) != 2) {
        memset(nif->short_addr, 0xff, 2);
    }
    if (dev->driver->get(dev, WREN_NETOPT_ADDRESS_LONG, nif->long_addr, 8) != 8 ||
        all_zero(nif->long_addr, 8)) {
        /* a device without an EUI-64 of its own: the node's, told to the
         * device for its address filter if it has one */
        wren_ieee802154_eui64_from_id(netif->node->id, nif->long_addr);
        dev->driver->set(dev, WREN_NETOPT_ADDRESS_LONG, nif->long_addr, 8);
    }
    /* frames leave from the EUI-64, which the IPv6 addresses are made of
     * (RFC 4944 6): 6LoWPAN then elides the IIDs whole (RFC 6282 3.2.2) */
    nif->src_len = 8;
    nif->seq = (uint8_t)wren_node_random(netif->node);
    nif->ack_req = true;
#if CONFIG_WREN_IEEE802154_SEC
    wren_ieee802154_sec_init(nif);
#endif
#if CONFIG_WREN_MAC_SOFT
    wren_mac_init(nif); /* may switch ACKs off again for a wire */
#endif
#if CONFIG_WREN_TSCH
    if (nif->tsch) {
        wren_tsch_init(nif);
    }
#endif
}

#if CONFIG_WREN_IEEE802154_SEC
/* 9.2.2: the whole secured frame (MHR with the auxiliary header, payload
 * encrypted or not, MIC) in one snip in place of pkt's payload. Returns 1,
 * 0 if the frame leaves unsecured, or -errno (pkt unchanged). */
static int secure_frame(struct wren_ieee802154_netif *nif, struct ieee802154_hdr *h,
                        struct wren_snip *pkt)
{
    struct wren_pktbuf *pb = &nif->netif.node->pktbuf;
    int mic = wren_ieee802154_sec_prepare(nif, h, false);
    int hl = wren_ieee802154_hdr_len(h);
    size_t plen = wren_pkt_len(pkt->next);
    if (mic <= 0 || hl < 0) {
        return mic <= 0 ? mic : -EINVAL;
    }
    size_t len = (size_t)hl + plen + (size_t)mic;
    if (len + IEEE802154_FCS_LEN > MAX_PSDU) {
        return -EMSGSIZE;
    }
    /* typed as a whole frame: a second call (the radio was busy) sends it as is */
    struct wren_snip *s = wren_pktbuf_add(pb, NULL, NULL, len, WREN_NETTYPE_IEEE802154);
    if (s == NULL) {
        nif->sec.stats.tx_nobuf++;
        return -ENOBUFS;
    }
    wren_ieee802154_hdr_emit(h, s->data, (size_t)hl);
    wren_pkt_copy(pkt->next, s->data + hl, plen);
    memset(s->data + hl + plen, 0, (size_t)mic);
    wren_ieee802154_sec_secure(nif, h, 0, s->data, (size_t)hl, len);
    wren_pktbuf_release(pb, pkt->next);
    pkt->next = s;
    return 1;
}
#endif

int wren_link_mhr(struct wren_ieee802154_netif *nif, uint8_t type, const uint8_t *dst,
                  uint8_t dst_len, bool ack_req, bool fp, uint8_t seq, uint8_t *buf,
                  struct wren_snip *pkt)
{
    struct ieee802154_hdr h;
    memset(&h, 0, sizeof(h));
    h.type = type;
    h.version = IEEE802154_VERSION_2006;
    h.panid_comp = true;
    h.dst_pan = nif->pan;
    h.src_pan = nif->pan;
    h.frame_pending = fp;
    if (dst_len == 0) {
        h.dst_mode = IEEE802154_ADDR_SHORT;
        put_be16(h.dst_addr, IEEE802154_BROADCAST);
    } else if (dst_len == 2 || dst_len == 8) {
        h.dst_mode = dst_len == 2 ? IEEE802154_ADDR_SHORT : IEEE802154_ADDR_EXT;
        memcpy(h.dst_addr, dst, dst_len);
        h.ack_req = ack_req;
    } else {
        return -1;
    }
    /* secured frames leave from the EUI-64: it is in their nonce */
    if (nif->src_len == 2 && !(sec_data(nif) && type == IEEE802154_TYPE_DATA)) {
        h.src_mode = IEEE802154_ADDR_SHORT;
        memcpy(h.src_addr, nif->short_addr, 2);
    } else {
        h.src_mode = IEEE802154_ADDR_EXT;
        memcpy(h.src_addr, nif->long_addr, 8);
    }
    h.seq = seq;
#if CONFIG_WREN_IEEE802154_SEC
    if (type == IEEE802154_TYPE_DATA && pkt && pkt->next &&
        pkt->next->type == WREN_NETTYPE_IEEE802154) {
        return 0; /* secured already, in one piece */
    }
    if (type == IEEE802154_TYPE_DATA && pkt) {
        int r = secure_frame(nif, &h, pkt);
        if (r != 0) {
            return r > 0 ? 0 : -1;
        }
    }
#else
    (void)pkt;
#endif
    int n = wren_ieee802154_hdr_emit(&h, buf, MAX_MHR);
    return n < 0 ? -1 : n;
}

#if !CONFIG_WREN_MAC_SOFT
/* Without the software MAC: the frame goes straight to the radio, which
 * does CSMA-CA and ACKs itself and ends the frame with its TX event. */
static int hw_send(struct wren_ieee802154_netif *nif, struct wren_snip *pkt)
{
    struct wren_netdev *dev = nif->netif.dev;
    const struct wren_netif_hdr *nh = wren_netif_hdr(pkt);
    bool bcast = (nh->flags & WREN_NETIF_HDR_BROADCAST) || nh->dst_len == 0;
    uint8_t mhr[MAX_MHR];
    int hlen = wren_link_mhr(nif, IEEE802154_TYPE_DATA, nh->dst, bcast ? 0 : nh->dst_len,
                             nif->ack_req && !(nh->flags & WREN_NETIF_HDR_NO_ACK), false, nif->seq,
                             mhr, pkt);
    struct wren_iolist iol[CONFIG_WREN_NETIF_MAX_SNIPS + 1];
    iol[0] = (struct wren_iolist){ .base = mhr, .len = (size_t)hlen };
    unsigned n = 1;
    for (struct wren_snip *s = pkt->next; s && n <= CONFIG_WREN_NETIF_MAX_SNIPS; s = s->next) {
        iol[n] = (struct wren_iolist){ .base = s->data, .len = s->size };
        iol[n - 1].next = &iol[n];
        n++;
    }
    /* a secured frame is all in the payload snip (hlen 0) */
    struct wren_iolist *first = CONFIG_WREN_IEEE802154_SEC && hlen == 0 && n > 1 ? &iol[1] : iol;
    int res = hlen < 0 ? -EINVAL : dev->driver->send(dev, first);
    if (res == -EBUSY) {
        return -EBUSY;
    }
    wren_pktbuf_release(&nif->netif.node->pktbuf, pkt);
    if (res < 0) {
        nif->netif.stats.tx_drop_dev++;
        return res;
    }
    nif->seq++;
    return 0;
}
#endif

static int link_send(struct wren_netif *netif, struct wren_snip *pkt)
{
    struct wren_ieee802154_netif *nif = to_nif(netif);
    struct wren_node *node = netif->node;
    const struct wren_netif_hdr *nh = wren_netif_hdr(pkt);
    bool bcast = (nh->flags & WREN_NETIF_HDR_BROADCAST) || nh->dst_len == 0;
    size_t plen = wren_pkt_len(pkt->next);
    /* the longest header we could put in front: extended addresses; with
     * security the auxiliary header, the MIC, and the EUI-64 as source */
    size_t hlen = 3 + 2 + (bcast ? 2 : nh->dst_len) + (sec_data(nif) ? 8 : nif->src_len);
#if CONFIG_WREN_IEEE802154_SEC
    hlen += wren_ieee802154_sec_overhead(nif, IEEE802154_TYPE_DATA);
#endif
    if ((!bcast && nh->dst_len != 2 && nh->dst_len != 8) ||
        hlen + plen + IEEE802154_FCS_LEN > MAX_PSDU) {
        netif->stats.tx_drop_bad++;
        wren_pktbuf_release(&node->pktbuf, pkt);
        return -EINVAL;
    }
    /* too many pieces for one scatter list: flatten the payload first */
    unsigned pieces = 0;
    for (struct wren_snip *sn = pkt->next; sn; sn = sn->next) {
        pieces++;
    }
    if (pieces > CONFIG_WREN_NETIF_MAX_SNIPS && wren_pktbuf_merge(&node->pktbuf, &pkt->next) < 0) {
        netif->stats.tx_drop_bad++;
        wren_pktbuf_release(&node->pktbuf, pkt);
        return -EINVAL;
    }
#if CONFIG_WREN_TSCH
    int res = nif->tsch ? wren_tsch_submit(nif, pkt) : wren_mac_submit(nif, pkt);
#elif CONFIG_WREN_MAC_SOFT
    int res = wren_mac_submit(nif, pkt);
#else
    int res = hw_send(nif, pkt);
#endif
    if (res >= 0) {
        netif->stats.tx_frames++;
        netif->stats.tx_bytes += (uint32_t)(hlen + plen);
    }
    return res;
}

static bool for_us(const struct wren_ieee802154_netif *nif, const struct ieee802154_hdr *h)
{
    if (wren_ieee802154_has_dst_pan(h) && h->dst_pan != nif->pan &&
        h->dst_pan != IEEE802154_BROADCAST) {
        return false;
    }
    switch (h->dst_mode) {
    case IEEE802154_ADDR_SHORT:
        return get_be16(h->dst_addr) == IEEE802154_BROADCAST ||
               memcmp(h->dst_addr, nif->short_addr, 2) == 0;
    case IEEE802154_ADDR_EXT:
        return memcmp(h->dst_addr, nif->long_addr, 8) == 0;
    default:
        /* no destination: only for a PAN coordinator; we are not one */
        return false;
    }
}

/* Incoming frame security on a received frame (its one snip is ours). */
static int sec_unsecure(struct wren_ieee802154_netif *nif, struct ieee802154_frame *f,
                        struct wren_snip *pkt)
{
#if CONFIG_WREN_IEEE802154_SEC
    /* no ASN here: a frame with the ASN in its nonce is TSCH's, refused */
    return wren_ieee802154_sec_unsecure(nif, f, pkt->data, pkt->size, NULL, NULL);
#else
    (void)nif, (void)f, (void)pkt;
    return 0;
#endif
}

/* 802.15.4 frame reception, last step: the MHR becomes a snip of its own,
 * a netif header carries the addresses, and the payload goes to the layer
 * its first byte names (or @p type). false: no room for the headers,
 * @p pkt is still the caller's. */
static bool link_deliver(struct wren_node *node, struct wren_netif *netif,
                         struct wren_snip *pkt, const struct ieee802154_frame *f,
                         const struct wren_netdev_rx_info *info, uint8_t type)
{
    size_t hlen = (size_t)(f->payload - pkt->data);
    size_t plen = f->payload_len;
    struct wren_snip *mhr = wren_pktbuf_mark(&node->pktbuf, pkt, hlen, WREN_NETTYPE_IEEE802154);
    if (mhr == NULL) {
        return false;
    }
    if (pkt->size > plen) {
        /* trailing bytes (IEs handled above, MIC never here) are not payload */
        wren_pktbuf_trim_back(&node->pktbuf, pkt, plen);
    }
    struct wren_snip *nh_snip = wren_pktbuf_add(&node->pktbuf, NULL, NULL,
                                                sizeof(struct wren_netif_hdr),
                                                WREN_NETTYPE_NETIF);
    if (nh_snip == NULL) {
        return false;
    }
    mhr->next = nh_snip;
    struct wren_netif_hdr *nh = wren_netif_hdr(nh_snip);
    memset(nh, 0, sizeof(*nh));
    nh->src_len = (uint8_t)wren_ieee802154_addr_len(f->hdr.src_mode);
    nh->dst_len = (uint8_t)wren_ieee802154_addr_len(f->hdr.dst_mode);
    memcpy(nh->src, f->hdr.src_addr, nh->src_len);
    memcpy(nh->dst, f->hdr.dst_addr, nh->dst_len);
    if (nh->dst_len == 2 && get_be16(nh->dst) == IEEE802154_BROADCAST) {
        nh->flags |= WREN_NETIF_HDR_BROADCAST;
    }
    nh->if_id = netif->id;
    nh->rssi = info->rssi;
    nh->lqi = info->lqi;

    if (type == WREN_NETTYPE_UNDEF) {
        /* RFC 4944 5.1: a first byte 00xxxxxx is "not a LoWPAN frame"; NDN
         * takes one of those (wire/ndn_tlv.h) */
        type = (pkt->size && (pkt->data[0] & 0xc0) != 0) ? WREN_NETTYPE_SIXLOWPAN
               : pkt->size && pkt->data[0] == NDN_IEEE802154_DISPATCH ? WREN_NETTYPE_NDN
                                                                      : WREN_NETTYPE_UNDEF;
    }
    size_t len = pkt->size;
    if (wren_netapi_dispatch(node, type, WREN_NETREG_DEMUX_ALL, WREN_MSG_RCV, pkt) == 0) {
        netif->stats.rx_drop_no_receiver++;
        return true;
    }
    netif->stats.rx_frames++;
    netif->stats.rx_bytes += (uint32_t)len;
    return true;
}

#if CONFIG_WREN_TSCH
/* (link_recv delivers through it too: one copy of link_deliver) */
void wren_link_deliver(struct wren_ieee802154_netif *nif, struct wren_snip *pkt,
                       const struct ieee802154_frame *f, const struct wren_netdev_rx_info *info,
                       uint8_t type)
{
    if (!link_deliver(nif->netif.node, &nif->netif, pkt, f, info, type)) {
        nif->netif.stats.rx_drop_nobuf++;
        wren_pktbuf_release(&nif->netif.node->pktbuf, pkt);
    }
}
#endif

/* The counter a frame the parser refused goes to: frames of a kind this
 * build leaves out are unsupported, not malformed. */
static uint32_t *parse_drop_reason(struct wren_netif *netif, int res)
{
    bool unsupported = res == -IEEE802154_ERR_FRAME_TYPE ||
                       (!CONFIG_WREN_IEEE802154_2015 && res == -IEEE802154_ERR_VERSION) ||
                       (!CONFIG_WREN_IEEE802154_SECURITY && res == -IEEE802154_ERR_SECURITY);
    return unsupported ? &netif->stats.rx_drop_unsupported : &netif->stats.rx_drop_malformed;
}

/* An Imm-Ack: the CSMA MAC's (the radio's, with a hardware MAC). It is
 * never secured: a secured ACK goes through the incoming procedure like any
 * frame (the ASN in its nonce refused, no source for its nonce: counted
 * there), never straight to the MAC. @return the counter of its drop, or
 * NULL (taken, or counted already). */
static uint32_t *recv_ack(struct wren_ieee802154_netif *nif, struct ieee802154_frame *f,
                          struct wren_snip *pkt)
{
    if (f->hdr.security && (!CONFIG_WREN_IEEE802154_SEC || sec_unsecure(nif, f, pkt) != 0)) {
        return CONFIG_WREN_IEEE802154_SEC ? NULL : &nif->netif.stats.rx_drop_unsupported;
    }
#if CONFIG_WREN_MAC_SOFT
    wren_mac_rx(nif, f, false);
    return NULL;
#else
    return &nif->netif.stats.rx_drop_unsupported; /* the radio's business */
#endif
}

/* A MAC command: data requests are the CSMA MAC's; others we do not use
 * (and none if the policy wants commands secured: counted there).
 * @return as recv_ack(). */
static uint32_t *recv_cmd(struct wren_ieee802154_netif *nif, struct ieee802154_frame *f,
                          struct wren_snip *pkt, bool mine)
{
#if CONFIG_WREN_MAC_SOFT
    if (mine && CONFIG_WREN_IEEE802154_SEC && sec_unsecure(nif, f, pkt) < 0) {
        return NULL; /* counted by reason in the security counters */
    }
    if (mine && wren_mac_rx(nif, f, true) == WREN_MAC_RX_CONSUMED) {
        return NULL;
    }
#else
    (void)f, (void)pkt, (void)mine;
#endif
    return &nif->netif.stats.rx_drop_unsupported;
}

/* A data frame for us: incoming security, then the MAC (ACK, duplicate
 * detection). Security goes first: a forged frame must not enter the MAC's
 * table of recent sequence numbers. A retransmission of the last secured
 * frame (1: our ACK was lost) goes to the MAC for its ACK, never up.
 * false: not to be delivered (counted). */
static bool recv_data(struct wren_ieee802154_netif *nif, struct ieee802154_frame *f,
                      struct wren_snip *pkt, bool mine)
{
    bool unicast = mine && !(f->hdr.dst_mode == IEEE802154_ADDR_SHORT &&
                             get_be16(f->hdr.dst_addr) == IEEE802154_BROADCAST);
    int sres = CONFIG_WREN_IEEE802154_SEC ? sec_unsecure(nif, f, pkt) : 0;
    if (sres < 0) {
        return false; /* counted by reason in the security counters */
    }
#if CONFIG_WREN_MAC_SOFT
    return wren_mac_rx(nif, f, unicast) == WREN_MAC_RX_DELIVER && sres == 0;
#else
    (void)unicast;
    if (sres > 0) {
        nif->netif.stats.rx_drop_unsupported++; /* (the radio saw the duplicate) */
        return false;
    }
    return true;
#endif
}

/* IEEE 802.15.4 frame reception: parse, the frame type (ACKs and commands
 * to the MAC), address filtering, then security and the MAC, then up. */
static void link_recv(struct wren_netif *netif, struct wren_snip *pkt,
                      const struct wren_netdev_rx_info *info)
{
    struct wren_ieee802154_netif *nif = to_nif(netif);
    struct wren_node *node = netif->node;
    struct ieee802154_frame f;
    uint32_t *reason;

#if CONFIG_WREN_TSCH
    if (nif->tsch) {
        wren_tsch_recv(nif, pkt, info);
        return;
    }
#endif
    int res = wren_ieee802154_parse(pkt->data, pkt->size, &f);
    if (res < 0) {
        reason = parse_drop_reason(netif, res);
        goto drop;
    }
    if (f.hdr.type == IEEE802154_TYPE_ACK) {
        reason = recv_ack(nif, &f, pkt);
        goto drop;
    }
    /* the CSMA MAC's own commands (data requests) are never secured */
    if ((f.hdr.type != IEEE802154_TYPE_DATA && f.hdr.type != IEEE802154_TYPE_CMD) ||
        (f.hdr.security && (!CONFIG_WREN_IEEE802154_SEC || f.hdr.type == IEEE802154_TYPE_CMD))) {
        reason = &netif->stats.rx_drop_unsupported;
        goto drop;
    }
    bool mine = for_us(nif, &f.hdr);
    if (f.hdr.type == IEEE802154_TYPE_CMD) {
        reason = recv_cmd(nif, &f, pkt, mine);
        goto drop;
    }
    if (!nif->promiscuous && !mine) {
        reason = &netif->stats.rx_drop_not_for_us;
        goto drop;
    }
    if (!recv_data(nif, &f, pkt, mine)) {
        reason = NULL; /* counted */
        goto drop;
    }
#if CONFIG_WREN_TSCH
    wren_link_deliver(nif, pkt, &f, info, WREN_NETTYPE_UNDEF);
    return;
#else
    if (link_deliver(node, netif, pkt, &f, info, WREN_NETTYPE_UNDEF)) {
        return;
    }
    reason = &netif->stats.rx_drop_nobuf;
#endif
drop:
    if (reason != NULL) {
        (*reason)++;
    }
    wren_pktbuf_release(&node->pktbuf, pkt);
}

/* GET: the MAC (TSCH), security and the CSMA MAC answer for their options
 * first; -ENOTSUP if none has @p opt. */
static int sublayer_get(struct wren_ieee802154_netif *nif, uint16_t opt, void *val, size_t max)
{
#if CONFIG_WREN_TSCH
    if (nif->tsch) {
        int tres = wren_tsch_get(nif, opt, val, max);
        if (tres != -ENOTSUP) {
            return tres;
        }
    }
#endif
#if CONFIG_WREN_IEEE802154_SEC
    int sres = wren_ieee802154_sec_get(nif, opt, val, max);
    if (sres != -ENOTSUP) {
        if (opt == WREN_NETOPT_SEC_OVERHEAD && sres == 2 && nif->src_len == 2 && sec_data(nif)) {
            uint16_t v;
            memcpy(&v, val, 2);
            v = (uint16_t)(v + 6); /* the EUI-64 instead of the short source */
            memcpy(val, &v, 2);
        }
        return sres;
    }
#endif
#if CONFIG_WREN_MAC_SOFT
    int mres = wren_mac_get(nif, opt, val, max);
    if (mres != -ENOTSUP) {
        return mres;
    }
#endif
    (void)nif, (void)opt, (void)val, (void)max;
    return -ENOTSUP;
}

static int link_get(struct wren_netif *netif, uint16_t opt, void *val, size_t max)
{
    struct wren_ieee802154_netif *nif = to_nif(netif);
    int res = sublayer_get(nif, opt, val, max);
    if (res != -ENOTSUP) {
        return res;
    }
    uint16_t v16;
    uint8_t b;
    switch (opt) {
    case WREN_NETOPT_ADDRESS:
        return wren_netopt_put(val, max, nif->short_addr, 2);
    case WREN_NETOPT_ADDRESS_LONG:
        return wren_netopt_put(val, max, nif->long_addr, 8);
    case WREN_NETOPT_NID:
        return wren_netopt_put(val, max, &nif->pan, 2);
    case WREN_NETOPT_ADDR_LEN:
        v16 = nif->src_len;
        return wren_netopt_put(val, max, &v16, 2);
    case WREN_NETOPT_ACK_REQ:
        b = nif->ack_req;
        return wren_netopt_put(val, max, &b, 1);
    case WREN_NETOPT_PROMISCUOUS:
        b = nif->promiscuous;
        return wren_netopt_put(val, max, &b, 1);
    case WREN_NETOPT_IS_WIRED:
#if CONFIG_WREN_MAC_SOFT
        b = nif->mac.wired;
#else
        b = 0; /* the radio's MAC decides; it is a radio */
#endif
        return wren_netopt_put(val, max, &b, 1);
    case WREN_NETOPT_MAX_PDU_SIZE:
        /* payload room with short addresses and a compressed PAN ID */
        v16 = MAX_PSDU - IEEE802154_FCS_LEN - 9;
        return wren_netopt_put(val, max, &v16, 2);
    default:
        return -ENOTSUP;
    }
}

/* SET: as sublayer_get() */
static int sublayer_set(struct wren_ieee802154_netif *nif, uint16_t opt, const void *val,
                        size_t len)
{
#if CONFIG_WREN_TSCH
    if (nif->tsch) {
        int tres = wren_tsch_set(nif, opt, val, len);
        if (tres != -ENOTSUP) {
            return tres;
        }
    }
#endif
#if CONFIG_WREN_IEEE802154_SEC
    int sres = wren_ieee802154_sec_set(nif, opt, val, len);
    if (sres != -ENOTSUP) {
        return sres;
    }
#endif
#if CONFIG_WREN_MAC_SOFT
    int mres = wren_mac_set(nif, opt, val, len);
    if (mres != -ENOTSUP) {
        return mres;
    }
#endif
    (void)nif, (void)opt, (void)val, (void)len;
    return -ENOTSUP;
}

static int link_set(struct wren_netif *netif, uint16_t opt, const void *val, size_t len)
{
    struct wren_ieee802154_netif *nif = to_nif(netif);
    int res = sublayer_set(nif, opt, val, len);
    if (res != -ENOTSUP) {
        return res;
    }
    struct wren_netdev *dev = netif->dev;
    switch (opt) {
    case WREN_NETOPT_ADDRESS:
        if (len != 2) {
            return -EINVAL;
        }
        memcpy(nif->short_addr, val, 2);
        break;
    case WREN_NETOPT_ADDRESS_LONG:
        if (!eui64_ok(val, len)) {
            return -EINVAL;
        }
        memcpy(nif->long_addr, val, 8);
        break;
    case WREN_NETOPT_NID:
        if (len != 2) {
            return -EINVAL;
        }
        memcpy(&nif->pan, val, 2);
        break;
    case WREN_NETOPT_ADDR_LEN: {
        uint16_t v;
        if (len != 2 || (memcpy(&v, val, 2), v != 2 && v != 8) ||
            (v == 2 && get_be16(nif->short_addr) >= 0xfffe)) {
            return -EINVAL; /* no short source without a usable short address */
        }
        nif->src_len = (uint8_t)v;
        return 0;
    }
    case WREN_NETOPT_ACK_REQ:
    case WREN_NETOPT_PROMISCUOUS:
        if (len != 1) {
            return -EINVAL;
        }
        *(opt == WREN_NETOPT_ACK_REQ ? &nif->ack_req : &nif->promiscuous) =
            *(const uint8_t *)val != 0;
        return 0;
    default:
        return -ENOTSUP;
    }
    /* addresses and PAN also go to the radio, for hardware filtering */
    res = dev->driver->set(dev, opt, val, len);
    return res == -ENOTSUP ? 0 : res;
}

#if CONFIG_WREN_MAC_SOFT
static const struct wren_counter_set mac_counters =
    WREN_COUNTER_SET("mac", WREN_MAC_COUNTERS, WREN_NETOPT_MAC_STATS, uint32_t);
#endif
#if CONFIG_WREN_IEEE802154_SEC
static const struct wren_counter_set sec_counters =
    WREN_COUNTER_SET("sec", WREN_SEC_COUNTERS, WREN_NETOPT_SEC_STATS, uint32_t);
#endif
#if CONFIG_WREN_TSCH
static void link_tx_event(struct wren_netif *netif, enum wren_netdev_event ev)
{
    struct wren_ieee802154_netif *nif = to_nif(netif);
    if (nif->tsch) {
        wren_tsch_tx_event(nif, ev);
    } else {
        wren_mac_tx_event(netif, ev);
    }
}
#endif

const struct wren_netif_link_ops wren_ieee802154_link = {
    .init = link_init,
    .send = link_send,
    .recv = link_recv,
#if CONFIG_WREN_TSCH
    .tx_event = link_tx_event,
#elif CONFIG_WREN_MAC_SOFT
    .tx_event = wren_mac_tx_event,
#endif
    .get = link_get,
    .set = link_set,
    .type = WREN_NETDEV_TYPE_IEEE802154,
#if CONFIG_WREN_MAC_SOFT
    .counters = WREN_IF_NAMES(&mac_counters),
#endif
#if CONFIG_WREN_IEEE802154_SEC
    .counters2 = WREN_IF_NAMES(&sec_counters),
#endif
};

#if CONFIG_WREN_TSCH
static const struct wren_counter_set tsch_counters =
    WREN_COUNTER_SET("tsch", WREN_TSCH_COUNTERS, WREN_NETOPT_TSCH_STATS, uint32_t);

/* the same operations; what it counts is the TSCH MAC's */
static const struct wren_netif_link_ops tsch_link = {
    .init = link_init,
    .send = link_send,
    .recv = link_recv,
    .tx_event = link_tx_event,
    .get = link_get,
    .set = link_set,
    .type = WREN_NETDEV_TYPE_IEEE802154,
    .counters = WREN_IF_NAMES(&tsch_counters),
#if CONFIG_WREN_IEEE802154_SEC
    .counters2 = WREN_IF_NAMES(&sec_counters),
#endif
};
#endif

int wren_ieee802154_netif_add(struct wren_node *node, struct wren_ieee802154_netif *nif,
                              struct wren_netdev *dev)
{
#if CONFIG_WREN_TSCH
    nif->tsch = NULL;
#endif
    return wren_netif_add(node, &nif->netif, dev, &wren_ieee802154_link);
}

static int link_add(struct wren_node *node, void *state, struct wren_netdev *dev)
{
    return wren_ieee802154_netif_add(node, state, dev);
}

const struct wren_link_def wren_link_ieee802154 = {
    .name = "ieee802154",
    .size = sizeof(struct wren_ieee802154_netif),
    .type = WREN_NETDEV_TYPE_IEEE802154,
    .add = link_add,
};

#if CONFIG_WREN_TSCH
int wren_ieee802154_netif_add_tsch(struct wren_node *node, struct wren_ieee802154_netif *nif,
                                   struct wren_tsch *tsch, struct wren_netdev *dev)
{
    if (tsch == NULL) {
        return -EINVAL;
    }
    nif->tsch = tsch;
    return wren_netif_add(node, &nif->netif, dev, &tsch_link);
}

static int link_add_tsch(struct wren_node *node, void *state, struct wren_netdev *dev)
{
    struct wren_ieee802154_tsch_netif *s = state;
    return wren_ieee802154_netif_add_tsch(node, &s->nif, &s->tsch, dev);
}

const struct wren_link_def wren_link_ieee802154_tsch = {
    .name = "ieee802154_tsch",
    .size = sizeof(struct wren_ieee802154_tsch_netif),
    .type = WREN_NETDEV_TYPE_IEEE802154,
    .add = link_add_tsch,
};
#endif
