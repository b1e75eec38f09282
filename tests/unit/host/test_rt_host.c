/* The host runtime: timers fire in deadline order and run the node's
 * work, descriptors get their callbacks, signals end the loop. Orders and
 * counts only: nothing is asserted about how long anything took. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "core/node.h"
#include "core/timer.h"
#include "host/rt_host.h"
#include "fixture.h"

static struct wren_host *host;
static struct wren_node *node;
static int order[8];
static int n_order;

/* every test: the fixture's host runtime and a bare node on it */
static int setup(void **state)
{
    fx_setup(state);
    host = fx_host();
    node = &fx_host_node(host, 2048)->node;
    n_order = 0;
    return 0;
}

static void mark(struct wren_timer *t, void *arg)
{
    (void)t;
    order[n_order++] = (int)(intptr_t)arg;
    if (n_order == 3) {
        wren_host_stop(host);
    }
}

TEST(test_host_run__timers_in_deadline_order)
{
    static struct wren_timer t1, t2, t3;
    wren_timer_init(&t1, mark, (void *)1);
    wren_timer_init(&t2, mark, (void *)2);
    wren_timer_init(&t3, mark, (void *)3);
    wren_timer_set(node, &t3, 30000);
    wren_timer_set(node, &t1, 0);
    wren_timer_set(node, &t2, 10000);
    CHECK(wren_host_now() > 0);
    CHECK_EQ(wren_host_run(host), 0);
    CHECK_EQ(n_order, 3);
    CHECK_EQ(order[0], 1);
    CHECK_EQ(order[1], 2);
    CHECK_EQ(order[2], 3);
    CHECK_EQ(host->stats.timers_fired, 3);
    CHECK_EQ(host->stats.timer_overflow, 0);
    CHECK(!wren_timer_armed(&t3));
    wren_host_fini(host);
    CHECK(wren_pktbuf_is_empty(&node->pktbuf));
    FX_CLEAN(0);
}

static int reads;

static void readable(struct wren_host_fd *h, short revents)
{
    char c;
    CHECK(revents & POLLIN);
    CHECK_EQ(read(h->fd, &c, 1), 1);
    reads++;
    if (c == 'q') {
        wren_host_stop(host);
    }
}

TEST(test_host_fd__callback_per_readable_descriptor)
{
    int p[2];
    CHECK_EQ(pipe(p), 0);
    struct wren_host_fd h = {.fd = p[0], .events = POLLIN, .cb = readable};
    CHECK_EQ(wren_host_fd_add(host, &h), 0);
    CHECK_EQ(wren_host_fd_add(host, &h), 0); /* once only */
    CHECK_EQ(host->n_fds, 1);
    reads = 0;
    CHECK_EQ(write(p[1], "abq", 3), 3);
    CHECK_EQ(wren_host_run(host), 0);
    CHECK_EQ(reads, 3);
    /* a descriptor not watched for now gets nothing */
    host->stop = false;
    h.events = 0;
    CHECK_EQ(write(p[1], "x", 1), 1);
    CHECK_EQ(wren_host_run_for(host, 20000), 0);
    CHECK_EQ(reads, 3);
    wren_host_fd_remove(host, &h);
    CHECK_EQ(host->n_fds, 0);
    close(p[0]);
    close(p[1]);
    wren_host_fini(host);
    FX_CLEAN(0);
}

TEST(test_host_fd__table_full)
{
    static struct wren_host_fd h[CONFIG_WREN_HOST_FDS + 1];
    for (unsigned i = 0; i < CONFIG_WREN_HOST_FDS; i++) {
        h[i] = (struct wren_host_fd){.fd = -1};
        CHECK_EQ(wren_host_fd_add(host, &h[i]), 0);
    }
    CHECK_EQ(wren_host_fd_add(host, &h[CONFIG_WREN_HOST_FDS]), -ENOSPC);
    wren_host_fini(host);
    FX_CLEAN(0);
}

TEST(test_host_run__sigterm_ends_the_loop)
{
    static struct wren_timer t;
    wren_timer_init(&t, mark, (void *)9);
    wren_timer_set(node, &t, 3600u * 1000000u); /* an hour: the signal comes first */
    CHECK_EQ(raise(SIGTERM), 0);                 /* blocked: it waits in the signalfd */
    CHECK_EQ(wren_host_run(host), SIGTERM);
    CHECK_EQ(n_order, 0);
    wren_timer_cancel(node, &t);
    wren_host_fini(host);
    FX_CLEAN(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST_SETUP(test_host_run__timers_in_deadline_order, setup),
        FX_TEST_SETUP(test_host_fd__callback_per_readable_descriptor, setup),
        FX_TEST_SETUP(test_host_fd__table_full, setup),
        FX_TEST_SETUP(test_host_run__sigterm_ends_the_loop, setup),
    };
    return cmocka_run_group_tests_name("rt_host", tests, NULL, NULL);
}
