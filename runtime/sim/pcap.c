#include "sim/pcap.h"

#include <errno.h>

#include "core/byteorder.h"

/* Classic pcap, written little-endian whatever the host (magic a1b2c3d4). */
int wren_pcap_open(struct wren_pcap *p, const char *path, uint32_t linktype)
{
    p->frames = 0;
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

void wren_pcap_write(struct wren_pcap *p, uint64_t ts_us, const uint8_t *data, size_t len)
{
    if (p->f == NULL) {
        return;
    }
    uint8_t h[16];
    put_le32(h, (uint32_t)(ts_us / 1000000u));
    put_le32(h + 4, (uint32_t)(ts_us % 1000000u));
    put_le32(h + 8, (uint32_t)len);
    put_le32(h + 12, (uint32_t)len);
    fwrite(h, sizeof(h), 1, p->f);
    fwrite(data, len, 1, p->f);
    p->frames++;
}

void wren_pcap_close(struct wren_pcap *p)
{
    if (p->f) {
        fclose(p->f);
        p->f = NULL;
    }
}
