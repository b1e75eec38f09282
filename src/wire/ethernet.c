#include "wire/ethernet.h"

#include <string.h>

#include "core/byteorder.h"

int wren_eth_hdr_parse(const uint8_t *buf, size_t len, struct eth_hdr *h)
{
    if (len < ETH_HDR_LEN) {
        return -ETH_ERR_TRUNCATED;
    }
    memcpy(h->dst, buf, ETH_ADDR_LEN);
    memcpy(h->src, buf + ETH_ADDR_LEN, ETH_ADDR_LEN);
    h->type = get_be16(buf + 2 * ETH_ADDR_LEN);
    /* IEEE 802.3: values up to 1500 are lengths, 0x600 and up EtherTypes */
    if (h->type < 0x600) {
        return -ETH_ERR_LENGTH;
    }
    return 0;
}

void wren_eth_hdr_emit(const struct eth_hdr *h, uint8_t *buf)
{
    memcpy(buf, h->dst, ETH_ADDR_LEN);
    memcpy(buf + ETH_ADDR_LEN, h->src, ETH_ADDR_LEN);
    put_be16(buf + 2 * ETH_ADDR_LEN, h->type);
}

void wren_eth_mac_from_ipv6_mcast(uint8_t *mac, const uint8_t *group)
{
    mac[0] = 0x33;
    mac[1] = 0x33;
    memcpy(mac + 2, group + 12, 4);
}
