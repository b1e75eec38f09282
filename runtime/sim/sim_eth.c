#include "sim/sim_eth.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "net/netopt.h"
#include "sim/sim.h"
#include "stack/stack.h"

static struct wren_sim_eth *port_of(struct wren_netdev *dev)
{
    return (struct wren_sim_eth *)dev; /* netdev is first */
}

static void raise_isr(struct wren_sim_eth *p)
{
    if (p->netdev.event_cb) {
        p->netdev.event_cb(&p->netdev, WREN_NETDEV_EV_ISR);
    }
}

/* the first frame not yet arrived decides when the port's timer fires */
static void rx_arm(struct wren_sim_eth *p)
{
    struct wren_world *w = p->bus->world;
    wren_world_timer_cancel(w, &p->rx_timer);
    if (p->n_ready < p->n_rx) {
        wren_world_timer_set(w, &p->rx_timer, p->rxq[p->n_ready].at);
    }
}

static void rx_timer_cb(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_sim_eth *p = arg;
    uint64_t now = p->bus->world->now;
    while (p->n_ready < p->n_rx && p->rxq[p->n_ready].at <= now) {
        p->n_ready++;
    }
    rx_arm(p);
    raise_isr(p);
}

static void tx_timer_cb(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_sim_eth *p = arg;
    p->pend_tx = 1;
    raise_isr(p);
}

/* @p frame reaches @p to at @p at: kept in arrival order */
static void enqueue(struct wren_sim_eth *to, const uint8_t *frame, uint16_t len, uint64_t at)
{
    if (to->n_rx == WREN_SIM_ETH_RXQ) {
        to->stats.rx_overrun++;
        return;
    }
    unsigned i = to->n_rx;
    while (i > to->n_ready && to->rxq[i - 1].at > at) {
        to->rxq[i] = to->rxq[i - 1];
        i--;
    }
    to->rxq[i].at = at;
    to->rxq[i].len = len;
    memcpy(to->rxq[i].buf, frame, len);
    to->n_rx++;
    rx_arm(to);
}

static int eth_send(struct wren_netdev *dev, const struct wren_iolist *iol)
{
    struct wren_sim_eth *p = port_of(dev);
    struct wren_sim_eth_bus *bus = p->bus;
    uint8_t frame[WREN_SIM_ETH_FRAME_MAX];
    size_t len = wren_iolist_size(iol);
    if (len > sizeof(frame)) {
        return -EMSGSIZE;
    }
    size_t off = 0;
    for (; iol; iol = iol->next) {
        if (iol->len) {
            memcpy(frame + off, iol->base, iol->len);
        }
        off += iol->len;
    }
    uint64_t now = bus->world->now;
    uint64_t start = p->tx_free > now ? p->tx_free : now;
    uint64_t end = start + ((uint64_t)len * 8u * 1000000u + bus->bitrate - 1) / bus->bitrate;
    p->tx_free = end;
    p->stats.tx_frames++;
    if (bus->pcap.f) {
        wren_pcap_write(&bus->pcap, start, frame, len);
    }
    for (uint32_t i = 0; i < bus->n_ports; i++) {
        if (bus->ports[i] != p) {
            enqueue(bus->ports[i], frame, (uint16_t)len, end + bus->latency_us);
        }
    }
    /* the stack hears of it when the frame has left; it may send the next
     * before: that one follows this one on the wire */
    wren_world_timer_cancel(bus->world, &p->tx_timer);
    wren_world_timer_set(bus->world, &p->tx_timer, end);
    return (int)len;
}

static int eth_recv(struct wren_netdev *dev, void *buf, size_t len,
                    struct wren_netdev_rx_info *info)
{
    struct wren_sim_eth *p = port_of(dev);
    if (p->n_ready == 0) {
        return 0;
    }
    bool taken;
    int res = wren_netdev_recv_held(p->rxq[0].buf, p->rxq[0].len, 0, 255, buf, len, info,
                                    &taken);
    if (taken) {
        if (buf) {
            p->stats.rx_frames++;
        }
        memmove(&p->rxq[0], &p->rxq[1], (size_t)(p->n_rx - 1) * sizeof(p->rxq[0]));
        p->n_rx--;
        p->n_ready--;
    }
    return res;
}

static void eth_isr(struct wren_netdev *dev)
{
    struct wren_sim_eth *p = port_of(dev);
    if (p->pend_tx) {
        p->pend_tx = 0;
        dev->event_cb(dev, WREN_NETDEV_EV_TX_COMPLETE);
    }
    while (p->n_ready) {
        uint8_t before = p->n_ready;
        dev->event_cb(dev, WREN_NETDEV_EV_RX_COMPLETE);
        if (p->n_ready == before) {
            (void)eth_recv(dev, NULL, 1, NULL); /* not taken: dropped */
        }
    }
}

static int eth_init(struct wren_netdev *dev)
{
    (void)dev;
    return 0;
}

static int eth_get(struct wren_netdev *dev, uint16_t opt, void *val, size_t max)
{
    struct wren_sim_eth *p = port_of(dev);
    uint16_t v16;
    uint8_t b = 1;
    switch (opt) {
    case WREN_NETOPT_DEV_STATS:
        return wren_netopt_put(val, max, &p->stats, sizeof(p->stats));
    case WREN_NETOPT_DEVICE_TYPE:
        v16 = WREN_NETDEV_TYPE_ETHERNET;
        return wren_netopt_put(val, max, &v16, 2);
    case WREN_NETOPT_ADDRESS:
        return wren_netopt_put(val, max, p->mac, 6);
    case WREN_NETOPT_ADDR_LEN:
        v16 = 6;
        return wren_netopt_put(val, max, &v16, 2);
    case WREN_NETOPT_MAX_PDU_SIZE:
        v16 = WREN_SIM_ETH_FRAME_MAX; /* whole frames: the link layer takes its header off */
        return wren_netopt_put(val, max, &v16, 2);
    case WREN_NETOPT_IS_WIRED:
        return wren_netopt_put(val, max, &b, 1);
    default:
        return -ENOTSUP;
    }
}

static int eth_set(struct wren_netdev *dev, uint16_t opt, const void *val, size_t len)
{
    (void)dev;
    (void)opt;
    (void)val;
    (void)len;
    return -ENOTSUP;
}

static const struct wren_counter_set sim_eth_counters =
    WREN_COUNTER_SET("simeth", WREN_SIM_ETH_COUNTERS, WREN_NETOPT_DEV_STATS, uint32_t);

static const struct wren_netdev_driver sim_eth_driver = {
    .counters = &sim_eth_counters,
    .init = eth_init,
    .send = eth_send,
    .recv = eth_recv,
    .isr = eth_isr,
    .get = eth_get,
    .set = eth_set,
};

int wren_sim_set_eth(struct wren_sim *s, int on)
{
    if (on && s->eth == NULL) {
        s->eth = calloc(1, sizeof(*s->eth));
        if (s->eth == NULL) {
            return -ENOMEM;
        }
        s->eth->world = &s->world;
        s->eth->latency_us = WREN_SIM_ETH_LATENCY_US;
        s->eth->bitrate = WREN_SIM_ETH_BITRATE;
    }
    s->eth_on = on ? 1 : 0;
    return 0;
}

int wren_sim_eth_params(struct wren_sim *s, uint32_t latency_us, uint32_t bitrate)
{
    if (s->eth == NULL) {
        return -ENODEV;
    }
    if (bitrate == 0) {
        return -EINVAL;
    }
    s->eth->latency_us = latency_us;
    s->eth->bitrate = bitrate;
    return 0;
}

int wren_sim_eth_attach(struct wren_sim *s, struct wren_sim_node *sn)
{
    struct wren_sim_eth_bus *bus = s->eth;
    if (bus->n_ports == bus->cap_ports) {
        uint32_t cap = bus->cap_ports ? bus->cap_ports * 2 : 4;
        struct wren_sim_eth **n = realloc(bus->ports, cap * sizeof(*n));
        if (n == NULL) {
            return -ENOMEM;
        }
        bus->ports = n;
        bus->cap_ports = cap;
    }
    struct wren_sim_eth *p = calloc(1, sizeof(*p));
    if (p == NULL) {
        return -ENOMEM;
    }
    p->netdev.driver = &sim_eth_driver;
    p->bus = bus;
    uint32_t id = sn->node.id;
    const uint8_t mac[6] = { 0x02, 0x57, 0x52, 0x00, (uint8_t)(id >> 8), (uint8_t)id };
    memcpy(p->mac, mac, 6);
    wren_timer_init(&p->rx_timer, rx_timer_cb, p);
    wren_timer_init(&p->tx_timer, tx_timer_cb, p);
    bus->ports[bus->n_ports++] = p;
    sn->eth = p;
    return 0;
}

void wren_sim_eth_iface(struct wren_sim_node *sn, struct wren_stack_iface *out)
{
    out->link = &wren_link_ethernet;
    out->dev = &sn->eth->netdev;
    out->state = &sn->eth->netif;
}

int wren_sim_eth_if(struct wren_sim *s, uint32_t id)
{
    if (id >= s->n_nodes) {
        return -EINVAL;
    }
    struct wren_sim_eth *p = s->nodes[id]->eth;
    return p ? p->netif.netif.id : -ENODEV;
}

int wren_sim_eth_open_pcap(struct wren_sim *s, const char *path)
{
    if (s->eth == NULL) {
        return -ENODEV;
    }
    if (s->eth->pcap.f) {
        wren_pcap_close(&s->eth->pcap);
    }
    return wren_pcap_open(&s->eth->pcap, path, WREN_PCAP_LINKTYPE_ETHERNET);
}

void wren_sim_eth_bus_free(struct wren_sim_eth_bus *bus)
{
    if (bus == NULL) {
        return;
    }
    if (bus->pcap.f) {
        wren_pcap_close(&bus->pcap);
    }
    for (uint32_t i = 0; i < bus->n_ports; i++) {
        free(bus->ports[i]);
    }
    free(bus->ports);
    free(bus);
}
