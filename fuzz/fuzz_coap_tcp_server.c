/* Fuzz the CoAP over TCP server's input path: the input is a sequence of
 * writes (a header byte: client 0..2 or 3 = everyone disconnects, and a time
 * step; two length bytes; then that many bytes), each written by one of
 * three TCP clients of the same simulated node to [::1]:5683 (connected
 * first when it is not), so the bytes cross TCP, the stream framing (frames
 * cut anywhere, across writes), signals, the request handling shared with
 * UDP (options, resources, Block1/Block2, observe) and the connection
 * timers. Everything the server sends must be whole CoAP-over-TCP messages:
 * a CSM first, then responses (2.xx-5.xx) or signals, and nothing after an
 * Abort. The packet buffer stays consistent, and is empty once the clients
 * are gone and the connections closed. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coap/coap_tcp.h"
#include "sim/sim.h"
#include "sock/sock_tcp.h"
#include "wire/coap_tcp.h"
#include "fuzz_modules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

#define NCLI 3

struct cli {
    struct wren_sock_tcp sock;
    uint8_t acc[4096];
    size_t have;
    unsigned msgs;
    int aborted;
    int ended;
};

static struct cli cli[NCLI];
static const struct wren_sock_tcp_ep to = { .addr = { [15] = 1 }, .port = COAP_PORT };

/* Take every whole message the server sent on @p k so far and check it. */
static void drain(struct cli *k)
{
    for (;;) {
        ssize_t n = wren_sock_tcp_read(&k->sock, k->acc + k->have, sizeof(k->acc) - k->have, 0);
        if (n == 0) {
            k->ended = 1;
        }
        if (n <= 0) {
            break;
        }
        k->have += (size_t)n;
        size_t off = 0;
        for (;;) {
            uint64_t total;
            if (wren_coap_tcp_frame_len(k->acc + off, k->have - off, &total) < 0 ||
                total > k->have - off) {
                break;
            }
            REQUIRE(total <= CONFIG_WREN_COAP_MSG_MAX + COAP_TCP_HDR_MAX);
            struct coap_msg m;
            REQUIRE(wren_coap_tcp_parse(k->acc + off, (size_t)total, &m) == 0);
            REQUIRE(!k->aborted); /* nothing after an Abort */
            if (k->msgs++ == 0) {
                REQUIRE(m.code == COAP_CODE_CSM); /* RFC 8323 3.3 */
            }
            uint8_t cls = COAP_CODE_CLASS(m.code);
            REQUIRE((cls >= 2 && cls <= 5) ||
                    (m.code >= COAP_CODE_CSM && m.code <= COAP_CODE_ABORT));
            if (cls == 7) {
                struct coap_tcp_signal sg;
                REQUIRE(wren_coap_tcp_signal_parse(&m, &sg) == 0);
            }
            k->aborted |= m.code == COAP_CODE_ABORT;
            off += (size_t)total;
        }
        /* a message of at most 1,158 bytes is never cut by a 4 KiB buffer */
        REQUIRE(k->have - off < sizeof(k->acc) / 2);
        memmove(k->acc, k->acc + off, k->have - off);
        k->have -= off;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wren_sim *s = wren_sim_new(1);
    fuzz_every_module(s);
    wren_sim_add_node(s, 0, 0, 0, 0);
    struct wren_node *node = wren_sim_node(s, 0);
    struct wren_coap_tcp *t = wren_coap_tcp_of(node);
    REQUIRE(t != NULL);
    memset(cli, 0, sizeof(cli));
    size_t off = 0;
    uint64_t now = 0;
    while (off + 3 <= size) {
        uint8_t h = data[off];
        size_t n = (size_t)(data[off + 1] | (data[off + 2] << 8)) % 1400u;
        off += 3;
        if (n > size - off) {
            n = size - off;
        }
        const uint8_t *bytes = data + off;
        off += n;
        unsigned which = h & 3;
        if (which == 3) {
            for (int i = 0; i < NCLI; i++) {
                wren_sock_tcp_disconnect(&cli[i].sock);
            }
        } else {
            struct cli *k = &cli[which];
            if (k->sock.conn.state != WREN_TCP_ESTABLISHED || k->ended) {
                wren_sock_tcp_disconnect(&k->sock);
                if (wren_sock_tcp_connect(node, &k->sock, &to, 0, 0) == -EINPROGRESS) {
                    k->have = 0;
                    k->msgs = 0;
                    k->aborted = 0;
                    k->ended = 0;
                    now += 50000;
                    wren_sim_run(s, now);
                }
            }
            if (k->sock.conn.state == WREN_TCP_ESTABLISHED) {
                (void)wren_sock_tcp_write(&k->sock, bytes, n, 0);
            }
        }
        /* time steps up to ~8 minutes: CSM and idle timers fire */
        now += 1000 + ((uint64_t)(h >> 2) << 23);
        wren_sim_run(s, now);
        REQUIRE(wren_pktbuf_is_sane(&node->pktbuf));
        for (int i = 0; i < NCLI; i++) {
            if (cli[i].sock.conn.state != WREN_TCP_CLOSED) {
                drain(&cli[i]);
            }
        }
    }
    for (int i = 0; i < NCLI; i++) {
        wren_sock_tcp_disconnect(&cli[i].sock);
    }
    /* the server's side finishes closing (and lingers at most 60 s) */
    wren_sim_run(s, now + 130000000);
    REQUIRE(wren_pktbuf_is_empty(&node->pktbuf) && wren_pktbuf_is_sane(&node->pktbuf));
    wren_sim_free(s);
    return 0;
}
