#include "wire/loratap.h"

#include "core/byteorder.h"

int wren_loratap_parse(const uint8_t *buf, size_t n, struct loratap_hdr *h)
{
    if (n < LORATAP_V0_LEN) {
        return -LORATAP_ERR_TRUNCATED;
    }
    h->version = buf[0];
    h->len = get_be16(buf + 2);
    if (h->version > 1) {
        return -LORATAP_ERR_VERSION;
    }
    if (h->len < LORATAP_V0_LEN) {
        return -LORATAP_ERR_LENGTH;
    }
    if (h->len > n) {
        return -LORATAP_ERR_TRUNCATED;
    }
    h->freq_hz = get_be32(buf + 4);
    h->bw_steps = buf[8];
    h->sf = buf[9];
    h->packet_rssi = buf[10];
    h->max_rssi = buf[11];
    h->current_rssi = buf[12];
    h->snr_qdb = (int8_t)buf[13];
    h->sync_word = buf[14];
    if (h->bw_steps != 1 && h->bw_steps != 2 && h->bw_steps != 4) {
        return -LORATAP_ERR_BANDWIDTH;
    }
    if (h->sf < 6 || h->sf > 12) {
        return -LORATAP_ERR_SF;
    }
    return h->len;
}

int wren_loratap_emit(const struct loratap_hdr *h, uint8_t *buf, size_t n)
{
    if (n < LORATAP_V0_LEN) {
        return -LORATAP_ERR_NOBUFS;
    }
    buf[0] = 0;
    buf[1] = 0;
    put_be16(buf + 2, LORATAP_V0_LEN);
    put_be32(buf + 4, h->freq_hz);
    buf[8] = h->bw_steps;
    buf[9] = h->sf;
    buf[10] = h->packet_rssi;
    buf[11] = h->max_rssi;
    buf[12] = h->current_rssi;
    buf[13] = (uint8_t)h->snr_qdb;
    buf[14] = h->sync_word;
    return LORATAP_V0_LEN;
}

uint8_t wren_loratap_rssi(int dbm)
{
    int v = dbm + 139;
    return (uint8_t)(v < 0 ? 0 : v > 254 ? 254 : v);
}
