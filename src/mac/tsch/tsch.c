/* The TSCH MAC (IEEE 802.15.4-2015 6.2.6) of an 802.15.4 interface: its
 * configuration, the per-neighbour queues and TSCH CSMA-CA on shared cells
 * (6.2.5.3), which queue a cell serves, retransmissions and the frames it
 * sends (data, keep-alives, 6P in the 6top IE, enhanced beacons). The
 * frames it receives (joining, synchronisation, Enh-ACKs) are in
 * tsch_rx.c, the schedule and the WREN_NETOPT_TSCH_* options in
 * tsch_sched.c, the slot engine in tsch_slot.c. */
#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/node.h"
#include "mac/tsch/tsch_priv.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "net/nettype.h"
#include "wire/ieee802154_ie.h"

#if CONFIG_WREN_TSCH

#define TSCH_EB_BURST 32 /* EBs at one period before it doubles */

/* The 16-channel hopping sequence of sequence id 0 in the 2.4 GHz band, as
 * 6TiSCH implementations (OpenWSN, Contiki-NG) use it. */
static const uint8_t default_hop[16] = { 16, 17, 23, 18, 26, 15, 25, 22,
                                         19, 11, 12, 13, 24, 14, 20, 21 };

void wren_tsch_hop_default(struct wren_tsch_config *cfg)
{
    cfg->hop_len = sizeof(default_hop);
    memcpy(cfg->hop, default_hop, sizeof(default_hop));
}

void wren_tsch_config_default(struct wren_tsch_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    /* 802.15.4-2015 Table 8-99, the default timeslot template */
    cfg->slot_us = 10000;
    cfg->tx_offset_us = 2120;
    cfg->rx_wait_us = 2200;
    cfg->ack_delay_us = 1000;
    cfg->ack_wait_us = 400;
    cfg->sf_len = 101;
    cfg->eb_period_ms = 16000;
    cfg->eb_min_ms = 1000;
    cfg->ka_ms = 5000;
    cfg->desync_ms = 20000;
    cfg->scan_ms = 1000;
    cfg->eb_sf_len = 397;
    cfg->max_retries = 7;
    cfg->min_be = 1;
    cfg->max_be = 5;
    wren_tsch_hop_default(cfg);
}

/* the timeslot template: the slot must hold the longest frame (macTsMaxTx
 * 4256) and its ACK (macTsMaxAck 2400), as the default template does, and
 * each wait must fit before its offset */
static bool timeslot_ok(const struct wren_tsch_config *c)
{
    uint32_t need = (uint32_t)c->tx_offset_us + 4256u + c->ack_delay_us + 2400u;
    return c->slot_us >= need && c->slot_us <= 1000000u &&
           c->tx_offset_us >= c->rx_wait_us / 2u + 200u &&
           c->ack_delay_us >= c->ack_wait_us / 2u + 200u;
}

/* the hopping sequence: 1..WREN_TSCH_HOP_MAX channels of the 2.4 GHz band */
static bool hopping_ok(const struct wren_tsch_config *c)
{
    if (c->hop_len == 0 || c->hop_len > WREN_TSCH_HOP_MAX) {
        return false;
    }
    for (unsigned i = 0; i < c->hop_len; i++) {
        if (c->hop[i] < 11 || c->hop[i] > 26) {
            return false;
        }
    }
    return true;
}

int wren_tsch_config_check(const struct wren_tsch_config *c)
{
    if (!timeslot_ok(c) || c->sf_len == 0 || c->eb_min_ms == 0 ||
        c->eb_period_ms < c->eb_min_ms || c->desync_ms == 0 || c->scan_ms == 0 ||
        c->eb_sf_len == 1 || (c->eb_sf_len && CONFIG_WREN_TSCH_SLOTFRAMES <= TSCH_SLOTFRAME_EB) ||
        c->max_retries > 15 || c->min_be > c->max_be || c->max_be > 8 ||
        (c->ka_ms && c->ka_ms >= c->desync_ms) || !hopping_ok(c)) {
        return -EINVAL;
    }
    return 0;
}

static struct wren_tsch *tsch_of(struct wren_ieee802154_netif *nif)
{
    return nif->tsch;
}

void wren_tsch_radio(struct wren_tsch *t, bool on)
{
    struct wren_netdev *dev = t->nif->netif.dev;
    uint8_t st = on ? WREN_NETOPT_STATE_IDLE : WREN_NETOPT_STATE_OFF;
    if (t->nif->mac.radio_off == !on) {
        return;
    }
    if (dev->driver->set(dev, WREN_NETOPT_STATE, &st, 1) == 0) {
        t->nif->mac.radio_off = !on;
    }
}

void wren_tsch_set_channel(struct wren_tsch *t, uint8_t ch)
{
    if (t->channel == ch) {
        return;
    }
    struct wren_netdev *dev = t->nif->netif.dev;
    uint16_t v = ch;
    if (dev->driver->set(dev, WREN_NETOPT_CHANNEL, &v, sizeof(v)) == 0) {
        t->channel = ch;
    }
}

/* ---- queues -------------------------------------------------------------- */

static void queue_drop_all(struct wren_tsch *t, struct wren_tsch_queue *q)
{
    struct wren_pktbuf *pb = &tsch_node(t)->pktbuf;
    while (q->head) {
        struct wren_snip *p = q->head;
        q->head = wren_netif_hdr(p)->q_next;
        t->stats.drop_flush++;
        wren_pktbuf_release(pb, p);
    }
    q->tail = NULL;
    q->len = 0;
    q->tries = 0;
    q->backoff = 0;
    q->be = t->cfg.min_be;
}

void wren_tsch_flush(struct wren_tsch *t)
{
    for (unsigned i = 0; i <= CONFIG_WREN_TSCH_NBRS; i++) {
        queue_drop_all(t, &t->queues[i]);
        if (i) {
            t->queues[i].used = 0;
        }
    }
}

/* the queue of neighbour @p nbr (NULL: broadcast), made if @p make */
static int queue_of(struct wren_tsch *t, const uint8_t *nbr, bool make)
{
    if (nbr == NULL) {
        return 0;
    }
    int free_q = -1;
    for (unsigned i = 1; i <= CONFIG_WREN_TSCH_NBRS; i++) {
        struct wren_tsch_queue *q = &t->queues[i];
        if (q->used && memcmp(q->nbr, nbr, 8) == 0) {
            return (int)i;
        }
        if (free_q < 0 && (!q->used || q->len == 0)) {
            free_q = (int)i; /* an empty queue can be given to another neighbour */
        }
    }
    if (!make || free_q < 0) {
        return -1;
    }
    struct wren_tsch_queue *q = &t->queues[free_q];
    memset(q, 0, sizeof(*q));
    memcpy(q->nbr, nbr, 8);
    q->used = 1;
    q->be = t->cfg.min_be;
    return free_q;
}

static bool is_sixtop(const struct wren_snip *pkt)
{
    return pkt->next && pkt->next->type == WREN_NETTYPE_SIXTOP;
}

/* Where a 6P message goes in neighbour queue @p qi: after the head if it
 * may be on the air now or has been tried (its tries and sequence number are
 * the queue's), then after the 6P messages queued before it (their order is
 * kept), before any data frame. A 6P transaction waits for its response for
 * CONFIG_WREN_SIXP_TIMEOUT_S: a request behind a full queue of forwarded
 * data in one shared cell per slotframe went out after the timeout (50
 * nodes, a hub's requests to the root, 8 frames at 40 % acknowledged), the
 * responder installed cells the initiator had given up on, and the hub never
 * got the negotiated cells its traffic needed. */
static struct wren_snip **sixtop_slot(struct wren_tsch *t, int qi)
{
    struct wren_tsch_queue *q = &t->queues[qi];
    struct wren_snip **at = &q->head;
    if (q->head && (q->tries || t->q == qi)) {
        at = &wren_netif_hdr(q->head)->q_next;
    }
    while (*at && is_sixtop(*at)) {
        at = &wren_netif_hdr(*at)->q_next;
    }
    return at;
}

/* A full neighbour queue makes room for a 6P message: its last frame goes
 * (counted drop_queue_full). The caller knows it is a data frame: there is
 * one from sixtop_slot() on, and every frame from there is data. */
static void drop_tail(struct wren_tsch *t, int qi)
{
    struct wren_tsch_queue *q = &t->queues[qi];
    struct wren_snip *p = q->head, *prev = NULL;
    while (wren_netif_hdr(p)->q_next) {
        prev = p;
        p = wren_netif_hdr(p)->q_next;
    }
    if (prev) {
        wren_netif_hdr(prev)->q_next = NULL;
    } else {
        q->head = NULL;
    }
    q->tail = prev;
    q->len--;
    t->stats.drop_queue_full++;
    wren_pktbuf_release(&tsch_node(t)->pktbuf, p);
}

static int enqueue(struct wren_tsch *t, int qi, struct wren_snip *pkt)
{
    struct wren_node *node = tsch_node(t);
    struct wren_tsch_queue *q = &t->queues[qi];
    if (q->len >= CONFIG_WREN_TSCH_QUEUE_LEN && qi == 0) {
        /* A full broadcast queue sheds its oldest frame, not the new one:
         * what a shared cell cannot carry is control traffic whose latest
         * copy counts (RPL's DIOs: under Table I's load a tail-dropping
         * queue sent DIOs a minute stale, with ranks long gone, and kept a
         * routing loop alive for hours). The head is kept if it may be on
         * the air now. */
        struct wren_snip **old = t->q == 0 ? &wren_netif_hdr(q->head)->q_next : &q->head;
        struct wren_snip *p = *old;
        *old = wren_netif_hdr(p)->q_next;
        if (q->tail == p) {
            q->tail = old == &q->head ? NULL : q->head;
        }
        q->len--;
        t->stats.drop_bcast_full++;
        wren_pktbuf_release(&node->pktbuf, p);
    }
    /* 6P goes before the data frames (see sixtop_slot): @p at is the link
     * it takes, and stays that link if the tail goes to make room */
    struct wren_snip **at = qi != 0 && is_sixtop(pkt) ? sixtop_slot(t, qi) : NULL;
    if (q->len >= CONFIG_WREN_TSCH_QUEUE_LEN) {
        if (at == NULL || *at == NULL) {
            t->stats.drop_queue_full++;
            wren_pktbuf_release(&node->pktbuf, pkt);
            return -ENOBUFS;
        }
        drop_tail(t, qi);
    }
    struct wren_snip *head = pkt;
    if (wren_pktbuf_write_path(&node->pktbuf, &pkt, &head) < 0) {
        t->nif->netif.stats.rx_drop_nobuf++;
        wren_pktbuf_release(&node->pktbuf, pkt);
        return -ENOBUFS;
    }
    if (at == NULL || *at == NULL) { /* at the tail */
        at = q->tail ? &wren_netif_hdr(q->tail)->q_next : &q->head;
        q->tail = pkt;
    }
    wren_netif_hdr(pkt)->q_next = *at;
    *at = pkt;
    q->len++;
    return 1;
}

int wren_tsch_submit(struct wren_ieee802154_netif *nif, struct wren_snip *pkt)
{
    struct wren_tsch *t = tsch_of(nif);
    struct wren_node *node = nif->netif.node;
    const struct wren_netif_hdr *nh = wren_netif_hdr(pkt);
    bool bcast = (nh->flags & WREN_NETIF_HDR_BROADCAST) || nh->dst_len == 0;
    if (t->role == WREN_TSCH_OFF) {
        t->stats.drop_off++;
        wren_pktbuf_release(&node->pktbuf, pkt);
        return -ENETDOWN;
    }
    if (!bcast && nh->dst_len != 8) {
        /* TSCH neighbours are known by their EUI-64 (queues, cells, time source) */
        nif->netif.stats.tx_drop_bad++;
        wren_pktbuf_release(&node->pktbuf, pkt);
        return -EINVAL;
    }
    int qi = queue_of(t, bcast ? NULL : nh->dst, true);
    if (qi < 0) {
        t->stats.drop_no_queue++;
        wren_pktbuf_release(&node->pktbuf, pkt);
        return -ENOBUFS;
    }
    return enqueue(t, qi, pkt);
}

/* a keep-alive (RFC 8180 4.4: a frame to the time source to get an ACK
 * with a time correction): an empty data frame, unless one is queued */
uint32_t wren_tsch_eb_min_ms(const struct wren_tsch *t)
{
    /* at most one minimal cell in three: a node keeps listening in the
     * others, and two nodes in their fast phase do not fill the cell */
    uint32_t cell_ms = t->cfg.slot_us / 1000u * t->cfg.sf_len;
    return t->cfg.eb_min_ms > 3u * cell_ms ? t->cfg.eb_min_ms : 3u * cell_ms;
}

bool wren_tsch_ts_pending(struct wren_tsch *t)
{
    int qi = t->ts_len == 8 ? queue_of(t, t->ts, false) : -1;
    return qi > 0 && t->queues[qi].head != NULL;
}

void wren_tsch_keepalive(struct wren_tsch *t)
{
    if (t->ts_len != 8) {
        return;
    }
    int qi = queue_of(t, t->ts, true);
    if (qi < 0 || t->queues[qi].len) {
        return; /* what is queued for it will bring an ACK */
    }
    struct wren_pktbuf *pb = &tsch_node(t)->pktbuf;
    struct wren_snip *pkt = wren_netif_hdr_add(pb, NULL, t->nif->long_addr, 8, t->ts, 8);
    if (pkt == NULL) {
        return;
    }
    if (enqueue(t, qi, pkt) > 0) {
        t->stats.tx_ka++;
    }
}

static bool may_send(const struct wren_tsch_queue *q, bool shared)
{
    return q->head && (!shared || q->backoff == 0);
}

/* an EB goes out in the minimal cell when due and nothing else waits; before
 * queued frames only once it is eb_period_ms late (frames are not held up by
 * EBs, and the fast EBs after a (re)start only fill idle cells) */
static bool eb_due(struct wren_tsch *t, const struct wren_tsch_cell *c)
{
    if (!t->synced || t->join_prio == 0xff) {
        return false;
    }
    uint64_t now = wren_node_now(tsch_node(t));
    if (c->slotframe == TSCH_SLOTFRAME_EB && wren_tsch_sec_on(t)) {
        /* with security on, an EB in each of our EB cells: a node that
         * joined us hears one in its timekeeping cell within an EB
         * slotframe, which confirms its join (tsch_slot.c confirm_us) */
        return true;
    }
    if (now < t->eb_next) {
        return false;
    }
    if (c->slotframe == TSCH_SLOTFRAME_EB) {
        return true; /* the EB's own cell */
    }
    if (c->slotframe != TSCH_SLOTFRAME_MINIMAL) {
        return false;
    }
    if (t->cfg.eb_sf_len) {
        /* EBs have a cell of their own: the minimal cell takes them only
         * in the fast phase after a (re)start, and only when idle */
        if (t->eb_ivl_ms >= t->cfg.eb_period_ms) {
            return false;
        }
    } else if (now >= t->eb_next + (uint64_t)t->cfg.eb_period_ms * 1000u) {
        return true; /* a node that always has frames still sends EBs */
    }
    for (unsigned i = 0; i <= CONFIG_WREN_TSCH_NBRS; i++) {
        if (t->queues[i].head) {
            return false;
        }
    }
    return true;
}

static unsigned bits_set(uint32_t b)
{
    unsigned n = 0;
    for (; b; b &= b - 1) {
        n++;
    }
    return n;
}

/* neighbours heard lately (a bit per hash of their EUI-64, two windows) */
static unsigned nbrs_heard(const struct wren_tsch *t)
{
    return bits_set(t->nbr_heard[0] | t->nbr_heard[1]);
}

/* Broadcasts in a shared cell are never acknowledged, so they never back
 * off: with n neighbours that all have some (DIOs, DISs), every shared cell
 * would carry a collision. Each goes with a chance bc_p, which follows how
 * busy the shared cells we listen in are: p-persistence is at its best when
 * about 1/e of the cells are idle, so a busy cell takes p down by 1/16 and
 * an idle one up by 1/16 x 0.63/0.37 (the two balance at 37 % idle). The
 * neighbours heard cap it at 2/(n + 2): under a load no rate of sending
 * relieves (Table I: every node a DIO per 8.2 s into one cell per 2.02 s)
 * collisions had hidden the neighbours, n stayed small and every node sent
 * in 30 % of the cells, of which 1-5 % were heard. */
#define BC_P_MIN 512u /* 1/128 */

void wren_tsch_shared_heard(struct wren_tsch *t, bool busy)
{
    const struct wren_tsch_cell *c = &t->cells[t->cell];
    if (c->nbr_len != 0 || !(c->options & WREN_TSCH_CELL_SHARED)) {
        return;
    }
    uint32_t p = t->bc_p;
    p = busy ? p - p / 16u : p + p * 17u / 160u;
    t->bc_p = (uint16_t)(p > TSCH_BC_P_MAX ? TSCH_BC_P_MAX : p < BC_P_MIN ? BC_P_MIN : p);
}

uint16_t wren_tsch_bc_chance(const struct wren_tsch *t)
{
    unsigned n = nbrs_heard(t);
    uint32_t cap = n <= 1 ? TSCH_BC_P_MAX : 131072u / (n + 2u);
    return (uint16_t)(t->bc_p < cap ? t->bc_p : cap);
}

static bool bcast_turn(struct wren_tsch *t)
{
    return wren_node_random_below(tsch_node(t), 65536u) < wren_tsch_bc_chance(t);
}

/* Whether a TX cell to @p nbr of its own is in the schedule (MSF's
 * autonomous TX cell, a negotiated one): a neighbour that has one leaves the
 * cells for any neighbour, the minimal cell first, to the broadcasts (RFC
 * 9033 2: EBs and DIOs in the minimal cell, unicast in autonomous and
 * negotiated cells). A node that sends in a shared cell does not listen in
 * it, and the broadcasts it then misses are RPL's DIOs. */
static bool has_own_cell(const struct wren_tsch *t, const uint8_t *nbr)
{
    for (unsigned i = 0; i < CONFIG_WREN_TSCH_CELLS; i++) {
        const struct wren_tsch_cell *o = &t->cells[i];
        if ((o->options & WREN_TSCH_CELL_TX) && o->nbr_len == 8 && memcmp(o->nbr, nbr, 8) == 0) {
            return true;
        }
    }
    return false;
}

/* A join not yet confirmed sends only to its time source (the keep-alive,
 * whose ACK confirms it), never in the EB cell, and in a shared cell for
 * any neighbour only if it has no cell to it of its own: no EB or DIO of
 * ours spreads a time that may be forged, and the minimal cell is ours to
 * listen in (a node that sends its broadcasts there every slotframe hears
 * no one) */
static uint8_t pick_unconfirmed(struct wren_tsch *t, const struct wren_tsch_cell *c, bool shared)
{
    int ts_q = t->ts_len == 8 ? queue_of(t, t->ts, false) : -1;
    if (ts_q > 0 && may_send(&t->queues[ts_q], shared) && c->slotframe != TSCH_SLOTFRAME_EB &&
        (c->nbr_len == 0 ? !has_own_cell(t, t->ts) : memcmp(c->nbr, t->ts, 8) == 0)) {
        return (uint8_t)ts_q;
    }
    return TSCH_Q_NONE;
}

/* a cell to one neighbour: its queue */
static uint8_t pick_nbr(struct wren_tsch *t, const struct wren_tsch_cell *c, bool shared)
{
    int qi = queue_of(t, c->nbr, false);
    return qi > 0 && may_send(&t->queues[qi], shared) ? (uint8_t)qi : TSCH_Q_NONE;
}

/* the time source's queue if we are overdue for a correction (ka_ms since
 * the last) and it may go in a cell for any neighbour; else -1 */
static int ka_overdue(struct wren_tsch *t, bool shared)
{
    int ts_q;
    if (t->role == WREN_TSCH_NODE && t->cfg.ka_ms &&
        wren_node_now(tsch_node(t)) - t->last_sync > (uint64_t)t->cfg.ka_ms * 1000u &&
        (ts_q = t->ts_len == 8 ? queue_of(t, t->ts, false) : -1) > 0 &&
        may_send(&t->queues[ts_q], shared) && !has_own_cell(t, t->ts)) {
        return ts_q;
    }
    return -1;
}

/* a cell for any neighbour: the time source first if overdue, then the
 * broadcast queue and the neighbours' in turn (broadcasts first would
 * starve unicast, keep-alives to the time source among them, while DIOs
 * and DISs keep coming) */
static uint8_t pick_any(struct wren_tsch *t, bool shared)
{
    int ts_q = ka_overdue(t, shared);
    if (ts_q > 0) {
        return (uint8_t)ts_q;
    }
    for (unsigned k = 1; k <= CONFIG_WREN_TSCH_NBRS + 1u; k++) {
        unsigned i = (t->rr + k) % (CONFIG_WREN_TSCH_NBRS + 1u);
        if (i == 0 && shared && t->queues[0].head && !bcast_turn(t)) {
            continue;
        }
        if (t->queues[i].used && may_send(&t->queues[i], shared) &&
            (i == 0 || !has_own_cell(t, t->queues[i].nbr))) {
            t->rr = (uint8_t)i;
            return (uint8_t)i;
        }
    }
    return TSCH_Q_NONE;
}

/* 6.2.5.3: every shared cell a queue could have used counts down its backoff */
static void backoff_tick(struct wren_tsch *t, const struct wren_tsch_cell *c)
{
    for (unsigned i = 0; i <= CONFIG_WREN_TSCH_NBRS; i++) {
        struct wren_tsch_queue *q = &t->queues[i];
        if (q->backoff && q->head &&
            (c->nbr_len == 0 || (i && q->used && memcmp(q->nbr, c->nbr, 8) == 0))) {
            q->backoff--;
        }
    }
}

uint8_t wren_tsch_pick_queue(struct wren_tsch *t, const struct wren_tsch_cell *c)
{
    bool shared = (c->options & WREN_TSCH_CELL_SHARED) != 0;
    uint8_t pick = TSCH_Q_NONE;
    if (CONFIG_WREN_IEEE802154_SEC && !t->confirmed) {
        pick = pick_unconfirmed(t, c, shared);
    } else if (c->nbr_len == 8) {
        pick = pick_nbr(t, c, shared);
    } else if (eb_due(t, c)) {
        pick = TSCH_Q_EB;
    } else if (c->slotframe != TSCH_SLOTFRAME_EB) {
        pick = pick_any(t, shared); /* (the EB cell carries EBs only) */
    }
    if (shared) {
        backoff_tick(t, c);
    }
    return pick;
}

/* ---- frames we send -------------------------------------------------------- */

/* 802.15.4 security (link/ieee802154_sec.h) of the frames TSCH builds: the
 * policy of the frame type fills the header (ASN in the nonce, no frame
 * counter), the frame is emitted with room for the MIC, then sealed with the
 * ASN of the slot it goes out in. A retry is built again in its own slot,
 * so it is sealed with that slot's ASN. */
int wren_tsch_sec_prepare(struct wren_tsch *t, struct ieee802154_hdr *h)
{
#if CONFIG_WREN_IEEE802154_SEC
    return wren_ieee802154_sec_prepare(t->nif, h, true);
#else
    (void)t, (void)h;
    return 0;
#endif
}

int wren_tsch_sec_seal(struct wren_tsch *t, const struct ieee802154_hdr *h, size_t n)
{
#if CONFIG_WREN_IEEE802154_SEC
    struct ieee802154_frame g;
    if (!h->security) {
        return 0;
    }
    /* authenticated only: MHR, header IEs and their termination IE */
    if (wren_ieee802154_parse(t->buf, n, &g) < 0) {
        return -EINVAL;
    }
    size_t open = (size_t)((g.payload_ie_len ? g.payload_ie : g.payload) - t->buf);
    return wren_ieee802154_sec_secure(t->nif, h, t->asn, t->buf, open, n);
#else
    (void)t, (void)h, (void)n;
    return 0;
#endif
}

static int build_eb(struct wren_tsch *t)
{
    struct ieee802154_payload_ies ies;
    struct ieee802154_tsch_slotframe sf;
    struct ieee802154_tsch_link cell;
    struct ieee802154_frame f;
    uint8_t ie_buf[64];
    wren_ieee802154_eb_minimal_ies(&ies, &sf, &cell, t->asn, t->join_prio, t->cfg.sf_len);
    struct ieee802154_tsch_timeslot ts;
    wren_ieee802154_tsch_timeslot_default(&ts);
    if (t->cfg.slot_us != ts.length || t->cfg.tx_offset_us != ts.tx_offset ||
        t->cfg.rx_wait_us != ts.rx_wait || t->cfg.ack_delay_us != ts.tx_ack_delay ||
        t->cfg.ack_wait_us != ts.ack_wait) {
        /* RFC 8180 4.3: another template goes out whole */
        ts.full = true;
        ts.length = t->cfg.slot_us;
        ts.tx_offset = t->cfg.tx_offset_us;
        ts.rx_offset = (uint16_t)(t->cfg.tx_offset_us - t->cfg.rx_wait_us / 2u);
        ts.rx_wait = t->cfg.rx_wait_us;
        ts.tx_ack_delay = t->cfg.ack_delay_us;
        ts.rx_ack_delay = (uint16_t)(t->cfg.ack_delay_us - t->cfg.ack_wait_us / 2u);
        ts.ack_wait = t->cfg.ack_wait_us;
        ies.mlme.timeslot = ts;
    }
    uint8_t seq_le[2 * WREN_TSCH_HOP_MAX];
    if (t->cfg.hop_len != sizeof(default_hop) ||
        memcmp(t->cfg.hop, default_hop, sizeof(default_hop)) != 0) {
        /* a sequence of our own: described whole (7.4.4.31) */
        struct ieee802154_channel_hopping *h = &ies.mlme.hopping;
        for (unsigned i = 0; i < t->cfg.hop_len; i++) {
            put_le16(seq_le + 2 * i, t->cfg.hop[i]);
        }
        h->full = true;
        h->page = 0;
        h->n_channels = 16;
        h->phy_config = 0x07fff800u; /* channels 11..26 */
        h->seq_len = t->cfg.hop_len;
        h->seq = seq_le;
        h->current_hop = 0;
    }
    int res = wren_ieee802154_eb_frame(&f, t->nif->pan, t->nif->long_addr, &ies, ie_buf,
                                       sizeof(ie_buf));
    if (res < 0 || wren_tsch_sec_prepare(t, &f.hdr) < 0) {
        return -EINVAL;
    }
    res = wren_ieee802154_emit(&f, t->buf, TSCH_MAX_PSDU - TSCH_FCS_LEN);
    if (res < 0 || wren_tsch_sec_seal(t, &f.hdr, (size_t)res) < 0) {
        return -EINVAL;
    }
    t->psdu_len = (uint8_t)res;
    t->ack_req = 0;
    return 0;
}

static int build_data(struct wren_tsch *t, uint8_t qi)
{
    struct wren_tsch_queue *q = &t->queues[qi];
    struct wren_snip *pkt = q->head;
    struct wren_ieee802154_netif *nif = t->nif;
    struct ieee802154_frame f;
    memset(&f, 0, sizeof(f));
    struct ieee802154_hdr *h = &f.hdr;
    h->type = IEEE802154_TYPE_DATA;
    h->version = IEEE802154_VERSION_2015;
    h->panid_comp = true;
    h->dst_pan = nif->pan;
    h->src_pan = nif->pan;
    if (qi == 0) {
        h->dst_mode = IEEE802154_ADDR_SHORT;
        put_be16(h->dst_addr, IEEE802154_BROADCAST);
    } else {
        h->dst_mode = IEEE802154_ADDR_EXT;
        memcpy(h->dst_addr, q->nbr, 8);
        h->ack_req = true; /* TSCH unicast is always acknowledged */
    }
    h->src_mode = IEEE802154_ADDR_EXT;
    memcpy(h->src_addr, nif->long_addr, 8);
    if (q->tries == 0) {
        /* a retransmission keeps its sequence number (duplicates) */
        wren_netif_hdr(pkt)->lqi = nif->seq++;
    }
    h->seq = wren_netif_hdr(pkt)->lqi;
    struct wren_snip *body = pkt->next;
    uint8_t ie_buf[TSCH_MAX_PSDU];
    size_t plen = wren_pkt_len(body);
    if (body && body->type == WREN_NETTYPE_SIXTOP) {
        /* a 6P message: the 6top sub-IE of an IETF payload IE (RFC 8480 3.1) */
        uint8_t msg[TSCH_MAX_PSDU];
        struct ieee802154_payload_ies ies;
        if (plen > sizeof(msg)) {
            return -EMSGSIZE;
        }
        memset(&ies, 0, sizeof(ies));
        ies.has_sixtop = true;
        ies.sixtop = msg;
        ies.sixtop_len = (uint16_t)wren_pkt_copy(body, msg, sizeof(msg));
        int ie_len = wren_ieee802154_payload_ies_emit(&ies, ie_buf, sizeof(ie_buf));
        if (ie_len < 0) {
            return -EMSGSIZE;
        }
        f.payload_ie = ie_buf;
        f.payload_ie_len = (size_t)ie_len;
        h->ie_present = true;
        plen = 0;
        body = NULL;
    }
    int mic = wren_tsch_sec_prepare(t, h);
    if (mic < 0) {
        return -EMSGSIZE; /* no key for it (counted sec.tx_no_key) */
    }
    uint8_t plain[TSCH_MAX_PSDU];
    if (mic > 0 && plen) {
        /* a secured frame is emitted whole: its MIC follows the payload */
        if (plen > sizeof(plain)) {
            return -EMSGSIZE;
        }
        f.payload = plain;
        f.payload_len = wren_pkt_copy(body, plain, sizeof(plain));
        plen = 0;
        body = NULL;
    }
    int n = wren_ieee802154_emit(&f, t->buf, TSCH_MAX_PSDU - TSCH_FCS_LEN);
    if (n < 0 || (size_t)n + plen + TSCH_FCS_LEN > TSCH_MAX_PSDU) {
        return -EMSGSIZE;
    }
    wren_pkt_copy(body, t->buf + n, plen);
    if (wren_tsch_sec_seal(t, h, (size_t)n) < 0) {
        return -EMSGSIZE;
    }
    t->psdu_len = (uint8_t)(n + (int)plen);
    t->tx_seq = h->seq;
    t->ack_req = h->ack_req;
    return 0;
}

int wren_tsch_build_frame(struct wren_tsch *t, uint8_t q)
{
    if (q == TSCH_Q_EB) {
        return build_eb(t);
    }
    if (build_data(t, q) == 0) {
        return 0;
    }
    /* it can never go out: drop it, and the slot stays a listening one */
    struct wren_tsch_queue *qu = &t->queues[q];
    struct wren_snip *p = qu->head;
    qu->head = wren_netif_hdr(p)->q_next;
    if (qu->head == NULL) {
        qu->tail = NULL;
    }
    qu->len--;
    qu->tries = 0;
    t->stats.drop_too_long++;
    wren_pktbuf_release(&tsch_node(t)->pktbuf, p);
    return -EMSGSIZE;
}

/* An EB went out. After a (re)start EBs go every eb_min_ms, the period
 * doubling after every TSCH_EB_BURST of them up to eb_period_ms: a network
 * that restarts is found within a minute or two, a settled one sends few */
static void eb_sent(struct wren_tsch *t)
{
    t->stats.tx_eb++;
    uint32_t ivl = t->eb_ivl_ms;
    /* with n neighbours sending EBs too, each sends 1/n as many: the
     * minimal cell carries about as many EBs however dense the network.
     * n is the larger of the EB senders heard since our last EB and the
     * neighbours heard lately: in a busy minimal cell EBs collide, and
     * counting only the EBs that got through made every node send more
     * (30 nodes, Table I, 10 seeds x 2 h: PDR 39.6 % -> 47.4 %) */
    unsigned n = bits_set(t->eb_heard), m = nbrs_heard(t);
    n = m > n ? m : n;
    uint32_t eff = n > 2 && !t->cfg.eb_sf_len ? ivl * n : ivl;
    t->eb_heard = 0;
    /* uniformly within [eff/2, 3 eff/2]: several minimal slotframes,
     * so the EBs' channels (the hopping sequence at their ASN) are
     * spread over all of it (a jitter within one slotframe gave a few
     * channels only, which a scanning node on another never heard) */
    uint32_t jit = wren_node_random_below(tsch_node(t), eff + 1u);
    t->eb_next = wren_node_now(tsch_node(t)) + (uint64_t)(eff / 2u + jit) * 1000u;
    if (++t->eb_count >= TSCH_EB_BURST) {
        t->eb_count = 0;
        t->eb_ivl_ms = ivl * 2u > t->cfg.eb_period_ms ? t->cfg.eb_period_ms : ivl * 2u;
    }
}

/* A unicast try got no ACK: back off in shared cells; true if the frame
 * tries again in a later cell, false if it has had its retries */
static bool retry_later(struct wren_tsch *t, struct wren_tsch_queue *q,
                        const struct wren_tsch_cell *c, const struct wren_snip *p)
{
    if (c->options & WREN_TSCH_CELL_SHARED) {
        /* 6.2.5.3: wait a random number of shared cells, window doubling */
        q->backoff = (uint16_t)wren_node_random_below(tsch_node(t), 1u << q->be);
        if (q->be < t->cfg.max_be) {
            q->be++;
        }
    }
    if (q->tries <= t->cfg.max_retries) {
        return true;
    }
    t->stats.tx_noack++;
    if (p->next == NULL && t->role == WREN_TSCH_NODE && wren_tsch_is_ts(t, q->nbr)) {
        /* a keep-alive that no try got through: the time source is gone,
         * or our clock is off by more than the guard (a lossy link still
         * passes one of max_retries + 1): leave now (a data frame that
         * fails is the routing's business: it may change parent) */
        t->stats.desync_ka++;
        t->desync_due = 1;
    }
    return false;
}

/* the head of queue @p q is done with (sent, or given up) */
static void dequeue_head(struct wren_tsch *t, struct wren_tsch_queue *q, struct wren_snip *p)
{
    q->head = wren_netif_hdr(p)->q_next;
    if (q->head == NULL) {
        q->tail = NULL;
        q->be = t->cfg.min_be;
        q->backoff = 0;
    }
    q->len--;
    q->tries = 0;
    wren_pktbuf_release(&tsch_node(t)->pktbuf, p);
}

void wren_tsch_tx_result(struct wren_tsch *t, bool acked)
{
    struct wren_tsch_cell *c = &t->cells[t->cell];
    if (t->q == TSCH_Q_EB) {
        eb_sent(t);
        return;
    }
    if (t->q > CONFIG_WREN_TSCH_NBRS) {
        return;
    }
    struct wren_tsch_queue *q = &t->queues[t->q];
    struct wren_snip *p = q->head;
    if (p == NULL) {
        return;
    }
    bool sixtop = is_sixtop(p);
    t->stats.tx_data++;
    t->stats.tx_retries += q->tries != 0;
    q->tries++;
    if (acked) {
        c->tx_ack += t->ack_req;
    }
    if (!acked && t->ack_req) {
        if (retry_later(t, q, c, p)) {
            return; /* again in a later cell */
        }
    } else {
        t->stats.tx_ok++;
        t->stats.tx_sixtop += sixtop;
        q->be = t->cfg.min_be;
        q->backoff = 0;
    }
    if (t->ack_req) {
        /* the link estimator (RPL's ETX) learns from every unicast */
        wren_link_est_tx(&t->nif->mac.est, q->nbr, 8, q->tries, acked);
    }
    dequeue_head(t, q, p);
}

#endif /* CONFIG_WREN_TSCH */
