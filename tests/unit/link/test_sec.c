/* 802.15.4 security procedures (link/ieee802154_sec.h) on an interface's
 * state alone: policy, keys, nonces (frame counter or ASN), replay
 * protection and its neighbour table, every drop counted by its reason.
 * The frames, the sim's pings and tshark's decryption are in
 * tests/py/test_sec_sim.py. */
#include <errno.h>

#include "core/node.h"
#include "link/ieee802154_link.h"
#include "net/netopt.h"
#include "test.h"
#include "wire/ieee802154.h"

static const uint8_t eui_a[8] = {0x02, 0x57, 0x52, 0xff, 0xfe, 0, 0, 1};
static const uint8_t eui_b[8] = {0x02, 0x57, 0x52, 0xff, 0xfe, 0, 0, 2};
static const uint8_t payload[20] = "wren secured payload";

static struct wren_ieee802154_netif tx, rx;

/* the interfaces' node: its runtime gives the tables the first key makes
 * (CONFIG_WREN_NODE_MEM) from mem[], one piece per request */
static _Alignas(8) uint8_t mem[4][512];
static unsigned mem_used;

static void *node_mem(void *rt, struct wren_node *n, const struct wren_module_ops *owner,
                      size_t size)
{
    (void)rt, (void)n, (void)owner;
    CHECK(size <= sizeof(mem[0]));
    return mem_used < 4 ? memset(mem[mem_used++], 0, sizeof(mem[0])) : NULL;
}

static const struct wren_rt_ops with_mem = {.mem = node_mem}, without_mem = {.mem = NULL};
static struct wren_node node = {.rt_ops = &with_mem};

static bool contains(const uint8_t *buf, size_t n, const uint8_t *what, size_t len)
{
    for (size_t i = 0; i + len <= n; i++) {
        if (memcmp(buf + i, what, len) == 0) {
            return true;
        }
    }
    return false;
}

static void key(struct wren_ieee802154_netif *nif, uint8_t index, uint8_t fill)
{
    struct wren_ieee802154_sec_key k = {.index = index};
    memset(k.key, fill, 16);
    CHECK_EQ(wren_ieee802154_sec_set(nif, WREN_NETOPT_SEC_KEY, &k, sizeof(k)), 0);
}

static void level(struct wren_ieee802154_netif *nif, uint8_t type, uint8_t lvl, uint8_t k)
{
    struct wren_ieee802154_sec_policy p = {type, lvl, k};
    CHECK_EQ(wren_ieee802154_sec_set(nif, WREN_NETOPT_SEC_LEVEL, &p, sizeof(p)), 0);
}

/* two interfaces sharing key 2 (0x22..) for data at @lvl; tx is eui_a */
static void pair(uint8_t lvl)
{
    memset(&tx, 0, sizeof(tx));
    memset(&rx, 0, sizeof(rx));
    wren_ieee802154_sec_init(&tx);
    wren_ieee802154_sec_init(&rx);
    node.rt_ops = &with_mem;
    mem_used = 0;
    tx.netif.node = rx.netif.node = &node;
    memcpy(tx.long_addr, eui_a, 8);
    memcpy(rx.long_addr, eui_b, 8);
    key(&tx, 2, 0x22);
    key(&rx, 2, 0x22);
    level(&tx, IEEE802154_TYPE_DATA, lvl, 2);
    level(&rx, IEEE802154_TYPE_DATA, lvl, 2);
}

/* A secured data frame from eui_a to eui_b in buf; returns its length. */
static size_t build(uint8_t *buf, uint8_t version, bool tsch, uint64_t asn)
{
    struct ieee802154_frame f = {0};
    f.hdr.type = IEEE802154_TYPE_DATA;
    f.hdr.version = version;
    f.hdr.panid_comp = true;
    f.hdr.dst_mode = f.hdr.src_mode = IEEE802154_ADDR_EXT;
    memcpy(f.hdr.dst_addr, eui_b, 8);
    memcpy(f.hdr.src_addr, eui_a, 8);
    f.payload = payload;
    f.payload_len = sizeof(payload);
    int mic = wren_ieee802154_sec_prepare(&tx, &f.hdr, tsch);
    CHECK(mic > 0);
    int n = wren_ieee802154_emit(&f, buf, 127);
    CHECK(n > 0);
    size_t open = (size_t)n - sizeof(payload) - (size_t)mic;
    CHECK_EQ(wren_ieee802154_sec_secure(&tx, &f.hdr, asn, buf, open, (size_t)n), 0);
    return (size_t)n;
}

/* @asn: the slot's on a TSCH link, NULL on a CSMA link */
static int take(uint8_t *buf, size_t n, const uint8_t *src, const uint64_t *asn,
                struct ieee802154_frame *f)
{
    CHECK_EQ(wren_ieee802154_parse(buf, n, f), 0);
    return wren_ieee802154_sec_unsecure(&rx, f, buf, n, src, asn);
}

TEST(test_sec__enc_mic32_round_trip_and_counters)
{
    uint8_t buf[127];
    struct ieee802154_frame f;
    pair(WREN_SEC_ENC_MIC32);
    size_t n = build(buf, IEEE802154_VERSION_2006, false, 0);
    CHECK(!contains(buf, n, payload, sizeof(payload))); /* encrypted */
    CHECK_EQ(take(buf, n, NULL, NULL, &f), 0);
    CHECK_EQ(f.hdr.sec_level, WREN_SEC_ENC_MIC32);
    CHECK_EQ(f.hdr.key_id_mode, 1);
    CHECK_EQ(f.hdr.key_index, 2);
    CHECK_EQ(f.payload_len, sizeof(payload));
    CHECK(memcmp(f.payload, payload, sizeof(payload)) == 0);
    CHECK_EQ(tx.sec.stats.tx_secured, 1);
    CHECK_EQ(rx.sec.stats.rx_secured, 1);
    CHECK_EQ(tx.sec.frame_counter, 1);
}

TEST(test_sec__replay_and_retransmission)
{
    uint8_t f0[127], f1[127], f2[127], b[127];
    struct ieee802154_frame f;
    pair(WREN_SEC_ENC_MIC32);
    size_t n0 = build(f0, IEEE802154_VERSION_2006, false, 0);
    size_t n1 = build(f1, IEEE802154_VERSION_2006, false, 0);
    size_t n2 = build(f2, IEEE802154_VERSION_2006, false, 0);
    memcpy(b, f1, n1);
    CHECK_EQ(take(b, n1, NULL, NULL, &f), 0);
    /* the same frame again: a retransmission (its MIC checked, not counted) */
    memcpy(b, f1, n1);
    CHECK_EQ(take(b, n1, NULL, NULL, &f), 1);
    CHECK_EQ(rx.sec.stats.rx_secured, 1);
    /* an older one: a replay */
    memcpy(b, f0, n0);
    CHECK_EQ(take(b, n0, NULL, NULL, &f), -EALREADY);
    CHECK_EQ(rx.sec.stats.rx_replay, 1);
    /* a newer one passes; a bad MIC on a fresh counter does not move it */
    memcpy(b, f2, n2);
    b[n2 - 1] ^= 0x80;
    CHECK_EQ(take(b, n2, NULL, NULL, &f), -EBADMSG);
    CHECK_EQ(rx.sec.stats.rx_bad_mic, 1);
    memcpy(b, f2, n2);
    CHECK_EQ(take(b, n2, NULL, NULL, &f), 0);
    CHECK_EQ(rx.sec.stats.rx_secured, 2);
}

TEST(test_sec__retransmission_checks_its_mic)
{
    uint8_t f1[127], b[127];
    struct ieee802154_frame f;
    pair(WREN_SEC_ENC_MIC32);
    size_t n1 = build(f1, IEEE802154_VERSION_2006, false, 0);
    memcpy(b, f1, n1);
    CHECK_EQ(take(b, n1, NULL, NULL, &f), 0);
    /* the last counter again with other bytes (here its sequence number,
     * which the MAC would take for one seen): a forgery, not the
     * retransmission the MAC acknowledges and drops as a duplicate */
    memcpy(b, f1, n1);
    b[2] ^= 0x10;
    CHECK_EQ(take(b, n1, NULL, NULL, &f), -EBADMSG);
    CHECK_EQ(rx.sec.stats.rx_bad_mic, 1);
    /* the true retransmission still is one */
    memcpy(b, f1, n1);
    CHECK_EQ(take(b, n1, NULL, NULL, &f), 1);
    CHECK_EQ(rx.sec.stats.rx_secured, 1);
}

TEST(test_sec__asn_nonce_only_on_a_tsch_link)
{
    uint8_t buf[127], b[127];
    struct ieee802154_frame f;
    uint64_t asn = 0; /* what a CSMA link passed for "no ASN" before */
    pair(WREN_SEC_ENC_MIC32);
    size_t n = build(buf, IEEE802154_VERSION_2015, true, asn);
    /* on a CSMA link (no slot, no ASN): refused, as often as it comes; it
     * would have skipped the frame-counter check and passed every time */
    for (unsigned k = 0; k < 3; k++) {
        memcpy(b, buf, n);
        CHECK_EQ(take(b, n, NULL, NULL, &f), -EOPNOTSUPP);
    }
    CHECK_EQ(rx.sec.stats.rx_asn_not_tsch, 3);
    CHECK_EQ(rx.sec.stats.rx_secured, 0);
    CHECK_EQ(rx.sec.stats.rx_bad_mic, 0);
    /* on a TSCH link, in its slot, it passes */
    memcpy(b, buf, n);
    CHECK_EQ(take(b, n, NULL, &asn, &f), 0);
    CHECK_EQ(rx.sec.stats.rx_secured, 1);
    /* a frame counter frame on a CSMA link still passes the counter check */
    n = build(buf, IEEE802154_VERSION_2015, false, 0);
    memcpy(b, buf, n);
    CHECK_EQ(take(b, n, NULL, NULL, &f), 0);
    memcpy(b, buf, n);
    CHECK_EQ(take(b, n, NULL, NULL, &f), 1);
    CHECK_EQ(rx.sec.stats.rx_secured, 2);
}

TEST(test_sec__policy_levels_keys_and_malformed)
{
    uint8_t buf[127];
    struct ieee802154_frame f;
    /* MIC-64 satisfies MIC-32 ... */
    pair(WREN_SEC_MIC64);
    level(&rx, IEEE802154_TYPE_DATA, WREN_SEC_MIC32, 2);
    size_t n = build(buf, IEEE802154_VERSION_2006, false, 0);
    CHECK(contains(buf, n, payload, sizeof(payload))); /* authenticated only */
    CHECK_EQ(take(buf, n, NULL, NULL, &f), 0);
    /* ... but not ENC-MIC-32 (9.2.5: no encryption) */
    level(&rx, IEEE802154_TYPE_DATA, WREN_SEC_ENC_MIC32, 2);
    n = build(buf, IEEE802154_VERSION_2006, false, 0);
    CHECK_EQ(take(buf, n, NULL, NULL, &f), -EPERM);
    CHECK_EQ(rx.sec.stats.rx_level, 1);
    /* a header byte changed under MIC-64: bad MIC */
    level(&rx, IEEE802154_TYPE_DATA, WREN_SEC_MIC32, 2);
    n = build(buf, IEEE802154_VERSION_2006, false, 0);
    buf[2] ^= 1; /* sequence number */
    CHECK_EQ(take(buf, n, NULL, NULL, &f), -EBADMSG);
    /* unknown key index */
    n = build(buf, IEEE802154_VERSION_2006, false, 0);
    buf[21 + 5] = 9;
    CHECK_EQ(take(buf, n, NULL, NULL, &f), -ENOENT);
    /* key identifier mode 0 (implicit key): no key either */
    n = build(buf, IEEE802154_VERSION_2006, false, 0);
    buf[21] = (uint8_t)(buf[21] & ~0x18);
    CHECK_EQ(wren_ieee802154_parse(buf, n - 1, &f), 0); /* (one byte less: no key index) */
    CHECK_EQ(wren_ieee802154_sec_unsecure(&rx, &f, buf, n - 1, NULL, NULL), -ENOENT);
    CHECK_EQ(rx.sec.stats.rx_no_key, 2);
    /* security enabled with level 0 */
    n = build(buf, IEEE802154_VERSION_2006, false, 0);
    buf[21] = (uint8_t)(buf[21] & ~0x07);
    CHECK_EQ(wren_ieee802154_parse(buf, n, &f), 0);
    CHECK_EQ(wren_ieee802154_sec_unsecure(&rx, &f, buf, n, NULL, NULL), -EPROTO);
    CHECK_EQ(rx.sec.stats.rx_malformed, 1);
    /* an unsecured data frame where data must be secured */
    uint8_t plain[] = {0x41, 0xd8, 0x01, 0x23, 0x00, 0xff, 0xff, 1, 0, 0, 0, 0, 0, 0, 0, 0x41};
    CHECK_EQ(wren_ieee802154_parse(plain, sizeof(plain), &f), 0);
    CHECK_EQ(wren_ieee802154_sec_unsecure(&rx, &f, plain, sizeof(plain), NULL, NULL), -EPERM);
    CHECK_EQ(rx.sec.stats.rx_level, 2);
    /* ... and accepted where the type has no level */
    level(&rx, IEEE802154_TYPE_DATA, 0, 0);
    CHECK_EQ(wren_ieee802154_sec_unsecure(&rx, &f, plain, sizeof(plain), NULL, NULL), 0);
}

TEST(test_sec__neighbour_table_full)
{
    uint8_t buf[127];
    struct ieee802154_frame f;
    pair(WREN_SEC_ENC_MIC32);
    for (unsigned i = 0; i <= CONFIG_WREN_IEEE802154_SEC_NEIGHBOURS; i++) {
        tx.long_addr[7] = (uint8_t)(0x40 + i); /* another sender each time */
        size_t n = build(buf, IEEE802154_VERSION_2006, false, 0);
        /* the frame's source address field is eui_a: give the nonce's */
        uint8_t src[8];
        memcpy(src, tx.long_addr, 8);
        int r = take(buf, n, src, NULL, &f);
        CHECK_EQ(r, i < CONFIG_WREN_IEEE802154_SEC_NEIGHBOURS ? 0 : -ENOSPC);
    }
    CHECK_EQ(rx.sec.stats.rx_nbr_full, 1);
    CHECK_EQ(rx.sec.stats.rx_secured, CONFIG_WREN_IEEE802154_SEC_NEIGHBOURS);
}

TEST(test_sec__tsch_asn_nonce)
{
    uint8_t buf[127], b[127];
    struct ieee802154_frame f;
    pair(WREN_SEC_ENC_MIC32);
    size_t n = build(buf, IEEE802154_VERSION_2015, true, 0x0102030405ull);
    CHECK_EQ(wren_ieee802154_parse(buf, n, &f), 0);
    CHECK(f.hdr.asn_in_nonce && f.hdr.fc_suppressed);
    CHECK_EQ(tx.sec.frame_counter, 0); /* no frame counter used */
    memcpy(b, buf, n);
    CHECK_EQ(take(b, n, NULL, &(uint64_t){0x0102030406ull}, &f), -EBADMSG); /* another slot */
    memcpy(b, buf, n);
    CHECK_EQ(take(b, n, NULL, &(uint64_t){0x0102030405ull}, &f), 0);
    /* no counter, no replay table: the ASN makes it fresh */
    memcpy(b, buf, n);
    CHECK_EQ(take(b, n, NULL, &(uint64_t){0x0102030405ull}, &f), 0);
    CHECK(!rx.sec.nbrs[0].used);
    /* an Enh-Ack has no source: the caller names the sender */
    CHECK_EQ(wren_ieee802154_sec_prepare(&tx, &(struct ieee802154_hdr){.type = 1, .version = 1,
                                                                       .src_mode = 2},
                                         false),
             -EINVAL);
    /* TSCH frames need version 2 */
    CHECK_EQ(wren_ieee802154_sec_prepare(&tx, &(struct ieee802154_hdr){.type = 1, .version = 1,
                                                                       .src_mode = 3},
                                         true),
             -EINVAL);
}

TEST(test_sec__tx_without_key_and_counter_end)
{
    struct ieee802154_hdr h = {.type = IEEE802154_TYPE_DATA, .version = 1, .src_mode = 3};
    pair(WREN_SEC_ENC_MIC32);
    uint8_t idx = 2;
    CHECK_EQ(wren_ieee802154_sec_set(&tx, WREN_NETOPT_SEC_KEY_DEL, &idx, 1), 0);
    CHECK_EQ(wren_ieee802154_sec_set(&tx, WREN_NETOPT_SEC_KEY_DEL, &idx, 1), -ENOENT);
    CHECK_EQ(wren_ieee802154_sec_prepare(&tx, &h, false), -ENOENT);
    CHECK_EQ(tx.sec.stats.tx_no_key, 1);
    CHECK(!h.security);
    key(&tx, 2, 0x22);
    uint32_t fc = UINT32_MAX;
    CHECK_EQ(wren_ieee802154_sec_set(&tx, WREN_NETOPT_SEC_FRAME_COUNTER, &fc, 4), 0);
    CHECK_EQ(wren_ieee802154_sec_prepare(&tx, &h, false), -EOVERFLOW);
    CHECK_EQ(tx.sec.stats.tx_counter_end, 1);
    /* a frame type without a level leaves unsecured */
    h.type = IEEE802154_TYPE_CMD;
    CHECK_EQ(wren_ieee802154_sec_prepare(&tx, &h, false), 0);
    CHECK(!h.security);
    /* key table: full, replace, bad values */
    key(&tx, 7, 0x77);
    struct wren_ieee802154_sec_key k = {.index = 8};
    CHECK_EQ(wren_ieee802154_sec_set(&tx, WREN_NETOPT_SEC_KEY, &k, sizeof(k)), -ENOSPC);
    key(&tx, 7, 0x78);
    k.index = 0;
    CHECK_EQ(wren_ieee802154_sec_set(&tx, WREN_NETOPT_SEC_KEY, &k, sizeof(k)), -EINVAL);
    struct wren_ieee802154_sec_policy p = {IEEE802154_TYPE_DATA, 8, 2};
    CHECK_EQ(wren_ieee802154_sec_set(&tx, WREN_NETOPT_SEC_LEVEL, &p, sizeof(p)), -EINVAL);
    p = (struct wren_ieee802154_sec_policy){4, 1, 2};
    CHECK_EQ(wren_ieee802154_sec_set(&tx, WREN_NETOPT_SEC_LEVEL, &p, sizeof(p)), -EINVAL);
    uint8_t got[4];
    CHECK_EQ(wren_ieee802154_sec_get(&tx, WREN_NETOPT_SEC_KEY, got, sizeof(got)), 2);
}

/* The key and counter tables are made by the first key (CONFIG_WREN_NODE_MEM):
 * without memory for them the key is refused and counted, and a frame of the
 * level that needs it is not sent. */
static void test_sec__tables_made_by_the_first_key(void **state)
{
    (void)state;
    memset(&tx, 0, sizeof(tx));
    wren_ieee802154_sec_init(&tx);
    tx.netif.node = &node;
    node.rt_ops = &without_mem;
    struct wren_ieee802154_sec_key k = {.index = 2};
    int rc = wren_ieee802154_sec_set(&tx, WREN_NETOPT_SEC_KEY, &k, sizeof(k));
    uint8_t got[4];
#if !CONFIG_WREN_NODE_MEM
    CHECK_EQ(rc, 0); /* built in */
    (void)got;
#else
    CHECK_EQ(rc, -ENOMEM);
    CHECK_EQ(tx.sec.stats.no_mem, 1);
    CHECK_EQ(wren_ieee802154_sec_get(&tx, WREN_NETOPT_SEC_KEY, got, sizeof(got)), 0);
    level(&tx, IEEE802154_TYPE_DATA, WREN_SEC_ENC_MIC32, 2);
    struct ieee802154_hdr h = {.type = IEEE802154_TYPE_DATA, .src_mode = IEEE802154_ADDR_EXT};
    CHECK_EQ(wren_ieee802154_sec_prepare(&tx, &h, false), -ENOENT);
    CHECK_EQ(tx.sec.stats.tx_no_key, 1);
    node.rt_ops = &with_mem;
    mem_used = 0;
    CHECK_EQ(wren_ieee802154_sec_set(&tx, WREN_NETOPT_SEC_KEY, &k, sizeof(k)), 0);
    CHECK_EQ(mem_used, 1);
    CHECK_EQ(wren_ieee802154_sec_get(&tx, WREN_NETOPT_SEC_KEY, got, sizeof(got)), 1);
    CHECK(wren_ieee802154_sec_prepare(&tx, &h, false) > 0);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sec__enc_mic32_round_trip_and_counters),
        cmocka_unit_test(test_sec__replay_and_retransmission),
        cmocka_unit_test(test_sec__retransmission_checks_its_mic),
        cmocka_unit_test(test_sec__asn_nonce_only_on_a_tsch_link),
        cmocka_unit_test(test_sec__policy_levels_keys_and_malformed),
        cmocka_unit_test(test_sec__neighbour_table_full),
        cmocka_unit_test(test_sec__tsch_asn_nonce),
        cmocka_unit_test(test_sec__tx_without_key_and_counter_end),
        cmocka_unit_test(test_sec__tables_made_by_the_first_key),
    };
    return cmocka_run_group_tests_name("ieee802154_sec", tests, NULL, NULL);
}
