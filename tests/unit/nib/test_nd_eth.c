/* Classic neighbor discovery over Ethernet between two nodes on a wire (a
 * loopback pair framed by the Ethernet link layer): DAD, address
 * resolution with a held packet, giving up, duplicates, and not answering
 * for addresses that are not ours. Virtual time: no wall clock. */
#include <errno.h>
#include <string.h>

#include "core/node.h"
#include "drivers/loopback.h"
#include "icmpv6/icmpv6.h"
#include "ipv6/ipv6.h"
#include "link/ethernet_link.h"
#include "net/netapi.h"
#include "nib/nd_eth.h"
#include "sim/world.h"
#include "fixture.h"
#include "wire/icmpv6_types.h"

static struct fx_node *a, *b;

/* fe80::57:52ff:fe00:N from MAC 02:57:52:00:00:N */
static void ll_of(uint8_t *addr, uint8_t n)
{
    static const uint8_t ll[16] = {0xfe, 0x80, [9] = 0x57, 0x52, 0xff, 0xfe, 0, 0, 0};
    memcpy(addr, ll, 16);
    addr[15] = n;
}

/* two hosts on a wire: Ethernet, IPv6, ICMPv6, ND; MACs 02:57:52:00:00:01 and :02 */
static int setup(void **state)
{
    fx_setup(state);
    fx_wire(FX_ETHERNET | FX_IPV6 | FX_ICMPV6 | FX_ND_ETH, 8192, 7, &a, &b);
    return 0;
}

static uint8_t addr_state(struct fx_node *h, const uint8_t *addr)
{
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
        const struct wren_ipv6_addr *x = &h->ip->ifs[0].addrs[i];
        if (x->state && memcmp(x->addr, addr, 16) == 0) {
            return x->state;
        }
    }
    return WREN_IPV6_ADDR_UNUSED;
}

static void run_ms(uint64_t ms)
{
    fx_run_us(ms * 1000u);
}

static int echo(struct fx_node *from, const uint8_t *dst, uint16_t seq)
{
    uint8_t m[16] = {ICMPV6_ECHO_REQUEST, 0, 0, 0, 0x12, 0x34, 0, (uint8_t)seq, 'w', 'r'};
    return wren_icmpv6_send(&from->node, NULL, dst, 0, from->eth->netif.id, m, sizeof(m));
}

#define TEARDOWN() FX_CLEAN(60000000)

TEST(test_nd_eth_init__link_local_tentative_then_valid)
{
    uint8_t lla[16];
    ll_of(lla, 1);
    CHECK_EQ(addr_state(a, lla), WREN_IPV6_ADDR_TENTATIVE);
    CHECK_EQ(a->ip->ifs[0].mtu,
             CONFIG_WREN_LOOPBACK_MTU - 14 > 1280 ? CONFIG_WREN_LOOPBACK_MTU - 14 : 1280);
    run_ms(2100); /* at most 1 s of delay, then 1 s of listening */
    CHECK_EQ(addr_state(a, lla), WREN_IPV6_ADDR_VALID);
    CHECK_EQ(a->nd->stats.dad_ok, 1);
    CHECK_EQ(b->nd->stats.dad_ok, 1);
    CHECK_EQ(a->nd->stats.tx_ns, 1); /* the DAD probe */
    /* each heard the other's probe, for an address that is not its own: no answer */
    CHECK_EQ(a->nd->stats.tx_na + b->nd->stats.tx_na, 0);
    CHECK_EQ(a->nd->stats.dad_dup + b->nd->stats.dad_dup, 0);
    TEARDOWN();
}

TEST(test_nd_eth_hold__resolves_and_sends_the_held_packet)
{
    run_ms(2100);
    uint8_t llb[16], lla[16];
    ll_of(llb, 2);
    ll_of(lla, 1);
    CHECK_EQ(echo(a, llb, 1), 0);
    run_ms(100);
    CHECK_EQ(a->nd->stats.res_ok, 1);
    CHECK_EQ(b->icmp->stats.rx_echo_req, 1);
    CHECK_EQ(b->icmp->stats.tx_echo_reply, 1);
    /* b learned a from the solicitation (STALE) and answered without asking
     * (its one NS is its DAD probe) */
    CHECK_EQ(b->nd->stats.tx_ns, 1);
    CHECK_EQ(b->nd->stats.tx_na, 1);
    CHECK_EQ(a->nd->nc[0].state, WREN_ND_REACHABLE);
    CHECK_MEM(a->nd->nc[0].mac, b->eth->mac, 6);
    CHECK(b->nd->nc[0].state == WREN_ND_STALE || b->nd->nc[0].state == WREN_ND_DELAY);
    /* the next one goes at once */
    CHECK_EQ(echo(a, llb, 2), 0);
    run_ms(100);
    CHECK_EQ(b->icmp->stats.rx_echo_req, 2);
    CHECK_EQ(a->nd->stats.tx_ns, 2); /* DAD probe + one solicitation */
    /* b used its stale entry: after DELAY_FIRST_PROBE_TIME it probes, a confirms */
    run_ms(7000);
    CHECK_EQ(b->nd->nc[0].state, WREN_ND_REACHABLE);
    CHECK_EQ(b->nd->stats.tx_ns, 2);
    CHECK_EQ(a->nd->stats.tx_na, 1);
    TEARDOWN();
}

TEST(test_nd_eth_hold__gives_up_after_three_solicitations)
{
    run_ms(2100);
    uint8_t nobody[16];
    ll_of(nobody, 9);
    CHECK_EQ(echo(a, nobody, 1), 0);
    CHECK_EQ(echo(a, nobody, 2), 0); /* replaces the first */
    run_ms(500);
    CHECK_EQ(a->nd->stats.held_replaced, 1);
    CHECK_EQ(a->nd->nc[0].state, WREN_ND_INCOMPLETE);
    CHECK(a->nd->nc[0].held != NULL);
    run_ms(3000);
    CHECK_EQ(a->nd->stats.res_failed, 1);
    CHECK_EQ(a->nd->stats.held_dropped, 2);
    CHECK_EQ(a->nd->stats.tx_ns, 1 + 3);
    CHECK_EQ(a->nd->nc[0].state, WREN_ND_FREE);
    CHECK_EQ(b->nd->stats.tx_na, 0); /* not b's address: b never answers */
    TEARDOWN();
}

TEST(test_nd_eth_dad__duplicate_is_removed)
{
    run_ms(2100);
    static const uint8_t x[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x42};
    CHECK_EQ(wren_nd_eth_addr_add(b->nd, x, 64), 0);
    run_ms(2100);
    CHECK_EQ(addr_state(b, x), WREN_IPV6_ADDR_VALID);
    /* a wants the same address: b defends it, a gives it up */
    CHECK_EQ(wren_nd_eth_addr_add(a->nd, x, 64), 0);
    CHECK_EQ(addr_state(a, x), WREN_IPV6_ADDR_TENTATIVE);
    run_ms(2100);
    CHECK_EQ(a->nd->stats.dad_dup, 1);
    CHECK_EQ(addr_state(a, x), WREN_IPV6_ADDR_UNUSED);
    CHECK_EQ(addr_state(b, x), WREN_IPV6_ADDR_VALID);
    CHECK_EQ(b->nd->stats.tx_na, 1);
    CHECK_EQ(wren_nd_eth_addr_add(a->nd, (const uint8_t[16]){0xff, 0x02, [15] = 1}, 64), -EINVAL);
    TEARDOWN();
}

TEST(test_nd_eth_get__other_interfaces_and_unknown)
{
    uint8_t q[16];
    ll_of(q, 2);
    CHECK_EQ(wren_netapi_get(&a->node, &a->nd->module, WREN_NETOPT_NIB_L2, a->nd->if_id, q, 16),
             -ENOENT);
    CHECK_EQ(wren_netapi_get(&a->node, &a->nd->module, WREN_NETOPT_NIB_L2, a->nd->if_id + 1, q, 16),
             -EINVAL);
    struct wren_nib_hold h = {.pkt = NULL};
    CHECK_EQ(
        wren_netapi_set(&a->node, &a->nd->module, WREN_NETOPT_NIB_HOLD, a->nd->if_id + 1, &h,
                        sizeof(h)),
        -EINVAL);
    CHECK_EQ(
        wren_netapi_set(&a->node, &a->nd->module, WREN_NETOPT_NIB_HOLD, a->nd->if_id, &h,
                        sizeof(h)),
        -EINVAL);
    TEARDOWN();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST_SETUP(test_nd_eth_init__link_local_tentative_then_valid, setup),
        FX_TEST_SETUP(test_nd_eth_hold__resolves_and_sends_the_held_packet, setup),
        FX_TEST_SETUP(test_nd_eth_hold__gives_up_after_three_solicitations, setup),
        FX_TEST_SETUP(test_nd_eth_dad__duplicate_is_removed, setup),
        FX_TEST_SETUP(test_nd_eth_get__other_interfaces_and_unknown, setup),
    };
    return cmocka_run_group_tests_name("nd_eth", tests, NULL, NULL);
}
