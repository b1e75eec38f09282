/* Trickle (RFC 6206) on the sim runtime: the interval and counter rules of
 * section 4.2, checked against the virtual clock. */
#include "core/node.h"
#include "core/trickle.h"
#include "fixture.h"
#include "sim/world.h"

static struct wren_node *node;
static struct wren_trickle tr; /* static: armed past a failed CHECK */
static uint64_t fired_at[64];
static uint32_t fired_i[64];
static int fired_n;

static uint64_t now_ms(void)
{
    return node->rt_ops->now(node->rt) / 1000;
}

static void fire(struct wren_trickle *t, void *arg)
{
    (void)arg;
    if (fired_n < 64) {
        fired_at[fired_n] = now_ms();
        fired_i[fired_n] = t->i;
        fired_n++;
    }
}

static int setup(void **state)
{
    fx_setup(state);
    node = &fx_node_ex(0, 1024, 1, 11)->node;
    fired_n = 0;
    wren_trickle_init(&tr, fire, NULL);
    return 0;
}

static int teardown(void **state)
{
    wren_trickle_stop(node, &tr);
    return fx_teardown(state);
}

static void run_ms(uint64_t until)
{
    wren_world_run_until(&fx.world, until * 1000);
}

TEST(test_trickle__intervals_double_to_imax_t_in_second_half)
{
    wren_trickle_start(node, &tr, 100, 3, 0); /* Imax 800 */
    CHECK_EQ(tr.imax, 800);
    run_ms(100 + 200 + 400 + 800 * 4);
    CHECK_EQ(fired_n, 7);
    static const uint32_t want_i[7] = {100, 200, 400, 800, 800, 800, 800};
    uint64_t start = 0;
    for (int n = 0; n < 7; n++) {
        CHECK_EQ(fired_i[n], want_i[n]);
        CHECK(fired_at[n] >= start + want_i[n] / 2); /* rule 2: t in [I/2, I) */
        CHECK(fired_at[n] < start + want_i[n]);
        start += want_i[n];
    }
    CHECK_EQ(tr.sent, 7);
    CHECK_EQ(tr.suppressed, 0);
    FX_CLEAN(0);
}

TEST(test_trickle__t_is_random_across_intervals)
{
    /* with I = 1000 ms fixed (no doublings), t varies over [500, 1000) */
    wren_trickle_start(node, &tr, 1000, 0, 0);
    run_ms(1000 * 40);
    CHECK_EQ(fired_n, 40);
    uint64_t lo = 1000, hi = 0;
    for (int n = 0; n < 40; n++) {
        uint64_t off = fired_at[n] - 1000u * (uint64_t)n;
        CHECK(off >= 500 && off < 1000);
        lo = off < lo ? off : lo;
        hi = off > hi ? off : hi;
    }
    CHECK(hi - lo > 200); /* not one fixed point */
    FX_CLEAN(0);
}

TEST(test_trickle__k_consistent_suppress)
{
    wren_trickle_start(node, &tr, 100, 2, 2);
    /* first interval: two consistent transmissions heard before t */
    wren_trickle_consistent(&tr);
    wren_trickle_consistent(&tr);
    run_ms(100);
    CHECK_EQ(fired_n, 0);
    CHECK_EQ(tr.suppressed, 1);
    /* second interval: c restarts at 0; one heard (< k) does not suppress */
    CHECK_EQ(tr.c, 0);
    CHECK_EQ(tr.i, 200);
    wren_trickle_consistent(&tr);
    run_ms(300);
    CHECK_EQ(fired_n, 1);
    CHECK_EQ(fired_i[0], 200);
    /* k = 0: never suppressed */
    wren_trickle_start(node, &tr, 100, 2, 0);
    for (int n = 0; n < 100; n++) {
        wren_trickle_consistent(&tr);
    }
    run_ms(300 + 100);
    CHECK_EQ(fired_n, 2);
    FX_CLEAN(0);
}

TEST(test_trickle__inconsistency_resets_to_imin)
{
    wren_trickle_start(node, &tr, 100, 4, 0); /* Imax 1600 */
    run_ms(100 + 200 + 400 + 800 + 10);
    CHECK_EQ(tr.i, 1600);
    int before = fired_n;
    uint64_t t0 = now_ms();
    wren_trickle_inconsistent(node, &tr);
    CHECK_EQ(tr.i, 100);
    run_ms(t0 + 100);
    CHECK_EQ(fired_n, before + 1);
    CHECK(fired_at[before] >= t0 + 50 && fired_at[before] < t0 + 100);
    CHECK_EQ(fired_i[before], 100);
    /* at I = Imin an inconsistency changes nothing (rule 6) */
    CHECK_EQ(tr.i, 200);
    run_ms(t0 + 100 + 200 + 1);
    CHECK_EQ(tr.i, 400);
    wren_trickle_stop(node, &tr);
    wren_trickle_start(node, &tr, 100, 4, 0);
    uint32_t t_before = tr.t;
    uint64_t deadline = tr.timer.deadline;
    wren_trickle_inconsistent(node, &tr);
    CHECK_EQ(tr.t, t_before);
    CHECK_EQ(tr.timer.deadline, deadline);
    FX_CLEAN(0);
}

TEST(test_trickle__stop_and_limits)
{
    wren_trickle_start(node, &tr, 100, 2, 0);
    wren_trickle_stop(node, &tr);
    CHECK(!wren_trickle_running(&tr));
    run_ms(10000);
    CHECK_EQ(fired_n, 0);
    /* stopped: an inconsistency does not start it */
    wren_trickle_inconsistent(node, &tr);
    CHECK(!wren_trickle_running(&tr));
    /* Imax capped at 2^31 ms however many doublings; Imin at least 1 ms */
    wren_trickle_start(node, &tr, 4096, 255, 10);
    CHECK_EQ(tr.imax, WREN_TRICKLE_IMAX_CAP);
    wren_trickle_start(node, &tr, 0, 1, 10);
    CHECK_EQ(tr.imin, 1);
    CHECK_EQ(tr.imax, 2);
    uint32_t sent = tr.sent;
    run_ms(now_ms() + 1000);
    CHECK(tr.sent - sent >= 499 && tr.sent - sent <= 501); /* I = 2 ms: one a period */
    FX_CLEAN(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_trickle__intervals_double_to_imax_t_in_second_half,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_trickle__t_is_random_across_intervals, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_trickle__k_consistent_suppress, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trickle__inconsistency_resets_to_imin, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_trickle__stop_and_limits, setup, teardown),
    };
    return cmocka_run_group_tests_name("trickle", tests, NULL, NULL);
}
