/**
 * @file fuzz_ndnlp_reass.c
 * @brief libFuzzer target for NDNLPv2 reassembly: a sequence of LpPackets
 *        from four senders over time into one link's reassembler.
 *
 * The input is records. A record's first byte: bit 0 raw (1) or built (0),
 * bits 1-2 the sender, bits 3-7 time passing (50 ms steps). A raw record is
 * a length byte and that many bytes, given as they are. A built record is
 * four bytes (Sequence, FragIndex and a Nack bit, FragCount, piece length),
 * an LpPacket wren's emitter makes of them with the next input bytes as the
 * piece. After each record: the packet buffer is consistent, every busy
 * slot holds its pieces in strictly increasing FragIndex order below its
 * FragCount with the counts and bytes it records, within the limits; at the
 * end each LpPacket was counted once, packets completed from pieces match
 * lp_reassembled, and clearing the slots empties the packet buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ndn/ndnlp_frag.h"
#include "pktbuf/pktbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            abort();                                                                               \
    } while (0)

static _Alignas(8) uint8_t arena[4096];

static void check_slots(const struct wren_ndnlp_frag *f)
{
    for (unsigned i = 0; i < CONFIG_WREN_NDNLP_REASS_SLOTS; i++) {
        const struct wren_ndnlp_slot *s = &f->slot[i];
        if (s->pieces == NULL) {
            continue;
        }
        unsigned got = 0, bytes = 0;
        int prev = -1;
        for (const struct wren_snip *p = s->pieces; p; p = p->next) {
            int idx = p->data[0] << 8 | p->data[1];
            REQUIRE(idx > prev && idx < s->count && p->size > 2);
            prev = idx;
            got++;
            bytes += p->size - 2u;
        }
        REQUIRE(got == s->got && got < s->count && bytes == s->bytes);
        REQUIRE(s->count <= CONFIG_WREN_NDNLP_MAX_FRAGS && bytes <= CONFIG_WREN_NDNLP_MAX_PKT);
    }
}

/* a built record into b: @return its length, or 0 if the input ran out */
static size_t build(const uint8_t **d, size_t *left, uint8_t *b, size_t max)
{
    if (*left < 4) {
        return 0;
    }
    const uint8_t *r = *d;
    struct ndnlp_pkt p = { .seq = 1000 + r[0], .seq_len = NDNLP_SEQ_LEN,
                           .frag_index = r[1] & 0x3f, .frag_count = r[2] % 40,
                           .has_nack = r[1] >> 7, .nack_reason = r[1] & 0x40 ? 150 : 0 };
    size_t n = (size_t)r[3] + 1;
    *d += 4;
    *left -= 4;
    if (n > *left) {
        n = *left;
    }
    p.frag = *d;
    p.frag_len = n;
    *d += n;
    *left -= n;
    int len = wren_ndnlp_emit(&p, b, max);
    return len > 0 ? (size_t)len : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct wren_pktbuf pb;
    static struct wren_ndnlp_frag f;
    uint8_t b[300];
    uint64_t now = 0;
    uint32_t fed = 0, reassembled = 0;
    wren_pktbuf_init(&pb, arena, sizeof(arena));
    wren_ndnlp_frag_init(&f, &pb, 0);
    while (size >= 2) {
        uint8_t op = *data++;
        size--;
        const uint8_t *pkt = b;
        size_t len;
        now += (uint64_t)(op >> 3) * 50000u;
        if (op & 1) {
            len = *data < size - 1 ? *data : size - 1;
            pkt = data + 1;
            data += 1 + len;
            size -= 1 + len;
        } else if ((len = build(&data, &size, b, sizeof(b))) == 0) {
            break;
        }
        struct ndnlp_pkt lp;
        struct wren_snip *s = wren_ndnlp_frag_rx(&f, (op >> 1) & 3, pkt, len, now, 0, &lp);
        fed++;
        if (s) {
            REQUIRE(s->next == NULL && s->size > 0);
            if (lp.frag_count > 1) {
                REQUIRE(s->size <= CONFIG_WREN_NDNLP_MAX_PKT);
                reassembled++;
            }
            wren_pktbuf_release(&pb, s);
        }
        REQUIRE(wren_pktbuf_is_sane(&pb));
        check_slots(&f);
    }
    REQUIRE(f.stats.lp_rx == fed && f.stats.lp_reassembled == reassembled);
    wren_ndnlp_frag_clear(&f);
    REQUIRE(wren_pktbuf_is_empty(&pb));
    return 0;
}
