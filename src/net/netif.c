#include "net/netif.h"

#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "net/nettype.h"

/* Queue @p pkt (a netif header first) at the tail, or at the head to retry
 * it first. Its netif header carries the link; a shared one is copied. */
static void txq_put(struct wren_netif *netif, struct wren_snip *pkt, bool front)
{
    struct wren_pktbuf *pb = &netif->node->pktbuf;
    struct wren_snip *head = pkt;
    if (netif->txq_len >= CONFIG_WREN_NETIF_TXQ_LEN ||
        wren_pktbuf_write_path(pb, &pkt, &head) < 0) {
        netif->stats.tx_drop_queue++;
        if (!front) {
            netif->txq_drop_cont = true; /* arrivals are in order: its followers come next */
        }
        wren_pktbuf_release(pb, pkt);
        return;
    }
    struct wren_netif_hdr *nh = wren_netif_hdr(pkt);
    if (front) {
        nh->q_next = netif->txq_head;
        netif->txq_head = pkt;
        if (netif->txq_tail == NULL) {
            netif->txq_tail = pkt;
        }
    } else {
        nh->q_next = NULL;
        if (netif->txq_tail) {
            wren_netif_hdr(netif->txq_tail)->q_next = pkt;
        } else {
            netif->txq_head = pkt;
        }
        netif->txq_tail = pkt;
    }
    netif->txq_len++;
}

static struct wren_snip *txq_get(struct wren_netif *netif)
{
    struct wren_snip *pkt = netif->txq_head;
    if (pkt) {
        netif->txq_head = wren_netif_hdr(pkt)->q_next;
        if (netif->txq_head == NULL) {
            netif->txq_tail = NULL;
        }
        netif->txq_len--;
    }
    return pkt;
}

static void netif_try_send(struct wren_netif *netif, struct wren_snip *pkt)
{
    int res = netif->link->send(netif, pkt);
    if (res == -EBUSY) {
        /* the device is busy after all: retry this one first */
        txq_put(netif, pkt, true);
        netif->tx_busy = true;
    } else if (res == 0) {
        netif->tx_busy = true;
    }
}

void wren_netif_tx_resume(struct wren_netif *netif)
{
    netif->tx_busy = false;
    while (!netif->tx_busy && netif->txq_len) {
        netif_try_send(netif, txq_get(netif));
    }
}

static void netif_send(struct wren_netif *netif, struct wren_snip *pkt)
{
    if (pkt == NULL || pkt->type != WREN_NETTYPE_NETIF ||
        pkt->size < sizeof(struct wren_netif_hdr)) {
        netif->stats.tx_drop_bad++;
        wren_pktbuf_release(&netif->node->pktbuf, pkt);
        return;
    }
    if (wren_netif_hdr(pkt)->flags & WREN_NETIF_HDR_FRAG_CONT) {
        if (netif->txq_drop_cont) {
            netif->stats.tx_drop_frag++; /* its datagram lost a fragment already */
            wren_pktbuf_release(&netif->node->pktbuf, pkt);
            return;
        }
    } else {
        netif->txq_drop_cont = false;
    }
    if (!netif->tx_busy) {
        netif_try_send(netif, pkt);
    } else {
        txq_put(netif, pkt, false);
    }
}

void wren_netif_tx_done(struct wren_netif *netif, enum wren_netdev_event ev)
{
    switch (ev) {
    case WREN_NETDEV_EV_TX_COMPLETE:
        netif->stats.tx_ok++;
        break;
    case WREN_NETDEV_EV_TX_NOACK:
        netif->stats.tx_noack++;
        break;
    default:
        netif->stats.tx_busy++;
        break;
    }
    if (ev != WREN_NETDEV_EV_TX_COMPLETE) {
        /* a lost fragment loses its datagram: the rest of it, queued right
         * behind (6LoWPAN queues a datagram's fragments together), would only
         * take air time and a reassembly slot downstream */
        while (netif->txq_head &&
               (wren_netif_hdr(netif->txq_head)->flags & WREN_NETIF_HDR_FRAG_CONT)) {
            netif->stats.tx_drop_frag++;
            wren_pktbuf_release(&netif->node->pktbuf, txq_get(netif));
        }
    }
    wren_netif_tx_resume(netif);
}

static void netif_rx(struct wren_netif *netif)
{
    struct wren_netdev *dev = netif->dev;
    struct wren_node *node = netif->node;
    int size = dev->driver->recv(dev, NULL, 0, NULL);
    if (size <= 0) {
        return;
    }
    struct wren_snip *pkt = wren_pktbuf_add(&node->pktbuf, NULL, NULL, (size_t)size,
                                            WREN_NETTYPE_UNDEF);
    if (pkt == NULL) {
        dev->driver->recv(dev, NULL, (size_t)size, NULL);
        netif->stats.rx_drop_nobuf++;
        return;
    }
    struct wren_netdev_rx_info info = { 0 };
    int n = dev->driver->recv(dev, pkt->data, (size_t)size, &info);
    if (n <= 0) {
        netif->stats.rx_drop_malformed++;
        wren_pktbuf_release(&node->pktbuf, pkt);
        return;
    }
    if (n < size) {
        wren_pktbuf_trim_back(&node->pktbuf, pkt, (size_t)n);
    }
    netif->link->recv(netif, pkt, &info);
}

static void netif_event(struct wren_netdev *dev, enum wren_netdev_event ev)
{
    struct wren_netif *netif = dev->context;
    switch (ev) {
    case WREN_NETDEV_EV_ISR:
        /* a signal, not a queued message: an interrupt is never lost */
        wren_sched_signal(netif->node, &netif->module);
        break;
    case WREN_NETDEV_EV_RX_COMPLETE:
        netif_rx(netif);
        break;
    case WREN_NETDEV_EV_TX_COMPLETE:
    case WREN_NETDEV_EV_TX_NOACK:
    case WREN_NETDEV_EV_TX_MEDIUM_BUSY:
        if (netif->link->tx_event) {
            netif->link->tx_event(netif, ev);
        } else {
            wren_netif_tx_done(netif, ev);
        }
        break;
    default:
        break;
    }
}

static void netif_handle(struct wren_node *node, struct wren_module *self,
                         const struct wren_msg *msg)
{
    (void)node;
    struct wren_netif *netif = (struct wren_netif *)self;
    switch (msg->type) {
    case WREN_MSG_SND:
        netif_send(netif, msg->ptr);
        break;
    case WREN_MSG_SIGNAL:
        netif->dev->driver->isr(netif->dev);
        break;
    case WREN_MSG_RCV:
        /* an interface has nothing above to take packets from below */
        wren_pktbuf_release(&node->pktbuf, msg->ptr);
        break;
    default:
        break;
    }
}

static int netif_get(struct wren_node *node, struct wren_module *self, uint16_t opt,
                     uint16_t ctx, void *val, size_t max)
{
    (void)node;
    (void)ctx;
    struct wren_netif *netif = (struct wren_netif *)self;
    switch (opt) {
    case WREN_NETOPT_STATS:
        return wren_netopt_put(val, max, &netif->stats, sizeof(netif->stats));
    case WREN_NETOPT_TX_QUEUE_LEN: {
        uint16_t n = netif->txq_len;
        return wren_netopt_put(val, max, &n, sizeof(n));
    }
    default:
        break;
    }
    int res = netif->link->get ? netif->link->get(netif, opt, val, max) : -ENOTSUP;
    if (res == -ENOTSUP) {
        res = netif->dev->driver->get(netif->dev, opt, val, max);
    }
    return res;
}

static int netif_set(struct wren_node *node, struct wren_module *self, uint16_t opt,
                     uint16_t ctx, const void *val, size_t len)
{
    (void)node;
    (void)ctx;
    struct wren_netif *netif = (struct wren_netif *)self;
    int res = netif->link->set ? netif->link->set(netif, opt, val, len) : -ENOTSUP;
    if (res == -ENOTSUP) {
        res = netif->dev->driver->set(netif->dev, opt, val, len);
    }
    return res;
}

static const struct wren_counter_set netif_counters =
    WREN_COUNTER_SET("netif", WREN_NETIF_COUNTERS, WREN_NETOPT_STATS, uint32_t);

static const struct wren_module_ops netif_ops = {
    .counters = WREN_IF_NAMES(&netif_counters),
    .name = "netif",
    .handle = netif_handle,
    .get = netif_get,
    .set = netif_set,
};

int wren_netif_add(struct wren_node *node, struct wren_netif *netif,
                   struct wren_netdev *dev, const struct wren_netif_link_ops *link)
{
    memset(netif, 0, sizeof(*netif));
    netif->module.ops = &netif_ops;
    netif->module.prio = WREN_PRIO_LINK;
    netif->node = node;
    netif->dev = dev;
    netif->link = link;
    dev->context = netif;
    dev->event_cb = netif_event;
    int res = dev->driver->init(dev);
    if (res < 0) {
        return res;
    }
    netif->id = node->next_netif_id++;
    struct wren_netif **pp = &node->netifs;
    while (*pp) {
        pp = &(*pp)->next;
    }
    *pp = netif;
    if (link->init) {
        link->init(netif);
    }
    return netif->id;
}

struct wren_netif *wren_netif_get(struct wren_node *node, uint8_t id)
{
    for (struct wren_netif *n = node->netifs; n; n = n->next) {
        if (n->id == id) {
            return n;
        }
    }
    return NULL;
}

struct wren_snip *wren_netif_hdr_add(struct wren_pktbuf *pb, struct wren_snip *pkt,
                                     const uint8_t *src, uint8_t src_len,
                                     const uint8_t *dst, uint8_t dst_len)
{
    if (src_len > WREN_NETIF_L2ADDR_MAX || dst_len > WREN_NETIF_L2ADDR_MAX) {
        return NULL;
    }
    struct wren_snip *s = wren_pktbuf_add(pb, pkt, NULL, sizeof(struct wren_netif_hdr),
                                          WREN_NETTYPE_NETIF);
    if (s == NULL) {
        return NULL;
    }
    struct wren_netif_hdr *h = wren_netif_hdr(s);
    memset(h, 0, sizeof(*h));
    if (src_len) {
        memcpy(h->src, src, src_len);
    }
    if (dst_len) {
        memcpy(h->dst, dst, dst_len);
    }
    h->src_len = src_len;
    h->dst_len = dst_len;
    return s;
}
