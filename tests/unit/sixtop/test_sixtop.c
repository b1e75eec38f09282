/**
 * @file test_sixtop.c
 * @brief 6P transactions and MSF between nodes over a test double of the
 *        TSCH MAC: each node's 802.15.4 interface gets link operations that
 *        answer the TSCH netopts from a small cell table (with counters the
 *        test sets) and carry WREN_NETTYPE_SIXTOP packets straight to the
 *        neighbour named in the netif header (optionally dropping them), and
 *        a stand-in RPL module (ICMPv6 155) answers RPL_ROLE/RANK/PARENT.
 */
#include <errno.h>

#include "fixture.h"
#include "mac/tsch/tsch.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "sixtop/sixtop.h"
#include "sixtop/sixtop_priv.h"
#include "wire/rpl.h"

#define NODES 3
#define CELLS 24

struct fake {
    struct fx_node *n;
    struct wren_sixtop s;
    uint8_t eui[8];
    struct wren_tsch_cell cells[CELLS];
    struct wren_tsch_queue_info q[2];
    unsigned n_q;
    uint8_t ts[8];        /* time source SET */
    int jp;               /* join priority SET, -1 none */
    unsigned drop;        /* messages this node sends that are lost */
    uint8_t last[64];     /* the last 6P message it sent */
    size_t last_len;
    unsigned sent;
    /* the stand-in RPL */
    struct wren_module rpl;
    struct wren_netreg_entry rpl_reg;
    uint16_t rank;
    uint8_t parent[8];
    uint8_t has_parent;
};

static struct fake F[NODES];
static unsigned n_fake;

static struct fake *fake_of_netif(struct wren_netif *netif)
{
    for (unsigned i = 0; i < n_fake; i++) {
        if (F[i].n->netif == netif) {
            return &F[i];
        }
    }
    return NULL;
}

static struct fake *fake_of_eui(const uint8_t *eui)
{
    for (unsigned i = 0; i < n_fake; i++) {
        if (memcmp(F[i].eui, eui, 8) == 0) {
            return &F[i];
        }
    }
    return NULL;
}

/* carry a 6P message to the neighbour: RCV there, message then netif header */
static int fake_send(struct wren_netif *netif, struct wren_snip *pkt)
{
    struct fake *f = fake_of_netif(netif);
    struct wren_netif_hdr *h = wren_netif_hdr(pkt);
    struct fake *to = h->dst_len == 8 ? fake_of_eui(h->dst) : NULL;
    CHECK(f != NULL && pkt->next && pkt->next->type == WREN_NETTYPE_SIXTOP);
    f->last_len = wren_pkt_copy(pkt->next, f->last, sizeof(f->last));
    f->sent++;
    wren_pktbuf_release(&netif->node->pktbuf, pkt);
    if (f->drop) {
        f->drop--;
        return 1;
    }
    if (to) {
        struct wren_pktbuf *pb = &to->n->node.pktbuf;
        struct wren_snip *nh = wren_pktbuf_add(pb, NULL, NULL, sizeof(struct wren_netif_hdr),
                                               WREN_NETTYPE_NETIF);
        CHECK(nh != NULL);
        memset(nh->data, 0, nh->size);
        memcpy(wren_netif_hdr(nh)->src, f->eui, 8);
        wren_netif_hdr(nh)->src_len = 8;
        struct wren_snip *m = wren_pktbuf_add(pb, nh, f->last, f->last_len, WREN_NETTYPE_SIXTOP);
        CHECK(m != NULL);
        wren_netapi_dispatch(&to->n->node, WREN_NETTYPE_SIXTOP, WREN_NETREG_DEMUX_ALL,
                             WREN_MSG_RCV, m);
    }
    return 1;
}

static int cell_find(struct fake *f, const struct wren_tsch_cell *c)
{
    for (int i = 0; i < CELLS; i++) {
        const struct wren_tsch_cell *x = &f->cells[i];
        if (x->options && x->slotframe == c->slotframe && x->slot_offset == c->slot_offset &&
            x->channel_offset == c->channel_offset && x->nbr_len == c->nbr_len &&
            memcmp(x->nbr, c->nbr, c->nbr_len) == 0) {
            return i;
        }
    }
    return -1;
}

static int fake_get(struct wren_netif *netif, uint16_t opt, void *val, size_t max)
{
    struct fake *f = fake_of_netif(netif);
    switch (opt) {
    case WREN_NETOPT_ADDRESS_LONG:
        return wren_netopt_put(val, max, f->eui, 8);
    case WREN_NETOPT_TSCH_SYNC: {
        struct wren_tsch_sync_info si = { .synced = 1, .role = WREN_TSCH_NODE };
        return wren_netopt_put(val, max, &si, sizeof(si));
    }
    case WREN_NETOPT_TSCH_CELLS: {
        size_t n = 0;
        for (int i = 0; i < CELLS; i++) {
            if (f->cells[i].options) {
                if ((n + 1) * sizeof(f->cells[i]) > max) {
                    return -EOVERFLOW;
                }
                memcpy((uint8_t *)val + n++ * sizeof(f->cells[i]), &f->cells[i],
                       sizeof(f->cells[i]));
            }
        }
        return (int)(n * sizeof(f->cells[0]));
    }
    case WREN_NETOPT_TSCH_QUEUES:
        return wren_netopt_put(val, max, f->q, f->n_q * sizeof(f->q[0]));
    case WREN_NETOPT_TSCH_CELLS_FREE: {
        uint16_t n = 0;
        for (int i = 0; i < CELLS; i++) {
            n += f->cells[i].options == 0;
        }
        return wren_netopt_put(val, max, &n, sizeof(n));
    }
    default:
        return -ENOTSUP;
    }
}

static int fake_set(struct wren_netif *netif, uint16_t opt, const void *val, size_t len)
{
    struct fake *f = fake_of_netif(netif);
    struct wren_tsch_cell c;
    switch (opt) {
    case WREN_NETOPT_TSCH_CELL_ADD:
    case WREN_NETOPT_TSCH_CELL_DEL: {
        CHECK_EQ(len, sizeof(c));
        memcpy(&c, val, sizeof(c));
        int i = cell_find(f, &c);
        if (opt == WREN_NETOPT_TSCH_CELL_DEL) {
            if (i < 0) {
                return -ENOENT;
            }
            f->cells[i].options = 0;
            return 0;
        }
        if (i >= 0) {
            return -EEXIST;
        }
        for (i = 0; i < CELLS && f->cells[i].options; i++) {
        }
        if (i == CELLS) {
            return -ENOSPC;
        }
        memset(&c.elapsed, 0, sizeof(c) - offsetof(struct wren_tsch_cell, elapsed));
        f->cells[i] = c;
        return 0;
    }
    case WREN_NETOPT_TSCH_TIME_SOURCE:
        CHECK_EQ(len, 8);
        memcpy(f->ts, val, 8);
        return 0;
    case WREN_NETOPT_TSCH_JOIN_PRIO:
        f->jp = *(const uint8_t *)val;
        return 0;
    default:
        return -ENOTSUP;
    }
}

static const struct wren_netif_link_ops fake_link = {
    .send = fake_send,
    .get = fake_get,
    .set = fake_set,
    .type = WREN_NETDEV_TYPE_IEEE802154,
};

/* the stand-in RPL: role router, a rank, a preferred parent or none */
static int rpl_get(struct wren_node *node, struct wren_module *self, uint16_t opt, uint16_t ctx,
                   void *val, size_t max)
{
    (void)node;
    (void)ctx;
    struct fake *f = (struct fake *)((uint8_t *)self - offsetof(struct fake, rpl));
    uint8_t role = 2, pa[24] = { 0xfe, 0x80 };
    switch (opt) {
    case WREN_NETOPT_RPL_ROLE:
        return wren_netopt_put(val, max, &role, 1);
    case WREN_NETOPT_RPL_RANK:
        return wren_netopt_put(val, max, &f->rank, 2);
    case WREN_NETOPT_RPL_PARENT:
        if (!f->has_parent) {
            return -ENOENT;
        }
        memcpy(pa + 16, f->parent, 8);
        return wren_netopt_put(val, max, pa, sizeof(pa));
    default:
        return -ENOTSUP;
    }
}

static const struct wren_module_ops rpl_ops = { .name = "fake_rpl", .get = rpl_get };

/* n nodes, EUI-64 02:00:00:00:00:00:00:<i+1>; MSF off unless @p msf */
static void make(unsigned n, bool msf)
{
    n_fake = n;
    memset(F, 0, sizeof(F));
    for (unsigned i = 0; i < n; i++) {
        struct fake *f = &F[i];
        f->n = fx_node(FX_LOOPBACK);
        f->eui[0] = 0x02;
        f->eui[7] = (uint8_t)(i + 1);
        f->jp = -1;
        f->rank = RPL_INFINITE_RANK;
        f->n->netif->link = &fake_link;
        CHECK_EQ(wren_sixtop_init(&f->n->node, &f->s, f->n->if_id), 0);
        f->s.tab->msf.cfg.enabled = msf;
    }
}

static void with_rpl(struct fake *f, uint16_t rank, const struct fake *parent)
{
    f->rpl.ops = &rpl_ops;
    f->rank = rank;
    if (parent) {
        memcpy(f->parent, parent->eui, 8);
        f->has_parent = 1;
    }
    CHECK_EQ(wren_netreg_register(&f->n->node, WREN_NETTYPE_ICMPV6, ICMPV6_RPL, &f->rpl,
                                  &f->rpl_reg),
             0);
}

/* negotiated cells of @p f with @p g, of options @p opt (0: any) */
static unsigned cells_with(const struct fake *f, const struct fake *g, uint8_t opt)
{
    unsigned n = 0;
    for (int i = 0; i < CELLS; i++) {
        const struct wren_tsch_cell *c = &f->cells[i];
        n += c->options && c->kind == WREN_TSCH_CELL_NEGOTIATED && c->nbr_len == 8 &&
             memcmp(c->nbr, g->eui, 8) == 0 && (!opt || (c->options & opt));
    }
    return n;
}

/* the schedules of f (TX) and g (RX) mirror each other */
static void check_mirrored(const struct fake *f, const struct fake *g)
{
    for (int i = 0; i < CELLS; i++) {
        const struct wren_tsch_cell *c = &f->cells[i];
        if (!c->options || c->kind != WREN_TSCH_CELL_NEGOTIATED || memcmp(c->nbr, g->eui, 8)) {
            continue;
        }
        bool found = false;
        for (int j = 0; j < CELLS && !found; j++) {
            const struct wren_tsch_cell *d = &g->cells[j];
            found = d->options && d->kind == WREN_TSCH_CELL_NEGOTIATED &&
                    memcmp(d->nbr, f->eui, 8) == 0 && d->slot_offset == c->slot_offset &&
                    d->channel_offset == c->channel_offset &&
                    ((c->options & WREN_TSCH_CELL_TX) ? (d->options & WREN_TSCH_CELL_RX)
                                                      : (d->options & WREN_TSCH_CELL_TX));
        }
        CHECK(found);
    }
    CHECK_EQ(cells_with(f, g, 0), cells_with(g, f, 0));
}

TEST(test_sixtop__add_delete_round_trip)
{
    make(2, false);
    struct fake *a = &F[0], *b = &F[1];
    CHECK_EQ(wren_sixtop_request(&a->s, b->eui, SIXP_CMD_ADD, SIXP_CELL_TX, 2, NULL, 0), 0);
    /* one transaction per neighbour at a time */
    CHECK_EQ(wren_sixtop_request(&a->s, b->eui, SIXP_CMD_COUNT, SIXP_CELL_TX, 0, NULL, 0), -EBUSY);
    fx_run_us(10000);
    CHECK_EQ(a->s.last_rc, SIXP_RC_SUCCESS);
    CHECK_EQ(cells_with(a, b, WREN_TSCH_CELL_TX), 2);
    CHECK_EQ(cells_with(b, a, WREN_TSCH_CELL_RX), 2);
    check_mirrored(a, b);
    CHECK_EQ(wren_sixtop_seqnum(&a->s, b->eui), 1);
    CHECK_EQ(wren_sixtop_seqnum(&b->s, a->eui), 1);

    CHECK_EQ(wren_sixtop_request(&a->s, b->eui, SIXP_CMD_DELETE, SIXP_CELL_TX, 1, NULL, 0), 0);
    fx_run_us(10000);
    CHECK_EQ(cells_with(a, b, 0), 1);
    check_mirrored(a, b);
    CHECK_EQ(wren_sixtop_seqnum(&a->s, b->eui), 2);
    CHECK_EQ(wren_sixtop_seqnum(&b->s, a->eui), 2);
    CHECK_EQ(a->s.stats.trans_ok, 2);
    CHECK_EQ(b->s.stats.rx_request, 2);
    CHECK_EQ(b->s.stats.tx_response, 2);
    FX_CLEAN(1000);
}

TEST(test_sixtop__count_list_relocate_clear)
{
    make(2, false);
    struct fake *a = &F[0], *b = &F[1];
    CHECK_EQ(wren_sixtop_request(&a->s, b->eui, SIXP_CMD_ADD, SIXP_CELL_TX, 3, NULL, 0), 0);
    fx_run_us(10000);
    CHECK_EQ(cells_with(a, b, 0), 3);
    /* COUNT from b's side: its RX cells are our TX ones */
    CHECK_EQ(wren_sixtop_request(&b->s, a->eui, SIXP_CMD_COUNT, SIXP_CELL_RX, 0, NULL, 0), 0);
    fx_run_us(10000);
    CHECK_EQ(b->s.last_rc, SIXP_RC_SUCCESS);
    CHECK_EQ(b->s.last_total, 3);
    CHECK_EQ(wren_sixtop_request(&b->s, a->eui, SIXP_CMD_LIST, SIXP_CELL_RX, 0, NULL, 0), 0);
    fx_run_us(10000);
    CHECK_EQ(b->s.last_rc, SIXP_RC_EOL);
    CHECK_EQ(b->s.last_n_cells, 3);

    /* RELOCATE one of a's TX cells */
    struct sixp_cell old = { 0, 0 };
    for (int i = 0; i < CELLS; i++) {
        if (a->cells[i].options && a->cells[i].kind == WREN_TSCH_CELL_NEGOTIATED) {
            old.slot_offset = a->cells[i].slot_offset;
            old.channel_offset = a->cells[i].channel_offset;
            break;
        }
    }
    CHECK_EQ(wren_sixtop_request(&a->s, b->eui, SIXP_CMD_RELOCATE, SIXP_CELL_TX, 1, &old, 1), 0);
    fx_run_us(10000);
    CHECK_EQ(a->s.last_rc, SIXP_RC_SUCCESS);
    CHECK_EQ(a->s.last_n_cells, 1);
    CHECK_EQ(cells_with(a, b, 0), 3);
    check_mirrored(a, b);
    for (int i = 0; i < CELLS; i++) {
        CHECK(!(a->cells[i].options && a->cells[i].slot_offset == old.slot_offset &&
                a->cells[i].channel_offset == old.channel_offset));
    }
    /* DELETE of a cell b does not have with a: RC_ERR_CELLLIST, nothing changes */
    struct sixp_cell none = { 0, 7 };
    CHECK_EQ(wren_sixtop_request(&a->s, b->eui, SIXP_CMD_DELETE, SIXP_CELL_TX, 1, &none, 1), 0);
    fx_run_us(10000);
    CHECK_EQ(a->s.last_rc, SIXP_RC_ERR_CELLLIST);
    CHECK_EQ(b->s.stats.rx_bad_celllist, 1);
    CHECK_EQ(a->s.stats.rc_err_celllist, 1);
    CHECK_EQ(cells_with(a, b, 0), 3);

    CHECK_EQ(wren_sixtop_request(&a->s, b->eui, SIXP_CMD_CLEAR, 0, 0, NULL, 0), 0);
    fx_run_us(10000);
    CHECK_EQ(cells_with(a, b, 0), 0);
    CHECK_EQ(cells_with(b, a, 0), 0);
    CHECK_EQ(wren_sixtop_seqnum(&a->s, b->eui), 0);
    CHECK_EQ(wren_sixtop_seqnum(&b->s, a->eui), 0);
    FX_CLEAN(1000);
}

/* RFC 8480 3.4.6.2: a lost response leaves the responder one SeqNum ahead;
 * the next request is answered RC_ERR_SEQNUM, and MSF CLEARs */
TEST(test_sixtop__lost_response_seqnum_clear)
{
    make(2, false);
    struct fake *a = &F[0], *b = &F[1];
    b->drop = 1;
    CHECK_EQ(wren_sixtop_request(&a->s, b->eui, SIXP_CMD_ADD, SIXP_CELL_TX, 1, NULL, 0), 0);
    fx_run_us(1000000);
    CHECK_EQ(cells_with(b, a, 0), 1); /* b added it; a never heard */
    CHECK_EQ(cells_with(a, b, 0), 0);
    fx_run_us(CONFIG_WREN_SIXP_TIMEOUT_S * 1000000ull + 1000000);
    CHECK_EQ(a->s.stats.trans_timeout, 1);
    CHECK_EQ(a->s.stats.msf_waitretry, 1);
    CHECK_EQ(wren_sixtop_seqnum(&a->s, b->eui), 0);
    CHECK_EQ(wren_sixtop_seqnum(&b->s, a->eui), 1);

    a->s.tab->msf.cfg.enabled = 1; /* MSF reacts to the error (it starts nothing else: no parent) */
    CHECK_EQ(wren_sixtop_request(&a->s, b->eui, SIXP_CMD_COUNT, SIXP_CELL_TX, 0, NULL, 0), 0);
    fx_run_us(100000);
    CHECK_EQ(b->s.stats.rx_err_seqnum, 1);
    CHECK_EQ(a->s.stats.rc_err_seqnum, 1);
    CHECK_EQ(a->s.stats.msf_clear, 1);
    CHECK_EQ(cells_with(b, a, 0), 0);
    CHECK_EQ(wren_sixtop_seqnum(&a->s, b->eui), 0);
    CHECK_EQ(wren_sixtop_seqnum(&b->s, a->eui), 0);
    /* consistent again: a new ADD goes through */
    CHECK_EQ(wren_sixtop_request(&a->s, b->eui, SIXP_CMD_ADD, SIXP_CELL_TX, 1, NULL, 0), 0);
    fx_run_us(100000);
    CHECK_EQ(a->s.last_rc, SIXP_RC_SUCCESS);
    check_mirrored(a, b);
    FX_CLEAN(1000);
}

/* both ends start a transaction at once: each answers the other BUSY, no
 * SeqNum moves, no cell is added */
TEST(test_sixtop__concurrent_requests_busy)
{
    make(2, false);
    struct fake *a = &F[0], *b = &F[1];
    CHECK_EQ(wren_sixtop_request(&a->s, b->eui, SIXP_CMD_ADD, SIXP_CELL_TX, 1, NULL, 0), 0);
    CHECK_EQ(wren_sixtop_request(&b->s, a->eui, SIXP_CMD_ADD, SIXP_CELL_TX, 1, NULL, 0), 0);
    fx_run_us(100000);
    CHECK_EQ(a->s.stats.rx_busy, 1);
    CHECK_EQ(b->s.stats.rx_busy, 1);
    CHECK_EQ(a->s.stats.rc_err_busy, 1);
    CHECK_EQ(b->s.stats.rc_err_busy, 1);
    CHECK_EQ(wren_sixtop_seqnum(&a->s, b->eui), 0);
    CHECK_EQ(wren_sixtop_seqnum(&b->s, a->eui), 0);
    CHECK_EQ(cells_with(a, b, 0), 0);
    CHECK_EQ(cells_with(b, a, 0), 0);
    FX_CLEAN(1000);
}

/* a message from a (the neighbour) as raw bytes into b */
static void inject(struct fake *from, struct fake *to, const uint8_t *msg, size_t len)
{
    struct wren_pktbuf *pb = &to->n->node.pktbuf;
    struct wren_snip *nh =
        wren_pktbuf_add(pb, NULL, NULL, sizeof(struct wren_netif_hdr), WREN_NETTYPE_NETIF);
    CHECK(nh != NULL);
    memset(nh->data, 0, nh->size);
    memcpy(wren_netif_hdr(nh)->src, from->eui, 8);
    wren_netif_hdr(nh)->src_len = 8;
    struct wren_snip *m = wren_pktbuf_add(pb, nh, msg, len, WREN_NETTYPE_SIXTOP);
    CHECK(m != NULL);
    wren_netapi_dispatch(&to->n->node, WREN_NETTYPE_SIXTOP, WREN_NETREG_DEMUX_ALL, WREN_MSG_RCV,
                         m);
    from->drop = 1; /* the answer is looked at, not delivered */
    fx_run_us(1000);
    from->drop = 0;
}

/* b's answer to the last injected message: type, code, seqnum */
static void check_answer(struct fake *b, unsigned sent, uint8_t rc, uint8_t seqnum)
{
    CHECK_EQ(b->sent, sent);
    CHECK(b->last_len >= 4);
    CHECK_EQ(b->last[0], 0x10); /* version 0, response */
    CHECK_EQ(b->last[1], rc);
    CHECK_EQ(b->last[3], seqnum);
}

TEST(test_sixtop__adversarial_messages)
{
    make(2, false);
    struct fake *a = &F[0], *b = &F[1];
    unsigned sent = 0;
    /* shorter than the header: dropped, not answered */
    static const uint8_t tiny[] = { 0x00, 0x01 };
    inject(a, b, tiny, sizeof(tiny));
    CHECK_EQ(b->s.stats.rx_truncated, 1);
    CHECK_EQ(b->sent, sent);
    /* a version we do not speak: RC_ERR_VERSION */
    static const uint8_t v1[] = { 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01 };
    inject(a, b, v1, sizeof(v1));
    CHECK_EQ(b->s.stats.rx_bad_version, 1);
    check_answer(b, ++sent, SIXP_RC_ERR_VERSION, 0);
    /* type 3: dropped */
    static const uint8_t t3[] = { 0x30, 0x01, 0x00, 0x00 };
    inject(a, b, t3, sizeof(t3));
    CHECK_EQ(b->s.stats.rx_bad_type, 1);
    CHECK_EQ(b->sent, sent);
    /* an unknown command: RC_ERR */
    static const uint8_t cmd9[] = { 0x00, 0x09, 0x00, 0x00 };
    inject(a, b, cmd9, sizeof(cmd9));
    CHECK_EQ(b->s.stats.rx_unknown_cmd, 1);
    check_answer(b, ++sent, SIXP_RC_ERR, 0);
    CHECK_EQ(b->last_len, 4);
    /* an SF we do not run: RC_ERR_SFID */
    static const uint8_t sf5[] = { 0x00, 0x04, 0x05, 0x00, 0x00, 0x00, 0x01 };
    inject(a, b, sf5, sizeof(sf5));
    CHECK_EQ(b->s.stats.rx_bad_sfid, 1);
    check_answer(b, ++sent, SIXP_RC_ERR_SFID, 0);
    /* ADD cut mid-cell, ADD cut in its fixed part: RC_ERR */
    static const uint8_t add_cut[] = { 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x05, 0x00 };
    inject(a, b, add_cut, sizeof(add_cut));
    CHECK_EQ(b->s.stats.rx_bad_length, 1);
    check_answer(b, ++sent, SIXP_RC_ERR, 0);
    inject(a, b, add_cut, 6);
    CHECK_EQ(b->s.stats.rx_truncated, 2);
    check_answer(b, ++sent, SIXP_RC_ERR, 0);
    /* a stale SeqNum (b expects 0): RC_ERR_SEQNUM, nothing added */
    static const uint8_t add_stale[] = { 0x00, 0x01, 0x00, 0x2a, 0x00, 0x00, 0x01, 0x01,
                                         0x05, 0x00, 0x01, 0x00 };
    inject(a, b, add_stale, sizeof(add_stale));
    CHECK_EQ(b->s.stats.rx_err_seqnum, 1);
    check_answer(b, ++sent, SIXP_RC_ERR_SEQNUM, 0x2a);
    CHECK_EQ(cells_with(b, a, 0), 0);
    /* responses and confirmations nobody waits for, an unknown return code */
    static const uint8_t resp[] = { 0x10, 0x00, 0x00, 0x00 };
    static const uint8_t conf[] = { 0x20, 0x00, 0x00, 0x00 };
    static const uint8_t rc77[] = { 0x10, 0x4d, 0x00, 0x00 };
    inject(a, b, resp, sizeof(resp));
    inject(a, b, conf, sizeof(conf));
    inject(a, b, rc77, sizeof(rc77));
    CHECK_EQ(b->s.stats.rx_no_trans, 2);
    CHECK_EQ(b->s.stats.rx_bad_rc, 1);
    CHECK_EQ(b->sent, sent);
    /* a response with the wrong SeqNum to b's transaction: dropped, the
     * transaction still waits for the right one */
    a->drop = 1; /* a's real answer is lost */
    CHECK_EQ(wren_sixtop_request(&b->s, a->eui, SIXP_CMD_COUNT, SIXP_CELL_TX, 0, NULL, 0), 0);
    fx_run_us(1000);
    CHECK_EQ(a->s.stats.rx_request, 1);
    static const uint8_t stale[] = { 0x10, 0x00, 0x00, 0x09, 0x01, 0x00 };
    inject(a, b, stale, sizeof(stale));
    CHECK_EQ(b->s.stats.rx_stale_seqnum, 1);
    CHECK(wren_sixtop_trans_of(&b->s, a->eui) != NULL); /* still waiting */
    static const uint8_t right[] = { 0x10, 0x00, 0x00, 0x00, 0x01, 0x00 };
    inject(a, b, right, sizeof(right));
    CHECK(wren_sixtop_trans_of(&b->s, a->eui) == NULL);
    CHECK_EQ(b->s.stats.trans_ok, 1);
    CHECK_EQ(b->s.last_total, 1);
    CHECK_EQ(wren_sixtop_seqnum(&b->s, a->eui), 1);
    /* the well-formed ADD with the right SeqNum still works afterwards */
    static const uint8_t add_ok[] = { 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x01, 0x01,
                                      0x05, 0x00, 0x01, 0x00 };
    inject(a, b, add_ok, sizeof(add_ok));
    check_answer(b, b->sent, SIXP_RC_SUCCESS, 1);
    CHECK_EQ(b->last_len, 8);
    CHECK_EQ(cells_with(b, a, WREN_TSCH_CELL_RX), 1);
    FX_CLEAN(1000);
}

/* strangers flooding requests cannot lock the neighbour table: the one
 * heard from longest ago makes room, a real neighbour still gets its cells */
TEST(test_sixtop__neighbour_table_flood)
{
    make(2, false);
    struct fake *a = &F[0], *b = &F[1];
    static const uint8_t count[] = { 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x01 };
    for (unsigned i = 0; i < 3 * CONFIG_WREN_SIXP_NBRS; i++) {
        struct fake spoof;
        memset(&spoof, 0, sizeof(spoof));
        spoof.eui[0] = 0x0a;
        spoof.eui[7] = (uint8_t)i;
        inject(&spoof, b, count, sizeof(count));
        fx_run_us(1000000);
    }
    CHECK_EQ(b->s.stats.rx_request, 3 * CONFIG_WREN_SIXP_NBRS);
    CHECK_EQ(b->s.stats.nbr_evict, 2 * CONFIG_WREN_SIXP_NBRS);
    CHECK_EQ(b->s.stats.nbr_full, 0);
    CHECK_EQ(wren_sixtop_request(&a->s, b->eui, SIXP_CMD_ADD, SIXP_CELL_TX, 1, NULL, 0), 0);
    fx_run_us(100000);
    CHECK_EQ(a->s.last_rc, SIXP_RC_SUCCESS);
    check_mirrored(a, b);
    CHECK_EQ(cells_with(a, b, 0), 1);
    FX_CLEAN(1000);
}

/* MSF: the autonomous RX cell; the autonomous TX cell while frames are
 * queued; RPL's parent becomes the time source, its rank the join priority;
 * one TX cell to the parent, more when used, fewer when idle; relocation of
 * a bad cell; the parent switch */
TEST(test_msf__cells_follow_the_parent)
{
    make(3, true);
    struct fake *a = &F[0], *b = &F[1], *c = &F[2];
    with_rpl(b, 256, NULL);
    with_rpl(a, 768, b);
    fx_run_us(1500000);
    /* autonomous RX cell: the SAX hash of the EUI-64 */
    struct sixp_cell ac = { (uint16_t)(1 + wren_msf_sax(a->eui, 100)), wren_msf_sax(a->eui, 16) };
    bool found = false;
    for (int i = 0; i < CELLS; i++) {
        found |= a->cells[i].options == WREN_TSCH_CELL_RX &&
                 a->cells[i].kind == WREN_TSCH_CELL_AUTONOMOUS &&
                 a->cells[i].slot_offset == ac.slot_offset &&
                 a->cells[i].channel_offset == ac.channel_offset && a->cells[i].nbr_len == 0;
    }
    CHECK(found);
    CHECK(ac.slot_offset >= 1 && ac.slot_offset <= 100 && ac.channel_offset < 16);
    CHECK_EQ(a->s.tab->msf.auto_c.slot_offset, ac.slot_offset);
    CHECK_EQ(memcmp(a->ts, b->eui, 8), 0);
    CHECK_EQ(a->jp, 2); /* DAGRank(768) - 1 */
    CHECK_EQ(b->jp, 0); /* the root's */
    fx_run_us(100000);
    CHECK_EQ(cells_with(a, b, WREN_TSCH_CELL_TX), 1);
    check_mirrored(a, b);
    CHECK(a->s.stats.msf_auto_tx >= 1); /* the ADD went in the autonomous TX cell to b */

    /* busy cell: 90 of 100 used -> one more */
    for (int i = 0; i < CELLS; i++) {
        if (a->cells[i].kind == WREN_TSCH_CELL_NEGOTIATED) {
            a->cells[i].elapsed += 100;
            a->cells[i].used += 90;
            a->cells[i].tx_ack += 90;
        }
    }
    fx_run_us(2000000);
    CHECK_EQ(cells_with(a, b, WREN_TSCH_CELL_TX), 2);
    check_mirrored(a, b);
    /* idle: 10 of 200 used -> one fewer */
    for (int i = 0; i < CELLS; i++) {
        if (a->cells[i].kind == WREN_TSCH_CELL_NEGOTIATED) {
            a->cells[i].elapsed += 100;
            a->cells[i].used += 5;
            a->cells[i].tx_ack += 5;
        }
    }
    fx_run_us(2000000);
    CHECK_EQ(cells_with(a, b, WREN_TSCH_CELL_TX), 1);
    check_mirrored(a, b);
    CHECK_EQ(a->s.stats.msf_add, 2);
    CHECK_EQ(a->s.stats.msf_delete, 1);

    /* autonomous TX cell while frames are queued for c */
    a->q[0].nbr_len = 8;
    memcpy(a->q[0].nbr, c->eui, 8);
    a->q[0].len = 2;
    a->n_q = 1;
    fx_run_us(1000000);
    struct sixp_cell cc = { (uint16_t)(1 + wren_msf_sax(c->eui, 100)), wren_msf_sax(c->eui, 16) };
    struct wren_tsch_cell want = { .slot_offset = cc.slot_offset, .channel_offset = cc.channel_offset,
                                   .nbr_len = 8 };
    memcpy(want.nbr, c->eui, 8);
    int i = cell_find(a, &want);
    CHECK(i >= 0);
    CHECK_EQ(a->cells[i].options, WREN_TSCH_CELL_TX | WREN_TSCH_CELL_SHARED);
    CHECK_EQ(a->cells[i].kind, WREN_TSCH_CELL_AUTONOMOUS);
    a->n_q = 0;
    fx_run_us(1000000);
    CHECK(cell_find(a, &want) < 0);

    /* a second cell, one with a bad PDR: relocated at the next housekeeping */
    CHECK_EQ(wren_sixtop_request(&a->s, b->eui, SIXP_CMD_ADD, SIXP_CELL_TX, 1, NULL, 0), 0);
    fx_run_us(100000);
    CHECK_EQ(cells_with(a, b, WREN_TSCH_CELL_TX), 2);
    struct sixp_cell bad = { 0, 0 };
    int k = 0;
    for (int j = 0; j < CELLS; j++) {
        struct wren_tsch_cell *x = &a->cells[j];
        if (x->options && x->kind == WREN_TSCH_CELL_NEGOTIATED) {
            x->used += 50; /* 50 % used: no adaptation */
            x->elapsed += 100;
            x->tx_ack += k++ == 0 ? 48 : 5;
            if (k == 2) {
                bad.slot_offset = x->slot_offset;
                bad.channel_offset = x->channel_offset;
            }
        }
    }
    a->s.tab->msf.next_housekeeping_s = 0;
    fx_run_us(2000000);
    CHECK_EQ(a->s.stats.msf_relocate, 1);
    CHECK_EQ(cells_with(a, b, WREN_TSCH_CELL_TX), 2);
    check_mirrored(a, b);
    want.slot_offset = bad.slot_offset;
    want.channel_offset = bad.channel_offset;
    memcpy(want.nbr, b->eui, 8);
    CHECK(cell_find(a, &want) < 0);

    /* parent switch to c: as many TX cells to c, CLEAR with b */
    with_rpl(c, 512, NULL);
    memcpy(a->parent, c->eui, 8);
    fx_run_us(3000000);
    CHECK_EQ(a->s.stats.msf_parent_switch, 1);
    CHECK_EQ(memcmp(a->ts, c->eui, 8), 0);
    CHECK_EQ(cells_with(a, c, WREN_TSCH_CELL_TX), 2);
    check_mirrored(a, c);
    CHECK_EQ(cells_with(a, b, 0), 0);
    CHECK_EQ(cells_with(b, a, 0), 0);
    FX_CLEAN(1000);
}

/* fill @p f's schedule with manual cells (slotframe 1, out of MSF's way)
 * until @p left are free */
static void fill_cells(struct fake *f, int left)
{
    int free_n = 0;
    for (int i = 0; i < CELLS; i++) {
        free_n += f->cells[i].options == 0;
    }
    for (int i = 0; i < CELLS && free_n > left; i++) {
        if (f->cells[i].options == 0) {
            f->cells[i] = (struct wren_tsch_cell){ .slot_offset = (uint16_t)(200 + i), .slotframe = 1,
                                                   .options = WREN_TSCH_CELL_RX,
                                                   .kind = WREN_TSCH_CELL_MANUAL };
            free_n--;
        }
    }
}

static void free_manual_cells(struct fake *f)
{
    for (int i = 0; i < CELLS; i++) {
        if (f->cells[i].kind == WREN_TSCH_CELL_MANUAL) {
            f->cells[i].options = 0;
        }
    }
}

/* A full schedule: MSF never asks for cells it could not install (its parent
 * would hold cells it does not), and a responder keeps two cells free for
 * autonomous TX cells; the schedules stay mirrored */
TEST(test_msf__full_schedule_asks_and_grants_no_more)
{
    make(2, true);
    struct fake *a = &F[0], *b = &F[1];
    with_rpl(b, 256, NULL);
    with_rpl(a, 768, b);
    fill_cells(a, 1); /* room for the autonomous RX cell only */
    fx_run_us(3000000);
    CHECK(a->s.stats.msf_no_room >= 1);
    CHECK_EQ(a->s.stats.msf_add, 0);
    CHECK_EQ(cells_with(a, b, 0), 0);
    CHECK_EQ(cells_with(b, a, 0), 0);

    /* room here, none to spare at the parent: SUCCESS with no cell */
    free_manual_cells(a);
    fill_cells(b, 2);
    fx_run_us(3000000);
    CHECK(a->s.stats.msf_add >= 1);
    CHECK(b->s.stats.msf_no_room >= 1);
    CHECK_EQ(cells_with(a, b, 0), 0);
    CHECK_EQ(cells_with(b, a, 0), 0);
    CHECK(a->s.stats.msf_waitretry >= 1);

    /* room at both: the cell comes, mirrored */
    free_manual_cells(b);
    a->s.tab->msf.wait_until_s = 0;
    fx_run_us(3000000);
    CHECK_EQ(cells_with(a, b, WREN_TSCH_CELL_TX), 1);
    check_mirrored(a, b);
    FX_CLEAN(1000);
}

/* A relay grants its children TX cells only once it has a dedicated TX
 * cell to its own parent (msf.c relays): before, a child counted as joined
 * while its datagrams squeezed through the relay's shared autonomous cell
 * and overflowed its queue there (the 6TiSCH paper's floor, seed 1: the
 * first datagram of nodes 14 and 28 lost at node 23) */
TEST(test_msf__relay_grants_cells_once_it_has_its_own)
{
    make(3, true);
    struct fake *a = &F[0], *b = &F[1], *c = &F[2];
    with_rpl(c, 256, NULL);
    with_rpl(b, 512, c);
    b->s.tab->msf.cfg.enabled = 0; /* b asks c for nothing yet */
    fx_run_us(1500000);       /* b in the DODAG (its join priority set), then a */
    with_rpl(a, 768, b);
    fx_run_us(3000000);
    CHECK(a->s.stats.msf_add >= 1);
    CHECK(b->s.stats.msf_no_relay >= 1);
    CHECK_EQ(cells_with(a, b, 0), 0);
    CHECK_EQ(cells_with(b, a, 0), 0);
    CHECK(a->s.stats.msf_waitretry >= 1); /* SUCCESS with no cell: wait, ask again */

    /* b gets its cell to c; a's next ADD (after its 30-60 s wait) gets one */
    b->s.tab->msf.cfg.enabled = 1;
    fx_run_us(3000000);
    CHECK_EQ(cells_with(b, c, WREN_TSCH_CELL_TX), 1);
    fx_run_us(62000000);
    CHECK_EQ(cells_with(a, b, WREN_TSCH_CELL_TX), 1);
    check_mirrored(a, b);
    check_mirrored(b, c);
    /* the root relays from the start */
    CHECK_EQ(c->s.stats.msf_no_relay, 0);
    FX_CLEAN(1000);
}

/* MSF decides on its cells every MAX_NUM_CELLS = 32 elapsed cells (OpenWSN's
 * msf.h; RFC 9033 5.1's 100 took 200 s per step at one cell per 2.02 s
 * slotframe, while joining nodes' traffic grew): 30 of 32 used -> one more */
TEST(test_msf__adapts_after_32_elapsed_cells)
{
    make(2, true);
    struct fake *a = &F[0], *b = &F[1];
    with_rpl(b, 256, NULL);
    with_rpl(a, 768, b);
    fx_run_us(2000000);
    CHECK_EQ(cells_with(a, b, WREN_TSCH_CELL_TX), 1);
    CHECK_EQ(a->s.tab->msf.cfg.max_num_cells, 32);
    for (int i = 0; i < CELLS; i++) {
        if (a->cells[i].kind == WREN_TSCH_CELL_NEGOTIATED) {
            a->cells[i].elapsed += 32;
            a->cells[i].used += 30;
            a->cells[i].tx_ack += 30;
        }
    }
    fx_run_us(2000000);
    CHECK_EQ(cells_with(a, b, WREN_TSCH_CELL_TX), 2);
    check_mirrored(a, b);
    FX_CLEAN(1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_sixtop__add_delete_round_trip),
        FX_TEST(test_sixtop__count_list_relocate_clear),
        FX_TEST(test_sixtop__lost_response_seqnum_clear),
        FX_TEST(test_sixtop__concurrent_requests_busy),
        FX_TEST(test_sixtop__adversarial_messages),
        FX_TEST(test_sixtop__neighbour_table_flood),
        FX_TEST(test_msf__cells_follow_the_parent),
        FX_TEST(test_msf__full_schedule_asks_and_grants_no_more),
        FX_TEST(test_msf__relay_grants_cells_once_it_has_its_own),
        FX_TEST(test_msf__adapts_after_32_elapsed_cells),
    };
    return cmocka_run_group_tests_name("sixtop", tests, NULL, NULL);
}
