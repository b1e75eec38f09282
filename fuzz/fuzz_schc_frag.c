/**
 * @file fuzz_schc_frag.c
 * @brief libFuzzer target for the SCHC fragment receiver and the ACK
 *        parser of the sender (schc/schc_frag.h), both LoRaWAN profiles.
 *
 * The input is a sequence of messages (a length byte, then that many
 * bytes), each fed to a receiver session and to a sender in the middle of
 * a transfer. Whatever they do, a reassembled packet must check (its RCS),
 * ACKs fit their buffer, and nothing is read or written out of bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "schc/schc_frag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

static struct wren_schc_frag_rx rx;
static struct wren_schc_frag_tx tx;

static void feed(const struct wren_schc_frag_profile *p, const uint8_t *data, size_t size)
{
    static uint8_t pkt[600], out[64];
    uint8_t ack[16];
    size_t al;
    for (size_t i = 0; i < sizeof(pkt); i++) {
        pkt[i] = (uint8_t)i;
    }
    wren_schc_frag_rx_start(&rx, p, 0);
    REQUIRE(wren_schc_frag_tx_start(&tx, p, pkt, sizeof(pkt)) == 0);
    (void)wren_schc_frag_tx_next(&tx, 0, out, sizeof(out));
    uint32_t now = 0;
    for (size_t i = 0; i < size;) {
        size_t n = data[i++];
        n = n < size - i ? n : size - i;
        int rc = wren_schc_frag_rx_input(&rx, now, data + i, n, ack, &al);
        REQUIRE(al <= sizeof(ack));
        if (rc == 1) {
            REQUIRE(rx.len <= CONFIG_WREN_SCHC_MAX_PACKET && rx.state == WREN_SCHC_FRAG_DONE);
            REQUIRE(wren_schc_crc32(rx.pkt, rx.len) == rx.rcs);
        }
        rc = wren_schc_frag_tx_ack(&tx, now, data + i, n);
        int m;
        while ((m = wren_schc_frag_tx_next(&tx, now, out, sizeof(out))) > 0) {
            REQUIRE((size_t)m <= sizeof(out));
        }
        if (m == 0 && tx.state == WREN_SCHC_FRAG_WAIT_ACK && (n & 1)) {
            now = tx.deadline;
            (void)wren_schc_frag_tx_timeout(&tx, now);
        }
        i += n;
        now += 1000;
    }
    if (rx.state == WREN_SCHC_FRAG_SENDING) {
        REQUIRE(wren_schc_frag_rx_timeout(&rx, ack, &al) < 0 && al == 3);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    feed(&wren_schc_frag_lorawan_up, data, size);
    feed(&wren_schc_frag_lorawan_down, data, size);
    return 0;
}
