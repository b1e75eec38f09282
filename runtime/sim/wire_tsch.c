/* ctypes entry points into the 802.15.4-2015 IE codec (see wire_tsch.h). */
#include "sim/wire_tsch.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/byteorder.h"
#include "wire/ieee802154.h"
#include "wire/ieee802154_ie.h"

/* Emit f with its FCS into out. */
static int finish(const struct ieee802154_frame *f, uint8_t *out, size_t out_max)
{
    int n;

    if (out_max < IEEE802154_FCS_LEN)
        return -IEEE802154_ERR_NOBUFS;
    n = wren_ieee802154_emit(f, out, out_max - IEEE802154_FCS_LEN);
    if (n < 0)
        return n;
    put_le16(out + n, wren_ieee802154_fcs(out, (size_t)n));
    return n + IEEE802154_FCS_LEN;
}

int wren_wire_tsch_eb(uint16_t pan, const uint8_t *src, uint64_t asn, uint8_t join_metric,
                      uint16_t sf_size, int full, const uint8_t *hop_seq, uint16_t hop_len,
                      uint8_t *out, size_t out_max)
{
    struct ieee802154_payload_ies ies;
    struct ieee802154_tsch_slotframe sf;
    struct ieee802154_tsch_link cell;
    struct ieee802154_frame f;
    uint8_t ie_buf[256];
    int rc;

    wren_ieee802154_eb_minimal_ies(&ies, &sf, &cell, asn, join_metric, sf_size);
    if (full) {
        struct ieee802154_channel_hopping *h = &ies.mlme.hopping;

        wren_ieee802154_tsch_timeslot_default(&ies.mlme.timeslot);
        if (full == 2) { /* 3-byte max_tx and length: the 27-byte form */
            ies.mlme.timeslot.id = 1;
            ies.mlme.timeslot.max_tx = 65541;
            ies.mlme.timeslot.length = 70000;
        }
        h->full = true;
        h->page = 0;
        h->n_channels = 16;
        h->phy_config = 0x07fff800; /* channels 11..26 */
        h->seq_len = hop_len;
        h->seq = hop_seq;
        h->current_hop = 0;
    }
    rc = wren_ieee802154_eb_frame(&f, pan, src, &ies, ie_buf, sizeof(ie_buf));
    return rc < 0 ? rc : finish(&f, out, out_max);
}

int wren_wire_tsch_enhack(const uint8_t *rx, size_t rx_len, int us, int nack, uint8_t *out,
                          size_t out_max)
{
    struct ieee802154_time_corr tc = {(int16_t)us, nack != 0};
    struct ieee802154_frame r, f;
    uint8_t ie_buf[IEEE802154_IE_TIME_CORR_LEN];
    int rc = wren_ieee802154_parse(rx, rx_len, &r);

    if (rc < 0)
        return rc;
    rc = wren_ieee802154_enhack_frame(&f, &r.hdr, &tc, ie_buf, sizeof(ie_buf));
    return rc < 0 ? rc : finish(&f, out, out_max);
}

int wren_wire_tsch_sixtop_data(uint16_t pan, const uint8_t *src, const uint8_t *dst, uint8_t seq,
                               const uint8_t *msg, size_t msg_len, uint8_t *out, size_t out_max)
{
    struct ieee802154_payload_ies ies;
    struct ieee802154_frame f;
    uint8_t ie_buf[256];
    int n;

    memset(&ies, 0, sizeof(ies));
    ies.has_sixtop = true;
    ies.sixtop = msg;
    ies.sixtop_len = (uint16_t)msg_len;
    n = wren_ieee802154_payload_ies_emit(&ies, ie_buf, sizeof(ie_buf));
    if (n < 0)
        return n;
    memset(&f, 0, sizeof(f));
    f.hdr.type = IEEE802154_TYPE_DATA;
    f.hdr.version = IEEE802154_VERSION_2015;
    f.hdr.ack_req = true;
    f.hdr.ie_present = true;
    f.hdr.seq = seq;
    f.hdr.dst_mode = f.hdr.src_mode = IEEE802154_ADDR_EXT;
    f.hdr.dst_pan = f.hdr.src_pan = pan; /* Table 7-2: ext/ext, comp 0: dst PAN only */
    memcpy(f.hdr.dst_addr, dst, 8);
    memcpy(f.hdr.src_addr, src, 8);
    f.payload_ie = ie_buf;
    f.payload_ie_len = (size_t)n;
    return finish(&f, out, out_max);
}

int wren_wire_ieee802154_data(uint8_t version, uint8_t dst_mode, uint8_t src_mode, int panid_comp,
                              int seq_suppressed, uint16_t dst_pan, uint16_t src_pan,
                              const uint8_t *dst, const uint8_t *src, uint8_t *out,
                              size_t out_max)
{
    struct ieee802154_frame f;

    memset(&f, 0, sizeof(f));
    f.hdr.type = IEEE802154_TYPE_DATA;
    f.hdr.version = version;
    f.hdr.dst_mode = dst_mode;
    f.hdr.src_mode = src_mode;
    f.hdr.panid_comp = panid_comp != 0;
    f.hdr.seq_suppressed = seq_suppressed != 0;
    f.hdr.seq = 0x5a;
    f.hdr.dst_pan = dst_pan;
    f.hdr.src_pan = src_pan;
    memcpy(f.hdr.dst_addr, dst, 8);
    memcpy(f.hdr.src_addr, src, 8);
    return finish(&f, out, out_max);
}

int wren_wire_ieee802154_pans(const uint8_t *psdu, size_t len, uint16_t *pans)
{
    struct ieee802154_frame f;
    int rc = len < IEEE802154_FCS_LEN ? -IEEE802154_ERR_TRUNCATED
                                      : wren_ieee802154_parse(psdu, len - IEEE802154_FCS_LEN, &f);

    if (rc < 0)
        return rc;
    pans[0] = f.hdr.dst_pan;
    pans[1] = f.hdr.src_pan;
    return (int)wren_ieee802154_has_dst_pan(&f.hdr) | (int)wren_ieee802154_has_src_pan(&f.hdr) << 1;
}

/* Append to desc; the text is cut at desc_max. */
static void put(char *desc, size_t desc_max, const char *fmt, ...)
{
    size_t used = strlen(desc);
    va_list ap;

    if (used + 1 >= desc_max)
        return;
    va_start(ap, fmt);
    vsnprintf(desc + used, desc_max - used, fmt, ap);
    va_end(ap);
}

int wren_wire_tsch_describe(const uint8_t *psdu, size_t len, char *desc, size_t desc_max)
{
    struct ieee802154_frame f;
    struct ieee802154_hdr_ies hie;
    struct ieee802154_payload_ies pie;
    const struct ieee802154_mlme_ies *m = &pie.mlme;
    struct ieee802154_tsch_slotframe sf;
    size_t pos = 0;
    int rc;

    if (!desc_max)
        return -IEEE802154_ERR_NOBUFS;
    desc[0] = 0;
    rc = wren_ieee802154_fcs_check(psdu, len);
    if (rc == 0)
        rc = wren_ieee802154_parse(psdu, len - IEEE802154_FCS_LEN, &f);
    if (rc < 0)
        return rc;
    rc = wren_ieee802154_hdr_ies_parse(f.hdr_ie, f.hdr_ie_len, &hie);
    if (rc == 0)
        rc = wren_ieee802154_payload_ies_parse(f.payload_ie, f.payload_ie_len, &pie);
    if (rc < 0)
        return -100 + rc; /* IE errors: -101.. */
    put(desc, desc_max, "type=%u version=%u seq_suppressed=%u seq=%u", f.hdr.type, f.hdr.version,
        f.hdr.seq_suppressed, f.hdr.seq);
    if (hie.has_time_corr)
        put(desc, desc_max, " time_corr=%d nack=%u", hie.time_corr.us, hie.time_corr.nack);
    if (m->present & IEEE802154_MLME_SYNC)
        put(desc, desc_max, " asn=%llu join_metric=%u", (unsigned long long)m->sync.asn,
            m->sync.join_metric);
    if (m->present & IEEE802154_MLME_TIMESLOT)
        put(desc, desc_max, " timeslot_id=%u timeslot_length=%lu", m->timeslot.id,
            (unsigned long)m->timeslot.length);
    if (m->present & IEEE802154_MLME_HOPPING) {
        put(desc, desc_max, " hopping_id=%u hopping=", m->hopping.id);
        for (unsigned i = 0; m->hopping.full && i < m->hopping.seq_len; i++)
            put(desc, desc_max, "%s%u", i ? "," : "",
                wren_ieee802154_hopping_channel(&m->hopping, i));
    }
    while (wren_ieee802154_tsch_slotframe_next(m, &pos, &sf) > 0) {
        put(desc, desc_max, " slotframe=%u/%u", sf.handle, sf.size);
        for (unsigned i = 0; i < sf.n_links; i++) {
            struct ieee802154_tsch_link l;

            wren_ieee802154_tsch_link_get(&sf, i, &l);
            put(desc, desc_max, " link=%u/%u/0x%02x", l.timeslot, l.channel_offset, l.options);
        }
    }
    if (pie.has_sixtop) {
        put(desc, desc_max, " sixtop=");
        for (unsigned i = 0; i < pie.sixtop_len; i++)
            put(desc, desc_max, "%02x", pie.sixtop[i]);
    }
    return 0;
}
