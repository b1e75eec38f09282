/* The TCP layer: the API, what to send and when (output, congestion
 * control's sending side, SACK-based retransmission), timers and TIME-WAIT.
 * Segment arrival is in tcp_input.c. */
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

static bool tcp_synchronized(uint8_t st)
{
    return st >= WREN_TCP_ESTABLISHED;
}

void tcp_event(struct wren_tcp_conn *c, unsigned ev)
{
    if (c->cb) {
        c->cb(c, ev, c->cb_arg);
    }
}

uint32_t tcp_isn(struct wren_tcp *tcp, const uint8_t *laddr, uint16_t lport,
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
uint16_t tcp_ts_now(const struct wren_tcp_conn *c, uint32_t *ts)
{
    *ts = tcp_now_ms(c->tcp) + c->ts_offset;
    return 1;
}

/* the window to announce (RFC 9293 3.8.6.2.2: receiver-side silly window
 * avoidance; the right edge never moves left) */
uint32_t tcp_rcv_window(struct wren_tcp_conn *c)
{
    uint32_t space = (uint32_t)(c->rcv.size - c->rcv.len);
    uint32_t edge = c->rcv_nxt + space;
    uint32_t cur = tcp_seq_gt(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;
    uint32_t step = c->rcv.size / 2 < c->rcv_mss ? c->rcv.size / 2 : c->rcv_mss;
    if (tcp_seq_gt(edge, c->rcv_adv) && (edge - c->rcv_adv >= step || cur == 0 ||
                                          space == c->rcv.size)) {
        cur = space;
    }
    return cur > 0xffff ? 0xffff : cur;
}

/* ---- timers ------------------------------------------------------------ */

void tcp_timer_update(struct wren_tcp_conn *c)
{
    struct wren_node *node = c->tcp->node;
    bool any = false;
    uint32_t when = 0;
    if (c->flags & TF_REXMT) {
        when = c->t_rexmt;
        any = true;
    }
    if ((c->flags & TF_DELACK) && (!any || tcp_seq_lt(c->t_delack, when))) {
        when = c->t_delack;
        any = true;
    }
    if (!any) {
        wren_timer_cancel(node, &c->timer);
        return;
    }
    uint64_t now = wren_node_now(node);
    int32_t d = (int32_t)(when - (uint32_t)(now / 1000));
    wren_timer_set_abs(node, &c->timer, d <= 0 ? now : (now / 1000 + (uint64_t)d) * 1000);
}

void tcp_rexmt_arm(struct wren_tcp_conn *c, uint32_t ms)
{
    c->t_rexmt = tcp_now_ms(c->tcp) + ms;
    c->flags |= TF_REXMT;
    c->flags &= (uint16_t) ~(TF_PERSIST | TF_KEEP);
    tcp_timer_update(c);
}

static uint32_t backoff(const struct wren_tcp_conn *c)
{
    uint32_t rto = c->rto_ms;
    for (unsigned i = 0; i < c->retries && rto < CONFIG_WREN_TCP_RTO_MAX_MS; i++) {
        rto *= 2;
    }
    return rto > CONFIG_WREN_TCP_RTO_MAX_MS ? CONFIG_WREN_TCP_RTO_MAX_MS : rto;
}

static void keepalive_arm(struct wren_tcp_conn *c)
{
    if ((c->opts & WREN_TCP_OPT_KEEPALIVE) && c->state == WREN_TCP_ESTABLISHED) {
        c->t_rexmt = tcp_now_ms(c->tcp) + TCP_KEEPALIVE_IDLE_MS;
        c->flags = (uint16_t)((c->flags | TF_REXMT | TF_KEEP) & ~TF_PERSIST);
    } else {
        c->flags &= (uint16_t) ~(TF_REXMT | TF_KEEP | TF_PERSIST);
    }
    c->retries = 0;
    tcp_timer_update(c);
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
    c->snd.head = c->snd.len = 0;
    memset(c->rcv_bitmap, 0, ((size_t)c->rcv.size + 7) / 8);
    c->flags &= TF_HELD | TF_RCV_FIN;
    c->state = WREN_TCP_CLOSED;
}

/* a fresh start for a connection about to open */
void tcp_conn_clear(struct wren_tcp_conn *c)
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

void tcp_closed(struct wren_tcp_conn *c, int err)
{
    unlink_conn(c);
    conn_reset_state(c);
    c->err = (int8_t)err;
    if (c->listener && !(c->flags & TF_HELD)) {
        return; /* never accepted: back to the pool, nobody to tell */
    }
    tcp_event(c, WREN_TCP_EV_CLOSED);
}

/* ---- TIME-WAIT ----------------------------------------------------------- */

static void tw_timer_update(struct wren_tcp *tcp)
{
    uint32_t now = tcp_now_ms(tcp);
    int32_t first = INT32_MAX;
    for (unsigned i = 0; i < CONFIG_WREN_TCP_TIMEWAIT_SLOTS; i++) {
        if (tcp->tw[i].lport) {
            int32_t d = (int32_t)(tcp->tw[i].expires_ms - now);
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
    uint32_t now = tcp_now_ms(tcp);
    for (unsigned i = 0; i < CONFIG_WREN_TCP_TIMEWAIT_SLOTS; i++) {
        if (tcp->tw[i].lport && (int32_t)(tcp->tw[i].expires_ms - now) <= 0) {
            tcp->tw[i].lport = 0;
        }
    }
    tw_timer_update(tcp);
}

/* Move @p c into the layer's TIME-WAIT table and close it. */
void tcp_time_wait(struct wren_tcp_conn *c)
{
    struct wren_tcp *tcp = c->tcp;
    unsigned slot = 0;
    for (unsigned i = 0; i < CONFIG_WREN_TCP_TIMEWAIT_SLOTS; i++) {
        if (tcp->tw[i].lport == 0) {
            slot = i;
            break;
        }
        if (tcp_seq_lt(tcp->tw[i].expires_ms, tcp->tw[slot].expires_ms)) {
            slot = i;
        }
        if (i == CONFIG_WREN_TCP_TIMEWAIT_SLOTS - 1) {
            tcp->stats.timewait_evicted++;
        }
    }
    struct wren_tcp_tw *w = &tcp->tw[slot];
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
    w->expires_ms = tcp_now_ms(tcp) + CONFIG_WREN_TCP_TIME_WAIT_MS;
    tw_timer_update(tcp);
    tcp_closed(c, 0);
}

/* ---- segments out --------------------------------------------------------- */

/* Build and send one segment from the fields given; @p c gives addresses
 * and, if not NULL, data from its send buffer at @p seq. */
static int emit(struct wren_tcp *tcp, const uint8_t *src, const uint8_t *dst, uint8_t if_id,
                const struct tcp_hdr *h, const struct tcp_opts *o, struct wren_tcp_conn *c,
                uint32_t data_off, uint32_t len, uint8_t ecn)
{
    struct wren_pktbuf *pb = &tcp->node->pktbuf;
    struct wren_snip *payload = NULL;
    int hl = tcp_hdr_len(o);
    if (hl < 0) {
        return -EINVAL;
    }
    if (len) {
        payload = wren_pktbuf_add(pb, NULL, NULL, len, WREN_NETTYPE_UNDEF);
        if (payload == NULL) {
            goto nobufs;
        }
        tcp_ring_read(&c->snd, data_off, payload->data, len);
    }
    struct wren_snip *hs = wren_pktbuf_add(pb, payload, NULL, (size_t)hl, WREN_NETTYPE_TCP);
    if (hs == NULL) {
        wren_pktbuf_release(pb, payload);
        goto nobufs;
    }
    tcp_hdr_emit(h, o, hs->data, hs->size);
    struct inet_csum cs;
    tcp_csum_start(&cs, src, dst, (uint32_t)hl + len);
    inet_csum_update(&cs, hs->data, (size_t)hl);
    if (payload) {
        inet_csum_update(&cs, payload->data, len);
    }
    put_be16(hs->data + TCP_OFF_CSUM, inet_csum_final(&cs));
    struct wren_snip *pkt = wren_ipv6_hdr_add(pb, hs, src, dst, IPV6_NH_TCP, if_id);
    if (pkt == NULL) {
        wren_pktbuf_release(pb, hs);
        goto nobufs;
    }
    if (ecn) {
        struct wren_snip *ip = wren_pkt_search(pkt, WREN_NETTYPE_IPV6);
        ip->data[1] = (uint8_t)((ip->data[1] & 0xcf) | (ecn << 4));
    }
    tcp->stats.tx_segs++;
    wren_netapi_dispatch(tcp->node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, WREN_MSG_SND, pkt);
    return 0;

nobufs:
    tcp->stats.tx_drop_nobufs++;
    return -ENOBUFS;
}

/* the receiver's SACK blocks (RFC 2018 4): the run holding the latest
 * out-of-order segment first, then the others in sequence order */
static void sack_blocks(struct wren_tcp_conn *c, struct tcp_opts *o, unsigned max)
{
    uint32_t space = (uint32_t)(c->rcv.size - c->rcv.len);
    uint32_t off = 0;
    uint32_t latest = c->sack_rx_last - c->rcv_nxt;
    unsigned n = 0;
    bool latest_done = false;
    uint32_t blocks[8][2];
    unsigned nb = 0;
    while (off < space && nb < 8) {
        off += tcp_bits_run(&c->rcv, c->rcv_bitmap, c->rcv.len + off, space - off, false);
        if (off >= space) {
            break;
        }
        uint32_t run = tcp_bits_run(&c->rcv, c->rcv_bitmap, c->rcv.len + off, space - off, true);
        blocks[nb][0] = off;
        blocks[nb][1] = off + run;
        nb++;
        off += run;
    }
    for (unsigned i = 0; i < nb; i++) {
        if (latest >= blocks[i][0] && latest < blocks[i][1]) {
            o->sack[n][0] = c->rcv_nxt + blocks[i][0];
            o->sack[n][1] = c->rcv_nxt + blocks[i][1];
            n++;
            latest_done = true;
            blocks[i][1] = blocks[i][0]; /* used */
            break;
        }
    }
    (void)latest_done;
    for (unsigned i = 0; i < nb && n < max; i++) {
        if (blocks[i][1] != blocks[i][0]) {
            o->sack[n][0] = c->rcv_nxt + blocks[i][0];
            o->sack[n][1] = c->rcv_nxt + blocks[i][1];
            n++;
        }
    }
    o->n_sack = (uint8_t)n;
}

/* the options of a segment of @p c with @p flags */
static void fill_opts(struct wren_tcp_conn *c, uint8_t flags, struct tcp_opts *o)
{
    memset(o, 0, sizeof(*o));
    if (flags & TCP_SYN) {
        o->has_mss = true;
        o->mss = c->rcv_mss;
        o->sack_ok = c->state == WREN_TCP_SYN_SENT ? (c->opts & WREN_TCP_OPT_SACK) != 0
                                                   : (c->flags & TF_SACK) != 0;
        o->has_ts = c->state == WREN_TCP_SYN_SENT ? (c->opts & WREN_TCP_OPT_TS) != 0
                                                  : (c->flags & TF_TS) != 0;
    } else {
        o->has_ts = (c->flags & TF_TS) != 0;
        if ((c->flags & TF_SACK) && c->rcv_bitmap &&
            tcp_bits_run(&c->rcv, c->rcv_bitmap, c->rcv.len,
                         (uint32_t)(c->rcv.size - c->rcv.len), false) <
                (uint32_t)(c->rcv.size - c->rcv.len)) {
            sack_blocks(c, o, o->has_ts ? 3 : 4);
        }
    }
    if (o->has_ts) {
        tcp_ts_now(c, &o->ts_val);
        o->ts_ecr = c->ts_recent;
    }
}

/* Send one segment of @p c: @p len data bytes from @p seq, @p flags. */
int tcp_xmit(struct wren_tcp_conn *c, uint32_t seq, uint32_t len, uint8_t flags)
{
    struct wren_tcp *tcp = c->tcp;
    struct tcp_opts o;
    fill_opts(c, flags, &o);
    struct tcp_hdr h = {
        .src_port = c->lport,
        .dst_port = c->rport,
        .seq = seq,
        .flags = flags,
    };
    if (c->state != WREN_TCP_SYN_SENT) {
        h.flags |= TCP_ACK;
        h.ack = c->rcv_nxt;
        if ((c->flags & TF_ECE) && !(flags & TCP_SYN)) {
            h.flags |= TCP_ECE;
        }
    }
    uint32_t wnd = tcp_rcv_window(c);
    h.window = (uint16_t)wnd;
    uint8_t ecn = 0;
    bool rexmt = tcp_seq_lt(seq, c->snd_max);
    if ((c->flags & TF_ECN) && len && !rexmt && !(flags & TCP_SYN)) {
        ecn = 2; /* ECT(0), RFC 3168 6.1.1; never on retransmissions or pure ACKs */
        if (c->flags & TF_CWR) {
            h.flags |= TCP_CWR;
            c->flags &= (uint16_t)~TF_CWR;
        }
    }
    uint32_t data_off = seq - c->snd_una;
    int res = emit(tcp, c->laddr, c->raddr, c->if_id, &h, &o, c, data_off, len, ecn);
    if (res < 0) {
        return res;
    }
    if (rexmt && (len || (flags & (TCP_SYN | TCP_FIN)))) {
        tcp->stats.tx_rexmt++;
    }
    if (h.flags & TCP_ACK) {
        c->flags &= (uint16_t) ~(TF_ACKNOW | TF_DELACK);
        c->unacked_segs = 0;
        if (tcp_seq_gt(c->rcv_nxt + wnd, c->rcv_adv)) {
            c->rcv_adv = c->rcv_nxt + wnd;
        }
    }
    return 0;
}

int tcp_emit_raw(struct wren_tcp *tcp, const uint8_t *src, const uint8_t *dst, uint8_t if_id,
                 const struct tcp_hdr *h, const struct tcp_opts *o)
{
    return emit(tcp, src, dst, if_id, h, o, NULL, 0, 0, 0);
}

void tcp_send_ack(struct wren_tcp_conn *c)
{
    tcp_xmit(c, c->snd_nxt, 0, 0);
    tcp_timer_update(c);
}

/* RFC 9293 3.10.7.1: answer a segment that has no connection */
void tcp_send_reset(struct wren_tcp *tcp, const struct tcp_seg *seg)
{
    if (seg->h.flags & TCP_RST) {
        return;
    }
    struct tcp_hdr h = { .src_port = seg->h.dst_port, .dst_port = seg->h.src_port };
    if (seg->h.flags & TCP_ACK) {
        h.seq = seg->h.ack;
        h.flags = TCP_RST;
    } else {
        h.ack = seg->h.seq + seg->len + ((seg->h.flags & TCP_SYN) ? 1 : 0) +
                ((seg->h.flags & TCP_FIN) ? 1 : 0);
        h.flags = TCP_RST | TCP_ACK;
    }
    if (emit(tcp, seg->dst, seg->src, seg->if_id, &h, NULL, NULL, 0, 0, 0) == 0) {
        tcp->stats.tx_rst++;
    }
}

/* ---- what to send --------------------------------------------------------- */

/* SACKed bytes of [from, to) on the scoreboard */
uint32_t tcp_sacked_bytes(const struct wren_tcp_conn *c, uint32_t from, uint32_t to)
{
    uint32_t n = 0;
    for (unsigned i = 0; i < c->n_sack; i++) {
        uint32_t l = c->sack[i][0], r = c->sack[i][1];
        if (tcp_seq_lt(l, from)) {
            l = from;
        }
        if (tcp_seq_gt(r, to)) {
            r = to;
        }
        if (tcp_seq_lt(l, r)) {
            n += r - l;
        }
    }
    return n;
}

/* RFC 6675 IsLost, as one edge: bytes below it are lost (more than
 * DupThresh-1 segments' worth, or DupThresh blocks, SACKed above them) */
static uint32_t lost_edge(const struct wren_tcp_conn *c)
{
    uint32_t thr = 2u * c->mss, sum = 0;
    for (int i = (int)c->n_sack - 1; i >= 0; i--) {
        sum += c->sack[i][1] - c->sack[i][0];
        if (sum > thr || c->n_sack - (unsigned)i >= 3) {
            return c->sack[i][0];
        }
    }
    return c->snd_una;
}

/* the first byte at or after @p from not SACKed, and how many follow */
static uint32_t hole_at(const struct wren_tcp_conn *c, uint32_t from, uint32_t *len)
{
    for (unsigned i = 0; i < c->n_sack; i++) {
        if (tcp_seq_between(from, c->sack[i][0], c->sack[i][1])) {
            from = c->sack[i][1];
        }
    }
    *len = 0;
    for (unsigned i = 0; i < c->n_sack; i++) {
        if (tcp_seq_gt(c->sack[i][0], from)) {
            *len = c->sack[i][0] - from;
            return from;
        }
    }
    return from;
}

/* RFC 6675 SetPipe */
static uint32_t pipe_bytes(const struct wren_tcp_conn *c, uint32_t lost)
{
    uint32_t out = c->snd_max - c->snd_una;
    uint32_t sacked = tcp_sacked_bytes(c, c->snd_una, c->snd_max);
    uint32_t from = tcp_seq_gt(c->high_rxt, c->snd_una) ? c->high_rxt : c->snd_una;
    uint32_t lost_unsent = 0;
    if (tcp_seq_lt(from, lost)) {
        lost_unsent = (lost - from) - tcp_sacked_bytes(c, from, lost);
    }
    return out - sacked - lost_unsent;
}

/* the data length of a segment from @p seq of @p c, options counted */
static uint32_t seg_room(const struct wren_tcp_conn *c)
{
    uint32_t optlen = (c->flags & TF_TS) ? 12 : 0;
    return c->mss > optlen ? c->mss - optlen : 1;
}

/* RFC 6675 recovery: retransmit holes and send new data while pipe < cwnd */
static void sack_recovery_output(struct wren_tcp_conn *c)
{
    struct wren_tcp *tcp = c->tcp;
    uint32_t smss = seg_room(c);
    uint32_t data_end = c->snd_una + c->snd.len;
    for (int guard = 0; guard < 64; guard++) {
        uint32_t lost = lost_edge(c);
        uint32_t pipe = pipe_bytes(c, lost);
        if (pipe + smss > c->cwnd) {
            break;
        }
        uint32_t from = tcp_seq_gt(c->high_rxt, c->snd_una) ? c->high_rxt : c->snd_una;
        uint32_t hlen;
        uint32_t s = hole_at(c, from, &hlen);
        if (tcp_seq_lt(s, lost)) {
            /* rule 1: a lost hole not yet retransmitted */
            uint32_t n = hlen < smss ? hlen : smss;
            if (tcp_seq_gt(s + n, lost) && s + n != lost) {
                n = lost - s;
            }
            if (n > data_end - s) {
                n = data_end - s;
            }
            if (n == 0 || tcp_xmit(c, s, n, TCP_PSH) < 0) {
                break;
            }
            c->high_rxt = s + n;
            tcp->stats.sack_rexmt++;
            continue;
        }
        /* rule 2: new data */
        uint32_t wnd_end = c->snd_una + c->snd_wnd;
        if (tcp_seq_lt(c->snd_nxt, data_end) && tcp_seq_lt(c->snd_nxt, wnd_end)) {
            uint32_t n = data_end - c->snd_nxt;
            n = n < smss ? n : smss;
            n = n < wnd_end - c->snd_nxt ? n : wnd_end - c->snd_nxt;
            if (tcp_xmit(c, c->snd_nxt, n, TCP_PSH) < 0) {
                break;
            }
            c->snd_nxt += n;
            if (tcp_seq_gt(c->snd_nxt, c->snd_max)) {
                c->snd_max = c->snd_nxt;
            }
            continue;
        }
        /* rule 3: a hole below the highest SACKed byte, not yet resent */
        if (hlen && c->n_sack) {
            uint32_t n = hlen < smss ? hlen : smss;
            if (tcp_xmit(c, s, n, TCP_PSH) < 0) {
                break;
            }
            c->high_rxt = s + n;
            tcp->stats.sack_rexmt++;
            continue;
        }
        break;
    }
}

void tcp_output(struct wren_tcp_conn *c)
{
    uint8_t st = c->state;
    if (st == WREN_TCP_CLOSED || st == WREN_TCP_LISTEN) {
        return;
    }
    if (st == WREN_TCP_SYN_SENT || st == WREN_TCP_SYN_RECEIVED) {
        if (c->snd_max == c->iss) {
            uint8_t fl = TCP_SYN;
            if (st == WREN_TCP_SYN_SENT && (c->opts & WREN_TCP_OPT_ECN)) {
                fl |= TCP_ECE | TCP_CWR; /* RFC 3168 6.1.1: ECN-setup SYN */
            } else if (st == WREN_TCP_SYN_RECEIVED && (c->flags & TF_ECN)) {
                fl |= TCP_ECE;
            }
            if (tcp_xmit(c, c->iss, 0, fl) == 0) {
                c->snd_nxt = c->snd_max = c->iss + 1;
            }
            if (!(c->flags & TF_REXMT)) {
                tcp_rexmt_arm(c, backoff(c));
            }
        } else if (c->flags & TF_ACKNOW) {
            tcp_send_ack(c);
        }
        return;
    }
    if ((c->flags & (TF_RECOVERY | TF_SACK)) == (TF_RECOVERY | TF_SACK)) {
        sack_recovery_output(c);
    }
    uint32_t smss = seg_room(c);
    uint32_t data_end = c->snd_una + c->snd.len;
    /* after our FIN is acknowledged (FIN-WAIT-2) only ACKs go out */
    bool fin_q = (c->flags & TF_FIN_Q) != 0 && c->state != WREN_TCP_FIN_WAIT_2;
    for (int guard = 0; guard < 64; guard++) {
        uint32_t wnd = c->snd_wnd < c->cwnd ? c->snd_wnd : c->cwnd;
        if ((c->flags & (TF_RECOVERY | TF_SACK)) == (TF_RECOVERY | TF_SACK)) {
            break; /* the pipe decides (above) */
        }
        uint32_t usable = 0;
        if (tcp_seq_lt(c->snd_nxt, c->snd_una + wnd)) {
            usable = c->snd_una + wnd - c->snd_nxt;
        }
        uint32_t left = tcp_seq_lt(c->snd_nxt, data_end) ? data_end - c->snd_nxt : 0;
        uint32_t n = left < smss ? left : smss;
        n = n < usable ? n : usable;
        /* the FIN follows the last byte; it needs no window */
        bool fin = fin_q && tcp_seq_le(c->snd_nxt, data_end) && c->snd_nxt + n == data_end;
        if (n == 0 && !fin) {
            break;
        }
        if (n < smss && n < left) {
            /* window-limited partial segment: only if nothing is outstanding
             * or it is at least half the largest window (SWS, 3.8.6.2.1) */
            if (c->snd_nxt != c->snd_una && n < c->max_snd_wnd / 2u) {
                break;
            }
        } else if (n < smss && !fin && c->snd_nxt != c->snd_una &&
                   !(c->opts & WREN_TCP_OPT_NODELAY)) {
            break; /* Nagle: a small segment waits for the outstanding ones */
        }
        bool new_data = c->snd_nxt == c->snd_max;
        uint8_t fl = (uint8_t)((n && n == left ? TCP_PSH : 0) | (fin ? TCP_FIN : 0));
        if (tcp_xmit(c, c->snd_nxt, n, fl) < 0) {
            break;
        }
        if (new_data && n && !(c->flags & (TF_TS | TF_RTT))) {
            c->rtt_seq = c->snd_nxt;
            c->rtt_start_ms = tcp_now_ms(c->tcp);
            c->flags |= TF_RTT;
        }
        c->snd_nxt += n + (fin ? 1 : 0);
        if (tcp_seq_gt(c->snd_nxt, c->snd_max)) {
            c->snd_max = c->snd_nxt;
        }
        if (!(c->flags & TF_REXMT) || (c->flags & (TF_PERSIST | TF_KEEP))) {
            tcp_rexmt_arm(c, backoff(c));
        }
        if (fin) {
            break;
        }
    }
    /* zero window with data waiting and nothing outstanding: persist */
    if (c->snd_wnd == 0 && tcp_seq_lt(c->snd_nxt, data_end) && c->snd_una == c->snd_max &&
        !(c->flags & TF_PERSIST)) {
        c->t_rexmt = tcp_now_ms(c->tcp) + backoff(c);
        c->flags = (uint16_t)((c->flags | TF_REXMT | TF_PERSIST) & ~TF_KEEP);
    }
    if (c->flags & TF_ACKNOW) {
        tcp_xmit(c, c->snd_nxt, 0, 0);
    }
    tcp_timer_update(c);
}

/* RTO expiry (RFC 6298 5.4-5.7, RFC 5681 3.1 eq. 4) */
static void rto_expired(struct wren_tcp_conn *c)
{
    struct wren_tcp *tcp = c->tcp;
    unsigned max = tcp_synchronized(c->state) ? CONFIG_WREN_TCP_MAX_RETRIES
                                              : CONFIG_WREN_TCP_SYN_RETRIES;
    if (c->retries >= max) {
        tcp->stats.conn_timeouts++;
        tcp_closed(c, -ETIMEDOUT);
        return;
    }
    c->retries++;
    tcp->stats.rto_expired++;
    c->flags &= (uint16_t) ~(TF_RTT | TF_REXMT);
    if (c->state == WREN_TCP_SYN_SENT || c->state == WREN_TCP_SYN_RECEIVED) {
        c->snd_max = c->snd_nxt = c->iss;
        if (c->state == WREN_TCP_SYN_SENT && c->retries >= 2) {
            c->opts &= (uint8_t)~WREN_TCP_OPT_ECN; /* RFC 3168 6.1.1.1: retry without ECN */
        }
        tcp_output(c);
        return;
    }
    uint32_t flight = c->snd_max - c->snd_una;
    uint32_t smss = seg_room(c);
    c->ssthresh = flight / 2 > 2 * smss ? flight / 2 : 2 * smss;
    c->cwnd = smss;
    c->flags &= (uint16_t)~TF_RECOVERY;
    c->dupacks = 0;
    c->n_sack = 0; /* RFC 2018 8: the receiver may have reneged */
    c->recover = c->snd_max;
    c->high_rxt = c->snd_una;
    c->snd_nxt = c->snd_una;
    tcp_rexmt_arm(c, backoff(c));
    tcp_output(c);
}

static void persist_expired(struct wren_tcp_conn *c)
{
    struct wren_tcp *tcp = c->tcp;
    uint32_t data_end = c->snd_una + c->snd.len;
    c->flags &= (uint16_t) ~(TF_REXMT | TF_PERSIST);
    if (c->snd_wnd == 0 && tcp_seq_lt(c->snd_nxt, data_end)) {
        /* one byte beyond the window; the ACK tells the window (3.8.6.1) */
        tcp->stats.persist_probes++;
        tcp_xmit(c, c->snd_nxt, 1, 0);
        if (c->retries < 16) {
            c->retries++;
        }
        c->t_rexmt = tcp_now_ms(tcp) + backoff(c);
        c->flags |= TF_REXMT | TF_PERSIST;
        return;
    }
    c->retries = 0;
    tcp_output(c);
}

static void keepalive_expired(struct wren_tcp_conn *c)
{
    struct wren_tcp *tcp = c->tcp;
    if (c->retries >= TCP_KEEPALIVE_PROBES) {
        tcp->stats.conn_timeouts++;
        tcp_closed(c, -ETIMEDOUT);
        return;
    }
    c->retries++;
    tcp->stats.keepalive_probes++;
    /* RFC 9293 3.8.4: SEG.SEQ = SND.NXT - 1, no data: the peer must ACK */
    tcp_xmit(c, c->snd_nxt - 1, 0, 0);
    c->t_rexmt = tcp_now_ms(tcp) + TCP_KEEPALIVE_INTVL_MS;
    c->flags |= TF_REXMT | TF_KEEP;
}

static void conn_timer_cb(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_tcp_conn *c = arg;
    uint32_t now = tcp_now_ms(c->tcp);
    if ((c->flags & TF_DELACK) && (int32_t)(c->t_delack - now) <= 0) {
        c->flags &= (uint16_t)~TF_DELACK;
        c->flags |= TF_ACKNOW;
        tcp_output(c);
    }
    if ((c->flags & TF_REXMT) && (int32_t)(c->t_rexmt - now) <= 0) {
        if (c->flags & TF_PERSIST) {
            persist_expired(c);
        } else if (c->flags & TF_KEEP) {
            keepalive_expired(c);
        } else {
            rto_expired(c);
            return;
        }
    }
    if (c->state != WREN_TCP_CLOSED) {
        tcp_timer_update(c);
    }
}

/* the initial window and RTO (RFC 5681 3.1, RFC 6298 2.1) */
void tcp_cc_init(struct wren_tcp_conn *c)
{
    uint32_t smss = seg_room(c);
    c->cwnd = smss > 2190 ? 2 * smss : smss > 1095 ? 3 * smss : 4 * smss;
    c->ssthresh = 0xffff;
    c->dupacks = 0;
    c->n_sack = 0;
    c->recover = c->snd_una;
    c->high_rxt = c->snd_una;
    c->ecn_recover = c->snd_una;
}

/* ---- the module --------------------------------------------------------- */

static void tcp_handle(struct wren_node *node, struct wren_module *self,
                       const struct wren_msg *msg)
{
    struct wren_tcp *tcp = (struct wren_tcp *)self;
    if (msg->type == WREN_MSG_RCV) {
        tcp_input(tcp, msg->ptr);
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

static const struct wren_module_ops tcp_ops = {
    .name = "tcp",
    .handle = tcp_handle,
    .get = tcp_get,
};

int wren_tcp_init(struct wren_node *node, struct wren_tcp *tcp)
{
    memset(tcp, 0, sizeof(*tcp));
    tcp->module.ops = &tcp_ops;
    tcp->module.prio = WREN_PRIO_NET;
    tcp->node = node;
    for (unsigned i = 0; i < sizeof(tcp->isn_key); i += 4) {
        put_be32(tcp->isn_key + i, wren_node_random(node));
    }
    wren_timer_init(&tcp->tw_timer, tw_timer_cb, tcp);
    return wren_netreg_register(node, WREN_NETTYPE_TCP, WREN_NETREG_DEMUX_ALL, &tcp->module,
                                &tcp->reg);
}

struct wren_tcp *wren_tcp_of(struct wren_node *node)
{
    struct wren_netreg_entry *e =
        wren_netreg_lookup(node, WREN_NETTYPE_TCP, WREN_NETREG_DEMUX_ALL, NULL);
    return e && e->module->ops == &tcp_ops ? (struct wren_tcp *)e->module : NULL;
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
    wren_timer_init(&c->timer, conn_timer_cb, c);
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
        keepalive_arm(c);
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

static void conn_start(struct wren_tcp *tcp, struct wren_tcp_conn *c)
{
    c->tcp = tcp;
    c->next = tcp->conns;
    tcp->conns = c;
    c->rto_ms = CONFIG_WREN_TCP_RTO_INIT_MS;
    c->srtt_us = c->rttvar_us = 0;
    c->retries = 0;
    c->err = 0;
    c->iss = tcp_isn(tcp, c->laddr, c->lport, c->raddr, c->rport);
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
    if (rport == 0 || ipv6_addr_is_multicast(raddr) || ipv6_addr_is_unspecified(raddr)) {
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
    if (ipv6_addr_is_loopback(raddr)) {
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
    tcp_conn_clear(c);
    c->listener = NULL;
    conn_start(tcp, c);
    c->state = WREN_TCP_SYN_SENT;
    tcp_output(c);
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
        conns[i]->listener = l;
        conns[i]->tcp = tcp;
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

struct wren_tcp_conn *wren_tcp_accept(struct wren_tcp_listener *l)
{
    for (unsigned i = 0; i < l->n; i++) {
        struct wren_tcp_conn *c = l->conns[i];
        if (!(c->flags & TF_HELD) && (c->flags & TF_NOTIFY)) {
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
        if (!(c->flags & TF_HELD) && c->state != WREN_TCP_CLOSED) {
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

ssize_t wren_tcp_send(struct wren_tcp_conn *c, const void *data, size_t len)
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
    if (n) {
        tcp_ring_write(&c->snd, c->snd.len, data, (uint32_t)n);
        c->snd.len = (uint16_t)(c->snd.len + n);
        tcp_output(c);
    }
    return (ssize_t)n;
}

ssize_t wren_tcp_recv(struct wren_tcp_conn *c, void *buf, size_t max)
{
    if (c->rcv.len) {
        size_t n = max < c->rcv.len ? max : c->rcv.len;
        tcp_ring_read(&c->rcv, 0, buf, (uint32_t)n);
        tcp_ring_consume(&c->rcv, (uint32_t)n);
        if (c->state != WREN_TCP_CLOSED && c->state != WREN_TCP_SYN_SENT) {
            /* a window update when the window opened by enough (3.8.6.2.2) */
            uint32_t edge = c->rcv_nxt + (uint32_t)(c->rcv.size - c->rcv.len);
            uint32_t step = c->rcv.size / 2 < 2u * c->rcv_mss ? c->rcv.size / 2 : 2u * c->rcv_mss;
            if (!(c->flags & TF_RCV_FIN) && tcp_seq_ge(edge, c->rcv_adv + step)) {
                c->flags |= TF_ACKNOW;
                tcp_output(c);
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
        tcp_closed(c, 0);
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
    tcp_output(c);
    return 0;
}

void wren_tcp_abort(struct wren_tcp_conn *c)
{
    if (c->state == WREN_TCP_CLOSED) {
        return;
    }
    if (c->state != WREN_TCP_SYN_SENT) {
        struct tcp_hdr h = { .src_port = c->lport, .dst_port = c->rport, .seq = c->snd_nxt,
                             .flags = TCP_RST };
        if (emit(c->tcp, c->laddr, c->raddr, c->if_id, &h, NULL, NULL, 0, 0, 0) == 0) {
            c->tcp->stats.tx_rst++;
        }
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
    tcp_conn_clear(c);
    c->flags = 0;
    if (c->listener == NULL) {
        c->tcp = NULL;
    }
}

const char *wren_tcp_state_name(uint8_t state)
{
    static const char *const names[] = {
        "CLOSED",     "LISTEN",     "SYN-SENT", "SYN-RECEIVED", "ESTABLISHED", "FIN-WAIT-1",
        "FIN-WAIT-2", "CLOSE-WAIT", "CLOSING",  "LAST-ACK",     "TIME-WAIT",
    };
    return state < sizeof(names) / sizeof(names[0]) ? names[state] : "?";
}

void tcp_keepalive_arm(struct wren_tcp_conn *c)
{
    keepalive_arm(c);
}
