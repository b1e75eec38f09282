#include "wire/udp.h"

#include "core/byteorder.h"

/* RFC 768: source port, destination port, length, checksum */
int wren_udp_hdr_parse(const uint8_t *buf, size_t len, struct udp_hdr *h)
{
    if (len < UDP_HDR_LEN) {
        return -UDP_ERR_TRUNCATED;
    }
    h->src_port = get_be16(buf);
    h->dst_port = get_be16(buf + 2);
    h->len = get_be16(buf + 4);
    h->csum = get_be16(buf + 6);
    if (h->len < UDP_HDR_LEN || h->len > len) {
        return -UDP_ERR_LENGTH;
    }
    return 0;
}

void wren_udp_hdr_emit(const struct udp_hdr *h, uint8_t *buf)
{
    put_be16(buf, h->src_port);
    put_be16(buf + 2, h->dst_port);
    put_be16(buf + 4, h->len);
    put_be16(buf + 6, h->csum);
}
