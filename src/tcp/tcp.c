/* The TCP layer: the API, what to send and when (output, congestion
 * control's sending side, SACK-based retransmission), timers and TIME-WAIT.
 * Segment arrival is in wren_tcp_input.c. */
#include "tcp/tcp.h"

#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/siphash.h"
#include "ipv6/ipv6.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "net/nettype.h"
#include "tcp/tcp_priv.h"
#include "wire/ipv6.h"

/* ---- helpers ---------------------------------------------------------- */

void wren_tcp_event(struct wren_tcp_conn *c, unsigned ev)
{
    if (c->cb) {
        c->cb(c, ev, c->cb_arg);
    }
}

uint32_t wren_tcp_isn(struct wren_tcp *tcp, const uint8_t *laddr, uint16_t lport,
                 const uint8_t *raddr, uint16_t rport)
{
    /* RFC 6528: ISN = M + F(localip, localport, remoteip, remoteport, key),
     * M a 4 us clock */
    uint8_t in[36];
    memcpy(in, laddr, 16);
    memcpy(in + 16, raddr, 16);
    put_be16(in + 32, lport);
    put_be16(in + 34, rport);
    uint32_t m = (uint32_t)(wren_node_now(tcp->node) >> 2);
    return m + (uint32_t)wren_siphash24(tcp->isn_key, in, sizeof(in));
}

/* the timestamp clock (ms) of @p c; returns 1 for convenience */
uint16_t wren_tcp_ts_now(const struct wren_tcp_conn *c, uint32_t *ts)
{
    *ts = wren_tcp_now_ms(c->tcp) + c->ts_offset;
    return 1;
}

/* the window to announce (RFC 9293 3.8.6.2.2: receiver-side silly window
 * avoidance; the right edge never moves left) */
uint32_t wren_tcp_rcv_window(struct wren_tcp_conn *c)
{
    uint32_t space = (uint32_t)(c->rcv.size - c->rcv.len);
    uint32_t edge = c->rcv_nxt + space;
    uint32_t cur = wren_tcp_seq_gt(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;
    uint32_t step = c->rcv.size / 2 < c->rcv_mss ? c->rcv.size / 2 : c->rcv_mss;
    if (wren_tcp_seq_gt(edge, c->rcv_adv) && (edge - c->rcv_adv >= step || cur == 0 ||
                                          space == c->rcv.size)) {
        cur = space;
    }
    return cur > 0xffff ? 0xffff : cur;
}

static void unlink_conn(struct wren_tcp_conn *c)
{
    for (struct wren_tcp_conn **p = &c->tcp->conns; *p; p = &(*p)->next) {
        if (*p == c) {
            *p = c->next;
            break;
        }
    }
    c->next = NULL;
}

/* closed: unread data and the end of stream stay readable */
static void conn_reset_state(struct wren_tcp_conn *c)
{
    wren_timer_cancel(c->tcp->node, &c->timer);
    c->snd.head = c->snd.len = 0; /* (the bitmap is cleared at the next open) */
    c->flags &= TF_HELD | TF_RCV_FIN;
    c->state = WREN_TCP_CLOSED;
}

/* a fresh start for a connection about to open */
void wren_tcp_conn_clear(struct wren_tcp_conn *c)
{
    c->snd.head = c->snd.len = 0;
    c->rcv.head = c->rcv.len = 0;
    memset(c->rcv_bitmap, 0, ((size_t)c->rcv.size + 7) / 8);
    c->flags &= TF_HELD;
    c->err = 0;
    c->n_sack = 0;
    c->dupacks = 0;
    c->unacked_segs = 0;
}

void wren_tcp_closed(struct wren_tcp_conn *c, int err)
{
    unlink_conn(c);
    conn_reset_state(c);
    c->err = (int8_t)err;
    if (c->listener && !(c->flags & TF_HELD)) {
        return; /* never accepted: back to the pool, nobody to tell */
    }
    wren_tcp_event(c, WREN_TCP_EV_CLOSED);
}

/* ---- TIME-WAIT ----------------------------------------------------------- */

static void tw_timer_update(struct wren_tcp *tcp)
{
    uint32_t now = wren_tcp_now_ms(tcp);
    int32_t first = INT32_MAX;
    for (unsigned i = 0; i < CONFIG_WREN_TCP_TIMEWAIT_SLOTS; i++) {
        if (tcp->tw->e[i].lport) {
            int32_t d = (int32_t)(tcp->tw->e[i].expires_ms - now);
            first = d < first ? d : first;
        }
    }
    if (first == INT32_MAX) {
        wren_timer_cancel(tcp->node, &tcp->tw_timer);
    } else {
        wren_timer_set(tcp->node, &tcp->tw_timer, first <= 0 ? 0 : (uint64_t)first * 1000);
    }
}

static void tw_timer_cb(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_tcp *tcp = arg;
    uint32_t now = wren_tcp_now_ms(tcp);
    for (unsigned i = 0; i < CONFIG_WREN_TCP_TIMEWAIT_SLOTS; i++) {
        if (tcp->tw->e[i].lport && (int32_t)(tcp->tw->e[i].expires_ms - now) <= 0) {
            tcp->tw->e[i].lport = 0;
        }
    }
    tw_timer_update(tcp);
}

/* Move @p c into the layer's TIME-WAIT table and close it. */
void wren_tcp_time_wait(struct wren_tcp_conn *c)
{
    struct wren_tcp *tcp = c->tcp;
#if CONFIG_WREN_NODE_MEM
    if (WREN_LAZY_GET(tcp->node, tcp, tw) == NULL) {
        tcp->stats.timewait_evicted++; /* no memory for the table: closed at once */
        wren_tcp_closed(c, 0);
        return;
    }
#endif
    unsigned slot = 0;
    for (unsigned i = 0; i < CONFIG_WREN_TCP_TIMEWAIT_SLOTS; i++) {
        if (tcp->tw->e[i].lport == 0) {
            slot = i;
            break;
        }
        if (wren_tcp_seq_lt(tcp->tw->e[i].expires_ms, tcp->tw->e[slot].expires_ms)) {
            slot = i;
        }
        if (i == CONFIG_WREN_TCP_TIMEWAIT_SLOTS - 1) {
            tcp->stats.timewait_evicted++;
        }
    }
    struct wren_tcp_tw *w = &tcp->tw->e[slot];
    memcpy(w->laddr, c->laddr, 16);
    memcpy(w->raddr, c->raddr, 16);
    w->lport = c->lport;
    w->rport = c->rport;
    w->snd_nxt = c->snd_max;
    w->rcv_nxt = c->rcv_nxt;
    w->ts_recent = c->ts_recent;
    w->ts_offset = c->ts_offset;
    w->ts_ok = (c->flags & TF_TS) != 0;
    w->if_id = c->if_id;
    w->expires_ms = wren_tcp_now_ms(tcp) + CONFIG_WREN_TCP_TIME_WAIT_MS;
    tw_timer_update(tcp);
    wren_tcp_closed(c, 0);
}

/* ---- the module --------------------------------------------------------- */

static void tcp_handle(struct wren_node *node, struct wren_module *self,
                       const struct wren_msg *msg)
{
    struct wren_tcp *tcp = (struct wren_tcp *)self;
    if (msg->type == WREN_MSG_RCV) {
        wren_tcp_input(tcp, msg->ptr);
    } else if (msg->ptr) {
        wren_pktbuf_release(&node->pktbuf, msg->ptr);
    }
}

static int tcp_get(struct wren_node *node, struct wren_module *self, uint16_t opt,
                   uint16_t ctx, void *val, size_t max)
{
    (void)node;
    (void)ctx;
    struct wren_tcp *tcp = (struct wren_tcp *)self;
    if (opt == WREN_NETOPT_STATS) {
        return wren_netopt_put(val, max, &tcp->stats, sizeof(tcp->stats));
    }
    return -ENOTSUP;
}

static int tcp_stack_init(struct wren_node *node, struct wren_module *self, uint8_t if_id)
{
    (void)if_id;
    return wren_tcp_init(node, (struct wren_tcp *)self);
}

static const struct wren_counter_set tcp_counters =
    WREN_COUNTER_SET("tcp", WREN_TCP_COUNTERS, WREN_NETOPT_STATS, uint32_t);

const struct wren_module_ops wren_tcp_module = {
    .name = "tcp",
    .handle = tcp_handle,
    .get = tcp_get,
    .init = tcp_stack_init,
    .size = sizeof(struct wren_tcp),
    .counters = WREN_IF_NAMES(&tcp_counters),
};

int wren_tcp_init(struct wren_node *node, struct wren_tcp *tcp)
{
    memset(tcp, 0, sizeof(*tcp));
    tcp->module.ops = &wren_tcp_module;
    tcp->module.prio = WREN_PRIO_NET;
    tcp->node = node;
    /* the secret from the node's seed, without drawing from its PRNG (the
     * other layers' random sequences stay as they were without TCP) */
    static const uint8_t k0[16] = "wren-tcp-isn-key";
    uint8_t seed[9];
    memcpy(seed, &node->rng, 8);
    for (unsigned i = 0; i < 2; i++) {
        seed[8] = (uint8_t)i;
        uint64_t k = wren_siphash24(k0, seed, sizeof(seed));
        memcpy(tcp->isn_key + 8 * i, &k, 8);
    }
    wren_timer_init(&tcp->tw_timer, tw_timer_cb, tcp);
    tcp->user_timeout_ms = CONFIG_WREN_TCP_USER_TIMEOUT_MS;
    tcp->challenge_left = CONFIG_WREN_TCP_CHALLENGE_PER_S; /* second 0's budget too */
    return wren_netreg_register(node, WREN_NETTYPE_TCP, WREN_NETREG_DEMUX_ALL, &tcp->module,
                                &tcp->reg);
}

struct wren_tcp *wren_tcp_of(struct wren_node *node)
{
    struct wren_netreg_entry *e =
        wren_netreg_lookup(node, WREN_NETTYPE_TCP, WREN_NETREG_DEMUX_ALL, NULL);
    return e && e->module->ops == &wren_tcp_module ? (struct wren_tcp *)e->module : NULL;
}

/* ---- the API --------------------------------------------------------------- */

void wren_tcp_conn_init(struct wren_tcp_conn *c, uint8_t *snd, size_t snd_size, uint8_t *rcv,
                        uint8_t *bitmap, size_t rcv_size)
{
    memset(c, 0, sizeof(*c));
    c->snd.buf = snd;
    c->snd.size = (uint16_t)(snd_size > 0xffff ? 0xffff : snd_size);
    c->rcv.buf = rcv;
    c->rcv.size = (uint16_t)(rcv_size > 0xffff ? 0xffff : rcv_size);
    c->rcv_bitmap = bitmap;
    memset(bitmap, 0, ((size_t)c->rcv.size + 7) / 8);
    c->opts = WREN_TCP_OPT_SACK | WREN_TCP_OPT_TS;
    c->rcv_mss = CONFIG_WREN_TCP_MSS;
    wren_timer_init(&c->timer, wren_tcp_conn_timer_cb, c);
}

void wren_tcp_set_cb(struct wren_tcp_conn *c, wren_tcp_cb cb, void *arg)
{
    c->cb = cb;
    c->cb_arg = arg;
}

void wren_tcp_set_opts(struct wren_tcp_conn *c, uint8_t opts)
{
    c->opts = opts;
    if (c->tcp && c->state == WREN_TCP_ESTABLISHED && !(c->flags & TF_REXMT)) {
        wren_tcp_keepalive_arm(c);
    }
}

void wren_tcp_set_mss(struct wren_tcp_conn *c, uint16_t mss)
{
    c->rcv_mss = mss < 1 ? 1 : mss > 1220 ? 1220 : mss;
}

static bool port_used(struct wren_tcp *tcp, uint16_t port)
{
    for (struct wren_tcp_conn *c = tcp->conns; c; c = c->next) {
        if (c->lport == port) {
            return true;
        }
    }
    for (struct wren_tcp_listener *l = tcp->listeners; l; l = l->next) {
        if (l->lport == port) {
            return true;
        }
    }
    return false;
}

void wren_tcp_conn_start(struct wren_tcp *tcp, struct wren_tcp_conn *c)
{
    c->tcp = tcp;
    c->next = tcp->conns;
    tcp->conns = c;
    c->rto_ms = CONFIG_WREN_TCP_RTO_INIT_MS;
    c->srtt_us = c->rttvar_us = 0;
    c->retries = 0;
    c->err = 0;
    c->iss = wren_tcp_isn(tcp, c->laddr, c->lport, c->raddr, c->rport);
    c->snd_una = c->snd_nxt = c->snd_max = c->iss;
    c->mss = TCP_DEFAULT_MSS_V6 < c->rcv_mss ? TCP_DEFAULT_MSS_V6 : c->rcv_mss;
    c->ts_offset = (uint32_t)wren_siphash24(tcp->isn_key, c->raddr, 16);
    c->ts_recent = 0;
    c->snd_wnd = c->max_snd_wnd = 0;
}

int wren_tcp_connect(struct wren_tcp *tcp, struct wren_tcp_conn *c, const uint8_t *raddr,
                     uint16_t rport, uint16_t lport, uint8_t if_id)
{
    if (c->state != WREN_TCP_CLOSED) {
        return -EISCONN;
    }
    if (rport == 0 || wren_ipv6_addr_is_multicast(raddr) || wren_ipv6_addr_is_unspecified(raddr)) {
        return -EINVAL;
    }
    struct wren_node *node = tcp->node;
    if (lport == 0) {
        for (int tries = 0; tries < 64 && lport == 0; tries++) {
            uint16_t p = (uint16_t)(49152 + wren_node_random_below(node, 16384));
            if (!port_used(tcp, p)) {
                lport = p;
            }
        }
        if (lport == 0) {
            return -EADDRINUSE;
        }
    }
    memcpy(c->raddr, raddr, 16);
    if (wren_ipv6_addr_is_loopback(raddr)) {
        memcpy(c->laddr, raddr, 16);
    } else {
        struct wren_netreg_entry *e =
            wren_netreg_lookup(node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, NULL);
        memcpy(c->laddr, raddr, 16);
        if (e == NULL ||
            wren_netapi_get(node, e->module, WREN_NETOPT_IPV6_SRC_SELECT, if_id, c->laddr, 16) !=
                16) {
            return -EADDRNOTAVAIL;
        }
    }
    for (struct wren_tcp_conn *o = tcp->conns; o; o = o->next) {
        if (o->lport == lport && o->rport == rport && !memcmp(o->raddr, raddr, 16) &&
            !memcmp(o->laddr, c->laddr, 16)) {
            return -EADDRINUSE;
        }
    }
    c->lport = lport;
    c->rport = rport;
    c->if_id = if_id;
    wren_tcp_conn_clear(c);
    c->listener = NULL;
    wren_tcp_conn_start(tcp, c);
    c->state = WREN_TCP_SYN_SENT;
    wren_tcp_output(c);
    return 0;
}

int wren_tcp_listen(struct wren_tcp *tcp, struct wren_tcp_listener *l, const uint8_t *laddr,
                    uint16_t lport, struct wren_tcp_conn *const *conns, unsigned n)
{
    if (lport == 0 || n == 0 || n > 255) {
        return -EINVAL;
    }
    for (struct wren_tcp_listener *o = tcp->listeners; o; o = o->next) {
        if (o->lport == lport) {
            return -EADDRINUSE;
        }
    }
    memset(l, 0, sizeof(*l));
    l->tcp = tcp;
    l->lport = lport;
    if (laddr) {
        memcpy(l->laddr, laddr, 16);
    }
    l->conns = conns;
    l->n = (uint8_t)n;
    for (unsigned i = 0; i < n; i++) {
        if (wren_tcp_made(conns[i])) {
            conns[i]->listener = l;
            conns[i]->tcp = tcp;
        }
    }
    l->next = tcp->listeners;
    tcp->listeners = l;
    return 0;
}

void wren_tcp_listen_set_cb(struct wren_tcp_listener *l, wren_tcp_listen_cb cb, void *arg)
{
    l->cb = cb;
    l->cb_arg = arg;
}

#if CONFIG_WREN_NODE_MEM
void wren_tcp_listen_set_make(struct wren_tcp_listener *l, wren_tcp_make_cb make)
{
    l->make = make;
}

struct wren_tcp_conn *wren_tcp_listen_make(struct wren_tcp_listener *l, unsigned i)
{
    struct wren_tcp_conn *c = l->make ? l->make(l, i) : NULL;
    if (c) {
        c->listener = l;
        c->tcp = l->tcp;
    }
    return c;
}
#endif

struct wren_tcp_conn *wren_tcp_accept(struct wren_tcp_listener *l)
{
    for (unsigned i = 0; i < l->n; i++) {
        struct wren_tcp_conn *c = l->conns[i];
        if (wren_tcp_made(c) && !(c->flags & TF_HELD) && (c->flags & TF_NOTIFY)) {
            c->flags |= TF_HELD;
            return c;
        }
    }
    return NULL;
}

void wren_tcp_unlisten(struct wren_tcp_listener *l)
{
    struct wren_tcp *tcp = l->tcp;
    for (unsigned i = 0; i < l->n; i++) {
        struct wren_tcp_conn *c = l->conns[i];
        if (wren_tcp_made(c) && !(c->flags & TF_HELD) && c->state != WREN_TCP_CLOSED) {
            wren_tcp_abort(c);
        }
    }
    for (struct wren_tcp_listener **p = &tcp->listeners; *p; p = &(*p)->next) {
        if (*p == l) {
            *p = l->next;
            break;
        }
    }
}

static ssize_t queue(struct wren_tcp_conn *c, const void *data, size_t len, bool push)
{
    if (c->state != WREN_TCP_ESTABLISHED && c->state != WREN_TCP_CLOSE_WAIT) {
        if (c->state == WREN_TCP_CLOSED && c->err) {
            return c->err;
        }
        return c->state > WREN_TCP_CLOSE_WAIT || c->state == WREN_TCP_FIN_WAIT_1 ||
                       c->state == WREN_TCP_FIN_WAIT_2
                   ? -EPIPE
                   : -ENOTCONN;
    }
    if (c->flags & TF_FIN_Q) {
        return -EPIPE;
    }
    size_t room = (size_t)(c->snd.size - c->snd.len);
    size_t n = len < room ? len : room;
    if (n && c->snd.len == 0) {
        c->progress_ms = wren_tcp_now_ms(c->tcp); /* data begins to wait */
    }
    if (n) {
        wren_tcp_ring_write(&c->snd, c->snd.len, data, (uint32_t)n);
        c->snd.len = (uint16_t)(c->snd.len + n);
    }
    if (push && (n || len == 0)) {
        wren_tcp_output(c);
    }
    return (ssize_t)n;
}

ssize_t wren_tcp_send(struct wren_tcp_conn *c, const void *data, size_t len)
{
    return queue(c, data, len, true);
}

ssize_t wren_tcp_send_more(struct wren_tcp_conn *c, const void *data, size_t len)
{
    return queue(c, data, len, false);
}

ssize_t wren_tcp_recv(struct wren_tcp_conn *c, void *buf, size_t max)
{
    if (c->rcv.len) {
        size_t n = max < c->rcv.len ? max : c->rcv.len;
        wren_tcp_ring_read(&c->rcv, 0, buf, (uint32_t)n);
        wren_tcp_ring_consume(&c->rcv, (uint32_t)n);
        if (c->state != WREN_TCP_CLOSED && c->state != WREN_TCP_SYN_SENT) {
            /* a window update when the window opened by enough (3.8.6.2.2) */
            uint32_t edge = c->rcv_nxt + (uint32_t)(c->rcv.size - c->rcv.len);
            uint32_t step = c->rcv.size / 2 < 2u * c->rcv_mss ? c->rcv.size / 2 : 2u * c->rcv_mss;
            if (!(c->flags & TF_RCV_FIN) && wren_tcp_seq_ge(edge, c->rcv_adv + step)) {
                c->flags |= TF_ACKNOW;
                wren_tcp_output(c);
            }
        }
        return (ssize_t)n;
    }
    if (c->flags & TF_RCV_FIN) {
        return 0;
    }
    if (c->state == WREN_TCP_CLOSED) {
        return c->err ? c->err : -ENOTCONN;
    }
    if (c->state < WREN_TCP_ESTABLISHED) {
        return -ENOTCONN;
    }
    return -EAGAIN;
}

size_t wren_tcp_readable(const struct wren_tcp_conn *c)
{
    return c->rcv.len;
}

size_t wren_tcp_writable(const struct wren_tcp_conn *c)
{
    if (c->state != WREN_TCP_ESTABLISHED && c->state != WREN_TCP_CLOSE_WAIT) {
        return 0;
    }
    return (size_t)(c->snd.size - c->snd.len);
}

int wren_tcp_shutdown(struct wren_tcp_conn *c)
{
    switch (c->state) {
    case WREN_TCP_SYN_SENT:
        wren_tcp_closed(c, 0);
        return 0;
    case WREN_TCP_SYN_RECEIVED:
        /* the FIN waits for the handshake (3.10.4): input moves to
         * FIN-WAIT-1 once the ACK of our SYN is in */
        c->flags |= TF_FIN_Q;
        return 0;
    case WREN_TCP_ESTABLISHED:
        c->state = WREN_TCP_FIN_WAIT_1;
        break;
    case WREN_TCP_CLOSE_WAIT:
        c->state = WREN_TCP_LAST_ACK;
        break;
    default:
        return c->state == WREN_TCP_CLOSED ? -ENOTCONN : 0;
    }
    c->flags |= TF_FIN_Q;
    if (c->flags & TF_KEEP) {
        c->flags &= (uint16_t) ~(TF_KEEP | TF_REXMT);
    }
    wren_tcp_output(c);
    return 0;
}

void wren_tcp_abort(struct wren_tcp_conn *c)
{
    if (c->state == WREN_TCP_CLOSED) {
        return;
    }
    if (c->state != WREN_TCP_SYN_SENT) {
        wren_tcp_send_rst(c);
    }
    unlink_conn(c);
    conn_reset_state(c);
    c->err = -ECONNABORTED;
}

void wren_tcp_release(struct wren_tcp_conn *c)
{
    if (c->tcp == NULL) {
        return;
    }
    if (c->state != WREN_TCP_CLOSED) {
        unlink_conn(c);
        conn_reset_state(c);
    }
    wren_tcp_conn_clear(c);
    c->flags = 0;
    if (c->listener == NULL) {
        c->tcp = NULL;
    }
}

void wren_tcp_set_user_timeout(struct wren_tcp *tcp, uint32_t ms)
{
    tcp->user_timeout_ms = ms;
}

const char *wren_tcp_state_name(uint8_t state)
{
    static const char *const names[] = {
        "CLOSED",     "LISTEN",     "SYN-SENT", "SYN-RECEIVED", "ESTABLISHED", "FIN-WAIT-1",
        "FIN-WAIT-2", "CLOSE-WAIT", "CLOSING",  "LAST-ACK",     "TIME-WAIT",
    };
    return state < sizeof(names) / sizeof(names[0]) ? names[state] : "?";
}

