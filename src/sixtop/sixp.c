/* 6P (RFC 8480): transactions, sequence numbers, the schedule changes they
 * make, and the module around them (sixtop.h). */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/config.h"
#include "core/node.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "net/netopt.h"
#include "shell/shell.h"
#include "sixtop/sixtop.h"
#include "sixtop/sixtop_priv.h"

/* ---- helpers shared with MSF ------------------------------------------------- */

uint32_t wren_sixtop_now_s(const struct wren_sixtop *s)
{
    return wren_node_now_s(s->node);
}

struct wren_module *wren_sixtop_netif(struct wren_sixtop *s)
{
    struct wren_netif *netif = wren_netif_get(s->node, s->if_id);
    return netif ? &netif->module : NULL;
}

int wren_sixtop_if_get(struct wren_sixtop *s, uint16_t opt, void *val, size_t max)
{
    struct wren_module *m = wren_sixtop_netif(s);
    return m ? wren_netapi_get(s->node, m, opt, 0, val, max) : -ENODEV;
}

int wren_sixtop_if_set(struct wren_sixtop *s, uint16_t opt, const void *val, size_t len)
{
    struct wren_module *m = wren_sixtop_netif(s);
    return m ? wren_netapi_set(s->node, m, opt, 0, val, len) : -ENODEV;
}

int wren_sixtop_sched(struct wren_sixtop *s, struct wren_tsch_cell *c, unsigned max)
{
    int n = wren_sixtop_if_get(s, WREN_NETOPT_TSCH_CELLS, c, max * sizeof(*c));
    return n < 0 ? n : (int)((unsigned)n / sizeof(*c));
}

int wren_sixtop_cell(struct wren_sixtop *s, unsigned how, const uint8_t *nbr, struct sixp_cell cell)
{
    bool add = how & SIXTOP_ADD;
    struct wren_tsch_cell c;
    memset(&c, 0, sizeof(c));
    c.slot_offset = cell.slot_offset;
    c.channel_offset = cell.channel_offset;
    c.slotframe = SIXTOP_SLOTFRAME;
    /* 6P CellOptions and 802.15.4 link options share TX/RX/SHARED bits */
    c.options = how & (WREN_TSCH_CELL_TX | WREN_TSCH_CELL_RX | WREN_TSCH_CELL_SHARED);
    c.kind = (uint8_t)(how >> 8);
    if (nbr) {
        c.nbr_len = 8;
        memcpy(c.nbr, nbr, 8);
    }
    int rc = wren_sixtop_if_set(s, add ? WREN_NETOPT_TSCH_CELL_ADD : WREN_NETOPT_TSCH_CELL_DEL,
                                &c, sizeof(c));
    if (rc < 0 && add) {
        s->stats.cell_add_fail++;
    }
    return rc < 0 ? rc : 0;
}

bool wren_sixtop_is_negotiated(const struct wren_tsch_cell *c, const uint8_t nbr[8])
{
    return c->kind == WREN_TSCH_CELL_NEGOTIATED && c->slotframe == SIXTOP_SLOTFRAME &&
           c->nbr_len == 8 && memcmp(c->nbr, nbr, 8) == 0;
}

/* whether a cell of @p c[@p n] is in slot @p slot */
static bool has_slot(const struct sixp_cell *c, unsigned n, uint16_t slot)
{
    for (unsigned i = 0; i < n; i++) {
        if (c[i].slot_offset == slot) {
            return true;
        }
    }
    return false;
}

bool wren_sixtop_slot_busy(const struct wren_sixtop *s, const struct wren_tsch_cell *c, unsigned n,
                           const struct sixp_cell *out, unsigned k, uint16_t slot)
{
    for (unsigned i = 0; i < n; i++) {
        if (c[i].slotframe == SIXTOP_SLOTFRAME && c[i].slot_offset == slot) {
            return true;
        }
    }
    if (has_slot(out, k, slot)) {
        return true;
    }
    for (unsigned i = 0; i < CONFIG_WREN_SIXP_TRANS; i++) {
        const struct wren_sixp_trans *t = &s->tab->trans[i];
        if (t->used && has_slot(t->cells, t->n_cells, slot)) {
            return true;
        }
    }
    return false;
}

struct wren_sixp_trans *wren_sixtop_trans_of(struct wren_sixtop *s, const uint8_t nbr[8])
{
    for (unsigned i = 0; i < CONFIG_WREN_SIXP_TRANS; i++) {
        if (s->tab->trans[i].used && memcmp(s->tab->trans[i].nbr, nbr, 8) == 0) {
            return &s->tab->trans[i];
        }
    }
    return NULL;
}

/* @p c[@p n] written as a 6P cell list into @p buf */
static const uint8_t *wire_cells(const struct sixp_cell *c, unsigned n, uint8_t *buf)
{
    for (unsigned i = 0; i < n; i++) {
        wren_sixp_cell_put(buf, i, c[i]);
    }
    return buf;
}

/* ---- neighbours and sequence numbers (RFC 8480 3.4.6) ------------------------- */

/* The entry of neighbour @p a; with @p add a new one (SeqNum 0), in place of
 * the one heard from longest ago (not in a transaction, not MSF's parent)
 * when the table is full: a flood of strangers cannot lock out the
 * neighbours that come after it; one evicted starts again from SeqNum 0
 * (its next request gets RC_ERR_SEQNUM and a CLEAR, as after a reset) */
static struct wren_sixp_nbr *nbr_find(struct wren_sixtop *s, const uint8_t a[8], bool add)
{
    struct wren_sixp_nbr *free = NULL;
    uint32_t now = wren_sixtop_now_s(s);
    for (unsigned i = 0; i < CONFIG_WREN_SIXP_NBRS; i++) {
        struct wren_sixp_nbr *n = &s->tab->nbrs[i];
        if (n->used && memcmp(n->addr, a, 8) == 0) {
            n->seen_s = now;
            return n;
        }
        if (!n->used && free == NULL) {
            free = n;
        }
    }
    if (!add) {
        return NULL;
    }
    for (unsigned i = 0; i < CONFIG_WREN_SIXP_NBRS && free == NULL; i++) {
        struct wren_sixp_nbr *n = &s->tab->nbrs[i];
        if (wren_sixtop_trans_of(s, n->addr) == NULL &&
            !(s->tab->msf.has_parent && memcmp(n->addr, s->tab->msf.parent, 8) == 0) &&
            (free == NULL || (int32_t)(n->seen_s - free->seen_s) < 0)) {
            free = n;
        }
    }
    if (free == NULL) {
        return NULL; /* the caller counts nbr_full */
    }
    if (free->used) {
        s->stats.nbr_evict++;
    }
    memset(free, 0, sizeof(*free));
    free->used = 1;
    free->seen_s = now;
    memcpy(free->addr, a, 8);
    return free; /* SeqNum 0: as after a reset */
}

int wren_sixtop_seqnum(const struct wren_sixtop *s, const uint8_t nbr[8])
{
    for (unsigned i = 0; i < CONFIG_WREN_SIXP_NBRS; i++) {
        if (s->tab->nbrs[i].used && memcmp(s->tab->nbrs[i].addr, nbr, 8) == 0) {
            return s->tab->nbrs[i].seqnum;
        }
    }
    return -1;
}

/* 0 only after a reset or a CLEAR: the lollipop goes 0xff -> 1 */
static uint8_t seq_next(uint8_t v)
{
    return v == 0xff ? 1 : (uint8_t)(v + 1);
}

/* A request answered with one of these was not taken up: SeqNum stays */
static bool rc_keeps_seqnum(uint8_t rc)
{
    return rc == SIXP_RC_ERR_BUSY || rc == SIXP_RC_ERR_VERSION || rc == SIXP_RC_ERR_SFID ||
           rc == SIXP_RC_ERR_SEQNUM;
}

static const struct wren_sixp_sf *sf_find(const struct wren_sixtop *s, uint8_t sfid)
{
    for (unsigned i = 0; i < sizeof(s->sf) / sizeof(s->sf[0]); i++) {
        if (s->sf[i] && s->sf[i]->sfid == sfid) {
            return s->sf[i];
        }
    }
    return NULL;
}

/* ---- sending ------------------------------------------------------------------ */

static int send_msg(struct wren_sixtop *s, const uint8_t nbr[8], const struct sixp_msg *m)
{
    struct wren_pktbuf *pb = &s->node->pktbuf;
    struct wren_module *netif = wren_sixtop_netif(s);
    int len = wren_sixp_len(m);
    if (len < 0 || netif == NULL) {
        return -EINVAL;
    }
    struct wren_snip *pl = wren_pktbuf_add(pb, NULL, NULL, (size_t)len, WREN_NETTYPE_SIXTOP);
    struct wren_snip *pkt = pl ? wren_netif_hdr_add(pb, pl, NULL, 0, nbr, 8) : NULL;
    if (pkt == NULL) {
        if (pl) {
            wren_pktbuf_release(pb, pl);
        }
        s->stats.tx_nobuf++;
        return -ENOBUFS;
    }
    wren_sixp_emit(m, pl->data, (size_t)len);
    wren_netif_hdr(pkt)->if_id = s->if_id;
    if (wren_netapi_send(s->node, netif, pkt) < 0) {
        wren_pktbuf_release(pb, pkt);
        s->stats.tx_nobuf++;
        return -ENOBUFS;
    }
    wren_msf_sending(s, nbr);
    return 0;
}

/* the body of a response: its cell list (or COUNT's total) */
struct sixp_answer {
    uint8_t cells[CONFIG_WREN_SIXP_CELLS * SIXP_CELL_LEN];
    unsigned n;
    uint16_t total;
};

/* a response to @p req carrying @p rc and, for SUCCESS/EOL, answer @p a's
 * cells / total (NULL: none) */
static void respond(struct wren_sixtop *s, const uint8_t nbr[8], const struct sixp_msg *req,
                    uint8_t rc, const struct sixp_answer *a)
{
    struct sixp_msg r;
    memset(&r, 0, sizeof(r));
    r.type = SIXP_TYPE_RESPONSE;
    r.code = rc;
    r.sfid = req->sfid;
    r.seqnum = req->seqnum;
    /* the body by command; an unknown command gets none */
    r.resp_cmd = req->code >= SIXP_CMD_ADD && req->code <= SIXP_CMD_CLEAR ? req->code : 0;
    if (a) {
        r.cells = a->cells;
        r.n_cells = (uint16_t)a->n;
        r.total = a->total;
    }
    if (send_msg(s, nbr, &r) == 0) {
        s->stats.tx_response++;
    }
}

static struct sixp_cell cell_of(const struct wren_tsch_cell *c)
{
    struct sixp_cell x = { c->slot_offset, c->channel_offset };
    return x;
}

/* a negotiated cell with nbr with the CellOptions @p opts (our view) */
static bool same_cell(const struct wren_tsch_cell *c, const uint8_t nbr[8], uint8_t opts)
{
    return wren_sixtop_is_negotiated(c, nbr) && ((c->options ^ opts) & 7) == 0;
}

/* remove every negotiated cell with nbr of @p sched[@p n] */
static void clear_in(struct wren_sixtop *s, const uint8_t nbr[8], const struct wren_tsch_cell *sched,
                     int n)
{
    for (int i = 0; i < n; i++) {
        if (wren_sixtop_is_negotiated(&sched[i], nbr)) {
            wren_sixtop_cell(s, SIXTOP_NEG | sched[i].options, nbr, cell_of(&sched[i]));
        }
    }
}

/* ---- responder ----------------------------------------------------------------- */

/* CellOptions from the other end's point of view: TX and RX swap */
static uint8_t mirror(uint8_t o)
{
    return (uint8_t)((o & ~(SIXP_CELL_TX | SIXP_CELL_RX)) | (o & SIXP_CELL_TX ? SIXP_CELL_RX : 0) |
                     (o & SIXP_CELL_RX ? SIXP_CELL_TX : 0));
}

static int find_cell(const struct wren_tsch_cell *c, unsigned n, const uint8_t nbr[8],
                     struct sixp_cell x)
{
    for (unsigned i = 0; i < n; i++) {
        if (wren_sixtop_is_negotiated(&c[i], nbr) && c[i].slot_offset == x.slot_offset &&
            c[i].channel_offset == x.channel_offset) {
            return (int)i;
        }
    }
    return -1;
}

static bool locked(const struct wren_sixtop *s, struct sixp_cell x)
{
    for (unsigned i = 0; i < CONFIG_WREN_SIXP_TRANS; i++) {
        const struct wren_sixp_trans *t = &s->tab->trans[i];
        if (t->used && (has_slot(t->rel, t->n_rel, x.slot_offset) ||
                        (t->cmd == SIXP_CMD_DELETE &&
                         has_slot(t->cells, t->n_cells, x.slot_offset)))) {
            return true;
        }
    }
    return false;
}

/* DELETE, RELOCATE: every cell named must be ours with nbr, with those
 * options, none in a transaction of ours */
static uint8_t check_named(struct wren_sixtop *s, const uint8_t nbr[8], const struct sixp_msg *m,
                           const struct wren_tsch_cell *sched, unsigned n, uint8_t opts)
{
    unsigned k = m->code == SIXP_CMD_DELETE ? m->n_cells : m->num_cells;
    if (k < m->num_cells || m->num_cells == 0 || m->num_cells > CONFIG_WREN_SIXP_CELLS) {
        s->stats.rx_bad_celllist++;
        return SIXP_RC_ERR_CELLLIST;
    }
    for (unsigned i = 0; i < k; i++) {
        struct sixp_cell x = wren_sixp_cell_get(m->cells, i);
        int j = find_cell(sched, n, nbr, x);
        if (j < 0 || (sched[j].options & (SIXP_CELL_TX | SIXP_CELL_RX)) !=
                         (opts & (SIXP_CELL_TX | SIXP_CELL_RX))) {
            s->stats.rx_bad_celllist++;
            return SIXP_RC_ERR_CELLLIST;
        }
        if (locked(s, x)) {
            s->stats.rx_locked++;
            return SIXP_RC_ERR_LOCKED;
        }
    }
    return SIXP_RC_SUCCESS;
}

/* RFC 8480 3.3.2: DELETE the cells named, if each is ours with nbr */
static uint8_t exec_delete(struct wren_sixtop *s, const uint8_t nbr[8], const struct sixp_msg *m,
                           const struct wren_tsch_cell *sched, unsigned n, uint8_t opts,
                           struct sixp_answer *a)
{
    uint8_t rc = check_named(s, nbr, m, sched, n, opts);
    for (unsigned i = 0; rc == SIXP_RC_SUCCESS && i < m->num_cells; i++) {
        struct sixp_cell x = wren_sixp_cell_get(m->cells, i);
        wren_sixtop_cell(s, SIXTOP_NEG | opts, nbr, x);
        wren_sixp_cell_put(a->cells, a->n++, x);
    }
    return rc;
}

/* RFC 8480 3.3.1/3.3.3: ADD (and RELOCATE, its cells checked) the cells the
 * SF picks from the candidates; RELOCATE's named cells go as new ones come */
static uint8_t exec_add(struct wren_sixtop *s, const uint8_t nbr[8], const struct sixp_msg *m,
                        const struct wren_sixp_sf *sf, uint8_t opts, struct sixp_answer *a)
{
    struct sixp_cell pick[CONFIG_WREN_SIXP_CELLS];
    int k = sf->pick(s, nbr, m, pick,
                     m->num_cells < CONFIG_WREN_SIXP_CELLS ? m->num_cells : CONFIG_WREN_SIXP_CELLS);
    if (k < 0) {
        return (uint8_t)-k;
    }
    for (int i = 0; i < k; i++) {
        if (m->code == SIXP_CMD_RELOCATE) {
            wren_sixtop_cell(s, SIXTOP_NEG | opts, nbr, wren_sixp_cell_get(m->cells, (unsigned)i));
        }
        if (wren_sixtop_cell(s, SIXTOP_ADD | SIXTOP_NEG | opts, nbr, pick[i]) == 0) {
            wren_sixp_cell_put(a->cells, a->n++, pick[i]);
        }
    }
    return SIXP_RC_SUCCESS;
}

/* RFC 8480 3.3.4/3.3.5: COUNT our cells with nbr of those options, or LIST
 * them from Offset, MaxNumCells at most (EOL: the list ends here) */
static uint8_t exec_count_list(const uint8_t nbr[8], const struct sixp_msg *m,
                               const struct wren_tsch_cell *sched, unsigned n, uint8_t opts,
                               struct sixp_answer *a)
{
    unsigned seen = 0, max = m->max_num_cells < CONFIG_WREN_SIXP_CELLS ? m->max_num_cells
                                                                      : CONFIG_WREN_SIXP_CELLS;
    uint8_t rc = m->code == SIXP_CMD_LIST ? SIXP_RC_EOL : SIXP_RC_SUCCESS;
    for (unsigned i = 0; i < n; i++) {
        if (!same_cell(&sched[i], nbr, opts)) {
            continue;
        }
        a->total++; /* COUNT's answer */
        if (m->code != SIXP_CMD_LIST || seen++ < m->offset) {
            continue;
        }
        if (a->n == max) {
            return SIXP_RC_SUCCESS; /* more follow */
        }
        wren_sixp_cell_put(a->cells, a->n++, cell_of(&sched[i]));
    }
    return rc;
}

/* request @p m's command on schedule @p sched[@p n]; the return code */
static uint8_t exec_cmd(struct wren_sixtop *s, const uint8_t nbr[8], const struct sixp_msg *m,
                        const struct wren_sixp_sf *sf, const struct wren_tsch_cell *sched,
                        unsigned n, struct sixp_answer *a)
{
    uint8_t opts = mirror(m->cell_options); /* the cells as we hold them */
    uint8_t rc;
    switch (m->code) {
    case SIXP_CMD_DELETE:
        return exec_delete(s, nbr, m, sched, n, opts, a);
    case SIXP_CMD_RELOCATE:
        rc = check_named(s, nbr, m, sched, n, opts);
        return rc != SIXP_RC_SUCCESS ? rc : exec_add(s, nbr, m, sf, opts, a);
    case SIXP_CMD_ADD:
        return exec_add(s, nbr, m, sf, opts, a);
    case SIXP_CMD_COUNT:
    case SIXP_CMD_LIST:
        /* without CONFIG_WREN_SIXP_COUNT_LIST: as SIGNAL */
        return CONFIG_WREN_SIXP_COUNT_LIST ? exec_count_list(nbr, m, sched, n, opts, a)
                                           : SIXP_RC_ERR;
    case SIXP_CMD_CLEAR:
        clear_in(s, nbr, sched, (int)n);
        return SIXP_RC_SUCCESS;
    default: /* SIGNAL: MSF defines none */
        return SIXP_RC_ERR;
    }
}

/* RFC 8480 3.3: carry out request @p m of @p nbr (checks passed); answer */
static void execute(struct wren_sixtop *s, const uint8_t nbr[8], const struct sixp_msg *m,
                    const struct wren_sixp_sf *sf, struct wren_sixp_nbr *nb)
{
    struct wren_tsch_cell sched[CONFIG_WREN_SIXTOP_SCHED_CELLS];
    struct sixp_answer a;
    a.n = 0;
    a.total = 0;
    int n = wren_sixtop_sched(s, sched, CONFIG_WREN_SIXTOP_SCHED_CELLS);
    /* no schedule to work on: a critical error */
    uint8_t rc = n < 0 ? SIXP_RC_RESET : exec_cmd(s, nbr, m, sf, sched, (unsigned)n, &a);
    if (m->code == SIXP_CMD_CLEAR) {
        nb->seqnum = 0; /* RFC 8480 3.4.6: both ends start again at 0 */
    } else if (!rc_keeps_seqnum(rc)) {
        nb->seqnum = seq_next(m->seqnum);
    }
    respond(s, nbr, m, rc, &a);
}

static void on_request(struct wren_sixtop *s, const uint8_t nbr[8], const struct sixp_msg *m,
                       int perr)
{
    const struct wren_sixp_sf *sf = sf_find(s, m->sfid);
    struct wren_sixp_nbr *nb = NULL;
    uint32_t *drop = NULL; /* the counter of a request refused, with rc */
    uint8_t rc = SIXP_RC_ERR;
    s->stats.rx_request++;
    if (perr == -SIXP_ERR_CMD) {
        drop = &s->stats.rx_unknown_cmd;
    } else if (perr == -SIXP_ERR_TRUNCATED) {
        drop = &s->stats.rx_truncated;
    } else if (perr < 0) {
        drop = &s->stats.rx_bad_length;
    } else if (sf == NULL) {
        drop = &s->stats.rx_bad_sfid;
        rc = SIXP_RC_ERR_SFID;
    } else if (wren_sixtop_trans_of(s, nbr)) {
        /* RFC 8480 3.4.3: one transaction at a time between two neighbours */
        drop = &s->stats.rx_busy;
        rc = SIXP_RC_ERR_BUSY;
    } else if ((nb = nbr_find(s, nbr, true)) == NULL) {
        drop = &s->stats.nbr_full;
        rc = SIXP_RC_ERR_BUSY;
    } else if (m->code != SIXP_CMD_CLEAR && m->seqnum != nb->seqnum) {
        /* RFC 8480 3.4.6.2: a SeqNum other than ours (a lost response, a
         * reset neighbour sending 0) means the schedules may disagree; CLEAR
         * is always taken, it is what repairs them */
        drop = &s->stats.rx_err_seqnum;
        rc = SIXP_RC_ERR_SEQNUM;
    }
    if (drop) {
        (*drop)++;
        respond(s, nbr, m, rc, NULL);
        return;
    }
    execute(s, nbr, m, sf, nb);
}

/* ---- initiator ------------------------------------------------------------------ */

static void trans_end(struct wren_sixtop *s, struct wren_sixp_trans *t, int rc,
                      const struct sixp_msg *resp)
{
    struct wren_sixp_trans copy = *t;
    t->used = 0; /* free before done(): the SF may start the next one */
    const struct wren_sixp_sf *sf = sf_find(s, copy.sfid);
    if (sf && sf->done) {
        sf->done(s, &copy, rc, resp);
    }
}

/* CLEAR at the initiator (RFC 8480 3.3.5: whatever the outcome): no
 * negotiated cell with nbr left, SeqNum 0 */
static void cleared(struct wren_sixtop *s, const uint8_t nbr[8])
{
    struct wren_tsch_cell sched[CONFIG_WREN_SIXTOP_SCHED_CELLS];
    struct wren_sixp_nbr *nb = nbr_find(s, nbr, false);
    clear_in(s, nbr, sched, wren_sixtop_sched(s, sched, CONFIG_WREN_SIXTOP_SCHED_CELLS));
    if (nb) {
        nb->seqnum = 0;
    }
}

static bool proposed(const struct wren_sixp_trans *t, struct sixp_cell x)
{
    for (unsigned i = 0; i < t->n_cells; i++) {
        if (t->cells[i].slot_offset == x.slot_offset &&
            t->cells[i].channel_offset == x.channel_offset) {
            return true;
        }
    }
    return false;
}

/* responses received by error code: RC_ERR .. RC_ERR_LOCKED, each its counter */
static void count_rc(struct wren_sixtop_stats *st, uint8_t rc)
{
#define RC_CTR(f) (uint16_t) offsetof(struct wren_sixtop_stats, f)
    static const uint16_t ctr[] = {
        RC_CTR(rc_err),         RC_CTR(rc_reset),    RC_CTR(rc_err_version),
        RC_CTR(rc_err_sfid),    RC_CTR(rc_err_seqnum), RC_CTR(rc_err_celllist),
        RC_CTR(rc_err_busy),    RC_CTR(rc_err_locked),
    };
#undef RC_CTR
    _Static_assert(SIXP_RC_ERR_LOCKED - SIXP_RC_ERR + 1 == sizeof(ctr) / sizeof(ctr[0]),
                   "a counter per error code");
    if (rc >= SIXP_RC_ERR && rc <= SIXP_RC_ERR_LOCKED) {
        uint32_t *c = (uint32_t *)(void *)((uint8_t *)st + ctr[rc - SIXP_RC_ERR]);
        (*c)++;
    }
}

/* RFC 8480 3.4.6: SeqNum after a response with @p rc (CLEAR: 0 whatever
 * the outcome, and no negotiated cell with nbr left) */
static void resp_seqnum(struct wren_sixtop *s, const uint8_t nbr[8],
                        const struct wren_sixp_trans *t, int rc)
{
    if (t->cmd == SIXP_CMD_CLEAR) {
        cleared(s, nbr);
        return;
    }
    struct wren_sixp_nbr *nb = nbr_find(s, nbr, false);
    if (nb && !rc_keeps_seqnum((uint8_t)rc)) {
        nb->seqnum = seq_next(t->seqnum);
    }
}

/* A SUCCESS/EOL response's cells into our schedule: ADD's and RELOCATE's
 * must be among those we proposed, at most NumCells (false, counted, if
 * not), and are added (RELOCATE: each in place of one of ours); DELETE's
 * go */
static bool take_cells(struct wren_sixtop *s, const uint8_t nbr[8],
                       const struct wren_sixp_trans *t, const struct sixp_msg *m)
{
    unsigned k = m->n_cells;
    if (t->cmd != SIXP_CMD_ADD && t->cmd != SIXP_CMD_RELOCATE && t->cmd != SIXP_CMD_DELETE) {
        return true;
    }
    for (unsigned i = 0; t->cmd != SIXP_CMD_DELETE && i < k; i++) {
        if (!proposed(t, wren_sixp_cell_get(m->cells, i)) || k > t->num_cells) {
            s->stats.rx_bad_celllist++;
            return false;
        }
    }
    unsigned how = (t->cmd == SIXP_CMD_DELETE ? 0u : SIXTOP_ADD) | SIXTOP_NEG | t->cell_options;
    for (unsigned i = 0; i < k; i++) {
        if (t->cmd == SIXP_CMD_RELOCATE && i < t->n_rel) {
            wren_sixtop_cell(s, SIXTOP_NEG | t->cell_options, nbr, t->rel[i]);
        }
        wren_sixtop_cell(s, how, nbr, wren_sixp_cell_get(m->cells, i));
    }
    return true;
}

static void on_response(struct wren_sixtop *s, const uint8_t nbr[8], struct sixp_msg *m,
                        int perr)
{
    if (perr == -SIXP_ERR_RC) {
        s->stats.rx_bad_rc++;
        return;
    }
    struct wren_sixp_trans *t = wren_sixtop_trans_of(s, nbr);
    if (t == NULL || m->type == SIXP_TYPE_CONFIRMATION) {
        s->stats.rx_no_trans++; /* 2-step only: no confirmation is ever awaited */
        return;
    }
    if (m->seqnum != t->seqnum) {
        s->stats.rx_stale_seqnum++;
        return;
    }
    s->stats.rx_response++;
    s->last_rc = m->code;
    count_rc(&s->stats, m->code);
    int rc = m->code;
    if (wren_sixp_body_parse(m, t->cmd) < 0) {
        s->stats.rx_bad_length++;
        rc = SIXP_RC_ERR;
    }
    s->last_n_cells = (uint8_t)m->n_cells;
    s->last_total = m->total;
    resp_seqnum(s, nbr, t, rc);
    if (rc == SIXP_RC_SUCCESS || rc == SIXP_RC_EOL) {
        s->stats.trans_ok++;
        if (!take_cells(s, nbr, t, m)) {
            rc = SIXP_RC_ERR_CELLLIST;
        }
    }
    trans_end(s, t, rc, m);
}

/* A transaction to start with @p nbr: a free one, none with @p nbr under
 * way (RFC 8480 3.4.3), a place in the neighbour table (*@p nb). Returns
 * it, or NULL with *@p err (counted) */
static struct wren_sixp_trans *trans_new(struct wren_sixtop *s, const uint8_t nbr[8],
                                         struct wren_sixp_nbr **nb, int *err)
{
    struct wren_sixp_trans *t = NULL;
    for (unsigned i = 0; i < CONFIG_WREN_SIXP_TRANS && t == NULL; i++) {
        t = s->tab->trans[i].used ? NULL : &s->tab->trans[i];
    }
    if (wren_sixtop_trans_of(s, nbr) || t == NULL) {
        s->stats.trans_refused++;
        *err = -EBUSY;
        return NULL;
    }
    *nb = nbr_find(s, nbr, true);
    if (*nb == NULL) {
        s->stats.nbr_full++;
        *err = -ENOSPC;
        return NULL;
    }
    return t;
}

/* DELETE's cells: those given, or ours with nbr of those options, the last
 * ones; -ENOENT if there are not NumCells (at least one) */
static int delete_cells(struct wren_sixtop *s, struct wren_sixp_trans *t,
                        const struct sixp_cell *cells, unsigned n)
{
    if (cells) {
        memcpy(t->cells, cells, n * sizeof(*cells));
        t->n_cells = (uint8_t)n;
    } else {
        struct wren_tsch_cell sched[CONFIG_WREN_SIXTOP_SCHED_CELLS];
        int k = wren_sixtop_sched(s, sched, CONFIG_WREN_SIXTOP_SCHED_CELLS);
        for (int i = k - 1; i >= 0 && t->n_cells < t->num_cells; i--) {
            if (same_cell(&sched[i], t->nbr, t->cell_options)) {
                t->cells[t->n_cells++] = cell_of(&sched[i]);
            }
        }
    }
    return t->n_cells < t->num_cells || t->num_cells == 0 ? -ENOENT : 0;
}

/* The cells transaction @p t proposes (RFC 8480 3.3): ADD's candidates
 * from MSF; RELOCATE's cells to move (@p cells[@p n]) and candidates;
 * DELETE's cells. Returns 0 or a negative errno */
static int propose(struct wren_sixtop *s, struct wren_sixp_trans *t,
                   const struct sixp_cell *cells, unsigned n)
{
    switch (t->cmd) {
    case SIXP_CMD_RELOCATE:
        if (n == 0) {
            return -EINVAL;
        }
        memcpy(t->rel, cells, n * sizeof(*cells));
        t->n_rel = (uint8_t)n;
        t->num_cells = (uint8_t)n;
        /* fall through */
    case SIXP_CMD_ADD:
        t->used = 1; /* reserve: the candidates skip cells under relocation */
        t->n_cells = (uint8_t)wren_msf_candidates(s, t->cells, CONFIG_WREN_SIXP_CELLS);
        t->used = 0;
        return t->n_cells == 0 ? -ENOSPC : 0;
    case SIXP_CMD_DELETE:
        return delete_cells(s, t, cells, n);
    default:
        return 0;
    }
}

/* the request of transaction @p t, its cell lists written into @p list */
static void request_msg(const struct wren_sixp_trans *t, struct sixp_msg *m, uint8_t *list)
{
    memset(m, 0, sizeof(*m));
    m->type = SIXP_TYPE_REQUEST;
    m->code = t->cmd;
    m->sfid = t->sfid;
    m->seqnum = t->seqnum;
    m->cell_options = t->cell_options;
    m->num_cells = t->num_cells;
    m->max_num_cells = CONFIG_WREN_SIXP_CELLS;
    const uint8_t *cl = wire_cells(t->cells, t->n_cells, list);
    if (t->cmd == SIXP_CMD_RELOCATE) {
        m->cells = wire_cells(t->rel, t->n_rel, list + sizeof(t->cells));
        m->n_cells = t->n_rel;
        m->cand = cl;
        m->n_cand = t->n_cells;
    } else {
        m->cells = cl;
        m->n_cells = t->n_cells;
    }
}

int wren_sixtop_request(struct wren_sixtop *s, const uint8_t nbr[8], uint8_t cmd,
                        uint8_t cell_options, uint8_t num_cells, const struct sixp_cell *cells,
                        unsigned n)
{
    if (cmd < SIXP_CMD_ADD || cmd > SIXP_CMD_CLEAR || cmd == SIXP_CMD_SIGNAL ||
        (!CONFIG_WREN_SIXP_COUNT_LIST && (cmd == SIXP_CMD_COUNT || cmd == SIXP_CMD_LIST)) ||
        n > CONFIG_WREN_SIXP_CELLS || num_cells > CONFIG_WREN_SIXP_CELLS) {
        return -EINVAL;
    }
    if (!wren_timer_armed(&s->tick)) {
        return -ENOTSUP; /* the interface runs no TSCH (see wren_sixtop_init) */
    }
    struct wren_sixp_nbr *nb;
    int rc = 0;
    struct wren_sixp_trans *t = trans_new(s, nbr, &nb, &rc);
    if (t == NULL) {
        return rc;
    }
    memset(t, 0, sizeof(*t));
    memcpy(t->nbr, nbr, 8);
    t->cmd = cmd;
    t->sfid = SIXP_SFID_MSF;
    t->seqnum = nb->seqnum;
    t->cell_options = cell_options;
    t->num_cells = num_cells;
    rc = propose(s, t, cells, n);
    if (rc < 0) {
        return rc;
    }
    uint8_t list[2 * CONFIG_WREN_SIXP_CELLS * SIXP_CELL_LEN]; /* the cell lists as sent */
    struct sixp_msg m;
    request_msg(t, &m, list);
    t->used = 1;
    t->deadline_s = wren_sixtop_now_s(s) + CONFIG_WREN_SIXP_TIMEOUT_S;
    rc = send_msg(s, nbr, &m);
    if (rc < 0) {
        t->used = 0;
        return rc;
    }
    s->stats.tx_request++;
    return 0;
}

/* ---- the module ------------------------------------------------------------------ */

static void receive(struct wren_sixtop *s, struct wren_snip *pkt)
{
    struct wren_snip *nh = wren_pkt_search(pkt, WREN_NETTYPE_NETIF);
    uint8_t nbr[8];
    if (nh == NULL || wren_netif_hdr(nh)->src_len != 8) {
        s->stats.rx_no_addr++;
        goto done;
    }
    memcpy(nbr, wren_netif_hdr(nh)->src, 8);
#if CONFIG_WREN_NODE_MEM
    if (wren_sixtop_tables(s) == NULL) {
        s->stats.no_mem++;
        goto done;
    }
#endif
    struct sixp_msg m;
    int rc = wren_sixp_parse(pkt->data, pkt->size, &m);
    if (pkt->size < SIXP_HDR_LEN) {
        s->stats.rx_truncated++;
        goto done;
    }
    if (rc == -SIXP_ERR_VERSION) {
        /* RFC 8480 3.2.1: a request in a version we do not speak is answered */
        s->stats.rx_bad_version++;
        if (m.type == SIXP_TYPE_REQUEST) {
            m.code = 0; /* no body of any command */
            respond(s, nbr, &m, SIXP_RC_ERR_VERSION, NULL);
        }
        goto done;
    }
    if (rc == -SIXP_ERR_TYPE) {
        s->stats.rx_bad_type++;
        goto done;
    }
    if (m.type == SIXP_TYPE_REQUEST) {
        on_request(s, nbr, &m, rc);
    } else {
        on_response(s, nbr, &m, rc);
    }
done:
    wren_pktbuf_release(&s->node->pktbuf, pkt);
}

#if CONFIG_WREN_NODE_MEM
struct wren_sixtop_tables *wren_sixtop_tables(struct wren_sixtop *s)
{
    if (s->tab == NULL && WREN_LAZY_GET(s->node, s, tab) != NULL) {
        wren_msf_init(s); /* MSF starts with its tables */
    }
    return s->tab;
}
#endif

static void tick(struct wren_timer *tm, void *arg)
{
    (void)tm;
    struct wren_sixtop *s = arg;
    uint32_t now = wren_sixtop_now_s(s);
    for (unsigned i = 0; i < CONFIG_WREN_SIXP_TRANS; i++) {
        struct wren_sixp_trans *t = &s->tab->trans[i];
        if (t->used && (int32_t)(now - t->deadline_s) >= 0) {
            s->stats.trans_timeout++;
            if (t->cmd == SIXP_CMD_CLEAR) {
                cleared(s, t->nbr);
            }
            trans_end(s, t, -1, NULL);
        }
    }
    wren_msf_tick(s);
}

static void sixtop_handle(struct wren_node *node, struct wren_module *self,
                          const struct wren_msg *msg)
{
    struct wren_sixtop *s = (struct wren_sixtop *)self;
    if (msg->type == WREN_MSG_RCV) {
        receive(s, msg->ptr);
    } else if (msg->ptr) {
        wren_pktbuf_release(&node->pktbuf, msg->ptr);
    }
}

static int sixtop_get(struct wren_node *node, struct wren_module *self, uint16_t opt,
                      uint16_t ctx, void *val, size_t max)
{
    (void)node;
    (void)ctx;
    struct wren_sixtop *s = (struct wren_sixtop *)self;
    switch (opt) {
    case WREN_NETOPT_STATS:
        return wren_netopt_put(val, max, &s->stats, sizeof(s->stats));
    case WREN_NETOPT_IF_ID:
        return wren_netopt_put(val, max, &s->if_id, 1);
    default:
        return -ENOTSUP;
    }
}

static int sixtop_stack_init(struct wren_node *node, struct wren_module *self, uint8_t if_id)
{
    return wren_sixtop_init(node, (struct wren_sixtop *)self, if_id);
}

static const struct wren_counter_set sixtop_counters =
    WREN_COUNTER_SET("sixtop", WREN_SIXTOP_COUNTERS, WREN_NETOPT_STATS, uint32_t);

/* in its _shell.c */
extern const struct wren_shell_cmd wren_sixtop_shell_cmds[];

const struct wren_module_ops wren_sixtop_module = {
    .name = "sixtop",
    .handle = sixtop_handle,
    .get = sixtop_get,
    .init = sixtop_stack_init,
    .size = sizeof(struct wren_sixtop),
    .link = WREN_NETDEV_TYPE_IEEE802154,
    .per_if = 1,
    .counters = WREN_IF_NAMES(&sixtop_counters),
    .cmds = WREN_IF_SHELL(wren_sixtop_shell_cmds),
};

int wren_sixtop_init(struct wren_node *node, struct wren_sixtop *s, uint8_t if_id)
{
    memset(s, 0, sizeof(*s));
    s->module.ops = &wren_sixtop_module;
    s->module.prio = WREN_PRIO_NET;
    s->node = node;
    s->if_id = if_id;
    s->sf[0] = &wren_msf_sf;
    if (wren_sixtop_netif(s) == NULL) {
        return -ENODEV;
    }
    wren_sixtop_if_get(s, WREN_NETOPT_ADDRESS_LONG, s->eui64, 8);
    if (!CONFIG_WREN_NODE_MEM) {
        wren_msf_init(s); /* the tables are built in */
    }
    wren_timer_init(&s->tick, tick, s);
    /* an interface without TSCH (CSMA) has no use for 6P: stay idle, its
     * tables not made until a 6P message or a shell command needs them */
    struct wren_tsch_sync_info si;
    if (wren_sixtop_if_get(s, WREN_NETOPT_TSCH_SYNC, &si, sizeof(si)) != -ENOTSUP) {
        if (wren_sixtop_tables(s) == NULL) {
            return -ENOMEM;
        }
        wren_timer_set_periodic(node, &s->tick, 1000000);
    }
    return wren_netreg_register(node, WREN_NETTYPE_SIXTOP, WREN_NETREG_DEMUX_ALL, &s->module,
                                &s->reg);
}
