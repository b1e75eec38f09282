/* The CoAP client: requests with tokens and message IDs, CON retransmission
 * (RFC 7252 4.2, 4.8), piggybacked and separate responses (5.2), Block2
 * followed to the end (RFC 7959 2.4), and a blocking call for application
 * threads. It shares the server's socket (port 5683): responses come in
 * there and the server's input hands them over. */
#include <errno.h>
#include <string.h>

#include "coap/coap_priv.h"
#include "coap/coap_tcp.h"
#include "core/node.h"
#include "core/thread.h"
#include "wire/ipv6.h"

enum { XS_WAIT_ACK = 0, XS_WAIT_RESP = 1 };

static int rebuild(struct wren_coap_xchg *x, int32_t block2, int32_t block1, bool new_mid);
static int32_t b1_value(const struct wren_coap_xchg *x, uint32_t num);

/* RFC 7252 4.8.2: MAX_TRANSMIT_WAIT, how long a NON (or a separate
 * response) is waited for: ACK_TIMEOUT * (2^(MAX_RETRANSMIT + 1) - 1) *
 * ACK_RANDOM_FACTOR */
static uint64_t max_transmit_wait_us(const struct wren_coap *c)
{
    return (uint64_t)c->ack_timeout_ms * ((2u << c->max_retransmit) - 1u) *
           c->ack_random_permille;
}

static void xchg_free(struct wren_coap_xchg *x)
{
    wren_timer_cancel(x->c->node, &x->timer);
    x->used = 0;
}

/* End exchange @p x with @p status (its slot is free before the callback,
 * which may start another request). */
static void xchg_end(struct wren_coap_xchg *x, int status, const struct coap_msg *m)
{
    wren_coap_resp_cb cb = x->cb;
    void *arg = x->arg;
    xchg_free(x);
    if (cb) {
        cb(x->c, status, m, arg);
    }
}

static int xchg_send(struct wren_coap_xchg *x)
{
    struct wren_coap *c = x->c;
    if (CONFIG_WREN_COAP_CLIENT_TCP && x->tcp) {
        return wren_coap_tcp_xchg_send(c, x); /* RFC 8323: on its connection */
    }
    if (wren_sock_udp_send(&c->sock, x->msg, x->len, &x->to) < 0) {
        c->stats.tx_drop++;
        return -ENOBUFS;
    }
    c->stats.tx++;
    return 0;
}

static void xchg_arm(struct wren_coap_xchg *x)
{
    struct wren_coap *c = x->c;
    if (x->mcast) {
        /* RFC 7252 8.2: answers come within the servers' leisure */
        wren_timer_set(c->node, &x->timer, (uint64_t)x->timeout_ms * 1000u);
        return;
    }
    if (x->non || x->tcp) {
        /* no retransmission: the response is waited for that long */
        wren_timer_set(c->node, &x->timer, max_transmit_wait_us(c));
        return;
    }
    wren_timer_set(c->node, &x->timer, (uint64_t)x->timeout_ms * 1000u);
}

static void xchg_timer(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_coap_xchg *x = arg;
    struct wren_coap *c = x->c;
    if (x->mcast) {
        xchg_end(x, 0, NULL); /* the wait is over: every answer has been delivered */
        return;
    }
    if (x->non || x->tcp || x->state == XS_WAIT_RESP || x->retx >= c->max_retransmit) {
        c->stats.cl_timeout++;
        if (x->obs_blk) {
            x->obs_blk = 0; /* that notification stays cut; the observation goes on */
            return;
        }
        xchg_end(x, -ETIMEDOUT, NULL);
        return;
    }
    /* RFC 7252 4.2: the same message again, the timeout doubled */
    x->retx++;
    x->timeout_ms *= 2;
    c->stats.cl_retx++;
    (void)xchg_send(x);
    xchg_arm(x);
}

/* Append the body's bytes [off, off + n) as the payload. */
static void body_slice(struct wren_coap_xchg *x, struct coap_builder *b, size_t off, size_t n)
{
    if (n == 0) {
        return;
    }
    size_t max;
    uint8_t *p = wren_coap_build_payload_start(b, &max);
    if (p == NULL || max < n) {
        b->err = -COAP_ERR_NOBUFS;
        return;
    }
    size_t got = x->source ? x->source(x->source_arg, off, p, n) : n;
    if (!x->source) {
        memcpy(p, x->body + off, n);
    }
    wren_coap_build_payload_done(b, got);
}

/* Build @p rq into x->msg with @p block2 (a Block2 value; < 0: none). */
static int build_request(struct wren_coap_xchg *x, const struct wren_coap_client_req *rq,
                         int32_t block2)
{
    struct coap_builder b;
    wren_coap_build_init(&b, x->msg, sizeof(x->msg), rq->non ? COAP_NON : COAP_CON, rq->method,
                         x->mid, x->token, sizeof(x->token));
    if (rq->observe) {
        wren_coap_build_opt_uint(&b, COAP_OPT_OBSERVE, COAP_OBSERVE_REGISTER);
    }
    if (rq->path) {
        wren_coap_build_opt_path(&b, COAP_OPT_URI_PATH, rq->path);
    }
    if (rq->cf >= 0) {
        wren_coap_build_opt_uint(&b, COAP_OPT_CONTENT_FORMAT, (uint32_t)rq->cf);
    }
    if (rq->query) {
        wren_coap_build_opt_query(&b, COAP_OPT_URI_QUERY, rq->query);
    }
    if (rq->accept >= 0) {
        wren_coap_build_opt_uint(&b, COAP_OPT_ACCEPT, (uint32_t)rq->accept);
    }
    if (block2 >= 0) {
        wren_coap_build_opt_uint(&b, COAP_OPT_BLOCK2, (uint32_t)block2);
    }
    if (!x->b1) {
        body_slice(x, &b, 0, rq->len);
    }
    int n = wren_coap_build_end(&b);
    if (n < 0) {
        return n == -COAP_ERR_NOBUFS ? -EMSGSIZE : -EINVAL;
    }
    x->len = (uint16_t)n;
    return 0;
}

static void xchg_start(struct wren_coap_xchg *x)
{
    struct wren_coap *c = x->c;
    x->state = XS_WAIT_ACK;
    x->retx = 0;
    /* RFC 7252 4.2: initial timeout random in [ACK_TIMEOUT, ACK_TIMEOUT * factor] */
    x->timeout_ms = wren_coap_ack_timeout(c);
    c->stats.cl_req++;
}

/* What a request may not be (RFC 7252 8.1: a multicast request is NON,
 * and nothing follows it). @return 0, -EINVAL or -ENOTSUP. */
static int request_check(const struct wren_sock_udp_ep *to, const struct wren_coap_client_req *rq,
                         int szx2, int szx1, bool mcast)
{
    if (to == NULL || to->port == 0 || rq->method < COAP_CODE_GET ||
        rq->method > COAP_CODE_DELETE || (rq->block2_size && szx2 < 0) ||
        (rq->block1_size && szx1 < 0) || (rq->len && !rq->payload && !rq->source)) {
        return -EINVAL;
    }
    if (rq->tcp && !CONFIG_WREN_COAP_CLIENT_TCP) {
        return -ENOTSUP;
    }
    if (mcast && (!rq->non || rq->tcp || rq->observe || rq->block1_size)) {
        return -EINVAL;
    }
    return 0;
}

/* A free exchange, or NULL (counted). */
static struct wren_coap_xchg *xchg_new(struct wren_coap *c)
{
#if CONFIG_WREN_NODE_MEM
    if (WREN_LAZY_GET(c->node, c, cl) == NULL) { /* the first request makes them */
        c->stats.no_mem++;
        return NULL;
    }
#endif
    for (unsigned i = 0; i < CONFIG_WREN_COAP_CLIENT_XCHG; i++) {
        if (!WREN_COAP_CL(c)->xchg[i].used) {
            return &WREN_COAP_CL(c)->xchg[i];
        }
    }
    c->stats.cl_busy++;
    return NULL;
}

/* Exchange @p x for @p rq: its message ID, token and body. */
static void xchg_setup(struct wren_coap *c, struct wren_coap_xchg *x,
                       const struct wren_sock_udp_ep *to, const struct wren_coap_client_req *rq,
                       wren_coap_resp_cb cb, void *arg)
{
    memset(x, 0, sizeof(*x));
    x->c = c;
    x->to = *to;
    x->cb = cb;
    x->arg = arg;
    x->non = rq->non && !rq->tcp;
    x->tcp = rq->tcp ? 1 : 0;
    x->observe = rq->observe && rq->method == COAP_CODE_GET;
    x->mid = c->next_mid++;
    uint32_t tok = wren_node_random(c->node);
    memcpy(x->token, &tok, sizeof(x->token));
    x->body = rq->payload;
    x->body_len = rq->len;
    x->source = rq->source;
    x->source_arg = rq->source_arg;
}

/* RFC 7959 2.5: a body beyond a message (with room for the options), or
 * one asked to, goes in Block1 blocks. @return 0, -EMSGSIZE, -EINVAL. */
static int plan_block1(struct wren_coap_xchg *x, const struct wren_coap_client_req *rq, int szx1,
                       bool mcast)
{
    int fit = wren_coap_block_szx_fit(CONFIG_WREN_COAP_CLIENT_MSG_MAX - 64);
    if (!rq->len || (!rq->block1_size && rq->len <= CONFIG_WREN_COAP_CLIENT_MSG_MAX - 64)) {
        return 0;
    }
    if (fit < 0) {
        return -EMSGSIZE;
    }
    if (mcast) {
        return -EINVAL; /* no Block1 to a group */
    }
    x->b1 = 1;
    x->b1_szx = (uint8_t)(rq->block1_size && szx1 < fit ? szx1 : fit);
    return 0;
}

int wren_coap_request(struct wren_coap *c, const struct wren_sock_udp_ep *to,
                      const struct wren_coap_client_req *rq, wren_coap_resp_cb cb, void *arg)
{
    int szx2 = wren_coap_block_szx_fit(rq->block2_size);
    int szx1 = wren_coap_block_szx_fit(rq->block1_size);
    bool mcast = to && wren_ipv6_addr_is_multicast(to->addr);
    int rc = request_check(to, rq, szx2, szx1, mcast);
    if (rc < 0) {
        return rc;
    }
    struct wren_coap_xchg *x = xchg_new(c);
    if (x == NULL) {
        return -EBUSY;
    }
    xchg_setup(c, x, to, rq, cb, arg);
    rc = plan_block1(x, rq, szx1, mcast);
    struct coap_block blk = { .num = 0, .szx = (uint8_t)(szx2 < 0 ? 0 : szx2) };
    if (rc == 0) {
        rc = build_request(x, rq, rq->block2_size ? wren_coap_block_encode(&blk) : -1);
    }
    if (rc == 0 && x->b1) {
        rc = rebuild(x, -1, b1_value(x, 0), false);
    }
    if (rc < 0) {
        return rc;
    }
    wren_timer_init(&x->timer, xchg_timer, x);
    x->used = 1;
    xchg_start(x);
    if (mcast) {
        x->mcast = 1;
        x->timeout_ms = rq->mc_wait_ms ? rq->mc_wait_ms : CONFIG_WREN_COAP_MCAST_WAIT_MS;
    }
    if (xchg_send(x) < 0) {
        x->used = 0;
        return -ENOBUFS;
    }
    xchg_arm(x);
    return (int)(x - WREN_COAP_CL(c)->xchg);
}

void wren_coap_client_stop(struct wren_coap *c)
{
    for (unsigned i = 0; i < CONFIG_WREN_COAP_CLIENT_XCHG && wren_coap_cl_made(c); i++) {
        if (WREN_COAP_CL(c)->xchg[i].used) {
            xchg_free(&WREN_COAP_CL(c)->xchg[i]);
        }
    }
}

static int resend(struct wren_coap_xchg *x);

/* The observation request again with Observe 1 (RFC 7641 3.6): over TCP
 * nothing answers an unwanted notification with RST, so the client says it. */
static int deregister(struct wren_coap_xchg *x)
{
    struct coap_msg old;
    if (wren_coap_parse(x->msg, x->len, &old) < 0) {
        return -ENOBUFS;
    }
    uint8_t buf[CONFIG_WREN_COAP_CLIENT_MSG_MAX];
    struct coap_builder b;
    wren_coap_build_init(&b, buf, sizeof(buf), old.type, old.code, x->mid, old.token, old.tkl);
    struct coap_opt_iter it;
    struct coap_opt o;
    wren_coap_opt_iter_init(&it, &old);
    while (wren_coap_opt_next(&it, &o) > 0) {
        if (o.num == COAP_OPT_OBSERVE) {
            wren_coap_build_opt_uint(&b, COAP_OPT_OBSERVE, COAP_OBSERVE_DEREGISTER);
        } else if (o.num != COAP_OPT_BLOCK2) {
            wren_coap_build_opt(&b, o.num, o.val, o.len);
        }
    }
    int n = wren_coap_build_end(&b);
    if (n < 0) {
        return -ENOBUFS;
    }
    memcpy(x->msg, buf, (size_t)n);
    x->len = (uint16_t)n;
    /* its response ends the exchange quietly */
    x->cb = NULL;
    x->observe = 0;
    x->observing = 0;
    return resend(x);
}

void wren_coap_cancel(struct wren_coap *c, int i)
{
    if (i >= 0 && i < CONFIG_WREN_COAP_CLIENT_XCHG && wren_coap_cl_made(c) &&
        WREN_COAP_CL(c)->xchg[i].used) {
        struct wren_coap_xchg *x = &WREN_COAP_CL(c)->xchg[i];
        if (x->tcp == 2 && x->observing && deregister(x) == 0) {
            return;
        }
        xchg_free(x);
    }
}

/* The request again with a new message ID (RFC 7959 2.4, 2.5): the same
 * options but Block2 / Block1 / Size1, which become @p block2 and @p block1
 * (< 0: none) and, with Block1 block 0, Size1 = the body's length; the body
 * block of @p block1 as payload (none without Block1). @return 0 or -ENOBUFS. */
static int rebuild(struct wren_coap_xchg *x, int32_t block2, int32_t block1, bool new_mid)
{
    struct wren_coap *c = x->c;
    struct coap_msg old;
    if (wren_coap_parse(x->msg, x->len, &old) < 0) {
        return -ENOBUFS;
    }
    uint8_t buf[CONFIG_WREN_COAP_CLIENT_MSG_MAX];
    struct coap_builder b;
    if (new_mid) {
        x->mid = c->next_mid++;
    }
    wren_coap_build_init(&b, buf, sizeof(buf), old.type, old.code, x->mid,
                         x->obs_blk ? x->blk_token : old.token, old.tkl);
    /* the replaced options in order, each put before the first option past it */
    struct {
        uint16_t num;
        int64_t v;
    } add[3] = { { COAP_OPT_BLOCK2, block2 },
                 { COAP_OPT_BLOCK1, block1 },
                 { COAP_OPT_SIZE1, block1 >= 0 && (block1 >> 4) == 0 ? (int64_t)x->body_len : -1 } };
    unsigned k = 0;
    struct coap_opt_iter it;
    struct coap_opt o;
    wren_coap_opt_iter_init(&it, &old);
    for (;;) {
        int more = wren_coap_opt_next(&it, &o);
        while (k < 3 && (more <= 0 || o.num > add[k].num)) {
            if (add[k].v >= 0) {
                wren_coap_build_opt_uint(&b, add[k].num, (uint32_t)add[k].v);
            }
            k++;
        }
        if (more <= 0) {
            break;
        }
        /* RFC 7959 3.4: a notification's later blocks are asked for without Observe */
        if (o.num != COAP_OPT_BLOCK2 && o.num != COAP_OPT_BLOCK1 && o.num != COAP_OPT_SIZE1 &&
            !(x->obs_blk && o.num == COAP_OPT_OBSERVE)) {
            wren_coap_build_opt(&b, o.num, o.val, o.len);
        }
    }
    if (block1 >= 0) {
        size_t bs = COAP_BLOCK_SIZE(block1 & 7), off = (size_t)(block1 >> 4) * bs;
        size_t n = x->body_len - off < bs ? x->body_len - off : bs;
        body_slice(x, &b, off, n);
    }
    int n = wren_coap_build_end(&b);
    if (n < 0) {
        return -ENOBUFS;
    }
    memcpy(x->msg, buf, (size_t)n);
    x->len = (uint16_t)n;
    return 0;
}

static int resend(struct wren_coap_xchg *x)
{
    wren_timer_cancel(x->c->node, &x->timer);
    xchg_start(x);
    if (xchg_send(x) < 0) {
        return -ENOBUFS;
    }
    xchg_arm(x);
    return 0;
}

/* The Block1 value of body block @p num. */
static int32_t b1_value(const struct wren_coap_xchg *x, uint32_t num)
{
    size_t bs = COAP_BLOCK_SIZE(x->b1_szx);
    struct coap_block blk = { .num = num, .szx = x->b1_szx,
                              .more = (size_t)(num + 1) * bs < x->body_len };
    return wren_coap_block_encode(&blk);
}

static bool from_peer(const struct wren_coap_xchg *x, const struct wren_sock_udp_ep *from)
{
    return x->to.port == from->port && memcmp(x->to.addr, from->addr, 16) == 0;
}

/* Whether @p m carries @p x's token (or the one of its notification's block requests). */
static bool tok_match(const struct wren_coap_xchg *x, const struct coap_msg *m)
{
    return m->tkl == sizeof(x->token) &&
           (memcmp(m->token, x->token, m->tkl) == 0 ||
            (x->obs_blk && memcmp(m->token, x->blk_token, m->tkl) == 0));
}

bool wren_coap_block2_more(const struct coap_msg *m, struct coap_block *blk)
{
    struct coap_opt o;
    uint32_t v;
    return COAP_CODE_CLASS(m->code) == 2 && wren_coap_opt_find(m, COAP_OPT_BLOCK2, &o) &&
           wren_coap_opt_uint(&o, &v) == 0 && wren_coap_block_decode(v, blk) == 0 &&
           blk->more && blk->num < COAP_BLOCK_NUM_MAX;
}

/* After a notification (or one of its blocks) @p m of observation @p x:
 * ask for its next block if Block2 says more follow (RFC 7959 3.4: by
 * GETs without Observe, with the observation's token), else stop asking. */
static void obs_next_block(struct wren_coap_xchg *x, const struct coap_msg *m)
{
    struct coap_block blk;
    if (!x->used) {
        return; /* cancelled by the callback */
    }
    if (wren_coap_block2_more(m, &blk)) {
        struct coap_block nb = { .num = blk.num + 1, .szx = blk.szx };
        if (!x->obs_blk) {
            /* a token of their own: a GET without Observe carrying the
             * observation's token would end it (RFC 7641 3.6) at servers
             * that do not look at Block2 first */
            uint32_t tok = wren_node_random(x->c->node);
            memcpy(x->blk_token, &tok, sizeof(x->blk_token));
        }
        x->obs_blk = 1;
        x->b1 = 0;
        if (rebuild(x, wren_coap_block_encode(&nb), -1, true) == 0 && resend(x) == 0) {
            return;
        }
    }
    if (x->obs_blk) {
        x->obs_blk = 0;
        wren_timer_cancel(x->c->node, &x->timer); /* no more retransmissions */
    }
}

/* A notification (or one of its blocks) for observation @p x: handed to
 * the callback, its next block asked for. @return false when @p m is
 * neither: no Observe (refused) or a non-2.xx ends the observation (RFC
 * 7641 3.2). */
static bool deliver_notification(struct wren_coap_xchg *x, const struct coap_msg *m)
{
    struct wren_coap *c = x->c;
    struct coap_opt o;
    uint32_t v;
    bool notif = COAP_CODE_CLASS(m->code) == 2 && wren_coap_opt_find(m, COAP_OPT_OBSERVE, &o) &&
                 wren_coap_opt_uint(&o, &v) == 0;
    if (!notif && !x->obs_blk) {
        return false;
    }
    if (notif) {
        uint64_t now = wren_node_now(c->node) / 1000u;
        /* RFC 7641 3.4: only a notification newer than the newest counts;
         * over TCP they come in order, the value is ignored (RFC 8323 7.1) */
        if (x->observing && !x->tcp && !wren_coap_observe_fresher(x->obs_seq, x->obs_ms, v, now)) {
            c->stats.cl_obs_stale++;
            return true;
        }
        if (!x->observing) {
            x->observing = 1;
            wren_timer_cancel(c->node, &x->timer); /* no more retransmissions */
        }
        x->obs_seq = v;
        x->obs_ms = (uint32_t)now;
        x->obs_blk = 0; /* a newer one replaces a notification still being fetched */
    }
    /* else a block of the latest notification: the rest follows (RFC 7959 3.4) */
    if (x->cb) {
        x->cb(c, 1, m, x->arg);
    }
    obs_next_block(x, m);
    return true;
}

/* RFC 7959 2.5: after a 2.31 Continue, the next body block, in the size the
 * server asked for. */
static void next_block1(struct wren_coap_xchg *x, const struct coap_msg *m)
{
    struct coap_opt o;
    uint32_t v;
    struct coap_block ack = { .num = x->b1_num, .szx = x->b1_szx };
    if (wren_coap_opt_find(m, COAP_OPT_BLOCK1, &o) && wren_coap_opt_uint(&o, &v) == 0 &&
        wren_coap_block_decode(v, &ack) == 0 && ack.szx < x->b1_szx) {
        x->b1_num = (x->b1_num + 1) << (x->b1_szx - ack.szx);
        x->b1_szx = ack.szx;
    } else {
        x->b1_num++;
    }
    if ((size_t)x->b1_num * COAP_BLOCK_SIZE(x->b1_szx) >= x->body_len ||
        x->b1_num > COAP_BLOCK_NUM_MAX || rebuild(x, -1, b1_value(x, x->b1_num), true) < 0 ||
        resend(x) < 0) {
        xchg_end(x, -ENOBUFS, NULL);
    }
}

/* A response for @p x: deliver it, and ask for the next block if there is one. */
static void deliver(struct wren_coap_xchg *x, const struct coap_msg *m)
{
    struct wren_coap *c = x->c;
    struct coap_block blk;
    c->stats.cl_resp++;
    if (x->observe && deliver_notification(x, m)) {
        return;
    }
    if (x->b1 && m->code == COAP_CODE_CONTINUE) {
        next_block1(x, m);
        return;
    }
    if (wren_coap_block2_more(m, &blk)) {
        if (x->cb) {
            x->cb(c, 1, m, x->arg);
        }
        if (!x->used) {
            return; /* cancelled by the callback */
        }
        struct coap_block nb = { .num = blk.num + 1, .szx = blk.szx };
        x->b1 = 0;
        if (rebuild(x, wren_coap_block_encode(&nb), -1, true) < 0 || resend(x) < 0) {
            xchg_end(x, -ENOBUFS, NULL);
        }
        return;
    }
    xchg_end(x, 0, m);
}

static void send_empty_ack(struct wren_coap *c, const struct coap_msg *m,
                           const struct wren_sock_udp_ep *from)
{
    uint8_t ack[COAP_HDR_LEN];
    struct coap_builder b;
    wren_coap_build_init(&b, ack, sizeof(ack), COAP_ACK, COAP_CODE_EMPTY, m->mid, NULL, 0);
    if (wren_sock_udp_send(&c->sock, ack, sizeof(ack), from) < 0) {
        c->stats.tx_drop++;
    } else {
        c->stats.tx++;
    }
}

const struct wren_sock_udp_ep *wren_coap_resp_from(const struct wren_coap *c)
{
    return c->resp_from;
}

/* RFC 7252 8.2: any server's answer to multicast request @p x, by token
 * (the exchange stays). @return whether it was one. */
static bool mcast_reply(struct wren_coap *c, struct wren_coap_xchg *x, const struct coap_msg *m,
                        const struct wren_sock_udp_ep *from)
{
    if (m->type == COAP_ACK || m->type == COAP_RST || !tok_match(x, m)) {
        return false;
    }
    c->stats.cl_resp++;
    if (m->type == COAP_CON) {
        send_empty_ack(c, m, from);
    }
    if (x->cb) {
        c->resp_from = from;
        x->cb(c, 1, m, x->arg);
        c->resp_from = NULL;
    }
    return true;
}

/* An ACK or RST of @p x's request: a RST ends it, an empty ACK says a
 * separate response follows (RFC 7252 5.2.2), else a piggybacked response.
 * @return whether it was one. */
static bool ack_reply(struct wren_coap *c, struct wren_coap_xchg *x, const struct coap_msg *m)
{
    if (m->mid != x->mid || x->non) {
        return false;
    }
    if (m->type == COAP_RST) {
        c->stats.cl_rst++;
        xchg_end(x, -ECONNREFUSED, NULL);
        return true;
    }
    if (m->code == COAP_CODE_EMPTY) {
        if (x->state == XS_WAIT_ACK) {
            c->stats.cl_separate++;
            x->state = XS_WAIT_RESP;
            wren_timer_set(c->node, &x->timer, max_transmit_wait_us(c));
        }
        return true;
    }
    if (!tok_match(x, m)) {
        return false;
    }
    deliver(x, m);
    return true;
}

bool wren_coap_client_input(struct wren_coap *c, const struct coap_msg *m,
                            const struct wren_sock_udp_ep *from)
{
    for (unsigned i = 0; i < CONFIG_WREN_COAP_CLIENT_XCHG && wren_coap_cl_made(c); i++) {
        struct wren_coap_xchg *x = &WREN_COAP_CL(c)->xchg[i];
        if (!x->used || x->tcp || !(x->mcast || from_peer(x, from))) {
            continue;
        }
        if (x->mcast) {
            if (mcast_reply(c, x, m, from)) {
                return true;
            }
        } else if (m->type == COAP_ACK || m->type == COAP_RST) {
            if (ack_reply(c, x, m)) {
                return true;
            }
        } else if (tok_match(x, m)) {
            /* a CON or NON response: matched by token (RFC 7252 5.3.2) */
            if (m->type == COAP_CON) {
                send_empty_ack(c, m, from);
            }
            c->resp_from = from;
            deliver(x, m);
            c->resp_from = NULL;
            return true;
        }
    }
    return false;
}

bool wren_coap_client_input_tcp(struct wren_coap *c, const struct coap_msg *m,
                                const struct wren_sock_udp_ep *from)
{
    for (unsigned i = 0; i < CONFIG_WREN_COAP_CLIENT_XCHG && wren_coap_cl_made(c); i++) {
        struct wren_coap_xchg *x = &WREN_COAP_CL(c)->xchg[i];
        if (x->used && x->tcp == 2 && from_peer(x, from) && tok_match(x, m)) {
            deliver(x, m);
            return true;
        }
    }
    return false;
}

void wren_coap_client_tcp_event(struct wren_coap *c, const struct wren_sock_udp_ep *to, int err)
{
    for (unsigned i = 0; i < CONFIG_WREN_COAP_CLIENT_XCHG && wren_coap_cl_made(c); i++) {
        struct wren_coap_xchg *x = &WREN_COAP_CL(c)->xchg[i];
        if (!x->used || !x->tcp || !from_peer(x, to)) {
            continue;
        }
        if (err < 0) {
            c->stats.cl_timeout += err == -ETIMEDOUT;
            xchg_end(x, err, NULL);
        } else if (x->tcp == 1 && xchg_send(x) < 0) {
            xchg_end(x, -ENOBUFS, NULL);
        }
    }
}

/* ---- blocking calls ------------------------------------------------------------ */

struct call_ctx {
    struct wren_thread *t;
    bool done;
    uint8_t *buf;
    size_t max;
    struct wren_coap_result *res;
};

static void call_cb(struct wren_coap *c, int status, const struct coap_msg *m, void *arg)
{
    (void)c;
    struct call_ctx *k = arg;
    if (m) {
        struct wren_coap_result *r = k->res;
        struct coap_opt o;
        uint32_t v = 0;
        r->code = m->code;
        r->cf = wren_coap_opt_find(m, COAP_OPT_CONTENT_FORMAT, &o) &&
                        wren_coap_opt_uint(&o, &v) == 0
                    ? (int32_t)v
                    : -1;
        size_t n = m->payload_len;
        if (n > k->max - r->len) {
            n = k->max - r->len;
            r->truncated = true;
        }
        if (n) {
            memcpy(k->buf + r->len, m->payload, n);
        }
        r->len += n;
    }
    if (status <= 0) {
        k->done = true;
        wren_thread_wakeup(k->t, status);
    }
}

int wren_coap_call(struct wren_coap *c, const struct wren_sock_udp_ep *to,
                   const struct wren_coap_client_req *rq, void *buf, size_t max,
                   struct wren_coap_result *res, uint64_t timeout_us)
{
    struct wren_thread *t = wren_thread_self(c->node);
    if (t == NULL) {
        return -EDEADLK;
    }
    *res = (struct wren_coap_result){ .cf = -1 };
    struct call_ctx k = { .t = t, .buf = buf, .max = max, .res = res };
    int x = wren_coap_request(c, to, rq, call_cb, &k);
    if (x < 0) {
        return x;
    }
    int rc = wren_thread_block(c->node, timeout_us);
    if (!k.done) {
        wren_coap_cancel(c, x); /* the callback must not reach this stack again */
    }
    return rc;
}
