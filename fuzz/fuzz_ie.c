/**
 * @file fuzz_ie.c
 * @brief libFuzzer target for the 802.15.4-2015 IE parsers
 *        (wire/ieee802154_ie.h).
 *
 * The input is read four ways: as a header IE list, as a payload IE list
 * (and through payload_ie_split), as an MLME sub-IE list, and as a whole
 * MPDU whose IE lists are then parsed. Whatever parses is emitted again,
 * parsed back and required to carry the same TSCH content, and a second
 * emit must give identical bytes. The first bytes also drive the EB and
 * Enh-Ack builders, whose frames must parse back to what was put in.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/ieee802154.h"
#include "wire/ieee802154_ie.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

static void check_err(int rc)
{
    REQUIRE(rc <= 0 && rc >= -IEEE802154_IE_ERR_INVAL);
    REQUIRE(wren_ieee802154_ie_strerror(rc)[0] != '?');
}

/* Walk a list to its end or first error; every IE lies inside it. */
static void walk(uint8_t list, const uint8_t *buf, size_t len)
{
    struct ieee802154_ie_iter it;
    struct ieee802154_ie ie;
    int rc;

    wren_ieee802154_ie_iter_init(&it, list, buf, len);
    while ((rc = wren_ieee802154_ie_next(&it, &ie)) > 0) {
        REQUIRE(ie.content >= buf + 2 && ie.content + ie.len <= buf + len);
        if (list == IEEE802154_IE_LIST_PAYLOAD && ie.id == IEEE802154_PIE_MLME)
            walk(IEEE802154_IE_LIST_MLME, ie.content, ie.len);
    }
    check_err(rc);
}

static void same_mlme(const struct ieee802154_mlme_ies *a, const struct ieee802154_mlme_ies *b)
{
    struct ieee802154_tsch_slotframe sa, sb;
    size_t pa = 0, pb = 0;

    REQUIRE(a->present == b->present);
    REQUIRE(a->sync.asn == b->sync.asn && a->sync.join_metric == b->sync.join_metric);
    REQUIRE(memcmp(&a->timeslot, &b->timeslot, sizeof(a->timeslot)) == 0);
    REQUIRE(a->hopping.id == b->hopping.id && a->hopping.full == b->hopping.full);
    REQUIRE(a->hopping.seq_len == b->hopping.seq_len);
    for (unsigned i = 0; a->hopping.full && i < a->hopping.seq_len; i++)
        REQUIRE(wren_ieee802154_hopping_channel(&a->hopping, i) ==
                wren_ieee802154_hopping_channel(&b->hopping, i));
    REQUIRE(a->hopping.current_hop == b->hopping.current_hop);
    REQUIRE(a->n_slotframes == b->n_slotframes && a->sf_wire_len == b->sf_wire_len);
    while (wren_ieee802154_tsch_slotframe_next(a, &pa, &sa) > 0) {
        REQUIRE(wren_ieee802154_tsch_slotframe_next(b, &pb, &sb) == 1);
        REQUIRE(sa.handle == sb.handle && sa.size == sb.size && sa.n_links == sb.n_links);
        for (unsigned i = 0; i < sa.n_links; i++) {
            struct ieee802154_tsch_link la, lb;

            wren_ieee802154_tsch_link_get(&sa, i, &la);
            wren_ieee802154_tsch_link_get(&sb, i, &lb);
            REQUIRE(la.timeslot == lb.timeslot && la.channel_offset == lb.channel_offset &&
                    la.options == lb.options);
        }
    }
    REQUIRE(wren_ieee802154_tsch_slotframe_next(b, &pb, &sb) == 0);
}

static void payload_roundtrip(const uint8_t *buf, size_t len)
{
    static struct ieee802154_tsch_slotframe sfs[256];
    struct ieee802154_payload_ies p, q, r;
    size_t pos = 0, ie_len, rest;
    uint8_t *out, *out2;
    int rc, n;

    rc = wren_ieee802154_payload_ie_split(buf, len, &ie_len, &rest);
    check_err(rc);
    if (rc == 0)
        REQUIRE(ie_len <= rest && rest <= len);

    rc = wren_ieee802154_payload_ies_parse(buf, len, &p);
    check_err(rc);
    if (rc)
        return;
    if (p.has_sixtop)
        REQUIRE(p.sixtop >= buf && p.sixtop + p.sixtop_len <= buf + len);
    /* re-emit what was understood: slotframes from their wire view */
    for (unsigned i = 0; i < p.mlme.n_slotframes; i++)
        REQUIRE(wren_ieee802154_tsch_slotframe_next(&p.mlme, &pos, &sfs[i]) == 1);
    q = p;
    q.mlme.slotframes = sfs;
    n = wren_ieee802154_payload_ies_len(&q);
    /* parsed content fits again, unless several MLME IEs are merged into
     * one longer than an IE can be */
    REQUIRE(n >= 0 || n == -IEEE802154_IE_ERR_INVAL);
    if (n < 0)
        return;
    out = malloc((size_t)n + 1);
    out2 = malloc((size_t)n + 1);
    REQUIRE(out && out2);
    if (n > 0)
        REQUIRE(wren_ieee802154_payload_ies_emit(&q, out, (size_t)n - 1) ==
                -IEEE802154_IE_ERR_NOBUFS);
    REQUIRE(wren_ieee802154_payload_ies_emit(&q, out, (size_t)n) == n);
    REQUIRE(wren_ieee802154_payload_ies_parse(out, (size_t)n, &r) == 0);
    same_mlme(&p.mlme, &r.mlme);
    REQUIRE(r.has_sixtop == p.has_sixtop && r.sixtop_len == p.sixtop_len);
    REQUIRE(!p.sixtop_len || memcmp(r.sixtop, p.sixtop, p.sixtop_len) == 0);
    /* emit is a fixed point after one parse */
    pos = 0;
    for (unsigned i = 0; i < r.mlme.n_slotframes; i++)
        REQUIRE(wren_ieee802154_tsch_slotframe_next(&r.mlme, &pos, &sfs[i]) == 1);
    r.mlme.slotframes = sfs;
    REQUIRE(wren_ieee802154_payload_ies_emit(&r, out2, (size_t)n) == n);
    REQUIRE(memcmp(out, out2, (size_t)n) == 0);
    free(out);
    free(out2);
}

static void hdr_roundtrip(const uint8_t *buf, size_t len)
{
    struct ieee802154_hdr_ies h, g;
    uint8_t out[IEEE802154_IE_TIME_CORR_LEN];
    int rc = wren_ieee802154_hdr_ies_parse(buf, len, &h);

    check_err(rc);
    if (rc)
        return;
    rc = wren_ieee802154_hdr_ies_emit(&h, out, sizeof(out));
    REQUIRE(rc == (h.has_time_corr ? 4 : 0));
    REQUIRE(wren_ieee802154_hdr_ies_parse(out, (size_t)rc, &g) == 0);
    REQUIRE(g.has_time_corr == h.has_time_corr);
    REQUIRE(g.time_corr.us == h.time_corr.us && g.time_corr.nack == h.time_corr.nack);
}

/* Builders driven by the input: what goes in comes back out. */
static void builders(const uint8_t *data, size_t size)
{
    struct ieee802154_payload_ies ies, p;
    struct ieee802154_tsch_slotframe sf;
    struct ieee802154_tsch_link cell;
    struct ieee802154_hdr_ies h;
    struct ieee802154_frame f, g;
    uint8_t v[16] = {0}, ie_buf[64], buf[128];
    uint64_t asn = 0;
    int n;

    memcpy(v, data, size < sizeof(v) ? size : sizeof(v));
    for (int i = 0; i < 5; i++)
        asn |= (uint64_t)v[i] << (8 * i);
    wren_ieee802154_eb_minimal_ies(&ies, &sf, &cell, asn, v[5], (uint16_t)(v[6] | v[7] << 8));
    REQUIRE(wren_ieee802154_eb_frame(&f, (uint16_t)(v[8] | v[9] << 8), v + 8, &ies, ie_buf,
                                     sizeof(ie_buf)) == 0);
    n = wren_ieee802154_emit(&f, buf, sizeof(buf));
    REQUIRE(n > 0);
    REQUIRE(wren_ieee802154_parse(buf, (size_t)n, &g) == 0);
    REQUIRE(g.hdr.type == IEEE802154_TYPE_BEACON && memcmp(g.hdr.src_addr, v + 8, 8) == 0);
    REQUIRE(wren_ieee802154_payload_ies_parse(g.payload_ie, g.payload_ie_len, &p) == 0);
    REQUIRE(p.mlme.sync.asn == asn && p.mlme.sync.join_metric == v[5]);

    /* Enh-Ack of that EB's header, with a time correction from the input */
    struct ieee802154_time_corr tc = {(int16_t)((v[10] | v[11] << 8) % 4096 - 2048), v[12] & 1};
    REQUIRE(wren_ieee802154_enhack_frame(&f, &g.hdr, &tc, ie_buf, sizeof(ie_buf)) == 0);
    n = wren_ieee802154_emit(&f, buf, sizeof(buf));
    REQUIRE(n > 0);
    REQUIRE(wren_ieee802154_parse(buf, (size_t)n, &g) == 0);
    REQUIRE(g.hdr.type == IEEE802154_TYPE_ACK && memcmp(g.hdr.dst_addr, v + 8, 8) == 0);
    REQUIRE(wren_ieee802154_hdr_ies_parse(g.hdr_ie, g.hdr_ie_len, &h) == 0);
    REQUIRE(h.time_corr.us == tc.us && h.time_corr.nack == tc.nack);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ieee802154_frame f;

    walk(IEEE802154_IE_LIST_HDR, data, size);
    walk(IEEE802154_IE_LIST_PAYLOAD, data, size);
    walk(IEEE802154_IE_LIST_MLME, data, size);
    hdr_roundtrip(data, size);
    payload_roundtrip(data, size);
    if (wren_ieee802154_parse(data, size, &f) == 0) {
        hdr_roundtrip(f.hdr_ie, f.hdr_ie_len);
        if (!f.hdr.security)
            payload_roundtrip(f.payload_ie, f.payload_ie_len);
    }
    builders(data, size);
    return 0;
}
