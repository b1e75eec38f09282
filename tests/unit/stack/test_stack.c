/* The stack assembly (src/stack/stack.h): building nodes from descriptions,
 * per-interface modules, building in steps, pool sizes, and the counters
 * and shell commands found through it. */
#include <errno.h>
#include <string.h>

#include "fixture.h"
#include "shell/shell.h"
#include "stack/modules.h"
#include "stack/stack.h"

static const struct wren_module_ops *const all_mods[] = WREN_STACK_ALL_MODULES;
static struct wren_loopback lo[2];
static _Alignas(8) uint8_t pool[48 * 1024];
static struct wren_stack made;

/* a bare node with two 802.15.4 interfaces on loopback devices */
static struct fx_node *two_if_node(struct wren_stack_desc *d, struct wren_stack_iface *ifs)
{
    struct fx_node *n = fx_node(0);
    for (unsigned i = 0; i < 2; i++) {
        wren_loopback_setup(&lo[i], WREN_NETDEV_TYPE_IEEE802154, 125);
        ifs[i] = (struct wren_stack_iface){ .link = &wren_link_ieee802154, .dev = &lo[i].netdev };
    }
    *d = (struct wren_stack_desc){ .ifaces = ifs, .n_ifaces = 2, .mods = all_mods,
                                   .n_mods = WREN_STACK_ARRAY_LEN(all_mods) };
    memset(pool, 0, sizeof(pool));
    memset(&made, 0, sizeof(made));
    return n;
}

TEST(test_wren_stack_build__per_interface_modules_and_modules_left_out)
{
    struct wren_stack_iface ifs[2];
    struct wren_stack_desc d;
    struct fx_node *n = two_if_node(&d, ifs);
    size_t need = wren_stack_pool_size(NULL, &d);
    CHECK(need > 0 && need <= sizeof(pool));
    CHECK_EQ(wren_stack_build(&n->node, &d, pool, need, &made), 0);
    /* one NIB per 802.15.4 interface, no Ethernet ND, one of everything else */
    CHECK(wren_stack_module(&made, &wren_nib_module, 1) != NULL);
    CHECK(wren_stack_module(&made, &wren_nib_module, 2) != NULL);
    CHECK(wren_stack_module(&made, &wren_nib_module, 1) !=
          wren_stack_module(&made, &wren_nib_module, 2));
    CHECK(wren_stack_module(&made, &wren_nd_eth_module, 0) == NULL);
    CHECK(wren_stack_module(&made, &wren_sixlowpan_module, 0) != NULL);
    CHECK(wren_stack_module(&made, &wren_rpl_module, 1) != NULL);
    CHECK(wren_stack_module(&made, &wren_rpl_module, 2) != NULL);
    /* 6LoWPAN, IPv6, ICMPv6, UDP, TCP, CoAP, CoAP over TCP, (the CoAP plugtest,) two
     * NIBs, two RPLs, two 6tops, NDN */
    CHECK_EQ(made.n, 14 + CONFIG_WREN_COAP_PLUGTEST);
    /* the second interface's sets carry its id */
    uint64_t v = 99;
    CHECK_EQ(wren_stack_counter(&n->node, "nib.rx_rs", &v), 0);
    CHECK_EQ(v, 0);
    CHECK_EQ(wren_stack_counter(&n->node, "nib2.rx_rs", &v), 0);
    CHECK_EQ(wren_stack_counter(&n->node, "rpl2.rx_dio", &v), 0);
    CHECK_EQ(wren_stack_counter(&n->node, "netif2.rx_frames", &v), 0);
    CHECK_EQ(wren_stack_counter(&n->node, "nd.rx_ns", &v), -ENOENT);
    CHECK_EQ(wren_stack_counter(&n->node, "udp.no_such_counter", &v), -ENOENT);
    FX_CLEAN(1000);
}

TEST(test_wren_stack_build__pool_too_small_is_enomem)
{
    struct wren_stack_iface ifs[2];
    struct wren_stack_desc d;
    struct fx_node *n = two_if_node(&d, ifs);
    size_t need = wren_stack_pool_size(NULL, &d);
    CHECK_EQ(wren_stack_build(&n->node, &d, pool, need - 8, NULL), -ENOMEM);
    FX_CLEAN(1000);
}

TEST(test_wren_stack_build__in_steps_modules_serve_earlier_interfaces)
{
    struct wren_stack_iface ifs[2];
    struct wren_stack_desc d;
    struct fx_node *n = two_if_node(&d, ifs);
    struct wren_stack_desc if_only = { .ifaces = ifs, .n_ifaces = 2 };
    struct wren_stack_desc mods_only = { .mods = all_mods,
                                         .n_mods = WREN_STACK_ARRAY_LEN(all_mods) };
    size_t a = wren_stack_pool_size(NULL, &if_only);
    CHECK_EQ(wren_stack_build(&n->node, &if_only, pool, a, &made), 0);
    /* now that the interfaces exist, the modules need what they would in one step */
    size_t b = wren_stack_pool_size(&n->node, &mods_only);
    CHECK_EQ(a + b, wren_stack_pool_size(NULL, &d));
    CHECK_EQ(wren_stack_build(&n->node, &mods_only, pool + a, b, &made), 0);
    CHECK(wren_stack_module(&made, &wren_nib_module, 1) != NULL);
    CHECK(wren_stack_module(&made, &wren_nib_module, 2) != NULL);
    FX_CLEAN(1000);
}

/* shell output, collected */
static char out[16384];
static size_t out_len;
static void collect(void *ctx, const char *s)
{
    (void)ctx;
    size_t k = strlen(s);
    if (out_len + k < sizeof(out)) {
        memcpy(out + out_len, s, k + 1);
        out_len += k;
    }
}

TEST(test_wren_shell__module_commands_and_stats_come_from_the_modules)
{
    struct wren_stack_iface ifs[2];
    struct wren_stack_desc d;
    struct fx_node *n = two_if_node(&d, ifs);
    CHECK_EQ(wren_stack_build(&n->node, &d, pool, sizeof(pool), NULL), 0);
    static struct wren_shell sh;
    wren_shell_init(&sh, &n->node, collect, NULL);
    out_len = 0;
    out[0] = 0;
    CHECK_EQ(wren_shell_exec(&sh, "help"), 0);
    /* the modules' commands, each once although there are two NIBs */
    CHECK(strstr(out, "\nfib ") && strstr(out, "\nforward ") && strstr(out, "\nnib "));
    CHECK(strstr(strstr(out, "\nnib ") + 1, "\nnib ") == NULL);
    CHECK(strstr(out, "\nnd ") == NULL);
    out_len = 0;
    CHECK_EQ(wren_shell_exec(&sh, "ping ::1 -c 1"), 0);
    fx_run_us(100000);
    uint64_t v = 0;
    CHECK_EQ(wren_stack_counter(&n->node, "icmpv6.tx_echo_reply", &v), 0);
    CHECK_EQ(v, 1);
    out_len = 0;
    CHECK_EQ(wren_shell_exec(&sh, "stats"), 0);
    CHECK(strstr(out, "icmpv6: ") && strstr(out, " tx_echo_reply 1"));
    CHECK(strstr(out, "\nnib2: ") && strstr(out, "\nnetif2: "));
    CHECK_EQ(wren_shell_exec(&sh, "nd"), -ENOENT); /* no Ethernet ND on this node */
    FX_CLEAN(1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_wren_stack_build__per_interface_modules_and_modules_left_out),
        FX_TEST(test_wren_stack_build__pool_too_small_is_enomem),
        FX_TEST(test_wren_stack_build__in_steps_modules_serve_earlier_interfaces),
        FX_TEST(test_wren_shell__module_commands_and_stats_come_from_the_modules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
