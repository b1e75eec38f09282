#include "wire/inet_csum.h"

void inet_csum_init(struct inet_csum *c)
{
    c->sum = 0;
    c->odd = false;
}

void inet_csum_update(struct inet_csum *c, const uint8_t *buf, size_t len)
{
    uint32_t sum = c->sum;
    size_t i = 0;
    if (c->odd && len) {
        sum += buf[0]; /* low half of the word begun by the previous piece */
        i = 1;
        c->odd = false;
    }
    for (; i + 1 < len; i += 2) {
        sum += (uint32_t)(buf[i] << 8 | buf[i + 1]);
        /* fold now and then: no overflow for pieces of any length */
        if (sum & 0x80000000u) {
            sum = (sum & 0xffff) + (sum >> 16);
        }
    }
    if (i < len) {
        sum += (uint32_t)buf[i] << 8;
        c->odd = true;
    }
    c->sum = sum;
}

void inet_csum_pseudo(struct inet_csum *c, const uint8_t *src, const uint8_t *dst,
                      uint32_t upper_len, uint8_t next)
{
    uint8_t tail[8] = { (uint8_t)(upper_len >> 24), (uint8_t)(upper_len >> 16),
                        (uint8_t)(upper_len >> 8), (uint8_t)upper_len, 0, 0, 0, next };
    inet_csum_update(c, src, 16);
    inet_csum_update(c, dst, 16);
    inet_csum_update(c, tail, sizeof(tail));
}

uint16_t inet_csum_final(const struct inet_csum *c)
{
    uint32_t sum = c->sum;
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return (uint16_t)~sum;
}
