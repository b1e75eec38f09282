/* The NDN forwarder's tables and pipelines: PIT, Content Store, FIB and the
 * best-route strategy. The pipelines follow NFD's developer guide (NFD
 * team, "NFD Developer's Guide", technical report NDN-0021: its incoming
 * Interest and incoming Data pipelines, and its best-route strategy with
 * retransmission), cut down to static tables. */
#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "ndn/ndn_priv.h"

/* ---- helpers --------------------------------------------------------- */

/* FNV-1a of a Name's value: the Dead Nonce List keys on (nonce, name) */
static uint32_t name_hash(const uint8_t *v, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        h = (h ^ v[i]) * 16777619u;
    }
    return h;
}

static void count_bad(struct wren_ndn *ndn, int err)
{
    switch (err) {
    case -EPROTONOSUPPORT:
        ndn->stats.rx_drop_critical++;
        break;
    case -EILSEQ:
        ndn->stats.rx_drop_digest++;
        break;
    default:
        ndn->stats.rx_drop_malformed++;
    }
}

static bool dnl_has(const struct wren_ndn *ndn, uint32_t key)
{
    for (int i = 0; i < CONFIG_WREN_NDN_DEAD_NONCES; i++) {
        if (ndn->dnl[i] == key && key != 0) {
            return true;
        }
    }
    return false;
}

static void dnl_add(struct wren_ndn *ndn, uint32_t key)
{
    ndn->dnl[ndn->dnl_next] = key;
    ndn->dnl_next = (uint8_t)((ndn->dnl_next + 1) % CONFIG_WREN_NDN_DEAD_NONCES);
}

/* ---- PIT ------------------------------------------------------------- */

static struct ndn_name pit_name(const struct wren_ndn_pit_entry *e)
{
    return (struct ndn_name){ .v = e->interest->data + e->name_off, .len = e->name_len };
}

/* when an entry for @p in made or refreshed now expires */
static uint64_t pit_expiry(const struct wren_ndn *ndn, const struct ndn_interest *in)
{
    uint32_t ms = in->lifetime_ms < CONFIG_WREN_NDN_PIT_MAX_LIFETIME_MS
                      ? in->lifetime_ms
                      : CONFIG_WREN_NDN_PIT_MAX_LIFETIME_MS;
    return wren_node_now(ndn->node) + (uint64_t)ms * 1000u;
}

static uint8_t pit_flags(const struct ndn_interest *in)
{
    return (uint8_t)((in->can_be_prefix ? NDN_PIT_CBP : 0) | (in->must_be_fresh ? NDN_PIT_MBF : 0));
}

static struct wren_ndn_pit_entry *pit_find(struct wren_ndn *ndn, const struct ndn_interest *in)
{
    for (int i = 0; i < CONFIG_WREN_NDN_PIT; i++) {
        struct wren_ndn_pit_entry *e = &ndn->pit[i];
        struct ndn_name n;
        if (e->interest && e->flags == pit_flags(in) && (n = pit_name(e), true) &&
            wren_ndn_name_eq(&n, &in->name)) {
            return e;
        }
    }
    return NULL;
}

static bool pit_has_nonce(const struct wren_ndn_pit_entry *e, uint32_t nonce)
{
    for (int i = 0; i < e->n_nonces; i++) {
        if (e->nonces[i] == nonce) {
            return true;
        }
    }
    return false;
}

static void pit_add_nonce(struct wren_ndn_pit_entry *e, uint32_t nonce)
{
    if (e->n_nonces < CONFIG_WREN_NDN_PIT_NONCES) {
        e->nonces[e->n_nonces++] = nonce;
    } else {
        memmove(e->nonces, e->nonces + 1, sizeof(e->nonces) - sizeof(e->nonces[0]));
        e->nonces[CONFIG_WREN_NDN_PIT_NONCES - 1] = nonce;
    }
}

/* the entry goes; its nonces stay in the Dead Nonce List */
static void pit_free(struct wren_ndn *ndn, struct wren_ndn_pit_entry *e)
{
    uint32_t h = name_hash(e->interest->data + e->name_off, e->name_len);
    for (int i = 0; i < e->n_nonces; i++) {
        dnl_add(ndn, e->nonces[i] ^ h);
    }
    wren_pktbuf_release(&ndn->node->pktbuf, e->interest);
    memset(e, 0, sizeof(*e));
}

static void pit_arm(struct wren_ndn *ndn)
{
    uint64_t first = UINT64_MAX;
    for (int i = 0; i < CONFIG_WREN_NDN_PIT; i++) {
        if (ndn->pit[i].interest && ndn->pit[i].expires < first) {
            first = ndn->pit[i].expires;
        }
    }
    if (first == UINT64_MAX) {
        wren_timer_cancel(ndn->node, &ndn->pit_timer);
    } else {
        wren_timer_set_abs(ndn->node, &ndn->pit_timer, first);
    }
}

void wren_ndn_pit_timer(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_ndn *ndn = arg;
    uint64_t now = wren_node_now(ndn->node);
    for (int i = 0; i < CONFIG_WREN_NDN_PIT; i++) {
        if (ndn->pit[i].interest && ndn->pit[i].expires <= now) {
            ndn->stats.pit_expired++;
            pit_free(ndn, &ndn->pit[i]);
        }
    }
    pit_arm(ndn);
}

/* ---- Content Store --------------------------------------------------- */

static struct ndn_name cs_name(const struct wren_ndn *ndn, const struct wren_ndn_cs_entry *c)
{
    return (struct ndn_name){ .v = ndn->cs_store + c->off + c->name_off, .len = c->name_len };
}

static bool cs_matches(const struct wren_ndn *ndn, const struct wren_ndn_cs_entry *c,
                       const struct ndn_interest *in, uint64_t now)
{
    struct ndn_data d = { .name = cs_name(ndn, c) };
    return (!in->must_be_fresh || now < c->stale_at) &&
           wren_ndn_data_answers(&in->name, in->can_be_prefix, &d, ndn->cs_store + c->off,
                                 c->len);
}

static struct wren_ndn_cs_entry *cs_find(struct wren_ndn *ndn, const struct ndn_interest *in)
{
    uint64_t now = wren_node_now(ndn->node);
    for (int i = 0; i < CONFIG_WREN_NDN_CS; i++) {
        struct wren_ndn_cs_entry *c = &ndn->cs[i];
        if (c->len && cs_matches(ndn, c, in, now)) {
            c->used = ++ndn->cs_clock;
            return c;
        }
    }
    return NULL;
}

static size_t cs_used_bytes(const struct wren_ndn *ndn)
{
    size_t n = 0;
    for (int i = 0; i < CONFIG_WREN_NDN_CS; i++) {
        n += ndn->cs[i].len;
    }
    return n;
}

static void cs_evict_lru(struct wren_ndn *ndn)
{
    struct wren_ndn_cs_entry *lru = NULL;
    for (int i = 0; i < CONFIG_WREN_NDN_CS; i++) {
        if (ndn->cs[i].len && (lru == NULL || ndn->cs[i].used < lru->used)) {
            lru = &ndn->cs[i];
        }
    }
    if (lru) {
        lru->len = 0;
        ndn->stats.cs_evictions++;
    }
}

/* move the entries to the front of the store, in order; the free end */
static size_t cs_compact(struct wren_ndn *ndn)
{
    size_t end = 0;
    for (;;) {
        struct wren_ndn_cs_entry *next = NULL;
        for (int i = 0; i < CONFIG_WREN_NDN_CS; i++) {
            struct wren_ndn_cs_entry *c = &ndn->cs[i];
            if (c->len && c->off >= end && (next == NULL || c->off < next->off)) {
                next = c;
            }
        }
        if (next == NULL) {
            return end;
        }
        memmove(ndn->cs_store + end, ndn->cs_store + next->off, next->len);
        next->off = (uint16_t)end;
        end += next->len;
    }
}

static void cs_insert(struct wren_ndn *ndn, const struct wren_snip *pkt, const struct ndn_data *d)
{
    if (pkt->size > CONFIG_WREN_NDN_CS_BYTES) {
        return;
    }
    struct ndn_interest same = { .name = d->name };
    struct wren_ndn_cs_entry *c = NULL;
    for (int i = 0; i < CONFIG_WREN_NDN_CS; i++) {
        if (ndn->cs[i].len && cs_matches(ndn, &ndn->cs[i], &same, 0)) {
            ndn->cs[i].len = 0; /* a newer copy of the same Data replaces it */
        }
    }
    for (;;) {
        for (int i = 0; i < CONFIG_WREN_NDN_CS && c == NULL; i++) {
            c = ndn->cs[i].len ? NULL : &ndn->cs[i];
        }
        if (c && cs_used_bytes(ndn) + pkt->size <= CONFIG_WREN_NDN_CS_BYTES) {
            break;
        }
        c = NULL;
        cs_evict_lru(ndn);
    }
    size_t off = cs_compact(ndn);
    memcpy(ndn->cs_store + off, pkt->data, pkt->size);
    *c = (struct wren_ndn_cs_entry){
        .off = (uint16_t)off, .len = pkt->size, .used = ++ndn->cs_clock,
        .name_off = (uint16_t)(d->name.v - pkt->data), .name_len = d->name.len,
        .stale_at = wren_node_now(ndn->node) + (uint64_t)d->freshness_ms * 1000u,
    };
    ndn->stats.cs_inserts++;
}

/* Data from the store, in a packet of its own, on face @p face */
static void cs_send(struct wren_ndn *ndn, const struct wren_ndn_cs_entry *c, uint8_t face)
{
    struct wren_snip *s = wren_pktbuf_add(&ndn->node->pktbuf, NULL, ndn->cs_store + c->off,
                                          c->len, WREN_NETTYPE_NDN);
    if (s == NULL) {
        ndn->stats.tx_drop++;
        return;
    }
    if (wren_ndn_face_send(ndn, face, s) == 0) {
        ndn->stats.tx_data++;
    }
    wren_pktbuf_release(&ndn->node->pktbuf, s);
}

/* ---- FIB ------------------------------------------------------------- */

static bool fib_used(const struct wren_ndn_fib_entry *f)
{
    for (int i = 0; i < CONFIG_WREN_NDN_NEXTHOPS; i++) {
        if (f->hops[i].face) {
            return true;
        }
    }
    return false;
}

static struct wren_ndn_fib_entry *fib_find(struct wren_ndn *ndn, const uint8_t *name, uint8_t len)
{
    for (int i = 0; i < CONFIG_WREN_NDN_FIB; i++) {
        struct wren_ndn_fib_entry *f = &ndn->fib[i];
        if (fib_used(f) && f->len == len && memcmp(f->name, name, len) == 0) {
            return f;
        }
    }
    return NULL;
}

struct wren_ndn_fib_entry *wren_ndn_fib_lookup(struct wren_ndn *ndn, const struct ndn_name *name)
{
    struct wren_ndn_fib_entry *best = NULL;
    for (int i = 0; i < CONFIG_WREN_NDN_FIB; i++) {
        struct wren_ndn_fib_entry *f = &ndn->fib[i];
        struct ndn_name p = { .v = f->name, .len = f->len };
        if (fib_used(f) && wren_ndn_name_is_prefix(&p, name) && (!best || f->len > best->len)) {
            best = f;
        }
    }
    return best;
}

static int fib_del(struct wren_ndn_fib_entry *f, uint8_t face)
{
    int found = -ENOENT;
    for (int i = 0; f && i < CONFIG_WREN_NDN_NEXTHOPS; i++) {
        if (f->hops[i].face && (face == 0 || f->hops[i].face == face)) {
            f->hops[i].face = 0;
            found = 0;
        }
    }
    return found;
}

int wren_ndn_fib_set(struct wren_ndn *ndn, const struct wren_ndn_route *r)
{
    struct ndn_name n;
    if (r->len > CONFIG_WREN_NDN_FIB_NAME || wren_ndn_name_parse(r->name, r->len, &n) < 0) {
        return -EINVAL;
    }
    struct wren_ndn_fib_entry *f = fib_find(ndn, r->name, r->len);
    if (r->cost == WREN_NDN_ROUTE_DEL) {
        return fib_del(f, r->face);
    }
    if (wren_ndn_face(ndn, r->face) == NULL) {
        return -EINVAL;
    }
    for (int i = 0; f == NULL && i < CONFIG_WREN_NDN_FIB; i++) {
        if (!fib_used(&ndn->fib[i])) {
            f = &ndn->fib[i];
            memset(f, 0, sizeof(*f));
            f->len = r->len;
            memcpy(f->name, r->name, r->len);
        }
    }
    struct wren_ndn_nexthop *h = NULL;
    for (int i = 0; f && i < CONFIG_WREN_NDN_NEXTHOPS; i++) {
        if (f->hops[i].face == r->face || (!h && f->hops[i].face == 0)) {
            h = &f->hops[i];
        }
    }
    if (h == NULL) {
        return -ENOSPC;
    }
    *h = (struct wren_ndn_nexthop){ .face = r->face, .cost = r->cost };
    return 0;
}

/* ---- strategy: best route, the next-best on a retransmission ---------- */

static const struct wren_ndn_nexthop *pick_hop(const struct wren_ndn_fib_entry *f,
                                               uint16_t exclude, uint16_t tried)
{
    const struct wren_ndn_nexthop *best = NULL, *untried = NULL;
    for (int i = 0; f && i < CONFIG_WREN_NDN_NEXTHOPS; i++) {
        const struct wren_ndn_nexthop *h = &f->hops[i];
        if (h->face == 0 || (exclude & wren_ndn_face_bit(h->face))) {
            continue;
        }
        best = !best || h->cost < best->cost ? h : best;
        if (!(tried & wren_ndn_face_bit(h->face)) && (!untried || h->cost < untried->cost)) {
            untried = h;
        }
    }
    return untried ? untried : best;
}

/* Forward @p pkt (the Interest @p in, kept by the caller) for entry @p e.
 * false: no route (counted). */
static bool forward(struct wren_ndn *ndn, struct wren_ndn_pit_entry *e, struct wren_snip *pkt,
                    const struct ndn_interest *in, bool retx)
{
    const struct wren_ndn_nexthop *h =
        pick_hop(wren_ndn_fib_lookup(ndn, &in->name), e->in_faces, retx ? e->out_faces : 0);
    if (h == NULL) {
        ndn->stats.drop_no_route++;
        return false;
    }
    struct wren_ndn_face *f = wren_ndn_face(ndn, h->face);
    if (in->has_hop_limit && in->hop_limit_at) {
        /* 0.3, HopLimit: decremented before forwarding, never sent on at 0 */
        uint8_t *at = (uint8_t *)(uintptr_t)in->hop_limit_at;
        *at = in->hop_limit - 1;
        if (*at == 0 && f->kind != WREN_NDN_FACE_APP) {
            ndn->stats.rx_drop_hop_limit++;
            return true;
        }
    }
    e->out_faces |= wren_ndn_face_bit(h->face);
    if (wren_ndn_face_send(ndn, h->face, pkt) == 0) {
        ndn->stats.tx_interests++;
        ndn->stats.pit_retx += retx;
    }
    return true;
}

/* ---- pipelines ------------------------------------------------------- */

/* an Interest with no Nonce gets one (0.3: a forwarder adds it) */
static struct wren_snip *add_nonce(struct wren_ndn *ndn, struct wren_snip *pkt,
                                   struct ndn_interest *in)
{
    in->has_nonce = true;
    in->nonce = wren_node_random(ndn->node);
    size_t n = wren_ndn_interest_len(in);
    struct wren_snip *s = wren_pktbuf_add(&ndn->node->pktbuf, NULL, NULL, n, WREN_NETTYPE_NDN);
    if (s == NULL || wren_ndn_interest_emit(in, s->data, n) < 0 ||
        wren_ndn_interest_parse(s->data, n, in) < 0) {
        if (s) {
            wren_pktbuf_release(&ndn->node->pktbuf, s);
        }
        s = NULL;
    }
    wren_pktbuf_release(&ndn->node->pktbuf, pkt);
    return s;
}

/* an Interest for a name already pending: aggregate or retransmit */
static void interest_pending(struct wren_ndn *ndn, struct wren_ndn_pit_entry *e, uint8_t face,
                             struct wren_snip *pkt, const struct ndn_interest *in)
{
    uint64_t exp = pit_expiry(ndn, in);
    pit_add_nonce(e, in->nonce);
    e->expires = exp > e->expires ? exp : e->expires;
    if (e->in_faces & wren_ndn_face_bit(face)) {
        /* the same downstream asks again with a new nonce: it lost the
         * first; try the next route that has not been tried */
        forward(ndn, e, pkt, in, true);
    } else {
        e->in_faces |= wren_ndn_face_bit(face);
        ndn->stats.pit_aggregated++;
    }
    wren_pktbuf_release(&ndn->node->pktbuf, pkt);
    pit_arm(ndn);
}

static void interest_new(struct wren_ndn *ndn, uint8_t face, struct wren_snip *pkt,
                         const struct ndn_interest *in)
{
    struct wren_ndn_pit_entry *e = NULL;
    for (int i = 0; i < CONFIG_WREN_NDN_PIT && !e; i++) {
        e = ndn->pit[i].interest ? NULL : &ndn->pit[i];
    }
    if (e == NULL) {
        ndn->stats.drop_pit_full++;
        wren_pktbuf_release(&ndn->node->pktbuf, pkt);
        return;
    }
    *e = (struct wren_ndn_pit_entry){
        .interest = pkt, .name_off = (uint16_t)(in->name.v - pkt->data),
        .name_len = in->name.len, .in_faces = wren_ndn_face_bit(face), .flags = pit_flags(in),
        .expires = pit_expiry(ndn, in),
    };
    pit_add_nonce(e, in->nonce);
    if (!forward(ndn, e, pkt, in, false)) {
        pit_free(ndn, e);
    }
    pit_arm(ndn);
}

static void on_interest(struct wren_ndn *ndn, uint8_t face, struct wren_snip *pkt)
{
    struct ndn_interest in;
    int r = wren_ndn_interest_parse(pkt->data, pkt->size, &in);
    struct wren_ndn_face *f = wren_ndn_face(ndn, face);
    if (r < 0 || (in.has_hop_limit && in.hop_limit == 0 && f->kind != WREN_NDN_FACE_APP)) {
        if (r < 0) {
            count_bad(ndn, r);
        } else {
            ndn->stats.rx_drop_hop_limit++;
        }
        wren_pktbuf_release(&ndn->node->pktbuf, pkt);
        return;
    }
    ndn->stats.rx_interests++;
    if (!in.has_nonce && (pkt = add_nonce(ndn, pkt, &in)) == NULL) {
        ndn->stats.rx_drop_nobuf++;
        return;
    }
    struct wren_ndn_pit_entry *e = pit_find(ndn, &in);
    if (e ? pit_has_nonce(e, in.nonce) : dnl_has(ndn, in.nonce ^ name_hash(in.name.v, in.name.len))) {
        ndn->stats.rx_drop_loop++;
        wren_pktbuf_release(&ndn->node->pktbuf, pkt);
        return;
    }
    if (e) {
        interest_pending(ndn, e, face, pkt, &in);
        return;
    }
    const struct wren_ndn_cs_entry *c = cs_find(ndn, &in);
    if (c) {
        ndn->stats.cs_hits++;
        cs_send(ndn, c, face);
        wren_pktbuf_release(&ndn->node->pktbuf, pkt);
        return;
    }
    ndn->stats.cs_misses++;
    interest_new(ndn, face, pkt, &in);
}

/* the downstream faces of every entry the Data @p d (in @p pkt) satisfies;
 * the entries go */
static uint16_t pit_satisfy(struct wren_ndn *ndn, const struct ndn_data *d,
                            const struct wren_snip *pkt)
{
    uint16_t down = 0;
    for (int i = 0; i < CONFIG_WREN_NDN_PIT; i++) {
        struct wren_ndn_pit_entry *e = &ndn->pit[i];
        struct ndn_name n;
        if (e->interest && (n = pit_name(e), true) &&
            wren_ndn_data_answers(&n, e->flags & NDN_PIT_CBP, d, pkt->data, pkt->size)) {
            down |= e->in_faces;
            ndn->stats.pit_satisfied++;
            pit_free(ndn, e);
        }
    }
    return down;
}

static void on_data(struct wren_ndn *ndn, uint8_t face, struct wren_snip *pkt)
{
    struct ndn_data d;
    int r = wren_ndn_data_parse(pkt->data, pkt->size, &d);
    if (r < 0) {
        count_bad(ndn, r);
        wren_pktbuf_release(&ndn->node->pktbuf, pkt);
        return;
    }
    ndn->stats.rx_data++;
    uint16_t down = pit_satisfy(ndn, &d, pkt);
    if (down == 0) {
        ndn->stats.rx_drop_unsolicited++; /* and not cached (NFD's default) */
        wren_pktbuf_release(&ndn->node->pktbuf, pkt);
        return;
    }
    pit_arm(ndn);
    cs_insert(ndn, pkt, &d);
    for (uint8_t f = 1; f <= CONFIG_WREN_NDN_FACES; f++) {
        if ((down & wren_ndn_face_bit(f)) && f != face && wren_ndn_face_send(ndn, f, pkt) == 0) {
            ndn->stats.tx_data++;
        }
    }
    wren_pktbuf_release(&ndn->node->pktbuf, pkt);
}

void wren_ndn_fwd_rx(struct wren_ndn *ndn, uint8_t face, struct wren_snip *pkt)
{
    uint32_t t = wren_ndn_packet_type(pkt->data, pkt->size);
    if (t == NDN_T_INTEREST) {
        on_interest(ndn, face, pkt);
    } else if (t == NDN_T_DATA) {
        on_data(ndn, face, pkt);
    } else {
        ndn->stats.rx_drop_type++;
        wren_pktbuf_release(&ndn->node->pktbuf, pkt);
    }
}

void wren_ndn_fwd_face_gone(struct wren_ndn *ndn, uint8_t face)
{
    for (int i = 0; i < CONFIG_WREN_NDN_FIB; i++) {
        fib_del(&ndn->fib[i], face);
    }
    for (int i = 0; i < CONFIG_WREN_NDN_PIT; i++) {
        struct wren_ndn_pit_entry *e = &ndn->pit[i];
        e->in_faces &= (uint16_t)~wren_ndn_face_bit(face);
        e->out_faces &= (uint16_t)~wren_ndn_face_bit(face);
        if (e->interest && e->in_faces == 0) {
            pit_free(ndn, e);
        }
    }
    pit_arm(ndn);
}

void wren_ndn_fwd_flush(struct wren_ndn *ndn)
{
    for (int i = 0; i < CONFIG_WREN_NDN_PIT; i++) {
        if (ndn->pit[i].interest) {
            pit_free(ndn, &ndn->pit[i]);
        }
    }
    memset(ndn->cs, 0, sizeof(ndn->cs));
    pit_arm(ndn);
}
