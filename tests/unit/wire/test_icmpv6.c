/**
 * @file test_icmpv6.c
 * @brief ICMPv6 and neighbor discovery wire format: parse, emit, options,
 *        checksum. Vectors are whole IPv6 packets generated with scapy 2.8
 *        (checksums by scapy); the ICMPv6 message starts at byte 40.
 *        scapy has no RFC 6775 classes: ARO/EARO, 6CO, ABRO and DAR/DAC were
 *        laid out by hand as raw bytes, and scapy computed their checksums.
 */
#include <stdlib.h>

#include "core/byteorder.h"
#include "test.h"
#include "wire/icmpv6.h"

/* ---- vectors ---- */

static const uint8_t echo_req_pkt[58] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x12, 0x3a, 0x40, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x02, 0x80, 0x00, 0x44, 0x22, 0x12, 0x34, 0x00, 0x07,
    0x77, 0x72, 0x65, 0x6e, 0x20, 0x70, 0x69, 0x6e, 0x67, 0x21
};

static const uint8_t echo_rep_pkt[58] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x12, 0x3a, 0x40, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x01, 0x81, 0x00, 0x43, 0x22, 0x12, 0x34, 0x00, 0x07,
    0x77, 0x72, 0x65, 0x6e, 0x20, 0x70, 0x69, 0x6e, 0x67, 0x21
};

static const uint8_t rs_pkt[56] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x10, 0x3a, 0xff, 0xfe, 0x80, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x02, 0x85, 0x00, 0x7a, 0x2c, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01
};

static const uint8_t ra_pkt[104] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x40, 0x3a, 0xff, 0xfe, 0x80, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x01, 0x86, 0x00, 0xb3, 0x13, 0x40, 0x88, 0x07, 0x08,
    0x00, 0x00, 0x75, 0x30, 0x00, 0x00, 0x03, 0xe8, 0x01, 0x01, 0x02, 0x00,
    0x00, 0x00, 0x00, 0x01, 0x05, 0x01, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00,
    0x03, 0x04, 0x40, 0xc0, 0x00, 0x01, 0x51, 0x80, 0x00, 0x00, 0x38, 0x40,
    0x00, 0x00, 0x00, 0x00, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00
};

static const uint8_t ns_aro_pkt[96] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x38, 0x3a, 0xff, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x02, 0x12, 0x4b, 0x00, 0x01, 0x02, 0x03, 0x04,
    0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x01, 0x87, 0x00, 0xb8, 0x29, 0x00, 0x00, 0x00, 0x00,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x02, 0x12, 0x4b, 0x00,
    0x01, 0x02, 0x03, 0x04, 0x01, 0x02, 0x02, 0x12, 0x4b, 0x00, 0x01, 0x02,
    0x03, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x21, 0x02, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x0a, 0x02, 0x12, 0x4b, 0x00, 0x01, 0x02, 0x03, 0x04
};

static const uint8_t na_pkt[72] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x20, 0x3a, 0xff, 0xfe, 0x80, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x02, 0x12, 0x4b, 0x00,
    0x01, 0x02, 0x03, 0x04, 0x88, 0x00, 0x97, 0x7c, 0xe0, 0x00, 0x00, 0x00,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x02, 0x12, 0x4b, 0x00,
    0x01, 0x02, 0x03, 0x04, 0x02, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x02
};

static const uint8_t redirect_pkt[80] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x28, 0x3a, 0xff, 0xfe, 0x80, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x02, 0x89, 0x00, 0x4d, 0x52, 0x00, 0x00, 0x00, 0x00,
    0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x03, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09
};

static const uint8_t unreach_pkt[101] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x3d, 0x3a, 0x40, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x02, 0x01, 0x04, 0x31, 0xe0, 0x00, 0x00, 0x00, 0x00,
    0x60, 0x00, 0x00, 0x00, 0x00, 0x0d, 0x11, 0x40, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x01, 0x16, 0x33, 0x27, 0x0f, 0x00, 0x0d, 0x23, 0x4b,
    0x68, 0x65, 0x6c, 0x6c, 0x6f
};

static const uint8_t ptb_pkt[101] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x3d, 0x3a, 0x40, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x2b, 0xe4, 0x00, 0x00, 0x05, 0x00,
    0x60, 0x00, 0x00, 0x00, 0x00, 0x0d, 0x11, 0x40, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x01, 0x16, 0x33, 0x27, 0x0f, 0x00, 0x0d, 0x23, 0x4b,
    0x68, 0x65, 0x6c, 0x6c, 0x6f
};

static const uint8_t pp_pkt[101] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x3d, 0x3a, 0x40, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x02, 0x04, 0x01, 0x2e, 0xdd, 0x00, 0x00, 0x00, 0x06,
    0x60, 0x00, 0x00, 0x00, 0x00, 0x0d, 0x11, 0x40, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x01, 0x16, 0x33, 0x27, 0x0f, 0x00, 0x0d, 0x23, 0x4b,
    0x68, 0x65, 0x6c, 0x6c, 0x6f
};

static const uint8_t time_exc_pkt[64] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x18, 0x3a, 0x40, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x01, 0x03, 0x00, 0x68, 0xf8, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
    0x0c, 0x0d, 0x0e, 0x0f
};

static const uint8_t ra_6lo_pkt[160] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x78, 0x3a, 0xff, 0xfe, 0x80, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x12, 0x4b, 0x00,
    0x01, 0x02, 0x03, 0x04, 0x86, 0x00, 0xa8, 0x5b, 0x40, 0x08, 0xff, 0xff,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x12, 0x34,
    0x00, 0x00, 0x00, 0x00, 0x03, 0x04, 0x40, 0x40, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x22, 0x02, 0x40, 0x11, 0x00, 0x00, 0x0e, 0x10, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x01, 0x00, 0x00, 0x22, 0x03, 0x80, 0x02, 0x00, 0x00, 0x00, 0x3c,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x01, 0x23, 0x03, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x01
};

static const uint8_t dar_pkt[72] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x20, 0x3a, 0x40, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x01, 0x9d, 0x00, 0x36, 0x3f, 0x00, 0x00, 0x00, 0x0a,
    0x02, 0x12, 0x4b, 0x00, 0x01, 0x02, 0x03, 0x04, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x02, 0x12, 0x4b, 0x00, 0x01, 0x02, 0x03, 0x04
};

static const uint8_t edac_pkt[80] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x28, 0x3a, 0x40, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0xff, 0x9e, 0x02, 0x48, 0x03, 0x01, 0x05, 0x00, 0x0a,
    0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab,
    0xac, 0xad, 0xae, 0xaf, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00,
    0x02, 0x12, 0x4b, 0x00, 0x01, 0x02, 0x03, 0x04
};

static const uint8_t na_earo_pkt[88] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x30, 0x3a, 0xff, 0xfe, 0x80, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x12, 0x4b, 0x00,
    0x01, 0x02, 0x03, 0x04, 0x88, 0x00, 0xe8, 0x1c, 0x60, 0x00, 0x00, 0x00,
    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x02, 0x12, 0x4b, 0x00,
    0x01, 0x02, 0x03, 0x04, 0x21, 0x03, 0x01, 0x00, 0x03, 0x07, 0x00, 0x3c,
    0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab,
    0xac, 0xad, 0xae, 0xaf
};

/* All vectors, for the tests that run over each. */
static const struct vec {
    const char *name;
    const uint8_t *pkt;
    size_t len;
} vecs[] = {
#define V(x) { #x, x, sizeof(x) }
    V(echo_req_pkt), V(echo_rep_pkt), V(rs_pkt),       V(ra_pkt),      V(ns_aro_pkt),
    V(na_pkt),       V(redirect_pkt), V(unreach_pkt),  V(ptb_pkt),     V(pp_pkt),
    V(time_exc_pkt), V(ra_6lo_pkt),   V(dar_pkt),      V(edac_pkt),    V(na_earo_pkt),
#undef V
};
#define NVECS (sizeof(vecs) / sizeof(vecs[0]))

#define SRC(pkt) ((pkt) + 8)
#define DST(pkt) ((pkt) + 24)
#define MSG(pkt) ((pkt) + 40)
#define MSG_LEN(pkt) (sizeof(pkt) - 40)

static const uint8_t eui64[8] = { 0x02, 0x12, 0x4b, 0x00, 0x01, 0x02, 0x03, 0x04 };
static const uint8_t rovr16[16] = { 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
                                    0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf };
/* 2001:db8::212:4b00:102:304 */
static const uint8_t node_addr[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
                                       0x02, 0x12, 0x4b, 0x00, 0x01, 0x02, 0x03, 0x04 };
/* 2001:db8:1:: and 2001:db8:1::1 */
static const uint8_t prefix1[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1 };
static const uint8_t prefix1_1[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0,
                                       0, 0, 0, 0, 0, 0, 0, 1 };
/* 2001:db8::1 */
static const uint8_t br_addr[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
                                     0, 0, 0, 0, 0, 0, 0, 1 };

/* Collect up to 8 options of a message; returns the count or the error. */
static int opts_of(const struct icmpv6_msg *m, struct icmpv6_opt *o, int max)
{
    struct icmpv6_opt_iter it;
    int n = 0, rc;
    wren_icmpv6_opt_iter_init(&it, m->data, m->data_len);
    while (n < max && (rc = wren_icmpv6_opt_next(&it, &o[n])) > 0) {
        n++;
    }
    return rc < 0 ? rc : n;
}

/* ---- checksum ---- */

TEST(test_icmpv6_csum_check__every_capture)
{
    for (size_t i = 0; i < NVECS; i++) {
        const uint8_t *p = vecs[i].pkt;
        if (wren_icmpv6_csum_check(SRC(p), DST(p), MSG(p), vecs[i].len - 40) != 0) {
            printf("  vector %s\n", vecs[i].name);
            CHECK(0);
        }
    }
}

TEST(test_icmpv6_csum__echo_request_capture)
{
    CHECK_EQ(wren_icmpv6_csum(SRC(echo_req_pkt), DST(echo_req_pkt), MSG(echo_req_pkt),
                         MSG_LEN(echo_req_pkt)),
             0x4422);
}

TEST(test_icmpv6_csum__ignores_checksum_field)
{
    uint8_t m[MSG_LEN(echo_req_pkt)];
    memcpy(m, MSG(echo_req_pkt), sizeof(m));
    put_be16(m + 2, 0xabcd);
    CHECK_EQ(wren_icmpv6_csum(SRC(echo_req_pkt), DST(echo_req_pkt), m, sizeof(m)), 0x4422);
}

TEST(test_icmpv6_csum__odd_length)
{
    /* unreach_pkt's message is 61 bytes */
    CHECK_EQ(MSG_LEN(unreach_pkt) % 2, 1);
    CHECK_EQ(wren_icmpv6_csum(SRC(unreach_pkt), DST(unreach_pkt), MSG(unreach_pkt),
                         MSG_LEN(unreach_pkt)),
             0x31e0);
}

TEST(test_icmpv6_csum_check__any_flipped_bit)
{
    uint8_t m[MSG_LEN(ra_pkt)];
    for (size_t i = 0; i < sizeof(m) * 8; i++) {
        memcpy(m, MSG(ra_pkt), sizeof(m));
        m[i / 8] ^= (uint8_t)(1u << (i % 8));
        CHECK_EQ(wren_icmpv6_csum_check(SRC(ra_pkt), DST(ra_pkt), m, sizeof(m)), -ICMPV6_ERR_CSUM);
    }
}

TEST(test_icmpv6_csum_check__wrong_pseudo_header)
{
    /* swapped addresses sum the same; a different one does not */
    CHECK_EQ(wren_icmpv6_csum_check(DST(echo_req_pkt), SRC(echo_req_pkt), MSG(echo_req_pkt),
                               MSG_LEN(echo_req_pkt)),
             0);
    uint8_t src[16];
    memcpy(src, SRC(echo_req_pkt), 16);
    src[15] ^= 0x10;
    CHECK_EQ(wren_icmpv6_csum_check(src, DST(echo_req_pkt), MSG(echo_req_pkt),
                               MSG_LEN(echo_req_pkt)),
             -ICMPV6_ERR_CSUM);
    /* the length is in the pseudo-header: one byte less fails */
    CHECK_EQ(wren_icmpv6_csum_check(SRC(echo_req_pkt), DST(echo_req_pkt), MSG(echo_req_pkt),
                               MSG_LEN(echo_req_pkt) - 2),
             -ICMPV6_ERR_CSUM);
}

TEST(test_icmpv6_csum_check__shorter_than_header)
{
    for (size_t n = 0; n < 4; n++) {
        CHECK_EQ(wren_icmpv6_csum_check(SRC(echo_req_pkt), DST(echo_req_pkt), MSG(echo_req_pkt), n),
                 -ICMPV6_ERR_TRUNCATED);
    }
}

TEST(test_icmpv6_csum__tiny_lengths_read_nothing_beyond)
{
    /* with len < 4, only the bytes given are summed (ASan catches overreads) */
    uint8_t *m = malloc(1);
    m[0] = 0x80;
    uint16_t c = wren_icmpv6_csum(SRC(echo_req_pkt), DST(echo_req_pkt), m, 1);
    CHECK(c != 0);
    CHECK_EQ(wren_icmpv6_csum(SRC(echo_req_pkt), DST(echo_req_pkt), m, 0) != c, 1);
    free(m);
}

/* ---- parse ---- */

TEST(test_icmpv6_parse__echo_request_capture)
{
    struct icmpv6_msg m;
    CHECK_EQ(wren_icmpv6_parse(MSG(echo_req_pkt), MSG_LEN(echo_req_pkt), &m), 0);
    CHECK_EQ(m.type, ICMPV6_ECHO_REQUEST);
    CHECK_EQ(m.code, 0);
    CHECK_EQ(m.csum, 0x4422);
    CHECK_EQ(m.echo.id, 0x1234);
    CHECK_EQ(m.echo.seq, 7);
    CHECK_EQ(m.data_len, 10);
    CHECK_MEM(m.data, "wren ping!", 10);
    CHECK(m.data == MSG(echo_req_pkt) + 8);
}

TEST(test_icmpv6_parse__echo_reply_capture)
{
    struct icmpv6_msg m;
    CHECK_EQ(wren_icmpv6_parse(MSG(echo_rep_pkt), MSG_LEN(echo_rep_pkt), &m), 0);
    CHECK_EQ(m.type, ICMPV6_ECHO_REPLY);
    CHECK_EQ(m.echo.id, 0x1234);
    CHECK_EQ(m.echo.seq, 7);
    CHECK_EQ(m.data_len, 10);
}

TEST(test_icmpv6_parse__router_solicitation_with_sllao)
{
    struct icmpv6_msg m;
    struct icmpv6_opt o[8];
    struct icmpv6_lladdr ll;
    static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
    CHECK_EQ(wren_icmpv6_parse(MSG(rs_pkt), MSG_LEN(rs_pkt), &m), 0);
    CHECK_EQ(m.type, ICMPV6_ND_RS);
    CHECK_EQ(m.data_len, 8);
    CHECK_EQ(opts_of(&m, o, 8), 1);
    CHECK_EQ(o[0].type, ICMPV6_OPT_SLLAO);
    CHECK_EQ(o[0].len, 1);
    CHECK_EQ(wren_icmpv6_opt_lladdr_parse(&o[0], 6, &ll), 0);
    CHECK_EQ(ll.len, 6);
    CHECK_MEM(ll.addr, mac, 6);
}

TEST(test_icmpv6_parse__router_advertisement)
{
    struct icmpv6_msg m;
    struct icmpv6_opt o[8];
    struct icmpv6_pio pio;
    uint32_t mtu;
    CHECK_EQ(wren_icmpv6_parse(MSG(ra_pkt), MSG_LEN(ra_pkt), &m), 0);
    CHECK_EQ(m.type, ICMPV6_ND_RA);
    CHECK_EQ(m.ra.cur_hop_limit, 64);
    CHECK_EQ(m.ra.flags, ICMPV6_RA_M | 0x08); /* scapy's default Prf: high */
    CHECK_EQ(m.ra.router_lifetime, 1800);
    CHECK_EQ(m.ra.reachable_time, 30000);
    CHECK_EQ(m.ra.retrans_timer, 1000);
    CHECK(m.data == MSG(ra_pkt) + 16);
    CHECK_EQ(opts_of(&m, o, 8), 3);
    CHECK_EQ(o[0].type, ICMPV6_OPT_SLLAO);
    CHECK_EQ(o[1].type, ICMPV6_OPT_MTU);
    CHECK_EQ(wren_icmpv6_opt_mtu_parse(&o[1], &mtu), 0);
    CHECK_EQ(mtu, 1280);
    CHECK_EQ(o[2].type, ICMPV6_OPT_PIO);
    CHECK_EQ(wren_icmpv6_opt_pio_parse(&o[2], &pio), 0);
    CHECK_EQ(pio.prefix_len, 64);
    CHECK_EQ(pio.flags, ICMPV6_PIO_L | ICMPV6_PIO_A);
    CHECK_EQ(pio.valid, 86400);
    CHECK_EQ(pio.preferred, 14400);
    CHECK_MEM(pio.prefix, prefix1, 16);
}

TEST(test_icmpv6_parse__router_advertisement_6lowpan_options)
{
    struct icmpv6_msg m;
    struct icmpv6_opt o[8];
    struct icmpv6_lladdr ll;
    struct icmpv6_pio pio;
    struct icmpv6_6co c;
    struct icmpv6_abro a;
    CHECK_EQ(wren_icmpv6_parse(MSG(ra_6lo_pkt), MSG_LEN(ra_6lo_pkt), &m), 0);
    CHECK_EQ(m.ra.flags, 0x08); /* Prf bits kept as they are */
    CHECK_EQ(m.ra.router_lifetime, 0xffff);
    CHECK_EQ(opts_of(&m, o, 8), 5);
    /* RFC 4944 8: a 16-bit short address padded to 8 octets */
    CHECK_EQ(o[0].type, ICMPV6_OPT_SLLAO);
    CHECK_EQ(wren_icmpv6_opt_lladdr_parse(&o[0], 2, &ll), 0);
    CHECK_EQ(ll.len, 2);
    CHECK_EQ(get_be16(ll.addr), 0x1234);
    CHECK_EQ(wren_icmpv6_opt_pio_parse(&o[1], &pio), 0);
    CHECK_EQ(pio.flags, ICMPV6_PIO_A);
    CHECK_EQ(pio.valid, 0xffffffffu);
    CHECK_EQ(o[2].type, ICMPV6_OPT_6CO);
    CHECK_EQ(wren_icmpv6_opt_6co_parse(&o[2], &c), 0);
    CHECK_EQ(c.ctx_len, 64);
    CHECK_EQ(c.flags, ICMPV6_6CO_C | 1);
    CHECK_EQ(c.lifetime, 3600);
    CHECK_MEM(c.prefix, prefix1, 8);
    CHECK_EQ(wren_icmpv6_opt_6co_parse(&o[3], &c), 0);
    CHECK_EQ(c.ctx_len, 128);
    CHECK_EQ(c.flags & ICMPV6_6CO_CID_MASK, 2);
    CHECK_EQ(c.flags & ICMPV6_6CO_C, 0);
    CHECK_EQ(c.lifetime, 60);
    CHECK_MEM(c.prefix, prefix1_1, 16);
    CHECK_EQ(o[4].type, ICMPV6_OPT_ABRO);
    CHECK_EQ(wren_icmpv6_opt_abro_parse(&o[4], &a), 0);
    CHECK_EQ(a.version, 0x00010002);
    CHECK_EQ(a.lifetime, 0);
    CHECK_MEM(a.addr, br_addr, 16);
}

TEST(test_icmpv6_parse__neighbor_solicitation_with_aro)
{
    struct icmpv6_msg m;
    struct icmpv6_opt o[8];
    struct icmpv6_lladdr ll;
    struct icmpv6_aro aro;
    CHECK_EQ(wren_icmpv6_parse(MSG(ns_aro_pkt), MSG_LEN(ns_aro_pkt), &m), 0);
    CHECK_EQ(m.type, ICMPV6_ND_NS);
    CHECK_EQ(m.nd.flags, 0);
    CHECK_MEM(m.nd.target, node_addr, 16);
    CHECK(m.nd.dst == NULL);
    CHECK_EQ(opts_of(&m, o, 8), 2);
    /* RFC 4944 8: an EUI-64 in a two-unit option */
    CHECK_EQ(wren_icmpv6_opt_lladdr_parse(&o[0], 2, &ll), 0);
    CHECK_EQ(ll.len, 8);
    CHECK_MEM(ll.addr, eui64, 8);
    CHECK_EQ(o[1].type, ICMPV6_OPT_ARO);
    CHECK_EQ(wren_icmpv6_opt_aro_parse(&o[1], &aro), 0);
    CHECK_EQ(aro.status, ICMPV6_ARO_SUCCESS);
    CHECK_EQ(aro.flags, 0);
    CHECK_EQ(aro.lifetime, 10);
    CHECK_EQ(aro.rovr_len, 8);
    CHECK_MEM(aro.rovr, eui64, 8);
}

TEST(test_icmpv6_parse__neighbor_advertisement_flags)
{
    struct icmpv6_msg m;
    struct icmpv6_opt o[8];
    struct icmpv6_lladdr ll;
    CHECK_EQ(wren_icmpv6_parse(MSG(na_pkt), MSG_LEN(na_pkt), &m), 0);
    CHECK_EQ(m.type, ICMPV6_ND_NA);
    CHECK_EQ(m.nd.flags, ICMPV6_NA_R | ICMPV6_NA_S | ICMPV6_NA_O);
    CHECK_MEM(m.nd.target, node_addr, 16);
    CHECK_EQ(opts_of(&m, o, 8), 1);
    CHECK_EQ(o[0].type, ICMPV6_OPT_TLLAO);
    CHECK_EQ(wren_icmpv6_opt_lladdr_parse(&o[0], 6, &ll), 0);
    CHECK_EQ(ll.addr[5], 2);
}

TEST(test_icmpv6_parse__neighbor_advertisement_earo)
{
    struct icmpv6_msg m;
    struct icmpv6_opt o[8];
    struct icmpv6_aro aro;
    CHECK_EQ(wren_icmpv6_parse(MSG(na_earo_pkt), MSG_LEN(na_earo_pkt), &m), 0);
    CHECK_EQ(m.nd.flags, ICMPV6_NA_S | ICMPV6_NA_O);
    CHECK_EQ(opts_of(&m, o, 8), 1);
    CHECK_EQ(wren_icmpv6_opt_aro_parse(&o[0], &aro), 0);
    CHECK_EQ(aro.status, ICMPV6_ARO_DUPLICATE);
    CHECK_EQ(aro.flags, ICMPV6_ARO_T | ICMPV6_ARO_R);
    CHECK_EQ(aro.tid, 7);
    CHECK_EQ(aro.lifetime, 60);
    CHECK_EQ(aro.rovr_len, 16);
    CHECK_MEM(aro.rovr, rovr16, 16);
}

TEST(test_icmpv6_parse__redirect)
{
    struct icmpv6_msg m;
    CHECK_EQ(wren_icmpv6_parse(MSG(redirect_pkt), MSG_LEN(redirect_pkt), &m), 0);
    CHECK_EQ(m.type, ICMPV6_ND_REDIRECT);
    CHECK_EQ(m.nd.target[0], 0xfe);
    CHECK_EQ(m.nd.target[15], 3);
    CHECK_EQ(m.nd.dst[0], 0x20);
    CHECK_EQ(m.nd.dst[15], 9);
    CHECK_EQ(m.data_len, 0);
}

TEST(test_icmpv6_parse__dest_unreachable_quotes_invoking_packet)
{
    struct icmpv6_msg m;
    CHECK_EQ(wren_icmpv6_parse(MSG(unreach_pkt), MSG_LEN(unreach_pkt), &m), 0);
    CHECK_EQ(m.type, ICMPV6_DEST_UNREACH);
    CHECK_EQ(m.code, ICMPV6_UNREACH_PORT);
    CHECK_EQ(m.param, 0);
    CHECK_EQ(m.data_len, 53);
    CHECK_EQ(m.data[0] >> 4, 6); /* the invoking IPv6 header */
}

TEST(test_icmpv6_parse__packet_too_big_mtu)
{
    struct icmpv6_msg m;
    CHECK_EQ(wren_icmpv6_parse(MSG(ptb_pkt), MSG_LEN(ptb_pkt), &m), 0);
    CHECK_EQ(m.type, ICMPV6_PKT_TOO_BIG);
    CHECK_EQ(m.param, 1280);
    CHECK_EQ(m.data_len, 53);
}

TEST(test_icmpv6_parse__parameter_problem_pointer)
{
    struct icmpv6_msg m;
    CHECK_EQ(wren_icmpv6_parse(MSG(pp_pkt), MSG_LEN(pp_pkt), &m), 0);
    CHECK_EQ(m.type, ICMPV6_PARAM_PROBLEM);
    CHECK_EQ(m.code, ICMPV6_PARAM_NEXT_HDR);
    CHECK_EQ(m.param, 6);
}

TEST(test_icmpv6_parse__time_exceeded)
{
    struct icmpv6_msg m;
    CHECK_EQ(wren_icmpv6_parse(MSG(time_exc_pkt), MSG_LEN(time_exc_pkt), &m), 0);
    CHECK_EQ(m.type, ICMPV6_TIME_EXCEEDED);
    CHECK_EQ(m.code, ICMPV6_TIME_HOP_LIMIT);
    CHECK_EQ(m.data_len, 16);
}

TEST(test_icmpv6_parse__error_with_nothing_quoted)
{
    struct icmpv6_msg m;
    CHECK_EQ(wren_icmpv6_parse(MSG(unreach_pkt), 8, &m), 0);
    CHECK_EQ(m.data_len, 0);
}

TEST(test_icmpv6_parse__dar_rfc6775)
{
    struct icmpv6_msg m;
    CHECK_EQ(wren_icmpv6_parse(MSG(dar_pkt), MSG_LEN(dar_pkt), &m), 0);
    CHECK_EQ(m.type, ICMPV6_DAR);
    CHECK_EQ(m.dar.status, 0);
    CHECK_EQ(m.dar.lifetime, 10);
    CHECK_EQ(m.dar.rovr_len, 8);
    CHECK_MEM(m.dar.rovr, eui64, 8);
    CHECK_MEM(m.dar.addr, node_addr, 16);
    CHECK_EQ(m.data_len, 0);
}

TEST(test_icmpv6_parse__edac_128bit_rovr)
{
    struct icmpv6_msg m;
    CHECK_EQ(wren_icmpv6_parse(MSG(edac_pkt), MSG_LEN(edac_pkt), &m), 0);
    CHECK_EQ(m.type, ICMPV6_DAC);
    CHECK_EQ(m.dar.status, ICMPV6_ARO_DUPLICATE);
    CHECK_EQ(m.dar.tid, 5);
    CHECK_EQ(m.dar.rovr_len, 16);
    CHECK_MEM(m.dar.rovr, rovr16, 16);
    CHECK_MEM(m.dar.addr, node_addr, 16);
}

TEST(test_icmpv6_parse__dar_code_suffix_sizes)
{
    uint8_t b[64] = { ICMPV6_DAR };
    struct icmpv6_msg m;
    static const uint8_t want[5] = { 8, 8, 16, 24, 32 };
    for (unsigned sfx = 0; sfx <= 4; sfx++) {
        b[1] = (uint8_t)(0x30 | sfx); /* the code prefix is ignored */
        size_t need = 24 + (size_t)want[sfx];
        CHECK_EQ(wren_icmpv6_parse(b, need, &m), 0);
        CHECK_EQ(m.dar.rovr_len, want[sfx]);
        CHECK(m.dar.addr == b + 8 + want[sfx]);
        CHECK_EQ(wren_icmpv6_parse(b, need - 1, &m), -ICMPV6_ERR_TRUNCATED);
    }
}

TEST(test_icmpv6_parse__dar_unknown_code_suffix)
{
    uint8_t b[64] = { ICMPV6_DAC };
    struct icmpv6_msg m;
    for (unsigned sfx = 5; sfx <= 15; sfx++) {
        b[1] = (uint8_t)sfx;
        CHECK_EQ(wren_icmpv6_parse(b, sizeof(b), &m), -ICMPV6_ERR_CODE);
    }
}

TEST(test_icmpv6_parse__unknown_type_generic)
{
    static const uint8_t b[] = { 200, 7, 0x12, 0x34, 0xaa, 0xbb };
    struct icmpv6_msg m;
    CHECK_EQ(wren_icmpv6_parse(b, sizeof(b), &m), 0);
    CHECK_EQ(m.type, 200);
    CHECK_EQ(m.code, 7);
    CHECK_EQ(m.csum, 0x1234);
    CHECK(m.data == b + 4);
    CHECK_EQ(m.data_len, 2);
    CHECK_EQ(wren_icmpv6_parse(b, 4, &m), 0);
    CHECK_EQ(m.data_len, 0);
    /* unassigned error type 0, MLD (130-132), router renumbering (138) */
    static const uint8_t generic[] = { 0, 5, 127, 130, 131, 132, 138, 156, 159 };
    for (size_t i = 0; i < sizeof(generic); i++) {
        uint8_t g[6] = { generic[i], 0, 0, 0, 1, 2 };
        CHECK_EQ(wren_icmpv6_parse(g, sizeof(g), &m), 0);
        CHECK(m.data == g + 4);
        CHECK_EQ(m.data_len, 2);
    }
}

TEST(test_icmpv6_emit__unknown_type_generic)
{
    static const uint8_t body[3] = { 7, 8, 9 };
    static const uint8_t want[7] = { 130, 1, 0, 0, 7, 8, 9 };
    uint8_t out[8];
    struct icmpv6_msg m = { .type = 130, .code = 1, .data = body, .data_len = 3 };
    CHECK_EQ(wren_icmpv6_emit(&m, out, sizeof(out)), 7);
    CHECK_MEM(out, want, 7);
    CHECK_EQ(wren_icmpv6_emit(&m, out, 6), -ICMPV6_ERR_NOBUFS);
    /* an unassigned error type quotes what fits after its 4-byte header */
    m.type = 0;
    CHECK_EQ(wren_icmpv6_emit(&m, out, 6), 6);
}

TEST(test_icmpv6_parse__shorter_than_header)
{
    struct icmpv6_msg m;
    for (size_t n = 0; n < 4; n++) {
        CHECK_EQ(wren_icmpv6_parse(MSG(echo_req_pkt), n, &m), -ICMPV6_ERR_TRUNCATED);
    }
}

TEST(test_icmpv6_parse__each_truncation_below_type_minimum)
{
    /* minimum length per type; every length below it fails, it succeeds */
    static const struct {
        uint8_t type;
        size_t min;
    } mins[] = {
        { ICMPV6_DEST_UNREACH, 8 }, { ICMPV6_PKT_TOO_BIG, 8 }, { ICMPV6_TIME_EXCEEDED, 8 },
        { ICMPV6_PARAM_PROBLEM, 8 }, { ICMPV6_ECHO_REQUEST, 8 }, { ICMPV6_ECHO_REPLY, 8 },
        { ICMPV6_ND_RS, 8 }, { ICMPV6_ND_RA, 16 }, { ICMPV6_ND_NS, 24 }, { ICMPV6_ND_NA, 24 },
        { ICMPV6_ND_REDIRECT, 40 }, { ICMPV6_DAR, 32 }, { ICMPV6_DAC, 32 }, { 255, 4 },
    };
    for (size_t i = 0; i < sizeof(mins) / sizeof(mins[0]); i++) {
        uint8_t *b = malloc(mins[i].min); /* exact size: ASan sees any overread */
        struct icmpv6_msg m;
        memset(b, 0, mins[i].min);
        b[0] = mins[i].type;
        for (size_t n = 4; n < mins[i].min; n++) {
            CHECK_EQ(wren_icmpv6_parse(b, n, &m), -ICMPV6_ERR_TRUNCATED);
        }
        CHECK_EQ(wren_icmpv6_parse(b, mins[i].min, &m), 0);
        CHECK_EQ(m.data_len, 0);
        free(b);
    }
}

TEST(test_icmpv6_parse__every_capture_truncated)
{
    /* every prefix of every vector parses or fails cleanly (ASan watches) */
    for (size_t i = 0; i < NVECS; i++) {
        size_t n = vecs[i].len - 40;
        for (size_t k = 0; k <= n; k++) {
            uint8_t *b = malloc(k ? k : 1);
            struct icmpv6_msg m;
            memcpy(b, MSG(vecs[i].pkt), k);
            int rc = wren_icmpv6_parse(b, k, &m);
            CHECK(rc == 0 || rc == -ICMPV6_ERR_TRUNCATED);
            if (rc == 0) {
                CHECK(m.data + m.data_len == b + k);
            }
            free(b);
        }
    }
}

/* ---- options ---- */

TEST(test_icmpv6_opt_next__empty_list)
{
    struct icmpv6_opt_iter it;
    struct icmpv6_opt o;
    wren_icmpv6_opt_iter_init(&it, NULL, 0);
    CHECK_EQ(wren_icmpv6_opt_next(&it, &o), 0);
    CHECK_EQ(wren_icmpv6_opt_next(&it, &o), 0);
}

TEST(test_icmpv6_opt_next__length_zero)
{
    /* RFC 4861 4.6: a zero length invalidates the message; the iterator
     * keeps failing rather than looping or skipping */
    static const uint8_t b[] = { 1, 1, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0 };
    struct icmpv6_opt_iter it;
    struct icmpv6_opt o;
    wren_icmpv6_opt_iter_init(&it, b, sizeof(b));
    CHECK_EQ(wren_icmpv6_opt_next(&it, &o), 1);
    CHECK_EQ(wren_icmpv6_opt_next(&it, &o), -ICMPV6_ERR_OPT_LEN);
    CHECK_EQ(wren_icmpv6_opt_next(&it, &o), -ICMPV6_ERR_OPT_LEN);
}

TEST(test_icmpv6_opt_next__option_past_end)
{
    static const uint8_t b[] = { 3, 4, 64, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    struct icmpv6_opt_iter it;
    struct icmpv6_opt o;
    for (size_t n = 2; n <= sizeof(b); n++) {
        wren_icmpv6_opt_iter_init(&it, b, n);
        CHECK_EQ(wren_icmpv6_opt_next(&it, &o), -ICMPV6_ERR_OPT_TRUNCATED);
    }
}

TEST(test_icmpv6_opt_next__lone_trailing_byte)
{
    static const uint8_t b[] = { 5, 1, 0, 0, 0, 0, 5, 0, 1 };
    struct icmpv6_opt_iter it;
    struct icmpv6_opt o;
    wren_icmpv6_opt_iter_init(&it, b, sizeof(b));
    CHECK_EQ(wren_icmpv6_opt_next(&it, &o), 1);
    CHECK_EQ(wren_icmpv6_opt_next(&it, &o), -ICMPV6_ERR_OPT_TRUNCATED);
}

TEST(test_icmpv6_opt_next__max_length_option)
{
    static uint8_t b[255 * 8];
    struct icmpv6_opt_iter it;
    struct icmpv6_opt o;
    b[0] = 200;
    b[1] = 255;
    wren_icmpv6_opt_iter_init(&it, b, sizeof(b));
    CHECK_EQ(wren_icmpv6_opt_next(&it, &o), 1);
    CHECK_EQ(o.len, 255);
    CHECK_EQ(wren_icmpv6_opt_next(&it, &o), 0);
    wren_icmpv6_opt_iter_init(&it, b, sizeof(b) - 1);
    CHECK_EQ(wren_icmpv6_opt_next(&it, &o), -ICMPV6_ERR_OPT_TRUNCATED);
}

static struct icmpv6_opt opt_of(const uint8_t *b)
{
    struct icmpv6_opt o = { b[0], b[1], b };
    return o;
}

TEST(test_icmpv6_opt_lladdr_parse__lengths)
{
    uint8_t b[24] = { ICMPV6_OPT_SLLAO, 1, 0xab, 0xcd };
    struct icmpv6_lladdr ll;
    struct icmpv6_opt o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_lladdr_parse(&o, 2, &ll), 0);
    CHECK_EQ(ll.len, 2);
    CHECK(ll.addr == b + 2);
    b[1] = 2;
    o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_lladdr_parse(&o, 2, &ll), 0);
    CHECK_EQ(ll.len, 8);
    b[1] = 3;
    o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_lladdr_parse(&o, 2, &ll), -ICMPV6_ERR_OPT_SIZE);
}

TEST(test_icmpv6_opt_lladdr_parse__one_unit_with_nonzero_padding_is_refused)
{
    /* RFC 4944 8: a short address and four zero octets. lwIP 2.1.3 puts its
     * 6-byte MAC in a one-unit option on 802.15.4: no short address */
    uint8_t b[8] = { ICMPV6_OPT_SLLAO, 1, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
    struct icmpv6_lladdr ll = { NULL, 0 };
    struct icmpv6_opt o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_lladdr_parse(&o, 2, &ll), -ICMPV6_ERR_OPT_PADDING);
    CHECK(ll.addr == NULL && ll.len == 0); /* nothing written */
    b[0] = ICMPV6_OPT_TLLAO;
    o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_lladdr_parse(&o, 2, &ll), -ICMPV6_ERR_OPT_PADDING);
    /* any one padding octet set */
    for (unsigned i = 4; i < 8; i++) {
        memset(b + 2, 0, 6);
        b[i] = 0x80;
        o = opt_of(b);
        CHECK_EQ(wren_icmpv6_opt_lladdr_parse(&o, 2, &ll), -ICMPV6_ERR_OPT_PADDING);
    }
    /* the same bytes are a 6-byte address where a unit holds one (Ethernet) */
    CHECK_EQ(wren_icmpv6_opt_lladdr_parse(&o, 6, &ll), 0);
    CHECK_EQ(ll.len, 6);
    /* zero padding: the short address */
    memset(b + 2, 0, 6);
    b[2] = 0x12;
    b[3] = 0x34;
    o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_lladdr_parse(&o, 2, &ll), 0);
    CHECK_EQ(ll.len, 2);
    CHECK(ll.addr == b + 2);
    /* two units: an EUI-64, whatever follows it */
    uint8_t e[16] = { ICMPV6_OPT_SLLAO, 2, 1, 2, 3, 4, 5, 6, 7, 8, 0xff };
    o = opt_of(e);
    CHECK_EQ(wren_icmpv6_opt_lladdr_parse(&o, 2, &ll), 0);
    CHECK_EQ(ll.len, 8);
}

TEST(test_icmpv6_opt_lladdr_parse__bad_unit_len)
{
    uint8_t b[8] = { ICMPV6_OPT_SLLAO, 1 };
    struct icmpv6_lladdr ll;
    struct icmpv6_opt o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_lladdr_parse(&o, 0, &ll), -ICMPV6_ERR_INVAL);
    CHECK_EQ(wren_icmpv6_opt_lladdr_parse(&o, 7, &ll), -ICMPV6_ERR_INVAL);
}

TEST(test_icmpv6_opt_pio_parse__prefix_len_129)
{
    uint8_t b[32] = { ICMPV6_OPT_PIO, 4, 129 };
    struct icmpv6_pio pio;
    struct icmpv6_opt o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_pio_parse(&o, &pio), -ICMPV6_ERR_PREFIX_LEN);
    b[2] = 255;
    CHECK_EQ(wren_icmpv6_opt_pio_parse(&o, &pio), -ICMPV6_ERR_PREFIX_LEN);
    b[2] = 128;
    CHECK_EQ(wren_icmpv6_opt_pio_parse(&o, &pio), 0);
    CHECK_EQ(pio.prefix_len, 128);
}

TEST(test_icmpv6_opt_pio_parse__wrong_length)
{
    uint8_t b[40] = { ICMPV6_OPT_PIO, 3, 64 };
    struct icmpv6_pio pio;
    struct icmpv6_opt o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_pio_parse(&o, &pio), -ICMPV6_ERR_OPT_SIZE);
    b[1] = 5;
    o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_pio_parse(&o, &pio), -ICMPV6_ERR_OPT_SIZE);
}

TEST(test_icmpv6_opt_mtu_parse__wrong_length)
{
    uint8_t b[16] = { ICMPV6_OPT_MTU, 2 };
    uint32_t mtu = 7;
    struct icmpv6_opt o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_mtu_parse(&o, &mtu), -ICMPV6_ERR_OPT_SIZE);
    CHECK_EQ(mtu, 7);
}

TEST(test_icmpv6_opt_aro_parse__lengths)
{
    uint8_t b[48] = { ICMPV6_OPT_ARO, 1 };
    struct icmpv6_aro aro;
    struct icmpv6_opt o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_aro_parse(&o, &aro), -ICMPV6_ERR_OPT_SIZE);
    for (uint8_t l = 2; l <= 5; l++) {
        b[1] = l;
        o = opt_of(b);
        CHECK_EQ(wren_icmpv6_opt_aro_parse(&o, &aro), 0);
        CHECK_EQ(aro.rovr_len, (l - 1) * 8);
    }
    b[1] = 6;
    o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_aro_parse(&o, &aro), -ICMPV6_ERR_OPT_SIZE);
}

TEST(test_icmpv6_opt_6co_parse__context_len_129)
{
    uint8_t b[24] = { ICMPV6_OPT_6CO, 3, 129 };
    struct icmpv6_6co c;
    struct icmpv6_opt o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_6co_parse(&o, &c), -ICMPV6_ERR_PREFIX_LEN);
}

TEST(test_icmpv6_opt_6co_parse__context_longer_than_short_option)
{
    uint8_t b[24] = { ICMPV6_OPT_6CO, 2, 65 };
    struct icmpv6_6co c;
    struct icmpv6_opt o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_6co_parse(&o, &c), -ICMPV6_ERR_PREFIX_LEN);
    b[2] = 64;
    CHECK_EQ(wren_icmpv6_opt_6co_parse(&o, &c), 0);
    b[1] = 3;
    b[2] = 128;
    o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_6co_parse(&o, &c), 0);
}

TEST(test_icmpv6_opt_6co_parse__wrong_length)
{
    uint8_t b[32] = { ICMPV6_OPT_6CO, 1, 0 };
    struct icmpv6_6co c;
    struct icmpv6_opt o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_6co_parse(&o, &c), -ICMPV6_ERR_OPT_SIZE);
    b[1] = 4;
    o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_6co_parse(&o, &c), -ICMPV6_ERR_OPT_SIZE);
}

TEST(test_icmpv6_opt_abro_parse__wrong_length)
{
    uint8_t b[32] = { ICMPV6_OPT_ABRO, 2 };
    struct icmpv6_abro a;
    struct icmpv6_opt o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_abro_parse(&o, &a), -ICMPV6_ERR_OPT_SIZE);
    b[1] = 4;
    o = opt_of(b);
    CHECK_EQ(wren_icmpv6_opt_abro_parse(&o, &a), -ICMPV6_ERR_OPT_SIZE);
}

/* ---- emit ---- */

TEST(test_icmpv6_emit__every_capture_round_trips)
{
    /* parse, emit into exactly wren_icmpv6_len() bytes, checksum: the capture */
    for (size_t i = 0; i < NVECS; i++) {
        const uint8_t *p = vecs[i].pkt;
        size_t n = vecs[i].len - 40;
        struct icmpv6_msg m;
        uint8_t *out = malloc(n);
        CHECK_EQ(wren_icmpv6_parse(MSG(p), n, &m), 0);
        CHECK_EQ(wren_icmpv6_len(&m), n);
        CHECK_EQ(wren_icmpv6_emit(&m, out, n), n);
        CHECK_EQ(get_be16(out + 2), 0);
        put_be16(out + 2, wren_icmpv6_csum(SRC(p), DST(p), out, n));
        if (memcmp(out, MSG(p), n) != 0) {
            printf("  vector %s\n", vecs[i].name);
            CHECK(0);
        }
        free(out);
    }
}

TEST(test_icmpv6_emit__short_buffer_writes_nothing)
{
    for (size_t i = 0; i < NVECS; i++) {
        const uint8_t *p = vecs[i].pkt;
        size_t n = vecs[i].len - 40;
        struct icmpv6_msg m;
        uint8_t out[256];
        CHECK_EQ(wren_icmpv6_parse(MSG(p), n, &m), 0);
        size_t min = m.type < 128 ? 8 : n; /* errors truncate the quote */
        for (size_t k = 0; k < min; k++) {
            memset(out, 0xa5, sizeof(out));
            CHECK_EQ(wren_icmpv6_emit(&m, out, k), -ICMPV6_ERR_NOBUFS);
            for (size_t j = 0; j < sizeof(out); j++) {
                CHECK_EQ(out[j], 0xa5);
            }
        }
    }
}

TEST(test_icmpv6_echo_emit__reply_matches_capture)
{
    uint8_t out[MSG_LEN(echo_rep_pkt)];
    int n = wren_icmpv6_echo_emit(ICMPV6_ECHO_REPLY, 0x1234, 7, (const uint8_t *)"wren ping!", 10,
                             out, sizeof(out));
    CHECK_EQ(n, sizeof(out));
    put_be16(out + 2, wren_icmpv6_csum(SRC(echo_rep_pkt), DST(echo_rep_pkt), out, (size_t)n));
    CHECK_MEM(out, MSG(echo_rep_pkt), sizeof(out));
}

TEST(test_icmpv6_emit__echo_reply_in_place)
{
    /* turn the request into the reply inside the same buffer */
    uint8_t b[MSG_LEN(echo_req_pkt)];
    struct icmpv6_msg m;
    memcpy(b, MSG(echo_req_pkt), sizeof(b));
    CHECK_EQ(wren_icmpv6_parse(b, sizeof(b), &m), 0);
    m.type = ICMPV6_ECHO_REPLY;
    CHECK_EQ(wren_icmpv6_emit(&m, b, sizeof(b)), sizeof(b));
    put_be16(b + 2, wren_icmpv6_csum(SRC(echo_rep_pkt), DST(echo_rep_pkt), b, sizeof(b)));
    CHECK_MEM(b, MSG(echo_rep_pkt), sizeof(b));
}

TEST(test_icmpv6_emit__echo_data_too_long)
{
    uint8_t out[12];
    CHECK_EQ(wren_icmpv6_echo_emit(ICMPV6_ECHO_REQUEST, 1, 2, (const uint8_t *)"12345", 5, out,
                              sizeof(out)),
             -ICMPV6_ERR_NOBUFS);
}

TEST(test_icmpv6_error_emit__matches_captures)
{
    const uint8_t *inv = MSG(unreach_pkt) + 8; /* the quoted packet, 53 bytes */
    static const struct {
        const uint8_t *pkt;
        size_t len;
        uint8_t type, code;
        uint32_t param;
    } cases[] = {
        { unreach_pkt, sizeof(unreach_pkt), ICMPV6_DEST_UNREACH, ICMPV6_UNREACH_PORT, 0 },
        { ptb_pkt, sizeof(ptb_pkt), ICMPV6_PKT_TOO_BIG, 0, 1280 },
        { pp_pkt, sizeof(pp_pkt), ICMPV6_PARAM_PROBLEM, ICMPV6_PARAM_NEXT_HDR, 6 },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint8_t out[128];
        size_t n = cases[i].len - 40;
        CHECK_EQ(wren_icmpv6_error_emit(cases[i].type, cases[i].code, cases[i].param, inv, 53, out,
                                   ICMPV6_ERROR_MAX_LEN > sizeof(out) ? sizeof(out)
                                                                      : ICMPV6_ERROR_MAX_LEN),
                 n);
        put_be16(out + 2, wren_icmpv6_csum(SRC(cases[i].pkt), DST(cases[i].pkt), out, n));
        CHECK_MEM(out, MSG(cases[i].pkt), n);
    }
}

TEST(test_icmpv6_error_emit__quote_cut_to_budget)
{
    /* RFC 4443 2.4 (c): quote no more than fits the minimum MTU */
    static uint8_t inv[1500], out[1500];
    for (size_t i = 0; i < sizeof(inv); i++) {
        inv[i] = (uint8_t)i;
    }
    memset(out, 0xa5, sizeof(out));
    int n = wren_icmpv6_error_emit(ICMPV6_PKT_TOO_BIG, 0, 1280, inv, sizeof(inv), out,
                              ICMPV6_ERROR_MAX_LEN);
    CHECK_EQ(n, 1240);
    CHECK_MEM(out + 8, inv, 1232);
    CHECK_EQ(out[1240], 0xa5);
    /* with 8 bytes of extension headers in front, 8 bytes less */
    n = wren_icmpv6_error_emit(ICMPV6_PKT_TOO_BIG, 0, 1280, inv, sizeof(inv), out,
                          ICMPV6_ERROR_MAX_LEN - 8);
    CHECK_EQ(n, 1232);
    /* a budget of exactly the header quotes nothing */
    CHECK_EQ(wren_icmpv6_error_emit(ICMPV6_DEST_UNREACH, 0, 0, inv, sizeof(inv), out, 8), 8);
    CHECK_EQ(wren_icmpv6_error_emit(ICMPV6_DEST_UNREACH, 0, 0, inv, sizeof(inv), out, 7),
             -ICMPV6_ERR_NOBUFS);
    /* a short invoking packet is quoted whole */
    CHECK_EQ(wren_icmpv6_error_emit(ICMPV6_TIME_EXCEEDED, 0, 0, inv, 3, out, 1240), 11);
}

TEST(test_icmpv6_error_emit__quote_overlapping_buffer)
{
    /* the invoking packet already sits at the start of the output buffer */
    uint8_t b[64], want[48];
    for (size_t i = 0; i < sizeof(want); i++) {
        want[i] = (uint8_t)(i * 7);
    }
    memcpy(b, want, sizeof(want));
    CHECK_EQ(wren_icmpv6_error_emit(ICMPV6_PARAM_PROBLEM, 0, 40, b, sizeof(want), b, sizeof(b)), 56);
    CHECK_EQ(get_be32(b + 4), 40);
    CHECK_MEM(b + 8, want, sizeof(want));
}

TEST(test_icmpv6_emit__ns_with_options_matches_capture)
{
    uint8_t out[128];
    struct icmpv6_msg m = { .type = ICMPV6_ND_NS, .nd.target = node_addr };
    struct icmpv6_aro aro = { .lifetime = 10, .rovr = eui64, .rovr_len = 8 };
    int n = wren_icmpv6_emit(&m, out, sizeof(out));
    CHECK_EQ(n, 24);
    int k = wren_icmpv6_opt_lladdr_emit(ICMPV6_OPT_SLLAO, eui64, 8, out + n, sizeof(out) - (size_t)n);
    CHECK_EQ(k, 16);
    n += k;
    k = wren_icmpv6_opt_aro_emit(&aro, out + n, sizeof(out) - (size_t)n);
    CHECK_EQ(k, 16);
    n += k;
    CHECK_EQ(n, MSG_LEN(ns_aro_pkt));
    put_be16(out + 2, wren_icmpv6_csum(SRC(ns_aro_pkt), DST(ns_aro_pkt), out, (size_t)n));
    CHECK_MEM(out, MSG(ns_aro_pkt), (size_t)n);
}

TEST(test_icmpv6_emit__na_earo_matches_capture)
{
    uint8_t out[128];
    struct icmpv6_msg m = { .type = ICMPV6_ND_NA,
                            .nd = { .flags = ICMPV6_NA_S | ICMPV6_NA_O, .target = node_addr } };
    struct icmpv6_aro aro = { .status = ICMPV6_ARO_DUPLICATE,
                              .flags = ICMPV6_ARO_T | ICMPV6_ARO_R,
                              .tid = 7,
                              .lifetime = 60,
                              .rovr = rovr16,
                              .rovr_len = 16 };
    int n = wren_icmpv6_emit(&m, out, sizeof(out));
    n += wren_icmpv6_opt_aro_emit(&aro, out + n, sizeof(out) - (size_t)n);
    CHECK_EQ(n, MSG_LEN(na_earo_pkt));
    put_be16(out + 2, wren_icmpv6_csum(SRC(na_earo_pkt), DST(na_earo_pkt), out, (size_t)n));
    CHECK_MEM(out, MSG(na_earo_pkt), (size_t)n);
}

TEST(test_icmpv6_emit__ra_6lowpan_matches_capture)
{
    uint8_t out[256];
    static const uint8_t short_addr[2] = { 0x12, 0x34 };
    struct icmpv6_msg m = { .type = ICMPV6_ND_RA,
                            .ra = { .cur_hop_limit = 64, .flags = 0x08,
                                    .router_lifetime = 0xffff } };
    struct icmpv6_pio pio = { .prefix_len = 64, .flags = ICMPV6_PIO_A, .valid = 0xffffffff,
                              .preferred = 0xffffffff, .prefix = prefix1 };
    struct icmpv6_6co c64 = { .ctx_len = 64, .flags = ICMPV6_6CO_C | 1, .lifetime = 3600,
                              .prefix = prefix1 };
    struct icmpv6_6co c128 = { .ctx_len = 128, .flags = 2, .lifetime = 60,
                               .prefix = prefix1_1 };
    struct icmpv6_abro a = { .version = 0x00010002, .lifetime = 0, .addr = br_addr };
    int n = wren_icmpv6_emit(&m, out, sizeof(out));
    CHECK_EQ(n, 16);
    n += wren_icmpv6_opt_lladdr_emit(ICMPV6_OPT_SLLAO, short_addr, 2, out + n, sizeof(out) - (size_t)n);
    n += wren_icmpv6_opt_pio_emit(&pio, out + n, sizeof(out) - (size_t)n);
    n += wren_icmpv6_opt_6co_emit(&c64, out + n, sizeof(out) - (size_t)n);
    n += wren_icmpv6_opt_6co_emit(&c128, out + n, sizeof(out) - (size_t)n);
    n += wren_icmpv6_opt_abro_emit(&a, out + n, sizeof(out) - (size_t)n);
    CHECK_EQ(n, MSG_LEN(ra_6lo_pkt));
    put_be16(out + 2, wren_icmpv6_csum(SRC(ra_6lo_pkt), DST(ra_6lo_pkt), out, (size_t)n));
    CHECK_MEM(out, MSG(ra_6lo_pkt), (size_t)n);
}

TEST(test_icmpv6_emit__ra_with_mtu_matches_capture)
{
    uint8_t out[128];
    static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
    struct icmpv6_msg m = { .type = ICMPV6_ND_RA,
                            .ra = { 64, ICMPV6_RA_M | 0x08, 1800, 30000, 1000 } };
    struct icmpv6_pio pio = { 64, ICMPV6_PIO_L | ICMPV6_PIO_A, 86400, 14400, prefix1 };
    int n = wren_icmpv6_emit(&m, out, sizeof(out));
    n += wren_icmpv6_opt_lladdr_emit(ICMPV6_OPT_SLLAO, mac, 6, out + n, sizeof(out) - (size_t)n);
    n += wren_icmpv6_opt_mtu_emit(1280, out + n, sizeof(out) - (size_t)n);
    n += wren_icmpv6_opt_pio_emit(&pio, out + n, sizeof(out) - (size_t)n);
    CHECK_EQ(n, MSG_LEN(ra_pkt));
    put_be16(out + 2, wren_icmpv6_csum(SRC(ra_pkt), DST(ra_pkt), out, (size_t)n));
    CHECK_MEM(out, MSG(ra_pkt), (size_t)n);
}

TEST(test_icmpv6_emit__dar_rovr_len_mismatch)
{
    uint8_t out[64];
    struct icmpv6_msg m = { .type = ICMPV6_DAR, .code = 2,
                            .dar = { .rovr = rovr16, .rovr_len = 8, .addr = node_addr } };
    CHECK_EQ(wren_icmpv6_emit(&m, out, sizeof(out)), -ICMPV6_ERR_INVAL);
    m.dar.rovr_len = 16;
    CHECK_EQ(wren_icmpv6_emit(&m, out, sizeof(out)), 40);
    m.code = 5;
    CHECK_EQ(wren_icmpv6_emit(&m, out, sizeof(out)), -ICMPV6_ERR_CODE);
    CHECK_EQ(wren_icmpv6_len(&m), -ICMPV6_ERR_CODE);
}

TEST(test_icmpv6_emit__rs_reserved_zero)
{
    uint8_t out[8];
    struct icmpv6_msg m = { .type = ICMPV6_ND_RS, .param = 0xffffffff }; /* stale union */
    memset(out, 0xff, sizeof(out));
    CHECK_EQ(wren_icmpv6_emit(&m, out, sizeof(out)), 8);
    CHECK_EQ(get_be32(out + 4), 0);
}

TEST(test_icmpv6_len__matches_emit)
{
    uint8_t out[64];
    struct icmpv6_msg m = { .type = ICMPV6_ND_REDIRECT, .nd = { 0, node_addr, br_addr },
                            .data = eui64, .data_len = 8 };
    CHECK_EQ(wren_icmpv6_len(&m), 48);
    CHECK_EQ(wren_icmpv6_emit(&m, out, sizeof(out)), 48);
    m.type = 250;
    CHECK_EQ(wren_icmpv6_len(&m), 12);
}

TEST(test_icmpv6_opt_emit__round_trips)
{
    uint8_t b[64];
    struct icmpv6_opt_iter it;
    struct icmpv6_opt o;
    struct icmpv6_pio pio = { 48, 0xff, 1, 2, prefix1_1 }, pio2;
    struct icmpv6_aro aro = { 9, 8, 7, 6, 5, rovr16, 8 }, aro2;
    struct icmpv6_6co c = { 60, 0x1f, 300, prefix1_1 }, c2;
    struct icmpv6_abro a = { 0xdeadbeef, 12, br_addr }, a2;
    struct icmpv6_lladdr ll;
    uint32_t mtu;
    int n;

    n = wren_icmpv6_opt_pio_emit(&pio, b, sizeof(b));
    wren_icmpv6_opt_iter_init(&it, b, (size_t)n);
    CHECK_EQ(wren_icmpv6_opt_next(&it, &o), 1);
    CHECK_EQ(wren_icmpv6_opt_pio_parse(&o, &pio2), 0);
    CHECK(pio2.prefix_len == 48 && pio2.flags == 0xff && pio2.valid == 1 && pio2.preferred == 2);
    CHECK_MEM(pio2.prefix, prefix1_1, 16);
    CHECK_EQ(get_be32(b + 12), 0); /* reserved2 */

    for (uint8_t rl = 8; rl <= 32; rl += 8) {
        static uint8_t rovr[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
                                    18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32 };
        aro.rovr = rovr;
        aro.rovr_len = rl;
        n = wren_icmpv6_opt_aro_emit(&aro, b, sizeof(b));
        CHECK_EQ(n, 8 + rl);
        wren_icmpv6_opt_iter_init(&it, b, (size_t)n);
        CHECK_EQ(wren_icmpv6_opt_next(&it, &o), 1);
        CHECK_EQ(wren_icmpv6_opt_aro_parse(&o, &aro2), 0);
        CHECK(aro2.status == 9 && aro2.opaque == 8 && aro2.flags == 7 && aro2.tid == 6 &&
              aro2.lifetime == 5 && aro2.rovr_len == rl);
        CHECK_MEM(aro2.rovr, rovr, rl);
    }

    n = wren_icmpv6_opt_6co_emit(&c, b, sizeof(b));
    CHECK_EQ(n, 16);
    wren_icmpv6_opt_iter_init(&it, b, (size_t)n);
    CHECK_EQ(wren_icmpv6_opt_next(&it, &o), 1);
    CHECK_EQ(wren_icmpv6_opt_6co_parse(&o, &c2), 0);
    CHECK(c2.ctx_len == 60 && c2.flags == 0x1f && c2.lifetime == 300);
    CHECK_MEM(c2.prefix, prefix1_1, 8);

    n = wren_icmpv6_opt_abro_emit(&a, b, sizeof(b));
    wren_icmpv6_opt_iter_init(&it, b, (size_t)n);
    CHECK_EQ(wren_icmpv6_opt_next(&it, &o), 1);
    CHECK_EQ(wren_icmpv6_opt_abro_parse(&o, &a2), 0);
    CHECK(a2.version == 0xdeadbeef && a2.lifetime == 12);
    CHECK_MEM(a2.addr, br_addr, 16);

    n = wren_icmpv6_opt_mtu_emit(0x01020304, b, sizeof(b));
    CHECK_EQ(n, 8);
    wren_icmpv6_opt_iter_init(&it, b, (size_t)n);
    CHECK_EQ(wren_icmpv6_opt_next(&it, &o), 1);
    CHECK_EQ(wren_icmpv6_opt_mtu_parse(&o, &mtu), 0);
    CHECK_EQ(mtu, 0x01020304);

    for (size_t al = 1; al <= 14; al++) {
        n = wren_icmpv6_opt_lladdr_emit(ICMPV6_OPT_TLLAO, prefix1_1, al, b, sizeof(b));
        CHECK_EQ(n, al <= 6 ? 8 : 16);
        CHECK_EQ(b[0], ICMPV6_OPT_TLLAO);
        CHECK_MEM(b + 2, prefix1_1, al);
        for (size_t j = 2 + al; j < (size_t)n; j++) {
            CHECK_EQ(b[j], 0); /* padding */
        }
        if (al == 2 || al == 6 || al == 8) {
            wren_icmpv6_opt_iter_init(&it, b, (size_t)n);
            CHECK_EQ(wren_icmpv6_opt_next(&it, &o), 1);
            CHECK_EQ(wren_icmpv6_opt_lladdr_parse(&o, al == 8 ? 2 : (uint8_t)al, &ll), 0);
            CHECK_EQ(ll.len, al);
            CHECK_MEM(ll.addr, prefix1_1, al);
        }
    }
}

TEST(test_icmpv6_opt_6co_emit__partial_prefix_zero_padded)
{
    uint8_t b[24];
    static const uint8_t three[3] = { 0xaa, 0xbb, 0xcc };
    struct icmpv6_6co c = { .ctx_len = 20, .prefix = three };
    memset(b, 0xee, sizeof(b));
    CHECK_EQ(wren_icmpv6_opt_6co_emit(&c, b, sizeof(b)), 16);
    CHECK_MEM(b + 8, three, 3);
    for (size_t j = 11; j < 16; j++) {
        CHECK_EQ(b[j], 0);
    }
    CHECK_EQ(b[16], 0xee);
    /* no context bits at all: nothing is read from the prefix */
    c.ctx_len = 0;
    c.prefix = NULL;
    CHECK_EQ(wren_icmpv6_opt_6co_emit(&c, b, sizeof(b)), 16);
    c.ctx_len = 65;
    c.prefix = prefix1_1;
    CHECK_EQ(wren_icmpv6_opt_6co_emit(&c, b, sizeof(b)), 24);
    CHECK_EQ(b[1], 3);
}

TEST(test_icmpv6_opt_emit__invalid_values)
{
    uint8_t b[64];
    struct icmpv6_pio pio = { .prefix_len = 129, .prefix = prefix1 };
    struct icmpv6_aro aro = { .rovr = rovr16 };
    struct icmpv6_6co c = { .ctx_len = 129, .prefix = prefix1 };
    memset(b, 0xa5, sizeof(b));
    CHECK_EQ(wren_icmpv6_opt_pio_emit(&pio, b, sizeof(b)), -ICMPV6_ERR_PREFIX_LEN);
    CHECK_EQ(wren_icmpv6_opt_6co_emit(&c, b, sizeof(b)), -ICMPV6_ERR_PREFIX_LEN);
    static const uint8_t bad_rovr[] = { 0, 4, 7, 12, 40 };
    for (size_t i = 0; i < sizeof(bad_rovr); i++) {
        aro.rovr_len = bad_rovr[i];
        CHECK_EQ(wren_icmpv6_opt_aro_emit(&aro, b, sizeof(b)), -ICMPV6_ERR_INVAL);
    }
    CHECK_EQ(wren_icmpv6_opt_lladdr_emit(ICMPV6_OPT_SLLAO, eui64, 0, b, sizeof(b)), -ICMPV6_ERR_INVAL);
    CHECK_EQ(wren_icmpv6_opt_lladdr_emit(ICMPV6_OPT_SLLAO, rovr16, 15, b, sizeof(b)),
             -ICMPV6_ERR_INVAL);
    for (size_t j = 0; j < sizeof(b); j++) {
        CHECK_EQ(b[j], 0xa5);
    }
}

TEST(test_icmpv6_opt_emit__short_buffer_writes_nothing)
{
    uint8_t b[48];
    struct icmpv6_pio pio = { .prefix_len = 64, .prefix = prefix1 };
    struct icmpv6_aro aro = { .rovr = rovr16, .rovr_len = 16 };
    struct icmpv6_6co c = { .ctx_len = 128, .prefix = prefix1 };
    struct icmpv6_abro a = { .addr = br_addr };
    for (size_t k = 0; k < 32; k++) {
        memset(b, 0xa5, sizeof(b));
        if (k < 32) {
            CHECK_EQ(wren_icmpv6_opt_pio_emit(&pio, b, k), -ICMPV6_ERR_NOBUFS);
        }
        if (k < 24) {
            CHECK_EQ(wren_icmpv6_opt_aro_emit(&aro, b, k), -ICMPV6_ERR_NOBUFS);
            CHECK_EQ(wren_icmpv6_opt_6co_emit(&c, b, k), -ICMPV6_ERR_NOBUFS);
            CHECK_EQ(wren_icmpv6_opt_abro_emit(&a, b, k), -ICMPV6_ERR_NOBUFS);
        }
        if (k < 16) {
            CHECK_EQ(wren_icmpv6_opt_lladdr_emit(ICMPV6_OPT_SLLAO, eui64, 8, b, k), -ICMPV6_ERR_NOBUFS);
        }
        if (k < 8) {
            CHECK_EQ(wren_icmpv6_opt_mtu_emit(1280, b, k), -ICMPV6_ERR_NOBUFS);
        }
        for (size_t j = 0; j < sizeof(b); j++) {
            CHECK_EQ(b[j], 0xa5);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_icmpv6_csum_check__every_capture),
        cmocka_unit_test(test_icmpv6_csum__echo_request_capture),
        cmocka_unit_test(test_icmpv6_csum__ignores_checksum_field),
        cmocka_unit_test(test_icmpv6_csum__odd_length),
        cmocka_unit_test(test_icmpv6_csum_check__any_flipped_bit),
        cmocka_unit_test(test_icmpv6_csum_check__wrong_pseudo_header),
        cmocka_unit_test(test_icmpv6_csum_check__shorter_than_header),
        cmocka_unit_test(test_icmpv6_csum__tiny_lengths_read_nothing_beyond),
        cmocka_unit_test(test_icmpv6_parse__echo_request_capture),
        cmocka_unit_test(test_icmpv6_parse__echo_reply_capture),
        cmocka_unit_test(test_icmpv6_parse__router_solicitation_with_sllao),
        cmocka_unit_test(test_icmpv6_parse__router_advertisement),
        cmocka_unit_test(test_icmpv6_parse__router_advertisement_6lowpan_options),
        cmocka_unit_test(test_icmpv6_parse__neighbor_solicitation_with_aro),
        cmocka_unit_test(test_icmpv6_parse__neighbor_advertisement_flags),
        cmocka_unit_test(test_icmpv6_parse__neighbor_advertisement_earo),
        cmocka_unit_test(test_icmpv6_parse__redirect),
        cmocka_unit_test(test_icmpv6_parse__dest_unreachable_quotes_invoking_packet),
        cmocka_unit_test(test_icmpv6_parse__packet_too_big_mtu),
        cmocka_unit_test(test_icmpv6_parse__parameter_problem_pointer),
        cmocka_unit_test(test_icmpv6_parse__time_exceeded),
        cmocka_unit_test(test_icmpv6_parse__error_with_nothing_quoted),
        cmocka_unit_test(test_icmpv6_parse__dar_rfc6775),
        cmocka_unit_test(test_icmpv6_parse__edac_128bit_rovr),
        cmocka_unit_test(test_icmpv6_parse__dar_code_suffix_sizes),
        cmocka_unit_test(test_icmpv6_parse__dar_unknown_code_suffix),
        cmocka_unit_test(test_icmpv6_parse__unknown_type_generic),
        cmocka_unit_test(test_icmpv6_emit__unknown_type_generic),
        cmocka_unit_test(test_icmpv6_parse__shorter_than_header),
        cmocka_unit_test(test_icmpv6_parse__each_truncation_below_type_minimum),
        cmocka_unit_test(test_icmpv6_parse__every_capture_truncated),
        cmocka_unit_test(test_icmpv6_opt_next__empty_list),
        cmocka_unit_test(test_icmpv6_opt_next__length_zero),
        cmocka_unit_test(test_icmpv6_opt_next__option_past_end),
        cmocka_unit_test(test_icmpv6_opt_next__lone_trailing_byte),
        cmocka_unit_test(test_icmpv6_opt_next__max_length_option),
        cmocka_unit_test(test_icmpv6_opt_lladdr_parse__lengths),
        cmocka_unit_test(test_icmpv6_opt_lladdr_parse__one_unit_with_nonzero_padding_is_refused),
        cmocka_unit_test(test_icmpv6_opt_lladdr_parse__bad_unit_len),
        cmocka_unit_test(test_icmpv6_opt_pio_parse__prefix_len_129),
        cmocka_unit_test(test_icmpv6_opt_pio_parse__wrong_length),
        cmocka_unit_test(test_icmpv6_opt_mtu_parse__wrong_length),
        cmocka_unit_test(test_icmpv6_opt_aro_parse__lengths),
        cmocka_unit_test(test_icmpv6_opt_6co_parse__context_len_129),
        cmocka_unit_test(test_icmpv6_opt_6co_parse__context_longer_than_short_option),
        cmocka_unit_test(test_icmpv6_opt_6co_parse__wrong_length),
        cmocka_unit_test(test_icmpv6_opt_abro_parse__wrong_length),
        cmocka_unit_test(test_icmpv6_emit__every_capture_round_trips),
        cmocka_unit_test(test_icmpv6_emit__short_buffer_writes_nothing),
        cmocka_unit_test(test_icmpv6_echo_emit__reply_matches_capture),
        cmocka_unit_test(test_icmpv6_emit__echo_reply_in_place),
        cmocka_unit_test(test_icmpv6_emit__echo_data_too_long),
        cmocka_unit_test(test_icmpv6_error_emit__matches_captures),
        cmocka_unit_test(test_icmpv6_error_emit__quote_cut_to_budget),
        cmocka_unit_test(test_icmpv6_error_emit__quote_overlapping_buffer),
        cmocka_unit_test(test_icmpv6_emit__ns_with_options_matches_capture),
        cmocka_unit_test(test_icmpv6_emit__na_earo_matches_capture),
        cmocka_unit_test(test_icmpv6_emit__ra_6lowpan_matches_capture),
        cmocka_unit_test(test_icmpv6_emit__ra_with_mtu_matches_capture),
        cmocka_unit_test(test_icmpv6_emit__dar_rovr_len_mismatch),
        cmocka_unit_test(test_icmpv6_emit__rs_reserved_zero),
        cmocka_unit_test(test_icmpv6_len__matches_emit),
        cmocka_unit_test(test_icmpv6_opt_emit__round_trips),
        cmocka_unit_test(test_icmpv6_opt_6co_emit__partial_prefix_zero_padded),
        cmocka_unit_test(test_icmpv6_opt_emit__invalid_values),
        cmocka_unit_test(test_icmpv6_opt_emit__short_buffer_writes_nothing),
    };
    return cmocka_run_group_tests_name("icmpv6", tests, NULL, NULL);
}
