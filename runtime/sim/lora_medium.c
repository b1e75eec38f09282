#include "sim/lora_medium.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wire/loratap.h"

#define PEND_TX 0x01
#define PEND_RX 0x02

/* Bor et al., MSWiM 2016, section 3 (LoRaSim: d0 = 40 m, Lpl(d0) = 127.41 dB,
 * gamma = 2.08) */
#define BOR_D0_M 40.0
#define BOR_PL_D0_DB 127.41
#define BOR_GAMMA 2.08

/* Noise figure of the link budget Semtech AN1200.22 ("LoRa Modulation
 * Basics") writes: sensitivity = -174 dBm/Hz + 10 log10(BW) + NF + SNR,
 * NF = 6 dB; the SNR a frame gets reported with */
#define LORA_NF_DB 6.0

/* ---- state and time accounting ---------------------------------------- */

static uint64_t now_of(const struct wren_lora_radio *r)
{
    return r->medium->world->now;
}

void wren_lora_radio_sync_time(struct wren_lora_radio *r)
{
    uint64_t now = now_of(r);
    r->time_in[r->state] += now - r->state_since;
    r->state_since = now;
}

static void set_state(struct wren_lora_radio *r, uint8_t state)
{
    if (r->state != state) {
        wren_lora_radio_sync_time(r);
        r->state = state;
    }
}

static void raise_isr(struct wren_lora_radio *r, uint8_t what)
{
    r->pending |= what;
    if (r->netdev.event_cb) {
        r->netdev.event_cb(&r->netdev, WREN_NETDEV_EV_ISR);
    }
}

/* ---- the channel ------------------------------------------------------- */

static double rx_dbm(const struct wren_lora_medium *m, const struct wren_lora_radio *tx,
                     const struct wren_lora_radio *rx)
{
    double dx = tx->x - rx->x, dy = tx->y - rx->y, dz = tx->z - rx->z;
    double d = sqrt(dx * dx + dy * dy + dz * dz);
    return tx->modem.tx_power + wren_pathloss_rssi(&m->pl, d, m->seed, tx->index, rx->index);
}

double wren_lora_medium_rx_dbm(const struct wren_lora_medium *m, uint32_t from, uint32_t to)
{
    if (from >= m->n_radios || to >= m->n_radios) {
        return NAN;
    }
    return rx_dbm(m, m->radios[from], m->radios[to]);
}

/* whether @p rx is tuned to what @p tx sends: frequency, SF and bandwidth */
static bool same_channel(const struct wren_lora_radio *tx, const struct wren_lora_radio *rx)
{
    return tx->modem.freq_hz == rx->modem.freq_hz && tx->modem.phy.sf == rx->modem.phy.sf &&
           tx->modem.phy.bw_khz == rx->modem.phy.bw_khz;
}

static bool audible(const struct wren_lora_radio *rx, double dbm)
{
    return dbm >= wren_lora_sensitivity_dbm(rx->modem.phy.sf, rx->modem.phy.bw_khz);
}

/* the first (preamble - 5) symbols of a frame may be lost (lora_medium.h) */
static uint64_t lock_after_us(const struct wren_lora_phy *p)
{
    unsigned spare = p->preamble > WREN_LORA_LOCK_SYMBOLS ? p->preamble - WREN_LORA_LOCK_SYMBOLS
                                                          : 0;
    return (uint64_t)spare * wren_lora_symbol_us(p);
}

/* @p rx locks onto @p tx (power @p p): frames already on the air there that
 * reach past the new one's first symbols decide whether it survives */
static void lock_on(struct wren_lora_radio *rx, struct wren_lora_radio *tx, double p)
{
    struct wren_lora_medium *m = rx->medium;
    uint64_t begin = tx->tx_begin;
    rx->rx_from = tx;
    rx->rx_start = begin;
    rx->rx_dbm = p;
    rx->rx_corrupt = false;
    rx->rx_overlapped = false;
    set_state(rx, WREN_NETOPT_STATE_RX);
    for (uint32_t i = 0; i < m->n_radios; i++) {
        struct wren_lora_radio *o = m->radios[i];
        if (o == tx || o == rx || !o->on_air || !same_channel(o, rx) ||
            o->tx_end <= begin + lock_after_us(&rx->modem.phy)) {
            continue;
        }
        double q = rx_dbm(m, o, rx);
        if (p >= q + m->capture_db) {
            rx->rx_overlapped = true;
        } else {
            rx->rx_corrupt = true;
        }
    }
}

/* @p rx, locked onto a frame, hears @p tx start (power @p q) on its channel */
static void overlap(struct wren_lora_radio *rx, struct wren_lora_radio *tx, double q)
{
    struct wren_lora_medium *m = rx->medium;
    bool can_lock = audible(rx, q) && tx->modem.syncword == rx->modem.syncword;
    if (q >= rx->rx_dbm + m->capture_db && can_lock) {
        /* the stronger later frame takes the receiver over */
        rx->stats.rx_collisions++;
        lock_on(rx, tx, q);
        rx->rx_overlapped = true;
        return;
    }
    if (rx->rx_dbm >= q + m->capture_db) {
        rx->rx_overlapped = true;
    } else {
        rx->rx_corrupt = true;
    }
    if (audible(rx, q)) {
        rx->stats.rx_busy++;
    }
}

/* what @p rx makes of @p tx's frame starting now */
static void frame_starts_at(struct wren_lora_radio *tx, struct wren_lora_radio *rx)
{
    double p = rx_dbm(tx->medium, tx, rx);
    if (!same_channel(tx, rx)) {
        if (tx->modem.freq_hz == rx->modem.freq_hz && rx->state != WREN_NETOPT_STATE_OFF && !rx->on_air &&
            p >= wren_lora_sensitivity_dbm(tx->modem.phy.sf, tx->modem.phy.bw_khz)) {
            rx->stats.rx_other_sf++;
        }
        return;
    }
    bool loud = audible(rx, p);
    if (rx->state == WREN_NETOPT_STATE_OFF) {
        rx->stats.rx_while_off += loud;
    } else if (rx->on_air) {
        rx->stats.rx_while_tx += loud;
    } else if (rx->rx_from) {
        overlap(rx, tx, p);
    } else if (!loud) {
        rx->stats.rx_below_sens++;
    } else if (tx->modem.syncword != rx->modem.syncword) {
        rx->stats.rx_other_sync++;
    } else {
        lock_on(rx, tx, p);
    }
}

static void frame_starts(struct wren_lora_radio *tx)
{
    struct wren_lora_medium *m = tx->medium;
    for (uint32_t i = 0; i < m->n_radios; i++) {
        if (m->radios[i] != tx) {
            frame_starts_at(tx, m->radios[i]);
        }
    }
}

/* @p rx came free: a frame whose preamble still has its last symbols to go
 * can be locked onto (the strongest such one) */
static void catch_up(struct wren_lora_radio *rx)
{
    struct wren_lora_medium *m = rx->medium;
    struct wren_lora_radio *best = NULL;
    double best_p = 0;
    if (rx->state == WREN_NETOPT_STATE_OFF || rx->on_air || rx->rx_from) {
        return;
    }
    for (uint32_t i = 0; i < m->n_radios; i++) {
        struct wren_lora_radio *o = m->radios[i];
        if (o == rx || !o->on_air || !same_channel(o, rx) || o->modem.syncword != rx->modem.syncword ||
            m->world->now > o->tx_begin + lock_after_us(&o->modem.phy)) {
            continue;
        }
        double p = rx_dbm(m, o, rx);
        if (audible(rx, p) && (best == NULL || p > best_p)) {
            best = o;
            best_p = p;
        }
    }
    if (best) {
        lock_on(rx, best, best_p);
    }
}

static void deliver(struct wren_lora_radio *rx, const struct wren_lora_radio *tx)
{
    if (rx->rx_ready) {
        rx->stats.rx_overrun++;
        return;
    }
    memcpy(rx->rx_buf, tx->tx_buf, tx->tx_len);
    rx->rx_len = tx->tx_len;
    rx->rx_stamp = rx->rx_start;
    rx->rx_rssi = (int16_t)lround(rx->rx_dbm < -200 ? -200 : rx->rx_dbm);
    double noise = -174.0 + 10.0 * log10(rx->modem.phy.bw_khz * 1000.0) + LORA_NF_DB;
    double snr = rx->rx_dbm - noise;
    rx->rx_snr_qdb = (int8_t)lround(snr < -32 ? -128 : snr > 31.75 ? 127 : snr * 4);
    rx->rx_ready = true;
    rx->stats.rx_frames++;
    rx->stats.rx_captured += rx->rx_overlapped;
    raise_isr(rx, PEND_RX);
}

static void frame_ends(struct wren_lora_radio *tx)
{
    struct wren_lora_medium *m = tx->medium;
    for (uint32_t i = 0; i < m->n_radios; i++) {
        struct wren_lora_radio *rx = m->radios[i];
        if (rx->rx_from != tx) {
            continue;
        }
        rx->rx_from = NULL;
        set_state(rx, WREN_NETOPT_STATE_IDLE);
        if (rx->rx_corrupt) {
            rx->stats.rx_collisions++;
        } else {
            deliver(rx, tx);
        }
        catch_up(rx);
    }
}

static void tx_timer_cb(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_lora_radio *r = arg;
    r->on_air = false;
    frame_ends(r);
    set_state(r, WREN_NETOPT_STATE_IDLE);
    catch_up(r);
    raise_isr(r, PEND_TX);
}

/* the radio stops receiving the frame it locked onto */
static void rx_abort(struct wren_lora_radio *r)
{
    if (r->rx_from) {
        r->rx_from = NULL;
        r->stats.rx_aborted++;
        set_state(r, WREN_NETOPT_STATE_IDLE);
    }
}

static void pcap_frame(struct wren_lora_radio *r)
{
    struct wren_lora_medium *m = r->medium;
    if (m->pcap.f == NULL) {
        return;
    }
    uint8_t rec[LORATAP_V0_LEN + WREN_LORA_MAX_PAYLOAD];
    struct loratap_hdr h = {
        .freq_hz = r->modem.freq_hz,
        .bw_steps = (uint8_t)(r->modem.phy.bw_khz / 125u),
        .sf = r->modem.phy.sf,
        .packet_rssi = LORATAP_RSSI_NA,
        .max_rssi = LORATAP_RSSI_NA,
        .current_rssi = LORATAP_RSSI_NA,
        .sync_word = r->modem.syncword,
    };
    wren_loratap_emit(&h, rec, LORATAP_V0_LEN);
    memcpy(rec + LORATAP_V0_LEN, r->tx_buf, r->tx_len);
    wren_pcap_write(&m->pcap, m->world->now, rec, LORATAP_V0_LEN + r->tx_len);
}

/* ---- the netdev driver ------------------------------------------------- */

static struct wren_lora_radio *radio_of(struct wren_netdev *dev)
{
    return (struct wren_lora_radio *)dev;
}

static int radio_init(struct wren_netdev *dev)
{
    set_state(radio_of(dev), WREN_NETOPT_STATE_IDLE);
    catch_up(radio_of(dev));
    return 0;
}


/* the frame in tx_buf goes on the air now */
static void tx_start(struct wren_lora_radio *r, uint32_t airtime)
{
    struct wren_world *w = r->medium->world;
    if (r->rx_from) {
        rx_abort(r); /* half duplex */
    }
    r->on_air = true;
    r->tx_begin = w->now;
    r->tx_end = w->now + airtime;
    wren_lora_modem_sent(&r->modem, r->tx_end, airtime);
    set_state(r, WREN_NETOPT_STATE_TX);
    r->stats.tx_frames++;
    r->stats.tx_bytes += r->tx_len;
    r->stats.tx_airtime_us += airtime;
    pcap_frame(r);
    frame_starts(r);
    wren_world_timer_set(w, &r->tx_timer, r->tx_end);
}

static int radio_send(struct wren_netdev *dev, const struct wren_iolist *iol)
{
    struct wren_lora_radio *r = radio_of(dev);
    if (r->state == WREN_NETOPT_STATE_OFF) {
        return -ENETDOWN;
    }
    if (r->on_air || (r->pending & PEND_TX)) {
        return -EBUSY;
    }
    size_t len = wren_iolist_size(iol);
    if (len > wren_lora_modem_max_payload(&r->modem)) {
        r->stats.tx_too_long++;
        return -EMSGSIZE;
    }
    if (wren_lora_modem_dc_wait(&r->modem, now_of(r)) > 0) {
        r->stats.dc_drop++;
        return -EAGAIN;
    }
    size_t off = 0;
    for (; iol; iol = iol->next) {
        if (iol->len) {
            memcpy(r->tx_buf + off, iol->base, iol->len);
        }
        off += iol->len;
    }
    r->tx_len = (uint8_t)len;
    tx_start(r, wren_lora_airtime_us(&r->modem.phy, (unsigned)len));
    return (int)len;
}

static int radio_recv(struct wren_netdev *dev, void *buf, size_t len,
                      struct wren_netdev_rx_info *info)
{
    struct wren_lora_radio *r = radio_of(dev);
    if (!r->rx_ready) {
        return 0;
    }
    bool taken;
    /* LoRa has no LQI: 255 for every frame the modem delivers */
    int res = wren_netdev_recv_held(r->rx_buf, r->rx_len, r->rx_rssi, 255, buf, len, info,
                                    &taken);
    if (taken) {
        r->rx_ready = false;
    }
    return res;
}

static void radio_isr(struct wren_netdev *dev)
{
    struct wren_lora_radio *r = radio_of(dev);
    uint8_t p = r->pending;
    r->pending = 0;
    if (p & PEND_TX) {
        dev->event_cb(dev, WREN_NETDEV_EV_TX_COMPLETE);
    }
    if ((p & PEND_RX) && r->rx_ready) {
        dev->event_cb(dev, WREN_NETDEV_EV_RX_COMPLETE);
        r->rx_ready = false; /* taken, or not wanted: the buffer is free */
    }
}

static int get_stats(struct wren_lora_radio *r, void *val, size_t max)
{
    struct wren_lora_radio_dev_stats d;
    wren_lora_radio_sync_time(r);
    memcpy(&d, &r->stats, sizeof(r->stats));
    d.time_off_us = r->time_in[WREN_NETOPT_STATE_OFF];
    d.time_listen_us = r->time_in[WREN_NETOPT_STATE_IDLE];
    d.time_rx_us = r->time_in[WREN_NETOPT_STATE_RX];
    d.time_tx_us = r->time_in[WREN_NETOPT_STATE_TX];
    return wren_netopt_put(val, max, &d, sizeof(d));
}

static int get_radio_time(struct wren_lora_radio *r, void *val, size_t max)
{
    wren_lora_radio_sync_time(r);
    struct wren_radio_time t = {
        .off = r->time_in[WREN_NETOPT_STATE_OFF],
        .listen = r->time_in[WREN_NETOPT_STATE_IDLE],
        .rx = r->time_in[WREN_NETOPT_STATE_RX],
        .tx = r->time_in[WREN_NETOPT_STATE_TX],
    };
    return wren_netopt_put(val, max, &t, sizeof(t));
}

static int radio_get(struct wren_netdev *dev, uint16_t opt, void *val, size_t max)
{
    struct wren_lora_radio *r = radio_of(dev);
    switch (opt) {
    case WREN_NETOPT_STATE:
        return wren_netopt_put(val, max, &r->state, 1);
    case WREN_NETOPT_RSSI_LAST:
        return wren_netopt_put(val, max, &r->rx_rssi, 2);
    case WREN_NETOPT_RX_TIMESTAMP: {
        uint64_t ts = r->clock ? wren_world_clock_local(r->clock, r->rx_stamp) : r->rx_stamp;
        return wren_netopt_put(val, max, &ts, 8);
    }
    case WREN_NETOPT_DEV_STATS:
        return get_stats(r, val, max);
    case WREN_NETOPT_RADIO_TIME:
        return get_radio_time(r, val, max);
    default:
        return wren_lora_modem_get(&r->modem, opt, val, max, now_of(r));
    }
}

/* SET STATE: off or on (idle), not while sending */
static int set_radio_state(struct wren_lora_radio *r, const void *val, size_t len)
{
    uint8_t s;
    if (len != 1 || (memcpy(&s, val, 1), s > WREN_NETOPT_STATE_IDLE)) {
        return -EINVAL;
    }
    if (r->on_air) {
        return -EBUSY;
    }
    if (s == WREN_NETOPT_STATE_OFF) {
        rx_abort(r);
    } else if (r->state == WREN_NETOPT_STATE_RX) {
        return 0; /* on already, and receiving */
    }
    set_state(r, s);
    catch_up(r);
    return 0;
}

static int radio_set(struct wren_netdev *dev, uint16_t opt, const void *val, size_t len)
{
    struct wren_lora_radio *r = radio_of(dev);
    if (opt == WREN_NETOPT_STATE) {
        return set_radio_state(r, val, len);
    }
    if (wren_lora_modem_opt_retunes(opt) && r->on_air) {
        return -EBUSY;
    }
    int res = wren_lora_modem_set(&r->modem, opt, val, len);
    if (res == 1) {
        rx_abort(r); /* the frame it was receiving is on another setting now */
        catch_up(r);
    }
    return res < 0 ? res : 0;
}

static const struct wren_counter_set lora_radio_counters =
    WREN_COUNTER_SET("lora", WREN_LORA_RADIO_DEV_COUNTERS, WREN_NETOPT_DEV_STATS, uint64_t);

static const struct wren_netdev_driver lora_radio_driver = {
    .counters = &lora_radio_counters,
    .init = radio_init,
    .send = radio_send,
    .recv = radio_recv,
    .isr = radio_isr,
    .get = radio_get,
    .set = radio_set,
};

/* ---- topology ---------------------------------------------------------- */

void wren_lora_medium_init(struct wren_lora_medium *m, struct wren_world *w, uint64_t seed)
{
    memset(m, 0, sizeof(*m));
    m->world = w;
    m->seed = seed;
    m->capture_db = WREN_LORA_CAPTURE_DB;
    wren_lora_medium_set_pathloss(m, BOR_D0_M, BOR_PL_D0_DB, BOR_GAMMA, 0.0);
}

void wren_lora_medium_destroy(struct wren_lora_medium *m)
{
    free(m->radios);
    m->radios = NULL;
    m->n_radios = m->cap_radios = 0;
    wren_pcap_close(&m->pcap);
}

int wren_lora_medium_set_pathloss(struct wren_lora_medium *m, double d0_m, double pl_d0_db,
                                  double gamma, double sigma_db)
{
    if (!(isfinite(d0_m) && d0_m > 0 && isfinite(pl_d0_db) && isfinite(gamma) && gamma > 0 &&
          isfinite(sigma_db) && sigma_db >= 0)) {
        return -EINVAL;
    }
    /* the same law with its reference at 1 m (pathloss.h's form) */
    m->pl = (struct wren_pathloss){
        .exponent = gamma,
        .ref_loss_db = pl_d0_db - 10.0 * gamma * log10(d0_m),
        .sigma_db = sigma_db,
        .tx_power_dbm = 0.0,
        .noise_dbm = 0.0,
    };
    return 0;
}

void wren_lora_medium_set_capture(struct wren_lora_medium *m, double db)
{
    m->capture_db = db > 0 ? db : 0;
}

int wren_lora_medium_add_radio(struct wren_lora_medium *m, struct wren_lora_radio *r, double x,
                               double y, double z)
{
    if (m->n_radios == m->cap_radios) {
        uint32_t cap = m->cap_radios ? m->cap_radios * 2 : 8;
        struct wren_lora_radio **n = realloc(m->radios, cap * sizeof(*n));
        if (n == NULL) {
            return -ENOMEM;
        }
        m->radios = n;
        m->cap_radios = cap;
    }
    memset(r, 0, sizeof(*r));
    r->netdev.driver = &lora_radio_driver;
    r->medium = m;
    r->index = m->n_radios;
    r->x = x;
    r->y = y;
    r->z = z;
    wren_lora_modem_init(&r->modem);
    r->state = WREN_NETOPT_STATE_OFF;
    r->state_since = m->world->now;
    wren_timer_init(&r->tx_timer, tx_timer_cb, r);
    m->radios[m->n_radios++] = r;
    return (int)r->index;
}

int wren_lora_medium_open_pcap(struct wren_lora_medium *m, const char *path)
{
    wren_pcap_close(&m->pcap);
    return wren_pcap_open(&m->pcap, path, WREN_PCAP_LINKTYPE_LORATAP);
}
