/* The SCHC adaptation layer module (schc.h): compression on the way down,
 * fragmentation when the SCHC packet does not fit a frame, and the reverse
 * on the way up. The codec is wire/schc.c, fragmentation schc_frag*.c. */
#include "schc/schc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/node.h"
#include "link/lorawan_link.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "net/netopt.h"
#include "net/nettype.h"
#include "pktbuf/pktbuf.h"

#define SCHC_NOCOMP_RULE 22 /* our choice: RFC 9011 leaves compression rule IDs open */
#define IPV6_UDP_HDR 48     /* the most decompression adds */

#define LL_FIELDS(hop, ports)                                                        \
    "ipv6.ver bi equal not-sent 6\nipv6.tc bi equal not-sent 0\n"                    \
    "ipv6.fl bi equal not-sent 0\nipv6.len bi ignore compute\n"                      \
    "ipv6.nxt bi equal not-sent 17\n" hop ports                                      \
    "udp.len bi ignore compute\nudp.cksum bi ignore compute\n"

const char wren_schc_default_rules[] =
    "rule 1 # UDP between link-local addresses, ports 0xf0b0..0xf0bf (RFC 7400's)\n"
    LL_FIELDS("ipv6.hop bi ignore value-sent\n"
              "ipv6.devpre bi equal not-sent 0xfe80000000000000\n"
              "ipv6.deviid bi ignore value-sent\n"
              "ipv6.apppre bi equal not-sent 0xfe80000000000000\n"
              "ipv6.appiid bi ignore value-sent\n",
              "udp.devport bi msb(12) lsb 0xf0b0\nudp.appport bi msb(12) lsb 0xf0b0\n")
    "rule 2 # UDP between link-local addresses\n"
    LL_FIELDS("ipv6.hop bi ignore value-sent\n"
              "ipv6.devpre bi equal not-sent 0xfe80000000000000\n"
              "ipv6.deviid bi ignore value-sent\n"
              "ipv6.apppre bi equal not-sent 0xfe80000000000000\n"
              "ipv6.appiid bi ignore value-sent\n",
              "udp.devport bi ignore value-sent\nudp.appport bi ignore value-sent\n")
    "rule 3 # UDP between any addresses\n"
    LL_FIELDS("ipv6.hop bi ignore value-sent\n"
              "ipv6.devpre bi ignore value-sent\nipv6.deviid bi ignore value-sent\n"
              "ipv6.apppre bi ignore value-sent\nipv6.appiid bi ignore value-sent\n",
              "udp.devport bi ignore value-sent\nudp.appport bi ignore value-sent\n")
    "rule 22 nocomp\n";

/* ---- the interface's role --------------------------------------------- */

/* A device sends uplinks (RFC 8724 7.1: Dev to App). An interface that
 * knows no LoRaWAN session is taken for a device. */
static bool is_device(struct wren_schc *s)
{
    struct wren_netif *netif = wren_netif_get(s->node, s->if_id);
    struct wren_lorawan_session ses = { .role = WREN_LORAWAN_ROLE_DEVICE };
    if (netif) {
        wren_netapi_get(s->node, &netif->module, WREN_NETOPT_LORAWAN_SESSION, 0, &ses,
                        sizeof(ses));
    }
    return ses.role == WREN_LORAWAN_ROLE_DEVICE;
}

static const struct wren_schc_frag_profile *tx_profile(struct wren_schc *s, bool dev)
{
    return dev ? &s->up : &s->down;
}

static const struct wren_schc_frag_profile *rx_profile(struct wren_schc *s, bool dev)
{
    return dev ? &s->down : &s->up;
}

static size_t mtu(struct wren_schc *s)
{
    struct wren_netif *netif = wren_netif_get(s->node, s->if_id);
    uint16_t m = 0;
    if (netif) {
        wren_netapi_get(s->node, &netif->module, WREN_NETOPT_MAX_PDU_SIZE, 0, &m, sizeof(m));
    }
    return m;
}

/* ---- sending ------------------------------------------------------------ */

/* Hand @p len bytes of @p msg to the interface as one SCHC message. */
static int to_link(struct wren_schc *s, const uint8_t *msg, size_t len)
{
    struct wren_pktbuf *pb = &s->node->pktbuf;
    struct wren_netif *netif = wren_netif_get(s->node, s->if_id);
    struct wren_snip *m = netif ? wren_pktbuf_add(pb, NULL, msg, len, WREN_NETTYPE_SCHC) : NULL;
    struct wren_snip *pkt = m ? wren_netif_hdr_add(pb, m, NULL, 0, NULL, 0) : NULL;
    if (pkt == NULL) {
        if (m) {
            wren_pktbuf_release(pb, m);
        }
        s->stats.tx_drop_nobuf++;
        return -ENOBUFS;
    }
    wren_netif_hdr(pkt)->if_id = s->if_id;
    wren_netapi_send(s->node, &netif->module, pkt);
    return 0;
}

static void arm(struct wren_schc *s)
{
    uint64_t now_ms = wren_node_now(s->node) / 1000u;
    bool tx = s->tx.state == WREN_SCHC_FRAG_WAIT_ACK;
    bool rx = s->rx.state == WREN_SCHC_FRAG_SENDING;
    if (!tx && !rx) {
        wren_timer_cancel(s->node, &s->timer);
        return;
    }
    uint32_t d = tx ? s->tx.deadline : s->rx.deadline;
    if (tx && rx && (int32_t)(s->rx.deadline - d) < 0) {
        d = s->rx.deadline;
    }
    int32_t left = (int32_t)(d - (uint32_t)now_ms);
    wren_timer_set(s->node, &s->timer, left > 0 ? (uint64_t)left * 1000u : 0);
}

/* Send what the fragment sender has to send now. */
static void pump(struct wren_schc *s)
{
    uint8_t out[WREN_LORAWAN_MAX_FRAME];
    size_t m = mtu(s);
    uint32_t now = (uint32_t)(wren_node_now(s->node) / 1000u);
    int n;
    while ((n = wren_schc_frag_tx_next(&s->tx, now, out, m < sizeof(out) ? m : sizeof(out))) > 0) {
        s->stats.tx_frags++;
        to_link(s, out, (size_t)n);
    }
    if (s->tx.state == WREN_SCHC_FRAG_DONE) {
        s->tx.state = WREN_SCHC_FRAG_IDLE;
    }
    arm(s);
}

/* Compress @p ip (a whole IPv6 packet in one snip) and send it, whole or
 * in fragments. */
static void send_packet(struct wren_schc *s, const struct wren_snip *ip)
{
    bool dev = is_device(s);
    struct wren_pktbuf *pb = &s->node->pktbuf;
    struct wren_snip *c = wren_pktbuf_add(pb, NULL, NULL, ip->size + 1u, WREN_NETTYPE_SCHC);
    if (c == NULL) {
        s->stats.tx_drop_nobuf++;
        return;
    }
    int n = wren_schc_compress(&s->rules, dev ? WREN_SCHC_UP : WREN_SCHC_DOWN, ip->data, ip->size,
                               c->data, c->size);
    const struct wren_schc_rule *r = n > 0 ? wren_schc_rule_find(&s->rules, c->data[0]) : NULL;
    if (r == NULL) {
        s->stats.tx_drop_no_rule++;
    } else if ((size_t)n <= mtu(s)) {
        *(r->kind == WREN_SCHC_RULE_NOCOMP ? &s->stats.tx_nocomp : &s->stats.tx_compressed) += 1;
        to_link(s, c->data, (size_t)n);
    } else if (s->tx.state == WREN_SCHC_FRAG_SENDING || s->tx.state == WREN_SCHC_FRAG_WAIT_ACK) {
        s->stats.tx_drop_busy++;
    } else if (wren_schc_frag_tx_start(&s->tx, tx_profile(s, dev), c->data, (size_t)n) < 0) {
        s->stats.tx_drop_too_big++;
    } else {
        *(r->kind == WREN_SCHC_RULE_NOCOMP ? &s->stats.tx_nocomp : &s->stats.tx_compressed) += 1;
        s->stats.tx_fragmented++;
        wren_pktbuf_release(pb, c);
        pump(s);
        return;
    }
    wren_pktbuf_release(pb, c);
}

static void schc_send(struct wren_schc *s, struct wren_snip *pkt)
{
    struct wren_pktbuf *pb = &s->node->pktbuf;
    s->stats.tx_pkts++;
    if (pkt->type != WREN_NETTYPE_NETIF || pkt->next == NULL ||
        wren_pktbuf_merge(pb, &pkt->next) < 0) {
        s->stats.tx_drop_nobuf++;
    } else {
        send_packet(s, pkt->next);
    }
    wren_pktbuf_release(pb, pkt);
}

/* ---- receiving ---------------------------------------------------------- */

/* Decompress SCHC packet @p p (@p len bytes) and hand the datagram up,
 * with the link header and netif header of @p pkt. Releases @p pkt. */
static void deliver(struct wren_schc *s, const uint8_t *p, size_t len, struct wren_snip *pkt)
{
    struct wren_pktbuf *pb = &s->node->pktbuf;
    struct wren_snip *dg = wren_pktbuf_add(pb, NULL, NULL, len + IPV6_UDP_HDR, WREN_NETTYPE_IPV6);
    int n = dg ? wren_schc_decompress(&s->rules, is_device(s) ? WREN_SCHC_DOWN : WREN_SCHC_UP, p,
                                      len, dg->data, dg->size)
               : -SCHC_ERR_NOBUFS;
    if (n < 0) {
        *(n == -SCHC_ERR_NOBUFS ? &s->stats.rx_drop_nobuf
          : n == -SCHC_ERR_NO_RULE || n == -SCHC_ERR_KIND ? &s->stats.rx_drop_no_rule
                                                          : &s->stats.rx_drop_residue) += 1;
        if (dg) {
            wren_pktbuf_release(pb, dg);
        }
        wren_pktbuf_release(pb, pkt);
        return;
    }
    wren_pktbuf_trim_back(pb, dg, (size_t)n);
    if (pkt->next) {
        wren_pktbuf_hold(pb, pkt->next, 1);
    }
    dg->next = pkt->next;
    wren_pktbuf_release(pb, pkt);
    if (wren_netapi_dispatch(s->node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, WREN_MSG_RCV,
                             dg) == 0) {
        s->stats.rx_drop_no_receiver++;
        return;
    }
    s->stats.rx_pkts++;
}

static void count_frag_err(struct wren_schc *s, int rc)
{
    switch (-rc) {
    case SCHC_FRAG_ERR_RCS:
        s->stats.rx_frag_drop_rcs++;
        break;
    case SCHC_FRAG_ERR_ABORTED:
        s->stats.rx_frag_drop_aborted++;
        break;
    case SCHC_FRAG_ERR_STATE:
        s->stats.rx_frag_drop_state++;
        break;
    default:
        s->stats.rx_frag_drop_bad++;
    }
}

static void rx_fragment(struct wren_schc *s, struct wren_snip *pkt, bool dev)
{
    uint8_t ack[16];
    size_t al = 0;
    uint32_t now = (uint32_t)(wren_node_now(s->node) / 1000u);
    if (s->rx.state != WREN_SCHC_FRAG_SENDING && s->rx.state != WREN_SCHC_FRAG_DONE) {
        wren_schc_frag_rx_start(&s->rx, rx_profile(s, dev), now);
    }
    int rc = wren_schc_frag_rx_input(&s->rx, now, pkt->data, pkt->size, ack, &al);
    if (rc == -SCHC_FRAG_ERR_STATE && s->rx.state == WREN_SCHC_FRAG_DONE) {
        wren_schc_frag_rx_start(&s->rx, rx_profile(s, dev), now); /* the next packet */
        rc = wren_schc_frag_rx_input(&s->rx, now, pkt->data, pkt->size, ack, &al);
    }
    if (al) {
        s->stats.rx_frag_acks++;
        to_link(s, ack, al);
    }
    arm(s);
    if (rc == 1) {
        s->stats.rx_frag_done++;
        deliver(s, s->rx.pkt, s->rx.len, pkt);
        return;
    }
    if (rc < 0) {
        count_frag_err(s, rc);
    }
    wren_pktbuf_release(&s->node->pktbuf, pkt);
}

static void rx_ack(struct wren_schc *s, struct wren_snip *pkt)
{
    uint32_t now = (uint32_t)(wren_node_now(s->node) / 1000u);
    int rc = wren_schc_frag_tx_ack(&s->tx, now, pkt->data, pkt->size);
    wren_pktbuf_release(&s->node->pktbuf, pkt);
    if (rc == 1) {
        s->stats.tx_frag_done++;
    } else if (rc == -SCHC_FRAG_ERR_ABORTED || rc == -SCHC_FRAG_ERR_RCS) {
        s->stats.tx_frag_aborted++;
    } else if (rc < 0) {
        s->stats.rx_ack_drop++;
        return;
    }
    pump(s);
}

static void schc_receive(struct wren_schc *s, struct wren_snip *pkt)
{
    bool dev = is_device(s);
    s->stats.rx_msgs++;
    if (pkt->size == 0) {
        s->stats.rx_drop_residue++;
        wren_pktbuf_release(&s->node->pktbuf, pkt);
    } else if (pkt->data[0] == rx_profile(s, dev)->rule_id) {
        rx_fragment(s, pkt, dev);
    } else if (pkt->data[0] == tx_profile(s, dev)->rule_id) {
        rx_ack(s, pkt);
    } else {
        deliver(s, pkt->data, pkt->size, pkt);
    }
}

static void on_timer(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_schc *s = arg;
    uint32_t now = (uint32_t)(wren_node_now(s->node) / 1000u);
    if (s->tx.state == WREN_SCHC_FRAG_WAIT_ACK && (int32_t)(now - s->tx.deadline) >= 0 &&
        wren_schc_frag_tx_timeout(&s->tx, now) < 0) {
        s->stats.tx_frag_gave_up++;
    }
    if (s->rx.state == WREN_SCHC_FRAG_SENDING && (int32_t)(now - s->rx.deadline) >= 0) {
        uint8_t ack[16];
        size_t al = 0;
        wren_schc_frag_rx_timeout(&s->rx, ack, &al);
        s->stats.rx_frag_drop_inactive++;
        s->stats.rx_frag_acks++;
        to_link(s, ack, al);
    }
    pump(s);
}

/* ---- the module ---------------------------------------------------------- */

static void schc_handle(struct wren_node *node, struct wren_module *self, const struct wren_msg *msg)
{
    struct wren_schc *s = (struct wren_schc *)self;
    if (msg->type == WREN_MSG_SND) {
        schc_send(s, msg->ptr);
    } else if (msg->type == WREN_MSG_RCV) {
        schc_receive(s, msg->ptr);
    } else if (msg->ptr) {
        wren_pktbuf_release(&node->pktbuf, msg->ptr);
    }
}

static int schc_get(struct wren_node *node, struct wren_module *self, uint16_t opt, uint16_t ctx,
                    void *val, size_t max)
{
    (void)node;
    (void)ctx;
    struct wren_schc *s = (struct wren_schc *)self;
    switch (opt) {
    case WREN_NETOPT_STATS:
        return wren_netopt_put(val, max, &s->stats, sizeof(s->stats));
    case WREN_NETOPT_SCHC_RULES:
        return wren_netopt_put(val, max, &s->rules, sizeof(s->rules));
    case WREN_NETOPT_SCHC_ERROR:
        return wren_netopt_put(val, max, s->err, strlen(s->err) + 1);
    case WREN_NETOPT_SCHC_TIMERS: {
        uint32_t t[2] = { s->up.retrans_ms, s->up.inactivity_ms };
        return wren_netopt_put(val, max, t, sizeof(t));
    }
    default:
        return -ENOTSUP;
    }
}

/* Take rule set @p rs: its frag-up / frag-down rules name the
 * fragmentation rule IDs, which no other rule may use. */
static int take_rules(struct wren_schc *s, const struct wren_schc_rules *rs)
{
    const struct wren_schc_rule *u = wren_schc_rule_of_kind(rs, WREN_SCHC_RULE_FRAG_UP);
    const struct wren_schc_rule *d = wren_schc_rule_of_kind(rs, WREN_SCHC_RULE_FRAG_DOWN);
    uint8_t up = u ? u->id : wren_schc_frag_lorawan_up.rule_id;
    uint8_t down = d ? d->id : wren_schc_frag_lorawan_down.rule_id;
    const struct wren_schc_rule *c1 = wren_schc_rule_find(rs, up);
    const struct wren_schc_rule *c2 = wren_schc_rule_find(rs, down);
    if ((c1 && c1 != u) || (c2 && c2 != d) || up == down) {
        snprintf(s->err, sizeof(s->err),
                 "schc rules: rule IDs %u and %u are the fragmentation rules", up, down);
        return -EINVAL;
    }
    s->rules = *rs;
    s->up.rule_id = up;
    s->down.rule_id = down;
    s->err[0] = 0;
    return 0;
}

/* The timers of both profiles (the downlink's retransmission timer stays
 * a ninth of its inactivity timer, as RFC 9011 5.6.3 recommends). */
static int set_timers(struct wren_schc *s, const void *val, size_t len)
{
    uint32_t t[2];
    if (len != sizeof(t)) {
        return -EINVAL;
    }
    memcpy(t, val, sizeof(t));
    if (t[0]) {
        s->up.retrans_ms = t[0];
    }
    if (t[1]) {
        s->up.inactivity_ms = s->down.inactivity_ms = t[1];
        s->down.retrans_ms = t[1] / (s->down.max_ack_requests + 1u);
    }
    return 0;
}

static int schc_set(struct wren_node *node, struct wren_module *self, uint16_t opt, uint16_t ctx,
                    const void *val, size_t len)
{
    (void)node;
    (void)ctx;
    struct wren_schc *s = (struct wren_schc *)self;
    if (opt == WREN_NETOPT_SCHC_TIMERS) {
        return set_timers(s, val, len);
    }
    if (opt != WREN_NETOPT_SCHC_RULES) {
        return -ENOTSUP;
    }
    struct wren_schc_rules rs;
    int rc = wren_schc_rules_parse(&rs, val, len, s->err, sizeof(s->err));
    return rc < 0 ? rc : take_rules(s, &rs);
}

static int schc_stack_init(struct wren_node *node, struct wren_module *self, uint8_t if_id)
{
    return wren_schc_init(node, (struct wren_schc *)self, if_id);
}

static const struct wren_counter_set schc_counters =
    WREN_COUNTER_SET("schc", WREN_SCHC_COUNTERS, WREN_NETOPT_STATS, uint32_t);

const struct wren_module_ops wren_schc_module = {
    .name = "schc",
    .handle = schc_handle,
    .get = schc_get,
    .set = schc_set,
    .init = schc_stack_init,
    .size = sizeof(struct wren_schc),
    .link = WREN_LINK_LORA,
    .per_if = 1,
    .counters = WREN_IF_NAMES(&schc_counters),
};

int wren_schc_init(struct wren_node *node, struct wren_schc *s, uint8_t if_id)
{
    memset(s, 0, offsetof(struct wren_schc, tx));
    s->tx.state = WREN_SCHC_FRAG_IDLE;
    s->rx.state = WREN_SCHC_FRAG_IDLE;
    s->module.ops = &wren_schc_module;
    s->module.prio = WREN_PRIO_NET;
    s->node = node;
    s->if_id = if_id;
    s->up = wren_schc_frag_lorawan_up;
    s->down = wren_schc_frag_lorawan_down;
    wren_timer_init(&s->timer, on_timer, s);
    struct wren_schc_rules rs;
    int rc = wren_schc_rules_parse(&rs, wren_schc_default_rules, sizeof(wren_schc_default_rules),
                                   s->err, sizeof(s->err));
    rc = rc < 0 ? rc : take_rules(s, &rs);
    return rc < 0 ? rc
                  : wren_netreg_register(node, WREN_NETTYPE_SCHC, if_id, &s->module, &s->reg);
}
