#include "link/ethernet_link.h"

#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "net/nettype.h"
#include "wire/ethernet.h"
#include "wire/ndn_tlv.h"
#include "wire/ipv6.h"

static const uint8_t bcast[ETH_ADDR_LEN] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

static struct wren_ethernet_netif *to_nif(struct wren_netif *netif)
{
    return (struct wren_ethernet_netif *)netif;
}

static void link_init(struct wren_netif *netif)
{
    struct wren_ethernet_netif *nif = to_nif(netif);
    struct wren_netdev *dev = netif->dev;
    if (dev->driver->get(dev, WREN_NETOPT_ADDRESS, nif->mac, ETH_ADDR_LEN) != ETH_ADDR_LEN) {
        /* a locally administered unicast address from the node's PRNG */
        for (unsigned i = 0; i < ETH_ADDR_LEN; i++) {
            nif->mac[i] = (uint8_t)wren_node_random(netif->node);
        }
        nif->mac[0] = (uint8_t)((nif->mac[0] & 0xfc) | 0x02);
    }
    uint16_t mtu = 0;
    if (dev->driver->get(dev, WREN_NETOPT_MAX_PDU_SIZE, &mtu, 2) == 2 && mtu > ETH_HDR_LEN) {
        mtu = (uint16_t)(mtu - ETH_HDR_LEN);
    }
    nif->mtu = mtu && mtu < ETH_MTU ? mtu : ETH_MTU;
}

/* RFC 2464 7: the destination of a frame without a link address */
static void group_dst(const struct wren_snip *pkt, uint8_t *dst)
{
    const struct wren_snip *ip = pkt->next;
    if (ip && ip->type == WREN_NETTYPE_IPV6 && ip->size >= IPV6_HDR_LEN &&
        wren_ipv6_addr_is_multicast(ip->data + IPV6_OFF_DST)) {
        wren_eth_mac_from_ipv6_mcast(dst, ip->data + IPV6_OFF_DST);
    } else {
        memcpy(dst, bcast, ETH_ADDR_LEN);
    }
}

static int link_send(struct wren_netif *netif, struct wren_snip *pkt)
{
    struct wren_ethernet_netif *nif = to_nif(netif);
    struct wren_node *node = netif->node;
    const struct wren_netif_hdr *nh = wren_netif_hdr(pkt);
    bool ndn = pkt->next && pkt->next->type == WREN_NETTYPE_NDN;
    struct eth_hdr h = {.type = ndn ? NDN_ETHERTYPE : ETHERTYPE_IPV6};
    size_t plen = wren_pkt_len(pkt->next);
    if (nh->dst_len == ETH_ADDR_LEN) {
        memcpy(h.dst, nh->dst, ETH_ADDR_LEN);
    } else if (nh->dst_len == 0 &&
               (nh->flags & (WREN_NETIF_HDR_MULTICAST | WREN_NETIF_HDR_BROADCAST))) {
        group_dst(pkt, h.dst);
    } else {
        plen = SIZE_MAX; /* unicast without a link address */
    }
    if (plen > nif->mtu) {
        netif->stats.tx_drop_bad++;
        wren_pktbuf_release(&node->pktbuf, pkt);
        return -EINVAL;
    }
    memcpy(h.src, nif->mac, ETH_ADDR_LEN);
    unsigned pieces = 0;
    for (struct wren_snip *s = pkt->next; s; s = s->next) {
        pieces++;
    }
    if (pieces > CONFIG_WREN_NETIF_MAX_SNIPS && wren_pktbuf_merge(&node->pktbuf, &pkt->next) < 0) {
        netif->stats.tx_drop_bad++;
        wren_pktbuf_release(&node->pktbuf, pkt);
        return -ENOBUFS;
    }
    uint8_t hdr[ETH_HDR_LEN];
    wren_eth_hdr_emit(&h, hdr);
    struct wren_iolist iol[CONFIG_WREN_NETIF_MAX_SNIPS + 1];
    iol[0] = (struct wren_iolist){.base = hdr, .len = ETH_HDR_LEN};
    unsigned n = 1;
    for (struct wren_snip *s = pkt->next; s; s = s->next) {
        iol[n] = (struct wren_iolist){.base = s->data, .len = s->size};
        iol[n - 1].next = &iol[n];
        n++;
    }
    struct wren_netdev *dev = netif->dev;
    int res = dev->driver->send(dev, iol);
    if (res == -EBUSY) {
        return -EBUSY;
    }
    wren_pktbuf_release(&node->pktbuf, pkt);
    if (res < 0) {
        netif->stats.tx_drop_dev++;
        return res;
    }
    netif->stats.tx_frames++;
    netif->stats.tx_bytes += (uint32_t)(ETH_HDR_LEN + plen);
    return 0;
}

static void link_recv(struct wren_netif *netif, struct wren_snip *pkt,
                      const struct wren_netdev_rx_info *info)
{
    struct wren_ethernet_netif *nif = to_nif(netif);
    struct wren_node *node = netif->node;
    struct eth_hdr h;
    uint32_t *reason;
    int res = wren_eth_hdr_parse(pkt->data, pkt->size, &h);
    if (res < 0) {
        reason = res == -ETH_ERR_LENGTH ? &netif->stats.rx_drop_unsupported
                                        : &netif->stats.rx_drop_malformed;
        goto drop;
    }
    if (h.type != ETHERTYPE_IPV6 && h.type != NDN_ETHERTYPE) {
        reason = &netif->stats.rx_drop_unsupported; /* ARP, IPv4, LLDP, ... */
        goto drop;
    }
    bool group = wren_eth_addr_is_group(h.dst);
    if (!group && !nif->promiscuous && memcmp(h.dst, nif->mac, ETH_ADDR_LEN) != 0) {
        reason = &netif->stats.rx_drop_not_for_us;
        goto drop;
    }
    if (wren_eth_addr_is_group(h.src)) {
        reason = &netif->stats.rx_drop_malformed; /* a source is never a group */
        goto drop;
    }
    if (memcmp(h.src, nif->mac, ETH_ADDR_LEN) == 0) {
        reason = &netif->stats.rx_drop_not_for_us; /* our own frame, looped back */
        goto drop;
    }
    struct wren_snip *eh = wren_pktbuf_mark(&node->pktbuf, pkt, ETH_HDR_LEN, WREN_NETTYPE_ETHERNET);
    struct wren_snip *ns = eh ? wren_pktbuf_add(&node->pktbuf, NULL, NULL,
                                                sizeof(struct wren_netif_hdr), WREN_NETTYPE_NETIF)
                              : NULL;
    if (ns == NULL) {
        reason = &netif->stats.rx_drop_nobuf;
        goto drop;
    }
    eh->next = ns;
    struct wren_netif_hdr *nh = wren_netif_hdr(ns);
    memset(nh, 0, sizeof(*nh));
    memcpy(nh->src, h.src, ETH_ADDR_LEN);
    memcpy(nh->dst, h.dst, ETH_ADDR_LEN);
    nh->src_len = nh->dst_len = ETH_ADDR_LEN;
    if (group) {
        nh->flags |= memcmp(h.dst, bcast, ETH_ADDR_LEN) == 0 ? WREN_NETIF_HDR_BROADCAST
                                                             : WREN_NETIF_HDR_MULTICAST;
    }
    nh->if_id = netif->id;
    nh->rssi = info->rssi;
    nh->lqi = info->lqi;
    size_t len = pkt->size;
    pkt->type = h.type == NDN_ETHERTYPE ? WREN_NETTYPE_NDN : WREN_NETTYPE_IPV6;
    if (wren_netapi_dispatch(node, pkt->type, WREN_NETREG_DEMUX_ALL, WREN_MSG_RCV, pkt) == 0) {
        netif->stats.rx_drop_no_receiver++;
        return;
    }
    netif->stats.rx_frames++;
    netif->stats.rx_bytes += (uint32_t)(len + ETH_HDR_LEN);
    return;

drop:
    (*reason)++;
    wren_pktbuf_release(&node->pktbuf, pkt);
}

static int link_get(struct wren_netif *netif, uint16_t opt, void *val, size_t max)
{
    struct wren_ethernet_netif *nif = to_nif(netif);
    uint16_t v16;
    uint8_t b;
    switch (opt) {
    case WREN_NETOPT_ADDRESS:
        return wren_netopt_put(val, max, nif->mac, ETH_ADDR_LEN);
    case WREN_NETOPT_ADDR_LEN:
        v16 = ETH_ADDR_LEN;
        return wren_netopt_put(val, max, &v16, 2);
    case WREN_NETOPT_DEVICE_TYPE:
        /* the framing makes it Ethernet, whatever device carries the frames */
        v16 = WREN_NETDEV_TYPE_ETHERNET;
        return wren_netopt_put(val, max, &v16, 2);
    case WREN_NETOPT_MAX_PDU_SIZE:
        return wren_netopt_put(val, max, &nif->mtu, 2);
    case WREN_NETOPT_PROMISCUOUS:
        b = nif->promiscuous;
        return wren_netopt_put(val, max, &b, 1);
    default:
        return -ENOTSUP;
    }
}

static int link_set(struct wren_netif *netif, uint16_t opt, const void *val, size_t len)
{
    struct wren_ethernet_netif *nif = to_nif(netif);
    switch (opt) {
    case WREN_NETOPT_ADDRESS: {
        const uint8_t *mac = val;
        if (len != ETH_ADDR_LEN || wren_eth_addr_is_group(mac)) {
            return -EINVAL;
        }
        memcpy(nif->mac, mac, ETH_ADDR_LEN);
        struct wren_netdev *dev = netif->dev;
        int res = dev->driver->set(dev, opt, val, len);
        return res == -ENOTSUP ? 0 : res;
    }
    case WREN_NETOPT_PROMISCUOUS:
        if (len != 1) {
            return -EINVAL;
        }
        nif->promiscuous = *(const uint8_t *)val != 0;
        return 0;
    default:
        return -ENOTSUP;
    }
}

const struct wren_netif_link_ops wren_ethernet_link = {
    .init = link_init,
    .send = link_send,
    .recv = link_recv,
    .get = link_get,
    .set = link_set,
    .type = WREN_NETDEV_TYPE_ETHERNET,
};

int wren_ethernet_netif_add(struct wren_node *node, struct wren_ethernet_netif *nif,
                            struct wren_netdev *dev)
{
    return wren_netif_add(node, &nif->netif, dev, &wren_ethernet_link);
}

static int link_add(struct wren_node *node, void *state, struct wren_netdev *dev)
{
    return wren_ethernet_netif_add(node, state, dev);
}

const struct wren_link_def wren_link_ethernet = {
    .name = "ethernet",
    .size = sizeof(struct wren_ethernet_netif),
    .type = WREN_NETDEV_TYPE_ETHERNET,
    .add = link_add,
};
