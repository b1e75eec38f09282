/* The TSCH MAC's schedule (slotframes and cells, RFC 8180's minimal one),
 * its start on an interface, and the WREN_NETOPT_TSCH_* options (and the
 * retry / backoff ones on a TSCH interface). */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/node.h"
#include "mac/tsch/tsch_priv.h"
#include "net/netopt.h"

#if CONFIG_WREN_TSCH

static int cell_find(const struct wren_tsch *t, const struct wren_tsch_cell *c)
{
    for (unsigned i = 0; i < CONFIG_WREN_TSCH_CELLS; i++) {
        const struct wren_tsch_cell *o = &t->cells[i];
        if (o->options && o->slotframe == c->slotframe && o->slot_offset == c->slot_offset &&
            o->channel_offset == c->channel_offset && o->nbr_len == c->nbr_len &&
            memcmp(o->nbr, c->nbr, o->nbr_len) == 0) {
            return (int)i;
        }
    }
    return -1;
}

static int cell_add(struct wren_tsch *t, const struct wren_tsch_cell *c)
{
    if ((c->options & (WREN_TSCH_CELL_TX | WREN_TSCH_CELL_RX)) == 0 || (c->options & ~0x0fu) ||
        c->slotframe >= CONFIG_WREN_TSCH_SLOTFRAMES || (c->nbr_len != 0 && c->nbr_len != 8) ||
        c->kind > WREN_TSCH_CELL_MANUAL || c->channel_offset >= 0x100) {
        return -EINVAL;
    }
    if (cell_find(t, c) >= 0) {
        return -EEXIST;
    }
    for (unsigned i = 0; i < CONFIG_WREN_TSCH_CELLS; i++) {
        if (t->cells[i].options == 0) {
            t->cells[i] = *c;
            if (c->nbr_len == 0) {
                memset(t->cells[i].nbr, 0, 8);
            }
            t->cells[i].elapsed = t->cells[i].used = t->cells[i].tx_ack = t->cells[i].rx = 0;
            if (t->sf[c->slotframe].len == 0) {
                /* a new slotframe: as long as the minimal one */
                t->sf[c->slotframe].len = t->cfg.sf_len;
            }
            return 0;
        }
    }
    return -ENOSPC;
}

/* the slot of a node's EB cell in the EB slotframe: a hash of its EUI-64 */
static uint16_t eb_slot(const uint8_t *eui64, uint16_t len)
{
    uint32_t h = 0;
    for (unsigned i = 0; i < 8; i++) {
        h = h * 31u + eui64[i];
    }
    return (uint16_t)(h % len);
}

/* The EB slotframe (wren_tsch_config.eb_sf_len): a TX cell for our EBs, and
 * an RX cell in our time source's (its EBs keep us in time). Made again when
 * the time source changes. */
void wren_tsch_eb_cells(struct wren_tsch *t)
{
    for (unsigned i = 0; i < CONFIG_WREN_TSCH_CELLS; i++) {
        if (t->cells[i].kind == WREN_TSCH_CELL_MINIMAL &&
            t->cells[i].slotframe == TSCH_SLOTFRAME_EB) {
            t->cells[i].options = 0;
        }
    }
    uint16_t len = t->cfg.eb_sf_len;
    if (len == 0 || t->role == WREN_TSCH_OFF) {
        return;
    }
    t->sf[TSCH_SLOTFRAME_EB].len = len;
    struct wren_tsch_cell c = {
        .slot_offset = eb_slot(t->nif->long_addr, len),
        .slotframe = TSCH_SLOTFRAME_EB,
        .options = WREN_TSCH_CELL_TX,
        .kind = WREN_TSCH_CELL_MINIMAL,
    };
    cell_add(t, &c);
    if (t->role == WREN_TSCH_NODE && t->ts_len == 8 && eb_slot(t->ts, len) != c.slot_offset) {
        c.slot_offset = eb_slot(t->ts, len);
        c.options = WREN_TSCH_CELL_RX | WREN_TSCH_CELL_TIMEKEEPING;
        c.nbr_len = 8;
        memcpy(c.nbr, t->ts, 8);
        cell_add(t, &c);
    }
}

void wren_tsch_minimal_schedule(struct wren_tsch *t)
{
    /* RFC 8180 4.1: one shared cell, slot 0, channel offset 0, slotframe 0 */
    for (unsigned i = 0; i < CONFIG_WREN_TSCH_CELLS; i++) {
        if (t->cells[i].kind == WREN_TSCH_CELL_MINIMAL) {
            t->cells[i].options = 0;
        }
    }
    t->sf[TSCH_SLOTFRAME_MINIMAL].len = t->cfg.sf_len;
    struct wren_tsch_cell c = {
        .options = WREN_TSCH_CELL_TX | WREN_TSCH_CELL_RX | WREN_TSCH_CELL_SHARED |
                   WREN_TSCH_CELL_TIMEKEEPING,
        .kind = WREN_TSCH_CELL_MINIMAL,
    };
    cell_add(t, &c);
    wren_tsch_eb_cells(t);
}

void wren_tsch_init(struct wren_ieee802154_netif *nif)
{
    struct wren_tsch *t = nif->tsch;
    memset(t, 0, sizeof(*t));
    t->nif = nif;
    wren_tsch_config_default(&t->cfg);
    wren_timer_init(&t->timer, wren_tsch_timer_cb, t);
    for (unsigned i = 0; i <= CONFIG_WREN_TSCH_NBRS; i++) {
        t->queues[i].be = t->cfg.min_be;
    }
    t->queues[0].used = 1;
    t->bc_p = TSCH_BC_P_MAX; /* a quiet cell: broadcasts go at once */
    struct wren_netdev *dev = nif->netif.dev;
    uint32_t d;
    /* a radio that does not say: an 802.15.4 turnaround (aTurnaroundTime) */
    t->tx_delay_us = dev->driver->get(dev, WREN_NETOPT_TX_DELAY, &d, sizeof(d)) == sizeof(d) ? d
                                                                                             : 192u;
    t->q = TSCH_Q_NONE;
    nif->mac.radio_off = false;
    t->role = WREN_TSCH_NODE;
    wren_tsch_start(t);
}

/* GET TSCH_SYNC: where the MAC stands */
static int get_sync(const struct wren_tsch *t, void *val, size_t max)
{
    struct wren_tsch_sync_info s;
    memset(&s, 0, sizeof(s));
    s.asn = t->asn;
    s.role = t->role;
    s.synced = t->synced;
    s.join_prio = t->join_prio;
    s.ts_len = t->ts_len;
    memcpy(s.time_source, t->ts, 8);
    s.drift_ppb = wren_tsch_drift_ppb(t);
    s.bc_chance = wren_tsch_bc_chance(t);
    uint64_t since = wren_node_now(tsch_node(t)) - t->last_sync;
    uint32_t since_s = wren_us_to_s(since);
    /* 32-bit divisions only (a 64-bit one links libgcc's, 0.9 KB) */
    s.last_sync_ms = (since >> 32) == 0            ? (uint32_t)since / 1000u
                     : since_s < UINT32_MAX / 1000u ? since_s * 1000u
                                                    : UINT32_MAX;
    return wren_netopt_put(val, max, &s, sizeof(s));
}

/* record @p n of a GET that lists records of @p size bytes */
static int put_rec(void *val, size_t max, size_t n, const void *rec, size_t size)
{
    if ((n + 1) * size > max) {
        return -EOVERFLOW;
    }
    memcpy((uint8_t *)val + n * size, rec, size);
    return 0;
}

/* GET TSCH_CELLS: the cells in use; TSCH_CELLS_FREE: how many are not */
static int get_cells(const struct wren_tsch *t, bool free, void *val, size_t max)
{
    size_t n = 0;
    uint16_t n_free = 0;
    for (unsigned i = 0; i < CONFIG_WREN_TSCH_CELLS; i++) {
        if (t->cells[i].options == 0) {
            n_free++;
        } else if (!free && put_rec(val, max, n++, &t->cells[i], sizeof(t->cells[i])) < 0) {
            return -EOVERFLOW;
        }
    }
    return free ? wren_netopt_put(val, max, &n_free, sizeof(n_free))
                : (int)(n * sizeof(struct wren_tsch_cell));
}

/* GET TSCH_QUEUES: the queues that hold frames */
static int get_queues(const struct wren_tsch *t, void *val, size_t max)
{
    size_t n = 0;
    for (unsigned i = 0; i <= CONFIG_WREN_TSCH_NBRS; i++) {
        const struct wren_tsch_queue *q = &t->queues[i];
        if (q->len == 0) {
            continue;
        }
        struct wren_tsch_queue_info qi = { .nbr_len = i ? 8 : 0, .len = q->len };
        memcpy(qi.nbr, q->nbr, i ? 8 : 0);
        if (put_rec(val, max, n++, &qi, sizeof(qi)) < 0) {
            return -EOVERFLOW;
        }
    }
    return (int)(n * sizeof(struct wren_tsch_queue_info));
}

/* the options that are one field of the MAC's state, read as it is */
static const struct {
    uint16_t opt;
    uint16_t off;
    uint16_t len;
} tsch_fields[] = {
    { WREN_NETOPT_TSCH_ROLE, offsetof(struct wren_tsch, role), 1 },
    { WREN_NETOPT_TSCH_JOIN_PRIO, offsetof(struct wren_tsch, join_prio), 1 },
    { WREN_NETOPT_TSCH_STATS, offsetof(struct wren_tsch, stats), sizeof(struct wren_tsch_stats) },
    { WREN_NETOPT_TSCH_CONFIG, offsetof(struct wren_tsch, cfg), sizeof(struct wren_tsch_config) },
    { WREN_NETOPT_MAX_RETRIES, offsetof(struct wren_tsch, cfg.max_retries), 1 },
    { WREN_NETOPT_CSMA_MIN_BE, offsetof(struct wren_tsch, cfg.min_be), 1 },
    { WREN_NETOPT_CSMA_MAX_BE, offsetof(struct wren_tsch, cfg.max_be), 1 },
};

int wren_tsch_get(struct wren_ieee802154_netif *nif, uint16_t opt, void *val, size_t max)
{
    struct wren_tsch *t = nif->tsch;
    for (unsigned i = 0; i < sizeof(tsch_fields) / sizeof(tsch_fields[0]); i++) {
        if (tsch_fields[i].opt == opt) {
            return wren_netopt_put(val, max, (const uint8_t *)t + tsch_fields[i].off,
                                   tsch_fields[i].len);
        }
    }
    switch (opt) {
    case WREN_NETOPT_TSCH_SYNC:
        return get_sync(t, val, max);
    case WREN_NETOPT_TSCH_TIME_SOURCE:
        return wren_netopt_put(val, max, t->ts, t->ts_len);
    case WREN_NETOPT_TSCH_CELLS_FREE:
    case WREN_NETOPT_TSCH_CELLS:
        return get_cells(t, opt == WREN_NETOPT_TSCH_CELLS_FREE, val, max);
    case WREN_NETOPT_TSCH_QUEUES:
        return get_queues(t, val, max);
    default:
        return -ENOTSUP;
    }
}

/* SET TSCH_ROLE: the MAC starts again in that role */
static int set_role(struct wren_tsch *t, const void *val, size_t len)
{
    uint8_t r;
    if (len != 1 || (memcpy(&r, val, 1), r > WREN_TSCH_NODE)) {
        return -EINVAL;
    }
    t->role = r;
    t->scan_strict_until = 0;
    if (r == WREN_TSCH_OFF) {
        wren_tsch_flush(t);
    }
    wren_tsch_start(t);
    return 0;
}

/* SET TSCH_TIME_SOURCE: that neighbour (8 bytes) or any (none) */
static int set_time_source(struct wren_tsch *t, const void *val, size_t len)
{
    if (len == 0) {
        t->ts_set = 0; /* any: the one we joined through stays */
        return 0;
    }
    if (len != 8) {
        return -EINVAL;
    }
    if (!wren_tsch_is_ts(t, val)) {
        /* the drift estimate is kept: it is our clock's rate against the
         * network's time, which the new time source keeps as the old
         * one did (802.15.4-2015 6.5.4). Set to 0, a hub that switched
         * parent drifted out of its new parent's guard time before the
         * first correction came through a busy shared cell: no ACK, no
         * EB heard, a desync, and every node below it followed */
        memcpy(t->ts, val, 8);
        t->ts_len = 8;
        wren_tsch_eb_cells(t);
    }
    t->ts_set = 1;
    return 0;
}

/* SET TSCH_CELL_ADD / TSCH_CELL_DEL */
static int set_cell(struct wren_tsch *t, bool add, const void *val, size_t len)
{
    struct wren_tsch_cell c;
    if (len != sizeof(c)) {
        return -EINVAL;
    }
    memcpy(&c, val, sizeof(c));
    if (add) {
        int res = cell_add(t, &c);
        if (res == 0 && t->synced && t->phase == TSCH_PH_SLOT) {
            wren_tsch_end_slot(t); /* the next active slot may be sooner now */
        }
        return res;
    }
    int i = cell_find(t, &c);
    if (i < 0) {
        return -ENOENT;
    }
    t->cells[i].options = 0;
    return 0;
}

/* SET TSCH_CONFIG (whole), MAX_RETRIES, CSMA_MIN_BE, CSMA_MAX_BE (a field
 * of it): taken if the configuration stays sound */
static int set_config(struct wren_tsch *t, uint16_t opt, const void *val, size_t len)
{
    struct wren_tsch_config cfg = t->cfg;
    if (opt == WREN_NETOPT_TSCH_CONFIG) {
        if (len != sizeof(cfg)) {
            return -EINVAL;
        }
        memcpy(&cfg, val, sizeof(cfg));
    } else if (len != 1) {
        return -EINVAL;
    } else {
        *(opt == WREN_NETOPT_MAX_RETRIES ? &cfg.max_retries
          : opt == WREN_NETOPT_CSMA_MIN_BE ? &cfg.min_be
                                          : &cfg.max_be) = *(const uint8_t *)val;
    }
    if (wren_tsch_config_check(&cfg) < 0) {
        return -EINVAL;
    }
    t->cfg = cfg;
    if (opt == WREN_NETOPT_TSCH_CONFIG && t->role != WREN_TSCH_OFF) {
        /* a running network cannot change its template or slotframe
         * under way: the role starts again with it (a coordinator: a new
         * network; a node: scans, then follows the EBs it joins by) */
        wren_tsch_start(t);
    }
    return 0;
}

int wren_tsch_set(struct wren_ieee802154_netif *nif, uint16_t opt, const void *val, size_t len)
{
    struct wren_tsch *t = nif->tsch;
    switch (opt) {
    case WREN_NETOPT_TSCH_ROLE:
        return set_role(t, val, len);
    case WREN_NETOPT_TSCH_JOIN_PRIO:
        if (len != 1) {
            return -EINVAL;
        }
        t->join_prio = *(const uint8_t *)val;
        t->join_prio_set = 1;
        return 0;
    case WREN_NETOPT_TSCH_TIME_SOURCE:
        return set_time_source(t, val, len);
    case WREN_NETOPT_TSCH_CELL_ADD:
    case WREN_NETOPT_TSCH_CELL_DEL:
        return set_cell(t, opt == WREN_NETOPT_TSCH_CELL_ADD, val, len);
    case WREN_NETOPT_TSCH_CONFIG:
    case WREN_NETOPT_MAX_RETRIES:
    case WREN_NETOPT_CSMA_MIN_BE:
    case WREN_NETOPT_CSMA_MAX_BE:
        return set_config(t, opt, val, len);
    default:
        return -ENOTSUP;
    }
}

#endif /* CONFIG_WREN_TSCH */
