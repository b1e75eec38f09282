/* NDN faces: 802.15.4 and Ethernet links (through the interfaces, as the
 * IPv6 layer sends), UDP port 6363 (through a sock_udp), applications
 * (through netreg). A face sends one NDN packet, a snip the caller keeps:
 * the outgoing chain holds a reference of its own, so the same snip goes
 * to several faces (and stays in the PIT) without a copy. */
#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "ndn/ndn_priv.h"
#include "net/netapi.h"
#include "net/netdev.h"
#include "net/netif.h"
#include "net/netopt.h"

/* NFD's Ethernet multicast group for NDN (NFD's face system configuration,
 * ether.mcast_group 01:00:5E:00:17:AA) */
static const uint8_t eth_mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x17, 0xaa };

struct wren_ndn_face *wren_ndn_face(struct wren_ndn *ndn, uint8_t id)
{
    if (id == 0 || id > CONFIG_WREN_NDN_FACES || ndn->faces[id - 1].kind == WREN_NDN_FACE_NONE) {
        return NULL;
    }
    return &ndn->faces[id - 1];
}

static bool face_same(const struct wren_ndn_face *f, const struct wren_ndn_face_cfg *c)
{
    return f->kind == c->kind && c->kind != WREN_NDN_FACE_APP && f->if_id == c->if_id &&
           f->addr_len == c->addr_len && memcmp(f->addr, c->addr, c->addr_len) == 0 &&
           f->port == c->port;
}

static uint16_t get_u16(struct wren_ndn *ndn, struct wren_netif *netif, uint16_t opt, uint16_t dflt)
{
    uint16_t v = dflt;
    return wren_netapi_get(ndn->node, &netif->module, opt, 0, &v, sizeof(v)) == 2 ? v : dflt;
}

/* the largest NDN packet a frame of link face @p f takes */
static int link_face_setup(struct wren_ndn *ndn, struct wren_ndn_face *f)
{
    struct wren_netif *netif = wren_netif_get(ndn->node, f->if_id);
    if (netif == NULL) {
        return -EINVAL;
    }
    f->dev_type = (uint8_t)get_u16(ndn, netif, WREN_NETOPT_DEVICE_TYPE, 0);
    if (f->dev_type == WREN_NETDEV_TYPE_ETHERNET) {
        f->mtu = get_u16(ndn, netif, WREN_NETOPT_MAX_PDU_SIZE, 1500);
        return f->addr_len == 0 || f->addr_len == 6 ? 0 : -EINVAL;
    }
    if (f->dev_type != WREN_NETDEV_TYPE_IEEE802154 ||
        (f->addr_len != 0 && f->addr_len != 2 && f->addr_len != 8)) {
        return -EINVAL;
    }
    /* IEEE 802.15.4-2015: 127-octet PSDU (aMaxPhyPacketSize), less the FCS
     * (2), frame control, sequence number and PAN ID (5), the addresses,
     * security's auxiliary header and MIC, and the dispatch byte */
    size_t room = 127 - 2 - 5 - (f->addr_len ? f->addr_len : 2) -
                  get_u16(ndn, netif, WREN_NETOPT_ADDR_LEN, 8) - 1;
    if (CONFIG_WREN_IEEE802154_SEC) {
        room -= get_u16(ndn, netif, WREN_NETOPT_SEC_OVERHEAD, 0);
    }
    f->mtu = (uint16_t)room;
    return 0;
}

int wren_ndn_face_add(struct wren_ndn *ndn, const struct wren_ndn_face_cfg *cfg)
{
    struct wren_ndn_face *free_face = NULL;
    if (cfg->addr_len > sizeof(cfg->addr)) {
        return -EINVAL;
    }
    for (int i = 0; i < CONFIG_WREN_NDN_FACES; i++) {
        struct wren_ndn_face *f = &ndn->faces[i];
        if (f->kind != WREN_NDN_FACE_NONE && face_same(f, cfg)) {
            return i + 1;
        }
        free_face = !free_face && f->kind == WREN_NDN_FACE_NONE ? f : free_face;
    }
    if (free_face == NULL) {
        return -ENOSPC;
    }
    struct wren_ndn_face f = { .kind = cfg->kind, .if_id = cfg->if_id,
                               .addr_len = cfg->addr_len, .port = cfg->port,
                               .mtu = CONFIG_WREN_NDN_MAX_PACKET };
    memcpy(f.addr, cfg->addr, cfg->addr_len);
    int r = f.kind == WREN_NDN_FACE_LINK ? link_face_setup(ndn, &f)
          : f.kind == WREN_NDN_FACE_UDP ? (f.addr_len == 16 && f.port ? 0 : -EINVAL)
          : f.kind == WREN_NDN_FACE_APP ? 0 : -EINVAL;
    if (r < 0) {
        return r;
    }
    *free_face = f;
    return (int)(free_face - ndn->faces) + 1;
}

void wren_ndn_face_del(struct wren_ndn *ndn, uint8_t id)
{
    if (wren_ndn_face(ndn, id)) {
        wren_ndn_fwd_face_gone(ndn, id);
        memset(&ndn->faces[id - 1], 0, sizeof(ndn->faces[0]));
    }
}

static int send_link(struct wren_ndn *ndn, const struct wren_ndn_face *f, struct wren_snip *pkt)
{
    struct wren_pktbuf *pb = &ndn->node->pktbuf;
    struct wren_netif *netif = wren_netif_get(ndn->node, f->if_id);
    if (netif == NULL) {
        return -ENODEV;
    }
    bool wpan = f->dev_type == WREN_NETDEV_TYPE_IEEE802154;
    static const uint8_t dispatch = NDN_IEEE802154_DISPATCH;
    wren_pktbuf_hold(pb, pkt, 1);
    struct wren_snip *head = wpan ? wren_pktbuf_add(pb, pkt, &dispatch, 1, WREN_NETTYPE_NDN) : pkt;
    struct wren_snip *nh = head ? wren_pktbuf_add(pb, head, NULL, sizeof(struct wren_netif_hdr),
                                                  WREN_NETTYPE_NETIF)
                                : NULL;
    if (nh == NULL) {
        wren_pktbuf_release(pb, head ? head : pkt);
        return -ENOBUFS;
    }
    struct wren_netif_hdr *h = wren_netif_hdr(nh);
    memset(h, 0, sizeof(*h));
    h->if_id = f->if_id;
    if (f->addr_len) {
        h->dst_len = f->addr_len;
        memcpy(h->dst, f->addr, f->addr_len);
    } else if (wpan) {
        h->flags = WREN_NETIF_HDR_BROADCAST;
    } else {
        h->dst_len = 6;
        memcpy(h->dst, eth_mcast, 6);
        h->flags = WREN_NETIF_HDR_MULTICAST;
    }
    return wren_netapi_send(ndn->node, &netif->module, nh);
}

static int send_udp(struct wren_ndn *ndn, const struct wren_ndn_face *f, struct wren_snip *pkt)
{
    struct wren_sock_udp_ep to = { .port = f->port };
    memcpy(to.addr, f->addr, 16);
    ssize_t n = ndn->udp_open ? wren_sock_udp_send(&ndn->udp, pkt->data, pkt->size, &to)
                              : -ENOTCONN;
    return n < 0 ? (int)n : 0;
}

static int send_app(struct wren_ndn *ndn, uint8_t id, struct wren_snip *pkt)
{
    wren_pktbuf_hold(&ndn->node->pktbuf, pkt, 1);
    return wren_netapi_dispatch(ndn->node, WREN_NETTYPE_NDN, id, WREN_MSG_RCV, pkt) ? 0 : -ENOENT;
}

/* NDNLPv2 on link faces: a packet bigger than the frame goes in pieces, each
 * one LpPacket that fits (src/ndn/ndnlp_frag.h); other faces drop it. */
int wren_ndn_face_send_large(struct wren_ndn *ndn, uint8_t id, struct wren_snip *pkt)
{
    const struct wren_ndn_face *f = wren_ndn_face(ndn, id);
    struct ndnlp_frag_plan plan;
    if (f == NULL || f->kind != WREN_NDN_FACE_LINK ||
        wren_ndnlp_frag_plan(&ndn->lp, pkt->size, f->mtu, &plan) < 0) {
        ndn->stats.too_big++;
        return -EMSGSIZE;
    }
    for (unsigned i = 0; i < plan.count; i++) {
        struct wren_snip *s = wren_ndnlp_frag_piece(&ndn->lp, &plan, pkt, i, WREN_NETTYPE_NDN);
        int r = s ? send_link(ndn, f, s) : -ENOBUFS;
        if (s) {
            wren_pktbuf_release(&ndn->node->pktbuf, s); /* send_link holds its own */
        }
        if (r < 0) {
            ndn->stats.tx_drop++; /* the rest could not be put back together */
            return r;
        }
    }
    return 0;
}

int wren_ndn_face_send(struct wren_ndn *ndn, uint8_t id, struct wren_snip *pkt)
{
    const struct wren_ndn_face *f = wren_ndn_face(ndn, id);
    int r = -ENOENT;
    if (f && pkt->size > f->mtu) {
        return wren_ndn_face_send_large(ndn, id, pkt);
    }
    if (f && f->kind == WREN_NDN_FACE_LINK) {
        r = send_link(ndn, f, pkt);
    } else if (f && f->kind == WREN_NDN_FACE_UDP) {
        r = send_udp(ndn, f, pkt);
    } else if (f && f->kind == WREN_NDN_FACE_APP) {
        r = send_app(ndn, id, pkt);
    }
    if (r < 0) {
        ndn->stats.tx_drop++;
    }
    return r;
}

/* ---- receiving ------------------------------------------------------- */

void wren_ndn_lp_timer(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_ndn *ndn = arg;
    wren_ndnlp_frag_expire(&ndn->lp, wren_node_now(ndn->node));
    uint64_t next = wren_ndnlp_frag_next_deadline(&ndn->lp);
    if (next != UINT64_MAX) {
        wren_timer_set_abs(ndn->node, &ndn->lp_timer, next);
    }
}

/* An LpPacket from link face @p face (owned): the network packet it gives
 * (unfragmented, or the last piece of one), or NULL (held, or dropped and
 * counted in lp_*). The pieces of a packet are keyed by the face, which is
 * the sender on its interface. */
static struct wren_snip *lp_rx(struct wren_ndn *ndn, uint8_t face, struct wren_snip *s)
{
    struct ndnlp_pkt lp;
    struct wren_snip *pkt = wren_ndnlp_frag_rx(&ndn->lp, face, s->data, s->size,
                                               wren_node_now(ndn->node), WREN_NETTYPE_NDN, &lp);
    wren_pktbuf_release(&ndn->node->pktbuf, s);
    uint64_t next = wren_ndnlp_frag_next_deadline(&ndn->lp);
    if (next == UINT64_MAX) {
        wren_timer_cancel(ndn->node, &ndn->lp_timer);
    } else {
        wren_timer_set_abs(ndn->node, &ndn->lp_timer, next);
    }
    if (pkt && lp.has_nack) {
        ndn->lp.stats.lp_nack++; /* this forwarder takes no Nacks (NDNLPv2 lets it drop them) */
        wren_pktbuf_release(&ndn->node->pktbuf, pkt);
        return NULL;
    }
    return pkt;
}

/* The link face of a frame's sender (made on its first frame), or NULL */
static struct wren_ndn_face *link_rx_face(struct wren_ndn *ndn, struct wren_snip *pkt,
                                          int *face)
{
    struct wren_snip *nhs = wren_pkt_search(pkt, WREN_NETTYPE_NETIF);
    struct wren_netif_hdr *nh = nhs ? wren_netif_hdr(nhs) : NULL;
    struct wren_ndn_face_cfg c = { .kind = WREN_NDN_FACE_LINK };
    if (nh && nh->src_len <= sizeof(c.addr)) {
        c.if_id = nh->if_id;
        c.addr_len = nh->src_len;
        memcpy(c.addr, nh->src, nh->src_len);
    }
    *face = nh ? wren_ndn_face_add(ndn, &c) : -EINVAL;
    return *face > 0 ? wren_ndn_face(ndn, (uint8_t)*face) : NULL;
}

/* Where the NDN packet lies in a frame's payload: 802.15.4's dispatch byte
 * goes; on Ethernet the padding of a short frame (IEEE 802.3: 46 octets of
 * payload at least) goes, the packet ends where its TLV does. */
static size_t link_rx_span(const struct wren_ndn_face *f, const struct wren_snip *pkt,
                           size_t *skip)
{
    *skip = f->dev_type == WREN_NETDEV_TYPE_IEEE802154 ? 1 : 0;
    size_t len = pkt->size > *skip ? pkt->size - *skip : 0;
    uint32_t t;
    const uint8_t *v;
    uint16_t vl;
    int tlv = len ? wren_ndn_tlv_parse(pkt->data + *skip, len, &t, &v, &vl) : -1;
    if (f->dev_type == WREN_NETDEV_TYPE_ETHERNET && tlv > 0) {
        len = (size_t)tlv;
    }
    return len;
}

void wren_ndn_face_link_rx(struct wren_ndn *ndn, struct wren_snip *pkt)
{
    struct wren_pktbuf *pb = &ndn->node->pktbuf;
    int face;
    struct wren_ndn_face *f = link_rx_face(ndn, pkt, &face);
    size_t skip = 0;
    size_t len = f ? link_rx_span(f, pkt, &skip) : 0;
    /* the packet becomes one snip of its own */
    struct wren_snip *s = f && len ? wren_pktbuf_add(pb, NULL, pkt->data + skip, len,
                                                     WREN_NETTYPE_NDN)
                                   : NULL;
    if (s == NULL) {
        *(f == NULL ? &ndn->stats.rx_drop_no_face
          : len == 0 ? &ndn->stats.rx_drop_malformed : &ndn->stats.rx_drop_nobuf) += 1;
    }
    wren_pktbuf_release(pb, pkt);
    if (s && s->size && s->data[0] == NDNLP_TLV_LP_PACKET) {
        s = lp_rx(ndn, (uint8_t)face, s);
    }
    if (s) {
        wren_ndn_fwd_rx(ndn, (uint8_t)face, s);
    }
}

static void udp_rx(struct wren_sock_udp *sock, unsigned events, void *arg)
{
    (void)events;
    struct wren_ndn *ndn = arg;
    struct wren_pktbuf *pb = &ndn->node->pktbuf;
    for (;;) {
        struct wren_snip *s = wren_pktbuf_add(pb, NULL, NULL, CONFIG_WREN_NDN_MAX_PACKET,
                                              WREN_NETTYPE_NDN);
        uint8_t none;
        struct wren_sock_udp_ep from;
        ssize_t n = wren_sock_udp_recv(sock, s ? s->data : &none, s ? s->size : 0, 0, &from);
        if (n == -EAGAIN || n == -EDEADLK) {
            if (s) {
                wren_pktbuf_release(pb, s);
            }
            return;
        }
        struct wren_ndn_face_cfg c = { .kind = WREN_NDN_FACE_UDP, .addr_len = 16, .port = from.port };
        memcpy(c.addr, from.addr, 16);
        int face = n > 0 && s ? wren_ndn_face_add(ndn, &c) : -EINVAL;
        if (face <= 0) {
            *(s == NULL ? &ndn->stats.rx_drop_nobuf
              : n <= 0  ? &ndn->stats.rx_drop_malformed
                        : &ndn->stats.rx_drop_no_face) += 1;
            if (s) {
                wren_pktbuf_release(pb, s);
            }
            continue;
        }
        wren_pktbuf_trim_back(pb, s, (size_t)n);
        wren_ndn_fwd_rx(ndn, (uint8_t)face, s);
    }
}

int wren_ndn_face_udp_open(struct wren_ndn *ndn)
{
    struct wren_sock_udp_ep local = { .port = WREN_NDN_UDP_PORT };
    int r = wren_sock_udp_create(ndn->node, &ndn->udp, &local, NULL);
    if (r == 0) {
        ndn->udp_open = true;
        wren_sock_udp_set_cb(&ndn->udp, udp_rx, ndn);
    }
    return r;
}
