/**
 * @file ieee802154_ie.c
 * @brief IEEE 802.15.4-2015 information elements for TSCH (see
 *        ieee802154_ie.h).
 *
 * Parsing walks each list with one iterator that checks a descriptor and
 * its length before anything is read. Emitting runs one writer twice: a
 * counting pass (no buffer) that also validates, then, if the result fits,
 * a writing pass; a nested IE's descriptor is written after its content,
 * when its length is known.
 */
#include "wire/ieee802154_ie.h"

#include <stddef.h>
#include <string.h>

#include "core/byteorder.h"

#define ERR(e) (-IEEE802154_IE_ERR_##e)

/* --- lists ------------------------------------------------------------- */

void wren_ieee802154_ie_iter_init(struct ieee802154_ie_iter *it, uint8_t list, const uint8_t *buf,
                                  size_t len)
{
    it->buf = buf;
    it->len = len;
    it->pos = 0;
    it->list = list;
}

/* 7.4.2.1 header IE, 7.4.3.1 payload IE, 7.4.4.1 short/long sub-IE. */
int wren_ieee802154_ie_next(struct ieee802154_ie_iter *it, struct ieee802154_ie *ie)
{
    size_t left = it->len - it->pos;
    unsigned d, type, n, id;
    bool term;

    if (!left)
        return 0;
    if (left < 2)
        return ERR(TRUNCATED);
    d = get_le16(it->buf + it->pos);
    type = d >> 15;
    if (it->list == IEEE802154_IE_LIST_MLME) {
        n = d & (type ? 0x7ffu : 0xffu);
        id = type ? (d >> 11) & 0xfu : (d >> 8) & 0x7fu;
        term = false;
    } else if (it->list == IEEE802154_IE_LIST_PAYLOAD) {
        n = d & 0x7ffu;
        id = (d >> 11) & 0xfu;
        term = id == IEEE802154_PIE_TERM;
        if (!type)
            return ERR(TYPE);
    } else {
        n = d & 0x7fu;
        id = (d >> 7) & 0xffu;
        term = id == IEEE802154_HIE_HT1 || id == IEEE802154_HIE_HT2;
        if (type)
            return ERR(TYPE);
    }
    if (term && n)
        return ERR(TYPE);
    if (left - 2 < n)
        return ERR(TRUNCATED);
    ie->content = it->buf + it->pos + 2;
    ie->len = (uint16_t)n;
    ie->id = (uint8_t)id;
    ie->long_form = type && it->list == IEEE802154_IE_LIST_MLME;
    it->pos += 2 + n;
    return 1;
}

int wren_ieee802154_payload_ie_split(const uint8_t *buf, size_t len, size_t *ie_len, size_t *rest)
{
    struct ieee802154_ie_iter it;
    struct ieee802154_ie ie;
    size_t start = 0;
    int rc;

    wren_ieee802154_ie_iter_init(&it, IEEE802154_IE_LIST_PAYLOAD, buf, len);
    while ((rc = wren_ieee802154_ie_next(&it, &ie)) > 0) {
        if (ie.id == IEEE802154_PIE_TERM) {
            *ie_len = start;
            *rest = it.pos;
            return 0;
        }
        start = it.pos;
    }
    if (rc < 0)
        return rc;
    *ie_len = *rest = len;
    return 0;
}

/* --- header IEs -------------------------------------------------------- */

int wren_ieee802154_hdr_ies_parse(const uint8_t *buf, size_t len, struct ieee802154_hdr_ies *out)
{
    struct ieee802154_ie_iter it;
    struct ieee802154_ie ie;
    int rc;

    memset(out, 0, sizeof(*out));
    wren_ieee802154_ie_iter_init(&it, IEEE802154_IE_LIST_HDR, buf, len);
    while ((rc = wren_ieee802154_ie_next(&it, &ie)) > 0) {
        if (ie.id == IEEE802154_HIE_HT1 || ie.id == IEEE802154_HIE_HT2)
            return ERR(TYPE); /* the frame parser ends the list there */
        if (ie.id != IEEE802154_HIE_TIME_CORR)
            continue;
        /* 7.4.2.7: bits 0-11 a signed time in us, 12-14 reserved, 15 NACK */
        if (ie.len != 2)
            return ERR(LENGTH);
        if (out->has_time_corr)
            return ERR(DUPLICATE);
        unsigned v = get_le16(ie.content);
        out->has_time_corr = true;
        out->time_corr.us = (int16_t)((int)(v & 0xfffu) - (int)((v & 0x800u) << 1));
        out->time_corr.nack = v >> 15;
    }
    return rc;
}

/* Writer: counts (b == NULL) or writes; validation errors are sticky. */
struct wr {
    uint8_t *b;
    size_t pos;
    int err;
};

static void w_le(struct wr *w, uint32_t v, size_t n)
{
    for (size_t i = 0; w->b && i < n; i++)
        w->b[w->pos + i] = (uint8_t)(v >> (8 * i));
    w->pos += n;
}

static void w_bytes(struct wr *w, const uint8_t *src, size_t n)
{
    if (w->b && n)
        memcpy(w->b + w->pos, src, n);
    w->pos += n;
}

/* Reserve a descriptor; close_ie() fills it in once the content is out. */
static size_t open_ie(struct wr *w)
{
    size_t start = w->pos;

    w->pos += 2;
    return start;
}

/* Descriptor kinds: the length field's largest value, then the
 * descriptor's id bits (id shifted to its place, type bit 15). */
#define K_HDR(id) 0x7fu, (unsigned)(id) << 7              /* header IE */
#define K_PAYLOAD(id) 0x7ffu, ((unsigned)(id) << 11 | 0x8000u) /* payload IE */
#define K_SHORT(id) 0xffu, (unsigned)(id) << 8            /* short sub-IE */
#define K_LONG(id) 0x7ffu, ((unsigned)(id) << 11 | 0x8000u)    /* long sub-IE */

static void close_ie(struct wr *w, size_t start, unsigned max, unsigned bits)
{
    size_t n = w->pos - start - 2;

    if (n > max)
        w->err = ERR(INVAL);
    if (w->b)
        put_le16(w->b + start, (uint16_t)(n | bits));
}

static void hdr_ies_codec(const struct ieee802154_hdr_ies *in, struct wr *w)
{
    if (in->has_time_corr) {
        size_t s = open_ie(w);
        int us = in->time_corr.us;

        if (us < -2048 || us > 2047)
            w->err = ERR(INVAL);
        w_le(w, ((unsigned)us & 0xfffu) | (unsigned)in->time_corr.nack << 15, 2);
        close_ie(w, s, K_HDR(IEEE802154_HIE_TIME_CORR));
    }
}

/* --- payload IEs ------------------------------------------------------- */

/* Fixed fields of a sub-IE, in wire order: each an offset in its struct and
 * a size, the same on the wire (little-endian) and in the struct (1, 2 or
 * 4 bytes). One table serves parse and emit. */
#define FLD(type, f) (uint8_t) offsetof(type, f), (uint8_t)sizeof(((type *)0)->f)

/* 7.4.4.4: the template's id and twelve times; max_tx and length (the last
 * two) are 2 bytes, 3 in the long (27-byte) form, and are not in here */
#define TSL struct ieee802154_tsch_timeslot
static const uint8_t ts_fields[] = {
    FLD(TSL, id),           FLD(TSL, cca_offset),   FLD(TSL, cca),     FLD(TSL, tx_offset),
    FLD(TSL, rx_offset),    FLD(TSL, rx_ack_delay), FLD(TSL, tx_ack_delay), FLD(TSL, rx_wait),
    FLD(TSL, ack_wait),     FLD(TSL, rx_tx),        FLD(TSL, max_ack),
};
/* 7.4.4.31: id, page, channels, PHY configuration, sequence length (the
 * sequence and the current hop follow) */
#define HOP struct ieee802154_channel_hopping
static const uint8_t hop_fields[] = {
    FLD(HOP, id), FLD(HOP, page), FLD(HOP, n_channels), FLD(HOP, phy_config), FLD(HOP, seq_len),
};
/* 7.4.4.3: a slotframe descriptor, a link */
#define SFR struct ieee802154_tsch_slotframe
static const uint8_t sf_fields[] = { FLD(SFR, handle), FLD(SFR, size), FLD(SFR, n_links) };
#define LNK struct ieee802154_tsch_link
static const uint8_t link_fields[] = {
    FLD(LNK, timeslot), FLD(LNK, channel_offset), FLD(LNK, options),
};

static void w_fields(struct wr *w, const void *base, const uint8_t *f, size_t n)
{
    for (size_t i = 0; i < n; i += 2) {
        const uint8_t *d = (const uint8_t *)base + f[i];
        w_le(w,
             f[i + 1] == 1   ? *d
             : f[i + 1] == 2 ? *(const uint16_t *)(const void *)d
                             : *(const uint32_t *)(const void *)d,
             f[i + 1]);
    }
}

static int parse_timeslot(const struct ieee802154_ie *ie, struct ieee802154_tsch_timeslot *t)
{
    const uint8_t *c = ie->content;
    size_t wide = ie->len == 27 ? 3 : 2;

    if (ie->len != 1 && ie->len != 25 && ie->len != 27)
        return ERR(LENGTH);
    t->id = c[0];
    t->full = ie->len > 1;
    if (!t->full)
        return 0;
    for (unsigned i = 1; i <= 10; i++) /* the ten 2-byte times after the id */
        *(uint16_t *)(void *)((uint8_t *)t + ts_fields[2 * i]) = get_le16(c + 2 * i - 1);
    t->max_tx = get_le16(c + 21) | (wide == 3 ? (uint32_t)c[23] << 16 : 0);
    c += 21 + wide;
    t->length = get_le16(c) | (wide == 3 ? (uint32_t)c[2] << 16 : 0);
    return 0;
}

/* 7.4.4.3: count, then per slotframe handle, size, link count, links:
 * exactly count slotframes, each whole, fill the IE. */
static int parse_slotframes(const struct ieee802154_ie *ie, struct ieee802154_mlme_ies *m)
{
    struct ieee802154_tsch_slotframe sf;
    size_t pos = 0;
    unsigned i = 0;

    if (ie->len < 1)
        return ERR(LENGTH);
    m->sf_wire = ie->content + 1;
    m->sf_wire_len = (uint16_t)(ie->len - 1);
    while (i < ie->content[0] && wren_ieee802154_tsch_slotframe_next(m, &pos, &sf))
        i++;
    if (i != ie->content[0] || pos != m->sf_wire_len)
        return ERR(COUNT);
    m->n_slotframes = ie->content[0];
    return 0;
}

/* 7.4.4.31: id [page, channels, PHY config, sequence length, sequence,
 * current hop]. */
static int parse_hopping(const struct ieee802154_ie *ie, struct ieee802154_channel_hopping *h)
{
    const uint8_t *c = ie->content;
    size_t n;

    if (ie->len < 1 || (ie->len > 1 && ie->len < 12))
        return ERR(LENGTH);
    h->id = c[0];
    if (ie->len == 1 || c[1] == 9 || c[1] == 10)
        return 0; /* SUN pages: extended bitmap not decoded, id only */
    h->full = true;
    h->page = c[1];
    h->n_channels = get_le16(c + 2);
    h->phy_config = get_le32(c + 4);
    h->seq_len = get_le16(c + 8);
    n = 12 + 2 * (size_t)h->seq_len;
    if (n != ie->len)
        return ERR(COUNT);
    h->seq = c + 10;
    h->current_hop = get_le16(c + n - 2);
    return 0;
}

static int parse_mlme(const uint8_t *buf, size_t len, struct ieee802154_mlme_ies *m)
{
    struct ieee802154_ie_iter it;
    struct ieee802154_ie ie;
    int rc;

    wren_ieee802154_ie_iter_init(&it, IEEE802154_IE_LIST_MLME, buf, len);
    while ((rc = wren_ieee802154_ie_next(&it, &ie)) > 0) {
        unsigned bit;

        if (ie.long_form)
            bit = ie.id == IEEE802154_SUBIE_CHANNEL_HOPPING ? IEEE802154_MLME_HOPPING : 0;
        else
            bit = ie.id == IEEE802154_SUBIE_TSCH_SYNC        ? IEEE802154_MLME_SYNC
                  : ie.id == IEEE802154_SUBIE_TSCH_TIMESLOT  ? IEEE802154_MLME_TIMESLOT
                  : ie.id == IEEE802154_SUBIE_TSCH_SLOTFRAME ? IEEE802154_MLME_SLOTFRAMES
                                                             : 0;
        if (!bit)
            continue; /* unknown sub-IE */
        if (m->present & bit)
            return ERR(DUPLICATE);
        if (bit == IEEE802154_MLME_SYNC) {
            /* 7.4.4.2: 5-byte ASN, join metric */
            if (ie.len != 6)
                return ERR(LENGTH);
            m->sync.asn = get_le32(ie.content) | (uint64_t)ie.content[4] << 32;
            m->sync.join_metric = ie.content[5];
            rc = 0;
        } else if (bit == IEEE802154_MLME_TIMESLOT) {
            rc = parse_timeslot(&ie, &m->timeslot);
        } else if (bit == IEEE802154_MLME_SLOTFRAMES) {
            rc = parse_slotframes(&ie, m);
        } else {
            rc = parse_hopping(&ie, &m->hopping);
        }
        if (rc < 0)
            return rc;
        m->present |= (uint8_t)bit;
    }
    return rc;
}

int wren_ieee802154_payload_ies_parse(const uint8_t *buf, size_t len,
                                      struct ieee802154_payload_ies *out)
{
    struct ieee802154_ie_iter it;
    struct ieee802154_ie ie;
    int rc;

    memset(out, 0, sizeof(*out));
    wren_ieee802154_ie_iter_init(&it, IEEE802154_IE_LIST_PAYLOAD, buf, len);
    while ((rc = wren_ieee802154_ie_next(&it, &ie)) > 0) {
        if (ie.id == IEEE802154_PIE_TERM)
            return ERR(TYPE); /* the list ends before its termination IE */
        if (ie.id == IEEE802154_PIE_MLME) {
            rc = parse_mlme(ie.content, ie.len, &out->mlme);
            if (rc < 0)
                return rc;
        } else if (ie.id == IEEE802154_PIE_IETF) {
            /* RFC 8137: a one-byte sub-id, then the sub-IE's content */
            if (ie.len < 1)
                return ERR(LENGTH);
            if (ie.content[0] != IEEE802154_IETF_6TOP)
                continue;
            if (out->has_sixtop)
                return ERR(DUPLICATE);
            out->has_sixtop = true;
            out->sixtop = ie.content + 1;
            out->sixtop_len = (uint16_t)(ie.len - 1);
        }
    }
    return rc;
}

static void mlme_codec(const struct ieee802154_mlme_ies *m, struct wr *w)
{
    size_t s;

    if (m->present & IEEE802154_MLME_SYNC) {
        s = open_ie(w);
        if (m->sync.asn >> 40)
            w->err = ERR(INVAL);
        w_le(w, (uint32_t)m->sync.asn, 4);
        w_le(w, (uint32_t)(m->sync.asn >> 32), 1);
        w_le(w, m->sync.join_metric, 1);
        close_ie(w, s, K_SHORT(IEEE802154_SUBIE_TSCH_SYNC));
    }
    if (m->present & IEEE802154_MLME_TIMESLOT) {
        const struct ieee802154_tsch_timeslot *t = &m->timeslot;

        s = open_ie(w);
        if (!t->full)
            w_le(w, t->id, 1);
        else {
            size_t wide = (t->max_tx | t->length) >> 16 ? 3 : 2;

            if ((t->max_tx | t->length) >> 24)
                w->err = ERR(INVAL);
            w_fields(w, t, ts_fields, sizeof(ts_fields));
            w_le(w, t->max_tx, wide);
            w_le(w, t->length, wide);
        }
        close_ie(w, s, K_SHORT(IEEE802154_SUBIE_TSCH_TIMESLOT));
    }
    if (m->present & IEEE802154_MLME_HOPPING) {
        const struct ieee802154_channel_hopping *h = &m->hopping;

        s = open_ie(w);
        if (!h->full)
            w_le(w, h->id, 1);
        else {
            if (h->page == 9 || h->page == 10)
                w->err = ERR(INVAL);
            w_fields(w, h, hop_fields, sizeof(hop_fields));
            w_bytes(w, h->seq, 2 * (size_t)h->seq_len);
            w_le(w, h->current_hop, 2);
        }
        close_ie(w, s, K_LONG(IEEE802154_SUBIE_CHANNEL_HOPPING));
    }
    if (m->present & IEEE802154_MLME_SLOTFRAMES) {
        s = open_ie(w);
        w_le(w, m->n_slotframes, 1);
        for (unsigned i = 0; i < m->n_slotframes; i++) {
            const struct ieee802154_tsch_slotframe *sf = &m->slotframes[i];

            w_fields(w, sf, sf_fields, sizeof(sf_fields));
            for (unsigned j = 0; j < sf->n_links; j++) {
                struct ieee802154_tsch_link l;

                wren_ieee802154_tsch_link_get(sf, j, &l);
                w_fields(w, &l, link_fields, sizeof(link_fields));
            }
        }
        close_ie(w, s, K_SHORT(IEEE802154_SUBIE_TSCH_SLOTFRAME));
    }
}

static void payload_ies_codec(const struct ieee802154_payload_ies *in, struct wr *w)
{
    size_t s;

    if (in->mlme.present) {
        s = open_ie(w);
        mlme_codec(&in->mlme, w);
        close_ie(w, s, K_PAYLOAD(IEEE802154_PIE_MLME));
    }
    if (in->has_sixtop) {
        s = open_ie(w);
        w_le(w, IEEE802154_IETF_6TOP, 1);
        w_bytes(w, in->sixtop, in->sixtop_len);
        close_ie(w, s, K_PAYLOAD(IEEE802154_PIE_IETF));
    }
}

/* Count (buf NULL), or count then write if it fits. */
static int run(bool payload, const void *in, uint8_t *buf, size_t len)
{
    struct wr w = {NULL, 0, 0};

    for (;;) {
        if (payload)
            payload_ies_codec(in, &w);
        else
            hdr_ies_codec(in, &w);
        if (w.err || !buf || w.b)
            return w.err ? w.err : (int)w.pos;
        if (w.pos > len)
            return ERR(NOBUFS);
        w.b = buf;
        w.pos = 0;
    }
}

int wren_ieee802154_hdr_ies_len(const struct ieee802154_hdr_ies *in)
{
    return run(false, in, NULL, 0);
}

int wren_ieee802154_hdr_ies_emit(const struct ieee802154_hdr_ies *in, uint8_t *buf, size_t len)
{
    return run(false, in, buf, len);
}

int wren_ieee802154_payload_ies_len(const struct ieee802154_payload_ies *in)
{
    return run(true, in, NULL, 0);
}

int wren_ieee802154_payload_ies_emit(const struct ieee802154_payload_ies *in, uint8_t *buf,
                                     size_t len)
{
    return run(true, in, buf, len);
}

int wren_ieee802154_tsch_slotframe_next(const struct ieee802154_mlme_ies *m, size_t *pos,
                                        struct ieee802154_tsch_slotframe *sf)
{
    size_t left = *pos < m->sf_wire_len ? m->sf_wire_len - *pos : 0;
    const uint8_t *c;

    if (left < 4)
        return 0;
    c = m->sf_wire + *pos;
    if ((left - 4) / 5 < c[3])
        return 0;
    sf->handle = c[0];
    sf->size = get_le16(c + 1);
    sf->n_links = c[3];
    sf->links = NULL;
    sf->wire = c + 4;
    *pos += 4 + 5 * (size_t)sf->n_links;
    return 1;
}

void wren_ieee802154_tsch_link_get(const struct ieee802154_tsch_slotframe *sf, unsigned i,
                                   struct ieee802154_tsch_link *out)
{
    const uint8_t *c;

    if (sf->links) {
        *out = sf->links[i];
        return;
    }
    c = sf->wire + 5 * (size_t)i;
    out->timeslot = get_le16(c);
    out->channel_offset = get_le16(c + 2);
    out->options = c[4];
}

uint16_t wren_ieee802154_hopping_channel(const struct ieee802154_channel_hopping *h, unsigned i)
{
    return get_le16(h->seq + 2 * (size_t)i);
}

/* 802.15.4-2015 Table 8-99: the 2450 MHz default template (10 ms). */
void wren_ieee802154_tsch_timeslot_default(struct ieee802154_tsch_timeslot *ts)
{
    static const struct ieee802154_tsch_timeslot def = {
        .full = true,
        .cca_offset = 1800,
        .cca = 128,
        .tx_offset = 2120,
        .rx_offset = 1020,
        .rx_ack_delay = 800,
        .tx_ack_delay = 1000,
        .rx_wait = 2200,
        .ack_wait = 400,
        .rx_tx = 192,
        .max_ack = 2400,
        .max_tx = 4256,
        .length = 10000,
    };

    *ts = def;
}

/* --- frames ------------------------------------------------------------ */

int wren_ieee802154_eb_frame(struct ieee802154_frame *f, uint16_t pan_id, const uint8_t src[8],
                             const struct ieee802154_payload_ies *ies, uint8_t *ie_buf,
                             size_t ie_len)
{
    struct ieee802154_hdr *h = &f->hdr;
    int n;

    memset(f, 0, sizeof(*f));
    n = wren_ieee802154_payload_ies_emit(ies, ie_buf, ie_len);
    if (n < 0)
        return n;
    /* RFC 8180 Appendix A: dst short 0xffff with the PAN ID, src
     * extended; Table 7-2 row "short/extended, compression 1" leaves out
     * the source PAN ID. */
    h->type = IEEE802154_TYPE_BEACON;
    h->version = IEEE802154_VERSION_2015;
    h->seq_suppressed = true;
    h->ie_present = true;
    h->panid_comp = true;
    h->dst_mode = IEEE802154_ADDR_SHORT;
    h->dst_pan = h->src_pan = pan_id;
    h->dst_addr[0] = h->dst_addr[1] = 0xff;
    h->src_mode = IEEE802154_ADDR_EXT;
    memcpy(h->src_addr, src, 8);
    f->payload_ie = ie_buf;
    f->payload_ie_len = (size_t)n;
    return 0;
}

void wren_ieee802154_eb_minimal_ies(struct ieee802154_payload_ies *ies,
                                    struct ieee802154_tsch_slotframe *sf,
                                    struct ieee802154_tsch_link *cell, uint64_t asn,
                                    uint8_t join_metric, uint16_t sf_size)
{
    struct ieee802154_mlme_ies *m = &ies->mlme;

    memset(ies, 0, sizeof(*ies));
    memset(sf, 0, sizeof(*sf));
    memset(cell, 0, sizeof(*cell));
    /* RFC 8180 4.1/6.1: slot 0, channel offset 0, TX|RX|shared|timekeeping;
     * template and hopping sequence by id 0 (the defaults). */
    cell->options = IEEE802154_LINK_TX | IEEE802154_LINK_RX | IEEE802154_LINK_SHARED |
                    IEEE802154_LINK_TIMEKEEPING;
    sf->size = sf_size;
    sf->n_links = 1;
    sf->links = cell;
    m->present = IEEE802154_MLME_SYNC | IEEE802154_MLME_TIMESLOT | IEEE802154_MLME_HOPPING |
                 IEEE802154_MLME_SLOTFRAMES;
    m->sync.asn = asn;
    m->sync.join_metric = join_metric;
    m->n_slotframes = 1;
    m->slotframes = sf;
}

int wren_ieee802154_enhack_frame(struct ieee802154_frame *f, const struct ieee802154_hdr *rx,
                                 const struct ieee802154_time_corr *tc, uint8_t *ie_buf,
                                 size_t ie_len)
{
    struct ieee802154_hdr *h = &f->hdr;
    struct ieee802154_hdr_ies hie = {true, *tc};
    int n;

    memset(f, 0, sizeof(*f));
    n = wren_ieee802154_hdr_ies_emit(&hie, ie_buf, ie_len);
    if (n < 0)
        return n;
    h->type = IEEE802154_TYPE_ACK;
    h->version = IEEE802154_VERSION_2015;
    h->ie_present = true;
    h->seq = rx->seq;
    h->seq_suppressed = rx->version == IEEE802154_VERSION_2015 && rx->seq_suppressed;
    /* To the acked frame's source; no source, no PAN IDs (Table 7-2: a
     * destination alone with compression 1, or no address with 0). */
    h->dst_mode = rx->src_mode;
    memcpy(h->dst_addr, rx->src_addr, 8);
    h->panid_comp = rx->src_mode != IEEE802154_ADDR_NONE;
    f->hdr_ie = ie_buf;
    f->hdr_ie_len = (size_t)n;
    return 0;
}

const char *wren_ieee802154_ie_strerror(int err)
{
    static const char names[] = "ok\0IE truncated\0IE type\0IE length\0IE count\0"
                                "IE duplicate\0no space\0IE value\0";
    unsigned e = err < 0 ? 0u - (unsigned)err : (unsigned)err;
    const char *s = names;

    if (e > IEEE802154_IE_ERR_INVAL)
        return "?";
    while (e--)
        s += strlen(s) + 1;
    return s;
}
