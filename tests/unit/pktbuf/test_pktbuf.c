/* Unit tests of the packet buffer: allocation, marking, sharing,
 * copy-on-write, merge, exhaustion and a randomised fragmentation workload. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/nettype.h"
#include "pktbuf/pktbuf.h"
#include "fixture.h"

#define ARENA 6144
static struct wren_pktbuf *pb;

/* every test gets a fresh buffer of its own (the fixture's: the teardown
 * checks it is empty and consistent, also after a failure) */
static int setup(void **state)
{
    fx_setup(state);
    pb = fx_pktbuf(ARENA);
    return 0;
}

/* the end of every test: the buffer must be empty and consistent */
#define CHECK_CLEAN()                                   \
    do {                                                \
        CHECK(wren_pktbuf_is_sane(pb));                \
        CHECK_EQ(pb->stats.in_use, 0);                   \
        CHECK_EQ(pb->stats.snips, 0);                    \
    } while (0)

TEST(test_add__copies_data_and_prepends)
{
    struct wren_snip *pl = wren_pktbuf_add(pb, NULL, "payload", 7, WREN_NETTYPE_UNDEF);
    CHECK(pl);
    struct wren_snip *h = wren_pktbuf_add(pb, pl, "HDR", 3, WREN_NETTYPE_UDP);
    CHECK(h && h->next == pl);
    CHECK_EQ(wren_pkt_len(h), 10);
    uint8_t buf[16];
    CHECK_EQ(wren_pkt_copy(h, buf, sizeof(buf)), 10);
    CHECK_MEM(buf, "HDRpayload", 10);
    CHECK(wren_pkt_search(h, WREN_NETTYPE_UNDEF) == pl);
    CHECK(wren_pktbuf_is_sane(pb));
    CHECK(pb->stats.high_water >= pb->stats.in_use);
    wren_pktbuf_release(pb, h);
    CHECK_CLEAN();
}

TEST(test_add__exhaustion_returns_null_and_counts)
{
    struct wren_snip *pkts[64];
    int n = 0;
    while (n < 64 && (pkts[n] = wren_pktbuf_add(pb, NULL, NULL, 1000, 0)) != NULL) {
        memset(pkts[n]->data, n, 1000);
        n++;
    }
    CHECK(n > 0 && n < 64);
    CHECK_EQ(pb->stats.alloc_fail, 1);
    /* a failed allocation corrupted nothing: every packet keeps its bytes */
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 1000; k++) {
            CHECK_EQ(pkts[i]->data[k], i);
        }
    }
    CHECK(wren_pktbuf_add(pb, NULL, NULL, 70000, 0) == NULL);
    CHECK_EQ(pb->stats.alloc_fail, 2);
    CHECK(wren_pktbuf_is_sane(pb));
    for (int i = 0; i < n; i++) {
        wren_pktbuf_release(pb, pkts[i]);
    }
    CHECK_CLEAN();
    /* the whole arena is usable again */
    struct wren_snip *big = wren_pktbuf_add(pb, NULL, NULL, ARENA - 64, 0);
    CHECK(big);
    wren_pktbuf_release(pb, big);
    CHECK_CLEAN();
}

TEST(test_mark__aligned_and_unaligned_cuts)
{
    for (size_t cut = 0; cut <= 40; cut++) {
        uint8_t frame[40];
        for (size_t i = 0; i < sizeof(frame); i++) {
            frame[i] = (uint8_t)i;
        }
        struct wren_snip *pkt = wren_pktbuf_add(pb, NULL, frame, sizeof(frame), 0);
        CHECK(pkt);
        struct wren_snip *hdr = wren_pktbuf_mark(pb, pkt, cut, WREN_NETTYPE_IEEE802154);
        CHECK(hdr);
        CHECK(pkt->next == hdr);
        CHECK_EQ(hdr->size, cut);
        CHECK_EQ(pkt->size, 40 - cut);
        if (cut) {
            CHECK_MEM(hdr->data, frame, cut);
        }
        if (cut < 40) {
            CHECK_MEM(pkt->data, frame + cut, 40 - cut);
        }
        /* mark again on the rest: a chain of three */
        if (pkt->size >= 3) {
            struct wren_snip *h2 = wren_pktbuf_mark(pb, pkt, 3, WREN_NETTYPE_UDP);
            CHECK(h2 && pkt->next == h2 && h2->next == hdr);
            CHECK_MEM(h2->data, frame + cut, 3);
        }
        CHECK(wren_pktbuf_is_sane(pb));
        wren_pktbuf_release(pb, pkt);
        CHECK_CLEAN();
    }
}

TEST(test_mark__beyond_data_or_shared_fails)
{
    struct wren_snip *pkt = wren_pktbuf_add(pb, NULL, "abcdef", 6, 0);
    CHECK(wren_pktbuf_mark(pb, pkt, 7, 0) == NULL);
    wren_pktbuf_hold(pb, pkt, 1);
    CHECK(wren_pktbuf_mark(pb, pkt, 2, 0) == NULL);
    wren_pktbuf_release(pb, pkt);
    wren_pktbuf_release(pb, pkt);
    CHECK_CLEAN();
}

TEST(test_write_path__two_holders_copy_on_write)
{
    struct wren_snip *pl = wren_pktbuf_add(pb, NULL, "payload", 7, WREN_NETTYPE_UNDEF);
    struct wren_snip *udp = wren_pktbuf_add(pb, pl, "UDPH", 4, WREN_NETTYPE_UDP);
    struct wren_snip *ip = wren_pktbuf_add(pb, udp, "IPV6", 4, WREN_NETTYPE_IPV6);
    CHECK(pl && udp && ip);
    /* two holders: A and B */
    wren_pktbuf_hold(pb, ip, 1);
    struct wren_snip *a = ip, *b = ip;
    struct wren_snip *target = udp;
    CHECK_EQ(wren_pktbuf_write_path(pb, &b, &target), 0);
    CHECK(b != a);              /* the head was copied */
    CHECK(target != udp);       /* so was the UDP header */
    CHECK(b->next == target);
    CHECK(target->next == pl);  /* the payload is still shared */
    CHECK_EQ(pl->users, 2);
    CHECK_EQ(ip->users, 1);
    CHECK_EQ(udp->users, 1);
    memcpy(target->data, "XXXX", 4);
    uint8_t buf[32];
    CHECK_EQ(wren_pkt_copy(a, buf, sizeof(buf)), 15);
    CHECK_MEM(buf, "IPV6UDPHpayload", 15);
    CHECK_EQ(wren_pkt_copy(b, buf, sizeof(buf)), 15);
    CHECK_MEM(buf, "IPV6XXXXpayload", 15);
    /* a private path is not copied again */
    struct wren_snip *b2 = b, *t2 = target;
    CHECK_EQ(wren_pktbuf_write_path(pb, &b2, &t2), 0);
    CHECK(b2 == b && t2 == target);
    wren_pktbuf_release(pb, a);
    CHECK(pb->stats.in_use > 0);
    wren_pktbuf_release(pb, b);
    CHECK_CLEAN();
}

TEST(test_write_path__failure_leaves_valid_packet)
{
    struct wren_snip *pl = wren_pktbuf_add(pb, NULL, NULL, 2000, 0);
    struct wren_snip *h = wren_pktbuf_add(pb, pl, NULL, 2000, 1);
    CHECK(pl && h);
    wren_pktbuf_hold(pb, h, 1);
    struct wren_snip *mine = h, *target = pl;
    /* copying 4000 bytes cannot fit in what is left */
    CHECK_EQ(wren_pktbuf_write_path(pb, &mine, &target), -ENOBUFS);
    CHECK(wren_pkt_len(mine) == 4000);
    wren_pktbuf_release(pb, mine);
    wren_pktbuf_release(pb, h);
    CHECK_CLEAN();
}

TEST(test_release__every_snip_of_shared_packets)
{
    struct wren_snip *pkt = NULL;
    for (int i = 0; i < 10; i++) {
        pkt = wren_pktbuf_add(pb, pkt, NULL, (size_t)(i * 13 + 1), (uint8_t)i);
        CHECK(pkt);
    }
    wren_pktbuf_hold(pb, pkt, 3);
    for (int i = 0; i < 4; i++) {
        CHECK(pb->stats.in_use > 0);
        wren_pktbuf_release(pb, pkt);
    }
    CHECK_CLEAN();
}

TEST(test_add_chain__contiguous_with_and_without_cached_descriptors)
{
    static const uint8_t types[3] = { WREN_NETTYPE_IPV6, WREN_NETTYPE_UDP, WREN_NETTYPE_UNDEF };
    const uint16_t sizes[3] = { 40, 8, 20 };
    for (int round = 0; round < 3; round++) {
        /* round 0: an empty cache; later rounds find descriptors kept aside */
        struct wren_snip *p = wren_pktbuf_add_chain(pb, 3, sizes, types, NULL);
        CHECK(p && p->next && p->next->next && p->next->next->next == NULL);
        CHECK(p->next->data == p->data + 40 && p->next->next->data == p->data + 48);
        CHECK_EQ(p->type, WREN_NETTYPE_IPV6);
        CHECK_EQ(p->next->next->type, WREN_NETTYPE_UNDEF);
        memset(p->data, 0x11 * (round + 1), 68);
        CHECK_EQ(pb->stats.snips, 3);
        /* merges in place, then splits again without copying */
        CHECK_EQ(wren_pktbuf_merge(pb, &p), 0);
        CHECK(p->next == NULL && p->size == 68);
        struct wren_snip *h = wren_pktbuf_mark(pb, p, 40, WREN_NETTYPE_IPV6);
        CHECK(h && h->data + 40 == p->data);
        CHECK(wren_pktbuf_mark(pb, p, 8, WREN_NETTYPE_UDP) != NULL);
        CHECK(wren_pktbuf_is_sane(pb));
        wren_pktbuf_release(pb, p);
        CHECK_CLEAN();
    }
    /* too little room for the data beside the cached descriptors: they go
     * back to the free list and the chain is allocated as one block, or
     * refused and counted */
    size_t desc = (sizeof(struct wren_snip) + PKTBUF_ALIGN - 1) & ~(size_t)(PKTBUF_ALIGN - 1);
    struct wren_snip *e[PKTBUF_DESC_CACHE] = { 0 };
    for (int i = 0; i < PKTBUF_DESC_CACHE; i++) {
        e[i] = wren_pktbuf_add(pb, i ? e[i - 1] : NULL, NULL, 0, 0);
    }
    wren_pktbuf_release(pb, e[PKTBUF_DESC_CACHE - 1]);
    unsigned cached = pb->desc_cached;
    CHECK_EQ(cached, PKTBUF_DESC_CACHE);
    struct wren_snip *big =
        wren_pktbuf_add(pb, NULL, NULL, ARENA - cached * desc - desc - (72 - PKTBUF_ALIGN), 0);
    CHECK(big);
    uint32_t fails = pb->stats.alloc_fail;
    struct wren_snip *p = wren_pktbuf_add_chain(pb, 3, sizes, types, NULL);
    CHECK_EQ(pb->desc_cached, 0);
    CHECK(p != NULL || pb->stats.alloc_fail == fails + 1);
    CHECK(wren_pktbuf_is_sane(pb));
    wren_pktbuf_release(pb, p);
    wren_pktbuf_release(pb, big);
    CHECK_CLEAN();
    /* a chain of empty snips needs no data */
    const uint16_t zero[2] = { 0, 0 };
    p = wren_pktbuf_add_chain(pb, 2, zero, types, NULL);
    CHECK(p && p->data == NULL && p->next->data == NULL);
    wren_pktbuf_release(pb, p);
    CHECK_CLEAN();
}

TEST(test_merge__concatenates_in_order)
{
    struct wren_snip *c = wren_pktbuf_add(pb, NULL, "ccc", 3, 0);
    struct wren_snip *b = wren_pktbuf_add(pb, c, "bb", 2, 0);
    struct wren_snip *a = wren_pktbuf_add(pb, b, "a", 1, 7);
    struct wren_snip *pkt = a;
    CHECK_EQ(wren_pktbuf_merge(pb, &pkt), 0);
    CHECK(pkt->next == NULL);
    CHECK_EQ(pkt->size, 6);
    CHECK_EQ(pkt->type, 7);
    CHECK_MEM(pkt->data, "abbccc", 6);
    wren_pktbuf_release(pb, pkt);
    CHECK_CLEAN();
}

TEST(test_merge__shared_packet_leaves_other_holder_intact)
{
    struct wren_snip *b = wren_pktbuf_add(pb, NULL, "tail", 4, 0);
    struct wren_snip *a = wren_pktbuf_add(pb, b, "head", 4, 0);
    wren_pktbuf_hold(pb, a, 1);
    struct wren_snip *mine = a;
    CHECK_EQ(wren_pktbuf_merge(pb, &mine), 0);
    CHECK(mine != a && a->next == b);
    CHECK_MEM(mine->data, "headtail", 8);
    wren_pktbuf_release(pb, mine);
    wren_pktbuf_release(pb, a);
    CHECK_CLEAN();
}

TEST(test_realloc_and_trim__shrink_grow_front)
{
    struct wren_snip *s = wren_pktbuf_add(pb, NULL, "0123456789abcdefghij", 20, 0);
    CHECK_EQ(wren_pktbuf_realloc_data(pb, s, 5), 0);
    CHECK_MEM(s->data, "01234", 5);
    CHECK_EQ(wren_pktbuf_realloc_data(pb, s, 50), 0);
    CHECK_MEM(s->data, "01234", 5);
    wren_pktbuf_trim_front(pb, s, 3);
    CHECK_EQ(s->size, 47);
    CHECK_MEM(s->data, "34", 2);
    wren_pktbuf_trim_front(pb, s, 47);
    CHECK_EQ(s->size, 0);
    CHECK(wren_pktbuf_is_sane(pb));
    wren_pktbuf_release(pb, s);
    CHECK_CLEAN();
}

TEST(test_trim_back__keeps_the_front_frees_the_rest)
{
    struct wren_snip *s = wren_pktbuf_add(pb, NULL, "0123456789abcdefghij", 20, 0);
    uint32_t used = pb->stats.in_use;
    CHECK_EQ(wren_pktbuf_trim_back(pb, s, 30), 0); /* beyond: nothing changes */
    CHECK_EQ(s->size, 20);
    CHECK_EQ(wren_pktbuf_trim_back(pb, s, 3), 0);
    CHECK_EQ(s->size, 3);
    CHECK_MEM(s->data, "012", 3);
    CHECK(pb->stats.in_use < used); /* whole units behind the data went back */
    wren_pktbuf_hold(pb, s, 1);
    CHECK_EQ(wren_pktbuf_trim_back(pb, s, 1), -EINVAL); /* shared: untouched */
    CHECK_EQ(s->size, 3);
    wren_pktbuf_release(pb, s);
    CHECK_EQ(wren_pktbuf_trim_back(pb, s, 0), 0);
    CHECK(s->size == 0 && s->data == NULL);
    CHECK(wren_pktbuf_is_sane(pb));
    wren_pktbuf_release(pb, s);
    CHECK_CLEAN();
}

TEST(test_remove_snip__head_and_middle)
{
    struct wren_snip *c = wren_pktbuf_add(pb, NULL, "c", 1, 3);
    struct wren_snip *b = wren_pktbuf_add(pb, c, "b", 1, 2);
    struct wren_snip *a = wren_pktbuf_add(pb, b, "a", 1, 1);
    struct wren_snip *pkt = a;
    wren_pktbuf_remove_snip(pb, &pkt, b);
    CHECK(pkt == a && a->next == c);
    wren_pktbuf_remove_snip(pb, &pkt, a);
    CHECK(pkt == c);
    /* a shared head: the other holder keeps it and its link */
    struct wren_snip *h = wren_pktbuf_add(pb, pkt, "h", 1, 4);
    wren_pktbuf_hold(pb, h, 1);
    CHECK(wren_pktbuf_release_head(pb, h) == c);
    CHECK(h->users == 1 && h->next == c && c->users == 2);
    wren_pktbuf_release(pb, h);
    wren_pktbuf_release(pb, c);
    CHECK_CLEAN();
}

TEST(test_reverse__rx_to_tx_order)
{
    struct wren_snip *c = wren_pktbuf_add(pb, NULL, "c", 1, 3);
    struct wren_snip *b = wren_pktbuf_add(pb, c, "b", 1, 2);
    struct wren_snip *a = wren_pktbuf_add(pb, b, "a", 1, 1);
    struct wren_snip *r = wren_pkt_reverse(a);
    CHECK(r == c && c->next == b && b->next == a && a->next == NULL);
    wren_pktbuf_release(pb, r);
    CHECK_CLEAN();
}

/* Property test: a random workload of allocations, marks, holds, writes and
 * releases of random sizes (fixed seed) never corrupts the arena, never
 * loses a byte of a live packet, and leaves the arena whole when all is
 * released; fragmentation never makes an allocation fail while a block big
 * enough is free. */
static uint32_t rnd_state = 12345;
static uint32_t rnd(uint32_t n)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 17;
    rnd_state ^= rnd_state << 5;
    return rnd_state % n;
}

TEST(test_random_workload__no_corruption_no_leak)
{
    enum { SLOTS = 24 };
    struct wren_snip *live[SLOTS] = { 0 };
    uint8_t tag[SLOTS] = { 0 };
    unsigned fails = 0;
    for (int step = 0; step < 20000; step++) {
        int i = (int)rnd(SLOTS);
        if (live[i] == NULL) {
            size_t n = 1 + rnd(rnd(4) == 0 ? 1200 : 120);
            bool chain = n > 16 && rnd(3) == 0;
            if (chain) {
                /* headers and payload in one block, as sockets build them */
                static const uint8_t types[3] = { 2, 3, 0 };
                uint16_t a = (uint16_t)(8 * rnd((uint32_t)n / 16)), b = 8;
                const uint16_t sizes[3] = { a, b, (uint16_t)(n - a - b) };
                live[i] = wren_pktbuf_add_chain(pb, 3, sizes, types, NULL);
            } else {
                live[i] = wren_pktbuf_add(pb, NULL, NULL, n, 0);
            }
            if (live[i] == NULL) {
                fails++;
                continue;
            }
            tag[i] = (uint8_t)rnd(256);
            for (struct wren_snip *s = live[i]; s; s = s->next) {
                if (s->size) {
                    memset(s->data, tag[i], s->size);
                }
            }
            if (chain) {
                if (rnd(2)) {
                    CHECK(wren_pktbuf_merge(pb, &live[i]) == 0);
                }
                continue;
            }
            if (n > 8 && rnd(2)) {
                CHECK(wren_pktbuf_mark(pb, live[i], rnd((uint32_t)n), 1) != NULL ||
                      pb->stats.alloc_fail > 0);
            }
        } else {
            for (struct wren_snip *s = live[i]; s; s = s->next) {
                for (size_t k = 0; k < s->size; k++) {
                    CHECK_EQ(s->data[k], tag[i]);
                }
            }
            if (rnd(3) == 0) {
                /* share with a phantom holder, write through a private copy,
                 * then drop the phantom */
                wren_pktbuf_hold(pb, live[i], 1);
                struct wren_snip *orig = live[i], *t = live[i];
                if (wren_pktbuf_write_path(pb, &live[i], &t) == 0 && t->size) {
                    t->data[0] = tag[i];
                }
                wren_pktbuf_release(pb, orig);
            } else {
                wren_pktbuf_release(pb, live[i]);
                live[i] = NULL;
            }
        }
        if (step % 97 == 0) {
            CHECK(wren_pktbuf_is_sane(pb));
        }
    }
    CHECK(fails > 0); /* the workload did reach exhaustion */
    for (int i = 0; i < SLOTS; i++) {
        if (live[i]) {
            wren_pktbuf_release(pb, live[i]);
        }
    }
    CHECK_CLEAN();
    /* everything coalesced back: one allocation can take the whole arena */
    size_t desc = (sizeof(struct wren_snip) + PKTBUF_ALIGN - 1) & ~(size_t)(PKTBUF_ALIGN - 1);
    struct wren_snip *all = wren_pktbuf_add(pb, NULL, NULL, ARENA - desc, 0);
    CHECK(all != NULL);
    wren_pktbuf_release(pb, all);
    CHECK_CLEAN();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST_SETUP(test_add__copies_data_and_prepends, setup),
        FX_TEST_SETUP(test_add__exhaustion_returns_null_and_counts, setup),
        FX_TEST_SETUP(test_mark__aligned_and_unaligned_cuts, setup),
        FX_TEST_SETUP(test_mark__beyond_data_or_shared_fails, setup),
        FX_TEST_SETUP(test_write_path__two_holders_copy_on_write, setup),
        FX_TEST_SETUP(test_write_path__failure_leaves_valid_packet, setup),
        FX_TEST_SETUP(test_release__every_snip_of_shared_packets, setup),
        FX_TEST_SETUP(test_add_chain__contiguous_with_and_without_cached_descriptors, setup),
        FX_TEST_SETUP(test_merge__concatenates_in_order, setup),
        FX_TEST_SETUP(test_merge__shared_packet_leaves_other_holder_intact, setup),
        FX_TEST_SETUP(test_realloc_and_trim__shrink_grow_front, setup),
        FX_TEST_SETUP(test_trim_back__keeps_the_front_frees_the_rest, setup),
        FX_TEST_SETUP(test_remove_snip__head_and_middle, setup),
        FX_TEST_SETUP(test_reverse__rx_to_tx_order, setup),
        FX_TEST_SETUP(test_random_workload__no_corruption_no_leak, setup),
    };
    return cmocka_run_group_tests_name("pktbuf", tests, NULL, NULL);
}
