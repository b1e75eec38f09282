/* SCHC fragmentation (RFC 8724 section 8) with RFC 9011's LoRaWAN profiles:
 * the sender (ACK-on-Error, 8.4.3.1; ACK-Always, 8.4.2.1). The receiver:
 * schc_frag_rx.c. Message layouts: schc_frag.h. */
#include "schc/schc_frag.h"
#include "schc/schc_frag_priv.h"

#include <string.h>

#define HOURS_12_MS (12u * 3600u * 1000u)

/* RFC 9011 5.6.2: both timers' default RECOMMENDED duration is 12 hours
 * (set them shorter for a lab run: SET WREN_NETOPT_SCHC_TIMERS). */
const struct wren_schc_frag_profile wren_schc_frag_lorawan_up = {
    .rule_id = 20, .m = 2, .n = 6, .window = 63, .tile = 10, .ack_always = 0,
    .max_ack_requests = 8, .retrans_ms = HOURS_12_MS, .inactivity_ms = HOURS_12_MS,
};
/* RFC 9011 5.6.3: inactivity 12 hours, retransmission INACTIVITY_TIMER /
 * (MAX_ACK_REQUESTS + 1). */
const struct wren_schc_frag_profile wren_schc_frag_lorawan_down = {
    .rule_id = 21, .m = 1, .n = 1, .window = 1, .tile = 40, .ack_always = 1,
    .max_ack_requests = 8, .retrans_ms = HOURS_12_MS / 9u, .inactivity_ms = HOURS_12_MS,
};

uint32_t wren_schc_crc32(const uint8_t *p, size_t len)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < len; i++) {
        c ^= p[i];
        for (unsigned k = 0; k < 8; k++) {
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
        }
    }
    return ~c;
}

size_t wren_schc_frag_msg(const struct wren_schc_frag_profile *p, uint8_t *out, size_t cap,
                          unsigned w, unsigned fcn, const uint32_t *rcs, const uint8_t *tiles,
                          size_t tlen)
{
    struct bits b = { .w = out, .end = cap * 8u };
    put_uint(&b, p->rule_id, 8);
    put_uint(&b, w, p->m);
    put_uint(&b, fcn, p->n);
    if (rcs) {
        put_uint(&b, *rcs, 32);
    }
    for (size_t i = 0; i < tlen; i++) {
        put_uint(&b, tiles[i], 8);
    }
    put_uint(&b, 0, (unsigned)((8u - (b.pos & 7)) & 7));
    return b.err ? 0 : b.pos / 8u;
}

static bool todo(const struct wren_schc_frag_tx *tx, unsigned t)
{
    return t < tx->ntiles && (tx->todo[t / 8] >> (t % 8) & 1);
}

static void set_todo(struct wren_schc_frag_tx *tx, unsigned t, bool v)
{
    tx->todo[t / 8] = (uint8_t)(v ? tx->todo[t / 8] | 1u << (t % 8) : tx->todo[t / 8] & ~(1u << (t % 8)));
}

int wren_schc_frag_tx_start(struct wren_schc_frag_tx *tx, const struct wren_schc_frag_profile *p,
                            const uint8_t *pkt, size_t len)
{
    memset(tx, 0, offsetof(struct wren_schc_frag_tx, pkt));
    size_t ntiles = (len + p->tile - 1) / p->tile;
    size_t windows = (ntiles + p->window - 1) / p->window;
    /* ACK-on-Error names a window by W alone: all of them must fit its M bits */
    if (len == 0 || len > CONFIG_WREN_SCHC_MAX_PACKET || p->tile < WREN_SCHC_MIN_TILE ||
        p->tile > WREN_SCHC_MAX_TILE || (!p->ack_always && windows > (1u << p->m))) {
        return -SCHC_FRAG_ERR_TOO_BIG;
    }
    tx->p = p;
    tx->len = (uint16_t)len;
    tx->ntiles = (uint16_t)ntiles;
    memcpy(tx->pkt, pkt, len);
    for (unsigned t = 0; t < ntiles; t++) {
        set_todo(tx, t, true);
    }
    tx->state = WREN_SCHC_FRAG_SENDING;
    return 0;
}

static unsigned last_window(const struct wren_schc_frag_tx *tx)
{
    return (tx->ntiles - 1u) / tx->p->window;
}

static int wait_ack(struct wren_schc_frag_tx *tx, uint32_t now, size_t n)
{
    tx->state = WREN_SCHC_FRAG_WAIT_ACK;
    tx->deadline = now + tx->p->retrans_ms;
    return (int)n;
}

/* The All-1: the last tile with the RCS. */
static int send_all1(struct wren_schc_frag_tx *tx, uint32_t now, uint8_t *out, size_t mtu)
{
    const struct wren_schc_frag_profile *p = tx->p;
    unsigned t = tx->ntiles - 1u;
    uint32_t rcs = wren_schc_crc32(tx->pkt, tx->len);
    size_t n = wren_schc_frag_msg(p, out, mtu, last_window(tx), (1u << p->n) - 1u, &rcs,
                                  tx->pkt + t * p->tile, tx->len - t * p->tile);
    if (n == 0) {
        return -SCHC_FRAG_ERR_TRUNCATED;
    }
    set_todo(tx, t, false);
    tx->next = tx->ntiles;
    return wait_ack(tx, now, n);
}

/* A regular fragment: tiles from tx->next on that still wait, in one
 * window, as many as fit. */
static int send_tiles(struct wren_schc_frag_tx *tx, uint32_t now, uint8_t *out, size_t mtu)
{
    const struct wren_schc_frag_profile *p = tx->p;
    unsigned t = tx->next, win = t / p->window;
    size_t room = mtu * 8u > 8u + p->m + p->n ? mtu * 8u - 8u - p->m - p->n : 0;
    unsigned fit = (unsigned)(room / (p->tile * 8u)), k = 0;
    while (k < fit && todo(tx, t + k) && t + k + 1 < tx->ntiles && (t + k) / p->window == win) {
        set_todo(tx, t + k, false);
        k++;
    }
    if (k == 0) {
        return -SCHC_FRAG_ERR_TRUNCATED;
    }
    size_t n = wren_schc_frag_msg(p, out, mtu, win % (1u << p->m), p->window - 1u - t % p->window,
                                  NULL, tx->pkt + t * p->tile, k * p->tile);
    tx->next = (uint16_t)(t + k);
    /* ACK-Always: the receiver answers each window */
    if (p->ack_always && tx->next % p->window == 0) {
        return wait_ack(tx, now, n);
    }
    return (int)n;
}

int wren_schc_frag_tx_next(struct wren_schc_frag_tx *tx, uint32_t now, uint8_t *out, size_t mtu)
{
    const struct wren_schc_frag_profile *p = tx->p;
    if (tx->state == WREN_SCHC_FRAG_ABORTED && tx->req_pending) {
        tx->req_pending = 0; /* Sender-Abort: an All-1 without RCS */
        size_t n = wren_schc_frag_msg(p, out, mtu, (1u << p->m) - 1u, (1u << p->n) - 1u, NULL,
                                      NULL, 0);
        return n ? (int)n : -SCHC_FRAG_ERR_TRUNCATED;
    }
    if (tx->state != WREN_SCHC_FRAG_SENDING) {
        return 0;
    }
    while (!tx->req_pending && tx->next < tx->ntiles && !todo(tx, tx->next)) {
        tx->next++;
    }
    if (!tx->req_pending && tx->next + 1u < tx->ntiles) {
        return send_tiles(tx, now, out, mtu);
    }
    if (!tx->req_pending && todo(tx, tx->ntiles - 1u)) {
        return send_all1(tx, now, out, mtu);
    }
    /* an ACK REQ: the window in flight (ACK-Always) or the last one */
    unsigned w = p->ack_always ? (tx->next ? tx->next - 1u : 0u) / p->window : last_window(tx);
    tx->req_pending = 0;
    size_t n = wren_schc_frag_msg(p, out, mtu, w % (1u << p->m), 0, NULL, NULL, 0);
    return n ? wait_ack(tx, now, n) : -SCHC_FRAG_ERR_TRUNCATED;
}

int wren_schc_frag_tx_timeout(struct wren_schc_frag_tx *tx, uint32_t now)
{
    (void)now;
    if (tx->state != WREN_SCHC_FRAG_WAIT_ACK) {
        return 0;
    }
    tx->req_pending = 1;
    if (tx->ack_reqs >= tx->p->max_ack_requests) {
        tx->state = WREN_SCHC_FRAG_ABORTED;
        return -SCHC_FRAG_ERR_GAVE_UP;
    }
    tx->ack_reqs++;
    tx->state = WREN_SCHC_FRAG_SENDING;
    return 0;
}

/* Mark the tiles of absolute window @p a the bitmap says are missing.
 * @return how many. */
static unsigned mark_missing(struct wren_schc_frag_tx *tx, unsigned a, const uint8_t *bm)
{
    unsigned missing = 0, win = tx->p->window, last = tx->ntiles - 1u;
    for (unsigned i = 0; i < win; i++) {
        unsigned t = a * win + i;
        /* RFC 8724 8.2.2.3: in the last window the right-most bit is the
         * All-1's tile; the bits between the regular tiles and it stand
         * for tiles never sent */
        if (a == last_window(tx)) {
            if (i + 1u == win) {
                t = last;
            } else if (t >= last) {
                continue;
            }
        }
        if (t < tx->ntiles && !(bm[i / 8] >> (i % 8) & 1)) {
            set_todo(tx, t, true);
            missing++;
        }
    }
    if (missing) {
        tx->next = (uint16_t)(a * tx->p->window);
    }
    return missing;
}

static int abort_tx(struct wren_schc_frag_tx *tx, int err)
{
    tx->state = WREN_SCHC_FRAG_ABORTED;
    tx->req_pending = err != -SCHC_FRAG_ERR_ABORTED; /* no Sender-Abort after a Receiver-Abort */
    return err;
}

int wren_schc_frag_tx_ack(struct wren_schc_frag_tx *tx, uint32_t now, const uint8_t *msg,
                          size_t len)
{
    (void)now;
    struct wren_schc_ack a;
    if (tx->p == NULL) {
        return -SCHC_FRAG_ERR_STATE; /* never started */
    }
    int rc = wren_schc_ack_parse(tx->p, msg, len, &a);
    if (rc < 0) {
        return rc;
    }
    if (tx->state != WREN_SCHC_FRAG_WAIT_ACK && tx->state != WREN_SCHC_FRAG_SENDING) {
        return -SCHC_FRAG_ERR_STATE;
    }
    if (a.abort) {
        return abort_tx(tx, -SCHC_FRAG_ERR_ABORTED);
    }
    unsigned mod = 1u << tx->p->m, lw = last_window(tx);
    unsigned cur = tx->p->ack_always ? (tx->next ? tx->next - 1u : 0u) / tx->p->window : lw;
    bool bad = tx->p->ack_always ? a.w != cur % mod : (a.c ? a.w != lw % mod : a.w > lw);
    if (bad) {
        if (!tx->p->ack_always || tx->state != WREN_SCHC_FRAG_WAIT_ACK) {
            return -SCHC_FRAG_ERR_WINDOW;
        }
        /* ACK-Always: the receiver still acknowledges the window before:
         * ours was lost, send it again */
        mark_missing(tx, cur, (const uint8_t[8]){ 0 });
        tx->state = WREN_SCHC_FRAG_SENDING;
        return 0;
    }
    tx->ack_reqs = 0;
    if (a.c) {
        if (cur != lw || todo(tx, tx->ntiles - 1u) || tx->next < tx->ntiles) {
            return -SCHC_FRAG_ERR_STATE; /* success before the All-1 went */
        }
        tx->state = WREN_SCHC_FRAG_DONE;
        return 1;
    }
    unsigned abs = tx->p->ack_always ? cur : a.w;
    if (mark_missing(tx, abs, a.bitmap) == 0 && abs == lw) {
        return abort_tx(tx, -SCHC_FRAG_ERR_RCS); /* all there, yet the RCS failed */
    }
    tx->state = WREN_SCHC_FRAG_SENDING;
    return 0;
}
