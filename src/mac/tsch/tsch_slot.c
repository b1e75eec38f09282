/* The TSCH slot engine (IEEE 802.15.4-2015 6.2.6): one timer takes the MAC
 * from one active slot to the next, and through the parts of a slot (radio
 * on at the right instant, frame, Enh-ACK, radio off); time synchronisation
 * with the time source (6.5.4.3) and the estimate of our clock's drift;
 * desynchronisation; scanning for EBs. Times are the node's own clock (us). */
#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "mac/tsch/tsch_priv.h"
#include "net/netopt.h"

#if CONFIG_WREN_TSCH

/* a slot whose start is this close (or past) is skipped: the radio could
 * not be switched on in time for its listening window */
#define LATE_MARGIN_US 50u
/* the longest drift estimate believed: 500 ppm, in 2^-30 units */
#define DRIFT_MAX_Q30 536871
/* a listening window looks at the radio twice: at the guard's end (a frame
 * still coming in) and this long after tx_offset, when a frame from a
 * neighbour within 300 us of our time is on the air however short it is:
 * a keep-alive (0.9 ms) or a short broadcast that collided or was lost
 * ends before the guard does, and seen only then the cell looked idle (in
 * a 50-node network the minimal cell, full of such collisions, looked idle
 * to everyone, and the broadcast chance rose until nothing got through) */
#define RX_MID_US 300u

uint32_t wren_tsch_asn_mod(uint64_t asn, uint32_t m)
{
    /* asn = hi * 2^32 + lo; every product stays below m^2 < 2^32 */
    uint32_t hi = (uint32_t)(asn >> 32) % m;
    uint32_t lo = (uint32_t)asn % m;
    uint32_t r32 = (0xffffffffu % m + 1u) % m; /* 2^32 mod m */
    return (hi * r32 % m + lo) % m;
}

uint64_t wren_tsch_slot_time(const struct wren_tsch *t, uint64_t asn)
{
    int64_t d = (int64_t)(asn - t->ref_asn) * (int64_t)t->cfg.slot_us;
    /* our clock runs (1 + drift) as fast as the time source's */
    return t->ref_time + (uint64_t)(d + ((d * t->drift_q30) >> 30));
}

int32_t wren_tsch_drift_ppb(const struct wren_tsch *t)
{
    return (int32_t)(((int64_t)t->drift_q30 * 1000000000) >> 30);
}

static uint64_t now_of(const struct wren_tsch *t)
{
    return wren_node_now(tsch_node(t));
}

static void set_at(struct wren_tsch *t, uint8_t phase, uint64_t at)
{
    t->phase = phase;
    wren_timer_set_abs(tsch_node(t), &t->timer, at);
}

/* slots from t->asn to the next one a cell is active in (>= 1), or 0 */
static uint32_t next_delta(const struct wren_tsch *t)
{
    uint32_t best = 0;
    for (unsigned i = 0; i < CONFIG_WREN_TSCH_CELLS; i++) {
        const struct wren_tsch_cell *c = &t->cells[i];
        if (c->options == 0 || c->slotframe >= CONFIG_WREN_TSCH_SLOTFRAMES) {
            continue;
        }
        uint32_t len = t->sf[c->slotframe].len;
        if (len == 0 || c->slot_offset >= len) {
            continue;
        }
        uint32_t off = wren_tsch_asn_mod(t->asn + 1, len);
        uint32_t d = (c->slot_offset + len - off) % len + 1;
        if (best == 0 || d < best) {
            best = d;
        }
    }
    return best;
}

void wren_tsch_schedule(struct wren_tsch *t)
{
    uint64_t now = now_of(t);
    uint32_t listen = (uint32_t)t->cfg.tx_offset_us - t->cfg.rx_wait_us / 2u;
    for (;;) {
        uint32_t d = next_delta(t);
        if (d == 0) {
            t->phase = TSCH_PH_IDLE; /* nothing scheduled: the radio stays off */
            wren_timer_cancel(tsch_node(t), &t->timer);
            return;
        }
        t->asn += d;
        t->slot_start = wren_tsch_slot_time(t, t->asn);
        if (t->slot_start + listen > now + LATE_MARGIN_US) {
            break;
        }
        t->stats.slot_late++;
    }
    set_at(t, TSCH_PH_SLOT, t->slot_start);
}

void wren_tsch_end_slot(struct wren_tsch *t)
{
    wren_tsch_radio(t, false);
    if (t->desync_due) {
        t->desync_due = 0;
        wren_tsch_desync(t);
        return;
    }
    wren_tsch_schedule(t);
}

static void scan_hop(struct wren_tsch *t)
{
    struct wren_node *node = tsch_node(t);
    uint8_t ch = t->cfg.hop[wren_node_random_below(node, t->cfg.hop_len)];
    wren_tsch_radio(t, false); /* a channel change needs the radio idle */
    wren_tsch_set_channel(t, ch);
    wren_tsch_radio(t, true);
    t->stats.scan_hops++;
    set_at(t, TSCH_PH_SCAN, now_of(t) + (uint64_t)t->cfg.scan_ms * 1000u);
}

void wren_tsch_start(struct wren_tsch *t)
{
    struct wren_node *node = tsch_node(t);
    t->desync_due = 0;
    wren_timer_cancel(node, &t->timer);
    wren_tsch_radio(t, false);
    t->synced = 0;
    t->phase = TSCH_PH_IDLE;
    switch (t->role) {
    case WREN_TSCH_COORDINATOR:
        /* a new network: ASN 0 now, our own time source */
        wren_tsch_minimal_schedule(t);
        t->asn = 0;
        t->ref_asn = 0;
        t->ref_time = wren_node_now(node);
        t->drift_q30 = 0;
        t->ts_len = 0;
        t->synced = 1;
        t->confirmed = 1;
        t->last_sync = t->ref_time;
        t->eb_ivl_ms = wren_tsch_eb_min_ms(t);
        t->eb_count = 0;
        t->eb_next = t->ref_time;
        if (!t->join_prio_set) {
            t->join_prio = 0;
        }
        t->slot_start = t->ref_time;
        set_at(t, TSCH_PH_SLOT, t->slot_start);
        break;
    case WREN_TSCH_NODE:
        scan_hop(t);
        break;
    default:
        break;
    }
}

void wren_tsch_desync(struct wren_tsch *t)
{
    t->stats.sync_desync++;
    /* rejoin through nodes closer to the root than we were, for a while */
    t->scan_prio = t->join_prio;
    t->scan_strict_until = wren_node_now(tsch_node(t)) + (uint64_t)t->cfg.desync_ms * 3000u;
    wren_tsch_start(t); /* scan again; the queues wait for the next join */
}

void wren_tsch_sync(struct wren_tsch *t, int32_t shift)
{
    int32_t guard = (int32_t)(t->cfg.rx_wait_us / 2u);
    if (shift > guard || shift < -guard) {
        /* more than a frame inside the guard can show: never trust it */
        t->stats.sync_clamped++;
        shift = shift > 0 ? guard : -guard;
    }
    uint64_t now = now_of(t);
    uint64_t since = now - t->last_sync;
    /* the slot in progress starts @p shift later than we reckoned: move the
     * reference there */
    t->slot_start += (uint64_t)(int64_t)shift;
    t->ref_asn = t->asn;
    t->ref_time = t->slot_start;
    /* what remained after the drift compensation, over the time since the
     * last correction, is the error of the estimate: take half of it */
    if (since >= 500000u && since < ((uint64_t)1 << 45)) {
        /* |shift| <= guard (< 32768 us): shift x 2^16 fits 32 bits; 32-bit
         * division only (a 64-bit one links libgcc's, 0.9 KB) */
        int32_t sample = shift * 65536 / (int32_t)(uint32_t)(since >> 14);
        int32_t q = t->drift_q30 + sample / 2;
        t->drift_q30 = q > DRIFT_MAX_Q30 ? DRIFT_MAX_Q30 : q < -DRIFT_MAX_Q30 ? -DRIFT_MAX_Q30 : q;
    }
    t->last_sync = now;
    t->confirmed = 1;
    t->stats.sync_corrections++;
}

/* How long a join with security on may go unconfirmed: no authenticated
 * frame in our cells (a neighbour's EB in our ASN, a data frame or Enh-ACK
 * from anyone, the time source's Enh-ACK to the keep-alive sent at the
 * join: each opens only under our slot's ASN). Then the EB we joined was
 * not in the network's time (forged with K1, or replayed a slot off) and we
 * are deaf in our own schedule: scan again at once rather than try the
 * keep-alive for up to 3 x desync_ms. The keep-alive period and a margin:
 * half of it, and at least two minimal slotframes (two chances in the
 * minimal cell once the keep-alive waits) and desync_ms / 8 (a keep-alive
 * period far shorter than desync_ms, in cells busy with others'
 * keep-alives, needs more tries than half a period holds). 7.5 s at the
 * defaults. And with an EB slotframe, at least two of it: with security on
 * the time source sends an EB in each of its EB cells (tsch.c eb_due), and
 * our timekeeping cell listens there, so a sound join has two EBs of it on
 * a cell no one else sends in besides the keep-alive's ACK, which in busy
 * shared cells is often lost (7.94 s at the defaults; 15.9 s with Table
 * I's 20 ms slots, where a keep-alive period and a half holds only four
 * minimal slotframes, see docs/architecture.md). */
static uint64_t confirm_us(const struct wren_tsch *t)
{
    uint64_t m = (uint64_t)t->cfg.ka_ms * 500u;
    uint64_t sf2 = 2u * (uint64_t)t->cfg.sf_len * t->cfg.slot_us;
    uint64_t d8 = (uint64_t)t->cfg.desync_ms * 125u;
    uint64_t eb2 = 2u * (uint64_t)t->cfg.eb_sf_len * t->cfg.slot_us;
    m = m > sf2 ? m : sf2;
    m = m > d8 ? m : d8;
    m += (uint64_t)t->cfg.ka_ms * 1000u;
    return m > eb2 ? m : eb2;
}

/* The slot begins: the time source's watch. Desync after no correction
 * from the time source for desync_ms, unless a frame to it is still being
 * tried (its ACK will correct us; its last try failing desyncs at once),
 * and never past 3 x desync_ms; a keep-alive when one is due. Returns
 * false if the node left the network. */
static bool watch_time_source(struct wren_tsch *t, uint64_t now)
{
    uint64_t quiet = now - t->last_sync;
    if (CONFIG_WREN_IEEE802154_SEC && t->role == WREN_TSCH_NODE && !t->confirmed &&
        t->cfg.ka_ms && quiet > confirm_us(t)) {
        t->stats.desync_unconfirmed++;
        wren_tsch_desync(t);
        return false;
    }
    if (t->role == WREN_TSCH_NODE && quiet > (uint64_t)t->cfg.desync_ms * 1000u &&
        (!wren_tsch_ts_pending(t) || quiet > (uint64_t)t->cfg.desync_ms * 3000u)) {
        t->stats.desync_quiet++;
        wren_tsch_desync(t);
        return false;
    }
    /* a keep-alive at once after a join that needs confirming: its ACK does */
    if (t->role == WREN_TSCH_NODE && t->cfg.ka_ms &&
        ((CONFIG_WREN_IEEE802154_SEC && !t->confirmed) ||
         now - t->last_sync > (uint64_t)t->cfg.ka_ms * 1000u)) {
        wren_tsch_keepalive(t);
    }
    return true;
}

/* The cells active in this slot: the first TX cell with a frame to send
 * (@p tx, its queue @p q) and the first RX cell (@p rx); -1: none */
static void active_cells(struct wren_tsch *t, int *tx, int *rx, uint8_t *q)
{
    for (unsigned i = 0; i < CONFIG_WREN_TSCH_CELLS; i++) {
        struct wren_tsch_cell *c = &t->cells[i];
        if (c->options == 0 || c->slotframe >= CONFIG_WREN_TSCH_SLOTFRAMES ||
            t->sf[c->slotframe].len == 0 ||
            wren_tsch_asn_mod(t->asn, t->sf[c->slotframe].len) != c->slot_offset) {
            continue;
        }
        c->elapsed++;
        if ((c->options & WREN_TSCH_CELL_TX) && *tx < 0) {
            *q = wren_tsch_pick_queue(t, c);
            if (*q != TSCH_Q_NONE) {
                *tx = (int)i;
            }
        }
        if ((c->options & WREN_TSCH_CELL_RX) && *rx < 0) {
            *rx = (int)i;
        }
    }
}

/* 6.2.6.3: the channel of cell @p i in this slot, and the cell in use */
static void cell_channel(struct wren_tsch *t, int i)
{
    t->cell = (uint8_t)i;
    wren_tsch_set_channel(t, t->cfg.hop[(wren_tsch_asn_mod(t->asn, t->cfg.hop_len) +
                                          t->cells[i].channel_offset) %
                                         t->cfg.hop_len]);
}

/* the slot begins: housekeeping, then what to do in it */
static void slot_begin(struct wren_tsch *t)
{
    if (!watch_time_source(t, now_of(t))) {
        return;
    }
    int tx = -1, rx = -1;
    uint8_t q = TSCH_Q_NONE;
    active_cells(t, &tx, &rx, &q);
    if (tx >= 0 && wren_tsch_build_frame(t, q) == 0) {
        t->q = q;
        t->cells[tx].used++;
        cell_channel(t, tx);
        uint64_t at = t->slot_start + t->cfg.tx_offset_us;
        set_at(t, TSCH_PH_TX, at > t->tx_delay_us ? at - t->tx_delay_us : at);
        return;
    }
    if (rx >= 0) {
        t->q = TSCH_Q_NONE;
        cell_channel(t, rx);
        set_at(t, TSCH_PH_RX_ON, t->slot_start + t->cfg.tx_offset_us - t->cfg.rx_wait_us / 2u);
        return;
    }
    wren_tsch_schedule(t);
}

static bool radio_receiving(struct wren_tsch *t)
{
    struct wren_netdev *dev = t->nif->netif.dev;
    uint8_t st = WREN_NETOPT_STATE_OFF;
    return dev->driver->get(dev, WREN_NETOPT_STATE, &st, 1) == 1 && st == WREN_NETOPT_STATE_RX;
}

static void send_buf(struct wren_tsch *t, uint8_t next_phase)
{
    struct wren_netdev *dev = t->nif->netif.dev;
    uint8_t off = 0;
    wren_tsch_radio(t, true);
    dev->driver->set(dev, WREN_NETOPT_CCA_BEFORE_TX, &off, 1);
    struct wren_iolist iol = { .base = t->buf, .len = t->psdu_len };
    t->phase = next_phase;
    if (dev->driver->send(dev, &iol) < 0) {
        t->nif->netif.stats.tx_drop_dev++;
        if (next_phase == TSCH_PH_TX_WAIT) {
            wren_tsch_tx_result(t, false);
        }
        wren_tsch_end_slot(t);
    }
}

void wren_tsch_timer_cb(struct wren_timer *tm, void *arg)
{
    (void)tm;
    struct wren_tsch *t = arg;
    uint64_t now = now_of(t);
    switch (t->phase) {
    case TSCH_PH_SCAN:
        scan_hop(t);
        break;
    case TSCH_PH_SLOT:
        slot_begin(t);
        break;
    case TSCH_PH_TX:
        send_buf(t, TSCH_PH_TX_WAIT);
        break;
    case TSCH_PH_ACK_ON:
        wren_tsch_radio(t, true);
        set_at(t, TSCH_PH_ACK_WAIT, t->tx_end + t->cfg.ack_delay_us + t->cfg.ack_wait_us / 2u);
        break;
    case TSCH_PH_ACK_WAIT:
        if (radio_receiving(t)) {
            /* an ACK began inside the window: let it finish */
            set_at(t, TSCH_PH_ACK_RX, now + tsch_airtime_us(127));
            break;
        }
        /* fall through */
    case TSCH_PH_ACK_RX:
        wren_tsch_tx_result(t, false);
        wren_tsch_end_slot(t);
        break;
    case TSCH_PH_RX_ON:
        wren_tsch_radio(t, true);
        t->rx_busy = 0;
        set_at(t, TSCH_PH_RX_MID, t->slot_start + t->cfg.tx_offset_us + RX_MID_US);
        break;
    case TSCH_PH_RX_MID:
        t->rx_busy = radio_receiving(t);
        set_at(t, TSCH_PH_RX_WAIT, t->slot_start + t->cfg.tx_offset_us + t->cfg.rx_wait_us / 2u);
        break;
    case TSCH_PH_RX_WAIT: {
        bool busy = radio_receiving(t) || t->rx_busy;
        wren_tsch_shared_heard(t, busy);
        if (busy) {
            set_at(t, TSCH_PH_RX_BUSY, now + tsch_airtime_us(127));
            break;
        }
        t->stats.rx_idle++;
        wren_tsch_end_slot(t);
        break;
    }
    case TSCH_PH_RX_BUSY:
        wren_tsch_end_slot(t); /* the frame never completed (lost) */
        break;
    case TSCH_PH_ACK_SEND:
        send_buf(t, TSCH_PH_ACK_SENDING);
        break;
    default:
        break;
    }
}

void wren_tsch_tx_event(struct wren_ieee802154_netif *nif, enum wren_netdev_event ev)
{
    struct wren_tsch *t = nif->tsch;
    if (t->phase == TSCH_PH_ACK_SENDING) {
        wren_tsch_end_slot(t);
        return;
    }
    if (t->phase != TSCH_PH_TX_WAIT) {
        return;
    }
    if (ev != WREN_NETDEV_EV_TX_COMPLETE) {
        /* not on the air (no CCA is asked for: the radio refused) */
        wren_tsch_tx_result(t, false);
        wren_tsch_end_slot(t);
        return;
    }
    t->tx_end = now_of(t);
    if (!t->ack_req) {
        wren_tsch_tx_result(t, true);
        wren_tsch_end_slot(t);
        return;
    }
    /* listen for the Enh-ACK from ack_delay - ack_wait/2 after our frame */
    wren_tsch_radio(t, false);
    set_at(t, TSCH_PH_ACK_ON, t->tx_end + t->cfg.ack_delay_us - t->cfg.ack_wait_us / 2u);
}

void wren_tsch_recv(struct wren_ieee802154_netif *nif, struct wren_snip *pkt,
                    const struct wren_netdev_rx_info *info)
{
    struct wren_tsch *t = nif->tsch;
    struct wren_netdev *dev = nif->netif.dev;
    uint64_t now = now_of(t);
    uint64_t rx_start;
    if (dev->driver->get(dev, WREN_NETOPT_RX_TIMESTAMP, &rx_start, sizeof(rx_start)) !=
        sizeof(rx_start)) {
        /* a radio that does not time frames: it reports them as they end */
        rx_start = now - tsch_airtime_us((unsigned)pkt->size + 2u);
    }
    t->tx_end = rx_start + tsch_airtime_us((unsigned)pkt->size + 2u);
    wren_tsch_rx_frame(t, pkt, info, rx_start);
}

#endif /* CONFIG_WREN_TSCH */
