/* LoRaWAN 1.0.x data frames (LoRaWAN Specification v1.0.3 section 4):
 * parse, emit, MIC (4.4), FRMPayload encryption (4.3.3). Pure code. */
#include "wire/lorawan.h"

#include <string.h>

#include "core/byteorder.h"
#include "crypto/ccm.h"
#include "crypto/cmac.h"

#define FHDR_MIN 7 /* DevAddr 4, FCtrl 1, FCnt 2 */

int wren_lorawan_parse(const uint8_t *buf, size_t len, struct wren_lorawan_frame *f)
{
    memset(f, 0, sizeof(*f));
    if (len < 1) {
        return -LORAWAN_ERR_TRUNCATED;
    }
    f->mtype = buf[0] >> 5;
    f->major = buf[0] & 3;
    if (f->mtype < LORAWAN_UNCONF_UP || f->mtype > LORAWAN_CONF_DOWN) {
        return -LORAWAN_ERR_TYPE;
    }
    if (f->major != 0) {
        return -LORAWAN_ERR_MAJOR;
    }
    if (len < LORAWAN_MIN_LEN) {
        return -LORAWAN_ERR_TRUNCATED;
    }
    f->devaddr = get_le32(buf + 1);
    f->fctrl = buf[5] & 0xf0;
    f->fopts_len = buf[5] & 0x0f;
    f->fcnt = get_le16(buf + 6);
    size_t hdr = 1 + FHDR_MIN + f->fopts_len;
    if (len < hdr + LORAWAN_MIC_LEN) {
        return -LORAWAN_ERR_TRUNCATED;
    }
    f->fopts = f->fopts_len ? buf + 1 + FHDR_MIN : NULL;
    size_t rest = len - hdr - LORAWAN_MIC_LEN;
    if (rest) {
        f->has_port = true;
        f->fport = buf[hdr];
        f->payload = buf + hdr + 1;
        f->payload_len = rest - 1;
        if (f->fport == 0 && f->fopts_len) {
            return -LORAWAN_ERR_FOPTS_PORT0;
        }
    }
    f->mic = get_le32(buf + len - LORAWAN_MIC_LEN);
    return 0;
}

size_t wren_lorawan_len(const struct wren_lorawan_frame *f)
{
    return 1 + FHDR_MIN + f->fopts_len + (f->has_port ? 1 + f->payload_len : 0) +
           LORAWAN_MIC_LEN;
}

int wren_lorawan_emit(const struct wren_lorawan_frame *f, uint8_t *buf, size_t len)
{
    if (f->mtype < LORAWAN_UNCONF_UP || f->mtype > LORAWAN_CONF_DOWN || f->major > 3 ||
        f->fopts_len > LORAWAN_MAX_FOPTS || (f->fctrl & 0x0f) ||
        (f->has_port && f->fport == 0 && f->fopts_len) || (!f->has_port && f->payload_len)) {
        return -LORAWAN_ERR_INVAL;
    }
    size_t n = wren_lorawan_len(f);
    if (len < n) {
        return -LORAWAN_ERR_NOBUFS;
    }
    uint8_t *p = buf;
    *p++ = (uint8_t)(f->mtype << 5 | f->major);
    put_le32(p, f->devaddr);
    p[4] = (uint8_t)(f->fctrl | f->fopts_len);
    put_le16(p + 5, f->fcnt);
    p += FHDR_MIN;
    if (f->fopts_len) {
        memmove(p, f->fopts, f->fopts_len);
        p += f->fopts_len;
    }
    if (f->has_port) {
        *p++ = f->fport;
        if (f->payload_len) {
            memmove(p, f->payload, f->payload_len);
        }
        p += f->payload_len;
    }
    put_le32(p, f->mic);
    return (int)n;
}

/* The B0 block of 4.4 and the A_i blocks of 4.3.3 share one layout:
 * first byte, 4 zero bytes, Dir, DevAddr, FCnt (32 bits), 0, last byte. */
static void block(uint8_t b[16], uint8_t first, bool down, uint32_t devaddr, uint32_t fcnt32,
                  uint8_t last)
{
    memset(b, 0, 16);
    b[0] = first;
    b[5] = down;
    put_le32(b + 6, devaddr);
    put_le32(b + 10, fcnt32);
    b[15] = last;
}

uint32_t wren_lorawan_mic(const uint8_t nwkskey[16], bool down, uint32_t devaddr, uint32_t fcnt32,
                          const uint8_t *msg, size_t len)
{
    uint8_t b0[16], mac[16];
    block(b0, 0x49, down, devaddr, fcnt32, (uint8_t)len);
    wren_aes_cmac(nwkskey, b0, 16, msg, len, mac);
    return get_le32(mac);
}

void wren_lorawan_crypt(const uint8_t key[16], bool down, uint32_t devaddr, uint32_t fcnt32,
                        uint8_t *p, size_t len)
{
    uint8_t s[16];
    for (size_t i = 0; i < len; i++) {
        if (i % 16 == 0) {
            block(s, 0x01, down, devaddr, fcnt32, (uint8_t)(i / 16 + 1));
            wren_aes128_encrypt(key, s, s);
        }
        p[i] ^= s[i % 16];
    }
}

void wren_lorawan_iid(const uint8_t appskey[16], const uint8_t deveui[8], uint8_t iid[8])
{
    uint8_t mac[16];
    wren_aes_cmac(appskey, deveui, 8, NULL, 0, mac);
    memcpy(iid, mac, 8);
}

int wren_lorawan_seal(const struct wren_lorawan_frame *f, const uint8_t nwkskey[16],
                      const uint8_t appskey[16], uint32_t fcnt32, uint8_t *buf, size_t len)
{
    int n = wren_lorawan_emit(f, buf, len);
    if (n < 0) {
        return n;
    }
    bool down = wren_lorawan_is_down(f->mtype);
    uint8_t *pl = buf + n - LORAWAN_MIC_LEN - f->payload_len;
    wren_lorawan_crypt(f->fport ? appskey : nwkskey, down, f->devaddr, fcnt32, pl,
                       f->payload_len);
    uint32_t mic = wren_lorawan_mic(nwkskey, down, f->devaddr, fcnt32, buf,
                                    (size_t)n - LORAWAN_MIC_LEN);
    put_le32(buf + n - LORAWAN_MIC_LEN, mic);
    return n;
}

int wren_lorawan_open(const struct wren_lorawan_frame *f, const uint8_t nwkskey[16],
                      const uint8_t appskey[16], uint32_t fcnt32, uint8_t *buf, size_t len)
{
    bool down = wren_lorawan_is_down(f->mtype);
    if (len < LORAWAN_MIC_LEN ||
        wren_lorawan_mic(nwkskey, down, f->devaddr, fcnt32, buf, len - LORAWAN_MIC_LEN) !=
            f->mic) {
        return -LORAWAN_ERR_MIC;
    }
    if (f->payload_len) {
        uint8_t *pl = buf + len - LORAWAN_MIC_LEN - f->payload_len;
        wren_lorawan_crypt(f->fport ? appskey : nwkskey, down, f->devaddr, fcnt32, pl,
                           f->payload_len);
    }
    return 0;
}
