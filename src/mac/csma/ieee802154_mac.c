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

#if CONFIG_WREN_MAC_SOFT /* else the radio does all of this: nothing here */

#define SYMBOL_US 16u
#define UNIT_BACKOFF_US (20u * SYMBOL_US)    /* aUnitBackoffPeriod */
#define CCA_US (8u * SYMBOL_US)
#define TURNAROUND_US (12u * SYMBOL_US)      /* aTurnaroundTime */
#define ACK_WAIT_US (54u * SYMBOL_US)        /* macAckWaitDuration */
#define SIFS_US (12u * SYMBOL_US)
#define LIFS_US (40u * SYMBOL_US)
#define MAX_SIFS_FRAME 18u                   /* aMaxSIFSFrameSize */

#define MAC_IDLE WREN_MAC_IDLE
#define MAC_BACKOFF WREN_MAC_BACKOFF
#define MAC_SENDING WREN_MAC_SENDING
#define MAC_WAIT_ACK WREN_MAC_WAIT_ACK
#define MAC_RETRY_WAIT WREN_MAC_RETRY_WAIT
#define MAC_FAILED WREN_MAC_FAILED
enum { JOB_NETIF = 0, JOB_INDIRECT, JOB_POLL };

#define POLL_LISTEN_US 100000u  /* how long a sleepy node waits for a pending frame */

static void start_job(struct wren_ieee802154_netif *nif, uint8_t job, struct wren_snip *pkt,
                      const uint8_t *dst, uint8_t dst_len, bool ack_req, bool fp);
static void after_job(struct wren_ieee802154_netif *nif, uint8_t job);
static void poll_timer_cb(struct wren_timer *t, void *arg);
static void child_expire(struct wren_timer *t, void *arg);

static struct wren_node *node_of(struct wren_ieee802154_netif *nif)
{
    return nif->netif.node;
}

void wren_mac_radio_on(struct wren_ieee802154_netif *nif, bool on)
{
    struct wren_mac *m = &nif->mac;
    if (m->radio_off == !on) {
        return;
    }
    struct wren_netdev *dev = nif->netif.dev;
    uint8_t st = on ? WREN_NETOPT_STATE_IDLE : WREN_NETOPT_STATE_OFF;
    if (dev->driver->set(dev, WREN_NETOPT_STATE, &st, 1) == 0) {
        m->radio_off = !on;
    }
}

static void finish(struct wren_ieee802154_netif *nif, enum wren_netdev_event ev)
{
    struct wren_mac *m = &nif->mac;
    uint8_t job = m->job;
    wren_timer_cancel(node_of(nif), &m->timer);
    if (m->ack_req && m->pkt && ev != WREN_NETDEV_EV_TX_MEDIUM_BUSY) {
        /* the link estimator learns from every acknowledged unicast */
        const struct wren_netif_hdr *h = wren_netif_hdr(m->pkt);
        wren_link_est_tx(&m->est, h->dst, h->dst_len, (uint8_t)(m->tries + 1),
                         ev == WREN_NETDEV_EV_TX_COMPLETE);
    }
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
    if (job == JOB_NETIF) {
        wren_netif_tx_done(&nif->netif, ev);
    } else if (job == JOB_POLL) {
        /* the parent's ACK says whether a frame waits for us */
        m->polling = ev == WREN_NETDEV_EV_TX_COMPLETE && m->ack_fp;
        if (m->polling) {
            wren_timer_set(node_of(nif), &m->poll_timer, POLL_LISTEN_US);
        } else if (m->poll_ms < m->poll_max_ms) {
            /* adaptive polling: nothing came, wait twice as long */
            m->poll_ms = m->poll_ms * 2 > m->poll_max_ms ? m->poll_max_ms : m->poll_ms * 2;
        }
    }
    after_job(nif, job);
}

/* Earliest moment the radio may be asked to send: the end of the previous
 * frame (or of the ACK that acknowledged it) plus the interframe space that
 * frame's length calls for, less the radio's own lead-in. */
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
    wren_mac_radio_on(nif, true);
    struct wren_iolist iol[CONFIG_WREN_NETIF_MAX_SNIPS + 1];
    iol[0] = (struct wren_iolist){ .base = m->mhr, .len = m->mhr_len };
    unsigned n = 1;
    for (struct wren_snip *s = m->pkt ? m->pkt->next : NULL; s && n <= CONFIG_WREN_NETIF_MAX_SNIPS;
         s = s->next) {
        iol[n] = (struct wren_iolist){ .base = s->data, .len = s->size };
        iol[n - 1].next = &iol[n];
        n++;
    }
    /* a secured frame is all in its payload snip (no MHR here) */
    int res = dev->driver->send(dev, !CONFIG_WREN_IEEE802154_SEC || m->mhr_len || n == 1 ? iol
                                                                                : &iol[1]);
    if (res == -EBUSY) {
        /* the radio is still busy with an ACK of ours: not the channel's
         * fault, try again one backoff period later */
        m->phase = MAC_BACKOFF;
        wren_timer_set(node_of(nif), &m->timer, UNIT_BACKOFF_US);
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
#if CONFIG_WREN_MAC_LPL
    uint32_t wait = wren_mac_lpl_try(nif);
    if (wait) {
        /* the receiver's wake is known: start the train just before it */
        m->phase = MAC_RETRY_WAIT;
        wren_timer_set(node_of(nif), &m->timer, wait);
        wren_mac_lpl_idle(nif);
        return;
    }
#endif
    backoff(nif);
}

#if CONFIG_WREN_MAC_LPL
/* The next copy of a low-power-listening train, after the interframe space. */
static void copy_again(struct wren_ieee802154_netif *nif)
{
    struct wren_mac *m = &nif->mac;
    struct wren_node *node = node_of(nif);
    uint64_t at = ifs_ready(m, (m->csma ? CCA_US : 0) + TURNAROUND_US);
    m->phase = MAC_BACKOFF;
    if (at <= wren_node_now(node)) {
        transmit(nif);
    } else {
        wren_timer_set_abs(node, &m->timer, at);
    }
}
#endif

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
#if CONFIG_WREN_MAC_LPL
        if (wren_mac_lpl_again(nif)) {
            copy_again(nif); /* the receiver may still be asleep: the train goes on */
            break;
        }
#endif
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
    case MAC_FAILED:
        if (CONFIG_WREN_IEEE802154_SEC) {
            finish(nif, WREN_NETDEV_EV_TX_MEDIUM_BUSY);
        }
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
    wren_timer_init(&m->poll_timer, poll_timer_cb, nif);
    wren_timer_init(&m->child_timer, child_expire, nif);
#if CONFIG_WREN_MAC_LPL
    wren_mac_lpl_init(nif);
#endif
    struct wren_netdev *dev = nif->netif.dev;
    uint8_t wired = 0;
    if (dev->driver->get(dev, WREN_NETOPT_IS_WIRED, &wired, 1) == 1 && wired) {
        /* a virtual wire has no channel to share: frames go straight out */
        m->wired = true;
        m->csma = false;
        nif->ack_req = false;
    }
    /* a link slower than the air (ZEP over UDP) delivers ACKs later */
    uint32_t delay;
    if (dev->driver->get(dev, WREN_NETOPT_LINK_DELAY, &delay, sizeof(delay)) == sizeof(delay)) {
        m->link_delay_us = delay;
    }
}

static void start_job(struct wren_ieee802154_netif *nif, uint8_t job, struct wren_snip *pkt,
                      const uint8_t *dst, uint8_t dst_len, bool ack_req, bool fp)
{
    struct wren_mac *m = &nif->mac;
    uint8_t seq = nif->seq++;
    int n = wren_link_mhr(nif, job == JOB_POLL ? IEEE802154_TYPE_CMD : IEEE802154_TYPE_DATA, dst,
                          dst_len, ack_req, fp, seq, m->mhr, pkt);
    if (n < 0 && !CONFIG_WREN_IEEE802154_SEC) {
        wren_pktbuf_release(&node_of(nif)->pktbuf, pkt);
        return;
    }
    if (n < 0) {
        /* securing it failed (no key, counted): it ends like a frame the
         * radio refused, but from the timer, after the interface has
         * taken note that the MAC took it */
        m->job = job;
        m->pkt = pkt;
        m->ack_req = false;
        m->phase = MAC_FAILED;
        nif->netif.stats.tx_drop_dev++;
        wren_timer_set(node_of(nif), &m->timer, 0);
        return;
    }
    if (job == JOB_POLL) {
        m->mhr[n++] = IEEE802154_CMD_DATA_REQ;
        m->stats.polls++;
    }
    m->job = job;
    m->pkt = pkt;
    m->mhr_len = (uint8_t)n;
    m->seq = seq;
    m->ack_req = ack_req && dst_len;
    m->ack_fp = false;
    m->tries = 0;
    m->psdu_len = (uint8_t)(n + (pkt ? wren_pkt_len(pkt->next) : 0) + 2);
    attempt(nif);
}

/* entries of the children's table: none before the first poll made it
 * (CONFIG_WREN_NODE_MEM; built in otherwise) */
static unsigned n_children(const struct wren_mac *m)
{
#if CONFIG_WREN_NODE_MEM
    return m->children ? CONFIG_WREN_MAC_CHILDREN : 0;
#else
    (void)m;
    return CONFIG_WREN_MAC_CHILDREN;
#endif
}

static struct wren_mac_child *child_of(struct wren_mac *m, const uint8_t *addr, uint8_t len)
{
    for (unsigned i = 0; i < n_children(m); i++) {
        struct wren_mac_child *c = &m->children[i];
        if (c->len == len && len && memcmp(c->addr, addr, len) == 0) {
            return c;
        }
    }
    return NULL;
}

static void child_drop_all(struct wren_ieee802154_netif *nif, struct wren_mac_child *c)
{
    while (c->head) {
        struct wren_snip *p = c->head;
        c->head = wren_netif_hdr(p)->q_next;
        nif->mac.stats.indirect_drop++;
        wren_pktbuf_release(&node_of(nif)->pktbuf, p);
    }
    c->tail = NULL;
    c->queued = 0;
}

/* Children silent for CONFIG_WREN_MAC_INDIRECT_TIMEOUT_S lose their frames
 * (a dead child never holds more than its quota, and not for ever). */
static void child_expire(struct wren_timer *t, void *arg)
{
    struct wren_ieee802154_netif *nif = arg;
    struct wren_mac *m = &nif->mac;
    uint32_t now_s = wren_node_now_s(node_of(nif));
    bool held = false;
    for (unsigned i = 0; i < CONFIG_WREN_MAC_CHILDREN; i++) {
        struct wren_mac_child *c = &m->children[i];
        if (c->len && now_s - c->last_poll_s > CONFIG_WREN_MAC_INDIRECT_TIMEOUT_S) {
            child_drop_all(nif, c);
            c->len = 0;
        }
        held |= c->queued != 0;
    }
    if (held) {
        wren_timer_set(node_of(nif), t, (uint64_t)CONFIG_WREN_MAC_INDIRECT_TIMEOUT_S * 500000u);
    }
}

/* Send the next frame held for the child that polled, if the MAC is free. */
static void serve_child(struct wren_ieee802154_netif *nif)
{
    struct wren_mac *m = &nif->mac;
    if (m->phase != MAC_IDLE || m->serve == 0) {
        return;
    }
    struct wren_mac_child *c = &m->children[m->serve - 1];
    m->serve = 0;
    struct wren_snip *p = c->head;
    if (p == NULL) {
        return;
    }
    c->head = wren_netif_hdr(p)->q_next;
    if (c->head == NULL) {
        c->tail = NULL;
    }
    c->queued--;
    m->stats.indirect_sent++;
    /* the frame pending bit tells the child to poll again */
    start_job(nif, JOB_INDIRECT, p, c->addr, c->len, true, c->queued != 0);
}

static void after_job(struct wren_ieee802154_netif *nif, uint8_t job)
{
    struct wren_mac *m = &nif->mac;
    serve_child(nif);
    if (m->phase == MAC_IDLE && job != JOB_NETIF && m->netif_waiting) {
        m->netif_waiting = false;
        wren_netif_tx_resume(&nif->netif);
    }
    if (m->phase == MAC_IDLE && m->poll_max_ms && !m->polling) {
        wren_mac_radio_on(nif, false); /* sleepy: off until the next poll or frame */
    }
#if CONFIG_WREN_MAC_LPL
    wren_mac_lpl_idle(nif);
#endif
}

static void poll_parent(struct wren_ieee802154_netif *nif)
{
    struct wren_mac *m = &nif->mac;
    if (m->phase != MAC_IDLE) {
        return; /* busy sending: the next tick polls */
    }
    start_job(nif, JOB_POLL, NULL, m->parent, m->parent_len, true, false);
}

static void poll_timer_cb(struct wren_timer *t, void *arg)
{
    struct wren_ieee802154_netif *nif = arg;
    struct wren_mac *m = &nif->mac;
    if (m->poll_max_ms == 0) {
        return;
    }
    if (m->polling) {
        /* the announced frame did not come */
        m->polling = false;
        after_job(nif, JOB_POLL);
    } else {
        poll_parent(nif);
    }
    if (!m->polling) {
        wren_timer_set(node_of(nif), t, (uint64_t)m->poll_ms * 1000u);
    }
}

int wren_mac_submit(struct wren_ieee802154_netif *nif, struct wren_snip *pkt)
{
    struct wren_mac *m = &nif->mac;
    const struct wren_netif_hdr *nh = wren_netif_hdr(pkt);
    bool bcast = (nh->flags & WREN_NETIF_HDR_BROADCAST) || nh->dst_len == 0;
    struct wren_mac_child *c = bcast ? NULL : child_of(m, nh->dst, nh->dst_len);
    if (c) {
        /* indirect transmission (802.15.4-2015 6.7.3): held until it polls */
        uint32_t now_s = wren_node_now_s(node_of(nif));
        if (now_s - c->last_poll_s > CONFIG_WREN_MAC_INDIRECT_TIMEOUT_S) {
            child_drop_all(nif, c);
            c->len = 0; /* silent too long: no longer a child */
        } else if (c->queued >= CONFIG_WREN_MAC_CHILD_QUOTA) {
            m->stats.indirect_drop++;
            wren_pktbuf_release(&node_of(nif)->pktbuf, pkt);
            return 1;
        } else {
            struct wren_snip *head = pkt;
            if (wren_pktbuf_write_path(&node_of(nif)->pktbuf, &pkt, &head) < 0) {
                m->stats.indirect_drop++;
                wren_pktbuf_release(&node_of(nif)->pktbuf, pkt);
                return 1;
            }
            wren_netif_hdr(pkt)->q_next = NULL;
            if (c->tail) {
                wren_netif_hdr(c->tail)->q_next = pkt;
            } else {
                c->head = pkt;
            }
            c->tail = pkt;
            c->queued++;
            m->stats.indirect_queued++;
            if (!wren_timer_armed(&m->child_timer)) {
                wren_timer_set(node_of(nif), &m->child_timer,
                               (uint64_t)CONFIG_WREN_MAC_INDIRECT_TIMEOUT_S * 500000u);
            }
            return 1;
        }
    }
    if (m->phase != MAC_IDLE) {
        m->netif_waiting = true;
        return -EBUSY;
    }
    uint8_t dst[8];
    uint8_t dst_len = bcast ? 0 : nh->dst_len;
    memcpy(dst, nh->dst, dst_len);
    start_job(nif, JOB_NETIF, pkt, dst, dst_len,
              nif->ack_req && !(nh->flags & WREN_NETIF_HDR_NO_ACK), false);
    return 0;
}

/* A sleepy child asked for its frames: remember it, and serve it. */
static bool on_data_request(struct wren_ieee802154_netif *nif, const struct ieee802154_frame *f)
{
    struct wren_mac *m = &nif->mac;
    uint8_t len = (uint8_t)wren_ieee802154_addr_len(f->hdr.src_mode);
    struct wren_mac_child *c = child_of(m, f->hdr.src_addr, len);
    m->stats.polls_rx++;
#if CONFIG_WREN_NODE_MEM
    if (m->children == NULL) { /* the table: made by the first child's poll */
        m->children = wren_node_mem(node_of(nif), nif->netif.module.ops,
                                    CONFIG_WREN_MAC_CHILDREN * sizeof(*m->children));
        if (m->children == NULL) {
            m->stats.no_mem++;
            return false;
        }
    }
#endif
    if (c == NULL) {
        for (unsigned i = 0; c == NULL && i < CONFIG_WREN_MAC_CHILDREN; i++) {
            c = m->children[i].len == 0 ? &m->children[i] : NULL;
        }
        if (c == NULL) {
            /* full: take over the longest-silent child without frames */
            for (unsigned i = 0; i < CONFIG_WREN_MAC_CHILDREN; i++) {
                struct wren_mac_child *o = &m->children[i];
                if (o->queued == 0 && (c == NULL || o->last_poll_s < c->last_poll_s)) {
                    c = o;
                }
            }
        }
        if (c == NULL) {
            return false;
        }
        memset(c, 0, sizeof(*c));
        memcpy(c->addr, f->hdr.src_addr, len);
        c->len = len;
    }
    c->last_poll_s = wren_node_now_s(node_of(nif));
    if (c->queued) {
        m->serve = (uint8_t)(c - m->children + 1);
        serve_child(nif);
        return true;
    }
    return false;
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
    if (m->phase != MAC_SENDING) {
        /* the completion of an ACK we sent */
        if (m->phase == MAC_IDLE && m->poll_max_ms && !m->polling) {
            wren_mac_radio_on(nif, false);
        }
#if CONFIG_WREN_MAC_LPL
        wren_mac_lpl_idle(nif);
#endif
        return;
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
#if CONFIG_WREN_MAC_LPL
        uint32_t wait = wren_mac_lpl_busy_us(nif);
        if (wait) {
            m->phase = MAC_BACKOFF;
            wren_timer_set(node, &m->timer, wait);
            wren_mac_lpl_idle(nif); /* asleep until then */
            return;
        }
#endif
        backoff(nif);
        return;
    case WREN_NETDEV_EV_TX_COMPLETE:
        m->stats.tx_attempts++;
#if CONFIG_WREN_MAC_LPL
        /* it ends now; on the air for SHR, PHR and PSDU at 32 us a byte */
        m->copy_start = m->last_tx_end - ((uint64_t)m->psdu_len + 6u) * 32u;
#endif
        if (m->ack_req) {
            m->phase = MAC_WAIT_ACK;
            wren_timer_set(node, &m->timer, ACK_WAIT_US + (uint64_t)m->link_delay_us);
            return;
        }
#if CONFIG_WREN_MAC_LPL
        if (wren_mac_lpl_again(nif)) {
            copy_again(nif); /* a broadcast train lasts a whole check interval */
            return;
        }
#endif
        finish(nif, WREN_NETDEV_EV_TX_COMPLETE);
        return;
    default:
        finish(nif, ev);
        return;
    }
}

static void send_ack(struct wren_ieee802154_netif *nif, uint8_t seq, bool fp)
{
    struct wren_netdev *dev = nif->netif.dev;
    /* 6.7.4.2: an Imm-Ack, aTurnaroundTime after the frame (the radio's
     * RX-to-TX turnaround), without CCA; frame pending set when a sleepy
     * child's data request finds frames waiting */
    uint8_t ack[3] = { (uint8_t)(IEEE802154_TYPE_ACK | (fp ? 0x10 : 0)), 0, seq };
    struct wren_iolist iol = { .base = ack, .len = sizeof(ack) };
    uint8_t off = 0;
    dev->driver->set(dev, WREN_NETOPT_CCA_BEFORE_TX, &off, 1);
    if (dev->driver->send(dev, &iol) < 0) {
        nif->mac.stats.ack_tx_busy++;
        return;
    }
    nif->mac.stats.ack_tx++;
}

/* A frame for us arrived while a sleepy node listened after a poll. */
static void polled_frame(struct wren_ieee802154_netif *nif, const struct ieee802154_frame *f)
{
    struct wren_mac *m = &nif->mac;
    wren_timer_cancel(node_of(nif), &m->poll_timer);
    m->polling = false;
    if (m->poll_ms > m->poll_min_ms) {
        m->poll_ms = m->poll_ms / 2 < m->poll_min_ms ? m->poll_min_ms : m->poll_ms / 2;
    }
    wren_timer_set(node_of(nif), &m->poll_timer, (uint64_t)m->poll_ms * 1000u);
    if (f->hdr.frame_pending) {
        /* more waits at the parent: ask again (after our ACK is out) */
        poll_parent(nif);
    }
}

/* Whether (source, sequence number) of @p f is the last one seen from that
 * source (link/link_dup.h) */
static bool seen_before(struct wren_mac *m, const struct ieee802154_frame *f)
{
    return wren_link_dup_seen(&m->seen, f->hdr.src_addr,
                              (uint8_t)wren_ieee802154_addr_len(f->hdr.src_mode), f->hdr.seq);
}

/* An Imm-Ack: the end of our acknowledged transmission, if it answers it. */
static void ack_rx(struct wren_ieee802154_netif *nif, const struct ieee802154_frame *f)
{
    struct wren_mac *m = &nif->mac;
    if (f->payload_len) {
        /* 7.3.3: an Imm-Ack is MHR and FCS only; this is no ACK of ours */
        m->stats.rx_ack_payload++;
    } else if (m->phase == MAC_WAIT_ACK && !f->hdr.seq_suppressed && f->hdr.seq == m->seq) {
        /* 6.2.4, figure 6-4: after an acknowledged frame the IFS runs
         * from the end of its ACK (which ends now), its length still
         * that of our frame's */
        m->last_tx_end = wren_node_now(node_of(nif));
        m->last_psdu = m->psdu_len;
        m->stats.ack_rx++;
#if CONFIG_WREN_MAC_LPL
        wren_mac_lpl_acked(nif);
#endif
        m->ack_fp = f->hdr.frame_pending;
        finish(nif, WREN_NETDEV_EV_TX_COMPLETE);
    } else {
        m->stats.rx_ack_stray++;
    }
}

/* A MAC command: a data request from a sleepy child is ours. */
static enum wren_mac_rx cmd_rx(struct wren_ieee802154_netif *nif,
                               const struct ieee802154_frame *f, bool for_us_unicast)
{
    struct wren_mac *m = &nif->mac;
    if (f->cmd_id != IEEE802154_CMD_DATA_REQ || !for_us_unicast) {
        return WREN_MAC_RX_DELIVER; /* not ours to handle */
    }
    /* the ACK must know whether frames wait: decide before sending it */
    uint8_t len = (uint8_t)wren_ieee802154_addr_len(f->hdr.src_mode);
    struct wren_mac_child *c = child_of(m, f->hdr.src_addr, len);
    if (f->hdr.ack_req) {
        send_ack(nif, f->hdr.seq, c && c->queued);
    }
    on_data_request(nif, f);
    return WREN_MAC_RX_CONSUMED;
}

/* A data frame that asks no ACK of us (a broadcast, or not for us). */
static enum wren_mac_rx unacked_rx(struct wren_ieee802154_netif *nif,
                                   const struct ieee802154_frame *f, bool for_us_unicast)
{
    struct wren_mac *m = &nif->mac;
    if (m->polling && for_us_unicast) {
        polled_frame(nif, f);
    }
#if CONFIG_WREN_MAC_LPL
    if (m->lpl_ms) {
        wren_mac_lpl_got(nif);
        if (!f->hdr.seq_suppressed && seen_before(m, f)) {
            m->stats.rx_dup++; /* a second copy of a train */
            return WREN_MAC_RX_DUP;
        }
    }
#endif
    if (m->phase == MAC_IDLE && m->poll_max_ms && !m->polling) {
        wren_mac_radio_on(nif, false);
    }
    return WREN_MAC_RX_DELIVER;
}

enum wren_mac_rx wren_mac_rx(struct wren_ieee802154_netif *nif, const struct ieee802154_frame *f,
                             bool for_us_unicast)
{
    struct wren_mac *m = &nif->mac;
    if (f->hdr.type == IEEE802154_TYPE_ACK) {
        ack_rx(nif, f);
        return WREN_MAC_RX_CONSUMED;
    }
    if (f->hdr.type == IEEE802154_TYPE_CMD) {
        return cmd_rx(nif, f, for_us_unicast);
    }
    if (!for_us_unicast || !f->hdr.ack_req) {
        return unacked_rx(nif, f, for_us_unicast);
    }
    /* (a sleepy node sleeps again once this ACK is out: see tx_event) */
    send_ack(nif, f->hdr.seq, false);
    if (m->polling) {
        polled_frame(nif, f);
    }
#if CONFIG_WREN_MAC_LPL
    wren_mac_lpl_got(nif);
#endif
    /* a retransmission of what we already took (our ACK was lost) */
    if (seen_before(m, f)) {
        m->stats.rx_dup++;
        return WREN_MAC_RX_DUP;
    }
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
    case WREN_NETOPT_LINK_ETX: {
        struct wren_link_etx q;
        if (max < sizeof(q)) {
            return -EOVERFLOW;
        }
        memcpy(&q, val, sizeof(q));
        int res = wren_link_est_get(&m->est, &q);
        if (res == 0) {
            memcpy(val, &q, sizeof(q));
        }
        return res < 0 ? res : (int)sizeof(q);
    }
    case WREN_NETOPT_MAC_PARENT:
        return wren_netopt_put(val, max, m->parent, m->parent_len);
    case WREN_NETOPT_MAC_POLL: {
        uint32_t v[2] = { m->poll_min_ms, m->poll_max_ms };
        return wren_netopt_put(val, max, v, sizeof(v));
    }
#if CONFIG_WREN_MAC_LPL
    case WREN_NETOPT_MAC_LPL:
        return wren_netopt_put(val, max, &m->lpl_ms, 2);
#endif
    default:
        return -ENOTSUP;
    }
}

/* A sleepy node's polling of its parent: min and max interval (ms), max 0
 * for none; the radio sleeps between polls. */
static int poll_set(struct wren_ieee802154_netif *nif, const void *val, size_t len)
{
    struct wren_mac *m = &nif->mac;
    uint32_t v[2];
    if (len != sizeof(v) || (memcpy(v, val, sizeof(v)), v[0] > v[1]) ||
        (v[1] && (v[0] == 0 || m->parent_len == 0))) {
        return -EINVAL;
    }
    m->poll_min_ms = v[0];
    m->poll_max_ms = v[1];
    m->poll_ms = v[0];
    m->polling = false;
    if (v[1]) {
        /* a sleepy node: the radio sleeps between polls */
        if (m->phase == MAC_IDLE) {
            wren_mac_radio_on(nif, false);
        }
        wren_timer_set(node_of(nif), &m->poll_timer, (uint64_t)m->poll_ms * 1000u);
    } else {
        wren_timer_cancel(node_of(nif), &m->poll_timer);
        wren_mac_radio_on(nif, true);
    }
    return 0;
}

/* The one-byte CSMA-CA and retry parameters, in the MAC PIB's ranges
 * (macMinBE 0..macMaxBE, macMaxBE 3..8, macMaxCSMABackoffs 0..5,
 * macMaxFrameRetries 0..7). */
static int csma_set(struct wren_mac *m, uint16_t opt, uint8_t v)
{
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

int wren_mac_set(struct wren_ieee802154_netif *nif, uint16_t opt, const void *val, size_t len)
{
    struct wren_mac *m = &nif->mac;
    if (opt == WREN_NETOPT_MAC_PARENT) {
        if (len != 2 && len != 8) {
            return -EINVAL;
        }
        memcpy(m->parent, val, len);
        m->parent_len = (uint8_t)len;
        return 0;
    }
    if (opt == WREN_NETOPT_MAC_POLL) {
        return poll_set(nif, val, len);
    }
#if CONFIG_WREN_MAC_LPL
    if (opt == WREN_NETOPT_MAC_LPL) {
        uint16_t ms;
        if (len != 2) {
            return -EINVAL;
        }
        memcpy(&ms, val, 2);
        return wren_mac_lpl_set(nif, ms);
    }
#endif
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
    return csma_set(m, opt, *(const uint8_t *)val);
}

#endif /* CONFIG_WREN_MAC_SOFT */
