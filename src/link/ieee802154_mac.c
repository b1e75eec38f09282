/* The 802.15.4 MAC: unslotted CSMA-CA (802.15.4-2015 6.2.5.1), the
 * interframe space (6.2.4: SIFS after frames up to aMaxSIFSFrameSize, LIFS
 * after longer ones), acknowledgements and retransmissions (6.7.4), a
 * random delay between retries, duplicate detection. The radio keeps
 * listening through backoffs and ACK waits. Times in microseconds. */
#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "link/mac_priv.h"
#include "net/netopt.h"

#define SYMBOL_US 16u
#define UNIT_BACKOFF_US (20u * SYMBOL_US)    /* aUnitBackoffPeriod */
#define CCA_US (8u * SYMBOL_US)
#define TURNAROUND_US (12u * SYMBOL_US)      /* aTurnaroundTime */
#define ACK_WAIT_US (54u * SYMBOL_US)        /* macAckWaitDuration */
#define SIFS_US (12u * SYMBOL_US)
#define LIFS_US (40u * SYMBOL_US)
#define MAX_SIFS_FRAME 18u                   /* aMaxSIFSFrameSize */

enum { MAC_IDLE = 0, MAC_BACKOFF, MAC_SENDING, MAC_WAIT_ACK, MAC_RETRY_WAIT };

static struct wren_node *node_of(struct wren_ieee802154_netif *nif)
{
    return nif->netif.node;
}

static void finish(struct wren_ieee802154_netif *nif, enum wren_netdev_event ev)
{
    struct wren_mac *m = &nif->mac;
    wren_timer_cancel(node_of(nif), &m->timer);
    wren_pktbuf_release(&node_of(nif)->pktbuf, m->pkt);
    m->pkt = NULL;
    m->phase = MAC_IDLE;
    if (ev == WREN_NETDEV_EV_TX_COMPLETE) {
        m->stats.tx_ok++;
    } else if (ev == WREN_NETDEV_EV_TX_NOACK) {
        m->stats.tx_noack++;
    } else {
        m->stats.tx_caf++;
    }
    wren_netif_tx_done(&nif->netif, ev);
}

/* Earliest moment the radio may be asked to send: the previous frame's end
 * plus the interframe space, less the radio's own lead-in. */
static uint64_t ifs_ready(const struct wren_mac *m, uint32_t lead_in)
{
    if (m->wired) {
        return 0;
    }
    uint32_t ifs = m->last_psdu <= MAX_SIFS_FRAME ? SIFS_US : LIFS_US;
    uint64_t t = m->last_tx_end + ifs;
    return t > lead_in ? t - lead_in : 0;
}

static void transmit(struct wren_ieee802154_netif *nif)
{
    struct wren_mac *m = &nif->mac;
    struct wren_netdev *dev = nif->netif.dev;
    uint8_t cca = m->csma;
    dev->driver->set(dev, WREN_NETOPT_CCA_BEFORE_TX, &cca, 1);
    struct wren_iolist iol[CONFIG_WREN_NETIF_MAX_SNIPS + 1];
    iol[0] = (struct wren_iolist){ .base = m->mhr, .len = m->mhr_len };
    unsigned n = 1;
    for (struct wren_snip *s = m->pkt->next; s && n <= CONFIG_WREN_NETIF_MAX_SNIPS; s = s->next) {
        iol[n] = (struct wren_iolist){ .base = s->data, .len = s->size };
        iol[n - 1].next = &iol[n];
        n++;
    }
    int res = dev->driver->send(dev, iol);
    if (res == -EBUSY) {
        /* the radio is busy (an ACK of ours goes out): like a busy channel */
        wren_mac_tx_event(&nif->netif, WREN_NETDEV_EV_TX_MEDIUM_BUSY);
        return;
    }
    if (res < 0) {
        nif->netif.stats.tx_drop_dev++;
        finish(nif, WREN_NETDEV_EV_TX_MEDIUM_BUSY);
        return;
    }
    m->phase = MAC_SENDING;
}

static void backoff(struct wren_ieee802154_netif *nif)
{
    struct wren_mac *m = &nif->mac;
    struct wren_node *node = node_of(nif);
    uint64_t now = wren_node_now(node);
    uint64_t at = now;
    if (m->csma) {
        /* 6.2.5.1: a random number of unit backoff periods, 0 .. 2^BE - 1 */
        at += (uint64_t)wren_node_random_below(node, 1u << m->be) * UNIT_BACKOFF_US;
    }
    uint64_t ready = ifs_ready(m, (m->csma ? CCA_US : 0) + TURNAROUND_US);
    if (at < ready) {
        at = ready;
    }
    m->phase = MAC_BACKOFF;
    if (at <= now) {
        transmit(nif);
    } else {
        wren_timer_set_abs(node, &m->timer, at);
    }
}

static void attempt(struct wren_ieee802154_netif *nif)
{
    struct wren_mac *m = &nif->mac;
    m->nb = 0;
    m->be = m->min_be;
    backoff(nif);
}

static void mac_timer(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_ieee802154_netif *nif = arg;
    struct wren_mac *m = &nif->mac;
    switch (m->phase) {
    case MAC_BACKOFF:
        transmit(nif);
        break;
    case MAC_WAIT_ACK:
        /* no ACK in macAckWaitDuration: retry, after a random delay */
        if (m->tries >= m->max_retries) {
            finish(nif, WREN_NETDEV_EV_TX_NOACK);
            break;
        }
        m->tries++;
        m->stats.tx_retries++;
        if (m->retry_delay_ms) {
            m->phase = MAC_RETRY_WAIT;
            wren_timer_set(node_of(nif), &m->timer,
                           (uint64_t)wren_node_random_below(node_of(nif),
                                                            (uint32_t)m->retry_delay_ms * 1000u + 1));
        } else {
            attempt(nif);
        }
        break;
    case MAC_RETRY_WAIT:
        attempt(nif);
        break;
    default:
        break;
    }
}

void wren_mac_init(struct wren_ieee802154_netif *nif)
{
    struct wren_mac *m = &nif->mac;
    memset(m, 0, sizeof(*m));
    m->csma = true;
    m->min_be = 3;
    m->max_be = 5;
    m->max_backoffs = 4;
    m->max_retries = 3;
    wren_timer_init(&m->timer, mac_timer, nif);
    struct wren_netdev *dev = nif->netif.dev;
    uint8_t wired = 0;
    if (dev->driver->get(dev, WREN_NETOPT_IS_WIRED, &wired, 1) == 1 && wired) {
        /* a virtual wire has no channel to share: frames go straight out */
        m->wired = true;
        m->csma = false;
        nif->ack_req = false;
    }
}

void wren_mac_send(struct wren_ieee802154_netif *nif, struct wren_snip *pkt, const uint8_t *mhr,
                   uint8_t mhr_len, uint8_t seq, bool ack_req)
{
    struct wren_mac *m = &nif->mac;
    m->pkt = pkt;
    memcpy(m->mhr, mhr, mhr_len);
    m->mhr_len = mhr_len;
    m->seq = seq;
    m->ack_req = ack_req;
    m->tries = 0;
    m->psdu_len = (uint8_t)(mhr_len + wren_pkt_len(pkt->next) + 2);
    attempt(nif);
}

void wren_mac_tx_event(struct wren_netif *netif, enum wren_netdev_event ev)
{
    struct wren_ieee802154_netif *nif = (struct wren_ieee802154_netif *)netif;
    struct wren_mac *m = &nif->mac;
    struct wren_node *node = netif->node;
    if (ev != WREN_NETDEV_EV_TX_MEDIUM_BUSY) {
        /* whatever we sent (our frame or an ACK) ended now */
        m->last_tx_end = wren_node_now(node);
        m->last_psdu = m->phase == MAC_SENDING ? m->psdu_len : 5;
    }
    if (m->phase != MAC_SENDING && !(m->phase == MAC_BACKOFF && ev == WREN_NETDEV_EV_TX_MEDIUM_BUSY &&
                                     m->pkt)) {
        return; /* the completion of an ACK we sent */
    }
    switch (ev) {
    case WREN_NETDEV_EV_TX_MEDIUM_BUSY:
        m->stats.cca_busy++;
        if (++m->nb > m->max_backoffs) {
            finish(nif, WREN_NETDEV_EV_TX_MEDIUM_BUSY);
            return;
        }
        if (m->be < m->max_be) {
            m->be++;
        }
        backoff(nif);
        return;
    case WREN_NETDEV_EV_TX_COMPLETE:
        m->stats.tx_attempts++;
        if (m->ack_req) {
            m->phase = MAC_WAIT_ACK;
            wren_timer_set(node, &m->timer, ACK_WAIT_US);
            return;
        }
        finish(nif, WREN_NETDEV_EV_TX_COMPLETE);
        return;
    default:
        finish(nif, ev);
        return;
    }
}

static void send_ack(struct wren_ieee802154_netif *nif, uint8_t seq)
{
    struct wren_netdev *dev = nif->netif.dev;
    /* 6.7.4.2: an Imm-Ack, aTurnaroundTime after the frame (the radio's
     * RX-to-TX turnaround), without CCA */
    uint8_t ack[3] = { IEEE802154_TYPE_ACK, 0, seq };
    struct wren_iolist iol = { .base = ack, .len = sizeof(ack) };
    uint8_t off = 0;
    dev->driver->set(dev, WREN_NETOPT_CCA_BEFORE_TX, &off, 1);
    if (dev->driver->send(dev, &iol) < 0) {
        nif->mac.stats.ack_tx_busy++;
        return;
    }
    nif->mac.stats.ack_tx++;
}

enum wren_mac_rx wren_mac_rx(struct wren_ieee802154_netif *nif, const struct ieee802154_frame *f,
                             bool for_us_unicast)
{
    struct wren_mac *m = &nif->mac;
    if (f->hdr.type == IEEE802154_TYPE_ACK) {
        if (m->phase == MAC_WAIT_ACK && !f->hdr.seq_suppressed && f->hdr.seq == m->seq) {
            m->stats.ack_rx++;
            finish(nif, WREN_NETDEV_EV_TX_COMPLETE);
        } else {
            m->stats.rx_ack_stray++;
        }
        return WREN_MAC_RX_CONSUMED;
    }
    if (!for_us_unicast || !f->hdr.ack_req) {
        return WREN_MAC_RX_DELIVER;
    }
    send_ack(nif, f->hdr.seq);
    /* a retransmission of what we already took (our ACK was lost) */
    uint8_t len = (uint8_t)ieee802154_addr_len(f->hdr.src_mode);
    for (unsigned i = 0; i < 4; i++) {
        if (m->seen[i].len == len && memcmp(m->seen[i].addr, f->hdr.src_addr, len) == 0) {
            if (m->seen[i].seq == f->hdr.seq) {
                m->stats.rx_dup++;
                return WREN_MAC_RX_DUP;
            }
            m->seen[i].seq = f->hdr.seq;
            return WREN_MAC_RX_DELIVER;
        }
    }
    unsigned i = m->seen_next++ % 4;
    memcpy(m->seen[i].addr, f->hdr.src_addr, len);
    m->seen[i].len = len;
    m->seen[i].seq = f->hdr.seq;
    return WREN_MAC_RX_DELIVER;
}

int wren_mac_get(struct wren_ieee802154_netif *nif, uint16_t opt, void *val, size_t max)
{
    struct wren_mac *m = &nif->mac;
    uint8_t b;
    switch (opt) {
    case WREN_NETOPT_CSMA:
        b = m->csma;
        return wren_netopt_put(val, max, &b, 1);
    case WREN_NETOPT_CSMA_MIN_BE:
        return wren_netopt_put(val, max, &m->min_be, 1);
    case WREN_NETOPT_CSMA_MAX_BE:
        return wren_netopt_put(val, max, &m->max_be, 1);
    case WREN_NETOPT_CSMA_MAX_BACKOFFS:
        return wren_netopt_put(val, max, &m->max_backoffs, 1);
    case WREN_NETOPT_MAX_RETRIES:
        return wren_netopt_put(val, max, &m->max_retries, 1);
    case WREN_NETOPT_RETRY_DELAY:
        return wren_netopt_put(val, max, &m->retry_delay_ms, 2);
    case WREN_NETOPT_MAC_STATS:
        return wren_netopt_put(val, max, &m->stats, sizeof(m->stats));
    default:
        return -ENOTSUP;
    }
}

int wren_mac_set(struct wren_ieee802154_netif *nif, uint16_t opt, const void *val, size_t len)
{
    struct wren_mac *m = &nif->mac;
    if (opt == WREN_NETOPT_RETRY_DELAY) {
        if (len != 2) {
            return -EINVAL;
        }
        memcpy(&m->retry_delay_ms, val, 2);
        return 0;
    }
    if (len != 1) {
        return opt >= WREN_NETOPT_CSMA && opt <= WREN_NETOPT_MAX_RETRIES ? -EINVAL : -ENOTSUP;
    }
    uint8_t v = *(const uint8_t *)val;
    switch (opt) {
    case WREN_NETOPT_CSMA:
        m->csma = v != 0;
        return 0;
    case WREN_NETOPT_CSMA_MIN_BE:
        if (v > m->max_be) {
            return -EINVAL;
        }
        m->min_be = v;
        return 0;
    case WREN_NETOPT_CSMA_MAX_BE:
        if (v < 3 || v > 8 || v < m->min_be) {
            return -EINVAL;
        }
        m->max_be = v;
        return 0;
    case WREN_NETOPT_CSMA_MAX_BACKOFFS:
        if (v > 5) {
            return -EINVAL;
        }
        m->max_backoffs = v;
        return 0;
    case WREN_NETOPT_MAX_RETRIES:
        if (v > 7) {
            return -EINVAL;
        }
        m->max_retries = v;
        return 0;
    default:
        return -ENOTSUP;
    }
}
