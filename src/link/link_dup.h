/**
 * @file link_dup.h
 * @brief Duplicate detection of both 802.15.4 MACs (CSMA and TSCH): the last
 *        (source, sequence number) of the four neighbours heard most
 *        recently (802.15.4-2015 6.7.4.3: a retransmission whose ACK was
 *        lost comes again with the same sequence number).
 */
#ifndef WREN_LINK_LINK_DUP_H
#define WREN_LINK_LINK_DUP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct wren_link_dup {
    struct {
        uint8_t addr[8];
        uint8_t len;      /**< 0: free */
        uint8_t seq;
    } e[4];
    uint8_t next;         /**< the entry a new neighbour takes */
};

/** @brief Whether @p seq from @p addr (@p len bytes) is the last one seen from
 *         that source; records it either way. */
static inline bool wren_link_dup_seen(struct wren_link_dup *d, const uint8_t *addr, uint8_t len,
                                      uint8_t seq)
{
    for (unsigned i = 0; i < 4; i++) {
        if (d->e[i].len == len && memcmp(d->e[i].addr, addr, len) == 0) {
            if (d->e[i].seq == seq) {
                return true;
            }
            d->e[i].seq = seq;
            return false;
        }
    }
    unsigned i = d->next++ % 4u;
    memcpy(d->e[i].addr, addr, len);
    d->e[i].len = len;
    d->e[i].seq = seq;
    return false;
}

#endif
