/**
 * @file test_coap_tcp.c
 * @brief CoAP over TCP framing and signals (RFC 8323 3.2, 5): the RFC's
 *        encoded examples, every extended-length boundary both ways, the
 *        UDP-to-TCP header rewrite, truncated and oversized headers, and
 *        signal options (known, elective unknown, critical unknown).
 */
#include <string.h>

#include "fixture.h"
#include "wire/coap_tcp.h"

/* RFC 8323 3.2's example: 2.03 with token 7f; 5.7's Ping and Pong */
TEST(test_coap_tcp__rfc_examples)
{
    static const uint8_t valid[] = { 0x01, 0x43, 0x7f };
    struct coap_msg m;
    CHECK_EQ(wren_coap_tcp_parse(valid, sizeof(valid), &m), 0);
    CHECK(m.code == COAP_CODE_VALID && m.tkl == 1 && m.token[0] == 0x7f);
    CHECK(m.opts_len == 0 && m.payload == NULL);
    uint8_t out[8];
    CHECK_EQ(wren_coap_tcp_emit(&m, out, sizeof(out)), 3);
    CHECK(memcmp(out, valid, 3) == 0);
    static const uint8_t ping[] = { 0x01, 0xe2, 0x42 };
    CHECK_EQ(wren_coap_tcp_parse(ping, sizeof(ping), &m), 0);
    CHECK_EQ(m.code, COAP_CODE_PING);
    struct coap_tcp_signal s;
    CHECK_EQ(wren_coap_tcp_signal_parse(&m, &s), 0);
    CHECK_EQ(s.custody, 0);
    uint64_t total;
    CHECK_EQ(wren_coap_tcp_frame_len(ping, 1, &total), -COAP_ERR_TRUNCATED);
    CHECK_EQ(total, 2);
    CHECK_EQ(wren_coap_tcp_frame_len(ping, 2, &total), 0);
    CHECK_EQ(total, 3);
}

/* Len 0..12 inline, 13 + 1 byte, 14 + 2, 15 + 4: each boundary */
TEST(test_coap_tcp__extended_lengths)
{
    static const size_t sizes[] = { 0, 1, 12, 13, 14, 268, 269, 270, 65804, 65805, 65806 };
    static const uint8_t hdr[] = { 2, 2, 2, 3, 3, 3, 4, 4, 4, 6, 6 };
    static uint8_t pl[70000], buf[70100];
    for (size_t i = 0; i < sizeof(pl); i++) {
        pl[i] = (uint8_t)i;
    }
    for (unsigned k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        /* body = marker + payload (0: no marker) */
        size_t plen = sizes[k] ? sizes[k] - 1 : 0;
        struct coap_msg m = { .code = COAP_CODE_CONTENT, .tkl = 2, .token = { 1, 2 } };
        m.payload = plen ? pl : NULL;
        m.payload_len = plen;
        if (sizes[k] == 1) {
            /* one option byte instead (a marker alone is not a message) */
            static const uint8_t opt[] = { 0xb0 };
            m.opts = opt;
            m.opts_len = 1;
        }
        size_t n = wren_coap_tcp_len(&m);
        CHECK_EQ(n, hdr[k] + 2u + sizes[k]);
        CHECK_EQ(wren_coap_tcp_emit(&m, buf, n - 1), -COAP_ERR_NOBUFS);
        CHECK_EQ(wren_coap_tcp_emit(&m, buf, n), (int)n);
        uint64_t total;
        CHECK_EQ(wren_coap_tcp_frame_len(buf, hdr[k] - 1u, &total), -COAP_ERR_TRUNCATED);
        CHECK_EQ(total, hdr[k]);
        CHECK_EQ(wren_coap_tcp_frame_len(buf, hdr[k], &total), 0);
        CHECK_EQ(total, n);
        struct coap_msg back;
        CHECK_EQ(wren_coap_tcp_parse(buf, n, &back), 0);
        CHECK(back.code == m.code && back.payload_len == plen && back.tkl == 2);
        CHECK_EQ(wren_coap_tcp_parse(buf, n - 1, &back), -COAP_TCP_ERR_LEN);
        CHECK_EQ(wren_coap_tcp_parse(buf, n + 1, &back), -COAP_TCP_ERR_LEN);
        /* the UDP form rewritten in place: the same bytes */
        static uint8_t u[70100];
        size_t ul = wren_coap_len(&m);
        CHECK_EQ(wren_coap_emit(&m, u + 2, ul), (int)ul);
        int at = wren_coap_tcp_from_udp(u, 2, ul);
        CHECK(at >= 0 && (size_t)at + n == ul + 2);
        CHECK(memcmp(u + at, buf, n) == 0);
    }
}

TEST(test_coap_tcp__bad_frames)
{
    struct coap_msg m;
    uint64_t total;
    /* Len 15 with its 4 extension bytes cut */
    static const uint8_t cut[] = { 0xf0, 0x00, 0x01 };
    CHECK_EQ(wren_coap_tcp_frame_len(cut, sizeof(cut), &total), -COAP_ERR_TRUNCATED);
    CHECK_EQ(total, 6);
    CHECK_EQ(wren_coap_tcp_parse(cut, sizeof(cut), &m), -COAP_ERR_TRUNCATED);
    /* the largest length there is: 4 GiB + 65805 + the header */
    static const uint8_t huge[] = { 0xf8, 0xff, 0xff, 0xff, 0xff, 0x01 };
    CHECK_EQ(wren_coap_tcp_frame_len(huge, sizeof(huge), &total), 0);
    CHECK_EQ(total, 6u + 8u + 65805u + 0xffffffffull);
    CHECK_EQ(wren_coap_tcp_parse(huge, sizeof(huge), &m), -COAP_TCP_ERR_LEN);
    /* token length 15 */
    static const uint8_t tkl[] = { 0x0f, 0x01 };
    CHECK_EQ(wren_coap_tcp_parse(tkl, sizeof(tkl), &m), -COAP_ERR_TKL);
    /* empty message with a token; a marker with no payload; option nibble 15 */
    static const uint8_t empty[] = { 0x01, 0x00, 0x55 };
    CHECK_EQ(wren_coap_tcp_parse(empty, sizeof(empty), &m), -COAP_ERR_EMPTY);
    static const uint8_t marker[] = { 0x10, 0x45, 0xff };
    CHECK_EQ(wren_coap_tcp_parse(marker, sizeof(marker), &m), -COAP_ERR_NO_PAYLOAD);
    static const uint8_t opt15[] = { 0x10, 0x01, 0xf0 };
    CHECK_EQ(wren_coap_tcp_parse(opt15, sizeof(opt15), &m), -COAP_ERR_OPT_RESERVED);
    static const uint8_t optcut[] = { 0x20, 0x01, 0xd1, 0x00 };
    CHECK_EQ(wren_coap_tcp_parse(optcut, sizeof(optcut), &m), -COAP_ERR_OPT_TRUNC);
    /* no room before a UDP message for the longer header */
    uint8_t u[8] = { 0x40, 0x45, 0, 0 };
    CHECK_EQ(wren_coap_tcp_from_udp(u, 0, 4), 2); /* 2-byte header fits */
}

TEST(test_coap_tcp__signal_options)
{
    struct coap_msg m;
    struct coap_tcp_signal s;
    /* CSM: Max-Message-Size 1152 (0x0480), Block-Wise-Transfer, elective 6 */
    static const uint8_t csm[] = { 0x50, 0xe1, 0x22, 0x04, 0x80, 0x20, 0x20 };
    CHECK_EQ(wren_coap_tcp_parse(csm, sizeof(csm), &m), 0);
    CHECK_EQ(wren_coap_tcp_signal_parse(&m, &s), 0);
    CHECK(s.has_mms && s.max_message_size == 1152 && s.block_wise);
    /* CSM with critical option 3: abort, naming it */
    static const uint8_t crit[] = { 0x10, 0xe1, 0x30 };
    CHECK_EQ(wren_coap_tcp_parse(crit, sizeof(crit), &m), 0);
    CHECK_EQ(wren_coap_tcp_signal_parse(&m, &s), -COAP_TCP_ERR_SIG_CRITICAL);
    CHECK_EQ(s.bad_option, 3);
    /* Block-Wise-Transfer with a value: a bad length, elective: ignored */
    static const uint8_t bwt[] = { 0x20, 0xe1, 0x41, 0x01 };
    CHECK_EQ(wren_coap_tcp_parse(bwt, sizeof(bwt), &m), 0);
    CHECK_EQ(wren_coap_tcp_signal_parse(&m, &s), 0);
    CHECK_EQ(s.block_wise, 0);
    /* Ping with Custody; Release with Hold-Off 30 and an address */
    static const uint8_t ping[] = { 0x11, 0xe2, 0x07, 0x20 };
    CHECK_EQ(wren_coap_tcp_parse(ping, sizeof(ping), &m), 0);
    CHECK_EQ(wren_coap_tcp_signal_parse(&m, &s), 0);
    CHECK(s.custody);
    static const uint8_t rel[] = { 0x60, 0xe4, 0x23, 'a', ':', '1', 0x21, 30 };
    CHECK_EQ(wren_coap_tcp_parse(rel, sizeof(rel), &m), 0);
    CHECK_EQ(wren_coap_tcp_signal_parse(&m, &s), 0);
    CHECK(s.alt_addresses == 1 && s.has_hold_off && s.hold_off == 30);
    /* Abort with Bad-CSM-Option 2 */
    static const uint8_t ab[] = { 0x20, 0xe5, 0x21, 0x02 };
    CHECK_EQ(wren_coap_tcp_parse(ab, sizeof(ab), &m), 0);
    CHECK_EQ(wren_coap_tcp_signal_parse(&m, &s), 0);
    CHECK(s.has_bad_csm_option && s.bad_csm_option == 2);
    /* not a signal */
    static const uint8_t get[] = { 0x00, 0x01 };
    CHECK_EQ(wren_coap_tcp_parse(get, sizeof(get), &m), 0);
    CHECK_EQ(wren_coap_tcp_signal_parse(&m, &s), -COAP_ERR_INVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_coap_tcp__rfc_examples),
        FX_TEST(test_coap_tcp__extended_lengths),
        FX_TEST(test_coap_tcp__bad_frames),
        FX_TEST(test_coap_tcp__signal_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
