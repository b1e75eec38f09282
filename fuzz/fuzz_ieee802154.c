/**
 * @file fuzz_ieee802154.c
 * @brief libFuzzer target for the IEEE 802.15.4 frame parser.
 *
 * Parse the input; if it parses, emit the frame into a buffer of exactly
 * wren_ieee802154_len() bytes, parse that again and require every field to
 * round-trip, and require a second emit to give identical bytes. Also runs
 * the FCS helpers on the input and on the emitted frame.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/byteorder.h"
#include "wire/ieee802154.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

static int mem_eq(const uint8_t *a, const uint8_t *b, size_t n)
{
    return n == 0 || memcmp(a, b, n) == 0;
}

static void same_hdr(const struct ieee802154_hdr *a, const struct ieee802154_hdr *b)
{
    REQUIRE(a->type == b->type);
    REQUIRE(a->version == b->version);
    REQUIRE(a->dst_mode == b->dst_mode);
    REQUIRE(a->src_mode == b->src_mode);
    REQUIRE(a->seq == b->seq);
    REQUIRE(a->security == b->security);
    REQUIRE(a->frame_pending == b->frame_pending);
    REQUIRE(a->ack_req == b->ack_req);
    REQUIRE(a->panid_comp == b->panid_comp);
    REQUIRE(a->seq_suppressed == b->seq_suppressed);
    REQUIRE(a->ie_present == b->ie_present);
    REQUIRE(a->dst_pan == b->dst_pan);
    REQUIRE(a->src_pan == b->src_pan);
    REQUIRE(memcmp(a->dst_addr, b->dst_addr, 8) == 0);
    REQUIRE(memcmp(a->src_addr, b->src_addr, 8) == 0);
    REQUIRE(a->sec_level == b->sec_level);
    REQUIRE(a->key_id_mode == b->key_id_mode);
    REQUIRE(a->fc_suppressed == b->fc_suppressed);
    REQUIRE(a->asn_in_nonce == b->asn_in_nonce);
    REQUIRE(a->key_index == b->key_index);
    REQUIRE(a->frame_counter == b->frame_counter);
    REQUIRE(memcmp(a->key_source, b->key_source, 8) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ieee802154_frame f, g;
    uint8_t *buf, *buf2;
    int rc, n, hl;

    /* FCS helpers: never crash; an appended FCS always checks. */
    rc = wren_ieee802154_fcs_check(data, size);
    REQUIRE(rc == 0 || rc == -IEEE802154_ERR_FCS || rc == -IEEE802154_ERR_TRUNCATED);
    REQUIRE((rc == -IEEE802154_ERR_TRUNCATED) == (size < 2));

    rc = wren_ieee802154_parse(data, size, &f);
    REQUIRE(rc <= 0 && rc >= -IEEE802154_ERR_NOBUFS);
    REQUIRE(wren_ieee802154_strerror(rc) != NULL);
    if (rc != 0)
        return 0;

    /* Everything the frame points at lies inside the input, in order. */
    hl = wren_ieee802154_hdr_len(&f.hdr);
    REQUIRE(hl >= 2 && (size_t)hl <= size);
    REQUIRE(f.hdr_ie >= data + hl && f.hdr_ie + f.hdr_ie_len <= data + size);
    REQUIRE(f.payload_ie >= f.hdr_ie + f.hdr_ie_len);
    REQUIRE(f.payload >= f.payload_ie + f.payload_ie_len);
    REQUIRE(f.mic == f.payload + f.payload_len);
    REQUIRE(f.mic + wren_ieee802154_mic_len(&f.hdr) == data + size);

    n = wren_ieee802154_len(&f);
    REQUIRE(n >= hl);
    buf = malloc((size_t)n + 2);
    buf2 = malloc((size_t)n + 2);
    REQUIRE(buf && buf2);
    if (n > 0)
        REQUIRE(wren_ieee802154_emit(&f, buf, (size_t)n - 1) == -IEEE802154_ERR_NOBUFS);
    REQUIRE(wren_ieee802154_emit(&f, buf, (size_t)n) == n);
    REQUIRE(wren_ieee802154_hdr_emit(&f.hdr, buf2, (size_t)n) == hl);
    REQUIRE(memcmp(buf, buf2, (size_t)hl) == 0);

    REQUIRE(wren_ieee802154_parse(buf, (size_t)n, &g) == 0);
    same_hdr(&f.hdr, &g.hdr);
    REQUIRE(g.hdr_ie_len == f.hdr_ie_len && mem_eq(g.hdr_ie, f.hdr_ie, f.hdr_ie_len));
    REQUIRE(g.payload_ie_len == f.payload_ie_len &&
            mem_eq(g.payload_ie, f.payload_ie, f.payload_ie_len));
    REQUIRE(g.cmd_id == f.cmd_id);
    REQUIRE(g.payload_len == f.payload_len && mem_eq(g.payload, f.payload, f.payload_len));
    REQUIRE(mem_eq(g.mic, f.mic, wren_ieee802154_mic_len(&f.hdr)));

    /* Emit is a fixed point after one parse. */
    REQUIRE(wren_ieee802154_emit(&g, buf2, (size_t)n) == n);
    REQUIRE(memcmp(buf, buf2, (size_t)n) == 0);

    /* FCS over the emitted frame. */
    put_le16(buf + n, wren_ieee802154_fcs(buf, (size_t)n));
    REQUIRE(wren_ieee802154_fcs_check(buf, (size_t)n + 2) == 0);
    buf[n] ^= 1;
    REQUIRE(wren_ieee802154_fcs_check(buf, (size_t)n + 2) == -IEEE802154_ERR_FCS);

    free(buf);
    free(buf2);
    return 0;
}
