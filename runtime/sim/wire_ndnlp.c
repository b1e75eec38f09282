/* ctypes entry points into NDNLPv2 (see wire_ndnlp.h). */
#include "sim/wire_ndnlp.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndn/ndnlp_frag.h"
#include "net/nettype.h"
#include "pktbuf/pktbuf.h"

int wren_wire_ndnlp_fragment(const uint8_t *pkt, size_t len, size_t mtu, uint64_t seq0,
                             uint8_t *out, size_t out_max, uint16_t *lens, size_t max_pieces)
{
    struct wren_ndnlp_frag f;
    struct ndnlp_frag_plan plan;
    wren_ndnlp_frag_init(&f, NULL, seq0);
    if (wren_ndnlp_frag_plan(&f, len, mtu, &plan) < 0) {
        return -EMSGSIZE;
    }
    if (plan.count > max_pieces) {
        return -ENOBUFS;
    }
    if (plan.count == 1) {
        if (len > out_max || len > UINT16_MAX) {
            return -ENOBUFS;
        }
        memcpy(out, pkt, len);
        lens[0] = (uint16_t)len;
        return 1;
    }
    size_t at = 0;
    for (unsigned i = 0; i < plan.count; i++) {
        int n = wren_ndnlp_frag_emit(&plan, pkt, i, out + at, out_max - at);
        if (n < 0) {
            return -ENOBUFS;
        }
        lens[i] = (uint16_t)n;
        at += (size_t)n;
    }
    return plan.count;
}

int wren_wire_ndnlp_reassemble(const uint8_t *frames, const uint16_t *lens, size_t n,
                               uint8_t *out, size_t out_max, int64_t *nack_reason,
                               uint32_t *counters, size_t n_counters)
{
    /* On the heap, not the stack: the packet buffer poisons its free space
     * for ASan, which a stack arena would leave behind for the caller's
     * later frames (the sanitized Python stage calls this through ctypes) */
    size_t arena_size = 3 * CONFIG_WREN_NDNLP_MAX_PKT * CONFIG_WREN_NDNLP_REASS_SLOTS;
    uint8_t *arena = aligned_alloc(8, arena_size);
    if (arena == NULL) {
        return -ENOMEM;
    }
    struct wren_pktbuf pb;
    struct wren_ndnlp_frag f;
    int got = 0;
    wren_pktbuf_init(&pb, arena, arena_size);
    wren_ndnlp_frag_init(&f, &pb, 0);
    *nack_reason = -1;
    for (size_t i = 0, at = 0; i < n; at += lens[i++]) {
        struct ndnlp_pkt lp;
        struct wren_snip *s =
            wren_ndnlp_frag_rx(&f, 1, frames + at, lens[i], 0, WREN_NETTYPE_UNDEF, &lp);
        if (s == NULL) {
            continue;
        }
        got = s->size <= out_max ? (int)wren_pkt_copy(s, out, out_max) : -ENOBUFS;
        *nack_reason = lp.has_nack ? (int64_t)lp.nack_reason : -1;
        wren_pktbuf_release(&pb, s);
    }
    if (counters) {
        size_t k = sizeof(f.stats) / sizeof(uint32_t);
        memcpy(counters, &f.stats, (n_counters < k ? n_counters : k) * sizeof(uint32_t));
    }
    wren_ndnlp_frag_clear(&f);
    free(arena);
    return got;
}

int wren_wire_ndnlp_nack(const uint8_t *interest, size_t len, uint64_t reason, uint8_t *out,
                         size_t out_max)
{
    struct ndnlp_pkt p = { .has_nack = true, .nack_reason = reason, .frag = interest,
                           .frag_len = len };
    return wren_ndnlp_emit(&p, out, out_max);
}

int wren_wire_ndnlp_describe(const uint8_t *lp, size_t len, char *desc, size_t desc_max)
{
    struct ndnlp_pkt p;
    int rc = wren_ndnlp_parse(lp, len, &p);
    if (rc < 0) {
        return rc;
    }
    snprintf(desc, desc_max,
             "len=%d seq_len=%u seq=%" PRIu64 " index=%" PRIu64 " count=%" PRIu64
             " nack=%d reason=%" PRIu64 " frag_off=%td frag_len=%zu ignored=%u",
             rc, p.seq_len, p.seq, p.frag_index, p.frag_count, p.has_nack, p.nack_reason,
             p.frag_len ? p.frag - lp : (ptrdiff_t)0, p.frag_len, p.ignored);
    return 0;
}
