/**
 * @file ieee802154.c
 * @brief IEEE 802.15.4-2015 MAC frame parse/emit (see ieee802154.h).
 *
 * One codec walks the MHR for both directions: it reads (parse), writes
 * (emit) or only counts (length). Reads go through a bounded cursor with a
 * sticky error, so nothing past the end is ever touched and every field is
 * checked before it is read. Emit counts first and writes only if the frame
 * fits, so a too-small buffer is left untouched.
 */
#include "wire/ieee802154.h"

#include <string.h>

#include "core/byteorder.h"

/* 802.15.4-2015 7.4.2: HT1 (id 0x7e) and HT2 (id 0x7f) header termination
 * IEs; 7.4.3: payload termination IE (group 0xf). Descriptors as on air. */
#define IE_HT1 0x3f00u
#define IE_HT2 0x3f80u
#define IE_PT 0xf800u

#define ERR(e) (-IEEE802154_ERR_##e)

static bool is_v2(const struct ieee802154_hdr *h)
{
    return CONFIG_WREN_IEEE802154_2015 && h->version >= IEEE802154_VERSION_2015;
}

static bool both_ext(const struct ieee802154_hdr *h)
{
    return h->dst_mode == IEEE802154_ADDR_EXT && h->src_mode == IEEE802154_ADDR_EXT;
}

/* Which PAN IDs are present: bit 0 destination, bit 1 source.
 * 802.15.4-2015 7.2.1.5 (versions 0/1) and Table 7-2 (version 2). */
static unsigned pans(const struct ieee802154_hdr *h)
{
    bool d = h->dst_mode != IEEE802154_ADDR_NONE;
    bool s = h->src_mode != IEEE802154_ADDR_NONE;
    unsigned nc = !h->panid_comp;

    if (!is_v2(h))
        return d | (s & nc) << 1;
    if (d && s)
        return both_ext(h) ? nc : 1 | nc << 1;
    return d ? nc : s ? nc << 1 : !nc;
}

bool wren_ieee802154_has_dst_pan(const struct ieee802154_hdr *h)
{
    return pans(h) & 1;
}

bool wren_ieee802154_has_src_pan(const struct ieee802154_hdr *h)
{
    return pans(h) >> 1;
}

/* Validity of a header repr; on parse it sees the decoded FCF only. */
static int hdr_check(const struct ieee802154_hdr *h)
{
    if (h->type > IEEE802154_TYPE_CMD)
        return ERR(FRAME_TYPE);
    if (h->version > (CONFIG_WREN_IEEE802154_2015 ? IEEE802154_VERSION_2015
                                                  : IEEE802154_VERSION_2006))
        return ERR(VERSION);
    if ((h->dst_mode | h->src_mode) > IEEE802154_ADDR_EXT || h->dst_mode == 1 || h->src_mode == 1)
        return ERR(ADDR_MODE);
    /* 7.2.1.5: in versions 0/1 compression needs both addresses. */
    if (!is_v2(h) && h->panid_comp &&
        (h->dst_mode == IEEE802154_ADDR_NONE || h->src_mode == IEEE802154_ADDR_NONE))
        return ERR(PANID);
    /* 2003 security has no auxiliary header: not supported. */
    if (h->security && (!CONFIG_WREN_IEEE802154_SECURITY || h->version == IEEE802154_VERSION_2003 ||
                        h->sec_level > 7 || h->key_id_mode > 3))
        return ERR(SECURITY);
    return 0;
}

/* 9.4.4: key identifier is a key source of 0/4/8 bytes plus a key index. */
static size_t key_src_len(uint8_t key_id_mode)
{
    return key_id_mode ? (size_t)(key_id_mode - 1) * 4 : 0;
}

/* Cursor over the wire: reads (rd), writes, or only counts (w == NULL).
 * A field that does not fit in len sets err and is skipped. */
struct cur {
    uint8_t *w;
    size_t pos, len;
    bool rd, err;
};

static uint8_t *cur_take(struct cur *c, size_t n)
{
    uint8_t *p = c->w ? c->w + c->pos : NULL;

    if (c->len - c->pos < n) {
        c->err = true;
        return NULL;
    }
    c->pos += n;
    return p;
}

/* n bytes between wire and v, reversed if rev. Reads need v; a write
 * from v == NULL writes zeros. */
static void cur_bytes(struct cur *c, uint8_t *v, size_t n, bool rev)
{
    uint8_t *p = cur_take(c, n);

    for (size_t i = 0; p && i < n; i++) {
        size_t j = rev ? n - 1 - i : i;
        if (c->rd)
            v[j] = p[i];
        else
            p[i] = v ? v[j] : 0;
    }
}

/* An n-byte little-endian integer (n <= 4): returns the value read, or v. */
static uint32_t cur_le(struct cur *c, uint32_t v, size_t n)
{
    uint8_t *p = cur_take(c, n);

    for (size_t i = 0; p && i < n; i++) {
        if (c->rd)
            v |= (uint32_t)p[i] << (8 * i);
        else
            p[i] = (uint8_t)(v >> (8 * i));
    }
    return v;
}

/* 7.2.2-7.2.6: sequence number, PAN IDs and addresses, as the FCF says. */
static void addr_codec(struct ieee802154_hdr *h, struct cur *c)
{
    bool rd = c->rd;
    unsigned p = pans(h);
    uint32_t t;

    if (!(is_v2(h) && h->seq_suppressed)) {
        t = cur_le(c, h->seq, 1);
        if (rd)
            h->seq = (uint8_t)t;
    }
    if (p & 1) {
        t = cur_le(c, h->dst_pan, 2);
        if (rd)
            h->dst_pan = (uint16_t)t;
    }
    cur_bytes(c, h->dst_addr, wren_ieee802154_addr_len(h->dst_mode), true);
    if (p & 2) {
        t = cur_le(c, h->src_pan, 2);
        if (rd)
            h->src_pan = (uint16_t)t;
    }
    cur_bytes(c, h->src_addr, wren_ieee802154_addr_len(h->src_mode), true);
    if (rd) { /* an absent PAN ID is the other one (intra-PAN) */
        if (!(p & 2))
            h->src_pan = h->dst_pan;
        if (!(p & 1))
            h->dst_pan = h->src_pan;
    }
}

/* 9.4: the auxiliary security header. */
static void auxsec_codec(struct ieee802154_hdr *h, struct cur *c)
{
    bool rd = c->rd, v2 = is_v2(h);
    uint32_t t;

    /* 9.4.2: security control; bits 5-6 are reserved before v2. */
    t = cur_le(c,
               (uint32_t)(h->sec_level | h->key_id_mode << 3 | (v2 && h->fc_suppressed) << 5 |
                          (v2 && h->asn_in_nonce) << 6),
               1);
    if (rd) {
        h->sec_level = t & 7;
        h->key_id_mode = t >> 3 & 3;
        if (v2) {
            h->fc_suppressed = t >> 5 & 1;
            h->asn_in_nonce = t >> 6 & 1;
        }
    }
    if (!(v2 && h->fc_suppressed)) {
        t = cur_le(c, h->frame_counter, 4);
        if (rd)
            h->frame_counter = t;
    }
    if (h->key_id_mode) {
        cur_bytes(c, h->key_source, key_src_len(h->key_id_mode), false);
        t = cur_le(c, h->key_index, 1);
        if (rd)
            h->key_index = (uint8_t)t;
    }
}

/*
 * 802.15.4-2015 7.2: the MHR; 9.4: the auxiliary security header. Reading,
 * h must be zeroed. Writing or counting, h is only read (emit passes its
 * const repr through here). Returns 0, a repr error, or on reads
 * -IEEE802154_ERR_TRUNCATED.
 */
static int mhr_codec(struct ieee802154_hdr *h, struct cur *c)
{
    bool v2 = is_v2(h); /* writing; when reading known after the FCF */
    uint32_t t;
    int rc;

    /* 7.2.1: frame control; bits 8-9 are reserved before version 2. */
    t = cur_le(c,
               (uint32_t)(h->type | h->security << 3 | h->frame_pending << 4 | h->ack_req << 5 |
                          h->panid_comp << 6 | (v2 && h->seq_suppressed) << 8 |
                          (v2 && h->ie_present) << 9 | h->dst_mode << 10 | h->version << 12 |
                          h->src_mode << 14),
               2);
    if (c->err)
        return ERR(TRUNCATED);
    if (c->rd) {
        h->type = t & 7;
        h->security = t >> 3 & 1;
        h->frame_pending = t >> 4 & 1;
        h->ack_req = t >> 5 & 1;
        h->panid_comp = t >> 6 & 1;
        h->dst_mode = t >> 10 & 3;
        h->version = t >> 12 & 3;
        h->src_mode = (uint8_t)(t >> 14);
        if (is_v2(h)) {
            h->seq_suppressed = t >> 8 & 1;
            h->ie_present = t >> 9 & 1;
        }
    }
    rc = hdr_check(h);
    if (rc)
        return rc;
    addr_codec(h, c);
    if (CONFIG_WREN_IEEE802154_SECURITY && h->security)
        auxsec_codec(h, c);
    return c->err ? ERR(TRUNCATED) : 0;
}

static bool secured_ies(const struct ieee802154_frame *f)
{
    return f->hdr.security && f->payload_ie_len;
}

static void cur_put(struct cur *c, const uint8_t *src, size_t n)
{
    cur_bytes(c, (uint8_t *)(uintptr_t)src, n, false); /* write: not modified */
}

/* 7.4.1: header IEs, then HT1 + payload IEs (+ PT if more follows) or HT2
 * if a payload follows; then the MAC payload and the MIC. */
static int frame_codec(const struct ieee802154_frame *f, struct cur *c)
{
    const struct ieee802154_hdr *h = &f->hdr;
    bool ie = is_v2(h) && h->ie_present;
    bool cmd = h->type == IEEE802154_TYPE_CMD && !secured_ies(f);
    bool tail = cmd || f->payload_len;
    int rc = mhr_codec((struct ieee802154_hdr *)(uintptr_t)h, c);

    /* Checking after the MHR is fine: the write pass only runs after a
     * successful count pass. */
    if (rc < 0)
        return rc;
    if ((f->hdr_ie_len | f->payload_ie_len | f->payload_len) >> 16)
        return ERR(NOBUFS);
    if ((!ie && (f->hdr_ie_len || f->payload_ie_len)) || (secured_ies(f) && f->payload_len))
        return ERR(IE);
    cur_put(c, f->hdr_ie, f->hdr_ie_len);
    if (f->payload_ie_len) {
        cur_le(c, IE_HT1, 2);
        cur_put(c, f->payload_ie, f->payload_ie_len);
        if (tail)
            cur_le(c, IE_PT, 2);
    } else if (ie && tail) {
        cur_le(c, IE_HT2, 2);
    }
    if (cmd)
        cur_le(c, f->cmd_id, 1);
    cur_put(c, f->payload, f->payload_len);
    cur_put(c, f->mic, wren_ieee802154_mic_len(h));
    return 0;
}

/* Count, then write only if it fits. The codec comes as a pointer so that
 * an image emitting only headers carries no frame codec (IEs, payload). */
static int build(int (*codec)(void *, struct cur *), const void *x, uint8_t *buf, size_t len)
{
    struct cur c = {NULL, 0, SIZE_MAX, false, false};

    for (;;) {
        int rc = codec((void *)(uintptr_t)x, &c);
        if (rc < 0 || !buf || c.w)
            return rc < 0 ? rc : (int)c.pos;
        if (c.pos > len)
            return ERR(NOBUFS);
        c.w = buf;
        c.pos = 0;
        c.len = len;
    }
}

static int hdr_codec(void *h, struct cur *c)
{
    return mhr_codec(h, c);
}

static int whole_codec(void *f, struct cur *c)
{
    return frame_codec(f, c);
}

int wren_ieee802154_hdr_len(const struct ieee802154_hdr *h)
{
    return build(hdr_codec, h, NULL, 0);
}

int wren_ieee802154_hdr_emit(const struct ieee802154_hdr *h, uint8_t *buf, size_t len)
{
    return build(hdr_codec, h, buf, len);
}

int wren_ieee802154_len(const struct ieee802154_frame *f)
{
    return build(whole_codec, f, NULL, 0);
}

int wren_ieee802154_emit(const struct ieee802154_frame *f, uint8_t *buf, size_t len)
{
    return build(whole_codec, f, buf, len);
}

/* Walk one IE list in [*pos, end). Header IEs (payload == 0): type bit 0,
 * length bits 0-6, id bits 7-14, terminated by HT1/HT2. Payload IEs: type
 * bit 1, length bits 0-10, group bits 11-14, terminated by group 0xf.
 * Returns the terminator's id/group or 0 if the list runs to end, setting
 * *list_end to the end of the list and *pos past the terminator. */
static int ie_walk(const uint8_t *b, size_t *pos, size_t end, unsigned payload, size_t *list_end)
{
    size_t p = *pos;

    while (p < end) {
        uint16_t d;
        size_t n;
        unsigned id;

        if (end - p < 2)
            return ERR(IE);
        d = get_le16(b + p);
        if ((unsigned)(d >> 15) != payload)
            return ERR(IE);
        n = d & (payload ? 0x7ffu : 0x7fu);
        id = payload ? (d >> 11) & 0xfu : (d >> 7) & 0xffu;
        /* Only 0x7e/0x7f end a header list: ids 0x80..0xff are reserved
         * IEs (Table 7-7), skipped like any unknown IE. */
        if (payload ? id == 0xfu : (id == 0x7eu || id == 0x7fu)) {
            if (n)
                return ERR(IE);
            *list_end = p;
            *pos = p + 2;
            return (int)id;
        }
        if (end - p - 2 < n)
            return ERR(IE);
        p += 2 + n;
    }
    *list_end = *pos = p;
    return 0;
}

int wren_ieee802154_parse(const uint8_t *b, size_t len, struct ieee802154_frame *f)
{
    struct ieee802154_hdr *h = &f->hdr;
    struct cur c = {(uint8_t *)(uintptr_t)b, 0, len, true, false}; /* read only */
    size_t pos, end, n, list_end;
    bool opaque = false;
    int rc, term = 0;

    memset(f, 0, sizeof(*f));
    rc = mhr_codec(h, &c);
    if (rc)
        return rc;
    pos = c.pos;
    n = wren_ieee802154_mic_len(h);
    if (len - pos < n)
        return ERR(TRUNCATED);
    end = len - n;
    f->mic = b + end;
    /* 7.4.1: the IE lists. Pointers are never NULL, even if empty. */
    f->hdr_ie = b + pos;
    if (is_v2(h) && h->ie_present) {
        term = ie_walk(b, &pos, end, 0, &list_end);
        if (term < 0)
            return term;
        f->hdr_ie_len = list_end - (size_t)(f->hdr_ie - b);
    }
    f->payload_ie = b + pos;
    if (term == 0x7e) {
        /* HT1: payload IEs follow; encrypted in a secured frame, so opaque. */
        if (h->security) {
            opaque = true;
            pos = list_end = end;
        } else {
            rc = ie_walk(b, &pos, end, 1, &list_end);
            if (rc < 0)
                return rc;
        }
        f->payload_ie_len = list_end - (size_t)(f->payload_ie - b);
    }
    if (h->type == IEEE802154_TYPE_CMD && !opaque) {
        if (pos >= end)
            return ERR(TRUNCATED);
        f->cmd_id = b[pos++];
    }
    f->payload = b + pos;
    f->payload_len = end - pos;
    return 0;
}

/* 7.2.10: CRC-16/KERMIT, bitwise to save ROM. */
uint16_t wren_ieee802154_fcs(const uint8_t *buf, size_t len)
{
    uint16_t crc = 0;

    /* A byte at a time without a table: x^16 + x^12 + x^5 + 1 reflected
     * (0x8408) folds the byte t = low byte ^ input, t ^= t << 4 (8 bits),
     * into crc >> 8 as t << 8 ^ t << 3 ^ t >> 4; the same CRC as shifting
     * bit by bit, eight times fewer steps (the simulator computes one per
     * frame sent). */
    while (len--) {
        uint8_t t = (uint8_t)(crc ^ *buf++);
        t ^= (uint8_t)(t << 4);
        crc = (uint16_t)((crc >> 8) ^ ((uint16_t)t << 8) ^ ((uint16_t)t << 3) ^ (t >> 4));
    }
    return crc;
}

/* A reflected CRC without final XOR leaves 0 over data + its LE CRC. */
int wren_ieee802154_fcs_check(const uint8_t *psdu, size_t len)
{
    if (len < IEEE802154_FCS_LEN)
        return ERR(TRUNCATED);
    return wren_ieee802154_fcs(psdu, len) ? ERR(FCS) : 0;
}

const char *wren_ieee802154_strerror(int err)
{
    /* One string, names separated by NULs: no pointer table in ROM. */
    static const char names[] = "ok\0truncated\0frame type\0version\0address mode\0"
                                "PAN ID\0IE\0security\0FCS\0no space\0";
    unsigned e = err < 0 ? 0u - (unsigned)err : (unsigned)err;
    const char *s = names;

    if (e > IEEE802154_ERR_NOBUFS)
        return "?";
    while (e--)
        s += strlen(s) + 1;
    return s;
}
