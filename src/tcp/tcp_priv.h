/* Inside the TCP layer: what tcp.c (API, output, timers) and wren_tcp_input.c
 * (segment arrival) share. */
#ifndef WREN_TCP_PRIV_H
#define WREN_TCP_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "core/node.h"
#include "tcp/tcp.h"
#include "wire/tcp.h"

/* conn->flags */
enum {
    TF_ACKNOW = 0x0001,   /* send an ACK at the next output */
    TF_REXMT = 0x0002,    /* t_rexmt armed */
    TF_DELACK = 0x0004,   /* t_delack armed */
    TF_SACK = 0x0008,     /* SACK negotiated */
    TF_TS = 0x0010,       /* timestamps negotiated */
    TF_ECN = 0x0020,      /* ECN negotiated */
    TF_FIN_Q = 0x0040,    /* the application closed for sending */
    TF_RECOVERY = 0x0080, /* in fast recovery */
    TF_PERSIST = 0x0100,  /* t_rexmt is the persist timer */
    TF_HELD = 0x0200,     /* accepted: the application's */
    TF_ECE = 0x0400,      /* receiver: echo ECE until CWR arrives */
    TF_CWR = 0x0800,      /* sender: set CWR on the next new data */
    TF_RCV_FIN = 0x1000,  /* the peer's FIN is in: end of stream */
    TF_KEEP = 0x2000,     /* t_rexmt is the keep-alive timer */
    TF_RTT = 0x4000,      /* rtt_seq is being timed */
    TF_NOTIFY = 0x8000,   /* a listener's connection: accept announced */
};

#define TCP_KEEPALIVE_IDLE_MS 7200000u /* RFC 9293 3.8.4: at least two hours */
#define TCP_KEEPALIVE_INTVL_MS 75000u
#define TCP_KEEPALIVE_PROBES 9
#define TCP_DEFAULT_MSS_V6 1220 /* RFC 9293 3.7.1 / RFC 8200: without the option */

static inline uint32_t wren_tcp_now_ms(const struct wren_tcp *tcp)
{
    return (uint32_t)(wren_node_now(tcp->node) / 1000);
}

/* The received segment, as input processing sees it. */
struct tcp_seg {
    struct tcp_hdr h;
    struct tcp_opts o;
    const uint8_t *src, *dst;     /* IPv6 addresses (in the packet) */
    const struct wren_snip *pkt;  /* the segment's snips */
    uint32_t off;                 /* payload offset in pkt */
    uint32_t len;                 /* payload bytes */
    uint8_t if_id;
    uint8_t ecn;                  /* IP ECN field */
};

/* tcp.c */
void wren_tcp_output(struct wren_tcp_conn *c);
int wren_tcp_xmit(struct wren_tcp_conn *c, uint32_t seq, uint32_t len, uint8_t flags);
void wren_tcp_send_ack(struct wren_tcp_conn *c);
/* a RST for @p c at SND.NXT (abort, user timeout) */
void wren_tcp_send_rst(struct wren_tcp_conn *c);
int wren_tcp_emit_raw(struct wren_tcp *tcp, const uint8_t *src, const uint8_t *dst, uint8_t if_id,
                 const struct tcp_hdr *h, const struct tcp_opts *o);
void wren_tcp_keepalive_arm(struct wren_tcp_conn *c);
void wren_tcp_conn_timer_cb(struct wren_timer *t, void *arg);
/* data bytes a segment carries: the MSS less the options every segment has */
uint32_t wren_tcp_smss(const struct wren_tcp_conn *c);
void wren_tcp_send_reset(struct wren_tcp *tcp, const struct tcp_seg *seg);
void wren_tcp_timer_update(struct wren_tcp_conn *c);
void wren_tcp_rexmt_arm(struct wren_tcp_conn *c, uint32_t ms);
void wren_tcp_closed(struct wren_tcp_conn *c, int err);
void wren_tcp_conn_clear(struct wren_tcp_conn *c);
/* entry @p i of @p l's pool (NULL) made by its make hook, tied to @p l; or NULL */
struct wren_tcp_conn *wren_tcp_listen_make(struct wren_tcp_listener *l, unsigned i);
/* whether the TIME-WAIT table is made (always, without CONFIG_WREN_NODE_MEM) */
static inline bool wren_tcp_tw_made(const struct wren_tcp *tcp)
{
#if CONFIG_WREN_NODE_MEM
    return tcp->tw != NULL;
#else
    (void)tcp;
    return true;
#endif
}

/* whether a listener's pool entry is made (always, without CONFIG_WREN_NODE_MEM) */
static inline bool wren_tcp_made(const struct wren_tcp_conn *c)
{
    return !CONFIG_WREN_NODE_MEM || c != NULL;
}
/* link @p c into the layer with a fresh ISN, RTO and send sequence space */
void wren_tcp_conn_start(struct wren_tcp *tcp, struct wren_tcp_conn *c);
void wren_tcp_event(struct wren_tcp_conn *c, unsigned ev);
uint32_t wren_tcp_isn(struct wren_tcp *tcp, const uint8_t *laddr, uint16_t lport,
                 const uint8_t *raddr, uint16_t rport);
void wren_tcp_time_wait(struct wren_tcp_conn *c);
void wren_tcp_cc_init(struct wren_tcp_conn *c);
uint32_t wren_tcp_rcv_window(struct wren_tcp_conn *c);
uint16_t wren_tcp_ts_now(const struct wren_tcp_conn *c, uint32_t *ts);
uint32_t wren_tcp_sacked_bytes(const struct wren_tcp_conn *c, uint32_t from, uint32_t to);

/* wren_tcp_input.c */
void wren_tcp_input(struct wren_tcp *tcp, struct wren_snip *pkt);

/* tcp_ring.c: the byte rings and the out-of-order bitmap */
void wren_tcp_ring_write(struct wren_tcp_ring *r, uint32_t off, const uint8_t *data, uint32_t n);
void wren_tcp_ring_read(const struct wren_tcp_ring *r, uint32_t off, uint8_t *out, uint32_t n);
void wren_tcp_ring_consume(struct wren_tcp_ring *r, uint32_t n);
/* bitmap bits of ring positions off .. off+n-1 (offsets from head) */
void wren_tcp_bits_set(const struct wren_tcp_ring *r, uint8_t *bm, uint32_t off, uint32_t n);
void wren_tcp_bits_clear(const struct wren_tcp_ring *r, uint8_t *bm, uint32_t off, uint32_t n);
/* length of the run of set bits (or clear if !set) from offset off, at most max */
uint32_t wren_tcp_bits_run(const struct wren_tcp_ring *r, const uint8_t *bm, uint32_t off,
                      uint32_t max, bool set);

#endif
