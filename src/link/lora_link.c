#include "link/lora_link.h"

#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "net/nettype.h"

static void link_init(struct wren_netif *netif)
{
    (void)netif;
}

static int link_send(struct wren_netif *netif, struct wren_snip *pkt)
{
    struct wren_node *node = netif->node;
    unsigned pieces = 0;
    for (struct wren_snip *s = pkt->next; s; s = s->next) {
        pieces++;
    }
    if (pieces > CONFIG_WREN_NETIF_MAX_SNIPS && wren_pktbuf_merge(&node->pktbuf, &pkt->next) < 0) {
        netif->stats.tx_drop_bad++;
        wren_pktbuf_release(&node->pktbuf, pkt);
        return -ENOBUFS;
    }
    /* a frame of no bytes is still one (the modem sends a header alone) */
    struct wren_iolist iol[CONFIG_WREN_NETIF_MAX_SNIPS + 1] = {{.base = NULL, .len = 0}};
    unsigned n = 0;
    size_t len = 0;
    for (struct wren_snip *s = pkt->next; s; s = s->next, n++) {
        iol[n] = (struct wren_iolist){.base = s->data, .len = s->size};
        if (n) {
            iol[n - 1].next = &iol[n];
        }
        len += s->size;
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
    netif->stats.tx_bytes += (uint32_t)len;
    return 0;
}

static void link_recv(struct wren_netif *netif, struct wren_snip *pkt,
                      const struct wren_netdev_rx_info *info)
{
    struct wren_node *node = netif->node;
    struct wren_snip *ns = wren_pktbuf_add(&node->pktbuf, NULL, NULL,
                                           sizeof(struct wren_netif_hdr), WREN_NETTYPE_NETIF);
    if (ns == NULL) {
        netif->stats.rx_drop_nobuf++;
        wren_pktbuf_release(&node->pktbuf, pkt);
        return;
    }
    pkt->next = ns;
    struct wren_netif_hdr *nh = wren_netif_hdr(ns);
    memset(nh, 0, sizeof(*nh));
    nh->flags = WREN_NETIF_HDR_BROADCAST;
    nh->if_id = netif->id;
    nh->rssi = info->rssi;
    nh->lqi = info->lqi;
    size_t len = pkt->size;
    pkt->type = WREN_NETTYPE_LORA;
    if (wren_netapi_dispatch(node, WREN_NETTYPE_LORA, WREN_NETREG_DEMUX_ALL, WREN_MSG_RCV, pkt) ==
        0) {
        netif->stats.rx_drop_no_receiver++;
        return;
    }
    netif->stats.rx_frames++;
    netif->stats.rx_bytes += (uint32_t)len;
}

static int link_get(struct wren_netif *netif, uint16_t opt, void *val, size_t max)
{
    (void)netif;
    uint16_t v16;
    switch (opt) {
    case WREN_NETOPT_DEVICE_TYPE:
        v16 = WREN_NETDEV_TYPE_LORA;
        return wren_netopt_put(val, max, &v16, 2);
    case WREN_NETOPT_ADDR_LEN:
        v16 = 0;
        return wren_netopt_put(val, max, &v16, 2);
    default:
        return -ENOTSUP;
    }
}

const struct wren_netif_link_ops wren_lora_link = {
    .init = link_init,
    .send = link_send,
    .recv = link_recv,
    .get = link_get,
    .type = WREN_NETDEV_TYPE_LORA,
};

int wren_lora_netif_add(struct wren_node *node, struct wren_lora_netif *nif,
                        struct wren_netdev *dev)
{
    return wren_netif_add(node, &nif->netif, dev, &wren_lora_link);
}

static int link_add(struct wren_node *node, void *state, struct wren_netdev *dev)
{
    return wren_lora_netif_add(node, state, dev);
}

const struct wren_link_def wren_link_lora = {
    .name = "lora",
    .size = sizeof(struct wren_lora_netif),
    .type = WREN_NETDEV_TYPE_LORA,
    .add = link_add,
};
