/* Low-power listening for the CSMA MAC, in the manner of X-MAC and
 * ContikiMAC (no phase learning): a node's radio sleeps, and wakes every
 * check interval to listen for a window long enough to hear the start of
 * a copy of any frame in a train; a sender repeats its frame back to back
 * (each copy after the interframe space, with CCA as the MAC is set) for
 * one check interval and a window, a unicast until its ACK comes. A
 * receiver sleeps again once it has taken a frame (acknowledged it), or
 * at the end of a window in which nothing started; a frame being received
 * when the window ends keeps the radio on. Broadcasts are checked for
 * duplicates (a node may wake twice within one train) by the MAC.
 * Off until SET WREN_NETOPT_MAC_LPL. Times in microseconds, local clock. */
#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "link/mac_priv.h"
#include "net/netopt.h"

#if CONFIG_WREN_MAC_SOFT && CONFIG_WREN_MAC_LPL

/* A window hears the start of a copy: the longest frame on the air (133
 * bytes with the SHR at 32 us each, 4.3 ms) and the gap between two copies
 * (ACK wait 0.9 ms, CCA 0.13 ms, turnaround 0.19 ms, a margin). */
#define LPL_WINDOW_US 6000u
/* a train to a neighbour whose wake is known starts this long before the
 * window in which that wake can be (clocks drift: 60 ppm apart drift 3.6 ms
 * in a minute, the time between DAOs) */
#define LPL_GUARD_US 4000u
/* a frame still arriving at the window's end: look again after this */
#define LPL_EXTEND_US 1000u

static struct wren_node *node_of(struct wren_ieee802154_netif *nif)
{
    return nif->netif.node;
}

/* Whether the radio is busy: receiving a frame (which may be for us: not
 * once we took one in this window) or sending (our ACK). */
static bool busy(struct wren_ieee802154_netif *nif)
{
    struct wren_netdev *dev = nif->netif.dev;
    uint8_t st = WREN_NETOPT_STATE_OFF;
    if (dev->driver->get(dev, WREN_NETOPT_STATE, &st, 1) != 1) {
        return false;
    }
    return st == WREN_NETOPT_STATE_TX || (st == WREN_NETOPT_STATE_RX && !nif->mac.lpl_took);
}

static void lpl_timer_cb(struct wren_timer *t, void *arg)
{
    struct wren_ieee802154_netif *nif = arg;
    struct wren_mac *m = &nif->mac;
    struct wren_node *node = node_of(nif);
    uint64_t now = wren_node_now(node);
    if (m->lpl_ms == 0) {
        return;
    }
    if (!m->lpl_listening) {
        /* wake: listen for a window */
        m->lpl_listening = true;
        m->lpl_took = false;
        wren_mac_radio_on(nif, true);
        wren_timer_set(node, t, LPL_WINDOW_US);
        return;
    }
    if (busy(nif)) {
        wren_timer_set(node, t, LPL_EXTEND_US); /* a frame on its way in, or our ACK out */
        return;
    }
    m->lpl_listening = false;
    wren_mac_lpl_idle(nif);
    uint64_t period = (uint64_t)m->lpl_ms * 1000u;
    do {
        m->lpl_wake += period;
    } while (m->lpl_wake <= now);
    wren_timer_set_abs(node, t, m->lpl_wake);
}

void wren_mac_lpl_init(struct wren_ieee802154_netif *nif)
{
    wren_timer_init(&nif->mac.lpl_timer, lpl_timer_cb, nif);
}

int wren_mac_lpl_set(struct wren_ieee802154_netif *nif, uint16_t ms)
{
    struct wren_mac *m = &nif->mac;
    struct wren_node *node = node_of(nif);
    if (m->wired || (ms && m->poll_max_ms)) {
        return -ENOTSUP; /* a wire needs none; a sleepy child polls instead */
    }
    if (ms && ms * 1000u < 4u * LPL_WINDOW_US) {
        return -EINVAL;
    }
#if CONFIG_WREN_NODE_MEM
    if (ms && m->phases == NULL) { /* the wakes' table: made when LPL first goes on */
        m->phases = wren_node_mem(node, nif->netif.module.ops,
                                  CONFIG_WREN_MAC_LPL_PHASES * sizeof(*m->phases));
        if (m->phases == NULL) {
            m->stats.no_mem++;
            return -ENOMEM;
        }
    }
#endif
    m->lpl_ms = ms;
    m->lpl_listening = false;
    wren_timer_cancel(node, &m->lpl_timer);
    if (ms == 0) {
        wren_mac_radio_on(nif, true);
        return 0;
    }
    /* a phase of its own: wakes of neighbours do not line up */
    m->lpl_wake = wren_node_now(node) + wren_node_random_below(node, ms * 1000u);
    wren_timer_set_abs(node, &m->lpl_timer, m->lpl_wake);
    wren_mac_lpl_idle(nif);
    return 0;
}

/* the phase entry of the frame in progress's receiver, or NULL */
static int phase_of(struct wren_mac *m)
{
    if (m->pkt == NULL || !m->ack_req) {
        return -1;
    }
    const struct wren_netif_hdr *h = wren_netif_hdr(m->pkt);
    for (int i = 0; i < CONFIG_WREN_MAC_LPL_PHASES; i++) {
        if (m->phases[i].len && m->phases[i].len == h->dst_len &&
            memcmp(m->phases[i].addr, h->dst, h->dst_len) == 0) {
            return i;
        }
    }
    return -1;
}

uint32_t wren_mac_lpl_try(struct wren_ieee802154_netif *nif)
{
    struct wren_mac *m = &nif->mac;
    m->strobe_end = 0; /* the train starts with its first copy */
    if (m->lpl_ms == 0 || m->lpl_waited) {
        m->lpl_waited = false;
        return 0;
    }
    int i = phase_of(m);
    if (i < 0) {
        return 0;
    }
    /* it woke at most a window before that copy started, and wakes every
     * interval since: start a window and a guard before its next wake */
    uint64_t now = wren_node_now(node_of(nif)), period = (uint64_t)m->lpl_ms * 1000u;
    uint64_t lead = LPL_WINDOW_US + LPL_GUARD_US;
    uint64_t at = m->phases[i].at + period - lead;
    if (at < now) {
        at += (now - at + period - 1) / period * period;
    }
    m->lpl_waited = true;
    return at > now ? (uint32_t)(at - now) : 0;
}

void wren_mac_lpl_acked(struct wren_ieee802154_netif *nif)
{
    struct wren_mac *m = &nif->mac;
    if (m->lpl_ms == 0 || m->pkt == NULL) {
        return;
    }
    int i = phase_of(m);
    if (i < 0) {
        i = m->phase_next++ % CONFIG_WREN_MAC_LPL_PHASES;
        const struct wren_netif_hdr *h = wren_netif_hdr(m->pkt);
        memcpy(m->phases[i].addr, h->dst, h->dst_len);
        m->phases[i].len = h->dst_len;
    }
    m->phases[i].at = m->copy_start;
}

bool wren_mac_lpl_again(struct wren_ieee802154_netif *nif)
{
    struct wren_mac *m = &nif->mac;
    if (m->lpl_ms == 0) {
        return false;
    }
    uint64_t now = wren_node_now(node_of(nif));
    if (m->strobe_end == 0) {
        /* the first copy just went: the train lasts a check interval and a
         * window from its start (its airtime is in the margin) */
        m->strobe_end = now + (uint64_t)m->lpl_ms * 1000u + LPL_WINDOW_US;
    }
    if (now < m->strobe_end) {
        return true;
    }
    int i = phase_of(m);
    if (i >= 0) {
        m->phases[i].len = 0; /* a whole train unheard: its wake is not where we thought */
    }
    return false;
}

uint32_t wren_mac_lpl_busy_us(struct wren_ieee802154_netif *nif)
{
    /* a neighbour's train holds the channel up to a check interval */
    struct wren_mac *m = &nif->mac;
    return m->lpl_ms ? wren_node_random_below(node_of(nif), m->lpl_ms * 1000u) : 0;
}

void wren_mac_lpl_idle(struct wren_ieee802154_netif *nif)
{
    struct wren_mac *m = &nif->mac;
    /* asleep also while the MAC waits (a backoff, a retry delay, a
     * neighbour's wake): transmit() wakes the radio for CCA and the copy */
    if (m->lpl_ms && !m->lpl_listening &&
        (m->phase == WREN_MAC_IDLE || m->phase == WREN_MAC_BACKOFF ||
         m->phase == WREN_MAC_RETRY_WAIT)) {
        wren_mac_radio_on(nif, false);
    }
}

void wren_mac_lpl_got(struct wren_ieee802154_netif *nif)
{
    struct wren_mac *m = &nif->mac;
    if (m->lpl_ms && m->lpl_listening) {
        /* taken: the window closes once our ACK (if any) is out, whatever
         * else starts (the train's next copy) */
        m->lpl_took = true;
        wren_timer_set(node_of(nif), &m->lpl_timer, LPL_EXTEND_US);
    }
}

#endif
