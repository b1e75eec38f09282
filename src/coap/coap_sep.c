/* Separate responses (RFC 7252 5.2.2): a handler defers its request, the
 * server acknowledges a CON with an empty ACK, and the response follows
 * later, CON (retransmitted like a request until acknowledged) for a CON
 * request and NON for a NON one. */
#include <errno.h>
#include <string.h>

#include "coap/coap_priv.h"
#include "core/node.h"

#if CONFIG_WREN_COAP_SEPARATE

static void sep_free(struct wren_coap_sep *s)
{
    wren_timer_cancel(s->c->node, &s->timer);
    s->state = 0;
}

static void sep_timer(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_coap_sep *s = arg;
    struct wren_coap *c = s->c;
    if (s->state == 3) {
        (void)wren_coap_send(c, s->msg, s->len, &s->ep); /* the leisure is over */
        s->state = 0;
        return;
    }
    if (s->retx >= c->max_retransmit) {
        c->stats.sep_timeout++;
        sep_free(s);
        return;
    }
    /* RFC 7252 4.2: the same message again, the timeout doubled */
    s->retx++;
    s->timeout_ms *= 2;
    c->stats.sep_retx++;
    (void)wren_coap_send(c, s->msg, s->len, &s->ep);
    wren_timer_set(c->node, &s->timer, (uint64_t)s->timeout_ms * 1000u);
}

/* A free slot taken for @p to in @p state (its timer ready), or NULL. */
static struct wren_coap_sep *sep_claim(struct wren_coap *c, const struct wren_sock_udp_ep *to,
                                       uint8_t state)
{
    for (unsigned i = 0; i < CONFIG_WREN_COAP_SEPARATE; i++) {
        struct wren_coap_sep *s = &WREN_COAP_SRV(c)->sep[i];
        if (s->state == 0) {
            *s = (struct wren_coap_sep){ .c = c, .ep = *to, .state = state };
            wren_timer_init(&s->timer, sep_timer, s);
            return s;
        }
    }
    return NULL;
}

int wren_coap_resp_defer(struct wren_coap *c, const struct wren_coap_req *req)
{
    if (req == NULL || req != c->cur_req) {
        return -EINVAL;
    }
    struct wren_coap_sep *s = sep_claim(c, &req->remote, 1);
    if (s == NULL) {
        c->stats.sep_full++;
        return -ENOSPC;
    }
    s->tkl = req->msg->tkl;
    s->con = req->msg->type == COAP_CON;
    s->block2 = req->block2;
    memcpy(s->token, req->msg->token, req->msg->tkl);
    c->deferred = 1;
    c->stats.sep_defer++;
    return (int)(s - WREN_COAP_SRV(c)->sep);
}

/* The separate response of slot @p s into s->msg: @p payload's block @p blk
 * (NULL: all of it). @return its length, -EMSGSIZE beyond the slot, -EINVAL
 * for a block beyond the end. */
static int sep_build(struct wren_coap_sep *s, uint16_t mid, uint8_t code, int32_t cf,
                     const uint8_t *payload, size_t len, struct coap_block *blk)
{
    struct coap_builder b;
    wren_coap_build_init(&b, s->msg, sizeof(s->msg), s->con ? COAP_CON : COAP_NON, code, mid,
                         s->token, s->tkl);
    if (cf >= 0) {
        wren_coap_build_opt_uint(&b, COAP_OPT_CONTENT_FORMAT, (uint32_t)cf);
    }
    size_t off = 0, n = len;
    if (blk) {
        off = (size_t)blk->num << (blk->szx + 4);
        if (off > 0 && off >= len) {
            return -EINVAL;
        }
        n = len - off < COAP_BLOCK_SIZE(blk->szx) ? len - off : COAP_BLOCK_SIZE(blk->szx);
        blk->more = off + n < len;
        wren_coap_build_opt_uint(&b, COAP_OPT_BLOCK2, (uint32_t)wren_coap_block_encode(blk));
        if (blk->num == 0) {
            wren_coap_build_opt_uint(&b, COAP_OPT_SIZE2, (uint32_t)len);
        }
    }
    wren_coap_build_payload(&b, payload + off, n);
    int r = wren_coap_build_end(&b);
    return r < 0 ? -EMSGSIZE : r;
}

int wren_coap_resp_separate(struct wren_coap *c, int h, uint8_t code, int32_t cf,
                            const void *payload, size_t len)
{
    if (h < 0 || h >= CONFIG_WREN_COAP_SEPARATE || !wren_coap_srv_made(c) ||
        WREN_COAP_SRV(c)->sep[h].state != 1) {
        return -EINVAL;
    }
    struct wren_coap_sep *s = &WREN_COAP_SRV(c)->sep[h];
    uint16_t mid = c->next_mid;
    bool ok = COAP_CODE_CLASS(code) == 2;
    struct coap_block blk = { .szx = 6 };
    if (ok && s->block2) {
        (void)wren_coap_block_decode(s->block2 - 1, &blk);
    }
    int n = sep_build(s, mid, code, cf, payload, len, ok && s->block2 ? &blk : NULL);
    /* beyond the slot: the largest block that fits (RFC 7959 2.4) */
    while (n == -EMSGSIZE && ok && blk.szx > 0) {
        blk.num <<= 1; /* same offset, smaller blocks */
        blk.szx--;
        n = sep_build(s, mid, code, cf, payload, len, &blk);
    }
    if (n < 0) {
        return n;
    }
    c->next_mid++;
    s->mid = mid;
    s->len = (uint16_t)n;
    c->stats.sep_sent++;
    int rc = wren_coap_send(c, s->msg, s->len, &s->ep);
    if (!s->con) {
        s->state = 0;
        return rc;
    }
    /* a CON whose first send failed is retransmitted like a lost one */
    s->state = 2;
    s->retx = 0;
    s->timeout_ms = wren_coap_ack_timeout(c);
    wren_timer_set(c->node, &s->timer, (uint64_t)s->timeout_ms * 1000u);
    return 0;
}

int wren_coap_sep_leisure(struct wren_coap *c, const uint8_t *msg, size_t len,
                          const struct wren_sock_udp_ep *to)
{
    if (len > CONFIG_WREN_COAP_SEPARATE_BYTES) {
        return -EMSGSIZE;
    }
    struct wren_coap_sep *s = sep_claim(c, to, 3);
    if (s == NULL) {
        return -ENOSPC;
    }
    s->len = (uint16_t)len;
    memcpy(s->msg, msg, len);
    wren_timer_set(c->node, &s->timer,
                   (uint64_t)wren_node_random_below(c->node, CONFIG_WREN_COAP_LEISURE_MS + 1) *
                       1000u);
    return 0;
}

bool wren_coap_sep_input(struct wren_coap *c, const struct coap_msg *m,
                         const struct wren_sock_udp_ep *from)
{
    for (unsigned i = 0; i < CONFIG_WREN_COAP_SEPARATE; i++) {
        struct wren_coap_sep *s = &WREN_COAP_SRV(c)->sep[i];
        if (s->state == 2 && s->mid == m->mid && s->ep.port == from->port &&
            memcmp(s->ep.addr, from->addr, 16) == 0) {
            if (m->type == COAP_RST) {
                c->stats.sep_rst++;
            }
            sep_free(s);
            return true;
        }
    }
    return false;
}

void wren_coap_sep_stop(struct wren_coap *c)
{
    for (unsigned i = 0; i < CONFIG_WREN_COAP_SEPARATE && wren_coap_srv_made(c); i++) {
        if (WREN_COAP_SRV(c)->sep[i].state) {
            sep_free(&WREN_COAP_SRV(c)->sep[i]);
        }
    }
}

#else /* the feature left out: nothing is deferred, nothing waits */

int wren_coap_resp_defer(struct wren_coap *c, const struct wren_coap_req *req)
{
    (void)c;
    (void)req;
    return -ENOSPC;
}

int wren_coap_resp_separate(struct wren_coap *c, int h, uint8_t code, int32_t cf,
                            const void *payload, size_t len)
{
    (void)c;
    (void)h;
    (void)code;
    (void)cf;
    (void)payload;
    (void)len;
    return -EINVAL;
}

int wren_coap_sep_leisure(struct wren_coap *c, const uint8_t *msg, size_t len,
                          const struct wren_sock_udp_ep *to)
{
    (void)c;
    (void)msg;
    (void)len;
    (void)to;
    return -ENOSPC;
}

bool wren_coap_sep_input(struct wren_coap *c, const struct coap_msg *m,
                         const struct wren_sock_udp_ep *from)
{
    (void)c;
    (void)m;
    (void)from;
    return false;
}

void wren_coap_sep_stop(struct wren_coap *c)
{
    (void)c;
}

#endif
