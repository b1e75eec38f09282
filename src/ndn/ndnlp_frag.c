/* NDNLPv2 fragmentation and reassembly (see ndnlp_frag.h; NDNLPv2 spec,
 * "Fragmentation and Reassembly"). */
#include "ndn/ndnlp_frag.h"

#include <errno.h>
#include <string.h>

#include "net/nettype.h"
#include "pktbuf/pktbuf.h"

#define TIMEOUT_US ((uint64_t)CONFIG_WREN_NDNLP_REASS_TIMEOUT_MS * 1000u)
#define IDX_LEN 2 /* each held piece starts with its FragIndex, big-endian */

void wren_ndnlp_frag_init(struct wren_ndnlp_frag *f, struct wren_pktbuf *pb, uint64_t seq0)
{
    memset(f, 0, sizeof(*f));
    f->pb = pb;
    f->tx_seq = seq0;
}

/* ---- sending ------------------------------------------------------------ */

/* the LpPacket of piece i of n carrying c bytes */
static size_t piece_len(uint64_t i, uint64_t n, size_t c)
{
    struct ndnlp_pkt lp = {
        .seq_len = NDNLP_SEQ_LEN, .frag_index = i, .frag_count = n, .frag_len = c,
    };
    return wren_ndnlp_len(&lp);
}

/* The largest chunk whose pieces all fit: every piece but the last carries
 * chunk bytes and the last piece's FragIndex is the widest, so the last
 * index with a full chunk bounds them all. Each round shrinks the chunk by
 * what overflowed, so the loop ends. */
static int plan_chunk(size_t len, size_t mtu, struct ndnlp_frag_plan *plan)
{
    size_t c = mtu > 20 ? mtu - 20 : 1; /* 20: the smallest header of a piece */
    for (;;) {
        size_t n = (len + c - 1) / c;
        if (n > CONFIG_WREN_NDNLP_MAX_FRAGS) {
            return -EMSGSIZE;
        }
        size_t t = piece_len(n - 1, n, c);
        if (t <= mtu) {
            plan->chunk = c;
            plan->count = (uint16_t)n;
            return 0;
        }
        size_t h = t - c;
        if (h >= mtu) {
            return -EMSGSIZE;
        }
        c = mtu - h;
    }
}

int wren_ndnlp_frag_plan(struct wren_ndnlp_frag *f, size_t len, size_t mtu,
                         struct ndnlp_frag_plan *plan)
{
    memset(plan, 0, sizeof(*plan));
    plan->len = len;
    plan->chunk = len;
    plan->count = 1;
    if (len <= mtu) {
        return 0; /* bare: no LpPacket needed (NDNLPv2: a bare packet is accepted) */
    }
    if (plan_chunk(len, mtu, plan) < 0) {
        f->stats.lp_tx_drop_size++;
        return -EMSGSIZE;
    }
    plan->seq = f->tx_seq;
    f->tx_seq += plan->count; /* consecutive Sequence numbers, one per piece */
    return 0;
}

void wren_ndnlp_frag_piece_hdr(const struct ndnlp_frag_plan *plan, unsigned i,
                               struct ndnlp_pkt *lp, size_t *off)
{
    size_t o = (size_t)i * plan->chunk;
    size_t n = plan->len - o < plan->chunk ? plan->len - o : plan->chunk;
    memset(lp, 0, sizeof(*lp));
    lp->seq = plan->seq + i;
    lp->seq_len = NDNLP_SEQ_LEN;
    lp->frag_index = i;
    lp->frag_count = plan->count;
    lp->frag_len = n;
    *off = o;
}

struct wren_snip *wren_ndnlp_frag_piece(struct wren_ndnlp_frag *f,
                                        const struct ndnlp_frag_plan *plan,
                                        const struct wren_snip *pkt, unsigned i, uint8_t type)
{
    struct ndnlp_pkt lp;
    size_t off;
    wren_ndnlp_frag_piece_hdr(plan, i, &lp, &off);
    size_t hdr = wren_ndnlp_hdr_len(&lp);
    struct wren_snip *s = wren_pktbuf_add(f->pb, NULL, NULL, hdr + lp.frag_len, type);
    if (s == NULL) {
        f->stats.lp_tx_drop_nobuf++;
        return NULL;
    }
    wren_ndnlp_emit(&lp, s->data, hdr);
    wren_pkt_copy_from(pkt, off, s->data + hdr, lp.frag_len);
    f->stats.lp_tx_frags++;
    return s;
}

int wren_ndnlp_frag_emit(const struct ndnlp_frag_plan *plan, const uint8_t *pkt, unsigned i,
                         uint8_t *out, size_t max)
{
    struct ndnlp_pkt lp;
    size_t off;
    wren_ndnlp_frag_piece_hdr(plan, i, &lp, &off);
    lp.frag = pkt + off;
    return wren_ndnlp_emit(&lp, out, max);
}

/* ---- reassembly --------------------------------------------------------- */

static void slot_free(struct wren_ndnlp_frag *f, struct wren_ndnlp_slot *s)
{
    wren_pktbuf_release(f->pb, s->pieces);
    s->pieces = NULL;
}

unsigned wren_ndnlp_frag_expire(struct wren_ndnlp_frag *f, uint64_t now)
{
    unsigned n = 0;
    for (unsigned i = 0; i < CONFIG_WREN_NDNLP_REASS_SLOTS; i++) {
        struct wren_ndnlp_slot *s = &f->slot[i];
        if (s->pieces && s->deadline <= now) {
            slot_free(f, s);
            f->stats.lp_drop_timeout++;
            n++;
        }
    }
    return n;
}

uint64_t wren_ndnlp_frag_next_deadline(const struct wren_ndnlp_frag *f)
{
    uint64_t next = UINT64_MAX;
    for (unsigned i = 0; i < CONFIG_WREN_NDNLP_REASS_SLOTS; i++) {
        if (f->slot[i].pieces && f->slot[i].deadline < next) {
            next = f->slot[i].deadline;
        }
    }
    return next;
}

void wren_ndnlp_frag_clear(struct wren_ndnlp_frag *f)
{
    for (unsigned i = 0; i < CONFIG_WREN_NDNLP_REASS_SLOTS; i++) {
        if (f->slot[i].pieces) {
            slot_free(f, &f->slot[i]);
        }
    }
}

/* the packet (peer, msg) is reassembling in, or a free slot set up for it */
static struct wren_ndnlp_slot *slot_get(struct wren_ndnlp_frag *f, uint64_t peer, uint64_t msg,
                                        uint16_t count)
{
    struct wren_ndnlp_slot *free_slot = NULL;
    for (unsigned i = 0; i < CONFIG_WREN_NDNLP_REASS_SLOTS; i++) {
        struct wren_ndnlp_slot *s = &f->slot[i];
        if (s->pieces == NULL) {
            free_slot = free_slot ? free_slot : s;
        } else if (s->peer == peer && s->msg == msg) {
            return s;
        }
    }
    if (free_slot) {
        memset(free_slot, 0, sizeof(*free_slot));
        free_slot->peer = peer;
        free_slot->msg = msg;
        free_slot->count = count;
    }
    return free_slot;
}

static uint16_t piece_idx(const struct wren_snip *p)
{
    return (uint16_t)(p->data[0] << 8 | p->data[1]);
}

/* Hold lp's piece in FragIndex order: 0, -EEXIST (that index is held) or
 * -ENOBUFS. *in_order: it came right after the piece before it. */
static int hold_piece(struct wren_ndnlp_frag *f, struct wren_ndnlp_slot *s,
                      const struct ndnlp_pkt *lp, bool *in_order)
{
    uint16_t idx = (uint16_t)lp->frag_index;
    struct wren_snip **pp = &s->pieces, *prev = NULL;
    while (*pp && piece_idx(*pp) < idx) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    if (*pp && piece_idx(*pp) == idx) {
        return -EEXIST;
    }
    *in_order = *pp == NULL && (prev ? piece_idx(prev) + 1 == idx : idx == 0);
    struct wren_snip *p =
        wren_pktbuf_add(f->pb, *pp, NULL, IDX_LEN + lp->frag_len, WREN_NETTYPE_UNDEF);
    if (p == NULL) {
        return -ENOBUFS;
    }
    p->data[0] = (uint8_t)(idx >> 8);
    p->data[1] = (uint8_t)idx;
    memcpy(p->data + IDX_LEN, lp->frag, lp->frag_len);
    *pp = p;
    s->got++;
    s->bytes = (uint16_t)(s->bytes + lp->frag_len);
    return 0;
}

/* all pieces held: the packet in one new snip, the slot freed */
static struct wren_snip *complete(struct wren_ndnlp_frag *f, struct wren_ndnlp_slot *s,
                                  struct ndnlp_pkt *lp, uint8_t type)
{
    struct wren_snip *out = wren_pktbuf_add(f->pb, NULL, NULL, s->bytes, type);
    if (out == NULL) {
        f->stats.lp_drop_nobuf++;
        slot_free(f, s);
        return NULL;
    }
    size_t off = 0;
    for (const struct wren_snip *p = s->pieces; p; p = p->next) {
        memcpy(out->data + off, p->data + IDX_LEN, p->size - IDX_LEN);
        off += p->size - IDX_LEN;
    }
    lp->has_nack = s->has_nack; /* the network-layer headers ride on piece 0 */
    lp->nack_reason = s->nack_reason;
    slot_free(f, s);
    f->stats.lp_reassembled++;
    return out;
}

/* message identifier: Sequence - FragIndex, in the Sequence's own width */
static uint64_t msg_id(const struct ndnlp_pkt *lp)
{
    uint64_t m = lp->seq - lp->frag_index;
    return lp->seq_len >= 8 ? m : m & ((UINT64_C(1) << (8 * lp->seq_len)) - 1);
}

/* a piece into its slot (checks first) */
static struct wren_snip *reass_add(struct wren_ndnlp_frag *f, uint64_t peer, struct ndnlp_pkt *lp,
                                   uint64_t now, uint8_t type)
{
    f->stats.lp_rx_frags++;
    if (lp->frag_count > CONFIG_WREN_NDNLP_MAX_FRAGS || lp->frag_len > CONFIG_WREN_NDNLP_MAX_PKT) {
        f->stats.lp_drop_oversize++;
        return NULL;
    }
    bool in_order = false;
    struct wren_ndnlp_slot *s = slot_get(f, peer, msg_id(lp), (uint16_t)lp->frag_count);
    if (s == NULL) {
        f->stats.lp_drop_no_slot++;
        return NULL;
    }
    if (s->count != lp->frag_count) {
        f->stats.lp_drop_count++;
        return NULL;
    }
    if (s->bytes + lp->frag_len > CONFIG_WREN_NDNLP_MAX_PKT) {
        f->stats.lp_drop_oversize++; /* the whole packet: it cannot fit */
        slot_free(f, s);
        return NULL;
    }
    int rc = hold_piece(f, s, lp, &in_order);
    if (rc < 0) {
        if (rc == -EEXIST) {
            f->stats.lp_drop_dup++;
        } else {
            f->stats.lp_drop_nobuf++;
        }
        return NULL; /* a fresh slot with no piece stays free */
    }
    f->stats.lp_ooo += !in_order;
    if (lp->frag_index == 0) {
        s->has_nack = lp->has_nack;
        s->nack_reason = lp->nack_reason;
    }
    s->deadline = now + TIMEOUT_US;
    return s->got == s->count ? complete(f, s, lp, type) : NULL;
}

static void count_parse_err(struct wren_ndnlp_frag *f, int rc)
{
    switch (-rc) {
    case NDNLP_ERR_ORDER:
        f->stats.lp_drop_order++;
        break;
    case NDNLP_ERR_CRITICAL:
        f->stats.lp_drop_critical++;
        break;
    case NDNLP_ERR_FIELD:
        f->stats.lp_drop_field++;
        break;
    case NDNLP_ERR_FRAG:
        f->stats.lp_drop_frag++;
        break;
    default: /* truncated, not an LpPacket, bytes after it */
        f->stats.lp_drop_tlv++;
        break;
    }
}

struct wren_snip *wren_ndnlp_frag_rx(struct wren_ndnlp_frag *f, uint64_t peer, const uint8_t *buf,
                                     size_t len, uint64_t now, uint8_t type, struct ndnlp_pkt *lp)
{
    wren_ndnlp_frag_expire(f, now);
    f->stats.lp_rx++;
    int rc = wren_ndnlp_parse(buf, len, lp);
    if (rc >= 0 && (size_t)rc != len) {
        rc = -NDNLP_ERR_TRUNCATED; /* NFD drops a datagram longer than its packet too */
    }
    if (rc < 0) {
        count_parse_err(f, rc);
        return NULL;
    }
    if (lp->frag_len == 0) {
        f->stats.lp_idle++;
        return NULL;
    }
    if (lp->frag_count > 1) {
        return reass_add(f, peer, lp, now, type);
    }
    struct wren_snip *out = wren_pktbuf_add(f->pb, NULL, lp->frag, lp->frag_len, type);
    if (out == NULL) {
        f->stats.lp_drop_nobuf++;
    }
    return out;
}
