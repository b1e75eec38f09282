#include "sim/pcap.h"

#include <errno.h>
#include <string.h>

#include "core/byteorder.h"

/* Classic pcap, written little-endian whatever the host (magic a1b2c3d4). */
int wren_pcap_open(struct wren_pcap *p, const char *path, uint32_t linktype)
{
    if (linktype != WREN_PCAP_LINKTYPE_IEEE802154_FCS &&
        linktype != WREN_PCAP_LINKTYPE_IEEE802154_TAP && linktype != WREN_PCAP_LINKTYPE_LORATAP &&
        linktype != WREN_PCAP_LINKTYPE_ETHERNET) {
        p->f = NULL;
        return -EINVAL;
    }
    p->frames = 0;
    p->linktype = linktype;
    p->f = fopen(path, "wb");
    if (p->f == NULL) {
        return -errno;
    }
    uint8_t h[24];
    put_le32(h, 0xa1b2c3d4u);
    put_le16(h + 4, 2);
    put_le16(h + 6, 4);
    put_le32(h + 8, 0);      /* thiszone */
    put_le32(h + 12, 0);     /* sigfigs */
    put_le32(h + 16, 65535); /* snaplen */
    put_le32(h + 20, linktype);
    if (fwrite(h, sizeof(h), 1, p->f) != 1) {
        fclose(p->f);
        p->f = NULL;
        return -EIO;
    }
    return 0;
}

/* the IEEE 802.15.4 TAP header (see pcap.h); @p channel 0: none */
#define TAP_TLV_FCS_TYPE 0
#define TAP_TLV_CHANNEL 3
#define TAP_FCS_16 1

static size_t tap_header(uint8_t *h, uint16_t channel)
{
    size_t n = 4;
    memset(h, 0, 20);
    put_le16(h + n, TAP_TLV_FCS_TYPE);
    put_le16(h + n + 2, 1);
    h[n + 4] = TAP_FCS_16;
    n += 8; /* TLVs are padded to 4 octets */
    if (channel) {
        put_le16(h + n, TAP_TLV_CHANNEL);
        put_le16(h + n + 2, 3);
        put_le16(h + n + 4, channel);
        h[n + 6] = 0; /* channel page 0: 2.4 GHz O-QPSK */
        n += 8;
    }
    h[0] = 0; /* version */
    put_le16(h + 2, (uint16_t)n);
    return n;
}

void wren_pcap_write_154(struct wren_pcap *p, uint64_t ts_us, const uint8_t *psdu, size_t len,
                         uint16_t channel)
{
    if (p->f == NULL) {
        return;
    }
    uint8_t tap[20];
    size_t tlen = p->linktype == WREN_PCAP_LINKTYPE_IEEE802154_TAP ? tap_header(tap, channel) : 0;
    uint8_t h[16];
    put_le32(h, (uint32_t)(ts_us / 1000000u));
    put_le32(h + 4, (uint32_t)(ts_us % 1000000u));
    put_le32(h + 8, (uint32_t)(tlen + len));
    put_le32(h + 12, (uint32_t)(tlen + len));
    fwrite(h, sizeof(h), 1, p->f);
    if (tlen) {
        fwrite(tap, tlen, 1, p->f);
    }
    fwrite(psdu, len, 1, p->f);
    p->frames++;
}

void wren_pcap_write(struct wren_pcap *p, uint64_t ts_us, const uint8_t *data, size_t len)
{
    wren_pcap_write_154(p, ts_us, data, len, 0);
}

void wren_pcap_close(struct wren_pcap *p)
{
    if (p->f) {
        fclose(p->f);
        p->f = NULL;
    }
}
