/* ctypes entry points into SCHC and LoRaWAN (see wire_schc.h). */
#include "sim/wire_schc.h"

#include <string.h>

#include "core/byteorder.h"
#include "schc/schc_frag.h"
#include "wire/lorawan.h"
#include "wire/schc.h"

#define RULES_BAD (-1000)

static int rules(struct wren_schc_rules *rs, const char *text, char *err, size_t err_len)
{
    return wren_schc_rules_parse(rs, text, strlen(text), err, err_len) < 0 ? RULES_BAD : 0;
}

int wren_wire_schc_compress(const char *text, int dir, const uint8_t *pkt, size_t len,
                            uint8_t *out, size_t out_max, char *err, size_t err_len)
{
    static struct wren_schc_rules rs; /* the test process's: not the stack's */
    int rc = rules(&rs, text, err, err_len);
    return rc < 0 ? rc : wren_schc_compress(&rs, (unsigned)dir, pkt, len, out, out_max);
}

int wren_wire_schc_decompress(const char *text, int dir, const uint8_t *schc, size_t len,
                              uint8_t *out, size_t out_max, char *err, size_t err_len)
{
    static struct wren_schc_rules rs;
    int rc = rules(&rs, text, err, err_len);
    return rc < 0 ? rc : wren_schc_decompress(&rs, (unsigned)dir, schc, len, out, out_max);
}

static const struct wren_schc_frag_profile *profile(int down)
{
    return down ? &wren_schc_frag_lorawan_down : &wren_schc_frag_lorawan_up;
}

/* The ACK an all-receiving ACK-Always receiver sends for the window the
 * sender waits on. */
static void ack_always(struct wren_schc_frag_tx *tx)
{
    const struct wren_schc_frag_profile *p = tx->p;
    unsigned w = (tx->next - 1u) / p->window;
    uint8_t ack[2] = { p->rule_id, 0 };
    bool last = tx->next >= tx->ntiles;
    /* W (1 bit), C, bitmap 1 (the one tile), padding */
    ack[1] = (uint8_t)((w & 1u) << 7 | (last ? 0x40 : 0x20));
    wren_schc_frag_tx_ack(tx, 0, ack, 2);
}

int wren_wire_schc_fragment(int down, const uint8_t *pkt, size_t len, size_t mtu, uint8_t *out,
                            size_t out_max)
{
    static struct wren_schc_frag_tx tx;
    int rc = wren_schc_frag_tx_start(&tx, profile(down), pkt, len);
    size_t used = 0;
    uint8_t msg[256];
    while (rc >= 0) {
        rc = wren_schc_frag_tx_next(&tx, 0, msg, mtu < sizeof(msg) ? mtu : sizeof(msg));
        if (rc > 0) {
            if (used + 2u + (size_t)rc > out_max) {
                return -1;
            }
            put_be16(out + used, (uint16_t)rc);
            memcpy(out + used + 2, msg, (size_t)rc);
            used += 2u + (size_t)rc;
        } else if (rc == 0 && down && tx.state == WREN_SCHC_FRAG_WAIT_ACK) {
            ack_always(&tx);
        } else {
            break;
        }
    }
    return rc < 0 ? rc : (int)used;
}

int wren_wire_schc_reassemble(int down, const uint8_t *msgs, size_t len, uint8_t *out,
                              size_t out_max, uint8_t *acks, size_t acks_max, size_t *acks_len)
{
    static struct wren_schc_frag_rx rx;
    int last = 0, got = 0;
    *acks_len = 0;
    wren_schc_frag_rx_start(&rx, profile(down), 0);
    for (size_t i = 0; i + 2 <= len;) {
        size_t n = get_be16(msgs + i), al = 0;
        uint8_t ack[16];
        if (i + 2 + n > len) {
            break;
        }
        int rc = wren_schc_frag_rx_input(&rx, 0, msgs + i + 2, n, ack, &al);
        if (al && *acks_len + 2 + al <= acks_max) {
            put_be16(acks + *acks_len, (uint16_t)al);
            memcpy(acks + *acks_len + 2, ack, al);
            *acks_len += 2 + al;
        }
        if (rc == 1 && rx.len <= out_max) {
            memcpy(out, rx.pkt, rx.len);
            got = rx.len;
        }
        last = rc < 0 ? rc : last;
        i += 2 + n;
    }
    return got ? got : last;
}

void wren_wire_lorawan_iid(const uint8_t *appskey, const uint8_t *deveui, uint8_t *iid)
{
    wren_lorawan_iid(appskey, deveui, iid);
}

int wren_wire_lorawan_seal(uint32_t devaddr, int down, uint32_t fcnt, uint8_t fport,
                           const uint8_t *nwkskey, const uint8_t *appskey, const uint8_t *pl,
                           size_t n, uint8_t *out, size_t out_max)
{
    struct wren_lorawan_frame f = {
        .mtype = down ? LORAWAN_UNCONF_DOWN : LORAWAN_UNCONF_UP, .devaddr = devaddr,
        .fcnt = (uint16_t)fcnt, .has_port = true, .fport = fport, .payload = pl, .payload_len = n,
    };
    return wren_lorawan_seal(&f, nwkskey, appskey, fcnt, out, out_max);
}
