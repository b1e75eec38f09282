/* Unit tests of the node core on the sim runtime: scheduler priorities and
 * queue exhaustion, one-shot and periodic timers, cooperative threads. */
#include <errno.h>
#include <string.h>

#include "core/module.h"
#include "core/node.h"
#include "core/sched.h"
#include "core/thread.h"
#include "core/timer.h"
#include "sim/world.h"
#include "fixture.h"

static struct wren_node *node;

/* every test: a bare node (a 1 KiB packet buffer, seed 7) on the fixture's world */
static int setup(void **state)
{
    fx_setup(state);
    node = &fx_node_ex(0, 1024, 1, 7)->node;
    return 0;
}

/* a module that logs what it handles */
struct logmod {
    struct wren_module module;
    char tag;
    char *log;
};

static void log_handle(struct wren_node *n, struct wren_module *self,
                       const struct wren_msg *msg)
{
    (void)n;
    struct logmod *m = (struct logmod *)self;
    size_t len = strlen(m->log);
    m->log[len] = m->tag;
    m->log[len + 1] = (char)('0' + msg->arg);
    m->log[len + 2] = 0;
}

static const struct wren_module_ops log_ops = { .name = "log", .handle = log_handle };

TEST(test_sched__priorities_then_fifo)
{
    char log[64] = "";
    struct logmod app = { { .ops = &log_ops, .prio = WREN_PRIO_APP }, 'a', log };
    struct logmod net = { { .ops = &log_ops, .prio = WREN_PRIO_NET }, 'n', log };
    struct logmod link = { { .ops = &log_ops, .prio = WREN_PRIO_LINK }, 'l', log };
    struct wren_msg m = { .type = WREN_MSG_USER };
    m.arg = 1; wren_sched_post(node, &app.module, &m);
    m.arg = 2; wren_sched_post(node, &net.module, &m);
    m.arg = 3; wren_sched_post(node, &app.module, &m);
    m.arg = 4; wren_sched_post(node, &link.module, &m);
    m.arg = 5; wren_sched_post(node, &net.module, &m);
    CHECK_EQ(strlen(log), 0); /* nothing runs until the runtime runs the node */
    wren_world_run_until(&fx.world, 0);
    CHECK(strcmp(log, "l4n2n5a1a3") == 0);
    FX_CLEAN(0);
}

TEST(test_sched__full_queue_refuses_and_counts)
{
    char log[128] = "";
    struct logmod app = { { .ops = &log_ops, .prio = WREN_PRIO_APP }, 'a', log };
    struct wren_msg m = { .type = WREN_MSG_USER };
    for (int i = 0; i < CONFIG_WREN_SCHED_QUEUE_LEN; i++) {
        CHECK_EQ(wren_sched_post(node, &app.module, &m), 0);
    }
    CHECK_EQ(wren_sched_post(node, &app.module, &m), -ENOBUFS);
    CHECK_EQ(node->sched.full_drops, 1);
    CHECK_EQ(node->sched.high_water, CONFIG_WREN_SCHED_QUEUE_LEN);
    wren_world_run_until(&fx.world, 0);
    CHECK_EQ(strlen(log), 2 * CONFIG_WREN_SCHED_QUEUE_LEN);
    /* the queue works again */
    CHECK_EQ(wren_sched_post(node, &app.module, &m), 0);
    wren_world_run_until(&fx.world, 0);
    FX_CLEAN(0);
}

static uint64_t fired_at[16];
static int fired_n;
static void record(struct wren_timer *t, void *arg)
{
    (void)t;
    (void)arg;
    fired_at[fired_n++] = node->rt_ops->now(node->rt);
}

TEST(test_timer__one_shot_periodic_cancel)
{
    fired_n = 0;
    static struct wren_timer a, b, c; /* static: armed past a failed CHECK */
    wren_timer_init(&a, record, NULL);
    wren_timer_init(&b, record, NULL);
    wren_timer_init(&c, record, NULL);
    wren_timer_set(node, &a, 1500);
    wren_timer_set_periodic(node, &b, 1000);
    wren_timer_set(node, &c, 500);
    CHECK(wren_timer_armed(&c));
    wren_timer_cancel(node, &c);
    CHECK(!wren_timer_armed(&c));
    wren_world_run_until(&fx.world, 3500);
    CHECK_EQ(fired_n, 4);
    CHECK_EQ(fired_at[0], 1000);
    CHECK_EQ(fired_at[1], 1500);
    CHECK_EQ(fired_at[2], 2000);
    CHECK_EQ(fired_at[3], 3000);
    wren_timer_cancel(node, &b);
    wren_world_run_until(&fx.world, 10000);
    CHECK_EQ(fired_n, 4);
    CHECK_EQ(fx.world.now, 10000);
    FX_CLEAN(0);
}

static char order_log[16];
static void record_order(struct wren_timer *t, void *arg)
{
    (void)t;
    strncat(order_log, arg, 1);
}

TEST(test_timer__same_deadline_fires_in_arm_order)
{
    order_log[0] = 0;
    static struct wren_timer t[3];
    wren_timer_init(&t[0], record_order, "a");
    wren_timer_init(&t[1], record_order, "b");
    wren_timer_init(&t[2], record_order, "c");
    /* rearming moves a timer behind others with the same deadline */
    wren_timer_set(node, &t[0], 100);
    wren_timer_set(node, &t[1], 100);
    wren_timer_set(node, &t[2], 100);
    wren_timer_set(node, &t[0], 100);
    wren_world_run_until(&fx.world, 100);
    CHECK(strcmp(order_log, "bca") == 0);
    FX_CLEAN(0);
}

/* threads */
struct thr_ctx {
    int status[4];
    uint64_t when[4];
    int steps;
    struct wren_thread *other;
};

static void sleeper(void *arg)
{
    struct thr_ctx *c = arg;
    c->status[0] = wren_thread_block(node, 2000);       /* times out */
    c->when[0] = wren_node_now(node);
    c->status[1] = wren_thread_block(node, WREN_THREAD_FOREVER); /* woken */
    c->when[1] = wren_node_now(node);
    wren_thread_sleep(node, 500);
    c->when[2] = wren_node_now(node);
    c->steps = 3;
}

static void waker_cb(struct wren_timer *t, void *arg)
{
    (void)t;
    struct thr_ctx *c = arg;
    wren_thread_wakeup(c->other, 42);
}

TEST(test_thread__block_timeout_wakeup_sleep)
{
    static uint8_t stack[64 * 1024];
    static struct wren_thread th;
    struct thr_ctx c = { 0 };
    c.other = &th;
    CHECK_EQ(wren_thread_start(node, &th, stack, sizeof(stack), sleeper, &c, "t"), 0);
    static struct wren_timer waker;
    wren_timer_init(&waker, waker_cb, &c);
    wren_timer_set(node, &waker, 5000);
    CHECK_EQ(wren_thread_block(node, 10), -EDEADLK); /* not in a thread */
    wren_world_run_until(&fx.world, 100000);
    CHECK_EQ(c.steps, 3);
    CHECK_EQ(c.status[0], -ETIMEDOUT);
    CHECK_EQ(c.when[0], 2000);
    CHECK_EQ(c.status[1], 42);
    CHECK_EQ(c.when[1], 5000);
    CHECK_EQ(c.when[2], 5500);
    CHECK_EQ(th.state, WREN_THREAD_DONE);
    CHECK(!wren_timer_armed(&th.timeout));
    FX_CLEAN(0);
}

static void yielder(void *arg)
{
    char *log = arg;
    for (int i = 0; i < 3; i++) {
        strcat(log, log[0] == 0 || log[strlen(log) - 1] != 'x' ? "x" : "y");
        wren_thread_yield(node);
    }
}

TEST(test_thread__two_threads_interleave_on_yield)
{
    static uint8_t s1[32 * 1024], s2[32 * 1024];
    static struct wren_thread t1, t2;
    char log[16] = "";
    CHECK_EQ(wren_thread_start(node, &t1, s1, sizeof(s1), yielder, log, "a"), 0);
    CHECK_EQ(wren_thread_start(node, &t2, s2, sizeof(s2), yielder, log, "b"), 0);
    wren_world_run_until(&fx.world, 10);
    CHECK(strcmp(log, "xyxyxy") == 0);
    CHECK_EQ(t1.state, WREN_THREAD_DONE);
    CHECK_EQ(t2.state, WREN_THREAD_DONE);
    CHECK_EQ(wren_thread_start(node, &t1, s1, 16, yielder, log, "small"), -EINVAL);
    FX_CLEAN(0);
}

TEST(test_random__deterministic_per_seed_and_bounded)
{
    /* two nodes with the same id and seed, one with another id */
    struct wren_node *a = &fx_node_ex(0, 64, 1, 99)->node;
    struct wren_node *b = &fx_node_ex(0, 64, 1, 99)->node;
    struct wren_node *c = &fx_node_ex(0, 64, 2, 99)->node;
    int same_c = 0;
    for (int i = 0; i < 100; i++) {
        uint32_t x = wren_node_random(a);
        CHECK_EQ(x, wren_node_random(b));
        same_c += x == wren_node_random(c);
        CHECK(wren_node_random_below(a, 7) < 7);
        CHECK(wren_node_random_below(b, 7) < 7);
    }
    CHECK(same_c < 3);
    FX_CLEAN(0);
}

/* wren_us_to_s (32-bit long division) agrees with the 64-bit division it
 * replaces, at the edges of each 16-bit step and beyond 2^32 seconds */
TEST(test_time__seconds_without_64_bit_division)
{
    static const uint64_t at[] = {
        0, 1, 63, 64, 999999, 1000000, 1000001, 1999999, 0xffffffffu, 0x100000000u,
        (1ull << 38) - 1, 1ull << 38, 0x0000ffffffffffffull, 4294967296000000ull - 1,
        4294967296000000ull, 4294967296000001ull * 3, UINT64_MAX - 1, UINT64_MAX,
    };
    for (unsigned i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
        CHECK_EQ(wren_us_to_s(at[i]), (uint32_t)(at[i] / 1000000u));
    }
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 10000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        CHECK_EQ(wren_us_to_s(x), (uint32_t)(x / 1000000u));
        CHECK_EQ(wren_us_to_s(x >> (i % 64)), (uint32_t)((x >> (i % 64)) / 1000000u));
    }
    FX_CLEAN(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST_SETUP(test_sched__priorities_then_fifo, setup),
        FX_TEST_SETUP(test_time__seconds_without_64_bit_division, setup),
        FX_TEST_SETUP(test_sched__full_queue_refuses_and_counts, setup),
        FX_TEST_SETUP(test_timer__one_shot_periodic_cancel, setup),
        FX_TEST_SETUP(test_timer__same_deadline_fires_in_arm_order, setup),
        FX_TEST_SETUP(test_thread__block_timeout_wakeup_sleep, setup),
        FX_TEST_SETUP(test_thread__two_threads_interleave_on_yield, setup),
        FX_TEST_SETUP(test_random__deterministic_per_seed_and_bounded, setup),
    };
    return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
