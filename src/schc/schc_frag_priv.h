/* SCHC fragmentation: what the sender (schc_frag.c) and the receiver
 * (schc_frag_rx.c) share: message building, the ACK's parse and emit. */
#ifndef WREN_SCHC_SCHC_FRAG_PRIV_H
#define WREN_SCHC_SCHC_FRAG_PRIV_H

#include "schc/schc_frag.h"
#include "wire/schc_bits.h"

/** Largest WINDOW_SIZE (bitmaps are 8 bytes). */
#define WREN_SCHC_MAX_WINDOW 63

/** A parsed SCHC ACK (or Receiver-Abort). bitmap: bit i (bitmap[i / 8] >>
 *  (i % 8)) is the window's i-th tile, the compressed tail read as 1s. */
struct wren_schc_ack {
    uint8_t w, c, abort;
    uint8_t bitmap[8];
};

/** A fragment, ACK REQ or Sender-Abort (schc_frag.h's layouts) into @p out;
 *  @return its length, 0 if @p cap is short. */
size_t wren_schc_frag_msg(const struct wren_schc_frag_profile *p, uint8_t *out, size_t cap,
                          unsigned w, unsigned fcn, const uint32_t *rcs, const uint8_t *tiles,
                          size_t tlen);

/** Parse an ACK; @return 0, -SCHC_FRAG_ERR_TRUNCATED, -SCHC_FRAG_ERR_RULE. */
int wren_schc_ack_parse(const struct wren_schc_frag_profile *p, const uint8_t *msg, size_t len,
                        struct wren_schc_ack *a);

/** An ACK (C and the bitmap, compressed as RFC 8724 8.3.2.1 says) or, with
 *  @p a->abort, a Receiver-Abort, into @p out (16 bytes); @return its length. */
size_t wren_schc_ack_emit(const struct wren_schc_frag_profile *p, const struct wren_schc_ack *a,
                          uint8_t *out);

#endif
