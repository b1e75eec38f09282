/* Segment arrival (RFC 9293 3.10.7), with RFC 5961's checks, the ACK
 * clock's congestion control (RFC 5681, RFC 6582), the SACK scoreboard
 * (RFC 2018, RFC 6675), timestamps (RFC 7323) and ECN (RFC 3168). */
#include <errno.h>
#include <string.h>

#include "ipv6/ipv6.h"
#include "net/netif.h"
#include "net/nettype.h"
#include "tcp/tcp_priv.h"
#include "wire/ipv6.h"

/* RFC 5961 7: ACKs to invalid segments, a few per second for the whole layer */
static bool ack_budget(struct wren_tcp *tcp)
{
    uint32_t sec = wren_tcp_now_ms(tcp) / 1000;
    if (sec != tcp->challenge_sec) {
        tcp->challenge_sec = sec;
        tcp->challenge_left = CONFIG_WREN_TCP_CHALLENGE_PER_S;
    }
    if (tcp->challenge_left == 0) {
        return false;
    }
    tcp->challenge_left--;
    return true;
}

static void challenge_ack(struct wren_tcp_conn *c)
{
    struct wren_tcp *tcp = c->tcp;
    if (!ack_budget(tcp)) {
        tcp->stats.challenge_limited++;
        return;
    }
    tcp->stats.challenge_acks++;
    wren_tcp_send_ack(c);
}

/* The ACK that answers an unacceptable segment, one acknowledging unsent
 * data (RFC 9293 3.10.7.4) or an old timestamp (RFC 7323 5.3). Two
 * endpoints that disagree about the sequence space (a spoofed segment moved
 * one of them on) would answer each other's ACKs for ever, at once: an ACK
 * that answers a bare ACK takes from the challenge-ACK budget, which breaks
 * the loop. Segments with data, SYN or FIN (retransmissions, window probes)
 * are always answered. */
static void invalid_seg_ack(struct wren_tcp_conn *c, const struct tcp_seg *seg)
{
    if (seg->len == 0 && !(seg->h.flags & (TCP_SYN | TCP_FIN)) && !ack_budget(c->tcp)) {
        c->tcp->stats.ack_limited++;
        return;
    }
    c->flags |= TF_ACKNOW;
    wren_tcp_output(c);
}

/* RFC 6298 2.2-2.3 with a sample of @p ms milliseconds */
static void rtt_sample(struct wren_tcp_conn *c, uint32_t ms)
{
    uint32_t r = ms * 1000;
    if (c->srtt_us == 0 && c->rttvar_us == 0) {
        c->srtt_us = r;
        c->rttvar_us = r / 2;
    } else {
        uint32_t d = c->srtt_us > r ? c->srtt_us - r : r - c->srtt_us;
        c->rttvar_us = c->rttvar_us - c->rttvar_us / 4 + d / 4;
        c->srtt_us = c->srtt_us - c->srtt_us / 8 + r / 8;
    }
    uint32_t var = 4 * c->rttvar_us > 1000 ? 4 * c->rttvar_us : 1000;
    uint32_t rto = (c->srtt_us + var + 999) / 1000;
    c->rto_ms = (uint16_t)(rto < CONFIG_WREN_TCP_RTO_MIN_MS   ? CONFIG_WREN_TCP_RTO_MIN_MS
                           : rto > CONFIG_WREN_TCP_RTO_MAX_MS ? CONFIG_WREN_TCP_RTO_MAX_MS
                                                              : rto);
}

/* copy @p n payload bytes (from @p skip on) into the receive ring at @p off */
static void copy_in(struct wren_tcp_conn *c, const struct tcp_seg *seg, uint32_t skip,
                    uint32_t off, uint32_t n)
{
    struct wren_tcp_ring *r = &c->rcv;
    uint32_t p = (uint32_t)r->head + off;
    p = p >= r->size ? p - r->size : p;
    uint32_t first = r->size - p < n ? r->size - p : n;
    wren_pkt_copy_from(seg->pkt, seg->off + skip, r->buf + p, first);
    wren_pkt_copy_from(seg->pkt, seg->off + skip + first, r->buf, n - first);
}

/* options of a SYN or SYN-ACK: MSS, SACK, timestamps (window scale is
 * never offered, so an offer of the peer's is declined by silence) */
static void syn_options(struct wren_tcp_conn *c, const struct tcp_seg *seg, uint8_t ecn_setup)
{
    const struct tcp_hdr *h = &seg->h;
    uint32_t mss = seg->o.has_mss ? seg->o.mss : TCP_DEFAULT_MSS_V6;
    mss = mss < c->rcv_mss ? mss : c->rcv_mss;
    c->mss = (uint16_t)(mss < 32 ? 32 : mss);
    if ((c->opts & WREN_TCP_OPT_SACK) && seg->o.sack_ok) {
        c->flags |= TF_SACK;
    }
    if ((c->opts & WREN_TCP_OPT_TS) && seg->o.has_ts) {
        c->flags |= TF_TS;
        c->ts_recent = seg->o.ts_val;
    }
    /* RFC 3168 6.1.1: ECE+CWR on a SYN, ECE alone on a SYN-ACK */
    if ((c->opts & WREN_TCP_OPT_ECN) && (h->flags & (TCP_ECE | TCP_CWR)) == ecn_setup) {
        c->flags |= TF_ECN;
    }
    c->rcv_nxt = c->rcv_adv = h->seq + 1;
    c->snd_wnd = c->max_snd_wnd = h->window;
    c->snd_wl1 = h->seq;
    c->snd_wl2 = h->ack;
}

/* RFC 2018 / RFC 6675: merge the segment's SACK blocks into the scoreboard */
static void sack_update(struct wren_tcp_conn *c, const struct tcp_seg *seg)
{
    for (unsigned i = 0; i < seg->o.n_sack; i++) {
        uint32_t l = seg->o.sack[i][0], r = seg->o.sack[i][1];
        if (wren_tcp_seq_lt(l, c->snd_una)) {
            l = c->snd_una;
        }
        if (!wren_tcp_seq_lt(l, r) || wren_tcp_seq_gt(r, c->snd_max)) {
            continue; /* empty, below SND.UNA (D-SACK), or beyond what was sent */
        }
        /* insert in order, then merge neighbours */
        unsigned n = c->n_sack, at = 0;
        while (at < n && wren_tcp_seq_lt(c->sack[at][0], l)) {
            at++;
        }
        if (n == CONFIG_WREN_TCP_SACK_BLOCKS) {
            if (at == n) {
                continue; /* full: keep the lower blocks, they matter first */
            }
            n--;
        }
        memmove(&c->sack[at + 1], &c->sack[at], (n - at) * sizeof(c->sack[0]));
        c->sack[at][0] = l;
        c->sack[at][1] = r;
        n++;
        unsigned w = 0;
        for (unsigned k = 1; k < n; k++) {
            if (wren_tcp_seq_le(c->sack[k][0], c->sack[w][1])) {
                if (wren_tcp_seq_gt(c->sack[k][1], c->sack[w][1])) {
                    c->sack[w][1] = c->sack[k][1];
                }
            } else {
                w++;
                c->sack[w][0] = c->sack[k][0];
                c->sack[w][1] = c->sack[k][1];
            }
        }
        c->n_sack = (uint8_t)(w + 1);
    }
}

static void sack_prune(struct wren_tcp_conn *c)
{
    unsigned w = 0;
    for (unsigned k = 0; k < c->n_sack; k++) {
        if (wren_tcp_seq_gt(c->sack[k][1], c->snd_una)) {
            c->sack[w][0] = wren_tcp_seq_lt(c->sack[k][0], c->snd_una) ? c->snd_una : c->sack[k][0];
            c->sack[w][1] = c->sack[k][1];
            w++;
        }
    }
    c->n_sack = (uint8_t)w;
}

/* enter fast retransmit / fast recovery (RFC 5681 3.2, RFC 6582, RFC 6675 5) */
static void enter_recovery(struct wren_tcp_conn *c)
{
    uint32_t smss = wren_tcp_smss(c);
    uint32_t flight = c->snd_max - c->snd_una;
    c->recover = c->snd_max;
    c->ssthresh = flight / 2 > 2 * smss ? flight / 2 : 2 * smss;
    c->flags |= TF_RECOVERY;
    c->flags &= (uint16_t)~TF_RTT;
    c->tcp->stats.fast_rexmt++;
    uint32_t data_end = c->snd_una + c->snd.len;
    uint32_t n = data_end - c->snd_una;
    n = n < smss ? n : smss;
    if (c->flags & TF_SACK) {
        c->cwnd = c->ssthresh;
        for (unsigned i = 0; i < c->n_sack; i++) {
            if (wren_tcp_seq_gt(c->sack[i][0], c->snd_una) && c->sack[i][0] - c->snd_una < n) {
                n = c->sack[i][0] - c->snd_una;
                break;
            }
        }
    } else {
        c->cwnd = c->ssthresh + 3 * smss;
    }
    if (n) {
        wren_tcp_xmit(c, c->snd_una, n, 0);
    }
    c->high_rxt = c->snd_una + n;
    wren_tcp_rexmt_arm(c, c->rto_ms);
}

/* a new cumulative ACK of @p acked bytes (RFC 5681 3.1, RFC 6582 3.2) */
static void cc_ack(struct wren_tcp_conn *c, uint32_t acked)
{
    uint32_t smss = wren_tcp_smss(c);
    if (c->flags & TF_RECOVERY) {
        if (wren_tcp_seq_ge(c->snd_una, c->recover)) {
            /* full ACK: leave recovery */
            uint32_t flight = c->snd_max - c->snd_una;
            c->cwnd = c->ssthresh < flight + smss ? c->ssthresh : flight + smss;
            c->flags &= (uint16_t)~TF_RECOVERY;
            c->dupacks = 0;
        } else if (!(c->flags & TF_SACK)) {
            /* partial ACK: resend the next hole, deflate */
            uint32_t n = c->snd.len < smss ? c->snd.len : smss;
            if (n) {
                wren_tcp_xmit(c, c->snd_una, n, 0);
            }
            c->cwnd = c->cwnd > acked ? c->cwnd - acked : smss;
            if (acked >= smss) {
                c->cwnd += smss;
            }
        } else if (wren_tcp_seq_lt(c->high_rxt, c->snd_una)) {
            c->high_rxt = c->snd_una;
        }
        return;
    }
    c->dupacks = 0;
    if (c->cwnd < c->ssthresh) {
        c->cwnd += acked < smss ? acked : smss;
    } else {
        uint32_t inc = smss * smss / (c->cwnd ? c->cwnd : 1);
        c->cwnd += inc ? inc : 1;
    }
    uint32_t cap = 4u * 0xffff;
    c->cwnd = c->cwnd > cap ? cap : c->cwnd;
}

/* in-sequence or out-of-order data of @p seg from @p seq (trimmed) */
static void data_in(struct wren_tcp_conn *c, const struct tcp_seg *seg, uint32_t seq,
                    uint32_t skip, uint32_t n)
{
    struct wren_tcp *tcp = c->tcp;
    uint32_t off = seq - c->rcv_nxt;
    copy_in(c, seg, skip, c->rcv.len + off, n);
    if (off) {
        wren_tcp_bits_set(&c->rcv, c->rcv_bitmap, c->rcv.len + off, n);
        c->sack_rx_last = seq;
        tcp->stats.rx_ooo_segs++;
        c->flags |= TF_ACKNOW; /* a duplicate ACK at once (RFC 5681 4.2) */
        return;
    }
    wren_tcp_bits_clear(&c->rcv, c->rcv_bitmap, c->rcv.len, n);
    c->rcv.len = (uint16_t)(c->rcv.len + n);
    c->rcv_nxt += n;
    uint32_t space = (uint32_t)(c->rcv.size - c->rcv.len);
    uint32_t run = wren_tcp_bits_run(&c->rcv, c->rcv_bitmap, c->rcv.len, space, true);
    if (run) {
        /* a hole filled: the queued bytes join in place */
        wren_tcp_bits_clear(&c->rcv, c->rcv_bitmap, c->rcv.len, run);
        c->rcv.len = (uint16_t)(c->rcv.len + run);
        c->rcv_nxt += run;
        c->flags |= TF_ACKNOW;
    }
    if (run || wren_tcp_bits_run(&c->rcv, c->rcv_bitmap, c->rcv.len,
                            (uint32_t)(c->rcv.size - c->rcv.len), false) <
                   (uint32_t)(c->rcv.size - c->rcv.len)) {
        c->flags |= TF_ACKNOW; /* still holes: keep the sender informed */
    }
    /* delayed ACK (RFC 9293 3.8.6.3, RFC 5681 4.2): every second full segment */
    if (n >= wren_tcp_smss(c) || c->unacked_segs) {
        c->unacked_segs++;
    }
    if (c->unacked_segs >= 2 || (c->opts & WREN_TCP_OPT_NO_DELACK)) {
        c->flags |= TF_ACKNOW;
    } else if (!(c->flags & (TF_ACKNOW | TF_DELACK))) {
        c->t_delack = wren_tcp_now_ms(tcp) + CONFIG_WREN_TCP_DELACK_MS;
        c->flags |= TF_DELACK;
    }
}

/* an RTT sample from the echoed timestamp (RFC 7323 4.1), if any */
static void ts_rtt(struct wren_tcp_conn *c, const struct tcp_seg *seg)
{
    if ((c->flags & TF_TS) && seg->o.has_ts && seg->o.ts_ecr) {
        uint32_t now;
        wren_tcp_ts_now(c, &now);
        if (now - seg->o.ts_ecr < 600000u) {
            rtt_sample(c, now - seg->o.ts_ecr);
        }
    }
}

static void established(struct wren_tcp_conn *c)
{
    c->state = WREN_TCP_ESTABLISHED;
    c->retries = 0;
    c->progress_ms = wren_tcp_now_ms(c->tcp);
    c->flags &= (uint16_t)~TF_REXMT;
    wren_tcp_cc_init(c);
    if (c->listener && !(c->flags & TF_HELD)) {
        c->flags |= TF_NOTIFY;
        if (c->listener->cb) {
            c->listener->cb(c->listener, c->listener->cb_arg);
        }
    }
    wren_tcp_event(c, WREN_TCP_EV_CONNECTED);
}

/* our SYN is acknowledged: RTT, ESTABLISHED, the callback; false if the
 * callback closed the connection */
static bool handshake_done(struct wren_tcp_conn *c, const struct tcp_seg *seg)
{
    ts_rtt(c, seg);
    established(c);
    if (c->state != WREN_TCP_ESTABLISHED) {
        return false;
    }
    if (c->snd_una == c->snd_max) {
        wren_tcp_keepalive_arm(c); /* not over the RTO of data the callback sent */
    }
    return true;
}

static void syn_sent_input(struct wren_tcp_conn *c, const struct tcp_seg *seg)
{
    const struct tcp_hdr *h = &seg->h;
    bool ack = (h->flags & TCP_ACK) != 0;
    if (ack && !wren_tcp_seq_between(h->ack, c->iss + 1, c->snd_max + 1)) {
        wren_tcp_send_reset(c->tcp, seg);
        return;
    }
    if (h->flags & TCP_RST) {
        if (ack) {
            c->tcp->stats.rx_rst++;
            wren_tcp_closed(c, -ECONNREFUSED);
        }
        return;
    }
    if (!(h->flags & TCP_SYN)) {
        return;
    }
    syn_options(c, seg, TCP_ECE);
    if (!ack) {
        /* simultaneous open (3.5, figure 7): answer with SYN-ACK */
        c->state = WREN_TCP_SYN_RECEIVED;
        c->flags &= (uint16_t)~TF_ECN;
        c->snd_nxt = c->snd_max = c->iss;
        c->flags &= (uint16_t)~TF_REXMT;
        wren_tcp_output(c);
        return;
    }
    c->snd_una = h->ack;
    if (!handshake_done(c, seg)) {
        return; /* the callback closed it */
    }
    c->flags |= TF_ACKNOW;
    wren_tcp_output(c);
}

/* the acceptability test of RFC 9293 3.10.7.4 (first), but an empty
 * segment may sit at the window's right edge, as BSD and Linux accept it:
 * the peer's ACK after a lost segment that filled our window */
static bool acceptable(const struct wren_tcp_conn *c, uint32_t seq, uint32_t seglen,
                       uint32_t wnd)
{
    if (seglen == 0) {
        return wren_tcp_seq_between(seq, c->rcv_nxt, c->rcv_nxt + wnd + 1);
    }
    if (wnd == 0) {
        return false;
    }
    return wren_tcp_seq_between(seq, c->rcv_nxt, c->rcv_nxt + wnd) ||
           wren_tcp_seq_between(seq + seglen - 1, c->rcv_nxt, c->rcv_nxt + wnd);
}

/* SYN-RECEIVED and the peer's SYN again: our SYN-ACK was lost, so it goes
 * again; true if that was the segment */
static bool syn_rcvd_resyn(struct wren_tcp_conn *c, const struct tcp_seg *seg)
{
    const struct tcp_hdr *h = &seg->h;
    if (c->state == WREN_TCP_SYN_RECEIVED && (h->flags & TCP_SYN) && !(h->flags & TCP_ACK) &&
        h->seq == c->rcv_nxt - 1) {
        c->snd_nxt = c->snd_max = c->iss;
        wren_tcp_output(c);
        return true;
    }
    return false;
}

/* PAWS (RFC 7323 5.3), ahead of the first check; false if dropped */
static bool paws_ok(struct wren_tcp_conn *c, const struct tcp_seg *seg)
{
    struct wren_tcp *tcp = c->tcp;
    const struct tcp_hdr *h = &seg->h;
    if ((c->flags & TF_TS) && seg->o.has_ts && !(h->flags & TCP_RST) &&
        wren_tcp_seq_lt(seg->o.ts_val, c->ts_recent)) {
        tcp->stats.rx_drop_paws++;
        invalid_seg_ack(c, seg);
        return false;
    }
    return true;
}

/* RFC 9293 3.10.7.4 first check: the sequence number against the receive
 * window of @p wnd bytes; false if dropped (and answered, unless a RST) */
static bool seq_ok(struct wren_tcp_conn *c, const struct tcp_seg *seg, uint32_t wnd)
{
    struct wren_tcp *tcp = c->tcp;
    const struct tcp_hdr *h = &seg->h;
    uint32_t seglen = seg->len + ((h->flags & TCP_SYN) ? 1 : 0) + ((h->flags & TCP_FIN) ? 1 : 0);
    /* an old duplicate (data we have, as in Linux's tail loss probes, or
     * the sequence number before RCV.NXT of its zero-window probes) may
     * carry a new ACK: like BSD, keep it for that if it is recent (the
     * trimming empties it); an empty one only if its ACK is new (it must
     * not count as a duplicate ACK) */
    bool old_dup = wren_tcp_seq_lt(h->seq, c->rcv_nxt) &&
                   (h->flags & (TCP_ACK | TCP_SYN | TCP_RST)) == TCP_ACK &&
                   wren_tcp_seq_le(h->seq + seglen, c->rcv_nxt) &&
                   c->rcv_nxt - (h->seq + seglen) <= c->rcv.size &&
                   (seglen || wren_tcp_seq_gt(h->ack, c->snd_una));
    if (!old_dup && !acceptable(c, h->seq, seglen, wnd)) {
        tcp->stats.rx_drop_seq++;
        if (!(h->flags & TCP_RST)) {
            invalid_seg_ack(c, seg);
        }
        return false;
    }
    return true;
}

/* RFC 9293 3.10.7.4 second check, RST, by RFC 5961 3.2: only an exact RST
 * resets; others get a challenge */
static void rst_input(struct wren_tcp_conn *c, const struct tcp_seg *seg)
{
    struct wren_tcp *tcp = c->tcp;
    if (seg->h.seq != c->rcv_nxt) {
        challenge_ack(c);
        return;
    }
    tcp->stats.rx_rst++;
    wren_tcp_closed(c, c->state == WREN_TCP_SYN_RECEIVED ? -ECONNREFUSED : -ECONNRESET);
}

/* what an acceptable segment brings that is new and inside the window */
struct seg_text {
    uint32_t seq;  /* the first new byte (RCV.NXT, or past it out of order) */
    uint32_t skip; /* payload bytes before it */
    uint32_t n;    /* payload bytes from it inside the window */
    bool fin;      /* its FIN, unless before RCV.NXT or past the window */
};

/* RFC 9293 3.10.7.4 first check's trimming: to RCV.NXT and the window */
static struct seg_text seg_trim(struct wren_tcp_conn *c, const struct tcp_seg *seg, uint32_t wnd)
{
    struct wren_tcp *tcp = c->tcp;
    struct seg_text t = { .seq = seg->h.seq, .n = seg->len, .fin = (seg->h.flags & TCP_FIN) != 0 };
    if (wren_tcp_seq_lt(t.seq, c->rcv_nxt)) {
        uint32_t d = c->rcv_nxt - t.seq;
        if (d >= t.n) {
            tcp->stats.rx_dup_bytes += t.n;
            t.skip = t.n;
            t.n = 0;
            if (t.fin && d > seg->len) {
                t.fin = false; /* a FIN we have already */
                c->flags |= TF_ACKNOW;
            }
        } else {
            tcp->stats.rx_dup_bytes += d;
            t.skip = d;
            t.n -= d;
        }
        t.seq = c->rcv_nxt;
        c->flags |= TF_ACKNOW;
    }
    if (t.n > wnd - (t.seq - c->rcv_nxt)) {
        t.n = wnd - (t.seq - c->rcv_nxt);
        t.fin = false;
    }
    return t;
}

/* RFC 9293 3.10.7.4 fifth check in SYN-RECEIVED: an ACK of our SYN ends the
 * handshake; false if processing ends (a RST sent, or the callback closed) */
static bool syn_rcvd_ack(struct wren_tcp_conn *c, const struct tcp_seg *seg)
{
    struct wren_tcp *tcp = c->tcp;
    const struct tcp_hdr *h = &seg->h;
    if (!wren_tcp_seq_between(h->ack, c->snd_una + 1, c->snd_max + 1)) {
        wren_tcp_send_reset(tcp, seg);
        return false;
    }
    c->snd_wnd = c->max_snd_wnd = h->window;
    c->snd_wl1 = h->seq;
    c->snd_wl2 = h->ack;
    c->snd_una = c->iss + 1; /* the SYN */
    if (!handshake_done(c, seg)) {
        return false;
    }
    if (c->flags & TF_FIN_Q) {
        c->state = WREN_TCP_FIN_WAIT_1; /* closed before the handshake ended */
    }
    return true;
}

/* RFC 9293 3.10.7.4 fifth check: an ACK of what was never sent, or too old
 * (RFC 5961 5.2), drops the segment; false if so */
static bool ack_ok(struct wren_tcp_conn *c, const struct tcp_seg *seg)
{
    struct wren_tcp *tcp = c->tcp;
    const struct tcp_hdr *h = &seg->h;
    if (wren_tcp_seq_gt(h->ack, c->snd_max)) {
        tcp->stats.rx_drop_ack++; /* acknowledges what was never sent */
        invalid_seg_ack(c, seg);
        return false;
    }
    if (wren_tcp_seq_lt(h->ack, c->snd_una - c->max_snd_wnd)) {
        tcp->stats.rx_drop_ack++; /* RFC 5961 5.2: too old */
        challenge_ack(c);
        return false;
    }
    return true;
}

/* the receiver's part of an accepted segment: TS.Recent (RFC 7323 4.3) and
 * ECN's CWR and CE marks (RFC 3168 6.1.3) */
static void rcv_marks(struct wren_tcp_conn *c, const struct tcp_seg *seg)
{
    struct wren_tcp *tcp = c->tcp;
    const struct tcp_hdr *h = &seg->h;
    if ((c->flags & TF_TS) && seg->o.has_ts && wren_tcp_seq_le(h->seq, c->rcv_nxt) &&
        wren_tcp_seq_ge(seg->o.ts_val, c->ts_recent)) {
        c->ts_recent = seg->o.ts_val; /* RFC 7323 4.3 */
    }
    if (c->flags & TF_ECN) {
        if (h->flags & TCP_CWR) {
            c->flags &= (uint16_t)~TF_ECE;
        }
        if (seg->ecn == 3 && seg->len) {
            tcp->stats.ecn_ce_rx++;
            c->flags |= TF_ECE | TF_ACKNOW;
        }
    }
}

/* RFC 9293 3.10.7.4 fifth check, SND.UNA < SEG.ACK: a new cumulative ACK
 * (RTT, the send buffer, congestion control, the timer); sets @p fin_acked
 * if it covers our FIN; true if it freed room for the application */
static bool ack_new(struct wren_tcp_conn *c, const struct tcp_seg *seg, bool *fin_acked)
{
    struct wren_tcp *tcp = c->tcp;
    const struct tcp_hdr *h = &seg->h;
    uint32_t data_end = c->snd_una + c->snd.len;
    uint32_t acked = h->ack - c->snd_una;
    uint32_t data_acked = acked;
    if ((c->flags & TF_FIN_Q) && wren_tcp_seq_gt(h->ack, data_end)) {
        data_acked = data_end - c->snd_una;
        *fin_acked = true;
    }
    if (data_acked > c->snd.len) {
        data_acked = c->snd.len;
    }
    /* RTT (RFC 7323 4.1 with timestamps, else one timed segment with Karn) */
    if ((c->flags & TF_TS) && seg->o.has_ts && seg->o.ts_ecr) {
        ts_rtt(c, seg);
    } else if ((c->flags & TF_RTT) && wren_tcp_seq_gt(h->ack, c->rtt_seq)) {
        rtt_sample(c, wren_tcp_now_ms(tcp) - c->rtt_start_ms);
        c->flags &= (uint16_t)~TF_RTT;
    }
    wren_tcp_ring_consume(&c->snd, data_acked);
    c->snd_una = h->ack;
    c->progress_ms = wren_tcp_now_ms(tcp);
    if (wren_tcp_seq_lt(c->snd_nxt, c->snd_una)) {
        c->snd_nxt = c->snd_una;
    }
    c->retries = 0;
    sack_prune(c);
    cc_ack(c, acked);
    if (c->snd_una == c->snd_max) {
        wren_tcp_keepalive_arm(c);
    } else {
        wren_tcp_rexmt_arm(c, c->rto_ms);
    }
    return data_acked && !(c->flags & TF_FIN_Q);
}

/* a duplicate ACK (RFC 5681 2): fast retransmit after enough of them or
 * when SACK shows a loss (RFC 6675), fewer with early retransmit (RFC
 * 5827); in NewReno recovery, inflate (RFC 6582) */
static void ack_dup(struct wren_tcp_conn *c)
{
    struct wren_tcp *tcp = c->tcp;
    c->dupacks = (uint8_t)(c->dupacks < 255 ? c->dupacks + 1 : 255);
    tcp->stats.rx_dup_acks++;
    if (!(c->flags & TF_RECOVERY)) {
        uint32_t smss = wren_tcp_smss(c);
        bool lost = (c->flags & TF_SACK) &&
                    wren_tcp_sacked_bytes(c, c->snd_una, c->snd_max) > 2 * smss;
        /* RFC 5827 early retransmit: under four segments out and no new
         * one allowed by the receiver, oseg - 1 duplicates suffice */
        uint32_t out = c->snd_max - c->snd_una;
        unsigned thresh = 3;
        if (out <= 3 * smss && (c->snd.len <= out || out + smss > c->snd_wnd)) {
            thresh = out <= smss ? 3 : out <= 2 * smss ? 1 : 2;
        }
        if ((c->dupacks >= thresh || lost) && wren_tcp_seq_ge(c->snd_una, c->recover)) {
            enter_recovery(c);
        }
    } else if (!(c->flags & TF_SACK)) {
        c->cwnd += wren_tcp_smss(c); /* inflate by the segment that left */
    }
}

/* the send window (3.10.7.4, fifth check); a window that opens ends the
 * persist timer */
static void snd_wnd_update(struct wren_tcp_conn *c, const struct tcp_hdr *h, bool window_was_zero)
{
    if (wren_tcp_seq_lt(c->snd_wl1, h->seq) ||
        (c->snd_wl1 == h->seq && wren_tcp_seq_le(c->snd_wl2, h->ack))) {
        c->snd_wnd = h->window;
        c->snd_wl1 = h->seq;
        c->snd_wl2 = h->ack;
        if (h->window > c->max_snd_wnd) {
            c->max_snd_wnd = h->window;
        }
        if (window_was_zero && c->snd_wnd && (c->flags & TF_PERSIST)) {
            c->flags &= (uint16_t) ~(TF_PERSIST | TF_REXMT);
            c->retries = 0;
            if (c->snd_una != c->snd_max) {
                wren_tcp_rexmt_arm(c, c->rto_ms);
            }
        }
    }
}

/* ECN-Echo: reduce once per window (RFC 3168 6.1.2) */
static void ecn_echo(struct wren_tcp_conn *c, const struct tcp_hdr *h)
{
    struct wren_tcp *tcp = c->tcp;
    if ((c->flags & TF_ECN) && (h->flags & TCP_ECE) && !(c->flags & TF_RECOVERY) &&
        wren_tcp_seq_ge(c->snd_una, c->ecn_recover) && c->snd_una != c->ecn_recover) {
        uint32_t smss = wren_tcp_smss(c), flight = c->snd_max - c->snd_una;
        c->ssthresh = flight / 2 > 2 * smss ? flight / 2 : 2 * smss;
        c->cwnd = c->ssthresh;
        c->ecn_recover = c->snd_max;
        c->flags |= TF_CWR;
        tcp->stats.ecn_reductions++;
    }
}

/* our FIN is acknowledged: the fifth check's FIN-WAIT-1, CLOSING and
 * LAST-ACK steps; false if the connection is gone */
static bool fin_acked_input(struct wren_tcp_conn *c)
{
    switch (c->state) {
    case WREN_TCP_FIN_WAIT_1:
        c->state = WREN_TCP_FIN_WAIT_2;
        break;
    case WREN_TCP_CLOSING:
        wren_tcp_time_wait(c);
        return false;
    case WREN_TCP_LAST_ACK:
        wren_tcp_closed(c, 0);
        return false;
    default:
        break;
    }
    return true;
}

/* RFC 9293 3.10.7.4 fifth check, the ACK field (@p fin: the trimmed
 * segment's FIN); false if processing ends */
static bool ack_input(struct wren_tcp_conn *c, const struct tcp_seg *seg, bool fin)
{
    const struct tcp_hdr *h = &seg->h;
    if (c->state == WREN_TCP_SYN_RECEIVED && !syn_rcvd_ack(c, seg)) {
        return false;
    }
    if (!ack_ok(c, seg)) {
        return false;
    }
    rcv_marks(c, seg);
    bool fin_acked = false;
    bool window_was_zero = c->snd_wnd == 0;
    if ((c->flags & TF_SACK) && seg->o.n_sack) {
        sack_update(c, seg); /* once, before the ACK decides what is lost */
    }
    bool room = false; /* data acknowledged: tell the application after the window update */
    if (wren_tcp_seq_gt(h->ack, c->snd_una)) {
        room = ack_new(c, seg, &fin_acked);
    } else if (h->ack == c->snd_una && c->snd_una != c->snd_max && seg->len == 0 && !fin &&
               h->window != 0 && (h->window == c->snd_wnd || seg->o.n_sack)) {
        /* (a zero window answers a window probe: not a duplicate ACK) */
        ack_dup(c);
    }
    snd_wnd_update(c, h, window_was_zero);
    if (room) {
        /* only now: what the application sends must see this ACK's window */
        wren_tcp_event(c, WREN_TCP_EV_SEND);
        if (c->state == WREN_TCP_CLOSED) {
            return false;
        }
    }
    ecn_echo(c, h);
    return !fin_acked || fin_acked_input(c);
}

/* RFC 9293 3.10.7.4 seventh check: the segment text, in ESTABLISHED,
 * FIN-WAIT-1 and FIN-WAIT-2; false if the callback closed the connection */
static bool text_input(struct wren_tcp_conn *c, const struct tcp_seg *seg,
                       const struct seg_text *t)
{
    uint8_t st = c->state;
    if (t->n && (st == WREN_TCP_ESTABLISHED || st == WREN_TCP_FIN_WAIT_1 ||
                 st == WREN_TCP_FIN_WAIT_2)) {
        data_in(c, seg, t->seq, t->skip, t->n);
        if (t->seq == c->rcv_nxt - t->n || wren_tcp_seq_ge(c->rcv_nxt, t->seq + t->n)) {
            wren_tcp_event(c, WREN_TCP_EV_RECV);
            if (c->state == WREN_TCP_CLOSED) {
                return false;
            }
        }
    }
    return true;
}

/* RFC 9293 3.10.7.4 eighth check: the FIN, only in sequence (an early one
 * is sent again); false if the connection is gone */
static bool fin_input(struct wren_tcp_conn *c, const struct seg_text *t)
{
    if (t->fin && t->seq + t->n == c->rcv_nxt && !(c->flags & TF_RCV_FIN)) {
        c->rcv_nxt++;
        c->flags |= TF_RCV_FIN | TF_ACKNOW;
        switch (c->state) {
        case WREN_TCP_ESTABLISHED:
            c->state = WREN_TCP_CLOSE_WAIT;
            break;
        case WREN_TCP_FIN_WAIT_1:
            c->state = WREN_TCP_CLOSING;
            break;
        case WREN_TCP_FIN_WAIT_2:
            wren_tcp_send_ack(c);
            wren_tcp_time_wait(c);
            return false;
        default:
            break;
        }
        wren_tcp_event(c, WREN_TCP_EV_RECV);
        if (c->state == WREN_TCP_CLOSED) {
            return false;
        }
    } else if (t->fin && (c->flags & TF_RCV_FIN)) {
        c->flags |= TF_ACKNOW; /* a retransmitted FIN */
    }
    return true;
}

/* a segment for @p c: RFC 9293 3.10.7.3 in SYN-SENT, else 3.10.7.4's checks
 * in order (the third, security, has nothing to do) */
static void conn_input(struct wren_tcp_conn *c, struct tcp_seg *seg)
{
    const struct tcp_hdr *h = &seg->h;
    if (c->state == WREN_TCP_SYN_SENT) {
        syn_sent_input(c, seg);
        return;
    }
    if (syn_rcvd_resyn(c, seg) || !paws_ok(c, seg)) {
        return;
    }
    uint32_t wnd = wren_tcp_seq_gt(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;
    if (!seq_ok(c, seg, wnd)) {
        return;
    }
    if (h->flags & TCP_RST) {
        rst_input(c, seg);
        return;
    }
    if (h->flags & TCP_SYN) {
        challenge_ack(c); /* fourth check, RFC 5961 4.2: any SYN in a synchronized state */
        return;
    }
    if (!(h->flags & TCP_ACK)) {
        return;
    }
    struct seg_text t = seg_trim(c, seg, wnd);
    if (!ack_input(c, seg, t.fin)) {
        return;
    }
    /* the sixth check (URG) is not implemented: urgent data arrives as
     * ordinary data (RFC 6093 advises against its use) */
    if (!text_input(c, seg, &t) || !fin_input(c, &t)) {
        return;
    }
    if (c->flags & TF_KEEP) {
        wren_tcp_keepalive_arm(c); /* the peer is alive: idle time starts again */
    }
    wren_tcp_output(c);
}

/* a SYN for listener @p l: a pool entry becomes SYN-RECEIVED */
static void listen_input(struct wren_tcp *tcp, struct wren_tcp_listener *l,
                         const struct tcp_seg *seg)
{
    const struct tcp_hdr *h = &seg->h;
    if (h->flags & TCP_RST) {
        return;
    }
    if (h->flags & TCP_ACK) {
        wren_tcp_send_reset(tcp, seg);
        return;
    }
    if (!(h->flags & TCP_SYN) || (h->flags & TCP_FIN)) {
        return;
    }
    struct wren_tcp_conn *c = NULL;
    for (unsigned i = 0; i < l->n && c == NULL; i++) {
        struct wren_tcp_conn *p = l->conns[i];
        if (wren_tcp_made(p) && p->state == WREN_TCP_CLOSED && !(p->flags & TF_HELD)) {
            c = p;
        }
    }
#if CONFIG_WREN_NODE_MEM
    /* none free of those made: make one (a pool made on demand; no memory
     * for it counts as the pool exhausted, below) */
    for (unsigned i = 0; i < l->n && c == NULL; i++) {
        if (l->conns[i] == NULL && (c = wren_tcp_listen_make(l, i)) == NULL) {
            break;
        }
    }
#endif
    if (c == NULL) {
        /* the oldest half-open one (the list is newest first) gives way */
        for (struct wren_tcp_conn *p = tcp->conns; p; p = p->next) {
            if (p->listener == l && p->state == WREN_TCP_SYN_RECEIVED && !(p->flags & TF_HELD)) {
                c = p;
            }
        }
        if (c == NULL) {
            tcp->stats.syn_drop_pool++;
            return;
        }
        tcp->stats.syn_evicted++;
        wren_tcp_closed(c, 0);
    }
    wren_tcp_conn_clear(c);
    memcpy(c->laddr, seg->dst, 16);
    memcpy(c->raddr, seg->src, 16);
    c->lport = h->dst_port;
    c->rport = h->src_port;
    c->if_id = seg->if_id;
    c->cb = NULL;
    c->cb_arg = NULL;
    wren_tcp_conn_start(tcp, c);
    syn_options(c, seg, TCP_ECE | TCP_CWR);
    c->state = WREN_TCP_SYN_RECEIVED;
    wren_tcp_output(c);
}

/* a segment for a connection in TIME-WAIT; false if it may start a new one */
static bool tw_input(struct wren_tcp *tcp, struct wren_tcp_tw *w, const struct tcp_seg *seg)
{
    const struct tcp_hdr *h = &seg->h;
    if (h->flags & TCP_RST) {
        return true; /* RFC 1337: no assassination */
    }
    if ((h->flags & TCP_SYN) && !(h->flags & TCP_ACK) && wren_tcp_seq_gt(h->seq, w->rcv_nxt)) {
        w->lport = 0; /* a new incarnation (RFC 9293 3.6.1) */
        return false;
    }
    if (h->flags & TCP_FIN) {
        w->expires_ms = wren_tcp_now_ms(tcp) + CONFIG_WREN_TCP_TIME_WAIT_MS;
    } else if (seg->len == 0 && !(h->flags & TCP_SYN) && !ack_budget(tcp)) {
        tcp->stats.ack_limited++; /* a bare ACK: an answer could start an ACK loop */
        return true;
    }
    struct tcp_hdr a = { .src_port = w->lport, .dst_port = w->rport, .seq = w->snd_nxt,
                         .ack = w->rcv_nxt, .flags = TCP_ACK };
    struct tcp_opts o = { 0 };
    if (w->ts_ok) {
        o.has_ts = true;
        o.ts_val = wren_tcp_now_ms(tcp) + w->ts_offset;
        o.ts_ecr = w->ts_recent;
    }
    wren_tcp_emit_raw(tcp, w->laddr, w->raddr, w->if_id, &a, &o);
    return true;
}

/* RFC 9293 3.1, 3.10.7: the segment as it arrived: its addresses from the
 * IPv6 header, the checksum over the pseudo-header (3.1), then the header
 * and its options. A multicast address or a port 0 is no connection's.
 * false: counted, drop. */
static bool seg_parse(struct wren_tcp *tcp, struct wren_snip *pkt, struct tcp_seg *seg)
{
    struct wren_snip *ips = wren_pkt_search(pkt, WREN_NETTYPE_IPV6);
    if (ips == NULL || ips->size < IPV6_HDR_LEN) {
        tcp->stats.rx_drop_hdr++;
        return false;
    }
    size_t len = 0;
    /* RX order: the segment's snips, extension headers, the IPv6 header */
    for (struct wren_snip *s = pkt; s != ips && s->type != WREN_NETTYPE_IPV6_EXT; s = s->next) {
        len += s->size;
    }
    seg->src = ips->data + IPV6_OFF_SRC;
    seg->dst = ips->data + IPV6_OFF_DST;
    seg->ecn = (uint8_t)((ips->data[1] >> 4) & 3);
    struct wren_snip *nh = wren_pkt_search(pkt, WREN_NETTYPE_NETIF);
    seg->if_id = nh ? wren_netif_hdr_if(nh) : 0;
    if (len < TCP_HDR_LEN ||
        wren_ipv6_upper_csum(seg->src, seg->dst, IPV6_NH_TCP, pkt, len) != 0) {
        tcp->stats.rx_drop_csum++;
        return false;
    }
    uint8_t hb[TCP_HDR_MAX_LEN];
    size_t hn = len < sizeof(hb) ? len : sizeof(hb);
    wren_pkt_copy_from(pkt, 0, hb, hn);
    int hl = wren_tcp_hdr_parse(hb, hn, &seg->h, &seg->o);
    if (hl < 0 || wren_ipv6_addr_is_multicast(seg->dst) ||
        wren_ipv6_addr_is_multicast(seg->src) || seg->h.src_port == 0 || seg->h.dst_port == 0) {
        tcp->stats.rx_drop_hdr++;
        return false;
    }
    if (!(seg->h.flags & TCP_ACK)) {
        seg->o.ts_ecr = 0; /* RFC 7323 3.2: TSecr without ACK means nothing */
    }
    seg->pkt = pkt;
    seg->off = (uint32_t)hl;
    seg->len = (uint32_t)(len - (size_t)hl);
    return true;
}

/* RFC 9293 3.10.7: the connection (TCB) of @p seg's four-tuple, if any */
static struct wren_tcp_conn *conn_find(struct wren_tcp *tcp, const struct tcp_seg *seg)
{
    for (struct wren_tcp_conn *c = tcp->conns; c; c = c->next) {
        if (c->lport == seg->h.dst_port && c->rport == seg->h.src_port &&
            !memcmp(c->raddr, seg->src, 16) && !memcmp(c->laddr, seg->dst, 16)) {
            return c;
        }
    }
    return NULL;
}

/* the TIME-WAIT entry of @p seg's four-tuple, if any */
static struct wren_tcp_tw *tw_find(struct wren_tcp *tcp, const struct tcp_seg *seg)
{
    for (unsigned i = 0; i < CONFIG_WREN_TCP_TIMEWAIT_SLOTS && wren_tcp_tw_made(tcp); i++) {
        struct wren_tcp_tw *w = &tcp->tw->e[i];
        if (w->lport && w->lport == seg->h.dst_port && w->rport == seg->h.src_port &&
            !memcmp(w->raddr, seg->src, 16) && !memcmp(w->laddr, seg->dst, 16)) {
            return w;
        }
    }
    return NULL;
}

/* the listener (LISTEN) for @p seg's local address, port and interface */
static struct wren_tcp_listener *listener_find(struct wren_tcp *tcp, const struct tcp_seg *seg)
{
    for (struct wren_tcp_listener *l = tcp->listeners; l; l = l->next) {
        if (l->lport == seg->h.dst_port &&
            (wren_ipv6_addr_is_unspecified(l->laddr) || !memcmp(l->laddr, seg->dst, 16)) &&
            (l->if_id == 0 || l->if_id == seg->if_id)) {
            return l;
        }
    }
    return NULL;
}

void wren_tcp_input(struct wren_tcp *tcp, struct wren_snip *pkt)
{
    struct tcp_seg seg;
    tcp->stats.rx_segs++;
    if (!seg_parse(tcp, pkt, &seg)) {
        goto drop;
    }
    struct wren_tcp_conn *c = conn_find(tcp, &seg);
    if (c != NULL) {
        conn_input(c, &seg);
        goto drop;
    }
    struct wren_tcp_tw *w = tw_find(tcp, &seg);
    if (w != NULL && tw_input(tcp, w, &seg)) {
        goto drop;
    }
    struct wren_tcp_listener *l = listener_find(tcp, &seg);
    if (l != NULL) {
        listen_input(tcp, l, &seg);
        goto drop;
    }
    /* RFC 9293 3.10.7.1: CLOSED (no TCB): a reset, unless it is one */
    tcp->stats.rx_drop_no_conn++;
    wren_tcp_send_reset(tcp, &seg);
drop:
    wren_pktbuf_release(&tcp->node->pktbuf, pkt);
}
