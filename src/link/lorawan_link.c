/* The LoRaWAN link layer (lorawan_link.h): SCHC messages in LoRaWAN 1.0.x
 * data frames, the rule ID in FPort (RFC 9011 5.1). */
#include "link/lorawan_link.h"

#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "net/nettype.h"
#include "wire/lorawan.h"

/* MHDR, FHDR without FOpts, MIC: what a frame adds to FPort + FRMPayload */
#define FRAME_OVERHEAD 12

/* The default session: the same on every node, so a sensor and its router
 * talk out of the box (test keys: set real ones with the netopt). */
static const struct wren_lorawan_session default_session = { .devaddr = 0x260b0001 };

static struct wren_lorawan_netif *to_nif(struct wren_netif *netif)
{
    return (struct wren_lorawan_netif *)netif;
}

static void link_init(struct wren_netif *netif)
{
    struct wren_lorawan_netif *nif = to_nif(netif);
    struct wren_netdev *dev = netif->dev;
    nif->s = default_session;
    if (dev->driver->get(dev, WREN_NETOPT_ADDRESS_LONG, nif->eui, 8) != 8) {
        static const uint8_t base[5] = { 0x02, 0x57, 0x52, 0xff, 0xfe };
        uint32_t id = netif->node->id;
        memcpy(nif->eui, base, 5);
        nif->eui[4] ^= (uint8_t)(id >> 24);
        nif->eui[5] = (uint8_t)(id >> 16);
        nif->eui[6] = (uint8_t)(id >> 8);
        nif->eui[7] = (uint8_t)id;
    }
    uint16_t pdu = 0;
    if (dev->driver->get(dev, WREN_NETOPT_MAX_PDU_SIZE, &pdu, 2) != 2 || pdu == 0 ||
        pdu > WREN_LORAWAN_MAX_FRAME) {
        pdu = WREN_LORAWAN_MAX_FRAME;
    }
    nif->mtu = pdu > FRAME_OVERHEAD ? (uint16_t)(pdu - FRAME_OVERHEAD) : 0;
}

static int link_send(struct wren_netif *netif, struct wren_snip *pkt)
{
    struct wren_lorawan_netif *nif = to_nif(netif);
    struct wren_node *node = netif->node;
    uint8_t msg[WREN_LORAWAN_MAX_FRAME], frame[WREN_LORAWAN_MAX_FRAME];
    size_t n = wren_pkt_len(pkt->next);
    if (n == 0 || n > nif->mtu) {
        nif->stats.tx_drop_too_long++;
        netif->stats.tx_drop_bad++;
        wren_pktbuf_release(&node->pktbuf, pkt);
        return -EMSGSIZE;
    }
    wren_pkt_copy(pkt->next, msg, sizeof(msg));
    bool down = nif->s.role == WREN_LORAWAN_ROLE_NETWORK;
    struct wren_lorawan_frame f = {
        .mtype = down ? LORAWAN_UNCONF_DOWN : LORAWAN_UNCONF_UP, .devaddr = nif->s.devaddr,
        .fcnt = (uint16_t)nif->fcnt_tx, .has_port = true, .fport = msg[0],
        .payload = msg + 1, .payload_len = n - 1,
    };
    int len = wren_lorawan_seal(&f, nif->s.nwkskey, nif->s.appskey, nif->fcnt_tx, frame,
                                sizeof(frame));
    struct wren_iolist iol = { .base = frame, .len = len > 0 ? (size_t)len : 0 };
    struct wren_netdev *dev = netif->dev;
    int res = len > 0 ? dev->driver->send(dev, &iol) : -EMSGSIZE;
    if (res == -EBUSY) {
        return -EBUSY;
    }
    wren_pktbuf_release(&node->pktbuf, pkt);
    if (res < 0) {
        netif->stats.tx_drop_dev++;
        return res;
    }
    nif->fcnt_tx++;
    nif->stats.tx_frames++;
    netif->stats.tx_frames++;
    netif->stats.tx_bytes += (uint32_t)len;
    return 0;
}

/* LoRaWAN 1.0.3 4.3.1.5: the receiver keeps the 32-bit counter and takes
 * the 16 bits on the air as its low half, the next one up if they wrapped. */
static uint32_t full_fcnt(const struct wren_lorawan_netif *nif, uint16_t fcnt)
{
    uint32_t c = (nif->fcnt_rx & 0xffff0000u) | fcnt;
    return nif->rx_any && c <= nif->fcnt_rx ? c + 0x10000u : c;
}

/* The frame's reason to be dropped, or NULL to take it (decrypted in place). */
static uint32_t *check(struct wren_lorawan_netif *nif, struct wren_snip *pkt,
                       struct wren_lorawan_frame *f, uint32_t *fcnt)
{
    if (wren_lorawan_parse(pkt->data, pkt->size, f) < 0) {
        return &nif->stats.rx_drop_malformed;
    }
    if (wren_lorawan_is_down(f->mtype) != (nif->s.role == WREN_LORAWAN_ROLE_DEVICE)) {
        return &nif->stats.rx_drop_direction;
    }
    if (f->devaddr != nif->s.devaddr) {
        return &nif->stats.rx_drop_not_for_us;
    }
    if (!f->has_port || f->fport == 0) {
        return &nif->stats.rx_drop_no_port;
    }
    *fcnt = full_fcnt(nif, f->fcnt);
    if (wren_lorawan_open(f, nif->s.nwkskey, nif->s.appskey, *fcnt, pkt->data, pkt->size) == 0) {
        return NULL;
    }
    /* a counter at or below the last taken was read as the next round's:
     * if the MIC holds with it as it is, the frame is a replay */
    uint32_t same = (nif->fcnt_rx & 0xffff0000u) | f->fcnt;
    bool down = wren_lorawan_is_down(f->mtype);
    bool replay = same != *fcnt && wren_lorawan_mic(nif->s.nwkskey, down, f->devaddr, same,
                                                    pkt->data, pkt->size - LORAWAN_MIC_LEN) ==
                                       f->mic;
    return replay ? &nif->stats.rx_drop_replay : &nif->stats.rx_drop_mic;
}

static void link_recv(struct wren_netif *netif, struct wren_snip *pkt,
                      const struct wren_netdev_rx_info *info)
{
    struct wren_lorawan_netif *nif = to_nif(netif);
    struct wren_node *node = netif->node;
    struct wren_lorawan_frame f;
    uint32_t fcnt = 0;
    uint32_t *reason = check(nif, pkt, &f, &fcnt);
    if (reason) {
        goto drop;
    }
    nif->fcnt_rx = fcnt;
    nif->rx_any = true;
    size_t len = pkt->size, hdr = (size_t)(f.payload - pkt->data) - 1; /* FPort stays */
    wren_pktbuf_trim_back(&node->pktbuf, pkt, pkt->size - LORAWAN_MIC_LEN); /* ours alone */
    struct wren_snip *lh = wren_pktbuf_mark(&node->pktbuf, pkt, hdr, WREN_NETTYPE_UNDEF);
    struct wren_snip *ns = lh ? wren_pktbuf_add(&node->pktbuf, NULL, NULL,
                                                sizeof(struct wren_netif_hdr), WREN_NETTYPE_NETIF)
                              : NULL;
    if (ns == NULL) {
        reason = &nif->stats.rx_drop_nobuf;
        goto drop;
    }
    lh->next = ns;
    struct wren_netif_hdr *nh = wren_netif_hdr(ns);
    memset(nh, 0, sizeof(*nh));
    nh->if_id = netif->id;
    nh->rssi = info->rssi;
    nh->lqi = info->lqi;
    pkt->type = WREN_NETTYPE_SCHC;
    if (wren_netapi_dispatch(node, WREN_NETTYPE_SCHC, netif->id, WREN_MSG_RCV, pkt) == 0) {
        nif->stats.rx_drop_no_receiver++;
        return;
    }
    nif->stats.rx_frames++;
    netif->stats.rx_frames++;
    netif->stats.rx_bytes += (uint32_t)len;
    return;

drop:
    (*reason)++;
    wren_pktbuf_release(&node->pktbuf, pkt);
}

static int link_get(struct wren_netif *netif, uint16_t opt, void *val, size_t max)
{
    struct wren_lorawan_netif *nif = to_nif(netif);
    uint16_t v16;
    switch (opt) {
    case WREN_NETOPT_ADDRESS_LONG:
    case WREN_NETOPT_ADDRESS:
        return wren_netopt_put(val, max, nif->eui, 8);
    case WREN_NETOPT_ADDR_LEN:
        v16 = 8;
        return wren_netopt_put(val, max, &v16, 2);
    case WREN_NETOPT_DEVICE_TYPE:
        v16 = WREN_NETDEV_TYPE_LORA;
        return wren_netopt_put(val, max, &v16, 2);
    case WREN_NETOPT_MAX_PDU_SIZE:
        return wren_netopt_put(val, max, &nif->mtu, 2);
    case WREN_NETOPT_LORAWAN_SESSION:
        return wren_netopt_put(val, max, &nif->s, sizeof(nif->s));
    case WREN_NETOPT_MAC_STATS:
        return wren_netopt_put(val, max, &nif->stats, sizeof(nif->stats));
    default:
        return -ENOTSUP;
    }
}

static int link_set(struct wren_netif *netif, uint16_t opt, const void *val, size_t len)
{
    struct wren_lorawan_netif *nif = to_nif(netif);
    if (opt != WREN_NETOPT_LORAWAN_SESSION) {
        return -ENOTSUP;
    }
    struct wren_lorawan_session s;
    if (len != sizeof(s)) {
        return -EINVAL;
    }
    memcpy(&s, val, sizeof(s));
    if (s.role > WREN_LORAWAN_ROLE_NETWORK) {
        return -EINVAL;
    }
    nif->s = s;
    nif->fcnt_tx = 0;
    nif->fcnt_rx = 0;
    nif->rx_any = false;
    return 0;
}

static const struct wren_counter_set lorawan_counters =
    WREN_COUNTER_SET("lorawan", WREN_LORAWAN_COUNTERS, WREN_NETOPT_MAC_STATS, uint32_t);

const struct wren_netif_link_ops wren_lorawan_link_ops = {
    .init = link_init,
    .send = link_send,
    .recv = link_recv,
    .get = link_get,
    .set = link_set,
    .counters = WREN_IF_NAMES(&lorawan_counters),
    .type = WREN_NETDEV_TYPE_LORA,
};

int wren_lorawan_netif_add(struct wren_node *node, struct wren_lorawan_netif *nif,
                           struct wren_netdev *dev)
{
    return wren_netif_add(node, &nif->netif, dev, &wren_lorawan_link_ops);
}

static int link_add(struct wren_node *node, void *state, struct wren_netdev *dev)
{
    return wren_lorawan_netif_add(node, state, dev);
}

const struct wren_link_def wren_link_lorawan = {
    .name = "lorawan",
    .size = sizeof(struct wren_lorawan_netif),
    .type = WREN_NETDEV_TYPE_LORA,
    .add = link_add,
};
