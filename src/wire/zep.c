#include "wire/zep.h"

#include <string.h>

#include "core/byteorder.h"

/* offsets in a version 2 header */
#define OFF_VERSION 2
#define OFF_TYPE 3
#define OFF_CHANNEL 4
#define OFF_DEVICE 5
#define OFF_MODE 7
#define OFF_LQI 8
#define OFF_TS 9
#define OFF_SEQ_DATA 17
#define OFF_RESV 21
#define OFF_LEN 31
#define OFF_SEQ_ACK 4

int wren_zep_parse(const uint8_t *buf, size_t len, struct zep_frame *f)
{
    memset(f, 0, sizeof(*f));
    /* the common part first: preamble, version, type */
    if (len < 4) {
        return -ZEP_ERR_TRUNCATED;
    }
    if (buf[0] != 'E' || buf[1] != 'X') {
        return -ZEP_ERR_PREAMBLE;
    }
    if (buf[OFF_VERSION] != 2) {
        return -ZEP_ERR_VERSION;
    }
    struct zep_hdr *h = &f->hdr;
    h->type = buf[OFF_TYPE];
    if (h->type == ZEP_TYPE_ACK) {
        if (len < ZEP_V2_ACK_LEN) {
            return -ZEP_ERR_TRUNCATED;
        }
        h->seq = get_be32(buf + OFF_SEQ_ACK);
        return 0;
    }
    if (h->type != ZEP_TYPE_DATA) {
        return -ZEP_ERR_TYPE;
    }
    if (len < ZEP_V2_HDR_LEN) {
        return -ZEP_ERR_TRUNCATED;
    }
    h->channel = buf[OFF_CHANNEL];
    h->device_id = get_be16(buf + OFF_DEVICE);
    h->crc_mode = buf[OFF_MODE];
    h->lqi = buf[OFF_LQI];
    h->ts_sec = get_be32(buf + OFF_TS);
    h->ts_frac = get_be32(buf + OFF_TS + 4);
    h->seq = get_be32(buf + OFF_SEQ_DATA);
    h->len = buf[OFF_LEN];
    if (h->len > ZEP_MAX_PSDU || h->len > len - ZEP_V2_HDR_LEN) {
        return -ZEP_ERR_LENGTH;
    }
    f->psdu = buf + ZEP_V2_HDR_LEN;
    return 0;
}

size_t wren_zep_hdr_len(const struct zep_hdr *h)
{
    return h->type == ZEP_TYPE_ACK ? ZEP_V2_ACK_LEN : ZEP_V2_HDR_LEN;
}

int wren_zep_emit(const struct zep_hdr *h, uint8_t *buf, size_t len)
{
    if (h->type != ZEP_TYPE_DATA && h->type != ZEP_TYPE_ACK) {
        return -ZEP_ERR_TYPE;
    }
    if (h->type == ZEP_TYPE_DATA && h->len > ZEP_MAX_PSDU) {
        return -ZEP_ERR_LENGTH;
    }
    size_t n = wren_zep_hdr_len(h);
    if (len < n) {
        return -ZEP_ERR_NOBUFS;
    }
    buf[0] = 'E';
    buf[1] = 'X';
    buf[OFF_VERSION] = 2;
    buf[OFF_TYPE] = h->type;
    if (h->type == ZEP_TYPE_ACK) {
        put_be32(buf + OFF_SEQ_ACK, h->seq);
        return (int)n;
    }
    buf[OFF_CHANNEL] = h->channel;
    put_be16(buf + OFF_DEVICE, h->device_id);
    buf[OFF_MODE] = h->crc_mode;
    buf[OFF_LQI] = h->lqi;
    put_be32(buf + OFF_TS, h->ts_sec);
    put_be32(buf + OFF_TS + 4, h->ts_frac);
    put_be32(buf + OFF_SEQ_DATA, h->seq);
    memset(buf + OFF_RESV, 0, OFF_LEN - OFF_RESV);
    buf[OFF_LEN] = h->len;
    return (int)n;
}
