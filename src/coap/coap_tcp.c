/* CoAP over TCP (RFC 8323): connections on sock_tcp, message framing from
 * the stream, signals, requests through the UDP server's request handling,
 * observers over TCP, and the transport of the client's TCP exchanges. */
#include "coap/coap_tcp.h"

#include <errno.h>
#include <string.h>

#include "coap/coap_priv.h"
#include "core/node.h"
#include "ipv6/addr_str.h"
#include "net/netopt.h"
#include "pktbuf/pktbuf.h"
#include "shell/shell.h"
#include "tcp/tcp.h"

enum { CT_FREE = 0, CT_CONNECTING, CT_OPEN, CT_READY };

/* The largest message the server writes: a response of the UDP server's
 * largest size with the longest TCP header. */
#define RESP_MAX (CONFIG_WREN_COAP_MSG_MAX + COAP_TCP_HDR_MAX)

static unsigned conn_idx(const struct wren_coap_tcp_conn *tc)
{
    return (unsigned)(tc - tc->t->c->conns);
}

static void conn_timer(struct wren_timer *tm, void *arg);

/* Whether the connection and observer tables are made (always without
 * CONFIG_WREN_NODE_MEM): a node never connected to has none. */
static bool conns_made(const struct wren_coap_tcp *t)
{
#if CONFIG_WREN_NODE_MEM
    return t->c != NULL;
#else
    (void)t;
    return true;
#endif
}

/* The tables set up in @p t->c. */
static void conns_init(struct wren_coap_tcp *t)
{
    for (unsigned i = 0; i < WREN_COAP_TCP_NCONN; i++) {
        t->c->conns[i].t = t;
        wren_timer_init(&t->c->conns[i].timer, conn_timer, &t->c->conns[i]);
#if !CONFIG_WREN_NODE_MEM
        t->c->conns[i].sock = &t->socks[i];
#endif
    }
}

/* The tables, made by the first connection; NULL: no memory. */
static struct wren_coap_tcp_conns *conns_of(struct wren_coap_tcp *t)
{
#if CONFIG_WREN_NODE_MEM
    if (t->c == NULL && WREN_LAZY_GET(t->node, t, c) != NULL) {
        conns_init(t);
    }
#endif
    return t->c;
}

static size_t writable(const struct wren_coap_tcp_conn *tc)
{
    return wren_tcp_writable(&tc->sock->conn);
}

/* Queue a whole message on the connection (never a part of one). */
static int conn_write(struct wren_coap_tcp_conn *tc, const uint8_t *msg, size_t len)
{
    struct wren_coap_tcp *t = tc->t;
    if (tc->state < CT_OPEN || writable(tc) < len ||
        wren_sock_tcp_write(tc->sock, msg, len, 0) != (ssize_t)len) {
        t->stats.tx_drop++;
        return -ENOBUFS;
    }
    t->stats.tx++;
    return 0;
}

/* A signal (RFC 8323 5) with option @p opt (0: none; @p empty: no value,
 * else uint @p v) and a diagnostic payload @p diag (NULL: none). */
static int send_signal(struct wren_coap_tcp_conn *tc, uint8_t code, const uint8_t *token,
                       uint8_t tkl, uint16_t opt, bool empty, uint32_t v, const char *diag)
{
    uint8_t b[COAP_TCP_HDR_MAX + COAP_TOKEN_MAX + 8 + 48];
    struct coap_builder bld;
    size_t off = COAP_TCP_HDR_MAX - COAP_HDR_LEN;
    wren_coap_build_init(&bld, b + off, sizeof(b) - off, COAP_CON, code, 0, token, tkl);
    if (opt && empty) {
        wren_coap_build_opt(&bld, opt, NULL, 0);
    } else if (opt) {
        wren_coap_build_opt_uint(&bld, opt, v);
    }
    if (diag) {
        wren_coap_build_payload(&bld, diag, strlen(diag));
    }
    int n = wren_coap_build_end(&bld);
    int at = n < 0 ? n : wren_coap_tcp_from_udp(b, off, (size_t)n);
    if (at < 0) {
        tc->t->stats.tx_drop++;
        return -ENOBUFS;
    }
    return conn_write(tc, b + at, off + (size_t)n - (size_t)at);
}

static int send_csm(struct wren_coap_tcp_conn *tc)
{
    /* RFC 8323 5.3: Max-Message-Size, then Block-Wise-Transfer (<= 1152:
     * no BERT offered) */
    uint8_t b[COAP_TCP_HDR_MAX + 12];
    struct coap_builder bld;
    size_t off = COAP_TCP_HDR_MAX - COAP_HDR_LEN;
    wren_coap_build_init(&bld, b + off, sizeof(b) - off, COAP_CON, COAP_CODE_CSM, 0, NULL, 0);
    wren_coap_build_opt_uint(&bld, COAP_SIG_CSM_MAX_MESSAGE_SIZE, CONFIG_WREN_COAP_MSG_MAX);
    wren_coap_build_opt(&bld, COAP_SIG_CSM_BLOCK_WISE, NULL, 0);
    int n = wren_coap_build_end(&bld);
    int at = n < 0 ? n : wren_coap_tcp_from_udp(b, off, (size_t)n);
    if (at < 0) {
        return -ENOBUFS;
    }
    return conn_write(tc, b + at, off + (size_t)n - (size_t)at);
}

/* ---- connections ------------------------------------------------------------------ */

static void obs_free_conn(struct wren_coap_tcp *t, unsigned idx)
{
    for (unsigned i = 0; i < CONFIG_WREN_COAP_TCP_OBSERVERS; i++) {
        struct wren_coap_tcp_obs *o = &t->c->obs[i];
        if (o->used && o->conn == idx) {
            o->used = 0;
            t->stats.obs_remove++; /* RFC 8323 7.4: gone with the connection */
        }
    }
}

/* The connection is over: its observers and client exchanges end, the
 * socket closes (queued data, an Abort or the responses, still go out). */
static void conn_close(struct wren_coap_tcp_conn *tc, int err)
{
    struct wren_coap_tcp *t = tc->t;
    if (tc->state == CT_FREE) {
        return;
    }
    bool client = tc->client;
    tc->state = CT_FREE;
    wren_timer_cancel(t->node, &tc->timer);
    t->stats.conn_close++;
    obs_free_conn(t, conn_idx(tc));
    wren_sock_tcp_disconnect(tc->sock);
    if (CONFIG_WREN_COAP_CLIENT && client) {
        wren_coap_client_tcp_event(t->coap, &tc->peer, err);
    }
}

/* RFC 8323 5.6: an Abort with a diagnostic, then the connection is closed. */
static void conn_abort(struct wren_coap_tcp_conn *tc, const char *diag, int32_t bad_csm)
{
    tc->t->stats.tx_abort++;
    (void)send_signal(tc, COAP_CODE_ABORT, NULL, 0, bad_csm >= 0 ? COAP_SIG_ABORT_BAD_CSM_OPTION : 0,
                      false, (uint32_t)(bad_csm >= 0 ? bad_csm : 0), diag);
    conn_close(tc, -ECONNABORTED);
}

/* Whether an observer or a client exchange uses the connection. */
static bool conn_busy(const struct wren_coap_tcp_conn *tc)
{
    const struct wren_coap_tcp *t = tc->t;
    for (unsigned i = 0; i < CONFIG_WREN_COAP_TCP_OBSERVERS; i++) {
        if (t->c->obs[i].used && t->c->obs[i].conn == conn_idx(tc)) {
            return true;
        }
    }
    for (unsigned i = 0; tc->client && i < CONFIG_WREN_COAP_CLIENT_XCHG &&
                         wren_coap_cl_made(t->coap); i++) {
        const struct wren_coap_xchg *x = &WREN_COAP_CL(t->coap)->xchg[i];
        if (x->used && x->tcp && x->to.port == tc->peer.port &&
            memcmp(x->to.addr, tc->peer.addr, 16) == 0) {
            return true;
        }
    }
    return false;
}

/* The CSM did not come in time, or the connection may be idle. */
static void conn_timer(struct wren_timer *tm, void *arg)
{
    (void)tm;
    struct wren_coap_tcp_conn *tc = arg;
    struct wren_coap_tcp *t = tc->t;
    if (tc->state == CT_OPEN) {
        t->stats.conn_csm_timeout++;
        conn_abort(tc, "no CSM", -1);
        return;
    }
    if (tc->state != CT_READY || CONFIG_WREN_COAP_TCP_IDLE_MS == 0) {
        return;
    }
    uint64_t idle = (uint64_t)CONFIG_WREN_COAP_TCP_IDLE_MS * 1000u;
    uint64_t since = wren_node_now(t->node) - tc->last_rx_us;
    if (since >= idle && !conn_busy(tc)) {
        t->stats.conn_idle++;
        (void)send_signal(tc, COAP_CODE_RELEASE, NULL, 0, 0, false, 0, "idle");
        conn_close(tc, -ECONNRESET);
        return;
    }
    wren_timer_set(t->node, &tc->timer, since >= idle ? idle : idle - since);
}

static void conn_start(struct wren_coap_tcp_conn *tc, uint8_t state)
{
    tc->state = state;
    tc->last_rx_us = wren_node_now(tc->t->node);
    if (state == CT_OPEN) {
        wren_timer_set(tc->t->node, &tc->timer,
                       (uint64_t)CONFIG_WREN_COAP_TCP_CSM_TIMEOUT_MS * 1000u);
    }
    tc->peer_mms = COAP_TCP_MMS_BASE;
    tc->peer_bwt = 0;
    tc->have = 0;
}

/* ---- observers over TCP (RFC 7641, RFC 8323 7) ------------------------------------- */

static int32_t obs_hook(void *arg, const struct wren_coap_resource *r, const struct coap_msg *m,
                        bool reg, bool unreg)
{
    struct wren_coap_tcp_conn *tc = arg;
    struct wren_coap_tcp *t = tc->t;
    unsigned idx = conn_idx(tc);
    struct wren_coap_tcp_obs *o = NULL;
    for (unsigned i = 0; i < CONFIG_WREN_COAP_TCP_OBSERVERS; i++) {
        struct wren_coap_tcp_obs *e = &t->c->obs[i];
        bool mine = e->used && e->conn == idx && e->tkl == m->tkl &&
                    memcmp(e->token, m->token, m->tkl) == 0;
        if (reg && mine) {
            o = e; /* RFC 7641 4.1: one entry per client and token */
            break;
        }
        if (reg && !e->used && !o) {
            o = e;
        }
        if (!reg && unreg && mine) {
            e->used = 0;
            t->stats.obs_remove++;
        }
    }
    if (!reg) {
        return -1;
    }
    if (o == NULL) {
        t->stats.obs_full++;
        return -1;
    }
    if (!o->used) {
        t->stats.obs_add++;
        *o = (struct wren_coap_tcp_obs){ .conn = (uint8_t)idx, .used = 1, .tkl = m->tkl };
        memcpy(o->token, m->token, m->tkl);
    }
    struct coap_opt a;
    uint32_t v;
    bool acc = wren_coap_opt_find(m, COAP_OPT_ACCEPT, &a) && wren_coap_opt_uint(&a, &v) == 0;
    o->res = r;
    o->accept = acc ? (int16_t)v : -1;
    o->dirty = 0;
    o->seq = (o->seq + 1) & COAP_OBSERVE_MASK; /* RFC 7641 4.4: newer than the last */
    return (int32_t)o->seq;
}

/* Send @p o its resource's state, now if the send buffer has room for the
 * largest message, else when it has (EV_SEND). */
static void obs_send(struct wren_coap_tcp *t, struct wren_coap_tcp_obs *o)
{
    struct wren_coap *c = t->coap;
    struct wren_coap_tcp_conn *tc = &t->c->conns[o->conn];
    if (tc->state < CT_OPEN || writable(tc) < RESP_MAX) {
        if (!o->dirty) {
            t->stats.obs_deferred++;
        }
        o->dirty = 1;
        return;
    }
    const struct wren_coap_resource *r = o->res;
    size_t room = CONFIG_WREN_COAP_MSG_MAX - WREN_COAP_RESP_HDR_ROOM;
    struct wren_coap_resp resp = { .code = COAP_CODE_CONTENT,
                                   .cf = r->cfs && o->accept >= 0 ? o->accept : r->cf,
                                   .buf = WREN_COAP_SRV(c)->tx + WREN_COAP_RESP_HDR_ROOM, .max = room };
    struct coap_msg get = { .type = COAP_CON, .code = COAP_CODE_GET, .tkl = o->tkl };
    memcpy(get.token, o->token, o->tkl);
    struct wren_coap_req req = { .msg = &get, .remote = tc->peer, .method = COAP_CODE_GET,
                                 .cf = -1, .accept = o->accept, .notify = true };
    c->in_handler = 1;
    r->handler(c, &req, &resp, r->arg);
    c->in_handler = 0;
    bool ok = COAP_CODE_CLASS(resp.code) == 2;
    if (!ok) {
        resp.pos = 0; /* RFC 7641 3.2: the last notification */
    }
    o->seq = (o->seq + 1) & COAP_OBSERVE_MASK;
    struct wren_coap_resp_meta mt = { .type = COAP_CON, .token = o->token, .tkl = o->tkl,
                                      .get = true, .observe = ok ? (int32_t)o->seq : -1 };
    if (!wren_coap_notify_fit(&resp, &mt, room)) {
        ok = false;
        mt.observe = -1;
    }
    size_t len;
    int at = wren_coap_place_response(c, &resp, &mt, &len);
    int st = wren_coap_tcp_from_udp(WREN_COAP_SRV(c)->tx, (size_t)at, len);
    o->dirty = 0;
    if (st >= 0 && conn_write(tc, WREN_COAP_SRV(c)->tx + st, (size_t)at + len - (size_t)st) == 0) {
        t->stats.obs_notify++;
    }
    if (!ok) {
        o->used = 0;
        t->stats.obs_remove++;
    }
}

/* The UDP server's hook: @p r changed (NULL: send what was deferred). */
static int notify_hook(void *arg, const struct wren_coap_resource *r)
{
    struct wren_coap_tcp *t = arg;
    int n = 0;
    for (unsigned i = 0; i < CONFIG_WREN_COAP_TCP_OBSERVERS && conns_made(t); i++) {
        struct wren_coap_tcp_obs *o = &t->c->obs[i];
        if (!o->used || (r && o->res != r) || (!r && !o->dirty)) {
            continue;
        }
        n += r != NULL;
        if (t->coap->in_handler || t->in_rx) {
            o->dirty = 1; /* WREN_COAP_SRV(c)->tx is in use: after the response */
            t->coap->notify_deferred = 1;
            continue;
        }
        obs_send(t, o);
    }
    return n;
}

/* ---- messages ------------------------------------------------------------------------ */

/* Run @p m and put its response (TCP format) in WREN_COAP_SRV(c)->tx. @return its offset
 * and *n, or < 0. */
static int run_request(struct wren_coap_tcp_conn *tc, const struct coap_msg *m, size_t *n)
{
    struct wren_coap *c = tc->t->coap;
    size_t len;
    int at = wren_coap_handle_request(c, m, &tc->peer, &len, 0, obs_hook, tc);
    int st = at < 0 ? at : wren_coap_tcp_from_udp(WREN_COAP_SRV(c)->tx, (size_t)at, len);
    if (st >= 0) {
        *n = (size_t)at + len - (size_t)st;
    }
    return st;
}

/* A GET whose response is beyond the peer's Max-Message-Size: asked again
 * for the same bytes in blocks that fit (RFC 7959 2.4: the server picks a
 * size no larger than asked). @p over is the response's bytes besides its
 * payload. @return the response's offset in WREN_COAP_SRV(c)->tx and *n, or < 0. */
static int rerun_in_blocks(struct wren_coap_tcp_conn *tc, const struct coap_msg *m, size_t over,
                           size_t *n)
{
    /* room for the Block2 and Size2 options the smaller block adds */
    int szx = over + 12 < tc->peer_mms ? wren_coap_block_szx_fit(tc->peer_mms - over - 12) : -1;
    if (szx < 0 || m->code != COAP_CODE_GET) {
        return -1;
    }
    struct coap_block blk = { .num = 0, .szx = (uint8_t)szx };
    struct coap_opt o;
    uint32_t v;
    struct coap_block asked;
    if (wren_coap_opt_find(m, COAP_OPT_BLOCK2, &o) && wren_coap_opt_uint(&o, &v) == 0 &&
        wren_coap_block_decode(v, &asked) == 0) {
        if (asked.szx <= szx) {
            return -1; /* it asked for small blocks already */
        }
        blk.num = asked.num << (asked.szx - szx);
    }
    uint8_t buf[COAP_HDR_LEN + COAP_TOKEN_MAX + 256];
    struct coap_builder b;
    wren_coap_build_init(&b, buf, sizeof(buf), COAP_CON, m->code, 0, m->token, m->tkl);
    struct coap_opt_iter it;
    bool put = false;
    int more;
    wren_coap_opt_iter_init(&it, m);
    do {
        more = wren_coap_opt_next(&it, &o);
        if (!put && (more <= 0 || o.num > COAP_OPT_BLOCK2)) {
            wren_coap_build_opt_uint(&b, COAP_OPT_BLOCK2, (uint32_t)wren_coap_block_encode(&blk));
            put = true;
        }
        if (more > 0 && o.num != COAP_OPT_BLOCK2) {
            wren_coap_build_opt(&b, o.num, o.val, o.len);
        }
    } while (more > 0);
    struct coap_msg again;
    int len = wren_coap_build_end(&b);
    if (len < 0 || wren_coap_parse(buf, (size_t)len, &again) < 0) {
        return -1;
    }
    return run_request(tc, &again, n);
}

static void request_input(struct wren_coap_tcp_conn *tc, const struct coap_msg *m)
{
    struct wren_coap_tcp *t = tc->t;
    struct wren_coap *c = t->coap;
    t->stats.req++;
    size_t n;
    int st = run_request(tc, m, &n);
    if (st >= 0 && n > tc->peer_mms) {
        /* RFC 8323 5.3.1: never beyond what the peer takes */
        struct coap_msg r;
        size_t over = n;
        if (wren_coap_tcp_parse(WREN_COAP_SRV(c)->tx + st, n, &r) == 0) {
            over -= r.payload_len;
        }
        t->stats.tx_reblock++;
        st = rerun_in_blocks(tc, m, over, &n);
        if (st >= 0 && n > tc->peer_mms) {
            st = -1;
        }
        if (st < 0) {
            t->stats.tx_too_big++;
            (void)send_signal(tc, COAP_CODE_INTERNAL_ERROR, m->token, m->tkl, 0, false, 0,
                              NULL);
            return;
        }
    }
    if (st < 0) {
        t->stats.tx_drop++;
        return;
    }
    (void)conn_write(tc, WREN_COAP_SRV(c)->tx + st, n);
}

static void signal_input(struct wren_coap_tcp_conn *tc, const struct coap_msg *m)
{
    struct wren_coap_tcp *t = tc->t;
    struct coap_tcp_signal s;
    int rc = wren_coap_tcp_signal_parse(m, &s);
    if (rc < 0) {
        /* RFC 8323 5.2: an unknown critical option aborts (5.3: naming a
         * CSM's in Bad-CSM-Option) */
        t->stats.rx_sig_critical++;
        conn_abort(tc, "unknown critical option",
                   m->code == COAP_CODE_CSM ? (int32_t)s.bad_option : -1);
        return;
    }
    switch (m->code) {
    case COAP_CODE_CSM:
        t->stats.rx_csm++;
        if (s.has_mms) {
            tc->peer_mms = s.max_message_size;
        }
        tc->peer_bwt |= s.block_wise;
        if (tc->state == CT_OPEN) {
            tc->state = CT_READY;
            if (CONFIG_WREN_COAP_TCP_IDLE_MS) {
                wren_timer_set(t->node, &tc->timer,
                               (uint64_t)CONFIG_WREN_COAP_TCP_IDLE_MS * 1000u);
            } else {
                wren_timer_cancel(t->node, &tc->timer);
            }
        }
        break;
    case COAP_CODE_PING:
        /* RFC 8323 5.4: same token; requests are handled as they come, so
         * custody of all before it can be given at once */
        t->stats.rx_ping++;
        (void)send_signal(tc, COAP_CODE_PONG, m->token, m->tkl,
                          s.custody ? COAP_SIG_PING_CUSTODY : 0, true, 0, NULL);
        break;
    case COAP_CODE_PONG:
        t->stats.rx_pong++;
        if (t->shell && m->tkl == sizeof(t->ping_token) &&
            memcmp(m->token, &t->ping_token, m->tkl) == 0) {
            wren_shell_printf(t->shell, "coap_tcp: pong%s\n", s.custody ? " (custody)" : "");
            t->shell = NULL;
        }
        break;
    case COAP_CODE_RELEASE:
        /* RFC 8323 5.5: close once the responses are out (they are) */
        t->stats.rx_release++;
        conn_close(tc, -ECONNRESET);
        break;
    case COAP_CODE_ABORT:
        t->stats.rx_abort++;
        conn_close(tc, -ECONNABORTED);
        break;
    default:
        t->stats.rx_drop_unexpected++;
        break;
    }
}

/* One whole message of @p len bytes in the server's receive buffer. */
static void msg_input(struct wren_coap_tcp_conn *tc, size_t len)
{
    struct wren_coap_tcp *t = tc->t;
    struct coap_msg m;
    t->stats.rx++;
    tc->last_rx_us = wren_node_now(t->node);
    if (wren_coap_tcp_parse(WREN_COAP_SRV(t->coap)->rx, len, &m) < 0) {
        t->stats.rx_drop_format++; /* RFC 8323 5.6: rejected with an Abort */
        conn_abort(tc, "malformed message", -1);
        return;
    }
    if (tc->state == CT_OPEN && m.code != COAP_CODE_CSM) {
        t->stats.rx_no_csm++; /* RFC 8323 4.3: a missing CSM is a connection error */
        conn_abort(tc, "CSM expected first", -1);
        return;
    }
    uint8_t cls = COAP_CODE_CLASS(m.code);
    if (cls == 7) {
        signal_input(tc, &m);
    } else if (m.code == COAP_CODE_EMPTY) {
        /* RFC 8323 3.4: keep-alive, ignored */
    } else if (cls == 0) {
        request_input(tc, &m);
    } else if (cls >= 2 && cls <= 5) {
        if (!(CONFIG_WREN_COAP_CLIENT && wren_coap_client_input_tcp(t->coap, &m, &tc->peer))) {
            t->stats.rx_drop_unmatched++;
        }
    } else {
        t->stats.rx_drop_unexpected++;
    }
}

/* Whether the peer has closed its side (no more bytes will come). */
static bool peer_done(const struct wren_coap_tcp_conn *tc)
{
    uint8_t st = tc->sock->conn.state;
    return st == WREN_TCP_CLOSE_WAIT || st == WREN_TCP_LAST_ACK || st == WREN_TCP_CLOSED;
}

/* Read messages off the stream, one at a time: the header into the
 * connection's few bytes, then, once the rest of the message is all in the
 * socket's receive buffer (a message fits it whole) and the send buffer has
 * room for the largest answer, the whole message into the server's one
 * receive buffer, handled at once. No connection keeps a message buffer. */
static void rx_pump(struct wren_coap_tcp_conn *tc)
{
    struct wren_coap_tcp *t = tc->t;
    if (t->in_rx) {
        return; /* the outer call goes on reading */
    }
#if CONFIG_WREN_NODE_MEM
    if (WREN_LAZY_GET(t->node, t->coap, srv) == NULL) {
        t->coap->stats.no_mem++; /* the server's buffers: none, the connection goes */
        conn_close(tc, -ENOMEM);
        return;
    }
#endif
    uint8_t *rx = WREN_COAP_SRV(t->coap)->rx;
    t->in_rx = 1;
    while (tc->state >= CT_OPEN) {
        uint64_t total;
        if (wren_coap_tcp_frame_len(tc->hdr, tc->have, &total) < 0) {
            ssize_t n = wren_sock_tcp_read(tc->sock, tc->hdr + tc->have,
                                           (size_t)total - tc->have, 0);
            if (n == 0) {
                conn_close(tc, -ECONNRESET); /* the peer's FIN */
                break;
            }
            if (n < 0) {
                if (n != -EAGAIN) {
                    conn_close(tc, (int)n);
                }
                break;
            }
            tc->have += (uint8_t)n;
            continue;
        }
        if (total > sizeof(WREN_COAP_SRV(t->coap)->rx)) {
            t->stats.rx++;
            t->stats.rx_drop_big++;
            conn_abort(tc, "message too large", -1);
            break;
        }
        size_t rest = (size_t)total - tc->have;
        if (wren_tcp_readable(&tc->sock->conn) < rest) {
            if (peer_done(tc)) {
                conn_close(tc, -ECONNRESET); /* it ended inside a message */
            }
            break; /* EV_RECV resumes */
        }
        if (writable(tc) < RESP_MAX) {
            break; /* EV_SEND resumes */
        }
        memcpy(rx, tc->hdr, tc->have);
        if (rest && wren_sock_tcp_read(tc->sock, rx + tc->have, rest, 0) != (ssize_t)rest) {
            conn_close(tc, -EIO); /* cannot happen: the bytes were there */
            break;
        }
        tc->have = 0;
        msg_input(tc, (size_t)total);
    }
    t->in_rx = 0;
    if (t->coap->notify_deferred) {
        wren_coap_obs_flush(t->coap);
    }
}

static void sock_cb(struct wren_sock_tcp *sock, unsigned events, void *arg)
{
    (void)sock;
    struct wren_coap_tcp_conn *tc = arg;
    struct wren_coap_tcp *t = tc->t;
    if (tc->state == CT_FREE) {
        return;
    }
    if (events & WREN_SOCK_TCP_EV_CONNECTED) {
        t->stats.conn_open++;
        conn_start(tc, CT_OPEN);
        (void)send_csm(tc); /* RFC 8323 3.3: first, without waiting for the peer's */
        if (CONFIG_WREN_COAP_CLIENT) {
            wren_coap_client_tcp_event(t->coap, &tc->peer, 0);
        }
    }
    if (events & (WREN_SOCK_TCP_EV_RECV | WREN_SOCK_TCP_EV_SEND)) {
        rx_pump(tc);
    }
    if ((events & WREN_SOCK_TCP_EV_SEND) && tc->state >= CT_OPEN && !t->in_rx) {
        for (unsigned i = 0; i < CONFIG_WREN_COAP_TCP_OBSERVERS; i++) {
            struct wren_coap_tcp_obs *o = &t->c->obs[i];
            if (o->used && o->dirty && o->conn == conn_idx(tc)) {
                obs_send(t, o);
            }
        }
    }
    if ((events & WREN_SOCK_TCP_EV_CLOSED) && tc->state != CT_FREE) {
        int err = tc->sock->conn.err ? tc->sock->conn.err : -ECONNRESET;
        if (tc->state == CT_CONNECTING) {
            t->stats.conn_fail++;
        }
        conn_close(tc, err);
    }
}

static void accept_cb(struct wren_sock_tcp_queue *q, unsigned events, void *arg)
{
    (void)events;
    struct wren_coap_tcp *t = arg;
    struct wren_sock_tcp *s;
    while (wren_sock_tcp_accept(q, &s, 0) == 0) {
        struct wren_coap_tcp_conn *tc = NULL;
        for (unsigned i = 0; i < CONFIG_WREN_COAP_TCP_CONNS && !tc && conns_of(t); i++) {
            if (t->c->conns[i].state == CT_FREE) {
                tc = &t->c->conns[i];
            }
        }
        if (tc == NULL) {
            /* no memory for the tables (else a slot per socket of the queue) */
            t->stats.conn_fail++;
            wren_sock_tcp_disconnect(s);
            continue;
        }
        t->stats.conn_accept++;
        tc->sock = s;
        tc->client = 0;
        struct wren_sock_tcp_ep ep;
        (void)wren_sock_tcp_get_remote(s, &ep);
        tc->peer = (struct wren_sock_udp_ep){ .port = ep.port, .netif = ep.netif };
        memcpy(tc->peer.addr, ep.addr, 16);
        conn_start(tc, CT_OPEN);
        wren_sock_tcp_set_cb(s, sock_cb, tc);
        (void)send_csm(tc);
        rx_pump(tc); /* data may have come with the handshake */
    }
}

/* ---- client transport --------------------------------------------------------------- */

static struct wren_coap_tcp_conn *client_conn(struct wren_coap_tcp *t,
                                              const struct wren_sock_udp_ep *to)
{
    for (unsigned i = CONFIG_WREN_COAP_TCP_CONNS; i < WREN_COAP_TCP_NCONN && conns_made(t); i++) {
        struct wren_coap_tcp_conn *tc = &t->c->conns[i];
        if (tc->state != CT_FREE && tc->peer.port == to->port &&
            memcmp(tc->peer.addr, to->addr, 16) == 0) {
            return tc;
        }
    }
    return NULL;
}

int wren_coap_tcp_xchg_send(struct wren_coap *c, struct wren_coap_xchg *x)
{
    struct wren_coap_tcp *t = wren_coap_tcp_of(c->node);
    if (t == NULL) {
        return -ENOBUFS;
    }
    struct wren_coap_tcp_conn *tc = client_conn(t, &x->to);
    if (tc == NULL && conns_of(t) == NULL) {
        t->stats.conn_fail++; /* no memory for the tables */
        return -ENOBUFS;
    }
    if (tc == NULL) {
        int rc = -EBUSY;
        for (unsigned i = CONFIG_WREN_COAP_TCP_CONNS; i < WREN_COAP_TCP_NCONN && rc < 0; i++) {
            struct wren_coap_tcp_conn *n = &t->c->conns[i];
            if (n->state != CT_FREE) {
                continue;
            }
            if (n->sock == NULL && /* the slot's first connection: its socket */
                (n->sock = wren_node_mem(t->node, &wren_coap_tcp_module, sizeof(*n->sock))) ==
                    NULL) {
                t->stats.conn_fail++;
                return -ENOBUFS;
            }
            struct wren_sock_tcp_ep ep = { .port = x->to.port, .netif = x->to.netif };
            memcpy(ep.addr, x->to.addr, 16);
            wren_sock_tcp_set_cb(n->sock, sock_cb, n);
            rc = wren_sock_tcp_connect(t->node, n->sock, &ep, 0, 0);
            if (rc == -EINPROGRESS) {
                tc = n;
                tc->client = 1;
                tc->peer = x->to;
                conn_start(tc, CT_CONNECTING);
                rc = 0;
            } else if (rc != -EBUSY) {
                t->stats.conn_fail++;
                return -ENOBUFS;
            }
        }
        if (rc < 0) {
            t->stats.conn_full++; /* every client socket in use or still closing */
            return -ENOBUFS;
        }
    }
    if (tc->state == CT_CONNECTING) {
        x->tcp = 1;
        return 0;
    }
    uint8_t b[CONFIG_WREN_COAP_CLIENT_MSG_MAX + COAP_TCP_HDR_MAX];
    size_t off = COAP_TCP_HDR_MAX - COAP_HDR_LEN;
    memcpy(b + off, x->msg, x->len);
    int at = wren_coap_tcp_from_udp(b, off, x->len);
    if (at < 0 || conn_write(tc, b + at, off + x->len - (size_t)at) < 0) {
        return -ENOBUFS;
    }
    x->tcp = 2;
    return 0;
}

int wren_coap_tcp_ping(struct wren_coap_tcp *t, const struct wren_sock_udp_ep *to, bool custody)
{
    struct wren_coap_tcp_conn *tc = client_conn(t, to);
    if (tc == NULL || tc->state < CT_OPEN) {
        return -ENOTCONN;
    }
    uint32_t tok = wren_node_random(t->node);
    t->ping_token = tok;
    return send_signal(tc, COAP_CODE_PING, (const uint8_t *)&tok, sizeof(tok),
                       custody ? COAP_SIG_PING_CUSTODY : 0, true, 0, NULL);
}

int wren_coap_tcp_close(struct wren_coap_tcp *t, const struct wren_sock_udp_ep *to)
{
    struct wren_coap_tcp_conn *tc = client_conn(t, to);
    if (tc == NULL) {
        return -ENOTCONN;
    }
    if (tc->state >= CT_OPEN) {
        (void)send_signal(tc, COAP_CODE_RELEASE, NULL, 0, 0, false, 0, NULL);
    }
    conn_close(tc, -ECONNRESET);
    return 0;
}

/* ---- the shell ------------------------------------------------------------------------- */

static const char *const state_names[] = { "free", "connecting", "no CSM yet", "ready" };

/* `coap_tcp` alone: the connections, their state and observers. */
static int print_conns(struct wren_shell *sh, const struct wren_coap_tcp *t)
{
    wren_shell_printf(sh, "CoAP over TCP on port %u: %u server and %u client connections\n",
                      COAP_PORT, CONFIG_WREN_COAP_TCP_CONNS, CONFIG_WREN_COAP_TCP_CLIENT_CONNS);
    for (unsigned i = 0; i < WREN_COAP_TCP_NCONN && conns_made(t); i++) {
        const struct wren_coap_tcp_conn *tc = &t->c->conns[i];
        if (tc->state == CT_FREE) {
            continue;
        }
        unsigned nobs = 0;
        for (unsigned k = 0; k < CONFIG_WREN_COAP_TCP_OBSERVERS; k++) {
            nobs += t->c->obs[k].used && t->c->obs[k].conn == i;
        }
        char a[WREN_IPV6_ADDR_STRLEN];
        wren_shell_printf(sh, "  [%s]:%u %s %s, peer max message %lu, %u observers\n",
                          wren_ipv6_addr_to_str(a, tc->peer.addr), tc->peer.port,
                          tc->client ? "client" : "server", state_names[tc->state],
                          (unsigned long)tc->peer_mms, nobs);
    }
    return 0;
}

static int cmd_coap_tcp(struct wren_shell *sh, struct wren_module *self, int argc, char **argv)
{
    struct wren_coap_tcp *t = (struct wren_coap_tcp *)self;
    if (argc == 1) {
        return print_conns(sh, t);
    }
    struct wren_sock_udp_ep to = { .port = COAP_PORT };
    bool ping = strcmp(argv[1], "ping") == 0, custody = false;
    int bad = (!ping && strcmp(argv[1], "release") != 0) || argc < 3 ||
              wren_ipv6_addr_from_str(to.addr, argv[2]) < 0;
    for (int i = 3; !bad && i < argc; i++) {
        if (strcmp(argv[i], "port") == 0 && i + 1 < argc) {
            to.port = (uint16_t)wren_shell_num(argv[++i], 1, 65535, &bad);
        } else if (ping && strcmp(argv[i], "custody") == 0) {
            custody = true;
        } else {
            bad = 1;
        }
    }
    if (bad) {
        wren_shell_printf(sh, "usage: coap_tcp [ping ADDR [port N] [custody] | "
                              "release ADDR [port N]]\n");
        return -EINVAL;
    }
    int rc = ping ? wren_coap_tcp_ping(t, &to, custody) : wren_coap_tcp_close(t, &to);
    if (rc < 0) {
        return wren_shell_error(sh, rc, ping ? "coap_tcp ping" : "coap_tcp release");
    }
    if (ping) {
        t->shell = sh; /* the Pong is printed when it comes */
    }
    return 0;
}

const struct wren_shell_cmd wren_coap_tcp_shell_cmds[] = {
    { "coap_tcp",
      "coap_tcp [ping ADDR [port N] [custody] | release ADDR [port N]]: CoAP over TCP "
      "connections, or a Ping (the Pong is printed) or Release on the client connection to "
      "ADDR (requests: coap get coap+tcp://[ADDR]/PATH)",
      cmd_coap_tcp },
    { NULL, NULL, NULL },
};

/* ---- the module ------------------------------------------------------------------------ */

static int coap_tcp_get(struct wren_node *node, struct wren_module *self, uint16_t opt,
                        uint16_t ctx, void *val, size_t max)
{
    (void)node;
    (void)ctx;
    struct wren_coap_tcp *t = (struct wren_coap_tcp *)self;
    if (opt == WREN_NETOPT_STATS) {
        return wren_netopt_put(val, max, &t->stats, sizeof(t->stats));
    }
    return -ENOTSUP;
}

static void coap_tcp_handle(struct wren_node *node, struct wren_module *self,
                            const struct wren_msg *msg)
{
    (void)self;
    if (msg->ptr) {
        wren_pktbuf_release(&node->pktbuf, msg->ptr); /* nothing is dispatched to it */
    }
}

static int coap_tcp_stack_init(struct wren_node *node, struct wren_module *self, uint8_t if_id)
{
    (void)if_id;
    return wren_coap_tcp_init(node, (struct wren_coap_tcp *)self);
}

static const struct wren_counter_set coap_tcp_counters =
    WREN_COUNTER_SET("coap_tcp", WREN_COAP_TCP_COUNTERS, WREN_NETOPT_STATS, uint32_t);

const struct wren_module_ops wren_coap_tcp_module = {
    .name = "coap_tcp",
    .handle = coap_tcp_handle,
    .get = coap_tcp_get,
    .init = coap_tcp_stack_init,
    .size = sizeof(struct wren_coap_tcp),
    .counters = WREN_IF_NAMES(&coap_tcp_counters),
    .cmds = WREN_IF_SHELL(wren_coap_tcp_shell_cmds),
};

int wren_coap_tcp_init(struct wren_node *node, struct wren_coap_tcp *t)
{
    memset(t, 0, sizeof(*t));
    t->module.ops = &wren_coap_tcp_module;
    t->module.prio = WREN_PRIO_APP;
    t->node = node;
    t->coap = wren_coap_of(node);
    if (t->coap == NULL) {
        return -ENOENT;
    }
    if (!CONFIG_WREN_NODE_MEM) {
        conns_init(t); /* built in; else made by the first connection */
    }
    struct wren_sock_tcp_ep local = { .port = COAP_PORT };
    wren_sock_tcp_queue_set_cb(&t->queue, accept_cb, t);
#if CONFIG_WREN_NODE_MEM
    int rc = wren_sock_tcp_listen_lazy(node, &t->queue, &local, CONFIG_WREN_COAP_TCP_CONNS,
                                       &wren_coap_tcp_module);
#else
    int rc = wren_sock_tcp_listen(node, &t->queue, &local, t->socks, CONFIG_WREN_COAP_TCP_CONNS);
#endif
    if (rc < 0) {
        return rc;
    }
    rc = wren_netreg_register(node, WREN_NETTYPE_TCP, WREN_COAP_TCP_NETREG_CTX, &t->module,
                              &t->reg);
    if (rc < 0) {
        wren_sock_tcp_stop_listen(&t->queue);
        return rc;
    }
    t->coap->tcp_notify = notify_hook;
    t->coap->tcp_arg = t;
    return 0;
}

void wren_coap_tcp_stop(struct wren_coap_tcp *t)
{
    for (unsigned i = 0; i < WREN_COAP_TCP_NCONN && conns_made(t); i++) {
        conn_close(&t->c->conns[i], -ECONNRESET);
    }
    wren_sock_tcp_stop_listen(&t->queue);
    wren_netreg_unregister(t->node, WREN_NETTYPE_TCP, &t->reg);
    if (t->coap && t->coap->tcp_arg == t) {
        t->coap->tcp_notify = NULL;
        t->coap->tcp_arg = NULL;
    }
}

struct wren_coap_tcp *wren_coap_tcp_of(struct wren_node *node)
{
    struct wren_netreg_entry *e =
        wren_netreg_lookup(node, WREN_NETTYPE_TCP, WREN_COAP_TCP_NETREG_CTX, NULL);
    return e && e->module->ops == &wren_coap_tcp_module ? (struct wren_coap_tcp *)e->module
                                                        : NULL;
}
