/* The ICMPv6 echo client (src/apps/ping.c) between two 6LoWPAN nodes on
 * the sim medium: a peer that answers a request twice gets "(DUP!)" and a
 * duplicate count, never an extra answer; the loss stays within 0..100 %
 * whatever the replies; ping ends after its count of requests and the wait
 * after the last; a link-local destination leaves through the interface
 * given (-I), else through the first. Every test ends with every node's
 * packet buffer empty. */
#include <errno.h>
#include <string.h>

#include "apps/ping.h"
#include "core/byteorder.h"
#include "fixture.h"
#include "wire/icmpv6_types.h"
#include "wire/ipv6.h"

static struct fx_node *a, *b; /* a pings b */
static struct wren_ping ping;
static char out[4096];
static size_t out_len;

static void collect(void *ctx, const char *s)
{
    (void)ctx;
    size_t n = strlen(s);
    if (out_len + n < sizeof(out)) {
        memcpy(out + out_len, s, n + 1);
        out_len += n;
    }
}

static unsigned count_of(const char *needle)
{
    unsigned c = 0;
    for (const char *p = out; (p = strstr(p, needle)) != NULL; p += strlen(needle)) {
        c++;
    }
    return c;
}

static void ll_of(uint8_t *addr, const struct fx_node *n)
{
    memset(addr, 0, 16);
    addr[0] = 0xfe;
    addr[1] = 0x80;
    wren_ipv6_iid_from_l2(addr + 8, n->nif->long_addr, 8);
}

static int setup(void **state)
{
    fx_setup(state);
    a = fx_node(FX_LOWPAN_NODE);
    b = fx_node(FX_LOWPAN_NODE);
    fx_link2(a, b);
    memset(&ping, 0, sizeof(ping));
    out[0] = 0;
    out_len = 0;
    fx_run_us(100000);
    return 0;
}

/* b answers each request it gets @p extra more times (a peer without a
 * duplicate filter behind a link that repeats frames): the echo request
 * @p sink recorded, sent back as a reply */
static void answer_again(struct fx_sink *sink, unsigned extra)
{
    CHECK(sink->len >= 8 && sink->data[0] == ICMPV6_ECHO_REQUEST);
    uint8_t m[1500], dst[16];
    memcpy(m, sink->data, sink->len);
    m[0] = ICMPV6_ECHO_REPLY;
    ll_of(dst, a);
    for (unsigned i = 0; i < extra; i++) {
        CHECK_EQ(wren_icmpv6_send(&b->node, NULL, dst, 0, 0, m, sink->len), 0);
        fx_run_us(30000);
    }
}

TEST(test_ping__second_reply_is_a_duplicate_not_an_answer)
{
    struct fx_sink *req = fx_sink(b, WREN_NETTYPE_IPV6, IPV6_NH_ICMPV6);
    uint8_t dst[16];
    ll_of(dst, b);
    CHECK_EQ(wren_ping_start(&a->node, &ping, dst, 2, 16, 500000, 0, collect, NULL), 0);
    fx_run_us(100000); /* request 0 and b's own reply */
    CHECK_EQ(req->got, 1);
    answer_again(req, 1);
    CHECK_EQ(ping.rx, 1);
    CHECK_EQ(ping.dup, 1);
    CHECK(ping.running); /* request 1 is still to come */
    fx_run_us(500000);   /* request 1, answered once */
    CHECK(!ping.running);
    CHECK_EQ(ping.tx, 2);
    CHECK_EQ(ping.rx, 2);
    CHECK_EQ(count_of("(DUP!)"), 1);
    CHECK_EQ(count_of("icmp_seq=0 "), 2);
    CHECK(strstr(out, "2 packets transmitted, 2 received, +1 duplicates, 0% packet loss") != NULL);
    FX_CLEAN(1000000);
}

/* Counted as answers, three replies to the first of two requests made
 * "2 received" of one sent: ping stopped before its second request and the
 * loss (1 - 2) * 100 / 1 wrapped around */
TEST(test_ping__duplicates_neither_end_ping_nor_wrap_the_loss)
{
    struct fx_sink *req = fx_sink(b, WREN_NETTYPE_IPV6, IPV6_NH_ICMPV6);
    uint8_t dst[16];
    ll_of(dst, b);
    CHECK_EQ(wren_ping_start(&a->node, &ping, dst, 2, 0, 1000000, 0, collect, NULL), 0);
    fx_run_us(100000);
    answer_again(req, 2);
    CHECK(ping.running);
    CHECK_EQ(ping.tx, 1);
    CHECK_EQ(ping.rx, 1);
    CHECK_EQ(ping.dup, 2);
    fx_run_us(3500000); /* request 1 and the wait after it */
    CHECK(!ping.running);
    CHECK_EQ(ping.tx, 2);
    CHECK_EQ(ping.rx, 2);
    CHECK(strstr(out, "2 packets transmitted, 2 received, +2 duplicates, 0% packet loss") != NULL);
    FX_CLEAN(1000000);
}

/* A reply to a request that left the window of the last 16 (seq 0 after
 * request 17 went) is late: neither an answer nor a duplicate */
TEST(test_ping__reply_older_than_the_window_is_late)
{
    uint8_t dst[16], src[16];
    ll_of(dst, b);
    ll_of(src, a);
    CHECK_EQ(wren_ping_start(&a->node, &ping, dst, 20, 8, 100000, 0, collect, NULL), 0);
    fx_run_us(1750000); /* requests 0..17 sent and answered */
    CHECK_EQ(ping.next_seq, 18);
    CHECK_EQ(ping.rx, 18);
    uint8_t m[16] = { ICMPV6_ECHO_REPLY, 0, 0, 0, 0, 0, 0, 0 };
    put_be16(m + 4, ping.id);
    for (unsigned i = 0; i < 8; i++) {
        m[8 + i] = (uint8_t)i; /* seq 0's pattern */
    }
    CHECK_EQ(wren_icmpv6_send(&b->node, NULL, src, 0, 0, m, sizeof(m)), 0);
    fx_run_us(30000);
    CHECK_EQ(ping.late, 1);
    CHECK_EQ(ping.dup, 0);
    CHECK_EQ(ping.rx, 18);
    fx_run_us(500000);
    CHECK(!ping.running);
    CHECK(strstr(out, "20 packets transmitted, 20 received, +1 late, 0% packet loss") != NULL);
    FX_CLEAN(1000000);
}

/* No answer at all: ping sends its count of requests, waits, and ends at
 * 100 % (never more); a reply after the end is nobody's */
TEST(test_ping__ends_after_count_and_wait_at_100_percent)
{
    uint8_t nobody[16] = { 0xfe, 0x80, [8] = 0x02, [15] = 0x99 };
    CHECK_EQ(wren_ping_start(&a->node, &ping, nobody, 3, 8, 200000, 0, collect, NULL), 0);
    fx_run_us(400000 + 1900000); /* requests at 0, 0.2 and 0.4 s; the wait is 2 s */
    CHECK(ping.running);
    CHECK_EQ(ping.tx, 3);
    fx_run_us(200000);
    CHECK(!ping.running);
    CHECK_EQ(ping.tx, 3);
    CHECK(strstr(out, "3 packets transmitted, 0 received, 100% packet loss") != NULL);
    CHECK_EQ(wren_ping_start(&a->node, &ping, nobody, 0, 8, 200000, 0, collect, NULL), -EINVAL);
    FX_CLEAN(1000000);
}

/* A link-local destination leaves through the first interface unless one
 * is given: b is on a's first interface (the radio), nothing on its second
 * (a loopback device of its own) */
TEST(test_ping__link_local_leaves_through_the_interface_given)
{
    struct wren_ieee802154_netif *if2 = fx_if154_add(a);
    CHECK_EQ(wren_ipv6_netif_add(a->ip, if2->netif.id), 0);
    fx_run_us(100000);
    uint8_t dst[16];
    ll_of(dst, b);
    uint32_t tx1 = a->netif->stats.tx_frames, tx2 = if2->netif.stats.tx_frames;
    CHECK_EQ(wren_ping_start(&a->node, &ping, dst, 2, 8, 100000, if2->netif.id, collect, NULL),
             0);
    fx_run_us(2500000);
    CHECK(!ping.running);
    CHECK_EQ(ping.rx, 0);
    CHECK_EQ(if2->netif.stats.tx_frames - tx2, 2);
    CHECK_EQ(a->netif->stats.tx_frames - tx1, 0);
    /* the first interface, named or by default: b answers */
    for (uint8_t id = a->if_id;; id = 0) {
        CHECK_EQ(wren_ping_start(&a->node, &ping, dst, 2, 8, 100000, id, collect, NULL), 0);
        fx_run_us(500000);
        CHECK(!ping.running);
        CHECK_EQ(ping.rx, 2);
        if (id == 0) {
            break;
        }
    }
    CHECK_EQ(if2->netif.stats.tx_frames - tx2, 2);
    CHECK_EQ(wren_ping_start(&a->node, &ping, dst, 1, 8, 100000, 77, collect, NULL), -ENODEV);
    CHECK(!ping.running);
    FX_CLEAN(1000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST_SETUP(test_ping__second_reply_is_a_duplicate_not_an_answer, setup),
        FX_TEST_SETUP(test_ping__duplicates_neither_end_ping_nor_wrap_the_loss, setup),
        FX_TEST_SETUP(test_ping__reply_older_than_the_window_is_late, setup),
        FX_TEST_SETUP(test_ping__ends_after_count_and_wait_at_100_percent, setup),
        FX_TEST_SETUP(test_ping__link_local_leaves_through_the_interface_given, setup),
    };
    return cmocka_run_group_tests_name("ping", tests, NULL, NULL);
}
