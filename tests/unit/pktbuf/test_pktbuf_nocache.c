/* The packet buffer as the smallest images build it, without the descriptor
 * cache (CONFIG_WREN_PKTBUF_DESC_CACHE=0, as in the 6ln_host Cortex-M3 images):
 * the same behaviour, every descriptor from and back to the free list. */
#define CONFIG_WREN_PKTBUF_DESC_CACHE 0
/* this binary's own copy of pktbuf, compiled with the option above */
#include "pktbuf/pktbuf.c"

#include "test.h"

#define ARENA 4096
static _Alignas(8) uint8_t arena[ARENA];
static struct wren_pktbuf pb;

/* This binary has its own pktbuf, so not the fixture (fixture.h links the
 * stack's): the same setup and teardown for its one buffer. */
static int setup(void **state)
{
    (void)state;
    wren_pktbuf_init(&pb, arena, sizeof(arena));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (!wren_pktbuf_is_empty(&pb) || !wren_pktbuf_is_sane(&pb)) {
        print_error("teardown: packet buffer not empty or inconsistent\n");
        return -1;
    }
    return 0;
}

TEST(test_nocache__headers_chains_marks_and_release)
{
    static const uint8_t types[3] = { 2, 3, 0 };
    const uint16_t sizes[3] = { 40, 8, 20 };
    for (int round = 0; round < 50; round++) {
        struct wren_snip *p = wren_pktbuf_add_chain(&pb, 3, sizes, types, NULL);
        CHECK(p != NULL);
        CHECK_EQ(wren_pktbuf_merge(&pb, &p), 0);
        CHECK(p->next == NULL && p->size == 68);
        CHECK(wren_pktbuf_mark(&pb, p, 40, 2) != NULL);
        CHECK(wren_pktbuf_mark(&pb, p, 8, 3) != NULL);
        /* a header in front, shared, dropped again */
        struct wren_snip *h = wren_pktbuf_add(&pb, p, NULL, 0, 9);
        CHECK(h != NULL);
        wren_pktbuf_hold(&pb, h, 1);
        CHECK(wren_pktbuf_release_head(&pb, h) == p); /* ours: the rest */
        wren_pktbuf_release(&pb, h);                  /* the other holder's */
        wren_pktbuf_release(&pb, p);
        CHECK_EQ(pb.desc_cached, 0);
        CHECK(wren_pktbuf_is_sane(&pb));
    }
    CHECK_EQ(pb.stats.in_use, 0);
    CHECK_EQ(pb.stats.snips, 0);
    CHECK(wren_pktbuf_is_sane(&pb));
    /* all coalesced: one allocation takes the whole arena */
    struct wren_snip *all = wren_pktbuf_add(&pb, NULL, NULL, ARENA - DESC, 0);
    CHECK(all != NULL);
    wren_pktbuf_release(&pb, all);
    CHECK_EQ(pb.stats.in_use, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_nocache__headers_chains_marks_and_release, setup,
                                        teardown),
    };
    return cmocka_run_group_tests_name("pktbuf_nocache", tests, NULL, NULL);
}
