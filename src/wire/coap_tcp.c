#include "wire/coap_tcp.h"

#include <string.h>

#include "core/byteorder.h"

/* RFC 8323 3.2: Len 13, 14, 15 take 1, 2, 4 extension bytes holding the
 * length minus these offsets. */
#define LEN_OFF13 13u
#define LEN_OFF14 269u
#define LEN_OFF15 65805u

static size_t ext_bytes(uint8_t nibble)
{
    return nibble < 13 ? 0 : nibble == 13 ? 1 : nibble == 14 ? 2 : 4;
}

/* The header's length (Len/TKL byte, extension, code) and the length it
 * gives for options + payload; 0 when @p len does not hold the header. */
static size_t hdr_read(const uint8_t *buf, size_t len, uint64_t *body)
{
    if (len < 1) {
        return 0;
    }
    uint8_t n = buf[0] >> 4;
    size_t e = ext_bytes(n);
    if (len < 2 + e) {
        return 0;
    }
    const uint8_t *x = buf + 1;
    *body = n < 13    ? n
            : n == 13 ? (uint64_t)LEN_OFF13 + x[0]
            : n == 14 ? (uint64_t)LEN_OFF14 + get_be16(x)
                      : (uint64_t)LEN_OFF15 + get_be32(x);
    return 2 + e;
}

int wren_coap_tcp_frame_len(const uint8_t *buf, size_t len, uint64_t *total)
{
    uint64_t body;
    size_t h = hdr_read(buf, len, &body);
    if (h == 0) {
        *total = len < 1 ? 1 : 2 + ext_bytes(buf[0] >> 4);
        return -COAP_ERR_TRUNCATED;
    }
    *total = h + (buf[0] & 0x0f) + body;
    return 0;
}

int wren_coap_tcp_parse(const uint8_t *buf, size_t len, struct coap_msg *m)
{
    memset(m, 0, sizeof(*m));
    m->type = COAP_CON;
    uint64_t body;
    size_t h = hdr_read(buf, len, &body);
    if (h == 0) {
        return -COAP_ERR_TRUNCATED;
    }
    uint8_t tkl = buf[0] & 0x0f;
    m->code = buf[h - 1];
    if (tkl > COAP_TOKEN_MAX) {
        return -COAP_ERR_TKL; /* RFC 8323 3.2 keeps RFC 7252's 0..8 */
    }
    if ((uint64_t)len != h + tkl + body) {
        return -COAP_TCP_ERR_LEN;
    }
    if (m->code == COAP_CODE_EMPTY && (tkl != 0 || body != 0)) {
        return -COAP_ERR_EMPTY;
    }
    m->tkl = tkl;
    memcpy(m->token, buf + h, tkl);
    const uint8_t *p = buf + h + tkl;
    size_t left = (size_t)body;
    struct coap_opt_iter it = { .p = p, .left = left, .num = 0 };
    struct coap_opt o;
    int rc;
    while ((rc = wren_coap_opt_next(&it, &o)) > 0) {
    }
    if (rc < 0) {
        return rc;
    }
    size_t n = left - it.left;
    m->opts = p;
    m->opts_len = n;
    if (n < left) {
        if (left - n < 2) {
            return -COAP_ERR_NO_PAYLOAD;
        }
        m->payload = p + n + 1;
        m->payload_len = left - n - 1;
    }
    return 0;
}

/* The header bytes for @p body bytes of options and payload. */
static size_t hdr_len(uint64_t body)
{
    return 2 + (body < LEN_OFF13 ? 0 : body < LEN_OFF14 ? 1 : body < LEN_OFF15 ? 2 : 4);
}

/* Write the header for @p body bytes, token length @p tkl and @p code. */
static void hdr_write(uint8_t *p, uint64_t body, uint8_t tkl, uint8_t code)
{
    if (body < LEN_OFF13) {
        p[0] = (uint8_t)((body << 4) | tkl);
    } else if (body < LEN_OFF14) {
        p[0] = (uint8_t)((13u << 4) | tkl);
        p[1] = (uint8_t)(body - LEN_OFF13);
    } else if (body < LEN_OFF15) {
        p[0] = (uint8_t)((14u << 4) | tkl);
        put_be16(p + 1, (uint16_t)(body - LEN_OFF14));
    } else {
        p[0] = (uint8_t)((15u << 4) | tkl);
        put_be32(p + 1, (uint32_t)(body - LEN_OFF15));
    }
    p[hdr_len(body) - 1] = code;
}

static uint64_t body_len(const struct coap_msg *m)
{
    return (uint64_t)m->opts_len + (m->payload_len ? 1 + m->payload_len : 0);
}

size_t wren_coap_tcp_len(const struct coap_msg *m)
{
    uint64_t body = body_len(m);
    return hdr_len(body) + m->tkl + (size_t)body;
}

int wren_coap_tcp_emit(const struct coap_msg *m, uint8_t *buf, size_t len)
{
    if (m->tkl > COAP_TOKEN_MAX) {
        return -COAP_ERR_TKL;
    }
    size_t need = wren_coap_tcp_len(m);
    if (len < need) {
        return -COAP_ERR_NOBUFS;
    }
    uint64_t body = body_len(m);
    hdr_write(buf, body, m->tkl, m->code);
    wren_coap_emit_body(m, buf + hdr_len(body));
    return (int)need;
}

int wren_coap_tcp_from_udp(uint8_t *buf, size_t off, size_t len)
{
    if (len < COAP_HDR_LEN) {
        return -COAP_ERR_TRUNCATED;
    }
    uint8_t *u = buf + off;
    uint8_t tkl = u[0] & 0x0f;
    uint8_t code = u[1];
    if (tkl > COAP_TOKEN_MAX || len - COAP_HDR_LEN < tkl) {
        return -COAP_ERR_TRUNCATED;
    }
    uint64_t body = len - COAP_HDR_LEN - tkl;
    size_t h = hdr_len(body);
    if (off + COAP_HDR_LEN < h) {
        return -COAP_ERR_NOBUFS;
    }
    /* the token moves to right after the new header; it ends where the
     * UDP header's did plus the token, so the options stay in place */
    size_t start = off + COAP_HDR_LEN - h;
    memmove(buf + start + h, u + COAP_HDR_LEN, tkl);
    hdr_write(buf + start, body, tkl, code);
    return (int)start;
}

/* RFC 8323 5.3-5.6: the options each signal defines, with the length
 * ranges of their formats. */
struct sig_opt {
    uint8_t code;
    uint8_t num;
    uint8_t min;
    uint8_t max;
};

static const struct sig_opt sig_opts[] = {
    { COAP_CODE_CSM, COAP_SIG_CSM_MAX_MESSAGE_SIZE, 0, 4 },
    { COAP_CODE_CSM, COAP_SIG_CSM_BLOCK_WISE, 0, 0 },
    { COAP_CODE_PING, COAP_SIG_PING_CUSTODY, 0, 0 },
    { COAP_CODE_PONG, COAP_SIG_PING_CUSTODY, 0, 0 },
    { COAP_CODE_RELEASE, COAP_SIG_RELEASE_ALT_ADDRESS, 1, 255 },
    { COAP_CODE_RELEASE, COAP_SIG_RELEASE_HOLD_OFF, 0, 3 },
    { COAP_CODE_ABORT, COAP_SIG_ABORT_BAD_CSM_OPTION, 0, 2 },
};

static bool sig_known(uint8_t code, uint16_t num, size_t len)
{
    for (size_t i = 0; i < sizeof(sig_opts) / sizeof(sig_opts[0]); i++) {
        const struct sig_opt *d = &sig_opts[i];
        if (d->code == code && d->num == num) {
            return len >= d->min && len <= d->max;
        }
    }
    return false;
}

int wren_coap_tcp_signal_parse(const struct coap_msg *m, struct coap_tcp_signal *s)
{
    memset(s, 0, sizeof(*s));
    if (COAP_CODE_CLASS(m->code) != 7) {
        return -COAP_ERR_INVAL;
    }
    struct coap_opt_iter it;
    struct coap_opt o;
    int rc;
    wren_coap_opt_iter_init(&it, m);
    while ((rc = wren_coap_opt_next(&it, &o)) > 0) {
        if (!sig_known(m->code, o.num, o.len)) {
            /* RFC 8323 5.2: an unknown critical one aborts; elective ones
             * (and bad lengths of them, RFC 7252 5.4.3) are ignored */
            if (COAP_OPT_CRITICAL(o.num)) {
                s->bad_option = o.num;
                return -COAP_TCP_ERR_SIG_CRITICAL;
            }
            continue;
        }
        uint32_t v = 0;
        (void)wren_coap_opt_uint(&o, &v); /* lengths checked: at most 4 */
        switch (m->code) {
        case COAP_CODE_CSM:
            if (o.num == COAP_SIG_CSM_MAX_MESSAGE_SIZE) {
                s->max_message_size = v;
                s->has_mms = 1;
            } else {
                s->block_wise = 1;
            }
            break;
        case COAP_CODE_PING:
        case COAP_CODE_PONG:
            s->custody = 1;
            break;
        case COAP_CODE_RELEASE:
            if (o.num == COAP_SIG_RELEASE_HOLD_OFF) {
                s->hold_off = v;
                s->has_hold_off = 1;
            } else if (s->alt_addresses < UINT8_MAX) {
                s->alt_addresses++;
            }
            break;
        default: /* Abort */
            s->bad_csm_option = (uint16_t)v;
            s->has_bad_csm_option = 1;
            break;
        }
    }
    return rc;
}
