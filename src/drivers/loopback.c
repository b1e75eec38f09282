#include "drivers/loopback.h"

#include <errno.h>
#include <string.h>

#include "net/netopt.h"
#include "wire/ieee802154.h"

#define PEND_TX 0x01
#define PEND_RX 0x02

static struct wren_loopback *lo_of(struct wren_netdev *dev)
{
    return (struct wren_loopback *)dev;
}

static int lo_init(struct wren_netdev *dev)
{
    (void)dev;
    return 0;
}

/* Swap source and destination of the 802.15.4 frame in buf, in place. */
static int reflect(struct wren_loopback *lo)
{
    struct ieee802154_frame f;
    if (wren_ieee802154_parse(lo->buf, lo->len, &f) < 0) {
        return -EINVAL;
    }
    struct ieee802154_hdr h = f.hdr;
    if (h.dst_mode == IEEE802154_ADDR_NONE || h.src_mode == IEEE802154_ADDR_NONE) {
        return -EINVAL;
    }
    h.dst_mode = f.hdr.src_mode;
    h.src_mode = f.hdr.dst_mode;
    memcpy(h.dst_addr, f.hdr.src_addr, 8);
    memcpy(h.src_addr, f.hdr.dst_addr, 8);
    h.dst_pan = f.hdr.src_pan;
    h.src_pan = f.hdr.dst_pan;
    int old = (int)(f.payload - lo->buf);
    int len = wren_ieee802154_hdr_len(&h);
    if (len != old) {
        return -EINVAL; /* same modes swapped: the header keeps its length */
    }
    return wren_ieee802154_hdr_emit(&h, lo->buf, (size_t)len) < 0 ? -EINVAL : 0;
}

static size_t gather(uint8_t *dst, const struct wren_iolist *iol)
{
    size_t off = 0;
    for (; iol; iol = iol->next) {
        if (iol->len) {
            memcpy(dst + off, iol->base, iol->len);
        }
        off += iol->len;
    }
    return off;
}

static int lo_send(struct wren_netdev *dev, const struct wren_iolist *iol)
{
    struct wren_loopback *lo = lo_of(dev);
    struct wren_loopback *to = lo->peer ? lo->peer : lo;
    if ((lo->pending & PEND_TX) || lo->held || (to == lo && (lo->pending & PEND_RX))) {
        return -EBUSY;
    }
    size_t len = wren_iolist_size(iol);
    if (len > lo->mtu || len > to->mtu) {
        return -EMSGSIZE;
    }
    lo->frames++;
    if (to != lo && (to->pending & PEND_RX)) {
        /* the peer has not read its last frame: this one waits here */
        lo->held_len = (uint16_t)gather(lo->hold, iol);
        lo->held = true;
        return (int)len;
    }
    to->len = (uint16_t)gather(to->buf, iol);
    to->pending |= PEND_RX;
    to->rx_seq++;
    if (lo->reflect && reflect(lo) < 0) {
        lo->reflect_errors++;
        to->pending &= (uint8_t)~PEND_RX;
    }
    lo->pending |= PEND_TX;
    dev->event_cb(dev, WREN_NETDEV_EV_ISR);
    if (to != lo && (to->pending & PEND_RX)) {
        to->netdev.event_cb(&to->netdev, WREN_NETDEV_EV_ISR);
    }
    return (int)len;
}

/* The receiving end of a pair has freed its buffer: take the peer's held frame. */
static void lo_rx_freed(struct wren_loopback *lo)
{
    struct wren_loopback *from = lo->peer;
    if (from == NULL || !from->held) {
        return;
    }
    memcpy(lo->buf, from->hold, from->held_len);
    lo->len = from->held_len;
    lo->pending |= PEND_RX;
    lo->rx_seq++;
    from->held = false;
    from->pending |= PEND_TX;
    lo->netdev.event_cb(&lo->netdev, WREN_NETDEV_EV_ISR);
    from->netdev.event_cb(&from->netdev, WREN_NETDEV_EV_ISR);
}

static int lo_recv(struct wren_netdev *dev, void *buf, size_t len,
                   struct wren_netdev_rx_info *info)
{
    struct wren_loopback *lo = lo_of(dev);
    if (!(lo->pending & PEND_RX)) {
        return 0;
    }
    bool taken;
    int res = wren_netdev_recv_held(lo->buf, lo->len, 0, 255, buf, len, info,
                                    &taken);
    if (taken) {
        lo->pending &= (uint8_t)~PEND_RX;
        lo_rx_freed(lo);
    }
    return res;
}

static void lo_isr(struct wren_netdev *dev)
{
    struct wren_loopback *lo = lo_of(dev);
    /* receive before completing, so the next send cannot overwrite */
    if (lo->pending & PEND_RX) {
        uint16_t seq = lo->rx_seq;
        dev->event_cb(dev, WREN_NETDEV_EV_RX_COMPLETE);
        if ((lo->pending & PEND_RX) && lo->rx_seq == seq) {
            /* the stack did not read it: drop it */
            lo->pending &= (uint8_t)~PEND_RX;
            lo_rx_freed(lo);
        }
    }
    if (lo->pending & PEND_TX) {
        lo->pending &= (uint8_t)~PEND_TX;
        dev->event_cb(dev, WREN_NETDEV_EV_TX_COMPLETE);
    }
}

static int lo_get(struct wren_netdev *dev, uint16_t opt, void *val, size_t max)
{
    struct wren_loopback *lo = lo_of(dev);
    const void *src;
    size_t n;
    switch (opt) {
    case WREN_NETOPT_DEVICE_TYPE:
        src = &lo->device_type;
        n = 2;
        break;
    case WREN_NETOPT_MAX_PDU_SIZE:
        src = &lo->mtu;
        n = 2;
        break;
    case WREN_NETOPT_ADDRESS:
        src = lo->addr + 6;
        n = 2;
        break;
    case WREN_NETOPT_ADDRESS_LONG:
        src = lo->addr;
        n = 8;
        break;
    case WREN_NETOPT_NID:
        src = &lo->pan;
        n = 2;
        break;
    case WREN_NETOPT_IS_WIRED: {
        /* a wire, not a channel: no CSMA, no ACKs, no interframe space */
        static const uint8_t yes = 1;
        src = &yes;
        n = 1;
        break;
    }
    default:
        return -ENOTSUP;
    }
    return wren_netopt_put(val, max, src, n);
}

static int lo_set(struct wren_netdev *dev, uint16_t opt, const void *val, size_t len)
{
    (void)dev;
    (void)opt;
    (void)val;
    (void)len;
    return -ENOTSUP;
}

static const struct wren_netdev_driver loopback_driver = {
    .init = lo_init,
    .send = lo_send,
    .recv = lo_recv,
    .isr = lo_isr,
    .get = lo_get,
    .set = lo_set,
};

void wren_loopback_setup(struct wren_loopback *lo, uint16_t device_type, uint16_t mtu)
{
    memset(lo, 0, sizeof(*lo));
    lo->netdev.driver = &loopback_driver;
    lo->device_type = device_type;
    lo->mtu = mtu > CONFIG_WREN_LOOPBACK_MTU ? CONFIG_WREN_LOOPBACK_MTU : mtu;
    lo->pan = 0x0023;
    /* a fixed, locally administered EUI-64 whose last two bytes double as
     * the short address */
    static const uint8_t eui[8] = { 0x02, 0, 0, 0xff, 0xfe, 0, 0x00, 0x01 };
    memcpy(lo->addr, eui, 8);
}

void wren_loopback_pair(struct wren_loopback *a, struct wren_loopback *b)
{
    a->peer = b;
    b->peer = a;
    b->addr[7] = 2;
}

int wren_loopback_inject(struct wren_loopback *lo, const void *frame, size_t len)
{
    if (lo->pending & PEND_RX) {
        return -EBUSY;
    }
    if (len > lo->mtu) {
        return -EMSGSIZE;
    }
    memcpy(lo->buf, frame, len);
    lo->len = (uint16_t)len;
    lo->pending |= PEND_RX;
    lo->rx_seq++;
    lo->netdev.event_cb(&lo->netdev, WREN_NETDEV_EV_ISR);
    return 0;
}

void wren_reflector_setup(struct wren_loopback *lo)
{
    wren_loopback_setup(lo, WREN_NETDEV_TYPE_IEEE802154, 125);
    lo->reflect = true;
}
