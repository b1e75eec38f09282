/* The TCP paper's anemometer application (sensor.h): readings queued and
 * sent in batches over TCP or CoAP, and the sink that counts them. */
#include "sim/sensor.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/node.h"
#include "sim/flow.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "net/netopt.h"
#include "ipv6/addr_str.h"
#include "shell/shell.h"
#include "sim/sim.h"

#define SINK_PATH "/readings"

static uint64_t min64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static void pattern(uint8_t *buf, uint64_t off, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        buf[k] = (uint8_t)((off + k) % 251u);
    }
}

static void coap_start(struct wren_sensor *s);
static uint64_t tcp_acked(const struct wren_sensor *s);

/* A sleepy sensor polls fast only while it awaits an answer (sensor.h). */
static void update_poll(struct wren_sensor *s)
{
    if (s->poll_ms == 0) {
        return;
    }
    bool fast = s->proto == WREN_SENSOR_TCP
                    ? (s->conn_open && (s->conn.state != WREN_TCP_ESTABLISHED ||
                                        s->written == s->conn_base)) ||
                          tcp_acked(s) < s->written
                    : s->up_active;
    struct wren_netif *nif = wren_netif_get(s->node, 1);
    if (fast == s->polling_fast || nif == NULL) {
        return;
    }
    uint32_t ms = fast ? s->poll_ms : WREN_SENSOR_IDLE_POLL_MS;
    uint32_t v[2] = { ms, ms };
    if (wren_netapi_set(s->node, &nif->module, WREN_NETOPT_MAC_POLL, 0, v, sizeof(v)) == 0) {
        s->polling_fast = fast;
    }
}

/* ---- TCP sensor ---------------------------------------------------------------- */

/* Stream bytes TCP has had acknowledged (what its buffer no longer holds). */
static uint64_t tcp_acked(const struct wren_sensor *s)
{
    if (s->conn.state != WREN_TCP_ESTABLISHED && s->conn.state != WREN_TCP_CLOSE_WAIT) {
        return (uint64_t)s->head * s->size; /* nothing new is known */
    }
    return s->written - (WREN_SENSOR_TCP_BUF - wren_tcp_writable(&s->conn));
}

static void tcp_account(struct wren_sensor *s)
{
    uint32_t h = (uint32_t)(tcp_acked(s) / s->size);
    if (h > s->head) {
        s->st.acked += h - s->head;
        s->head = h;
    }
}

static void tcp_pump(struct wren_sensor *s)
{
    if (!s->draining || s->conn.state != WREN_TCP_ESTABLISHED) {
        return;
    }
    uint8_t buf[256];
    uint64_t end = (uint64_t)s->tail * s->size;
    while (s->written < end) {
        size_t n = (size_t)min64(end - s->written, sizeof(buf));
        pattern(buf, s->written - s->conn_base, n);
        ssize_t r = wren_tcp_send_more(&s->conn, buf, n);
        if (r <= 0) {
            break;
        }
        s->written += (uint64_t)r;
    }
    wren_tcp_send(&s->conn, NULL, 0);
    if (s->written == end) {
        s->draining = false;
    }
}

static void tcp_connect(struct wren_sensor *s);

static void tcp_cb(struct wren_tcp_conn *c, unsigned ev, void *arg)
{
    struct wren_sensor *s = arg;
    if (ev & WREN_TCP_EV_CLOSED) {
        /* a failed connection loses what its buffer held; the next one
         * starts at the next whole reading */
        uint32_t from = s->head;
        uint32_t to = (uint32_t)((s->written + s->size - 1) / s->size);
        s->st.tcp_failures += c->err != 0;
        s->tcp_err = c->err;
        s->tcp_err_s = (uint32_t)(wren_node_now(s->node) / 1000000u);
        s->st.lost_giveup += to - from;
        s->head = to;
        s->written = s->conn_base = (uint64_t)to * s->size;
        wren_tcp_release(c);
        s->conn_open = false;
        wren_timer_set(s->node, &s->retry, 1000000u);
        update_poll(s);
        return;
    }
    if (ev & (WREN_TCP_EV_SEND | WREN_TCP_EV_CONNECTED)) {
        tcp_account(s);
        tcp_pump(s);
    }
    update_poll(s);
    if (ev & WREN_TCP_EV_RECV) {
        uint8_t b[64];
        while (wren_tcp_recv(c, b, sizeof(b)) > 0) {
        }
    }
}

static void tcp_connect(struct wren_sensor *s)
{
    struct wren_tcp *tcp = wren_tcp_of(s->node);
    if (tcp == NULL) {
        return;
    }
    if (s->conn_open) {
        return;
    }
    wren_tcp_conn_init(&s->conn, s->snd, sizeof(s->snd), s->rcv, s->bm, sizeof(s->rcv));
    wren_tcp_set_mss(&s->conn, s->mss);
    wren_tcp_set_cb(&s->conn, tcp_cb, s);
    if (wren_tcp_connect(tcp, &s->conn, s->dst, s->port, 0, 0) < 0) {
        wren_timer_set(s->node, &s->retry, 1000000u);
    } else {
        s->conn_open = true;
    }
    update_poll(s);
}

static void retry_cb(struct wren_timer *t, void *arg)
{
    (void)t;
    tcp_connect(arg);
}

/* ---- CoAP sensor --------------------------------------------------------------- */

static int szx_of(uint16_t block)
{
    return wren_coap_block_szx_fit(block);
}

/* Build block up_blk of the body into s->msg, with a new message ID. */
static int coap_build(struct wren_sensor *s)
{
    uint64_t off0 = (uint64_t)s->up_first * s->size;
    uint64_t body = (uint64_t)s->up_n * s->size;
    uint64_t boff = (uint64_t)s->up_blk * s->block;
    size_t n = (size_t)min64(s->block, body - boff);
    struct coap_block blk = { .num = s->up_blk, .more = boff + n < body,
                              .szx = (uint8_t)szx_of(s->block) };
    char q[32];
    snprintf(q, sizeof(q), "o=%llu", (unsigned long long)off0);
    struct coap_builder b;
    s->mid++;
    wren_coap_build_init(&b, s->msg, sizeof(s->msg), COAP_CON, COAP_CODE_POST, s->mid, s->token,
                         sizeof(s->token));
    wren_coap_build_opt_path(&b, COAP_OPT_URI_PATH, SINK_PATH);
    wren_coap_build_opt_uint(&b, COAP_OPT_CONTENT_FORMAT, COAP_CF_OCTETS);
    wren_coap_build_opt(&b, COAP_OPT_URI_QUERY, q, strlen(q));
    wren_coap_build_opt_uint(&b, COAP_OPT_BLOCK1, (uint32_t)wren_coap_block_encode(&blk));
    if (s->up_blk == 0) {
        wren_coap_build_opt_uint(&b, COAP_OPT_SIZE1, (uint32_t)body);
    }
    size_t max;
    uint8_t *p = wren_coap_build_payload_start(&b, &max);
    if (p == NULL || max < n) {
        return -ENOBUFS;
    }
    pattern(p, off0 + boff, n);
    wren_coap_build_payload_done(&b, n);
    int len = wren_coap_build_end(&b);
    if (len < 0) {
        return -ENOBUFS;
    }
    s->msg_len = (uint16_t)len;
    return 0;
}

static void coap_send(struct wren_sensor *s)
{
    struct wren_sock_udp_ep to = { .port = s->port };
    memcpy(to.addr, s->dst, 16);
    (void)wren_sock_udp_send(&s->sock, s->msg, s->msg_len, &to); /* a failed send times out */
    wren_timer_set(s->node, &s->rto, (uint64_t)s->timeout_ms * 1000u);
}

/* A new block's first transmission: RFC 7252 4.2's initial timeout. */
static void coap_block_go(struct wren_sensor *s)
{
    if (coap_build(s) < 0) {
        s->up_active = false;
        return;
    }
    s->retx = 0;
    uint32_t spread = s->rto_ms * (CONFIG_WREN_COAP_ACK_RANDOM_FACTOR_PERMILLE - 1000u) / 1000u;
    s->timeout_ms = s->rto_ms + wren_node_random_below(s->node, spread + 1);
    s->st.coap_blocks++;
    coap_send(s);
}

/* A body of every queued reading from head on. */
static void coap_body(struct wren_sensor *s)
{
    s->up_active = s->tail > s->head;
    if (!s->up_active) {
        return;
    }
    s->up_first = s->head;
    s->up_n = s->tail - s->head;
    s->up_blk = 0;
    uint32_t tok = wren_node_random(s->node);
    memcpy(s->token, &tok, sizeof(s->token));
    coap_block_go(s);
}

static void coap_start(struct wren_sensor *s)
{
    if (!s->up_active && (s->tail - s->head >= s->batch || (s->draining && s->tail > s->head))) {
        s->st.batches++;
        coap_body(s);
    }
}

/* Readings wholly before stream byte @p end are through: acknowledged or lost. */
static void coap_advance(struct wren_sensor *s, uint64_t end, bool lost)
{
    uint32_t h = (uint32_t)(lost ? (end + s->size - 1) / s->size : end / s->size);
    if (h > s->tail) {
        h = s->tail;
    }
    if (h > s->head) {
        if (lost) {
            s->st.lost_giveup += h - s->head;
        } else {
            s->st.acked += h - s->head;
        }
        s->head = h;
    }
}

static uint64_t block_end(const struct wren_sensor *s)
{
    uint64_t body = (uint64_t)s->up_n * s->size;
    return (uint64_t)s->up_first * s->size + min64((uint64_t)(s->up_blk + 1) * s->block, body);
}

static void rto_cb(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_sensor *s = arg;
    if (!s->up_active) {
        return;
    }
    s->st.coap_wait_ms += s->timeout_ms;
    if (s->retx < CONFIG_WREN_COAP_MAX_RETRANSMIT) {
        s->retx++;
        s->timeout_ms *= 2;
        s->st.coap_retx++;
        coap_send(s);
        return;
    }
    /* given up: the block's readings are lost, the rest goes on */
    s->st.coap_giveups++;
    coap_advance(s, block_end(s), true);
    s->up_active = false;
    coap_body(s);
    update_poll(s);
}

static void coap_rx(struct wren_sock_udp *sock, unsigned events, void *arg)
{
    (void)events;
    struct wren_sensor *s = arg;
    uint8_t buf[128];
    struct wren_sock_udp_ep from;
    ssize_t n;
    while ((n = wren_sock_udp_recv(sock, buf, sizeof(buf), 0, &from)) > 0 ||
           n == -ENOBUFS) {
        struct coap_msg m;
        if (n < 0 || wren_coap_parse(buf, (size_t)n, &m) < 0 || !s->up_active ||
            m.mid != s->mid || (m.type != COAP_ACK && m.type != COAP_RST)) {
            continue;
        }
        if (m.type == COAP_ACK && (m.tkl != sizeof(s->token) ||
                                   memcmp(m.token, s->token, sizeof(s->token)) != 0)) {
            continue;
        }
        wren_timer_cancel(s->node, &s->rto);
        uint64_t body_end = (uint64_t)(s->up_first + s->up_n) * s->size;
        if (m.type == COAP_ACK && m.code == COAP_CODE_CONTINUE && block_end(s) < body_end) {
            coap_advance(s, block_end(s), false);
            s->up_blk++;
            coap_block_go(s);
        } else if (m.type == COAP_ACK && COAP_CODE_CLASS(m.code) == 2) {
            coap_advance(s, body_end, false);
            s->up_active = false;
            if (s->head == s->tail) {
                s->draining = false;
            }
            coap_start(s);
        } else {
            /* refused (4.08 after a lost upload state, 5.03, RST): the body again */
            s->st.coap_errors++;
            coap_body(s);
        }
    }
    update_poll(s);
}

/* ---- the readings ------------------------------------------------------------- */

static void tick_cb(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_sensor *s = arg;
    s->st.generated++;
    bool full;
    if (s->proto == WREN_SENSOR_TCP) {
        tcp_account(s);
        full = (uint64_t)s->tail * s->size - s->written >= (uint64_t)s->batch * s->size;
    } else {
        full = s->tail - s->head >= s->cap;
    }
    if (full) {
        s->st.lost_full++;
    } else {
        s->tail++;
    }
    bool last = s->count && s->st.generated >= s->count;
    if (s->proto == WREN_SENSOR_TCP) {
        uint64_t queued = (uint64_t)s->tail * s->size - s->written;
        if (!s->draining && (queued >= (uint64_t)s->batch * s->size || (last && queued))) {
            s->draining = true;
            s->st.batches++;
        }
        tcp_pump(s);
    } else {
        if (last) {
            s->draining = true; /* the last readings go even when fewer than a batch */
        }
        coap_start(s);
    }
    if (!last) {
        wren_timer_set(s->node, &s->tick, s->period_us);
    }
    update_poll(s);
}

/* ---- sink ----------------------------------------------------------------------- */

static void sink_bytes(struct wren_sensor *s, uint64_t off, const uint8_t *p, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        s->bad += p[k] != (uint8_t)((off + k) % 251u);
    }
}

/* The sink's record of the sensor at @p addr: its own, or a free one (its
 * CoAP table allocated); NULL when the table is full or memory is out. */
static struct wren_sensor_peer *peer_of(struct wren_sensor *s, const uint8_t *addr)
{
    struct wren_sensor_peer *free_peer = NULL;
    for (unsigned i = 0; i < WREN_SENSOR_SINK_PEERS; i++) {
        struct wren_sensor_peer *p = &s->peer[i];
        if (p->used && memcmp(p->addr, addr, 16) == 0) {
            return p;
        }
        if (!p->used && free_peer == NULL) {
            free_peer = p;
        }
    }
    if (free_peer == NULL) {
        s->unknown++;
        return NULL;
    }
    free_peer->got = calloc(1, ((size_t)s->n_slots * s->size + 7) / 8 + s->n_slots);
    if (free_peer->got == NULL) {
        return NULL;
    }
    free_peer->used = true;
    memcpy(free_peer->addr, addr, 16);
    return free_peer;
}

static void sink_tcp_cb(struct wren_tcp_conn *c, unsigned ev, void *arg)
{
    struct wren_sensor_sconn *k = arg;
    struct wren_sensor *s = k->s;
    uint8_t buf[256];
    ssize_t r;
    while ((r = wren_tcp_recv(c, buf, sizeof(buf))) > 0) {
        sink_bytes(s, k->rx, buf, (size_t)r);
        uint32_t n = (uint32_t)((k->rx + (uint64_t)r) / s->size - k->rx / s->size);
        s->delivered += n;
        k->peer->delivered += n;
        k->rx += (uint64_t)r;
        s->tcp_bytes += (uint64_t)r;
    }
    if (r == 0 && c->state == WREN_TCP_CLOSE_WAIT) {
        wren_tcp_shutdown(c);
    }
    if (ev & WREN_TCP_EV_CLOSED) {
        wren_tcp_release(c); /* back to the listener for the next connection */
    }
}

static void sink_accept(struct wren_tcp_listener *l, void *arg)
{
    struct wren_sensor *s = arg;
    struct wren_tcp_conn *c = wren_tcp_accept(l);
    if (c == NULL) {
        return;
    }
    struct wren_sensor_sconn *k = NULL;
    for (unsigned i = 0; i < WREN_SENSOR_SINK_CONNS; i++) {
        k = &s->sconn[i].conn == c ? &s->sconn[i] : k;
    }
    k->peer = peer_of(s, c->raddr);
    if (k->peer == NULL) {
        wren_tcp_abort(c);
        wren_tcp_release(c);
        return;
    }
    k->rx = 0;
    wren_tcp_set_cb(c, sink_tcp_cb, k);
    sink_tcp_cb(c, 0, k);
}

static bool query_off(const struct coap_msg *m, uint64_t *off)
{
    struct coap_opt o;
    if (!wren_coap_opt_find(m, COAP_OPT_URI_QUERY, &o) || o.len < 3 || o.len > 22 ||
        o.val[0] != 'o' || o.val[1] != '=') {
        return false;
    }
    uint64_t v = 0;
    for (uint16_t i = 2; i < o.len; i++) {
        if (o.val[i] < '0' || o.val[i] > '9') {
            return false;
        }
        v = v * 10 + (uint64_t)(o.val[i] - '0');
    }
    *off = v;
    return true;
}

static bool bit(const uint8_t *map, uint64_t i)
{
    return (map[i / 8] >> (i % 8)) & 1u;
}

static void sink_coap(struct wren_coap *c, const struct wren_coap_req *req,
                      struct wren_coap_resp *resp, void *arg)
{
    (void)c;
    struct wren_sensor *s = arg;
    uint64_t off0;
    if (!query_off(req->msg, &off0)) {
        resp->code = COAP_CODE_BAD_REQUEST;
        return;
    }
    struct wren_sensor_peer *p = peer_of(s, req->remote.addr);
    if (p == NULL) {
        resp->code = COAP_CODE_SERVICE_UNAVAILABLE;
        return;
    }
    /* not atomic (RFC 7959 2.5 allows either): each block counts as it comes */
    uint64_t off = off0 + req->block_off;
    sink_bytes(s, off, req->payload, req->payload_len);
    s->coap_bytes += req->payload_len;
    uint64_t limit = (uint64_t)s->n_slots * s->size;
    uint8_t *done = p->got + ((size_t)s->n_slots * s->size + 7) / 8;
    for (size_t k = 0; k < req->payload_len && off + k < limit; k++) {
        uint64_t i = off + k;
        p->got[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    uint64_t r0 = off / s->size, r1 = min64((off + req->payload_len + s->size - 1) / s->size,
                                            s->n_slots);
    for (uint64_t r = r0; r < r1; r++) {
        bool all = !done[r];
        for (uint64_t i = r * s->size; all && i < (r + 1) * s->size; i++) {
            all = bit(p->got, i);
        }
        if (all) {
            done[r] = 1;
            s->delivered++;
            p->delivered++;
        }
    }
}

static int sink_start(struct wren_sensor *s, uint16_t port, uint32_t readings)
{
    struct wren_tcp *tcp = wren_tcp_of(s->node);
    struct wren_coap *c = wren_coap_of(s->node);
    if (s->sink || tcp == NULL || c == NULL) {
        return s->sink ? -EBUSY : -ENODEV;
    }
    s->n_slots = readings;
    s->res = (struct wren_coap_resource){ .path = SINK_PATH, .methods = WREN_COAP_POST,
                                          .cf = COAP_CF_OCTETS, .block1 = true,
                                          .handler = sink_coap, .arg = s };
    int res = wren_coap_resource_add(c, &s->res);
    if (res < 0) {
        return res;
    }
    for (unsigned i = 0; i < WREN_SENSOR_SINK_CONNS; i++) {
        struct wren_sensor_sconn *k = &s->sconn[i];
        k->s = s;
        wren_tcp_conn_init(&k->conn, k->snd, sizeof(k->snd), k->rcv, k->bm, sizeof(k->rcv));
        wren_tcp_set_mss(&k->conn, s->mss);
        s->pool[i] = &k->conn;
    }
    res = wren_tcp_listen(tcp, &s->lis, NULL, port, s->pool, WREN_SENSOR_SINK_CONNS);
    if (res < 0) {
        return res;
    }
    wren_tcp_listen_set_cb(&s->lis, sink_accept, s);
    s->sink = true;
    return 0;
}

/* ---- setup ---------------------------------------------------------------------- */

void wren_sensor_init(struct wren_sensor *s, struct wren_node *node)
{
    s->node = node;
    s->period_us = 1000000u;
    s->size = 82;
    s->batch = 64;
    s->mss = 500;
    s->block = 512;
    s->rto_ms = CONFIG_WREN_COAP_ACK_TIMEOUT_MS;
    s->mid = (uint16_t)wren_node_random(node);
    wren_timer_init(&s->tick, tick_cb, s);
    wren_timer_init(&s->retry, retry_cb, s);
    wren_timer_init(&s->rto, rto_cb, s);
}

void wren_sensor_free(struct wren_sensor *s)
{
    for (unsigned i = 0; i < WREN_SENSOR_SINK_PEERS; i++) {
        free(s->peer[i].got);
        s->peer[i].got = NULL;
    }
}

static int sensor_start(struct wren_sensor *s, uint8_t proto)
{
    if (s->proto) {
        return -EBUSY;
    }
    s->proto = proto;
    /* CoAP's queue: a batch and what TCP's send buffer would hold (the paper: 64 + 40) */
    s->cap = (uint16_t)(s->batch + WREN_SENSOR_TCP_BUF / s->size);
    if (proto == WREN_SENSOR_TCP) {
        tcp_connect(s);
    } else {
        int res = wren_sock_udp_create(s->node, &s->sock, &(struct wren_sock_udp_ep){ 0 }, NULL);
        if (res < 0) {
            s->proto = 0;
            return res;
        }
        wren_sock_udp_set_cb(&s->sock, coap_rx, s);
    }
    wren_timer_set(s->node, &s->tick, s->period_us);
    return 0;
}

static struct wren_sensor *sensor_of(struct wren_shell *sh)
{
    struct wren_sim_node *sn = sh->out_ctx; /* the shell writes to its node (sim.c) */
    return sn->sensor;
}

static void stats(struct wren_shell *sh, const struct wren_sensor *s)
{
    const struct wren_sensor_stats *t = &s->st;
    if (s->proto) {
        wren_shell_printf(sh, "sensor: proto %s generated %lu queued %lu acked %lu lost_full %lu "
                              "lost_giveup %lu batches %lu\n",
                          s->proto == WREN_SENSOR_TCP ? "tcp" : "coap",
                          (unsigned long)t->generated, (unsigned long)(s->tail - s->head),
                          (unsigned long)t->acked, (unsigned long)t->lost_full,
                          (unsigned long)t->lost_giveup, (unsigned long)t->batches);
        wren_shell_printf(sh, "sensor: coap_blocks %lu coap_retx %lu coap_giveups %lu "
                              "coap_errors %lu coap_wait_ms %lu tcp_failures %lu tcp_last_err %d "
                              "at_s %lu\n",
                          (unsigned long)t->coap_blocks, (unsigned long)t->coap_retx,
                          (unsigned long)t->coap_giveups, (unsigned long)t->coap_errors,
                          (unsigned long)t->coap_wait_ms, (unsigned long)t->tcp_failures,
                          -s->tcp_err, (unsigned long)s->tcp_err_s);
        if (s->proto == WREN_SENSOR_TCP) {
            /* the connection's RTT estimate and its timeout before backoff */
            wren_shell_printf(sh, "sensor: tcp_srtt_ms %lu tcp_rto_ms %lu\n",
                              (unsigned long)(s->conn.srtt_us / 1000u),
                              (unsigned long)s->conn.rto_ms);
        }
    }
    if (s->sink) {
        wren_shell_printf(sh, "sink: delivered %lu tcp_bytes %llu coap_bytes %llu bad %llu "
                              "unknown %lu\n",
                          (unsigned long)s->delivered, (unsigned long long)s->tcp_bytes,
                          (unsigned long long)s->coap_bytes, (unsigned long long)s->bad,
                          (unsigned long)s->unknown);
        for (unsigned i = 0; i < WREN_SENSOR_SINK_PEERS && s->peer[i].used; i++) {
            char a[WREN_IPV6_ADDR_STRLEN];
            wren_shell_printf(sh, "sink_peer: %s delivered %lu\n",
                              wren_ipv6_addr_to_str(a, s->peer[i].addr),
                              (unsigned long)s->peer[i].delivered);
        }
    }
}

static uint8_t proto_of(const char *word)
{
    return strcmp(word, "tcp") == 0    ? WREN_SENSOR_TCP
           : strcmp(word, "coap") == 0 ? WREN_SENSOR_COAP
                                       : 0;
}

static int start(struct wren_sensor *s, bool sink, uint8_t proto, long port, uint32_t readings)
{
    if (sink) {
        return sink_start(s, (uint16_t)(port > 0 ? port : 5001), readings);
    }
    s->port = (uint16_t)(port > 0 ? port : proto == WREN_SENSOR_TCP ? 5001 : COAP_PORT);
    return sensor_start(s, proto);
}

/* One `KEY VALUE` option of the sensor command; nonzero when it is bad. */
static int set_opt(struct wren_sensor *s, bool sink, const char *k, const char *v,
                   uint32_t *readings, long *port)
{
    int bad = 0;
    if (strcmp(k, "count") == 0) {
        s->count = (uint32_t)wren_shell_num(v, 0, 100000000, &bad);
    } else if (strcmp(k, "period") == 0) {
        s->period_us = (uint32_t)wren_shell_num(v, 1, 3600000, &bad) * 1000u;
    } else if (strcmp(k, "size") == 0) {
        s->size = (uint16_t)wren_shell_num(v, 1, 1024, &bad);
    } else if (strcmp(k, "batch") == 0) {
        s->batch = (uint16_t)wren_shell_num(v, 1, 1000, &bad);
    } else if (strcmp(k, "mss") == 0) {
        s->mss = (uint16_t)wren_shell_num(v, 1, 1220, &bad);
    } else if (strcmp(k, "block") == 0) {
        s->block = (uint16_t)wren_shell_num(v, 16, 512, &bad);
        bad |= COAP_BLOCK_SIZE(szx_of(s->block)) != s->block;
    } else if (strcmp(k, "rto") == 0 && !sink) {
        s->rto_ms = (uint32_t)wren_shell_num(v, 100, 60000, &bad);
    } else if (strcmp(k, "poll") == 0 && !sink) {
        s->poll_ms = (uint32_t)wren_shell_num(v, 1, 60000, &bad);
    } else if (strcmp(k, "port") == 0) {
        *port = wren_shell_num(v, 1, 65535, &bad);
    } else if (strcmp(k, "readings") == 0 && sink) {
        *readings = (uint32_t)wren_shell_num(v, 1, 1000000, &bad);
    } else {
        bad = 1;
    }
    return bad;
}

static int cmd_sensor(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    (void)m;
    struct wren_sensor *s = sensor_of(sh);
    int bad = argc < 2 || s == NULL;
    if (!bad && strcmp(argv[1], "stats") == 0 && argc == 2) {
        stats(sh, s);
        return 0;
    }
    bool sink = !bad && strcmp(argv[1], "sink") == 0;
    uint8_t proto = bad ? 0 : proto_of(argv[1]);
    int first = sink ? 2 : 3;
    bad |= !sink && (proto == 0 || argc < 3 || s->proto ||
                     wren_ipv6_addr_from_str(s->dst, argv[2]) < 0);
    uint32_t readings = 8192;
    long port = -1;
    for (int i = first; !bad && i + 1 < argc; i += 2) {
        bad = set_opt(s, sink, argv[i], argv[i + 1], &readings, &port);
    }
    bad |= !sink && proto == 0;
    if (bad || (argc - first) % 2) {
        wren_shell_printf(sh, "usage: sensor sink [port P] [readings N] | sensor tcp|coap ADDR "
                              "[count N] [period MS] [size B] [batch N] [mss N] [block B] "
                              "[rto MS] [poll MS] [port P] | sensor stats\n");
        return -EINVAL;
    }
    int res = start(s, sink, proto, port, readings);
    return res < 0 ? wren_shell_error(sh, res, "sensor") : 0;
}

const struct wren_shell_cmd wren_sim_shell_cmds[] = {
    { "sensor",
      "sensor sink [port P] [readings N] | sensor tcp|coap ADDR [count N] [period MS] [size B] "
      "[batch N] [mss N] [block B] [rto MS] [poll MS] [port P] | sensor stats: the TCP paper's "
      "anemometer "
      "application (82-byte readings each second, batches of 64, over TCP or CoAP Block1)",
      cmd_sensor },
    { "flow",
      "flow sink [port P] | flow send ADDR [port P] [size B] [mean MS] [count N] [start MS] | "
      "flow stats: UDP datagrams every MEAN ms on average (each gap uniform in [mean/2, "
      "3 mean/2]), counted per source at the sink (sim/flow.h)",
      wren_flow_cmd },
    { NULL, NULL, NULL },
};
