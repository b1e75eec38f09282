/* The TCP layer's sending side: building segments, what to send and when
 * (windows, Nagle, silly-window avoidance, SACK-based recovery with the
 * pipe of RFC 6675), and the retransmission, persist, keep-alive and
 * delayed-ACK timers. */
#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "ipv6/ipv6.h"
#include "net/netapi.h"
#include "net/nettype.h"
#include "tcp/tcp_priv.h"
#include "wire/ipv6.h"

static bool tcp_synchronized(uint8_t st)
{
    return st >= WREN_TCP_ESTABLISHED;
}

/* ---- timers ------------------------------------------------------------ */

void wren_tcp_timer_update(struct wren_tcp_conn *c)
{
    struct wren_node *node = c->tcp->node;
    bool any = false;
    uint32_t when = 0;
    if (c->flags & TF_REXMT) {
        when = c->t_rexmt;
        any = true;
    }
    if ((c->flags & TF_DELACK) && (!any || wren_tcp_seq_lt(c->t_delack, when))) {
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

void wren_tcp_rexmt_arm(struct wren_tcp_conn *c, uint32_t ms)
{
    c->t_rexmt = wren_tcp_now_ms(c->tcp) + ms;
    c->flags |= TF_REXMT;
    c->flags &= (uint16_t) ~(TF_PERSIST | TF_KEEP);
    wren_tcp_timer_update(c);
}

static uint32_t backoff(const struct wren_tcp_conn *c)
{
    uint32_t rto = c->rto_ms;
    for (unsigned i = 0; i < c->retries && rto < CONFIG_WREN_TCP_RTO_MAX_MS; i++) {
        rto *= 2;
    }
    return rto > CONFIG_WREN_TCP_RTO_MAX_MS ? CONFIG_WREN_TCP_RTO_MAX_MS : rto;
}

void wren_tcp_keepalive_arm(struct wren_tcp_conn *c)
{
    if ((c->opts & WREN_TCP_OPT_KEEPALIVE) && c->state == WREN_TCP_ESTABLISHED) {
        c->t_rexmt = wren_tcp_now_ms(c->tcp) + TCP_KEEPALIVE_IDLE_MS;
        c->flags = (uint16_t)((c->flags | TF_REXMT | TF_KEEP) & ~TF_PERSIST);
    } else {
        c->flags &= (uint16_t) ~(TF_REXMT | TF_KEEP | TF_PERSIST);
    }
    c->retries = 0;
    wren_tcp_timer_update(c);
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
    int hl = wren_tcp_hdr_len(o);
    if (hl < 0) {
        return -EINVAL;
    }
    if (len) {
        payload = wren_pktbuf_add(pb, NULL, NULL, len, WREN_NETTYPE_UNDEF);
        if (payload == NULL) {
            goto nobufs;
        }
        wren_tcp_ring_read(&c->snd, data_off, payload->data, len);
    }
    struct wren_snip *hs = wren_pktbuf_add(pb, payload, NULL, (size_t)hl, WREN_NETTYPE_TCP);
    if (hs == NULL) {
        wren_pktbuf_release(pb, payload);
        goto nobufs;
    }
    wren_tcp_hdr_emit(h, o, hs->data, hs->size);
    struct inet_csum cs;
    wren_tcp_csum_start(&cs, src, dst, (uint32_t)hl + len);
    wren_inet_csum_update(&cs, hs->data, (size_t)hl);
    if (payload) {
        wren_inet_csum_update(&cs, payload->data, len);
    }
    put_be16(hs->data + TCP_OFF_CSUM, wren_inet_csum_final(&cs));
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
    uint32_t latest = c->sack_rx_last - c->rcv_nxt;
    unsigned n = 1; /* slot 0 is the latest segment's run */
    bool first = false;
    for (uint32_t off = 0; off < space;) {
        off += wren_tcp_bits_run(&c->rcv, c->rcv_bitmap, c->rcv.len + off, space - off, false);
        if (off >= space) {
            break;
        }
        uint32_t run = wren_tcp_bits_run(&c->rcv, c->rcv_bitmap, c->rcv.len + off, space - off, true);
        unsigned k = n;
        if (!first && latest - off < run) {
            k = 0;
            first = true;
        } else if (n < max) {
            n++;
        }
        if (k < max) {
            o->sack[k][0] = c->rcv_nxt + off;
            o->sack[k][1] = c->rcv_nxt + off + run;
        }
        off += run;
    }
    if (!first) {
        /* no run holds it any more (filled since): the others in order */
        n--;
        memmove(o->sack[0], o->sack[1], n * sizeof(o->sack[0]));
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
            wren_tcp_bits_run(&c->rcv, c->rcv_bitmap, c->rcv.len,
                         (uint32_t)(c->rcv.size - c->rcv.len), false) <
                (uint32_t)(c->rcv.size - c->rcv.len)) {
            sack_blocks(c, o, o->has_ts ? 3 : 4);
        }
    }
    if (o->has_ts) {
        wren_tcp_ts_now(c, &o->ts_val);
        o->ts_ecr = c->ts_recent;
    }
}

/* Send one segment of @p c: @p len data bytes from @p seq, @p flags. */
int wren_tcp_xmit(struct wren_tcp_conn *c, uint32_t seq, uint32_t len, uint8_t flags)
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
    uint32_t wnd = wren_tcp_rcv_window(c);
    h.window = (uint16_t)wnd;
    uint8_t ecn = 0;
    bool rexmt = wren_tcp_seq_lt(seq, c->snd_max);
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
        if (wren_tcp_seq_gt(c->rcv_nxt + wnd, c->rcv_adv)) {
            c->rcv_adv = c->rcv_nxt + wnd;
        }
    }
    return 0;
}

void wren_tcp_send_rst(struct wren_tcp_conn *c)
{
    struct tcp_hdr h = { .src_port = c->lport, .dst_port = c->rport, .seq = c->snd_nxt,
                         .flags = TCP_RST };
    if (emit(c->tcp, c->laddr, c->raddr, c->if_id, &h, NULL, NULL, 0, 0, 0) == 0) {
        c->tcp->stats.tx_rst++;
    }
}

int wren_tcp_emit_raw(struct wren_tcp *tcp, const uint8_t *src, const uint8_t *dst, uint8_t if_id,
                 const struct tcp_hdr *h, const struct tcp_opts *o)
{
    return emit(tcp, src, dst, if_id, h, o, NULL, 0, 0, 0);
}

void wren_tcp_send_ack(struct wren_tcp_conn *c)
{
    wren_tcp_xmit(c, c->snd_nxt, 0, 0);
    wren_tcp_timer_update(c);
}

/* RFC 9293 3.10.7.1: answer a segment that has no connection */
void wren_tcp_send_reset(struct wren_tcp *tcp, const struct tcp_seg *seg)
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
uint32_t wren_tcp_sacked_bytes(const struct wren_tcp_conn *c, uint32_t from, uint32_t to)
{
    uint32_t n = 0;
    for (unsigned i = 0; i < c->n_sack; i++) {
        uint32_t l = c->sack[i][0], r = c->sack[i][1];
        if (wren_tcp_seq_lt(l, from)) {
            l = from;
        }
        if (wren_tcp_seq_gt(r, to)) {
            r = to;
        }
        if (wren_tcp_seq_lt(l, r)) {
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
        if (wren_tcp_seq_between(from, c->sack[i][0], c->sack[i][1])) {
            from = c->sack[i][1];
        }
    }
    *len = 0;
    for (unsigned i = 0; i < c->n_sack; i++) {
        if (wren_tcp_seq_gt(c->sack[i][0], from)) {
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
    uint32_t sacked = wren_tcp_sacked_bytes(c, c->snd_una, c->snd_max);
    uint32_t from = wren_tcp_seq_gt(c->high_rxt, c->snd_una) ? c->high_rxt : c->snd_una;
    uint32_t lost_unsent = 0;
    if (wren_tcp_seq_lt(from, lost)) {
        lost_unsent = (lost - from) - wren_tcp_sacked_bytes(c, from, lost);
    }
    return out - sacked - lost_unsent;
}

/* the data length of a segment from @p seq of @p c, options counted */
uint32_t wren_tcp_smss(const struct wren_tcp_conn *c)
{
    uint32_t optlen = (c->flags & TF_TS) ? 12 : 0;
    return c->mss > optlen ? c->mss - optlen : 1;
}

/* RFC 6675 4 NextSeg() rules 1 and 3: resend @p n bytes of the hole at
 * @p s; false if nothing went */
static bool rexmt_hole(struct wren_tcp_conn *c, uint32_t s, uint32_t n)
{
    if (n == 0 || wren_tcp_xmit(c, s, n, TCP_PSH) < 0) {
        return false;
    }
    c->high_rxt = s + n;
    c->tcp->stats.sack_rexmt++;
    return true;
}

/* rule 1's length: the hole at @p s (@p hlen bytes) up to the lost edge,
 * one SMSS at most, within the data */
static uint32_t lost_len(uint32_t s, uint32_t hlen, uint32_t lost, uint32_t smss,
                         uint32_t data_end)
{
    uint32_t n = hlen < smss ? hlen : smss;
    if (wren_tcp_seq_gt(s + n, lost) && s + n != lost) {
        n = lost - s;
    }
    return n > data_end - s ? data_end - s : n;
}

/* rule 2's length: new data from SND.NXT the peer's window takes (0: none) */
static uint32_t new_data_len(const struct wren_tcp_conn *c, uint32_t data_end, uint32_t smss)
{
    uint32_t wnd_end = c->snd_una + c->snd_wnd;
    if (!wren_tcp_seq_lt(c->snd_nxt, data_end) || !wren_tcp_seq_lt(c->snd_nxt, wnd_end)) {
        return 0;
    }
    uint32_t n = data_end - c->snd_nxt;
    n = n < smss ? n : smss;
    return n < wnd_end - c->snd_nxt ? n : wnd_end - c->snd_nxt;
}

/* rule 2: @p n bytes of new data; false if they did not go */
static bool send_new_data(struct wren_tcp_conn *c, uint32_t n)
{
    if (wren_tcp_xmit(c, c->snd_nxt, n, TCP_PSH) < 0) {
        return false;
    }
    c->snd_nxt += n;
    if (wren_tcp_seq_gt(c->snd_nxt, c->snd_max)) {
        c->snd_max = c->snd_nxt;
    }
    return true;
}

/* RFC 6675 recovery: retransmit holes and send new data while pipe < cwnd */
static void sack_recovery_output(struct wren_tcp_conn *c)
{
    uint32_t smss = wren_tcp_smss(c);
    uint32_t data_end = c->snd_una + c->snd.len;
    for (int guard = 0; guard < 64; guard++) {
        uint32_t lost = lost_edge(c);
        uint32_t pipe = pipe_bytes(c, lost);
        if (pipe + smss > c->cwnd) {
            break;
        }
        uint32_t from = wren_tcp_seq_gt(c->high_rxt, c->snd_una) ? c->high_rxt : c->snd_una;
        uint32_t hlen, n;
        uint32_t s = hole_at(c, from, &hlen);
        bool sent;
        if (wren_tcp_seq_lt(s, lost)) {
            /* rule 1: a lost hole not yet retransmitted */
            sent = rexmt_hole(c, s, lost_len(s, hlen, lost, smss, data_end));
        } else if ((n = new_data_len(c, data_end, smss)) != 0) {
            sent = send_new_data(c, n); /* rule 2: new data */
        } else if (hlen && c->n_sack) {
            /* rule 3: a hole below the highest SACKed byte, not yet resent */
            sent = rexmt_hole(c, s, hlen < smss ? hlen : smss);
        } else {
            break;
        }
        if (!sent) {
            break;
        }
    }
}

/* SYN-SENT and SYN-RECEIVED: our SYN (SYN-ACK) when it is to go (SND.MAX =
 * ISS: not sent yet, or again), else an ACK if one is due */
static void syn_output(struct wren_tcp_conn *c)
{
    uint8_t st = c->state;
    if (c->snd_max == c->iss) {
        uint8_t fl = TCP_SYN;
        if (st == WREN_TCP_SYN_SENT && (c->opts & WREN_TCP_OPT_ECN)) {
            fl |= TCP_ECE | TCP_CWR; /* RFC 3168 6.1.1: ECN-setup SYN */
        } else if (st == WREN_TCP_SYN_RECEIVED && (c->flags & TF_ECN)) {
            fl |= TCP_ECE;
        }
        if (wren_tcp_xmit(c, c->iss, 0, fl) == 0) {
            c->snd_nxt = c->snd_max = c->iss + 1;
        }
        if (!(c->flags & TF_REXMT)) {
            wren_tcp_rexmt_arm(c, backoff(c));
        }
    } else if (c->flags & TF_ACKNOW) {
        wren_tcp_send_ack(c);
    }
}

/* Whether a segment of @p n bytes (of the @p left ready) goes now (RFC 9293
 * 3.8.6.2.1): a window-limited partial segment only if nothing is
 * outstanding or it is at least half the largest window (SWS avoidance); a
 * small one waits for the outstanding ones (Nagle), unless it carries the
 * FIN or the send buffer is full: no write can join it before an ACK, and
 * a peer's delayed ACK of the one segment out would stall us (a 2 KiB
 * buffer is under two segments of 1,220 bytes) */
static bool send_now(const struct wren_tcp_conn *c, uint32_t n, uint32_t left, uint32_t smss,
                     bool fin)
{
    if (n >= smss) {
        return true;
    }
    if (n < left) {
        return c->snd_nxt == c->snd_una || n >= c->max_snd_wnd / 2u;
    }
    return fin || c->snd_nxt == c->snd_una || (c->opts & WREN_TCP_OPT_NODELAY) ||
           c->snd.len >= c->snd.size;
}

/* After a segment of @p n bytes (and the FIN) from SND.NXT went: an RTT
 * sample starts on new data (without timestamps), SND.NXT and SND.MAX
 * advance, the retransmission timer runs. */
static void data_sent(struct wren_tcp_conn *c, uint32_t n, bool fin, bool new_data)
{
    if (new_data && n && !(c->flags & (TF_TS | TF_RTT))) {
        c->rtt_seq = c->snd_nxt;
        c->rtt_start_ms = wren_tcp_now_ms(c->tcp);
        c->flags |= TF_RTT;
    }
    c->snd_nxt += n + (fin ? 1 : 0);
    if (wren_tcp_seq_gt(c->snd_nxt, c->snd_max)) {
        c->snd_max = c->snd_nxt;
    }
    if (!(c->flags & TF_REXMT) || (c->flags & (TF_PERSIST | TF_KEEP))) {
        wren_tcp_rexmt_arm(c, backoff(c));
    }
}

/* RFC 3042 limited transmit: a new segment for each of the first two
 * duplicate ACKs, so that a small window still yields three */
static uint32_t limited_cwnd(const struct wren_tcp_conn *c, uint32_t smss)
{
    uint32_t cwnd = c->cwnd;
    if (!(c->flags & TF_RECOVERY) && c->dupacks && c->dupacks < 3) {
        cwnd += c->dupacks * smss;
    }
    return cwnd;
}

/* RFC 9293 3.8.6.2.1: the usable window, SND.UNA + @p wnd - SND.NXT, or 0 */
static uint32_t usable_wnd(const struct wren_tcp_conn *c, uint32_t wnd)
{
    if (wren_tcp_seq_lt(c->snd_nxt, c->snd_una + wnd)) {
        return c->snd_una + wnd - c->snd_nxt;
    }
    return 0;
}

/* segments from SND.NXT up to @p data_end, and the FIN, as far as
 * min(cwnd, the peer's window) with RFC 3042's limited transmit, SWS
 * avoidance and Nagle let them go */
static void data_output(struct wren_tcp_conn *c, uint32_t data_end)
{
    uint32_t smss = wren_tcp_smss(c);
    /* after our FIN is acknowledged (FIN-WAIT-2) only ACKs go out */
    bool fin_q = (c->flags & TF_FIN_Q) != 0 && c->state != WREN_TCP_FIN_WAIT_2;
    uint32_t cwnd = limited_cwnd(c, smss);
    for (int guard = 0; guard < 64; guard++) {
        uint32_t wnd = c->snd_wnd < cwnd ? c->snd_wnd : cwnd;
        if ((c->flags & (TF_RECOVERY | TF_SACK)) == (TF_RECOVERY | TF_SACK)) {
            break; /* the pipe decides (sack_recovery_output) */
        }
        uint32_t usable = usable_wnd(c, wnd);
        uint32_t left = wren_tcp_seq_lt(c->snd_nxt, data_end) ? data_end - c->snd_nxt : 0;
        uint32_t n = left < smss ? left : smss;
        n = n < usable ? n : usable;
        /* the FIN follows the last byte; it needs no window */
        bool fin = fin_q && wren_tcp_seq_le(c->snd_nxt, data_end) && c->snd_nxt + n == data_end;
        if ((n == 0 && !fin) || !send_now(c, n, left, smss, fin)) {
            break;
        }
        bool new_data = c->snd_nxt == c->snd_max;
        uint8_t fl = (uint8_t)((n && n == left ? TCP_PSH : 0) | (fin ? TCP_FIN : 0));
        if (wren_tcp_xmit(c, c->snd_nxt, n, fl) < 0) {
            break;
        }
        data_sent(c, n, fin, new_data);
        if (fin) {
            break;
        }
    }
}

void wren_tcp_output(struct wren_tcp_conn *c)
{
    uint8_t st = c->state;
    if (st == WREN_TCP_CLOSED || st == WREN_TCP_LISTEN) {
        return;
    }
    if (st == WREN_TCP_SYN_SENT || st == WREN_TCP_SYN_RECEIVED) {
        syn_output(c);
        return;
    }
    if ((c->flags & (TF_RECOVERY | TF_SACK)) == (TF_RECOVERY | TF_SACK)) {
        sack_recovery_output(c);
    }
    uint32_t data_end = c->snd_una + c->snd.len;
    data_output(c, data_end);
    /* zero window with data waiting and nothing outstanding: persist */
    if (c->snd_wnd == 0 && wren_tcp_seq_lt(c->snd_nxt, data_end) && c->snd_una == c->snd_max &&
        !(c->flags & TF_PERSIST)) {
        c->t_rexmt = wren_tcp_now_ms(c->tcp) + backoff(c);
        c->flags = (uint16_t)((c->flags | TF_REXMT | TF_PERSIST) & ~TF_KEEP);
    }
    if (c->flags & TF_ACKNOW) {
        wren_tcp_xmit(c, c->snd_nxt, 0, 0);
    }
    wren_tcp_timer_update(c);
}

static void persist_expired(struct wren_tcp_conn *c);

/* RTO expiry (RFC 6298 5.4-5.7, RFC 5681 3.1 eq. 4) */
static void rto_expired(struct wren_tcp_conn *c)
{
    struct wren_tcp *tcp = c->tcp;
    if (tcp_synchronized(c->state) && c->snd_wnd == 0 && c->snd.len) {
        /* the window closed with data in flight: nothing may be resent, so
         * the retransmission becomes a zero-window probe (RFC 9293 3.8.6.1),
         * and a peer that answers it is not given up */
        c->snd_nxt = c->snd_una;
        c->flags &= (uint16_t)~TF_RTT;
        persist_expired(c);
        return;
    }
    unsigned max = tcp_synchronized(c->state) ? CONFIG_WREN_TCP_MAX_RETRIES
                                              : CONFIG_WREN_TCP_SYN_RETRIES;
    if (c->retries >= max) {
        tcp->stats.conn_timeouts++;
        wren_tcp_closed(c, -ETIMEDOUT);
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
        wren_tcp_output(c);
        return;
    }
    uint32_t flight = c->snd_max - c->snd_una;
    uint32_t smss = wren_tcp_smss(c);
    c->ssthresh = flight / 2 > 2 * smss ? flight / 2 : 2 * smss;
    c->cwnd = smss;
    c->flags &= (uint16_t)~TF_RECOVERY;
    c->dupacks = 0;
    c->n_sack = 0; /* RFC 2018 8: the receiver may have reneged */
    c->recover = c->snd_max;
    c->high_rxt = c->snd_una;
    c->snd_nxt = c->snd_una;
    wren_tcp_rexmt_arm(c, backoff(c));
    wren_tcp_output(c);
}

static void persist_expired(struct wren_tcp_conn *c)
{
    struct wren_tcp *tcp = c->tcp;
    uint32_t data_end = c->snd_una + c->snd.len;
    c->flags &= (uint16_t) ~(TF_REXMT | TF_PERSIST);
    if (c->snd_wnd == 0 && wren_tcp_seq_lt(c->snd_nxt, data_end)) {
        /* one byte beyond the window; the ACK tells the window (3.8.6.1) */
        tcp->stats.persist_probes++;
        wren_tcp_xmit(c, c->snd_nxt, 1, 0);
        if (c->snd_max == c->snd_nxt) {
            c->snd_max = c->snd_nxt + 1; /* sent: an ACK of it is acceptable */
        }
        if (c->retries < 16) {
            c->retries++;
        }
        c->t_rexmt = wren_tcp_now_ms(tcp) + backoff(c);
        c->flags |= TF_REXMT | TF_PERSIST;
        return;
    }
    c->retries = 0;
    wren_tcp_output(c);
}

static void keepalive_expired(struct wren_tcp_conn *c)
{
    struct wren_tcp *tcp = c->tcp;
    if (c->retries >= TCP_KEEPALIVE_PROBES) {
        tcp->stats.conn_timeouts++;
        wren_tcp_closed(c, -ETIMEDOUT);
        return;
    }
    c->retries++;
    tcp->stats.keepalive_probes++;
    /* RFC 9293 3.8.4: SEG.SEQ = SND.NXT - 1, no data: the peer must ACK */
    wren_tcp_xmit(c, c->snd_nxt - 1, 0, 0);
    c->t_rexmt = wren_tcp_now_ms(tcp) + TCP_KEEPALIVE_INTVL_MS;
    c->flags |= TF_REXMT | TF_KEEP;
}

void wren_tcp_conn_timer_cb(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_tcp_conn *c = arg;
    uint32_t now = wren_tcp_now_ms(c->tcp);
    if ((c->flags & TF_DELACK) && (int32_t)(c->t_delack - now) <= 0) {
        c->flags &= (uint16_t)~TF_DELACK;
        c->flags |= TF_ACKNOW;
        wren_tcp_output(c);
    }
    if ((c->flags & TF_REXMT) && (int32_t)(c->t_rexmt - now) <= 0) {
        uint32_t ut = c->tcp->user_timeout_ms;
        if (ut && tcp_synchronized(c->state) && !(c->flags & TF_KEEP) &&
            (c->snd.len || c->snd_una != c->snd_max) && now - c->progress_ms >= ut) {
            /* RFC 9293 3.10.8: no progress within the user timeout */
            wren_tcp_send_rst(c);
            c->tcp->stats.user_timeouts++;
            wren_tcp_closed(c, -ETIMEDOUT);
            return;
        }
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
        wren_tcp_timer_update(c);
    }
}

/* the initial window and RTO (RFC 5681 3.1, RFC 6298 2.1) */
void wren_tcp_cc_init(struct wren_tcp_conn *c)
{
    uint32_t smss = wren_tcp_smss(c);
    c->cwnd = smss > 2190 ? 2 * smss : smss > 1095 ? 3 * smss : 4 * smss;
    c->ssthresh = 0xffff;
    c->dupacks = 0;
    c->n_sack = 0;
    c->recover = c->snd_una;
    c->high_rxt = c->snd_una;
    c->ecn_recover = c->snd_una;
}

