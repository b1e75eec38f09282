/* Fuzz the CoAP server's request handling: the input is a sequence of
 * datagrams (a header byte: source port 0..3 and a time step; two length
 * bytes; then that many bytes), each sent from a socket of the same
 * simulated node to [::1]:5683, so it crosses UDP and the server's message
 * layer, duplicate cache, option checks, resources (one of several
 * formats with an ETag besides the defaults, and, as the simulated node
 * runs them, the plugtest resources), Block1/Block2, observe and datagrams
 * beyond the receive buffer (answered 4.13). Everything the server sends
 * must parse as CoAP: a RST or an ACK (empty when the response is separate)
 * to a CON carries its message ID, a NON is answered NON or with a RST, and
 * only notifications (CON, or NON with Observe) and separate responses reach
 * other sockets. The packet buffer
 * stays consistent, and is empty once the sockets are closed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coap/coap.h"
#include "sim/sim.h"
#include "sock/sock_udp.h"
#include "wire/coap.h"
#include "fuzz_modules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

static uint8_t reply[CONFIG_WREN_COAP_MSG_MAX + 1];

/* A resource of two formats that takes one (Accept for every method, 4.06,
 * 4.15) and gives an ETag (2.03 for a GET that lists it). */
static void multi_handler(struct wren_coap *c, const struct wren_coap_req *req,
                          struct wren_coap_resp *resp, void *arg)
{
    (void)c;
    (void)req;
    (void)arg;
    resp->etag[0] = (uint8_t)resp->cf;
    resp->etag_len = 1;
    wren_coap_resp_write(resp, "m", 1);
}

static const int16_t multi_cfs[] = { COAP_CF_TEXT, COAP_CF_JSON, -1 };
static const int16_t multi_accepts[] = { COAP_CF_TEXT, -1 };
static const struct wren_coap_resource multi = {
    .path = "/m", .methods = WREN_COAP_GET | WREN_COAP_POST | WREN_COAP_PUT, .cf = COAP_CF_TEXT,
    .cfs = multi_cfs, .accepts = multi_accepts, .observable = true, .handler = multi_handler,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wren_sim *s = wren_sim_new(1);
    fuzz_every_module(s);
    wren_sim_add_node(s, 0, 0, 0, 0);
    struct wren_node *node = wren_sim_node(s, 0);
    struct wren_coap *c = wren_coap_of(node);
    REQUIRE(c != NULL);
    REQUIRE(wren_coap_resource_add(c, &multi) == 0);
    struct wren_sock_udp socks[4];
    for (int i = 0; i < 4; i++) {
        struct wren_sock_udp_ep l = { .port = (uint16_t)(50000 + i) };
        REQUIRE(wren_sock_udp_create(node, &socks[i], &l, NULL) == 0);
    }
    struct wren_sock_udp_ep to = { .addr = { [15] = 1 }, .port = COAP_PORT };
    size_t off = 0;
    uint64_t t = 0;
    while (off + 3 <= size) {
        uint8_t h = data[off];
        size_t n = (size_t)(data[off + 1] | (data[off + 2] << 8)) % 1300u;
        off += 3;
        if (n > size - off) {
            n = size - off;
        }
        const uint8_t *req = data + off;
        off += n;
        struct wren_sock_udp *sk = &socks[h & 3];
        uint32_t dups = c->stats.rx_dup;
        uint32_t seps = c->stats.sep_sent;
        (void)wren_sock_udp_send(sk, req, n, &to);
        /* time steps up to ~4 minutes: the duplicate cache ages and expires */
        t += 1000 + ((uint64_t)(h >> 2) << 22);
        wren_sim_run(s, t);
        REQUIRE(wren_pktbuf_is_sane(&node->pktbuf));
        struct coap_msg q, r;
        int qrc = wren_coap_parse(req, n, &q);
        /* separate responses sent in this step (RFC 7252 5.2.2): a NON one
         * may answer an earlier step's NON request, from another socket */
        uint32_t sep_new = c->stats.sep_sent - seps;
        for (int j = 0; j < 4; j++) {
            ssize_t k;
            while ((k = wren_sock_udp_recv(&socks[j], reply, sizeof(reply), 0, NULL)) >= 0) {
                REQUIRE(wren_coap_parse(reply, (size_t)k, &r) == 0);
                if (r.type == COAP_RST || (r.type == COAP_ACK && r.code == COAP_CODE_EMPTY)) {
                    /* (an empty ACK: a CON whose response is separate) */
                    REQUIRE(r.code == COAP_CODE_EMPTY);
                } else {
                    REQUIRE(COAP_CODE_CLASS(r.code) >= 2 && COAP_CODE_CLASS(r.code) <= 5);
                }
                struct coap_opt ob;
                if (r.type == COAP_CON || (r.type == COAP_NON &&
                                           wren_coap_opt_find(&r, COAP_OPT_OBSERVE, &ob))) {
                    continue; /* a notification (RFC 7641), to any socket that observes */
                }
                if (r.type == COAP_NON && sep_new &&
                    (&socks[j] != sk || qrc != 0 || q.type != COAP_NON || r.tkl != q.tkl ||
                     memcmp(r.token, q.token, q.tkl) != 0)) {
                    sep_new--; /* an earlier request's separate response */
                    continue;
                }
                REQUIRE(&socks[j] == sk); /* anything else answers this step's request */
                if (r.type == COAP_RST || r.type == COAP_ACK) {
                    /* only CONs are acknowledged or rejected, with their ID */
                    REQUIRE(qrc != -COAP_ERR_TRUNCATED && qrc != -COAP_ERR_VERSION);
                    REQUIRE(q.type == COAP_CON || r.type == COAP_RST);
                    REQUIRE(r.mid == q.mid);
                } else {
                    /* (a datagram beyond the buffer is answered from its first bytes) */
                    REQUIRE(r.type == COAP_NON && q.type == COAP_NON &&
                            (qrc == 0 || (n > CONFIG_WREN_COAP_MSG_MAX &&
                                          r.code == COAP_CODE_TOO_LARGE)));
                    /* (a duplicate ID gets the first message's response) */
                    REQUIRE(c->stats.rx_dup != dups ||
                            (r.tkl == q.tkl && memcmp(r.token, q.token, q.tkl) == 0));
                }
            }
        }
    }
    for (int i = 0; i < 4; i++) {
        wren_sock_udp_close(&socks[i]);
    }
    wren_sim_run(s, t + 1000000);
    REQUIRE(wren_pktbuf_is_empty(&node->pktbuf) && wren_pktbuf_is_sane(&node->pktbuf));
    wren_sim_free(s);
    return 0;
}
