/* The byte rings of a connection and the receive buffer's bitmap of
 * out-of-order bytes (the TCP paper's in-place reassembly queue, 4.3.2). */
#include <string.h>

#include "tcp/tcp_priv.h"

static uint32_t pos(const struct wren_tcp_ring *r, uint32_t off)
{
    uint32_t p = (uint32_t)r->head + off;
    return p >= r->size ? p - r->size : p;
}

void wren_tcp_ring_write(struct wren_tcp_ring *r, uint32_t off, const uint8_t *data, uint32_t n)
{
    uint32_t p = pos(r, off);
    uint32_t first = r->size - p < n ? r->size - p : n;
    memcpy(r->buf + p, data, first);
    memcpy(r->buf, data + first, n - first);
}

void wren_tcp_ring_read(const struct wren_tcp_ring *r, uint32_t off, uint8_t *out, uint32_t n)
{
    uint32_t p = pos(r, off);
    uint32_t first = r->size - p < n ? r->size - p : n;
    memcpy(out, r->buf + p, first);
    memcpy(out + first, r->buf, n - first);
}

void wren_tcp_ring_consume(struct wren_tcp_ring *r, uint32_t n)
{
    r->head = (uint16_t)pos(r, n);
    r->len = (uint16_t)(r->len - n);
}

static void bits(const struct wren_tcp_ring *r, uint8_t *bm, uint32_t off, uint32_t n, bool set)
{
    uint32_t p = pos(r, off);
    while (n) {
        if ((p & 7) == 0 && n >= 8 && p + 8 <= r->size) {
            bm[p >> 3] = set ? 0xff : 0;
            p += 8;
            n -= 8;
        } else {
            if (set) {
                bm[p >> 3] |= (uint8_t)(1u << (p & 7));
            } else {
                bm[p >> 3] &= (uint8_t)~(1u << (p & 7));
            }
            p++;
            n--;
        }
        if (p == r->size) {
            p = 0;
        }
    }
}

void wren_tcp_bits_set(const struct wren_tcp_ring *r, uint8_t *bm, uint32_t off, uint32_t n)
{
    bits(r, bm, off, n, true);
}

void wren_tcp_bits_clear(const struct wren_tcp_ring *r, uint8_t *bm, uint32_t off, uint32_t n)
{
    bits(r, bm, off, n, false);
}

uint32_t wren_tcp_bits_run(const struct wren_tcp_ring *r, const uint8_t *bm, uint32_t off,
                      uint32_t max, bool set)
{
    uint32_t p = pos(r, off), n = 0;
    uint8_t whole = set ? 0xff : 0;
    while (n < max) {
        if ((p & 7) == 0 && max - n >= 8 && p + 8 <= r->size && bm[p >> 3] == whole) {
            p += 8;
            n += 8;
        } else if (((bm[p >> 3] >> (p & 7)) & 1) == (set ? 1 : 0)) {
            p++;
            n++;
        } else {
            break;
        }
        if (p == r->size) {
            p = 0;
        }
    }
    return n;
}
