/* MSF, the Minimal Scheduling Function (RFC 9033): autonomous cells,
 * negotiated cells to the preferred parent that follow the traffic,
 * relocation, the parent switch, 6P error handling, and the glue with RPL
 * and TSCH (time source, join priority). */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/node.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "net/netreg.h"
#include "sixtop/sixtop.h"
#include "sixtop/sixtop_priv.h"
#include "wire/rpl.h"

#define MIN_HOP_RANK_INC 256 /* RFC 6550 17: DAGRank = floor(rank / MinHopRankIncrease) */
/* schedule cells a responder keeps free for autonomous TX cells (msf_pick) */
#define MSF_ROOM_KEEP 2

static const struct wren_msf_cfg msf_defaults = {
    .slotframe_len = 101,
    .num_ch_offset = 16,
    .lim_high_pct = 75,
    .lim_low_pct = 25,
    .relocate_pdr_pct = 50,
    .max_num_cells = 32,
    .min_numtx = 16,
    .housekeeping_s = 60,
    .quarantine_s = 300,
    .wait_min_s = 30,
    .wait_max_s = 60,
    .enabled = 1,
};

/* RFC 9033 Appendix A: SAX with h0 = 0, l_bit = 0, r_bit = 1 over the
 * EUI-64's bytes in order, 16-bit arithmetic */
uint16_t wren_msf_sax(const uint8_t eui64[8], uint16_t max)
{
    uint16_t h = 0;
    for (unsigned i = 0; i < 8; i++) {
        h ^= (uint16_t)((uint16_t)(h << 0) + (h >> 1) + eui64[i]);
    }
    return max ? (uint16_t)(h % max) : 0;
}

/* RFC 9033 3: an autonomous cell of @p eui64: slot 1 .. length - 1 (never
 * the minimal cell's slot 0), channel 0 .. NUM_CH_OFFSET - 1 */
static struct sixp_cell auto_cell(const struct wren_msf *f, const uint8_t eui64[8])
{
    struct sixp_cell c = {
        (uint16_t)(1 + wren_msf_sax(eui64, (uint16_t)(f->cfg.slotframe_len - 1))),
        wren_msf_sax(eui64, f->cfg.num_ch_offset),
    };
    return c;
}

void wren_msf_init(struct wren_sixtop *s)
{
    struct wren_msf *f = &s->tab->msf;
    f->cfg = msf_defaults;
    f->last_jp = 0x100;
    f->auto_c = auto_cell(f, s->eui64);
}

/* cells the MAC's schedule has room for */
static unsigned room(struct wren_sixtop *s)
{
    uint16_t n = 0;
    if (wren_sixtop_if_get(s, WREN_NETOPT_TSCH_CELLS_FREE, &n, sizeof(n)) != (int)sizeof(n)) {
        return 0;
    }
    return n;
}

/* Up to @p max cells whose slot is free here (not slot 0, the minimal
 * cell's; inside the slotframe; in no cell of ours, no transaction of ours,
 * not taken twice) into @p out: of @p n_cand candidates from the list
 * @p cand, or (@p cand NULL) of @p n_cand random ones (RFC 9033 8: random
 * slots and channels). @return how many, -1 without a schedule. */
static int free_cells(struct wren_sixtop *s, const uint8_t *cand, unsigned n_cand,
                      struct sixp_cell *out, unsigned max)
{
    struct wren_tsch_cell sched[CONFIG_WREN_SIXTOP_SCHED_CELLS];
    const struct wren_msf_cfg *cfg = &s->tab->msf.cfg;
    int n = wren_sixtop_sched(s, sched, CONFIG_WREN_SIXTOP_SCHED_CELLS);
    unsigned k = 0;
    if (n < 0) {
        return -1;
    }
    for (unsigned i = 0; i < n_cand && k < max; i++) {
        struct sixp_cell c;
        if (cand) {
            c = wren_sixp_cell_get(cand, i);
        } else {
            c.slot_offset = (uint16_t)(1 + wren_node_random_below(s->node, cfg->slotframe_len - 1u));
            c.channel_offset = (uint16_t)wren_node_random_below(s->node, cfg->num_ch_offset);
        }
        if (c.slot_offset != 0 && c.slot_offset < cfg->slotframe_len &&
            !wren_sixtop_slot_busy(s, sched, (unsigned)n, out, k, c.slot_offset)) {
            out[k++] = c;
        }
    }
    return (int)k;
}

unsigned wren_msf_candidates(struct wren_sixtop *s, struct sixp_cell *out, unsigned max)
{
    if (s->tab->msf.cfg.slotframe_len < 2) {
        return 0; /* no slot but the minimal cell's */
    }
    int k = free_cells(s, NULL, 8 * max, out, max);
    return k < 0 ? 0 : (unsigned)k;
}

static bool has_tx_to(const struct wren_tsch_cell *c, int n, const uint8_t nbr[8]);

/* whether what a child sends us goes on: no RPL tells us (join priority
 * never set), we are the root (join priority 0), or we have a dedicated
 * (negotiated) TX cell to our own parent. Until then
 * a child asking for TX cells gets none (it waits and asks again, RFC 9033
 * Table 1's SUCCESS with no cell), so no node counts as joined (flow.h)
 * behind a parent whose own traffic still squeezes through a shared cell */
static bool relays(struct wren_sixtop *s)
{
    struct wren_msf *f = &s->tab->msf;
    struct wren_tsch_cell sched[CONFIG_WREN_SIXTOP_SCHED_CELLS];
    if (f->last_jp == 0 || f->last_jp == 0x100) {
        return true;
    }
    int n = wren_sixtop_sched(s, sched, CONFIG_WREN_SIXTOP_SCHED_CELLS);
    return f->has_parent && n > 0 && has_tx_to(sched, n, f->parent);
}

/* Responder (RFC 9033 8): the first candidates whose slot is free here */
static int msf_pick(struct wren_sixtop *s, const uint8_t nbr[8], const struct sixp_msg *req,
                    struct sixp_cell *out, unsigned max)
{
    (void)nbr;
    const uint8_t *cand = req->code == SIXP_CMD_RELOCATE ? req->cand : req->cells;
    unsigned n_cand = req->code == SIXP_CMD_RELOCATE ? req->n_cand : req->n_cells;
    /* cells granted leave MSF_ROOM_KEEP free: our autonomous TX cells (what
     * we send to a neighbour without negotiated cells: 6P responses, DAO-ACKs,
     * downward data) must not be crowded out by children's RX cells; a child
     * we grant none still reaches our autonomous RX cell */
    unsigned r = room(s);
    r = r > MSF_ROOM_KEEP ? r - MSF_ROOM_KEEP : 0;
    if (req->code == SIXP_CMD_ADD && (req->cell_options & SIXP_CELL_TX) && !relays(s)) {
        s->stats.msf_no_relay++;
        return 0; /* no cell until we can carry what comes in it */
    }
    bool short_of_room = r < max && r < n_cand;
    int k = free_cells(s, cand, n_cand, out, short_of_room ? r : max);
    if (k < 0) {
        return -SIXP_RC_RESET;
    }
    s->stats.msf_no_room += short_of_room;
    return k;
}

static bool quarantined(const struct wren_sixtop *s, const uint8_t nbr[8])
{
    const struct wren_msf *f = &s->tab->msf;
    return f->quarantine_until_s && memcmp(f->quarantine, nbr, 8) == 0 &&
           (int32_t)(wren_sixtop_now_s(s) - f->quarantine_until_s) < 0;
}

static void wait_retry(struct wren_sixtop *s)
{
    struct wren_msf *f = &s->tab->msf;
    uint32_t span = f->cfg.wait_max_s > f->cfg.wait_min_s ? f->cfg.wait_max_s - f->cfg.wait_min_s : 0;
    f->wait_until_s = wren_sixtop_now_s(s) + f->cfg.wait_min_s + wren_node_random_below(s->node, span + 1);
    s->stats.msf_waitretry++;
}

/* request @p cmd (CellOptions @p opts, NumCells @p num) of @p nbr; RELOCATE
 * moves @p bad (NULL otherwise) */
static void start(struct wren_sixtop *s, const uint8_t nbr[8], uint8_t cmd, uint8_t opts,
                  uint8_t num, const struct sixp_cell *bad)
{
    if (cmd == SIXP_CMD_ADD) {
        /* never ask for cells we could not install: the parent would hold
         * them and we would not (a hub's full table, 30 nodes: the parent
         * filled its own with cells we never used) */
        unsigned r = room(s);
        if (r == 0) {
            s->stats.msf_no_room++;
            return;
        }
        num = num > r ? (uint8_t)r : num;
    }
    /* the requests MSF makes, each its counter (by command; 0: none) */
#define MSF_CTR(f) (uint16_t)(offsetof(struct wren_sixtop_stats, f) + 1u)
    static const uint16_t ctr[SIXP_CMD_CLEAR + 1] = {
        [SIXP_CMD_ADD] = MSF_CTR(msf_add),
        [SIXP_CMD_DELETE] = MSF_CTR(msf_delete),
        [SIXP_CMD_RELOCATE] = MSF_CTR(msf_relocate),
        [SIXP_CMD_CLEAR] = MSF_CTR(msf_clear),
    };
#undef MSF_CTR
    if (wren_sixtop_request(s, nbr, cmd, opts, num, bad, bad != NULL) < 0 || cmd > SIXP_CMD_CLEAR ||
        ctr[cmd] == 0) {
        return;
    }
    (*(uint32_t *)(void *)((uint8_t *)&s->stats + ctr[cmd] - 1u))++;
}

/* RFC 9033 Table 1 (after 6P): what a transaction's end means */
static void msf_done(struct wren_sixtop *s, const struct wren_sixp_trans *t, int rc,
                     const struct sixp_msg *resp)
{
    struct wren_msf *f = &s->tab->msf;
    if (t->cmd == SIXP_CMD_CLEAR && f->clear_old && memcmp(t->nbr, f->old_parent, 8) == 0) {
        f->clear_old = 0; /* done with the old parent, whatever the answer */
    }
    /* the cell counts changed (or will be retried): count use afresh */
    memset(f->elapsed, 0, sizeof(f->elapsed));
    memset(f->used, 0, sizeof(f->used));
    switch (rc) {
    case SIXP_RC_SUCCESS:
    case SIXP_RC_EOL:
        if (t->cmd == SIXP_CMD_ADD && resp && resp->n_cells == 0) {
            wait_retry(s); /* none of our candidates suited it */
        }
        break;
    case SIXP_RC_ERR_SEQNUM:
    case SIXP_RC_ERR_CELLLIST:
        /* the schedules disagree: start again from nothing (RFC 9033 7) */
        if (t->cmd != SIXP_CMD_CLEAR && f->cfg.enabled) {
            start(s, t->nbr, SIXP_CMD_CLEAR, 0, 0, NULL);
        }
        break;
    case SIXP_RC_ERR:
    case SIXP_RC_RESET:
    case SIXP_RC_ERR_VERSION:
    case SIXP_RC_ERR_SFID:
        memcpy(f->quarantine, t->nbr, 8);
        f->quarantine_until_s = wren_sixtop_now_s(s) + f->cfg.quarantine_s;
        s->stats.msf_quarantine++;
        break;
    default: /* BUSY, LOCKED, timeout */
        wait_retry(s);
        break;
    }
}

const struct wren_sixp_sf wren_msf_sf = {
    .sfid = SIXP_SFID_MSF,
    .name = "MSF",
    .pick = msf_pick,
    .done = msf_done,
};

/* ---- autonomous cells (RFC 9033 3) ------------------------------------------------ */

static bool has_tx_to(const struct wren_tsch_cell *c, int n, const uint8_t nbr[8])
{
    for (int i = 0; i < n; i++) {
        if (wren_sixtop_is_negotiated(&c[i], nbr) && (c[i].options & WREN_TSCH_CELL_TX)) {
            return true;
        }
    }
    return false;
}

static int auto_tx_index(const struct wren_msf *f, const uint8_t nbr[8])
{
    for (unsigned i = 0; i < f->auto_tx_n; i++) {
        if (memcmp(f->auto_tx[i], nbr, 8) == 0) {
            return (int)i;
        }
    }
    return -1;
}

static void auto_tx_add(struct wren_sixtop *s, const uint8_t nbr[8], const struct wren_tsch_cell *c,
                        int n)
{
    struct wren_msf *f = &s->tab->msf;
    if (auto_tx_index(f, nbr) >= 0 || has_tx_to(c, n, nbr) ||
        f->auto_tx_n == sizeof(f->auto_tx) / sizeof(f->auto_tx[0])) {
        return;
    }
    /* the neighbour's autonomous RX cell, shared (it may hear others there) */
    unsigned how = SIXTOP_ADD | SIXTOP_AUTO | WREN_TSCH_CELL_TX | WREN_TSCH_CELL_SHARED;
    if (wren_sixtop_cell(s, how, nbr, auto_cell(f, nbr)) == 0) {
        memcpy(f->auto_tx[f->auto_tx_n++], nbr, 8);
        s->stats.msf_auto_tx++;
    }
}

static void auto_tx_del(struct wren_sixtop *s, unsigned i)
{
    struct wren_msf *f = &s->tab->msf;
    wren_sixtop_cell(s, SIXTOP_AUTO | WREN_TSCH_CELL_TX | WREN_TSCH_CELL_SHARED, f->auto_tx[i],
                     auto_cell(f, f->auto_tx[i]));
    /* keep the order; one 8-byte copy at a time, so the image needs no memmove */
    for (f->auto_tx_n--; i < f->auto_tx_n; i++) {
        memcpy(f->auto_tx[i], f->auto_tx[i + 1], 8);
    }
}

void wren_msf_sending(struct wren_sixtop *s, const uint8_t nbr[8])
{
    struct wren_tsch_cell sched[CONFIG_WREN_SIXTOP_SCHED_CELLS];
    int n = wren_sixtop_sched(s, sched, CONFIG_WREN_SIXTOP_SCHED_CELLS);
    if (n >= 0) {
        auto_tx_add(s, nbr, sched, n);
    }
}

/* keep an autonomous TX cell to each neighbour with frames queued and no
 * negotiated TX cell; take it away once its queue is empty */
static void auto_tx_update(struct wren_sixtop *s, const struct wren_tsch_cell *c, int n)
{
    struct wren_msf *f = &s->tab->msf;
    struct wren_tsch_queue_info q[CONFIG_WREN_SIXP_NBRS + 1];
    int k = wren_sixtop_if_get(s, WREN_NETOPT_TSCH_QUEUES, q, sizeof(q));
    k = k < 0 ? 0 : k / (int)sizeof(q[0]);
    for (int i = 0; i < k; i++) {
        if (q[i].nbr_len == 8 && q[i].len) {
            auto_tx_add(s, q[i].nbr, c, n);
        }
    }
    for (unsigned i = f->auto_tx_n; i-- > 0;) {
        bool queued = false;
        for (int j = 0; j < k && !queued; j++) {
            queued = q[j].nbr_len == 8 && q[j].len && memcmp(q[j].nbr, f->auto_tx[i], 8) == 0;
        }
        if (!queued || has_tx_to(c, n, f->auto_tx[i])) {
            auto_tx_del(s, i);
        }
    }
}

/* ---- RPL glue (RFC 8180 6.1, RFC 9033 2) -------------------------------------------- */

static void rpl_glue(struct wren_sixtop *s)
{
    struct wren_msf *f = &s->tab->msf;
    struct wren_netreg_entry *e = wren_netreg_lookup(s->node, WREN_NETTYPE_ICMPV6, ICMPV6_RPL, NULL);
    uint8_t role = 0, pa[24];
    uint16_t rank = RPL_INFINITE_RANK;
    if (e == NULL || wren_netapi_get(s->node, e->module, WREN_NETOPT_RPL_ROLE, 0, &role, 1) < 1 ||
        role == 0) {
        return; /* no RPL here: TSCH keeps the time source and priority it has */
    }
    wren_netapi_get(s->node, e->module, WREN_NETOPT_RPL_RANK, 0, &rank, sizeof(rank));
    /* join priority DAGRank(rank) - 1; 0xff (no EBs) out of a DODAG (the
     * infinite rank's DAGRank is 0xff) */
    _Static_assert(RPL_INFINITE_RANK / MIN_HOP_RANK_INC == 0xff, "DAGRank of the infinite rank");
    uint16_t jp = (uint16_t)(rank / MIN_HOP_RANK_INC);
    if (jp != 0 && jp != 0xff) {
        jp--;
    }
    if (jp != f->last_jp) {
        uint8_t v = (uint8_t)jp;
        if (wren_sixtop_if_set(s, WREN_NETOPT_TSCH_JOIN_PRIO, &v, 1) == 0) {
            f->last_jp = jp;
        }
    }
    bool has = wren_netapi_get(s->node, e->module, WREN_NETOPT_RPL_PARENT, 0, pa, sizeof(pa)) ==
               (int)sizeof(pa);
    if (!has) {
        f->has_parent = 0;
        return;
    }
    bool same = memcmp(f->parent, pa + 16, 8) == 0;
    if (f->has_parent && same) {
        return;
    }
    bool had = f->has_parent || f->had_parent; /* lost a while, then another: still a switch */
    /* a new preferred parent: our time source, and (RFC 9033 5.4) as many
     * TX cells to it as we had with the old one, which we then CLEAR */
    wren_sixtop_if_set(s, WREN_NETOPT_TSCH_TIME_SOURCE, pa + 16, 8);
    if (had && !same) {
        memcpy(f->old_parent, f->parent, 8);
        f->clear_old = 1;
        s->stats.msf_parent_switch++;
    }
    memcpy(f->parent, pa + 16, 8);
    f->has_parent = 1;
    f->had_parent = 1;
    f->wait_until_s = 0;
    /* elapsed, used, last_elapsed, last_used: one range (sixtop.h) */
    _Static_assert(offsetof(struct wren_msf, last_used) + sizeof(f->last_used) ==
                       offsetof(struct wren_msf, wait_until_s),
                   "the use counters end where wait_until_s begins");
    memset(f->elapsed, 0,
           offsetof(struct wren_msf, wait_until_s) - offsetof(struct wren_msf, elapsed));
}

/* ---- negotiated cells (RFC 9033 5) --------------------------------------------------- */

/* NumCellsElapsed / NumCellsUsed of the TX (d 0) or RX (d 1) cells with the
 * parent, from the MAC's per-cell counters since the last look */
static unsigned count_use(struct wren_sixtop *s, const struct wren_tsch_cell *c, int n, int d)
{
    struct wren_msf *f = &s->tab->msf;
    uint8_t opt = d ? WREN_TSCH_CELL_RX : WREN_TSCH_CELL_TX;
    uint32_t el = 0, us = 0;
    unsigned cells = 0;
    for (int i = 0; i < n; i++) {
        if (wren_sixtop_is_negotiated(&c[i], f->parent) && (c[i].options & opt)) {
            cells++;
            el += c[i].elapsed;
            us += d ? c[i].rx : c[i].used;
        }
    }
    if (el >= f->last_elapsed[d] && us >= f->last_used[d]) {
        uint32_t de = el - f->last_elapsed[d], du = us - f->last_used[d];
        f->elapsed[d] = (uint16_t)(f->elapsed[d] + (de > 0xffff ? 0xffff : de));
        f->used[d] = (uint16_t)(f->used[d] + (du > 0xffff ? 0xffff : du));
    }
    /* a cell went away: its counters with it; start from here */
    f->last_elapsed[d] = el;
    f->last_used[d] = us;
    return cells;
}

/* RFC 9033 5.3: the TX cell to the parent whose PDR is RELOCATE_PDRTHRES
 * below the best one's, if any */
static bool worst_cell(const struct wren_msf *f, const struct wren_tsch_cell *c, int n,
                       struct sixp_cell *out)
{
    int best = -1, worst = 101, wi = -1;
    for (int i = 0; i < n; i++) {
        if (!wren_sixtop_is_negotiated(&c[i], f->parent) || !(c[i].options & WREN_TSCH_CELL_TX) ||
            c[i].used < f->cfg.min_numtx) {
            continue;
        }
        uint32_t u = c[i].used, a = c[i].tx_ack < u ? c[i].tx_ack : u;
        while (u > 0xffffffu) { /* 32-bit arithmetic only (no libgcc 64-bit division) */
            u >>= 1;
            a >>= 1;
        }
        int pdr = (int)(a * 100u / u);
        best = pdr > best ? pdr : best;
        if (pdr < worst) {
            worst = pdr;
            wi = i;
        }
    }
    if (wi < 0 || best - worst <= f->cfg.relocate_pdr_pct) {
        return false;
    }
    out->slot_offset = c[wi].slot_offset;
    out->channel_offset = c[wi].channel_offset;
    return true;
}

/* SLOTFRAME_LENGTH is the MAC's (slotframe 0): the autonomous cell moves
 * with it */
static void follow_slotframe(struct wren_sixtop *s)
{
    struct wren_msf *f = &s->tab->msf;
    struct wren_tsch_config tc;
    if (wren_sixtop_if_get(s, WREN_NETOPT_TSCH_CONFIG, &tc, sizeof(tc)) == (int)sizeof(tc) &&
        tc.sf_len >= 2 && tc.sf_len != f->cfg.slotframe_len) {
        if (f->auto_rx) {
            wren_sixtop_cell(s, SIXTOP_AUTO | WREN_TSCH_CELL_RX, NULL, f->auto_c);
            f->auto_rx = 0;
        }
        f->cfg.slotframe_len = tc.sf_len;
        f->auto_c = auto_cell(f, s->eui64);
    }
}

/* RFC 9033 5.1: at least one negotiated TX cell to the parent; after a
 * switch as many as there were to the old one */
static void first_cells(struct wren_sixtop *s, const struct wren_tsch_cell *sched, int n)
{
    struct wren_msf *f = &s->tab->msf;
    unsigned want = 0;
    for (int i = 0; f->clear_old && i < n; i++) {
        want += wren_sixtop_is_negotiated(&sched[i], f->old_parent) &&
                (sched[i].options & WREN_TSCH_CELL_TX);
    }
    want = want == 0 ? 1 : want > CONFIG_WREN_SIXP_CELLS ? CONFIG_WREN_SIXP_CELLS : want;
    start(s, f->parent, SIXP_CMD_ADD, SIXP_CELL_TX, (uint8_t)want, NULL);
}

/* RFC 9033 5.1/5.2: after MAX_NUM_CELLS cells elapsed, one more cell above
 * LIM_NUMCELLSUSED_HIGH, one fewer below LIM_NUMCELLSUSED_LOW (TX: @p ntx,
 * RX: @p nrx cells to the parent). Returns whether a request went out. */
static bool adapt_to_load(struct wren_sixtop *s, unsigned ntx, unsigned nrx)
{
    struct wren_msf *f = &s->tab->msf;
    for (int d = 0; d < 2; d++) {
        if (f->elapsed[d] < f->cfg.max_num_cells) {
            continue;
        }
        uint32_t pct = (uint32_t)f->used[d] * 100u / f->elapsed[d];
        unsigned cells = d ? nrx : ntx;
        uint8_t opt = d ? SIXP_CELL_RX : SIXP_CELL_TX;
        f->elapsed[d] = f->used[d] = 0;
        if (pct > f->cfg.lim_high_pct) {
            start(s, f->parent, SIXP_CMD_ADD, opt, 1, NULL);
            return true;
        }
        if (pct < f->cfg.lim_low_pct && cells > (d ? 0u : 1u)) {
            start(s, f->parent, SIXP_CMD_DELETE, opt, 1, NULL);
            return true;
        }
    }
    return false;
}

/* the negotiated cells to the parent: their number follows the load; every
 * HOUSEKEEPINGCOLLISION_PERIOD the worst TX cell moves (RFC 9033 5.3) */
static void negotiate(struct wren_sixtop *s, const struct wren_tsch_cell *sched, int n,
                      uint32_t now)
{
    struct wren_msf *f = &s->tab->msf;
    if (f->clear_old && !wren_sixtop_trans_of(s, f->old_parent)) {
        start(s, f->old_parent, SIXP_CMD_CLEAR, 0, 0, NULL);
    }
    if (!f->has_parent || wren_sixtop_trans_of(s, f->parent) || quarantined(s, f->parent) ||
        (f->wait_until_s && (int32_t)(now - f->wait_until_s) < 0)) {
        return;
    }
    unsigned ntx = count_use(s, sched, n, 0), nrx = count_use(s, sched, n, 1);
    if (ntx == 0) {
        first_cells(s, sched, n);
        return;
    }
    if (adapt_to_load(s, ntx, nrx)) {
        return;
    }
    /* RX cells from the parent adapt once one exists (`6p add NBR rx`);
     * without one, downward traffic comes in our autonomous RX cell */
    if ((int32_t)(now - f->next_housekeeping_s) >= 0) {
        f->next_housekeeping_s = now + f->cfg.housekeeping_s;
        struct sixp_cell bad;
        if (worst_cell(f, sched, n, &bad)) {
            start(s, f->parent, SIXP_CMD_RELOCATE, SIXP_CELL_TX, 1, &bad);
        }
    }
}

void wren_msf_tick(struct wren_sixtop *s)
{
    struct wren_msf *f = &s->tab->msf;
    struct wren_tsch_cell sched[CONFIG_WREN_SIXTOP_SCHED_CELLS];
    struct wren_tsch_sync_info si;
    uint32_t now = wren_sixtop_now_s(s);
    if (wren_sixtop_if_get(s, WREN_NETOPT_TSCH_SYNC, &si, sizeof(si)) < 0 || !si.synced) {
        return;
    }
    follow_slotframe(s);
    int n = wren_sixtop_sched(s, sched, CONFIG_WREN_SIXTOP_SCHED_CELLS);
    if (n < 0) {
        return;
    }
    if (!f->auto_rx) {
        int rc = wren_sixtop_cell(s, SIXTOP_ADD | SIXTOP_AUTO | WREN_TSCH_CELL_RX, NULL, f->auto_c);
        f->auto_rx = rc == 0 || rc == -EEXIST;
    }
    auto_tx_update(s, sched, n);
    rpl_glue(s);
    if (f->cfg.enabled) {
        negotiate(s, sched, n, now);
    }
}
