/**
 * @file fuzz_ieee802154_sec.c
 * @brief libFuzzer target for secured 802.15.4 frames: parse, then the
 *        incoming frame security procedure (link/ieee802154_sec.h) with
 *        fixed keys; and the outgoing one on frames that parse unsecured.
 *
 * Input: one control byte (security level required and used, key, TSCH
 * mode: a TSCH link with its ASN or a CSMA link without), then a frame
 * without FCS. Properties:
 * - unsecure never reads or writes outside the frame and answers one of
 *   its documented results, each counted once (the frame passed, or one
 *   drop reason rose); never passes a frame with the ASN in its nonce on
 *   a link without an ASN;
 * - a frame that unsecures, sealed again with the same header, gives back
 *   the input bytes exactly (MIC and ciphertext);
 * - an unsecured frame secured with wren_ieee802154_sec_prepare / emit /
 *   _secure parses, unsecures with the same keys, and gives back its
 *   payload (IEs included).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/node.h"
#include "link/ieee802154_link.h"
#include "net/netopt.h"
#include "wire/ieee802154.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

static const uint8_t k1[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
static const uint8_t k2[16] = {0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,
                               0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf};

/* the interface's node: its runtime gives the key tables the first key
 * makes (CONFIG_WREN_NODE_MEM); setup() forgets the last, so one will do */
#if CONFIG_WREN_NODE_MEM
static void *node_mem(void *rt, struct wren_node *n, const struct wren_module_ops *owner,
                      size_t size)
{
    static _Alignas(8) uint8_t tab[512];
    (void)rt, (void)n, (void)owner;
    REQUIRE(size <= sizeof(tab));
    return memset(tab, 0, sizeof(tab));
}

static const struct wren_rt_ops node_ops = {.mem = node_mem};
#else
static const struct wren_rt_ops node_ops = {0};
#endif
static struct wren_node node = {.rt_ops = &node_ops};

static void setup(struct wren_ieee802154_netif *nif, uint8_t ctl)
{
    struct wren_ieee802154_sec_key k = {.index = 1};
    memset(nif, 0, sizeof(*nif));
    wren_ieee802154_sec_init(nif);
    nif->netif.node = &node;
    memcpy(k.key, k1, 16);
    REQUIRE(wren_ieee802154_sec_set(nif, WREN_NETOPT_SEC_KEY, &k, sizeof(k)) == 0);
    k.index = 2;
    memcpy(k.key, k2, 16);
    REQUIRE(wren_ieee802154_sec_set(nif, WREN_NETOPT_SEC_KEY, &k, sizeof(k)) == 0);
    for (uint8_t t = 0; t < 4; t++) {
        struct wren_ieee802154_sec_policy p = {t, (uint8_t)(ctl & 7), (uint8_t)(1 + (ctl >> 3 & 1))};
        REQUIRE(wren_ieee802154_sec_set(nif, WREN_NETOPT_SEC_LEVEL, &p, sizeof(p)) == 0);
    }
}

static uint32_t drops(const struct wren_ieee802154_sec_stats *s)
{
    return s->rx_no_key + s->rx_bad_mic + s->rx_replay + s->rx_level + s->rx_malformed +
           s->rx_no_src + s->rx_nbr_full + s->rx_asn_not_tsch;
}

/* the authenticated-only part when encrypting: as the library defines it */
static size_t open_len(const struct ieee802154_frame *f, const uint8_t *mpdu)
{
    return (size_t)((f->payload_ie_len ? f->payload_ie : f->payload) - mpdu);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct wren_ieee802154_netif nif; /* big: not on the fuzzer's stack */
    struct ieee802154_frame f, g;
    uint8_t buf[256], out[256];
    const uint8_t src[8] = {0x02, 0x57, 0x52, 0xff, 0xfe, 0, 0, 9};
    int rc;

    if (size < 1 || size > 200)
        return 0;
    uint8_t ctl = data[0];
    uint64_t asn = (uint64_t)ctl * 0x01010101u;
    const uint8_t *given = (ctl & 0x20) ? src : NULL; /* an Enh-ACK's sender */
    const uint64_t *slot = (ctl & 0x40) ? &asn : NULL; /* a TSCH link's ASN, or CSMA */
    data++, size--;
    setup(&nif, ctl);
    memcpy(buf, data, size);
    if (wren_ieee802154_parse(buf, size, &f) != 0)
        return 0;

    /* incoming: every result documented and counted once */
    struct wren_ieee802154_sec_stats before = nif.sec.stats;
    rc = wren_ieee802154_sec_unsecure(&nif, &f, buf, size, given, slot);
    REQUIRE(rc == 0 || rc == 1 || rc == -EPERM || rc == -EBADMSG || rc == -ENOENT ||
            rc == -EALREADY || rc == -EPROTO || rc == -EADDRNOTAVAIL || rc == -ENOSPC ||
            rc == -EOPNOTSUPP);
    /* the ASN in the nonce only where there is one (a TSCH link) */
    REQUIRE(!(rc >= 0 && f.hdr.security && f.hdr.asn_in_nonce && !slot));
    REQUIRE(drops(&nif.sec.stats) - drops(&before) == (rc < 0));
    REQUIRE(nif.sec.stats.rx_secured - before.rx_secured == (rc == 0 && f.hdr.security));
    if (rc == 0 && f.hdr.security) {
        /* sealed again under the same header: the input, byte for byte */
        memcpy(nif.long_addr, given ? given : f.hdr.src_addr, 8);
        REQUIRE(wren_ieee802154_sec_secure(&nif, &f.hdr, asn, buf, open_len(&f, buf), size) == 0);
        REQUIRE(memcmp(buf, data, size) == 0);
    }

    /* outgoing: secure an unsecured frame, then take it in again */
    if (f.hdr.security || f.hdr.version == IEEE802154_VERSION_2003 ||
        f.hdr.src_mode != IEEE802154_ADDR_EXT)
        return 0;
    setup(&nif, ctl);
    memcpy(nif.long_addr, f.hdr.src_addr, 8);
    memcpy(buf, data, size);
    REQUIRE(wren_ieee802154_parse(buf, size, &f) == 0);
    g = f;
    bool tsch = (ctl & 0x40) && f.hdr.version == IEEE802154_VERSION_2015;
    int mic = wren_ieee802154_sec_prepare(&nif, &g.hdr, tsch);
    if (mic <= 0) {
        REQUIRE(mic == 0 || (mic == -EINVAL && (ctl & 0x40) && !tsch));
        return 0;
    }
    g.mic = NULL;
    int n = wren_ieee802154_emit(&g, out, sizeof(out));
    if (n < 0)
        return 0; /* (a secured frame cannot have payload IEs and a payload) */
    struct ieee802154_frame h;
    REQUIRE(wren_ieee802154_parse(out, (size_t)n, &h) == 0);
    REQUIRE(wren_ieee802154_sec_secure(&nif, &g.hdr, asn, out, open_len(&h, out), (size_t)n) == 0);
    REQUIRE(wren_ieee802154_parse(out, (size_t)n, &h) == 0);
    rc = wren_ieee802154_sec_unsecure(&nif, &h, out, (size_t)n, NULL, tsch ? &asn : NULL);
    REQUIRE(rc == 0);
    /* the plaintext after the open part is the original's: its payload IEs
     * and payload (a Payload Termination IE with nothing after it is left
     * out when the frame is emitted again, 802.15.4-2015 7.4.1) */
    REQUIRE(h.payload_ie_len == f.payload_ie_len && h.payload_len == f.payload_len);
    REQUIRE(f.payload_ie_len == 0 || memcmp(h.payload_ie, f.payload_ie, f.payload_ie_len) == 0);
    REQUIRE(f.payload_len == 0 || memcmp(h.payload, f.payload, f.payload_len) == 0);
    return 0;
}
