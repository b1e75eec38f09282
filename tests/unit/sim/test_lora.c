/* Tests of the simulated LoRa medium and radio (runtime/sim/lora_medium.h)
 * through whole nodes: airtime, sensitivity and range, same-SF collisions
 * and capture, the preamble's spare symbols, spreading factors that
 * coexist, half duplex, the duty-cycle limit, settings a user gets wrong,
 * and byte-identical LoRaTap captures. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/byteorder.h"
#include "drivers/lora_phy.h"
#include "fixture.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "net/nettype.h"
#include "sim/sim.h"
#include "sim/sim_lora.h"
#include "wire/loratap.h"

static uint64_t counter(struct wren_sim *s, uint32_t id, const char *name)
{
    const char *names[512];
    uint64_t vals[512];
    int n = wren_sim_counters(s, id, names, vals, 512);
    for (int i = 0; i < n && i < 512; i++) {
        if (strcmp(names[i], name) == 0) {
            return vals[i];
        }
    }
    print_error("no counter %s\n", name);
    wren_test_fail(__FILE__, __LINE__);
}

/* A module on a sim node that records the LoRa frames it gets. */
struct sink {
    struct wren_module module; /* first */
    struct wren_netreg_entry reg;
    unsigned got;
    size_t len;
    uint8_t data[256];
    int16_t rssi;
    uint64_t at;
};

static void sink_handle(struct wren_node *node, struct wren_module *self,
                        const struct wren_msg *msg)
{
    struct sink *k = (struct sink *)self;
    struct wren_snip *pkt = msg->ptr;
    if (msg->type == WREN_MSG_RCV && pkt) {
        k->got++;
        k->len = pkt->size;
        memcpy(k->data, pkt->data, pkt->size < sizeof(k->data) ? pkt->size : sizeof(k->data));
        struct wren_snip *nh = wren_pkt_search(pkt, WREN_NETTYPE_NETIF);
        k->rssi = nh ? wren_netif_hdr(nh)->rssi : 0;
        k->at = wren_node_now(node);
    }
    if (pkt) {
        wren_pktbuf_release(&node->pktbuf, pkt);
    }
}

static const struct wren_module_ops sink_ops = {.name = "lora_sink", .handle = sink_handle};
static struct sink sinks[8];

static struct sink *sink_on(struct wren_sim *s, uint32_t id)
{
    struct sink *k = &sinks[id];
    memset(k, 0, sizeof(*k));
    k->module.ops = &sink_ops;
    k->module.prio = WREN_PRIO_APP;
    CHECK_EQ(wren_netreg_register(wren_sim_node(s, id), WREN_NETTYPE_LORA, WREN_NETREG_DEMUX_ALL,
                                  &k->module, &k->reg),
             0);
    return k;
}

static void set_dc(struct wren_sim *s, uint32_t id, uint16_t dc);

/* LoRa nodes along the x axis at @p xs metres, exact clocks, the duty-cycle
 * limit off (a lab run; test_duty_cycle__* turn it on) */
static struct wren_sim *lora_sim(uint64_t seed, const double *xs, unsigned n)
{
    struct wren_sim *s = fx_sim(seed);
    CHECK_EQ(wren_sim_set_drift(s, -1, 0.0), 0);
    CHECK_EQ(wren_sim_set_lora(s, 1), 0);
    for (unsigned i = 0; i < n; i++) {
        CHECK_EQ(wren_sim_add_node(s, xs[i], 0, 0, 0), (int)i);
        CHECK_EQ(wren_sim_lora_if(s, i), 2);
        uint16_t dc = 0;
        CHECK_EQ(wren_sim_lora_netopt_get(s, i, WREN_NETOPT_LORA_DUTY_CYCLE, &dc, 2), 2);
        CHECK_EQ(dc, 100); /* the regional limit (868.1 MHz: 1 %) by default */
        set_dc(s, i, 0);
    }
    return s;
}

static void set_sf(struct wren_sim *s, uint32_t id, uint8_t sf)
{
    CHECK_EQ(wren_sim_lora_netopt_set(s, id, WREN_NETOPT_LORA_SF, &sf, 1), 0);
}

static void set_dc(struct wren_sim *s, uint32_t id, uint16_t dc)
{
    CHECK_EQ(wren_sim_lora_netopt_set(s, id, WREN_NETOPT_LORA_DUTY_CYCLE, &dc, 2), 0);
}

static void send_at(struct wren_sim *s, uint32_t id, uint64_t t, uint8_t fill, size_t len)
{
    uint8_t buf[255];
    memset(buf, fill, len);
    wren_sim_run(s, t);
    CHECK_EQ(wren_sim_lora_send(s, id, buf, len), 0);
}

static uint32_t airtime(uint8_t sf, unsigned len)
{
    struct wren_lora_phy p = {.sf = sf, .bw_khz = 125, .cr = 5, .preamble = 8, .crc = true};
    return wren_lora_airtime_us(&p, len);
}

#define CHECK_DRAINED() FX_CLEAN(2000000)

TEST(test_airtime__frame_takes_the_formulas_time)
{
    static const double xs[] = {0, 50};
    struct wren_sim *s = lora_sim(1, xs, 2);
    set_sf(s, 0, 9);
    set_sf(s, 1, 9);
    struct sink *k = sink_on(s, 1);
    send_at(s, 0, 1000000, 0xab, 20);
    wren_sim_run(s, 3000000);
    uint32_t t = airtime(9, 20);
    CHECK_EQ(t, 185344); /* 12.25 + 33 symbols of 4.096 ms */
    CHECK_EQ(counter(s, 0, "lora2.tx_frames"), 1);
    CHECK_EQ(counter(s, 0, "lora2.tx_airtime_us"), t);
    CHECK_EQ(counter(s, 0, "lora2.time_tx_us"), t);
    CHECK_EQ(counter(s, 1, "lora2.time_rx_us"), t);
    CHECK_EQ(k->got, 1);
    CHECK_EQ(k->len, 20);
    CHECK_EQ(k->data[19], 0xab);
    CHECK_EQ(k->at, 1000000 + t); /* handed over at the frame's end */
    CHECK_EQ(k->rssi, lround(wren_sim_lora_rx_dbm(s, 0, 1)));
    CHECK_EQ(counter(s, 1, "netif2.rx_frames"), 1);
    CHECK_DRAINED();
}

/* Bor et al.'s path loss and 14 dBm: 300 m is below SF7's sensitivity
 * (-123 dBm) and above SF12's (-136 dBm) */
TEST(test_range__sensitivity_per_spreading_factor)
{
    static const double xs[] = {0, 300};
    struct wren_sim *s = lora_sim(1, xs, 2);
    double p = wren_sim_lora_rx_dbm(s, 0, 1);
    CHECK(p < -123 && p > -136);
    /* PL(300 m) = 127.41 + 20.8 log10(300 / 40) */
    CHECK(fabs(p - (14 - 127.41 - 20.8 * log10(300.0 / 40.0))) < 1e-9);
    struct sink *k = sink_on(s, 1);
    send_at(s, 0, 1000000, 1, 10);
    wren_sim_run(s, 2000000);
    CHECK_EQ(k->got, 0);
    CHECK_EQ(counter(s, 1, "lora2.rx_below_sens"), 1);
    set_sf(s, 0, 12);
    set_sf(s, 1, 12);
    send_at(s, 0, 2000000, 2, 10);
    wren_sim_run(s, 5000000);
    CHECK_EQ(k->got, 1);
    CHECK_EQ(k->data[0], 2);
    /* more power reaches further: +6 dB at SF7 still falls short, the
     * distance at which SF7 breaks even is 40 * 10^((14 + 123 - 127.41) / 20.8) */
    double reach7 = 40.0 * pow(10.0, (14 + 123 - 127.41) / 20.8);
    CHECK(reach7 > 110 && reach7 < 120);
    CHECK_DRAINED();
}

/* two senders the same distance from the receiver, the same SF, at once:
 * within 6 dB of each other both frames are lost */
TEST(test_collision__same_sf_equal_power_loses_both)
{
    static const double xs[] = {-50, 0, 50};
    struct wren_sim *s = lora_sim(1, xs, 3);
    struct sink *k = sink_on(s, 1);
    send_at(s, 0, 1000000, 1, 20);
    send_at(s, 2, 1010000, 2, 20);
    wren_sim_run(s, 3000000);
    CHECK_EQ(k->got, 0);
    CHECK_EQ(counter(s, 1, "lora2.rx_collisions"), 1); /* the one it locked onto */
    CHECK_EQ(counter(s, 1, "lora2.rx_busy"), 1);       /* the other, unheard */
    CHECK_DRAINED();
}

/* Bor et al.'s capture: 6 dB stronger survives, whichever came first */
TEST(test_capture__six_db_stronger_frame_survives)
{
    static const double xs[] = {-10, 0, 120};
    struct wren_sim *s = lora_sim(1, xs, 3);
    for (uint32_t i = 0; i < 3; i++) {
        set_sf(s, i, 9); /* 120 m is audible at SF9 */
    }
    CHECK(wren_sim_lora_rx_dbm(s, 0, 1) >= wren_sim_lora_rx_dbm(s, 2, 1) + 6);
    struct sink *k = sink_on(s, 1);
    /* the strong one first */
    send_at(s, 0, 1000000, 1, 20);
    send_at(s, 2, 1020000, 2, 20);
    wren_sim_run(s, 2000000);
    CHECK_EQ(k->got, 1);
    CHECK_EQ(k->data[0], 1);
    CHECK_EQ(counter(s, 1, "lora2.rx_captured"), 1);
    /* the weak one first: the strong later one takes the receiver over */
    send_at(s, 2, 3000000, 3, 20);
    send_at(s, 0, 3020000, 4, 20);
    wren_sim_run(s, 4000000);
    CHECK_EQ(k->got, 2);
    CHECK_EQ(k->data[0], 4);
    CHECK_EQ(counter(s, 1, "lora2.rx_captured"), 2);
    CHECK_EQ(counter(s, 1, "lora2.rx_collisions"), 1); /* the weak frame it left */
    /* capture off (a threshold nobody reaches): the same overlap loses both */
    wren_lora_medium_set_capture(s->lora, 100.0);
    send_at(s, 0, 5000000, 5, 20);
    send_at(s, 2, 5020000, 6, 20);
    wren_sim_run(s, 6000000);
    CHECK_EQ(k->got, 2);
    CHECK_DRAINED();
}

/* a frame's first (8 - 5) preamble symbols may overlap another frame's tail */
TEST(test_preamble__tail_over_the_spare_symbols_is_harmless)
{
    static const double xs[] = {-50, 0, 50};
    struct wren_sim *s = lora_sim(1, xs, 3);
    struct sink *k = sink_on(s, 1);
    uint32_t t = airtime(7, 20), sym = 1024;
    /* node 2's frame starts 2 symbols before node 0's ends: node 0's is lost
     * (its end is hit), node 2's is received */
    send_at(s, 0, 1000000, 1, 20);
    send_at(s, 2, 1000000 + t - 2 * sym, 2, 20);
    wren_sim_run(s, 2000000);
    CHECK_EQ(k->got, 1);
    CHECK_EQ(k->data[0], 2);
    /* 4 symbols of overlap reach into the 5 the receiver needs: both lost */
    send_at(s, 0, 3000000, 3, 20);
    send_at(s, 2, 3000000 + t - 4 * sym, 4, 20);
    wren_sim_run(s, 4000000);
    CHECK_EQ(k->got, 1);
    CHECK_EQ(counter(s, 1, "lora2.rx_collisions"), 2); /* node 0's frames */
    CHECK_EQ(counter(s, 1, "lora2.rx_busy"), 2);       /* node 2's, heard while locked */
    CHECK_DRAINED();
}

/* different spreading factors at once on one frequency: both delivered */
TEST(test_sf__different_spreading_factors_coexist)
{
    static const double xs[] = {-20, 0, 20, 21};
    struct wren_sim *s = lora_sim(1, xs, 4);
    set_sf(s, 2, 9);
    set_sf(s, 3, 9);
    struct sink *k1 = sink_on(s, 1), *k2 = sink_on(s, 2);
    send_at(s, 0, 1000000, 7, 30);
    send_at(s, 3, 1000000, 9, 30);
    wren_sim_run(s, 2000000);
    CHECK_EQ(k1->got, 1);
    CHECK_EQ(k1->data[0], 7);
    CHECK_EQ(k2->got, 1);
    CHECK_EQ(k2->data[0], 9);
    CHECK_EQ(counter(s, 1, "lora2.rx_other_sf"), 1);
    CHECK_EQ(counter(s, 1, "lora2.rx_collisions"), 0);
    /* the same two frames on one SF collide */
    set_sf(s, 3, 7);
    set_sf(s, 2, 7);
    send_at(s, 0, 3000000, 7, 30);
    send_at(s, 3, 3000000, 9, 30);
    wren_sim_run(s, 4000000);
    /* node 1 hears them 4.4 dB apart: both lost; node 2 sits 1 m from node
     * 3, whose frame takes its receiver over */
    CHECK_EQ(k1->got, 1);
    CHECK_EQ(k2->got, 2);
    CHECK_EQ(counter(s, 1, "lora2.rx_collisions"), 1);
    CHECK_DRAINED();
}

TEST(test_half_duplex__a_sender_hears_nothing)
{
    static const double xs[] = {0, 30};
    struct wren_sim *s = lora_sim(1, xs, 2);
    struct sink *k0 = sink_on(s, 0), *k1 = sink_on(s, 1);
    send_at(s, 0, 1000000, 1, 20);
    send_at(s, 1, 1005000, 2, 20);
    wren_sim_run(s, 2000000);
    CHECK_EQ(k0->got + k1->got, 0);
    CHECK_EQ(counter(s, 1, "lora2.rx_aborted"), 1); /* its reception, when it sent */
    CHECK_EQ(counter(s, 0, "lora2.rx_while_tx"), 1);
    CHECK_DRAINED();
}

/* 1 % in the 868.0-868.6 MHz sub-band: a 20-byte SF7 frame (56.6 ms) closes
 * it for 99 times as long; frames meanwhile are refused and counted */
TEST(test_duty_cycle__one_percent_refuses_and_counts)
{
    static const double xs[] = {0, 30};
    struct wren_sim *s = lora_sim(1, xs, 2);
    uint16_t dc = 0;
    set_dc(s, 0, WREN_LORA_DC_REGIONAL);
    CHECK_EQ(wren_sim_lora_netopt_get(s, 0, WREN_NETOPT_LORA_DUTY_CYCLE, &dc, 2), 2);
    CHECK_EQ(dc, 100);
    uint32_t t = airtime(7, 20);
    uint64_t off = (uint64_t)t * 99;
    for (unsigned i = 0; i < 20; i++) {
        send_at(s, 0, 1000000 + i * 1000000ull, (uint8_t)i, 20);
        if (i == 0) {
            uint32_t wait = 0;
            CHECK_EQ(wren_sim_lora_netopt_get(s, 0, WREN_NETOPT_LORA_DC_WAIT, &wait, 4), 4);
            CHECK_EQ(wait, t + off);
        }
    }
    wren_sim_run(s, 22000000);
    /* sent at 1, 7, 13, 19 s: each closes the band for 5.6 s after its end */
    CHECK_EQ(counter(s, 0, "lora2.tx_frames"), 4);
    CHECK_EQ(counter(s, 0, "lora2.dc_drop"), 16);
    CHECK_EQ(counter(s, 0, "netif2.tx_drop_dev"), 16);
    CHECK_EQ(counter(s, 1, "lora2.rx_frames"), 4);
    /* the limit off (a lab run): every frame goes */
    set_dc(s, 0, 0);
    for (unsigned i = 0; i < 20; i++) {
        send_at(s, 0, 30000000 + i * 100000ull, (uint8_t)i, 20);
    }
    wren_sim_run(s, 33000000);
    CHECK_EQ(counter(s, 0, "lora2.tx_frames"), 24);
    CHECK_EQ(counter(s, 0, "lora2.dc_drop"), 16);
    /* 10 % at 869.525 MHz (ETSI's 869.40-869.65 MHz band) */
    set_dc(s, 0, WREN_LORA_DC_REGIONAL);
    uint32_t f = 869525000u;
    CHECK_EQ(wren_sim_lora_netopt_set(s, 0, WREN_NETOPT_LORA_FREQ, &f, 4), 0);
    CHECK_EQ(wren_sim_lora_netopt_get(s, 0, WREN_NETOPT_LORA_DUTY_CYCLE, &dc, 2), 2);
    CHECK_EQ(dc, 1000);
    for (unsigned i = 0; i < 10; i++) {
        send_at(s, 0, 40000000 + i * 100000ull, (uint8_t)i, 20);
    }
    wren_sim_run(s, 42000000);
    /* one frame each 10 x 56.6 ms: at 0, 0.6 s */
    CHECK_EQ(counter(s, 0, "lora2.tx_frames"), 26);
    CHECK_DRAINED();
}

/* settings a user can get wrong get -EINVAL; payloads over the region's
 * limit are refused and counted */
TEST(test_netopt__settings_limits_and_mistakes)
{
    static const double xs[] = {0, 30};
    struct wren_sim *s = lora_sim(1, xs, 2);
    uint8_t sf = 13, cr = 9;
    uint16_t bw = 200, v16 = 0;
    CHECK_EQ(wren_sim_lora_netopt_set(s, 0, WREN_NETOPT_LORA_SF, &sf, 1), -EINVAL);
    CHECK_EQ(wren_sim_lora_netopt_set(s, 0, WREN_NETOPT_LORA_CR, &cr, 1), -EINVAL);
    CHECK_EQ(wren_sim_lora_netopt_set(s, 0, WREN_NETOPT_LORA_BW, &bw, 2), -EINVAL);
    uint16_t ch = 3;
    CHECK_EQ(wren_sim_lora_netopt_set(s, 0, WREN_NETOPT_CHANNEL, &ch, 2), -EINVAL);
    ch = 2;
    CHECK_EQ(wren_sim_lora_netopt_set(s, 0, WREN_NETOPT_CHANNEL, &ch, 2), 0);
    uint32_t f = 0;
    CHECK_EQ(wren_sim_lora_netopt_get(s, 0, WREN_NETOPT_LORA_FREQ, &f, 4), 4);
    CHECK_EQ(f, 868500000u);
    CHECK_EQ(wren_sim_lora_netopt_get(s, 0, WREN_NETOPT_DEVICE_TYPE, &v16, 2), 2);
    CHECK_EQ(v16, WREN_NETDEV_TYPE_LORA);
    set_sf(s, 0, 12);
    CHECK_EQ(wren_sim_lora_netopt_get(s, 0, WREN_NETOPT_MAX_PDU_SIZE, &v16, 2), 2);
    CHECK_EQ(v16, 64); /* EU868 DR0 */
    uint8_t buf[100] = {0};
    CHECK_EQ(wren_sim_lora_send(s, 0, buf, 100), 0);
    CHECK_EQ(counter(s, 0, "lora2.tx_too_long"), 1);
    CHECK_EQ(counter(s, 0, "netif2.tx_drop_dev"), 1);
    uint8_t region = WREN_LORA_REGION_NONE;
    CHECK_EQ(wren_sim_lora_netopt_set(s, 0, WREN_NETOPT_LORA_REGION, &region, 1), 0);
    CHECK_EQ(wren_sim_lora_netopt_get(s, 0, WREN_NETOPT_MAX_PDU_SIZE, &v16, 2), 2);
    CHECK_EQ(v16, 255);
    uint8_t io[4] = {0};
    v16 = 37;
    memcpy(io, &v16, 2);
    CHECK_EQ(wren_sim_lora_netopt_get(s, 0, WREN_NETOPT_LORA_AIRTIME, io, 4), 4);
    memcpy(&f, io, 4);
    CHECK_EQ(f, 1974272); /* the 37-byte SF12 frame of test_lora_phy */
    int16_t p = 21;
    CHECK_EQ(wren_sim_lora_netopt_set(s, 0, WREN_NETOPT_TX_POWER, &p, 2), -EINVAL);
    CHECK_EQ(wren_sim_lora_netopt_set(s, 0, WREN_NETOPT_LORA_DUTY_CYCLE, &v16, 1), -EINVAL);
    CHECK_EQ(wren_sim_lora_if(s, 5), -EINVAL);
    CHECK_DRAINED();
}

static size_t run_capture(const char *path, uint64_t seed)
{
    static const double xs[] = {0, 40, 80};
    struct wren_sim *s = lora_sim(seed, xs, 3);
    uint8_t sync = 0x12;
    for (uint32_t i = 0; i < 3; i++) {
        CHECK_EQ(wren_sim_lora_netopt_set(s, i, WREN_NETOPT_LORA_SYNCWORD, &sync, 1), 0);
        set_dc(s, i, 0);
    }
    set_sf(s, 2, 10);
    CHECK_EQ(wren_sim_lora_open_pcap(s, path), 0);
    for (unsigned i = 0; i < 6; i++) {
        send_at(s, i % 3, 1000000 + i * 400000ull, (uint8_t)(0x40 + i), 10 + i);
    }
    wren_sim_run(s, 5000000);
    fx_sim_done(s);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    static uint8_t bytes[4096];
    size_t n = fread(bytes, 1, sizeof(bytes), f);
    fclose(f);
    /* pcap header: link type 270; first record: LoRaTap v0 then payload */
    CHECK_EQ(get_le32(bytes + 20), LORATAP_LINKTYPE);
    struct loratap_hdr h;
    CHECK_EQ(wren_loratap_parse(bytes + 40, get_le32(bytes + 32), &h), 15);
    CHECK_EQ(h.freq_hz, 868100000u);
    CHECK_EQ(h.bw_steps, 1);
    CHECK_EQ(h.sf, 7);
    CHECK_EQ(h.sync_word, 0x12);
    CHECK_EQ(h.packet_rssi, LORATAP_RSSI_NA);
    CHECK_EQ(get_le32(bytes + 32), 15 + 10);
    CHECK_EQ(bytes[40 + 15], 0x40);
    return n;
}

TEST(test_pcap__loratap_records_byte_identical_per_seed)
{
    char a[64], b[64];
    snprintf(a, sizeof(a), "/tmp/wren_lora_a_%d.pcap", (int)getpid());
    snprintf(b, sizeof(b), "/tmp/wren_lora_b_%d.pcap", (int)getpid());
    size_t na = run_capture(a, 7), nb = run_capture(b, 7);
    CHECK_EQ(na, nb);
    CHECK_EQ(na, 24 + 6 * 16 + 6 * 15 + (10 + 11 + 12 + 13 + 14 + 15));
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    uint8_t x[4096], y[4096];
    CHECK_EQ(fread(x, 1, sizeof(x), fa), na);
    CHECK_EQ(fread(y, 1, sizeof(y), fb), nb);
    fclose(fa);
    fclose(fb);
    CHECK_MEM(x, y, na);
    remove(a);
    remove(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_airtime__frame_takes_the_formulas_time),
        FX_TEST(test_range__sensitivity_per_spreading_factor),
        FX_TEST(test_collision__same_sf_equal_power_loses_both),
        FX_TEST(test_capture__six_db_stronger_frame_survives),
        FX_TEST(test_preamble__tail_over_the_spare_symbols_is_harmless),
        FX_TEST(test_sf__different_spreading_factors_coexist),
        FX_TEST(test_half_duplex__a_sender_hears_nothing),
        FX_TEST(test_duty_cycle__one_percent_refuses_and_counts),
        FX_TEST(test_netopt__settings_limits_and_mistakes),
        FX_TEST(test_pcap__loratap_records_byte_identical_per_seed),
    };
    return cmocka_run_group_tests_name("lora", tests, NULL, NULL);
}
