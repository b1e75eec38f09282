/* SCHC reassembly (RFC 8724 8.4.3.2 ACK-on-Error, 8.4.2.2 ACK-Always)
 * and the ACK's wire form (8.3.2). */
#include "schc/schc_frag.h"
#include "schc/schc_frag_priv.h"

#include <string.h>

int wren_schc_ack_parse(const struct wren_schc_frag_profile *p, const uint8_t *msg, size_t len,
                        struct wren_schc_ack *a)
{
    struct bits b = { .r = msg, .end = len * 8u };
    memset(a, 0, sizeof(*a));
    uint32_t rule = get_uint(&b, 8);
    a->w = (uint8_t)get_uint(&b, p->m);
    a->c = (uint8_t)get_uint(&b, 1);
    if (b.err) {
        return -SCHC_FRAG_ERR_TRUNCATED;
    }
    if (rule != p->rule_id) {
        return -SCHC_FRAG_ERR_RULE;
    }
    /* a Receiver-Abort is one byte longer than a C = 1 ACK, all 1s after C */
    size_t c1_len = (8u + p->m + 1u + 7u) / 8u;
    a->abort = a->c && a->w == (1u << p->m) - 1u && len > c1_len;
    unsigned k = a->c ? 0 : (unsigned)(b.end - b.pos);
    for (unsigned i = 0; i < p->window; i++) {
        unsigned bit = i < k ? get_uint(&b, 1) : 1u;
        a->bitmap[i / 8] = (uint8_t)(a->bitmap[i / 8] | bit << (i % 8));
    }
    return 0;
}

size_t wren_schc_ack_emit(const struct wren_schc_frag_profile *p, const struct wren_schc_ack *a,
                          uint8_t *out)
{
    struct bits b = { .w = out, .end = 16 * 8u };
    put_uint(&b, p->rule_id, 8);
    if (a->abort) {
        put_uint(&b, (1u << p->m) - 1u, p->m);
        put_uint(&b, 1, 1);
        put_uint(&b, 0xffu, (unsigned)((8u - (b.pos & 7)) & 7));
        put_uint(&b, 0xffu, 8);
        return b.pos / 8u;
    }
    put_uint(&b, a->w, p->m);
    put_uint(&b, a->c, 1);
    if (!a->c) {
        /* 8.3.2.1: drop the bitmap's trailing 1s, ending on a byte */
        unsigned keep = 0;
        for (unsigned i = 0; i < p->window; i++) {
            keep = (a->bitmap[i / 8] >> (i % 8) & 1) ? keep : i + 1;
        }
        while (keep < p->window && (b.pos + keep) % 8u) {
            keep++;
        }
        for (unsigned i = 0; i < keep; i++) {
            put_uint(&b, a->bitmap[i / 8] >> (i % 8) & 1, 1);
        }
    }
    put_uint(&b, 0, (unsigned)((8u - (b.pos & 7)) & 7));
    return b.pos / 8u;
}

static bool have(const struct wren_schc_frag_rx *rx, unsigned t)
{
    return t < WREN_SCHC_MAX_TILES && (rx->have[t / 8] >> (t % 8) & 1);
}

void wren_schc_frag_rx_start(struct wren_schc_frag_rx *rx, const struct wren_schc_frag_profile *p,
                             uint32_t now)
{
    memset(rx, 0, offsetof(struct wren_schc_frag_rx, pkt));
    rx->p = p;
    rx->state = WREN_SCHC_FRAG_SENDING;
    rx->deadline = now + p->inactivity_ms;
}

/* The frontier: one past the highest tile received (where the All-1's
 * tile goes if nothing is missing before it). */
static unsigned frontier(const struct wren_schc_frag_rx *rx)
{
    unsigned f = 0;
    for (unsigned t = 0; t < WREN_SCHC_MAX_TILES; t++) {
        f = have(rx, t) ? t + 1 : f;
    }
    return f;
}

/* Where the tiles known to exist end: the frontier, and with the All-1 in,
 * at least the start of its window (every window before it is whole). */
static unsigned known_end(const struct wren_schc_frag_rx *rx)
{
    unsigned f = frontier(rx), a = rx->all1 ? rx->w_done * (unsigned)rx->p->window : 0;
    return f > a ? f : a;
}

/* With the All-1 in: are tiles 0..F-1 all there and does the RCS of the
 * packet they make with the last tile check? */
static bool try_complete(struct wren_schc_frag_rx *rx)
{
    unsigned f = known_end(rx);
    for (unsigned t = 0; t < f; t++) {
        if (!have(rx, t)) {
            return false;
        }
    }
    size_t len = (size_t)f * rx->p->tile + rx->last;
    if (len > CONFIG_WREN_SCHC_MAX_PACKET) {
        return false;
    }
    memcpy(rx->pkt + (size_t)f * rx->p->tile, rx->lastbuf, rx->last);
    if (wren_schc_crc32(rx->pkt, len) != rx->rcs) {
        return false;
    }
    rx->len = (uint16_t)len;
    rx->state = WREN_SCHC_FRAG_DONE;
    return true;
}

/* The first tile missing before the frontier (the frontier if none). */
static unsigned first_gap(const struct wren_schc_frag_rx *rx, unsigned f)
{
    unsigned t = 0;
    while (t < f && have(rx, t)) {
        t++;
    }
    return t;
}

/* RFC 8724 8.4.3.2: on an All-1 or an ACK REQ (naming window @p req_w, or
 * -1), the ACK of the lowest window with a tile known to be missing (one
 * below the highest received), else of the All-1's window (reassembled,
 * yet the RCS failed: tiles right before the All-1 are missing), else of
 * the highest window with tiles or the one the ACK REQ names, if higher
 * (its All-1 was lost), else of window 0. */
static unsigned ack_which(const struct wren_schc_frag_rx *rx, int req_w)
{
    unsigned win = rx->p->window, f = known_end(rx), gap = first_gap(rx, f);
    if (gap < f) {
        return gap / win;
    }
    if (rx->all1) {
        return rx->w_done;
    }
    unsigned a = f ? (f - 1u) / win : 0;
    return req_w > (int)a ? (unsigned)req_w : a;
}

/* Its bitmap (8.2.2.3, compressed as 8.3.2.1 says): bit i the window's i-th tile (FCN WINDOW_SIZE-1-i);
 * in the All-1's window the right-most bit is the All-1's tile. */
static size_t ack_missing(const struct wren_schc_frag_rx *rx, int req_w, uint8_t *out)
{
    const struct wren_schc_frag_profile *p = rx->p;
    unsigned a = ack_which(rx, req_w);
    struct wren_schc_ack ack = { .w = (uint8_t)(a % (1u << p->m)) };
    for (unsigned i = 0; i < p->window; i++) {
        bool bit = have(rx, a * p->window + i) ||
                   (rx->all1 && a == rx->w_done && i + 1u == p->window);
        ack.bitmap[i / 8] = (uint8_t)(ack.bitmap[i / 8] | (unsigned)bit << (i % 8));
    }
    return wren_schc_ack_emit(p, &ack, out);
}

static int rx_abort(struct wren_schc_frag_rx *rx, int err, uint8_t *ack, size_t *ack_len)
{
    struct wren_schc_ack a = { .abort = 1 };
    rx->state = WREN_SCHC_FRAG_ABORTED;
    *ack_len = wren_schc_ack_emit(rx->p, &a, ack);
    return err;
}

int wren_schc_frag_rx_timeout(struct wren_schc_frag_rx *rx, uint8_t *ack, size_t *ack_len)
{
    return rx_abort(rx, -SCHC_FRAG_ERR_GAVE_UP, ack, ack_len);
}

/* A fragment's header; b is left at its first tile byte. */
struct frag {
    struct bits b;
    unsigned w, fcn;
    bool all1, sender_abort, ack_req;
    uint32_t rcs;
    size_t tbytes;
};

static int frag_parse(const struct wren_schc_frag_profile *p, const uint8_t *msg, size_t len,
                      struct frag *f)
{
    memset(f, 0, sizeof(*f));
    f->b = (struct bits){ .r = msg, .end = len * 8u };
    uint32_t rule = get_uint(&f->b, 8);
    f->w = get_uint(&f->b, p->m);
    f->fcn = get_uint(&f->b, p->n);
    if (f->b.err) {
        return -SCHC_FRAG_ERR_TRUNCATED;
    }
    if (rule != p->rule_id) {
        return -SCHC_FRAG_ERR_RULE;
    }
    f->all1 = f->fcn == (1u << p->n) - 1u;
    size_t rem = f->b.end - f->b.pos;
    if (f->all1 && rem < 32) {
        f->sender_abort = true; /* an All-1 without RCS */
        return 0;
    }
    if (f->all1) {
        f->rcs = get_uint(&f->b, 32);
        rem -= 32;
    }
    f->tbytes = rem / 8u;
    f->ack_req = f->fcn == 0 && f->tbytes == 0;
    return 0;
}

/* ACK-Always: window @p a's ACK (one tile: have it or not). */
static size_t ack_window(const struct wren_schc_frag_rx *rx, unsigned a, uint8_t *out)
{
    struct wren_schc_ack ack = { .w = (uint8_t)(a % (1u << rx->p->m)) };
    for (unsigned i = 0; i < rx->p->window; i++) {
        unsigned bit = have(rx, a * rx->p->window + i);
        ack.bitmap[i / 8] = (uint8_t)(ack.bitmap[i / 8] | bit << (i % 8));
    }
    return wren_schc_ack_emit(rx->p, &ack, out);
}

static size_t ack_done(const struct wren_schc_frag_rx *rx, uint8_t *out)
{
    struct wren_schc_ack ack = { .w = rx->w_done, .c = 1 };
    return wren_schc_ack_emit(rx->p, &ack, out);
}

/* The absolute window of W @p w: ACK-on-Error's windows all fit W's bits;
 * ACK-Always goes window by window. -1: not one expected. */
static int abs_window(const struct wren_schc_frag_rx *rx, unsigned w)
{
    unsigned mod = 1u << rx->p->m;
    if (!rx->p->ack_always) {
        return (int)w;
    }
    if (w == rx->window % mod) {
        return rx->window;
    }
    return rx->window && w == (rx->window - 1u) % mod ? (int)rx->window - 1 : -1;
}

static int take_tiles(struct wren_schc_frag_rx *rx, struct frag *f, unsigned a)
{
    const struct wren_schc_frag_profile *p = rx->p;
    unsigned k = (unsigned)(f->tbytes / p->tile), pos = p->window - 1u - f->fcn;
    if (f->fcn >= p->window) {
        return -SCHC_FRAG_ERR_WINDOW;
    }
    unsigned t = a * p->window + pos;
    if (k == 0 || f->tbytes % p->tile || pos + k > p->window || t + k > WREN_SCHC_MAX_TILES ||
        (size_t)(t + k) * p->tile > CONFIG_WREN_SCHC_MAX_PACKET) {
        return -SCHC_FRAG_ERR_TILE;
    }
    for (size_t i = 0; i < f->tbytes; i++) {
        rx->pkt[(size_t)t * p->tile + i] = (uint8_t)get_uint(&f->b, 8);
    }
    for (unsigned u = t; u < t + k; u++) {
        rx->have[u / 8] = (uint8_t)(rx->have[u / 8] | 1u << (u % 8));
    }
    rx->stale = 0;
    return 0;
}

static int take_all1(struct wren_schc_frag_rx *rx, struct frag *f, uint8_t *ack, size_t *ack_len)
{
    if (f->tbytes == 0 || f->tbytes > rx->p->tile) {
        return -SCHC_FRAG_ERR_TILE;
    }
    if (rx->stale) {
        return rx_abort(rx, -SCHC_FRAG_ERR_RCS, ack, ack_len); /* the same All-1 failed before */
    }
    for (size_t i = 0; i < f->tbytes; i++) {
        rx->lastbuf[i] = (uint8_t)get_uint(&f->b, 8);
    }
    rx->last = (uint8_t)f->tbytes;
    rx->rcs = f->rcs;
    rx->all1 = 1;
    rx->w_done = (uint8_t)f->w;
    if (try_complete(rx)) {
        *ack_len = ack_done(rx, ack);
        return 1;
    }
    if (rx->p->ack_always) {
        return rx_abort(rx, -SCHC_FRAG_ERR_RCS, ack, ack_len); /* every tile before it came */
    }
    unsigned fr = known_end(rx);
    rx->stale = first_gap(rx, fr) == fr; /* complete, yet the RCS failed */
    *ack_len = ack_missing(rx, -1, ack);
    return 0;
}

int wren_schc_frag_rx_input(struct wren_schc_frag_rx *rx, uint32_t now, const uint8_t *msg,
                            size_t len, uint8_t *ack, size_t *ack_len)
{
    struct frag f;
    *ack_len = 0;
    int rc = rx->p ? frag_parse(rx->p, msg, len, &f) : -SCHC_FRAG_ERR_STATE;
    if (rc < 0) {
        return rc;
    }
    /* our C = 1 ACK was lost: the same All-1 again (its RCS tells it from
     * the All-1 of a next packet whose other fragments were lost), or an
     * ACK REQ (no DTag in RFC 9011's profiles: one for a next packet whose
     * fragments were all lost is answered alike) */
    bool again = (f.all1 && !f.sender_abort && f.rcs == rx->rcs) || f.ack_req;
    if (rx->state == WREN_SCHC_FRAG_DONE && again) {
        *ack_len = ack_done(rx, ack);
        return 0;
    }
    if (rx->state != WREN_SCHC_FRAG_SENDING) {
        return -SCHC_FRAG_ERR_STATE;
    }
    if (f.sender_abort) {
        rx->state = WREN_SCHC_FRAG_ABORTED;
        return -SCHC_FRAG_ERR_ABORTED;
    }
    int a = abs_window(rx, f.w);
    if (a < 0 || (size_t)a * rx->p->window >= WREN_SCHC_MAX_TILES) {
        return -SCHC_FRAG_ERR_WINDOW;
    }
    rx->deadline = now + rx->p->inactivity_ms;
    if (f.ack_req) {
        *ack_len = rx->p->ack_always ? ack_window(rx, (unsigned)a, ack) : ack_missing(rx, a, ack);
        return 0;
    }
    if (f.all1) {
        return take_all1(rx, &f, ack, ack_len);
    }
    rc = take_tiles(rx, &f, (unsigned)a);
    if (rc < 0) {
        return rc;
    }
    if (rx->p->ack_always) {
        rx->window += (unsigned)a == rx->window;
        *ack_len = ack_window(rx, (unsigned)a, ack);
        return 0;
    }
    return rx->all1 && try_complete(rx) ? 1 : 0;
}
