/**
 * @file test_schc_module.c
 * @brief The SCHC module over a LoRaWAN interface: two nodes whose LoRa
 *        interfaces are a pair of loopback devices carrying LoRaWAN frames
 *        (a sensor in the device role, a router in the network role),
 *        UDP through IPv6, SCHC and LoRaWAN both ways, whole and in
 *        fragments, hostile frames, the rule option.
 */
#include <errno.h>

#include "core/byteorder.h"
#include "fixture.h"
#include "net/netapi.h"
#include "sock/sock_udp.h"
#include "wire/lorawan.h"

static struct fx_node *a, *b; /* a: the sensor (device), b: the router (network) */
static struct wren_sock_udp sa, sb;

static int setup(void **state)
{
    fx_setup(state);
    fx_wire(FX_LORA | FX_IP | FX_SCHC, 24576, 3, &a, &b);
    struct wren_lorawan_session s = { .devaddr = 0x26011234, .nwkskey = { 1, 2, 3 },
                                      .appskey = { 4, 5, 6 }, .role = WREN_LORAWAN_ROLE_DEVICE };
    CHECK_EQ(wren_netapi_set(&a->node, &a->netif->module, WREN_NETOPT_LORAWAN_SESSION, 0, &s,
                             sizeof(s)), 0);
    s.role = WREN_LORAWAN_ROLE_NETWORK;
    CHECK_EQ(wren_netapi_set(&b->node, &b->netif->module, WREN_NETOPT_LORAWAN_SESSION, 0, &s,
                             sizeof(s)), 0);
    /* RFC 9011's 12-hour timers, made a lab's: 10 s for an ACK, 22 s idle */
    const uint32_t timers[2] = { 10000, 22000 };
    CHECK_EQ(wren_netapi_set(&a->node, &a->schc->module, WREN_NETOPT_SCHC_TIMERS, 0, timers,
                             sizeof(timers)), 0);
    CHECK_EQ(wren_netapi_set(&b->node, &b->schc->module, WREN_NETOPT_SCHC_TIMERS, 0, timers,
                             sizeof(timers)), 0);
    struct wren_sock_udp_ep la = { .port = 0xf0b1 }, lb = { .port = 0xf0b2 };
    CHECK_EQ(wren_sock_udp_create(&a->node, &sa, &la, NULL), 0);
    CHECK_EQ(wren_sock_udp_create(&b->node, &sb, &lb, NULL), 0);
    return 0;
}

static int teardown(void **state)
{
    wren_sock_udp_close(&sa);
    wren_sock_udp_close(&sb);
    return fx_teardown(state);
}

#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

static void link_local(const struct fx_node *n, uint8_t *addr)
{
    CHECK(n->ip->ifs[0].addrs[0].state != 0);
    memcpy(addr, n->ip->ifs[0].addrs[0].addr, 16);
    CHECK_EQ(addr[0], 0xfe);
}

static void send_to(struct wren_sock_udp *s, const struct fx_node *to, uint16_t port,
                     const uint8_t *data, size_t len)
{
    struct wren_sock_udp_ep r = { .port = port };
    link_local(to, r.addr);
    CHECK_EQ(wren_sock_udp_send(s, data, len, &r), len);
}

static uint8_t big[1000];

static void expect(struct wren_sock_udp *s, const uint8_t *data, size_t len)
{
    uint8_t buf[1100];
    CHECK_EQ(wren_sock_udp_recv(s, buf, sizeof(buf), 0, NULL), len);
    CHECK_MEM(buf, data, len);
}

TEST(test_schc_module__udp_up_compressed_in_one_frame)
{
    send_to(&sa, b, 0xf0b2, (const uint8_t *)"21.5C", 5);
    fx_run_us(100000);
    expect(&sb, (const uint8_t *)"21.5C", 5);
    CHECK_EQ(a->schc->stats.tx_compressed, 1);
    CHECK_EQ(b->schc->stats.rx_pkts, 1);
    /* the frame on the wire: LoRaWAN uplink, FPort = rule 1, residue of
     * hop limit 8 + two IIDs 128 + two port LSBs 8 bits = 18 bytes, then
     * the 5-byte payload: FRMPayload 23 bytes */
    struct wren_lorawan_frame f;
    CHECK_EQ(wren_lorawan_parse(b->lo->buf, b->lo->len, &f), 0);
    CHECK_EQ(f.mtype, LORAWAN_UNCONF_UP);
    CHECK_EQ(f.devaddr, 0x26011234);
    CHECK_EQ(f.fport, 1);
    CHECK_EQ(f.payload_len, 23);
    CHECK_EQ(b->lora->stats.rx_frames, 1);
    /* and back down */
    send_to(&sb, a, 0xf0b1, (const uint8_t *)"ok", 2);
    fx_run_us(100000);
    expect(&sa, (const uint8_t *)"ok", 2);
    CHECK_EQ(wren_lorawan_parse(a->lo->buf, a->lo->len, &f), 0);
    CHECK_EQ(f.mtype, LORAWAN_UNCONF_DOWN);
    CHECK_EQ(b->schc->stats.tx_compressed, 1);
    FX_CLEAN(30000000);
}

TEST(test_schc_module__fragmented_both_ways)
{
    for (unsigned i = 0; i < sizeof(big); i++) {
        big[i] = (uint8_t)(i * 13 + 1);
    }
    send_to(&sa, b, 0xf0b2, big, sizeof(big)); /* up: ACK-on-Error */
    fx_run_us(1000000);
    expect(&sb, big, sizeof(big));
    CHECK_EQ(a->schc->stats.tx_fragmented, 1);
    CHECK_EQ(a->schc->stats.tx_frag_done, 1);
    CHECK_EQ(b->schc->stats.rx_frag_done, 1);
    CHECK_EQ(b->schc->stats.rx_frag_acks, 1); /* one ACK, after the All-1 */
    send_to(&sb, a, 0xf0b1, big, 600);        /* down: ACK-Always, 40-byte tiles */
    fx_run_us(1000000);
    expect(&sa, big, 600);
    CHECK_EQ(b->schc->stats.tx_frag_done, 1);
    CHECK_EQ(a->schc->stats.rx_frag_done, 1);
    CHECK(a->schc->stats.rx_frag_acks >= 15); /* one per window */
    CHECK_EQ(a->schc->stats.rx_frag_drop_bad + b->schc->stats.rx_frag_drop_bad, 0);
    FX_CLEAN(60000000);
}

/* A frame sealed as the sensor would, injected at the router. */
static void inject_up(uint32_t fcnt, uint8_t fport, const uint8_t *pl, size_t n, uint8_t flip)
{
    uint8_t buf[255];
    struct wren_lorawan_frame f = { .mtype = LORAWAN_UNCONF_UP, .devaddr = 0x26011234,
                                    .fcnt = (uint16_t)fcnt, .has_port = true, .fport = fport,
                                    .payload = pl, .payload_len = n };
    int len = wren_lorawan_seal(&f, b->lora->s.nwkskey, b->lora->s.appskey, fcnt, buf, 255);
    CHECK(len > 0);
    buf[len - 1] ^= flip;
    CHECK_EQ(wren_loopback_inject(b->lo, buf, (size_t)len), 0);
    fx_run_us(10000);
}

TEST(test_schc_module__hostile_frames_counted)
{
    static const uint8_t junk[3] = { 1, 2, 3 };
    inject_up(5, 9, junk, 3, 1);
    CHECK_EQ(b->lora->stats.rx_drop_mic, 1);
    inject_up(5, 9, junk, 3, 0); /* rule 9: none */
    CHECK_EQ(b->schc->stats.rx_drop_no_rule, 1);
    inject_up(5, 9, junk, 3, 0); /* the same counter again */
    CHECK_EQ(b->lora->stats.rx_drop_replay, 1);
    inject_up(6, 1, junk, 1, 0); /* rule 1 with a residue cut short */
    CHECK_EQ(b->schc->stats.rx_drop_residue, 1);
    inject_up(7, 20, junk, 1, 0); /* a fragment too short to hold a tile */
    CHECK_EQ(b->schc->stats.rx_frag_drop_bad, 1);
    uint8_t down[20];
    struct wren_lorawan_frame f = { .mtype = LORAWAN_UNCONF_DOWN, .devaddr = 0x26011234,
                                    .fcnt = 9, .has_port = true, .fport = 1, .payload = junk,
                                    .payload_len = 3 };
    int len = wren_lorawan_seal(&f, b->lora->s.nwkskey, b->lora->s.appskey, 9, down, 20);
    CHECK_EQ(wren_loopback_inject(b->lo, down, (size_t)len), 0);
    fx_run_us(10000);
    CHECK_EQ(b->lora->stats.rx_drop_direction, 1);
    CHECK_EQ(b->schc->stats.rx_pkts, 0);
    FX_CLEAN(30000000);
    /* the session the bad fragment opened ends by the Inactivity Timer; its
     * Receiver-Abort reaches a sender with nothing under way (that once
     * crashed the sender: it had never been given a profile) */
    CHECK_EQ(b->schc->stats.rx_frag_drop_inactive, 1);
    CHECK_EQ(a->schc->stats.rx_ack_drop, 1);
}

TEST(test_schc_module__rules_option)
{
    struct wren_module *m = &b->schc->module;
    static const char bad[] = "rule 1\nipv6.ver bi equal not-sent 6\nudp.port bi ignore compute\n";
    CHECK_EQ(wren_netapi_set(&b->node, m, WREN_NETOPT_SCHC_RULES, 0, bad, sizeof(bad)), -EINVAL);
    char err[96];
    CHECK(wren_netapi_get(&b->node, m, WREN_NETOPT_SCHC_ERROR, 0, err, sizeof(err)) > 0);
    CHECK(strstr(err, "line 3: unknown field 'udp.port'") != NULL);
    CHECK_EQ(b->schc->rules.n_rules, 4); /* the default set stays */
    static const char clash[] = "rule 20 nocomp\n";
    CHECK_EQ(wren_netapi_set(&b->node, m, WREN_NETOPT_SCHC_RULES, 0, clash, sizeof(clash)),
             -EINVAL);
    static const char good[] = "rule 7 nocomp\nrule 30 frag-up\n";
    CHECK_EQ(wren_netapi_set(&b->node, m, WREN_NETOPT_SCHC_RULES, 0, good, sizeof(good)), 0);
    struct wren_schc_rules rs;
    CHECK_EQ(wren_netapi_get(&b->node, m, WREN_NETOPT_SCHC_RULES, 0, &rs, sizeof(rs)), sizeof(rs));
    CHECK_EQ(rs.n_rules, 2);
    CHECK_EQ(b->schc->up.rule_id, 30);
    uint32_t t[2];
    CHECK_EQ(wren_netapi_get(&b->node, m, WREN_NETOPT_SCHC_TIMERS, 0, t, sizeof(t)), sizeof(t));
    CHECK_EQ(t[0], 10000);
    CHECK_EQ(t[1], 22000);
    CHECK_EQ(b->schc->down.retrans_ms, 22000 / 9);
    CHECK_EQ(wren_schc_frag_lorawan_up.inactivity_ms, 12u * 3600u * 1000u); /* RFC 9011 */
    FX_CLEAN(1000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_schc_module__udp_up_compressed_in_one_frame),
        T(test_schc_module__fragmented_both_ways),
        T(test_schc_module__hostile_frames_counted),
        T(test_schc_module__rules_option),
    };
    return cmocka_run_group_tests_name("schc_module", tests, NULL, NULL);
}
