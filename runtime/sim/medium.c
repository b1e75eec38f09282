#include "sim/medium.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/byteorder.h"
#include "link/ieee802154_link.h"
#include "wire/ieee802154.h"

#define PEND_TX 0x01
#define PEND_RX 0x02

/* ---- state and time accounting ---------------------------------------- */

static uint64_t now_of(const struct wren_sim_radio *r)
{
    return r->medium->world->now;
}

void wren_sim_radio_sync_time(struct wren_sim_radio *r)
{
    uint64_t now = now_of(r);
    r->time_in[r->state] += now - r->state_since;
    r->state_since = now;
}

static void set_state(struct wren_sim_radio *r, uint8_t state)
{
    if (r->state != state) {
        wren_sim_radio_sync_time(r);
        r->state = state;
    }
}

static void raise_isr(struct wren_sim_radio *r, uint8_t what)
{
    r->pending |= what;
    if (r->netdev.event_cb) {
        r->netdev.event_cb(&r->netdev, WREN_NETDEV_EV_ISR);
    }
}

/* ---- the channel ------------------------------------------------------- */

/* whether a frame over @p l can get through at all (else it only interferes) */
static inline bool delivers(const struct wren_sim_link *l)
{
    return l->prr != 0 || l->ln_prr_octet <= 0;
}

double wren_sim_link_prr(const struct wren_sim_link *l, unsigned psdu_len)
{
    if (l->ln_prr_octet > 0) {
        return l->prr / 65535.0;
    }
    return exp((double)l->ln_prr_octet * psdu_len);
}

/* what the radio puts on the air: the uploaded frame or its own ACK */
static const uint8_t *air_buf(const struct wren_sim_radio *r)
{
    return r->air_ack ? r->ack_buf : r->tx_buf;
}

static uint8_t air_len(const struct wren_sim_radio *r)
{
    return r->air_ack ? (uint8_t)sizeof(r->ack_buf) : r->tx_len;
}

/* The receivers of a frame lie scattered over the nodes' memory: ask for
 * the radio a few links ahead while handling this one, so that the cache
 * misses overlap instead of queueing one after another. */
#define PREFETCH_AHEAD 4u
#define PREFETCH_BURST 16u

/* the lines a frame's start and end read and write: channel, state,
 * tx_phase, audible, rx_from; state_since and time_in */
static inline void prefetch_radio(const struct wren_sim_radio *r)
{
    __builtin_prefetch(&r->channel, 1);
    __builtin_prefetch(&r->state_since, 1);
}

static inline void prefetch_rx(const struct wren_medium *m, const struct wren_sim_radio *tx,
                               uint32_t i)
{
    if (i + PREFETCH_AHEAD >= PREFETCH_BURST && i + PREFETCH_AHEAD < tx->n_links) {
        prefetch_radio(m->radios[tx->links[i + PREFETCH_AHEAD].to]);
    }
}

static void frame_starts(struct wren_sim_radio *tx)
{
    struct wren_medium *m = tx->medium;
    for (uint32_t i = 0; i < tx->n_links && i < PREFETCH_BURST; i++) {
        prefetch_radio(m->radios[tx->links[i].to]);
    }
    for (uint32_t i = 0; i < tx->n_links; i++) {
        prefetch_rx(m, tx, i);
        const struct wren_sim_link *l = &tx->links[i];
        struct wren_sim_radio *rx = m->radios[l->to];
        if (rx->channel != tx->channel) {
            continue;
        }
        rx->audible++;
        if (rx->state == WREN_NETOPT_STATE_OFF) {
            if (delivers(l)) {
                rx->stats.rx_while_off++;
            }
        } else if (rx->tx_phase >= SIM_TX_TURNAROUND) {
            if (delivers(l)) {
                rx->stats.rx_while_tx++;
            }
        } else if (rx->rx_from) {
            /* overlap: the frame being received is lost (unless it captures
             * the receiver), and so is this one */
            if (m->capture <= 0 || wren_world_random_unit(m->world) >= m->capture) {
                rx->rx_corrupt = true;
            }
            if (delivers(l)) {
                rx->stats.rx_collisions++;
            }
        } else if (rx->audible > 1) {
            /* something else is already on the air here */
            if (delivers(l)) {
                rx->stats.rx_collisions++;
            }
        } else if (delivers(l)) {
            rx->rx_from = tx;
            rx->rx_corrupt = false;
            rx->rx_start = m->world->now;
            set_state(rx, WREN_NETOPT_STATE_RX);
        }
    }
}

static void tx_start(struct wren_sim_radio *r, bool ack, bool cca);

/* whether the frame in rx_buf asks an ACK of this radio (its address, its PAN) */
static bool acks_for_us(const struct wren_sim_radio *r, uint8_t *seq)
{
    struct ieee802154_frame f;
    if (wren_ieee802154_parse(r->rx_buf, r->rx_len - IEEE802154_FCS_LEN, &f) < 0 ||
        !f.hdr.ack_req || f.hdr.seq_suppressed || f.hdr.dst_pan != r->pan ||
        (f.hdr.type != IEEE802154_TYPE_DATA && f.hdr.type != IEEE802154_TYPE_CMD)) {
        return false;
    }
    *seq = f.hdr.seq;
    if (f.hdr.dst_mode == IEEE802154_ADDR_SHORT) {
        return memcmp(f.hdr.dst_addr, r->short_addr, 2) == 0;
    }
    return f.hdr.dst_mode == IEEE802154_ADDR_EXT && memcmp(f.hdr.dst_addr, r->long_addr, 8) == 0;
}

/* the receive-side upload: the radio ACKs the frame now (no TX event: the MAC
 * did not send it), and its node gets it when the bus has read it out */
static void rx_upload(struct wren_sim_radio *r)
{
    struct wren_world *w = r->medium->world;
    uint8_t seq;
    r->auto_acked = false;
    if (acks_for_us(r, &seq) && r->tx_phase == SIM_TX_IDLE) {
        uint8_t ack[3] = { IEEE802154_TYPE_ACK, 0, seq };
        memcpy(r->ack_buf, ack, sizeof(ack));
        put_le16(r->ack_buf + sizeof(ack), wren_ieee802154_fcs(ack, sizeof(ack)));
        r->ack_silent = true;
        r->auto_acked = true;
        r->auto_ack_seq = seq;
        tx_start(r, true, false);
    }
    uint64_t start = r->bus_until > w->now ? r->bus_until : w->now;
    r->bus_until = start + (uint64_t)r->rx_proc_delay_us * r->rx_len / WREN_PHY_MAX_PSDU;
    r->rx_uploading = true;
    wren_world_timer_set(w, &r->rx_timer, r->bus_until);
}

static void rx_timer_cb(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_sim_radio *r = arg;
    r->rx_uploading = false;
    raise_isr(r, PEND_RX);
}

static void deliver(struct wren_sim_radio *rx, const struct wren_sim_radio *tx,
                    const struct wren_sim_link *l)
{
    if (rx->rx_ready) {
        rx->stats.rx_overrun++;
        return;
    }
    memcpy(rx->rx_buf, air_buf(tx), air_len(tx));
    rx->rx_len = air_len(tx);
    rx->rx_stamp = rx->rx_start;
    rx->rx_rssi = l->rssi;
    rx->rx_lqi = (uint8_t)(l->prr >> 8);
    rx->rx_ready = true;
    rx->stats.rx_frames++;
    if (rx->rx_proc_delay_us) {
        rx_upload(rx);
        return;
    }
    raise_isr(rx, PEND_RX);
}

static void frame_ends(struct wren_sim_radio *tx)
{
    struct wren_medium *m = tx->medium;
    uint64_t now = m->world->now;
    for (uint32_t i = 0; i < tx->n_links && i < PREFETCH_BURST; i++) {
        prefetch_radio(m->radios[tx->links[i].to]);
    }
    for (uint32_t i = 0; i < tx->n_links; i++) {
        prefetch_rx(m, tx, i);
        const struct wren_sim_link *l = &tx->links[i];
        struct wren_sim_radio *rx = m->radios[l->to];
        if (rx->channel != tx->channel) {
            continue;
        }
        if (--rx->audible == 0) {
            rx->quiet_since = now;
        }
        if (rx->rx_from != tx) {
            continue;
        }
        rx->rx_from = NULL;
        set_state(rx, WREN_NETOPT_STATE_IDLE);
        if (rx->rx_corrupt) {
            rx->stats.rx_collisions++;
        } else if (l->ln_prr_octet > 0
                       ? (l->prr == UINT16_MAX ||
                          wren_world_random_unit(m->world) * 65535.0 < (double)l->prr)
                       : wren_world_random_unit(m->world) < wren_sim_link_prr(l, air_len(tx))) {
            deliver(rx, tx, l);
        } else {
            rx->stats.rx_link_loss++;
        }
    }
}

/* from the frame (or ACK) in the radio to CCA or turnaround */
static void tx_start(struct wren_sim_radio *r, bool ack, bool cca)
{
    struct wren_world *w = r->medium->world;
    r->air_ack = ack;
    if (cca) {
        r->tx_phase = SIM_TX_CCA;
        r->cca_start = w->now;
        wren_world_timer_set(w, &r->tx_timer, w->now + WREN_PHY_CCA_US);
    } else {
        r->tx_phase = SIM_TX_TURNAROUND;
        wren_world_timer_set(w, &r->tx_timer, w->now + WREN_PHY_TURNAROUND_US);
    }
}

/* the end of the processing delay: the frame is in the radio */
static void proc_timer_cb(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_sim_radio *r = arg;
    if (r->tx_phase != SIM_TX_IDLE) {
        r->proc_phase = SIM_PROC_WAIT; /* our ACK is going out: after it */
        return;
    }
    r->proc_phase = SIM_PROC_IDLE;
    tx_start(r, false, r->tx_cca);
}

static void tx_timer_cb(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_sim_radio *r = arg;
    struct wren_world *w = r->medium->world;
    switch (r->tx_phase) {
    case SIM_TX_CCA:
        if (r->audible > 0 || r->quiet_since > r->cca_start) {
            r->stats.cca_busy++;
            r->tx_phase = SIM_TX_IDLE;
            r->tx_result = WREN_NETDEV_EV_TX_MEDIUM_BUSY;
            raise_isr(r, PEND_TX);
            return;
        }
        r->tx_phase = SIM_TX_TURNAROUND;
        wren_world_timer_set(w, &r->tx_timer, w->now + WREN_PHY_TURNAROUND_US);
        return;
    case SIM_TX_TURNAROUND:
        if (r->rx_from) {
            /* half-duplex: starting to send abandons the reception */
            r->rx_from = NULL;
            r->stats.rx_while_tx++;
        }
        r->tx_phase = SIM_TX_ON_AIR;
        set_state(r, WREN_NETOPT_STATE_TX);
        r->stats.tx_frames++;
        r->stats.tx_bytes += air_len(r);
        wren_pcap_write_154(&r->medium->pcap, w->now, air_buf(r), air_len(r), r->channel);
        frame_starts(r);
        wren_world_timer_set(w, &r->tx_timer, w->now + wren_phy_airtime_us(air_len(r)));
        return;
    case SIM_TX_ON_AIR:
        frame_ends(r);
        r->tx_phase = SIM_TX_IDLE;
        set_state(r, WREN_NETOPT_STATE_IDLE);
        if (!r->ack_silent) {
            r->tx_result = WREN_NETDEV_EV_TX_COMPLETE;
            raise_isr(r, PEND_TX);
        }
        r->ack_silent = false;
        if (r->proc_phase == SIM_PROC_WAIT) {
            /* the frame uploaded meanwhile goes now */
            r->proc_phase = SIM_PROC_IDLE;
            tx_start(r, false, r->tx_cca);
        }
        return;
    default:
        return;
    }
}

/* ---- the netdev driver ------------------------------------------------- */

static struct wren_sim_radio *radio_of(struct wren_netdev *dev)
{
    return (struct wren_sim_radio *)dev;
}

static int radio_init(struct wren_netdev *dev)
{
    struct wren_sim_radio *r = radio_of(dev);
    set_state(r, WREN_NETOPT_STATE_IDLE);
    return 0;
}

static int radio_send(struct wren_netdev *dev, const struct wren_iolist *iol)
{
    struct wren_sim_radio *r = radio_of(dev);
    struct wren_world *w = r->medium->world;
    if (r->state == WREN_NETOPT_STATE_OFF) {
        return -ENETDOWN;
    }
    size_t len = wren_iolist_size(iol);
    /* an Imm-Ack is the radio's own frame: no upload, and it may go out
     * while another frame is being uploaded */
    bool ack = len + IEEE802154_FCS_LEN == sizeof(r->ack_buf) && iol->len &&
               (((const uint8_t *)iol->base)[0] & 0x07) == IEEE802154_TYPE_ACK;
    if (ack && r->auto_acked && iol->len == 3 &&
        ((const uint8_t *)iol->base)[2] == r->auto_ack_seq) {
        r->auto_acked = false; /* the radio sent it at the frame's end */
        return (int)len;
    }
    if (r->tx_phase != SIM_TX_IDLE || (r->pending & PEND_TX) ||
        (!ack && r->proc_phase != SIM_PROC_IDLE)) {
        return -EBUSY;
    }
    if (len + IEEE802154_FCS_LEN > WREN_PHY_MAX_PSDU) {
        return -EMSGSIZE;
    }
    uint8_t *buf = ack ? r->ack_buf : r->tx_buf;
    size_t off = 0;
    for (; iol; iol = iol->next) {
        if (iol->len) {
            memcpy(buf + off, iol->base, iol->len);
        }
        off += iol->len;
    }
    /* the radio appends the FCS, as real transceivers do */
    put_le16(buf + len, wren_ieee802154_fcs(buf, len));
    if (ack) {
        r->ack_silent = r->proc_phase != SIM_PROC_IDLE;
        r->stats.ack_during_proc += r->ack_silent;
        tx_start(r, true, r->cca_before_tx);
        return (int)len;
    }
    r->tx_len = (uint8_t)(len + IEEE802154_FCS_LEN);
    r->tx_cca = r->cca_before_tx; /* an ACK during the upload may change it */
    if (r->proc_delay_us) {
        /* the upload: proc_delay_us for a full frame, pro rata below */
        uint64_t d = (uint64_t)r->proc_delay_us * r->tx_len / WREN_PHY_MAX_PSDU;
        uint64_t start = r->bus_until > w->now ? r->bus_until : w->now;
        r->stats.proc_us += d;
        r->proc_phase = SIM_PROC_BUSY;
        r->bus_until = start + d;
        wren_world_timer_set(w, &r->proc_timer, r->bus_until);
        return (int)len;
    }
    tx_start(r, false, r->tx_cca);
    return (int)len;
}

static int radio_recv(struct wren_netdev *dev, void *buf, size_t len,
                      struct wren_netdev_rx_info *info)
{
    struct wren_sim_radio *r = radio_of(dev);
    if (!r->rx_ready || r->rx_uploading) {
        return 0;
    }
    /* the radio checked and strips the FCS */
    bool taken;
    int res = wren_netdev_recv_held(r->rx_buf, r->rx_len - IEEE802154_FCS_LEN,
                                    r->rx_rssi, r->rx_lqi, buf, len, info,
                                    &taken);
    if (taken) {
        r->rx_ready = false;
    }
    return res;
}

static void radio_isr(struct wren_netdev *dev)
{
    struct wren_sim_radio *r = radio_of(dev);
    uint8_t p = r->pending;
    r->pending = 0;
    if (p & PEND_TX) {
        dev->event_cb(dev, (enum wren_netdev_event)r->tx_result);
    }
    if ((p & PEND_RX) && r->rx_ready) {
        dev->event_cb(dev, WREN_NETDEV_EV_RX_COMPLETE);
        if (r->rx_ready) {
            /* the stack did not take it: free the buffer */
            r->rx_ready = false;
        }
    }
}

static int radio_get(struct wren_netdev *dev, uint16_t opt, void *val, size_t max)
{
    struct wren_sim_radio *r = radio_of(dev);
    uint16_t v16;
    uint8_t b;
    switch (opt) {
    case WREN_NETOPT_CHANNEL:
        return wren_netopt_put(val, max, &r->channel, 2);
    case WREN_NETOPT_ADDRESS:
        return wren_netopt_put(val, max, r->short_addr, 2);
    case WREN_NETOPT_ADDRESS_LONG:
        return wren_netopt_put(val, max, r->long_addr, 8);
    case WREN_NETOPT_NID:
        return wren_netopt_put(val, max, &r->pan, 2);
    case WREN_NETOPT_TX_POWER:
        return wren_netopt_put(val, max, &r->tx_power, 2);
    case WREN_NETOPT_MAX_PDU_SIZE:
        v16 = WREN_PHY_MAX_PSDU - IEEE802154_FCS_LEN;
        return wren_netopt_put(val, max, &v16, 2);
    case WREN_NETOPT_CCA_BEFORE_TX:
        b = r->cca_before_tx;
        return wren_netopt_put(val, max, &b, 1);
    case WREN_NETOPT_STATE:
        return wren_netopt_put(val, max, &r->state, 1);
    case WREN_NETOPT_DEVICE_TYPE:
        v16 = WREN_NETDEV_TYPE_IEEE802154;
        return wren_netopt_put(val, max, &v16, 2);
    case WREN_NETOPT_RSSI_LAST:
        return wren_netopt_put(val, max, &r->rx_rssi, 2);
    case WREN_NETOPT_RX_TIMESTAMP: {
        uint64_t ts = r->clock ? wren_world_clock_local(r->clock, r->rx_stamp) : r->rx_stamp;
        return wren_netopt_put(val, max, &ts, 8);
    }
    case WREN_NETOPT_TX_DELAY: {
        /* true microseconds: a local clock within 1000 ppm reads them the
         * same to well under 1 us */
        uint32_t d = WREN_PHY_TURNAROUND_US + r->proc_delay_us;
        return wren_netopt_put(val, max, &d, 4);
    }
    case WREN_NETOPT_DEV_STATS: {
        struct wren_sim_radio_dev_stats d;
        wren_sim_radio_sync_time(r);
        memcpy(&d, &r->stats, sizeof(r->stats));
        d.time_off_us = r->time_in[WREN_NETOPT_STATE_OFF];
        d.time_listen_us = r->time_in[WREN_NETOPT_STATE_IDLE];
        d.time_rx_us = r->time_in[WREN_NETOPT_STATE_RX];
        d.time_tx_us = r->time_in[WREN_NETOPT_STATE_TX];
        return wren_netopt_put(val, max, &d, sizeof(d));
    }
    case WREN_NETOPT_RADIO_TIME: {
        wren_sim_radio_sync_time(r);
        struct wren_radio_time t = {
            .off = r->time_in[WREN_NETOPT_STATE_OFF],
            .listen = r->time_in[WREN_NETOPT_STATE_IDLE],
            .rx = r->time_in[WREN_NETOPT_STATE_RX],
            .tx = r->time_in[WREN_NETOPT_STATE_TX],
        };
        return wren_netopt_put(val, max, &t, sizeof(t));
    }
    default:
        return -ENOTSUP;
    }
}

/* the radio stops receiving the frame it locked onto (switched off, retuned) */
static void rx_abort(struct wren_sim_radio *r)
{
    if (r->rx_from) {
        r->rx_from = NULL;
        r->stats.rx_aborted++;
        set_state(r, WREN_NETOPT_STATE_IDLE);
    }
}

/* links of @p o's frame on the air that reach @p r */
static uint16_t audible_from(const struct wren_sim_radio *o, const struct wren_sim_radio *r)
{
    uint16_t k = 0;
    if (o == r || o->tx_phase != SIM_TX_ON_AIR || o->channel != r->channel) {
        return 0;
    }
    for (uint32_t i = 0; i < o->n_links; i++) {
        k += o->links[i].to == r->index;
    }
    return k;
}

/* SET CHANNEL: 11..26, not while sending; with only the models' links, the
 * radios that can reach it are in the grid's cells around it */
static int set_channel(struct wren_sim_radio *r, const void *val, size_t len)
{
    uint16_t ch;
    if (len != 2 || (memcpy(&ch, val, 2), ch < 11 || ch > 26)) {
        return -EINVAL;
    }
    if (r->tx_phase >= SIM_TX_TURNAROUND) {
        return -EBUSY;
    }
    if (ch == r->channel) {
        return 0;
    }
    rx_abort(r);
    /* what this radio hears is per channel: recount on the new one (it
     * hears those frames' energy but locks onto none of them) */
    r->channel = ch;
    r->audible = 0;
    struct wren_medium *m = r->medium;
    double xyz[3] = { r->x, r->y, r->z };
    bool near = !m->links_far && m->grid.reach > 0 && wren_sim_grid_near(&m->grid, xyz) == 0;
    uint32_t n = near ? m->grid.n_found : m->n_radios;
    for (uint32_t j = 0; j < n; j++) {
        r->audible += audible_from(m->radios[near ? m->grid.found[j] : j], r);
    }
    return 0;
}

/* SET STATE: off or on (idle/rx), not while sending or uploading */
static int set_radio_state(struct wren_sim_radio *r, const void *val, size_t len)
{
    uint8_t s;
    if (len != 1 || (memcpy(&s, val, 1), s > WREN_NETOPT_STATE_IDLE)) {
        return -EINVAL;
    }
    if (r->tx_phase != SIM_TX_IDLE || r->proc_phase != SIM_PROC_IDLE) {
        return -EBUSY;
    }
    if (s == WREN_NETOPT_STATE_OFF) {
        rx_abort(r);
    } else if (r->state == WREN_NETOPT_STATE_RX) {
        return 0; /* on already, and receiving */
    }
    set_state(r, s);
    return 0;
}

static int radio_set(struct wren_netdev *dev, uint16_t opt, const void *val, size_t len)
{
    struct wren_sim_radio *r = radio_of(dev);
    switch (opt) {
    case WREN_NETOPT_CHANNEL:
        return set_channel(r, val, len);
    case WREN_NETOPT_ADDRESS:
        return len == 2 ? (memcpy(r->short_addr, val, 2), 0) : -EINVAL;
    case WREN_NETOPT_ADDRESS_LONG:
        return len == 8 ? (memcpy(r->long_addr, val, 8), 0) : -EINVAL;
    case WREN_NETOPT_NID:
        return len == 2 ? (memcpy(&r->pan, val, 2), 0) : -EINVAL;
    case WREN_NETOPT_TX_POWER:
        return len == 2 ? (memcpy(&r->tx_power, val, 2), 0) : -EINVAL;
    case WREN_NETOPT_CCA_BEFORE_TX:
        if (len != 1) {
            return -EINVAL;
        }
        r->cca_before_tx = *(const uint8_t *)val != 0;
        return 0;
    case WREN_NETOPT_STATE:
        return set_radio_state(r, val, len);
    default:
        return -ENOTSUP;
    }
}

static const struct wren_counter_set sim_radio_counters =
    WREN_COUNTER_SET("radio", WREN_SIM_RADIO_DEV_COUNTERS, WREN_NETOPT_DEV_STATS, uint64_t);

static const struct wren_netdev_driver sim_radio_driver = {
    .counters = &sim_radio_counters,
    .init = radio_init,
    .send = radio_send,
    .recv = radio_recv,
    .isr = radio_isr,
    .get = radio_get,
    .set = radio_set,
};

/* ---- topology ---------------------------------------------------------- */

void wren_medium_init(struct wren_medium *m, struct wren_world *w)
{
    memset(m, 0, sizeof(*m));
    m->world = w;
    m->range_prr = UINT16_MAX;
}

void wren_medium_destroy(struct wren_medium *m)
{
    for (uint32_t i = 0; i < m->n_radios; i++) {
        free(m->radios[i]->links);
        m->radios[i]->links = NULL;
        m->radios[i]->n_links = m->radios[i]->cap_links = 0;
    }
    free(m->radios);
    m->radios = NULL;
    wren_sim_grid_destroy(&m->grid);
    m->n_radios = m->cap_radios = 0;
    wren_pcap_close(&m->pcap);
}

void wren_medium_set_range(struct wren_medium *m, double range, double prr)
{
    m->range = range;
    m->range_prr = (uint16_t)lround((prr < 0 ? 0 : prr > 1 ? 1 : prr) * 65535.0);
}

int wren_medium_set_pathloss(struct wren_medium *m, const struct wren_pathloss *p,
                             uint64_t seed)
{
    if (p == NULL) {
        m->pathloss_on = false;
        return 0;
    }
    if (!wren_pathloss_valid(p)) {
        return -EINVAL;
    }
    m->pathloss = *p;
    m->pathloss_seed = seed;
    m->pathloss_on = true;
    return 0;
}

const struct wren_sim_link *wren_medium_link(const struct wren_medium *m, uint32_t from,
                                             uint32_t to)
{
    if (from >= m->n_radios) {
        return NULL;
    }
    const struct wren_sim_radio *r = m->radios[from];
    for (uint32_t i = 0; i < r->n_links; i++) {
        if (r->links[i].to == to) {
            return &r->links[i];
        }
    }
    return NULL;
}

void wren_medium_set_proc_delay(struct wren_medium *m, uint32_t us)
{
    m->proc_delay_us = us;
}

void wren_medium_set_rx_proc_delay(struct wren_medium *m, uint32_t us)
{
    m->rx_proc_delay_us = us;
}

void wren_medium_set_capture(struct wren_medium *m, double p)
{
    m->capture = p < 0 ? 0 : p > 1 ? 1 : p;
}

static int16_t rssi_at(double d)
{
    /* log-distance path loss from 0 dBm: -40 dBm at 1 m, exponent 3 */
    double rssi = -40.0 - 30.0 * log10(d < 1.0 ? 1.0 : d);
    return (int16_t)lround(rssi < -100 ? -100 : rssi);
}

static struct wren_sim_link *find_link(struct wren_sim_radio *r, uint32_t to)
{
    for (uint32_t i = 0; i < r->n_links; i++) {
        if (r->links[i].to == to) {
            return &r->links[i];
        }
    }
    return NULL;
}

static int put_link(struct wren_sim_radio *from, uint32_t to, uint16_t prr, int16_t rssi,
                    float ln_prr_octet)
{
    if (from->tx_phase == SIM_TX_ON_AIR) {
        return -EBUSY; /* links of a frame on the air must not change under it */
    }
    struct wren_sim_link *l = find_link(from, to);
    if (l == NULL) {
        if (from->n_links == from->cap_links) {
            uint32_t cap = from->cap_links ? from->cap_links * 2 : 8;
            struct wren_sim_link *n = realloc(from->links, cap * sizeof(*n));
            if (n == NULL) {
                return -ENOMEM;
            }
            from->links = n;
            from->cap_links = cap;
        }
        l = &from->links[from->n_links++];
        l->to = to;
    }
    l->prr = prr;
    l->rssi = rssi;
    l->ln_prr_octet = ln_prr_octet;
    return 0;
}

/* the model's reach: no radio further away gets a link (0: no model) */
static double model_reach(const struct wren_medium *m)
{
    if (m->pathloss_on) {
        /* the strongest shadowing wren_pathloss_rssi can draw: Box-Muller's
         * u1 is at least 2^-54, so |z| <= sqrt(108 ln 2) = 8.652 */
        const struct wren_pathloss *p = &m->pathloss;
        double budget = p->tx_power_dbm - p->ref_loss_db + p->sigma_db * 8.66 - p->noise_dbm -
                        WREN_PATHLOSS_MIN_SNR_DB;
        double d = pow(10.0, budget / (10.0 * p->exponent));
        return d < 1.0 ? 1.0 : d > 1e12 ? 1e12 : d;
    }
    return m->range > 0 ? m->range : 0;
}

static void radio_pos(void *ctx, uint32_t i, double xyz[3])
{
    const struct wren_sim_radio *r = ((const struct wren_medium *)ctx)->radios[i];
    xyz[0] = r->x;
    xyz[1] = r->y;
    xyz[2] = r->z;
}

/* the grid in cells of the model's reach, and radio @p r filed in it; then
 * g->found holds the earlier radios that may be within reach */
static int grid_file(struct wren_medium *m, struct wren_sim_radio *r, double reach)
{
    struct wren_sim_grid *g = &m->grid;
    double xyz[3] = { r->x, r->y, r->z };
    if (reach > 0) {
        if (reach < m->max_reach) {
            m->links_far = true; /* earlier links reach further than the cells */
        }
        m->max_reach = reach > m->max_reach ? reach : m->max_reach;
        if (wren_sim_grid_set_reach(g, reach, radio_pos, m) < 0) {
            return -ENOMEM;
        }
    }
    g->n_found = 0;
    if (reach > 0 && wren_sim_grid_near(g, xyz) < 0) {
        return -ENOMEM;
    }
    return wren_sim_grid_add(g, xyz);
}

static int link_pathloss(struct wren_medium *m, struct wren_sim_radio *r, uint32_t i)
{
    struct wren_sim_radio *o = m->radios[i];
    double dx = o->x - r->x, dy = o->y - r->y, dz = o->z - r->z;
    double d = sqrt(dx * dx + dy * dy + dz * dz);
    double rssi = wren_pathloss_rssi(&m->pathloss, d, m->pathloss_seed, i, r->index);
    double snr = rssi - m->pathloss.noise_dbm;
    if (snr < WREN_PATHLOSS_MIN_SNR_DB) {
        return 0;
    }
    double prr = wren_pathloss_prr(snr, WREN_PHY_MAX_PSDU);
    float lpo = (float)(8.0 * log1p(-wren_pathloss_ber(snr)));
    int16_t rs = (int16_t)lround(rssi < -200 ? -200 : rssi > 100 ? 100 : rssi);
    uint16_t p = (uint16_t)lround(prr * 65535.0);
    if (put_link(o, r->index, p, rs, lpo) < 0 || put_link(r, i, p, rs, lpo) < 0) {
        return -ENOMEM;
    }
    return 0;
}

static int link_range(struct wren_medium *m, struct wren_sim_radio *r, uint32_t i)
{
    struct wren_sim_radio *o = m->radios[i];
    double dx = o->x - r->x, dy = o->y - r->y, dz = o->z - r->z;
    double d = sqrt(dx * dx + dy * dy + dz * dz);
    if (!(d <= m->range)) { /* NaN too */
        return 0;
    }
    int16_t rssi = rssi_at(d);
    if (put_link(o, r->index, m->range_prr, rssi, WREN_SIM_LINK_FIXED) < 0 ||
        put_link(r, i, m->range_prr, rssi, WREN_SIM_LINK_FIXED) < 0) {
        return -ENOMEM;
    }
    return 0;
}

static void radio_defaults(struct wren_medium *m, struct wren_sim_radio *r)
{
    r->netdev.driver = &sim_radio_driver;
    r->medium = m;
    r->index = m->n_radios;
    r->channel = 26;
    r->pan = 0x0023;
    r->state = WREN_NETOPT_STATE_OFF;
    r->state_since = m->world->now;
    uint32_t id = r->index;
    put_be16(r->short_addr, id < 0xfffe ? (uint16_t)id : 0xfffe);
    wren_ieee802154_eui64_from_id(id, r->long_addr); /* as wren-node's for the same id */
    r->proc_delay_us = m->proc_delay_us;
    r->rx_proc_delay_us = m->rx_proc_delay_us;
    wren_timer_init(&r->tx_timer, tx_timer_cb, r);
    wren_timer_init(&r->rx_timer, rx_timer_cb, r);
    wren_timer_init(&r->proc_timer, proc_timer_cb, r);
}

int wren_medium_add_radio(struct wren_medium *m, struct wren_sim_radio *r, double x,
                          double y, double z)
{
    if (m->n_radios == m->cap_radios) {
        uint32_t cap = m->cap_radios ? m->cap_radios * 2 : 64;
        struct wren_sim_radio **n = realloc(m->radios, cap * sizeof(*n));
        if (n == NULL) {
            return -ENOMEM;
        }
        m->radios = n;
        m->cap_radios = cap;
    }
    memset(r, 0, sizeof(*r));
    radio_defaults(m, r);
    r->x = x;
    r->y = y;
    r->z = z;
    double reach = model_reach(m);
    if (grid_file(m, r, reach) < 0) {
        return -ENOMEM;
    }
    m->radios[m->n_radios++] = r;
    /* the earlier radios near it, in index order: the links come out in
     * the order a scan of every radio made them */
    const struct wren_sim_grid *g = &m->grid;
    for (uint32_t k = 0; reach > 0 && k < g->n_found; k++) {
        if ((m->pathloss_on ? link_pathloss : link_range)(m, r, g->found[k]) < 0) {
            return -ENOMEM;
        }
    }
    return (int)r->index;
}

int wren_medium_set_link(struct wren_medium *m, uint32_t from, uint32_t to, double prr)
{
    if (from >= m->n_radios || to >= m->n_radios || from == to) {
        return -EINVAL;
    }
    struct wren_sim_radio *a = m->radios[from], *b = m->radios[to];
    m->links_far = true; /* at any distance: the grid no longer covers every link */
    double dx = a->x - b->x, dy = a->y - b->y, dz = a->z - b->z;
    uint16_t p = (uint16_t)lround((prr < 0 ? 0 : prr > 1 ? 1 : prr) * 65535.0);
    return put_link(a, to, p, rssi_at(sqrt(dx * dx + dy * dy + dz * dz)), WREN_SIM_LINK_FIXED);
}

void wren_medium_remove_link(struct wren_medium *m, uint32_t from, uint32_t to)
{
    if (from >= m->n_radios) {
        return;
    }
    struct wren_sim_radio *r = m->radios[from];
    struct wren_sim_link *l = find_link(r, to);
    if (l && r->tx_phase != SIM_TX_ON_AIR) {
        *l = r->links[--r->n_links];
    }
}

int wren_medium_inject(struct wren_medium *m, uint32_t index, const uint8_t *psdu, size_t len)
{
    if (index >= m->n_radios) {
        return -EINVAL;
    }
    if (len > WREN_PHY_MAX_PSDU) {
        return -EMSGSIZE;
    }
    struct wren_sim_radio *r = m->radios[index];
    if (r->rx_ready) {
        return -EBUSY;
    }
    if (wren_ieee802154_fcs_check(psdu, len) < 0) {
        r->stats.rx_bad_fcs++;
        return 0;
    }
    memcpy(r->rx_buf, psdu, len);
    r->rx_len = (uint8_t)len;
    /* as if it had just ended on the air */
    uint64_t air = wren_phy_airtime_us((unsigned)len);
    r->rx_stamp = m->world->now > air ? m->world->now - air : 0;
    r->rx_rssi = -50;
    r->rx_lqi = 255;
    r->rx_ready = true;
    r->stats.rx_frames++;
    raise_isr(r, PEND_RX);
    return 0;
}

int wren_medium_open_pcap(struct wren_medium *m, const char *path, uint32_t linktype)
{
    wren_pcap_close(&m->pcap);
    return wren_pcap_open(&m->pcap, path, linktype);
}
