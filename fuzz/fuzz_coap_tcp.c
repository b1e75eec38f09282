/**
 * @file fuzz_coap_tcp.c
 * @brief libFuzzer target for CoAP over TCP framing and signals (RFC 8323):
 *        wren_coap_tcp_frame_len / parse / emit / from_udp and
 *        wren_coap_tcp_signal_parse, on a stream cut into segments.
 *
 * The first input byte chooses segment sizes; the rest is a byte stream.
 * A reader that gets it one segment at a time (reading only what the frame
 * length asks for, as the server does) must find the same messages at the
 * same offsets as one that sees the whole stream; each message is parsed
 * from an exact-size copy (ASan bounds). One that parses is emitted again
 * byte for byte (the length encoding is unique; one byte short fails), and its UDP form converted back in
 * place gives the same bytes; signals are read with their options.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/coap_tcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

/* Messages larger than this are skipped whole, as a receiver beyond its
 * Max-Message-Size would abort (their bytes are still walked). */
#define MSG_CAP 1200

static void check_msg(const uint8_t *msg, size_t len)
{
    uint8_t *c = malloc(len ? len : 1);
    REQUIRE(c);
    memcpy(c, msg, len);
    struct coap_msg m;
    int rc = wren_coap_tcp_parse(c, len, &m);
    /* shorter by one is never a whole message */
    if (len > 0) {
        struct coap_msg m2;
        REQUIRE(wren_coap_tcp_parse(c, len - 1, &m2) < 0);
    }
    if (rc < 0) {
        REQUIRE(rc == -COAP_ERR_TKL || rc == -COAP_ERR_EMPTY || rc == -COAP_ERR_OPT_TRUNC ||
                rc == -COAP_ERR_OPT_RESERVED || rc == -COAP_ERR_OPT_NUM ||
                rc == -COAP_ERR_NO_PAYLOAD);
        free(c);
        return;
    }
    REQUIRE(m.type == COAP_CON && m.mid == 0 && m.tkl <= COAP_TOKEN_MAX);
    if (m.payload) {
        REQUIRE(m.payload_len > 0 && m.payload[-1] == 0xff && m.payload + m.payload_len == c + len);
    }
    /* emit: the same bytes (each Len nibble covers its own range of
     * lengths, so the encoding is unique) */
    size_t n = wren_coap_tcp_len(&m);
    REQUIRE(n == len);
    uint8_t *out = malloc(len + 8);
    REQUIRE(out);
    REQUIRE(wren_coap_tcp_emit(&m, out, n - 1) == -COAP_ERR_NOBUFS);
    REQUIRE(wren_coap_tcp_emit(&m, out, n) == (int)n);
    REQUIRE(memcmp(out, c, len) == 0);
    struct coap_msg back;
    REQUIRE(wren_coap_tcp_parse(out, n, &back) == 0);
    REQUIRE(back.code == m.code && back.tkl == m.tkl && back.opts_len == m.opts_len &&
            back.payload_len == m.payload_len && memcmp(back.token, m.token, m.tkl) == 0);
    /* the UDP form, turned into TCP in place, is the emitted message */
    size_t ul = wren_coap_len(&m);
    uint8_t *u = malloc(ul + 2);
    REQUIRE(u);
    REQUIRE(wren_coap_emit(&m, u + 2, ul) == (int)ul);
    int at = wren_coap_tcp_from_udp(u, 2, ul);
    REQUIRE(at >= 0 && (size_t)at + n == ul + 2 && memcmp(u + at, out, n) == 0);
    free(u);
    if (COAP_CODE_CLASS(m.code) == 7) {
        struct coap_tcp_signal s;
        rc = wren_coap_tcp_signal_parse(&m, &s);
        REQUIRE(rc == 0 || rc == -COAP_TCP_ERR_SIG_CRITICAL);
        if (rc == -COAP_TCP_ERR_SIG_CRITICAL)
            REQUIRE(s.bad_option & 1);
    } else {
        struct coap_tcp_signal s;
        REQUIRE(wren_coap_tcp_signal_parse(&m, &s) == -COAP_ERR_INVAL);
    }
    free(out);
    free(c);
}

/* Walk the whole stream: message boundaries in order (at most @p max). */
static size_t boundaries(const uint8_t *s, size_t len, size_t *ends, size_t max)
{
    size_t off = 0, k = 0;
    while (off < len && k < max) {
        uint64_t total;
        if (wren_coap_tcp_frame_len(s + off, len - off, &total) < 0) {
            REQUIRE(total > len - off && total <= 6);
            break;
        }
        REQUIRE(total >= 2);
        if (total > len - off)
            break;
        off += (size_t)total;
        ends[k++] = off;
    }
    return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t seg = data[0];
    const uint8_t *s = data + 1;
    size_t len = size - 1;
    size_t ends[64];
    size_t k = boundaries(s, len, ends, 64);

    /* the segmented reader: a buffer holding one message at most */
    uint8_t buf[MSG_CAP];
    size_t have = 0, pos = 0, found = 0, skip = 0;
    uint64_t want = 1;
    size_t at = 0; /* stream offset of the message being read */
    while (pos < len && found < k) {
        size_t chunk = 1 + (size_t)((seg * (pos + 7)) % 97);
        if (chunk > len - pos)
            chunk = len - pos;
        size_t used = 0;
        /* the messages past the k-th have no boundary in ends[]: stop at it,
         * whichever branch counted it (a skipped one too) */
        while (used < chunk && found < k) {
            if (skip) {
                size_t n = skip < chunk - used ? skip : chunk - used;
                skip -= n;
                used += n;
                if (skip == 0) {
                    REQUIRE(at + (size_t)want == ends[found]);
                    found++;
                    at += (size_t)want;
                    have = 0;
                    want = 1;
                }
                continue;
            }
            /* read only up to what the frame needs */
            size_t n = (size_t)want - have;
            if (n > chunk - used)
                n = chunk - used;
            memcpy(buf + have, s + pos + used, n);
            have += n;
            used += n;
            if (have < want)
                continue;
            uint64_t total;
            if (wren_coap_tcp_frame_len(buf, have, &total) < 0) {
                REQUIRE(total > have);
                want = total;
                continue;
            }
            if (total > MSG_CAP) {
                want = total;
                skip = (size_t)(total - have); /* drained, as after an Abort */
                if (skip == 0) {
                    found++;
                    at += (size_t)total;
                    have = 0;
                    want = 1;
                }
                continue;
            }
            if (have < total) {
                want = total;
                continue;
            }
            REQUIRE(at + have == ends[found]);
            check_msg(buf, have);
            found++;
            at += have;
            have = 0;
            want = 1;
            if (found == k)
                break;
        }
        pos += chunk;
    }
    REQUIRE(found == k);
    return 0;
}
