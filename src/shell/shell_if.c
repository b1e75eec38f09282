/* The shell's `ifconfig`: what each interface is and counts (show_if), and
 * one handler per option (if_opts[]). Everything goes through netapi GET/SET
 * on the interface, or on the IPv6 and 6LoWPAN layers for what they keep
 * per interface (addresses, the link source, datagram loss). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "core/node.h"
#include "ipv6/addr_str.h"
#include "ipv6/ipv6.h"
#include "link/ieee802154_link.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "net/netopt.h"
#include "shell/shell.h"
#include "shell/shell_priv.h"
#include "wire/ipv6.h"

/* "5", "2.5", "0.25" percent -> 1/100 % (0..10000), or -1 */
static long pct_hundredths(const char *s)
{
    long v = 0;
    int frac = -1;
    for (; *s; s++) {
        if (*s == '.' && frac < 0) {
            frac = 0;
        } else if (*s >= '0' && *s <= '9' && frac < 2 && v <= 10000) {
            v = v * 10 + (*s - '0');
            frac += frac >= 0;
        } else {
            return -1;
        }
    }
    for (int i = frac < 0 ? 0 : frac; i < 2; i++) {
        v *= 10;
    }
    return v <= 10000 ? v : -1;
}

/* ---- 802.15.4 security: shown and set ------------------------------------ */

#if CONFIG_WREN_IEEE802154_SEC
/* 802.15.4 security levels by name (802.15.4-2015 Table 9-6) */
static const char sec_names[] = "off\0mic32\0mic64\0mic128\0enc\0enc-mic32\0enc-mic64\0enc-mic128";
static const char *const sec_types[4] = { "beacon", "data", "ack", "cmd" };

static const char *sec_level_name(unsigned level)
{
    const char *p = sec_names;
    while (level-- && level < 8) {
        p += strlen(p) + 1;
    }
    return p;
}

/* "enc-mic32" or "5" -> 5; -1 if neither */
static int sec_level_parse(const char *s)
{
    for (unsigned l = 0; l < 8; l++) {
        if (strcmp(s, sec_level_name(l)) == 0 || (s[0] == (char)('0' + l) && !s[1])) {
            return (int)l;
        }
    }
    return -1;
}

static int hex_nibble(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                  : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* "Security: beacon off, data mic32 (key 2), ...; keys 1 2; frame counter N" */
static void show_sec_policy(struct wren_shell *sh, struct wren_module *m)
{
    struct wren_node *node = sh->node;
    uint8_t idx[32];
    uint32_t fc = 0;
    int nkeys = wren_netapi_get(node, m, WREN_NETOPT_SEC_KEY, 0, idx, sizeof(idx));
    wren_netapi_get(node, m, WREN_NETOPT_SEC_FRAME_COUNTER, 0, &fc, sizeof(fc));
    wren_shell_printf(sh, "          Security:");
    for (uint8_t t = 0; t < 4; t++) {
        struct wren_ieee802154_sec_policy p = { .frame_type = t };
        wren_netapi_get(node, m, WREN_NETOPT_SEC_LEVEL, 0, &p, sizeof(p));
        wren_shell_printf(sh, " %s %s", sec_types[t], sec_level_name(p.level));
        if (p.level) {
            wren_shell_printf(sh, " (key %u)", p.key_index);
        }
        wren_shell_printf(sh, t < 3 ? "," : ";");
    }
    wren_shell_printf(sh, " keys");
    for (int i = 0; i < nkeys; i++) {
        wren_shell_printf(sh, " %u", idx[i]);
    }
    wren_shell_printf(sh, "%s; frame counter %lu\n", nkeys > 0 ? "" : " none", (unsigned long)fc);
}

static void show_sec(struct wren_shell *sh, struct wren_module *m)
{
    struct wren_ieee802154_sec_stats st;
    if (wren_netapi_get(sh->node, m, WREN_NETOPT_SEC_STATS, 0, &st, sizeof(st)) != sizeof(st)) {
        return;
    }
    show_sec_policy(sh, m);
    wren_shell_printf(sh, "          sec: tx secured %lu, no key %lu, counter end %lu, nobuf %lu; rx "
                      "secured %lu; drops: no key %lu, bad MIC %lu, replay %lu, level %lu, "
                      "malformed %lu, no source %lu, table full %lu, ASN not TSCH %lu\n",
                      (unsigned long)st.tx_secured, (unsigned long)st.tx_no_key,
                      (unsigned long)st.tx_counter_end, (unsigned long)st.tx_nobuf,
                      (unsigned long)st.rx_secured, (unsigned long)st.rx_no_key,
                      (unsigned long)st.rx_bad_mic, (unsigned long)st.rx_replay,
                      (unsigned long)st.rx_level, (unsigned long)st.rx_malformed,
                      (unsigned long)st.rx_no_src, (unsigned long)st.rx_nbr_full,
                      (unsigned long)st.rx_asn_not_tsch);
}

/* IF key IDX HEX32 | IF key IDX del */
static int if_key(struct wren_shell *sh, struct wren_netif *nif, int argc, char **argv)
{
    int bad = 0, res;
    if (argc != 5) {
        return wren_shell_error(sh, -EINVAL, "ifconfig IF key INDEX HEX32|del");
    }
    uint8_t index = (uint8_t)wren_shell_num(argv[3], 1, 255, &bad);
    if (bad) {
        return wren_shell_error(sh, -EINVAL, "key index: 1..255");
    }
    if (strcmp(argv[4], "del") == 0) {
        res = wren_netapi_set(sh->node, &nif->module, WREN_NETOPT_SEC_KEY_DEL, 0, &index, 1);
        return res < 0 ? wren_shell_error(sh, res, "ifconfig key del") : 0;
    }
    struct wren_ieee802154_sec_key k = { .index = index };
    const char *h = argv[4];
    for (unsigned i = 0; i < 32; i++) {
        int v = hex_nibble(h[i]);
        if (v < 0) {
            return wren_shell_error(sh, -EINVAL, "key: 32 hex digits (128 bits)");
        }
        k.key[i / 2] = (uint8_t)(k.key[i / 2] << 4 | v);
    }
    if (h[32]) {
        return wren_shell_error(sh, -EINVAL, "key: 32 hex digits (128 bits)");
    }
    res = wren_netapi_set(sh->node, &nif->module, WREN_NETOPT_SEC_KEY, 0, &k, sizeof(k));
    return res < 0 ? wren_shell_error(sh, res, "ifconfig key") : 0;
}

/* IF sec [TYPE] LEVEL [KEYIDX]: TYPE data by default; the key of the minimal
 * 6TiSCH configuration by default (K1 = 1 for beacons, else K2 = 2) */
static int if_sec_level(struct wren_shell *sh, struct wren_netif *nif, int argc, char **argv)
{
    int bad = 0, a = 3;
    struct wren_ieee802154_sec_policy p = { .frame_type = IEEE802154_TYPE_DATA };
    for (uint8_t t = 0; t < 4 && a < argc; t++) {
        if (strcmp(argv[a], sec_types[t]) == 0 || (t == 0 && strcmp(argv[a], "eb") == 0)) {
            p.frame_type = t;
            a++;
            break;
        }
    }
    int level = a < argc ? sec_level_parse(argv[a]) : -1;
    p.key_index = p.frame_type == IEEE802154_TYPE_BEACON ? 1 : 2;
    if (a + 2 == argc) {
        p.key_index = (uint8_t)wren_shell_num(argv[a + 1], 1, 255, &bad);
    }
    if (level < 0 || bad || argc > a + 2) {
        return wren_shell_error(sh, -EINVAL, "ifconfig IF sec [beacon|data|ack|cmd] "
                                "off|mic32|mic64|mic128|enc|enc-mic32|enc-mic64|enc-mic128 [KEY]");
    }
    p.level = (uint8_t)level;
    int res = wren_netapi_set(sh->node, &nif->module, WREN_NETOPT_SEC_LEVEL, 0, &p, sizeof(p));
    return res < 0 ? wren_shell_error(sh, res, "ifconfig sec") : 0;
}

/* IF key ... | IF sec ... */
static int if_sec(struct wren_shell *sh, uint8_t id, int argc, char **argv)
{
    struct wren_netif *nif = wren_netif_get(sh->node, id);
    if (nif == NULL) {
        return wren_shell_error(sh, -ENODEV, "ifconfig: no such interface");
    }
    return strcmp(argv[2], "key") == 0 ? if_key(sh, nif, argc, argv)
                                       : if_sec_level(sh, nif, argc, argv);
}
#endif

/* ---- ifconfig: one interface shown ---------------------------------------- */

/* a LoRa modem's line: frequency, SF, bandwidth, coding rate, duty cycle */
static void show_lora(struct wren_shell *sh, struct wren_netif *netif)
{
    struct wren_module *m = &netif->module;
    uint32_t freq = 0;
    uint16_t bw = 0, dc = 0;
    uint8_t sf = 0, cr = 0;
    wren_netapi_get(sh->node, m, WREN_NETOPT_LORA_FREQ, 0, &freq, 4);
    wren_netapi_get(sh->node, m, WREN_NETOPT_LORA_SF, 0, &sf, 1);
    wren_netapi_get(sh->node, m, WREN_NETOPT_LORA_BW, 0, &bw, 2);
    wren_netapi_get(sh->node, m, WREN_NETOPT_LORA_CR, 0, &cr, 1);
    wren_netapi_get(sh->node, m, WREN_NETOPT_LORA_DUTY_CYCLE, 0, &dc, 2);
    wren_shell_printf(sh, "Iface %u  LoRa %lu Hz  SF%u  BW %u kHz  CR 4/%u  duty cycle %u.%02u%%\n",
                      netif->id, (unsigned long)freq, sf, bw, cr, dc / 100u, dc % 100u);
}

/* the link layer's line: an Ethernet MAC, or 802.15.4's addresses, channel
 * and PAN */
static void show_link(struct wren_shell *sh, struct wren_netif *netif)
{
    struct wren_node *node = sh->node;
    struct wren_module *m = &netif->module;
    uint8_t s[8] = { 0 }, l[8] = { 0 };
    uint16_t pan = 0, ch = 0, type = 0;
    wren_netapi_get(node, m, WREN_NETOPT_DEVICE_TYPE, 0, &type, 2);
    if (type == WREN_NETDEV_TYPE_ETHERNET &&
        wren_netapi_get(node, m, WREN_NETOPT_ADDRESS, 0, s, sizeof(s)) == 6) {
        wren_shell_printf(sh, "Iface %u  Ethernet HWaddr: %02x:%02x:%02x:%02x:%02x:%02x\n", netif->id,
                  s[0], s[1], s[2], s[3], s[4], s[5]);
        return;
    }
    if (type == WREN_NETDEV_TYPE_LORA) {
        show_lora(sh, netif);
        return;
    }
    wren_netapi_get(node, m, WREN_NETOPT_ADDRESS, 0, s, 2);
    wren_netapi_get(node, m, WREN_NETOPT_ADDRESS_LONG, 0, l, 8);
    wren_netapi_get(node, m, WREN_NETOPT_NID, 0, &pan, 2);
    wren_netapi_get(node, m, WREN_NETOPT_CHANNEL, 0, &ch, 2);
    wren_shell_printf(sh, "Iface %u  HWaddr: %02x:%02x  Long HWaddr: %02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x\n",
              netif->id, s[0], s[1], l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7]);
    wren_shell_printf(sh, "          Channel: %u  PAN: 0x%04x\n", ch, pan);
}

/* the MTU and addresses the IPv6 layer keeps for the interface */
static void show_addrs(struct wren_shell *sh, struct wren_netif *netif)
{
    struct wren_node *node = sh->node;
    struct wren_module *ip = wren_shell_layer(sh, WREN_NETTYPE_IPV6);
    struct wren_ipv6_addr addrs[CONFIG_WREN_IPV6_ADDRS];
    if (!ip ||
        wren_netapi_get(node, ip, WREN_NETOPT_IPV6_ADDR, netif->id, addrs, sizeof(addrs)) <= 0) {
        return;
    }
    uint16_t mtu = 0;
    wren_netapi_get(node, ip, WREN_NETOPT_IPV6_MTU, netif->id, &mtu, 2);
    wren_shell_printf(sh, "          MTU: %u\n", mtu);
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
        if (addrs[i].state) {
            char a[WREN_IPV6_ADDR_STRLEN];
            wren_shell_printf(sh, "          inet6 addr: %s/%u  scope: %s%s\n",
                      wren_ipv6_addr_to_str(a, addrs[i].addr), addrs[i].prefix_len,
                      wren_ipv6_addr_is_link_local(addrs[i].addr) ? "link" : "global",
                      addrs[i].state == WREN_IPV6_ADDR_TENTATIVE ? " TENTATIVE" : "");
        }
    }
}

/* the radio's time in each state, if the device counts it */
static void show_radio(struct wren_shell *sh, struct wren_module *m)
{
    struct wren_radio_time rt;
    if (wren_netapi_get(sh->node, m, WREN_NETOPT_RADIO_TIME, 0, &rt, sizeof(rt)) != sizeof(rt)) {
        return;
    }
    uint64_t on = rt.listen + rt.rx + rt.tx, all = on + rt.off;
    unsigned long permille = all ? (unsigned long)(on * 1000u / all) : 0;
    wren_shell_printf(sh, "          Radio: off %lu ms, listen %lu ms, rx %lu ms, tx %lu ms; "
                  "duty cycle %lu.%lu%%\n",
              (unsigned long)(rt.off / 1000), (unsigned long)(rt.listen / 1000),
              (unsigned long)(rt.rx / 1000), (unsigned long)(rt.tx / 1000), permille / 10,
              permille % 10);
}

/* the MAC's counters, if the interface has a MAC that keeps them */
static void show_mac(struct wren_shell *sh, struct wren_module *m)
{
    struct wren_mac_stats ms;
    if (wren_netapi_get(sh->node, m, WREN_NETOPT_MAC_STATS, 0, &ms, sizeof(ms)) != sizeof(ms)) {
        return;
    }
    wren_shell_printf(sh, "          MAC: on air %lu, retries %lu, no-ack %lu, channel busy %lu "
                  "(CCA busy %lu), ACKs rx %lu tx %lu, duplicates %lu, polls %lu, "
                  "indirect %lu sent %lu dropped %lu\n",
              (unsigned long)ms.tx_attempts, (unsigned long)ms.tx_retries,
              (unsigned long)ms.tx_noack, (unsigned long)ms.tx_caf, (unsigned long)ms.cca_busy,
              (unsigned long)ms.ack_rx, (unsigned long)ms.ack_tx, (unsigned long)ms.rx_dup,
              (unsigned long)ms.polls, (unsigned long)ms.indirect_queued,
              (unsigned long)ms.indirect_sent, (unsigned long)ms.indirect_drop);
}

/* the device's fault injector: its settings and what it did */
static void show_faults(struct wren_shell *sh, struct wren_module *m)
{
    struct wren_netopt_faults fc;
    struct wren_netopt_fault_stats fs;
    if (wren_netapi_get(sh->node, m, WREN_NETOPT_FAULTS, 0, &fc, sizeof(fc)) != sizeof(fc) ||
        wren_netapi_get(sh->node, m, WREN_NETOPT_FAULT_STATS, 0, &fs, sizeof(fs)) != sizeof(fs)) {
        return;
    }
    wren_shell_printf(sh, "          Faults: loss %u.%02u%% reorder %u.%02u%% hold %u ms; rx dropped "
                  "%lu reordered %lu held-timeout %lu; tx dropped %lu reordered %lu "
                  "held-timeout %lu\n",
              fc.loss / 100u, fc.loss % 100u, fc.reorder / 100u, fc.reorder % 100u,
              fc.hold_ms ? fc.hold_ms : 5u, (unsigned long)fs.rx_dropped,
              (unsigned long)fs.rx_reordered, (unsigned long)fs.rx_held_timeout,
              (unsigned long)fs.tx_dropped, (unsigned long)fs.tx_reordered,
              (unsigned long)fs.tx_held_timeout);
}

/* the interface's packet counters and drops (the link layer's own if it
 * answers for them, else the netif's) */
static void show_netif_stats(struct wren_shell *sh, struct wren_netif *netif)
{
    const struct wren_netif_stats *st = &netif->stats;
    struct wren_netif_stats stats;
    if (wren_netapi_get(sh->node, &netif->module, WREN_NETOPT_STATS, 0, &stats, sizeof(stats)) ==
        sizeof(stats)) {
        st = &stats;
    }
    wren_shell_printf(sh, "          RX packets %lu bytes %lu  TX packets %lu bytes %lu (ok %lu, no-ack %lu, busy %lu)\n",
              (unsigned long)st->rx_frames, (unsigned long)st->rx_bytes,
              (unsigned long)st->tx_frames, (unsigned long)st->tx_bytes, (unsigned long)st->tx_ok,
              (unsigned long)st->tx_noack, (unsigned long)st->tx_busy);
    wren_shell_printf(sh, "          drops: rx nobuf %lu malformed %lu unsupported %lu not-for-us %lu "
                  "no-receiver %lu; tx queue %lu bad %lu device %lu frag %lu\n",
              (unsigned long)st->rx_drop_nobuf, (unsigned long)st->rx_drop_malformed,
              (unsigned long)st->rx_drop_unsupported, (unsigned long)st->rx_drop_not_for_us,
              (unsigned long)st->rx_drop_no_receiver, (unsigned long)st->tx_drop_queue,
              (unsigned long)st->tx_drop_bad, (unsigned long)st->tx_drop_dev,
              (unsigned long)st->tx_drop_frag);
}

static void show_if(struct wren_shell *sh, struct wren_netif *netif)
{
    show_link(sh, netif);
    show_addrs(sh, netif);
    show_radio(sh, &netif->module);
    show_mac(sh, &netif->module);
    show_faults(sh, &netif->module);
#if CONFIG_WREN_IEEE802154_SEC
    show_sec(sh, &netif->module);
#endif
    show_netif_stats(sh, netif);
}

/* ---- ifconfig IF OPTION ...: one handler per option ----------------------- */

static int if_usage(struct wren_shell *sh)
{
    wren_shell_printf(sh, "usage: ifconfig [IF add ADDR[/LEN] | IF del ADDR | "
                  "IF faults LOSS%% REORDER%% [HOLD_MS] | IF ack on|off | IF l2src short|long | "
                  "IF key INDEX HEX32|del | IF sec [beacon|data|ack|cmd] LEVEL [KEY]]\n");
    return -EINVAL;
}

/* IF add ADDR[/LEN] | IF del ADDR, also what an option's handler leaves to
 * it: the address is read (and refused) before the option is */
static int if_addr(struct wren_shell *sh, uint8_t id, int argc, char **argv)
{
    (void)argc;
    struct wren_module *ip = wren_shell_layer(sh, WREN_NETTYPE_IPV6);
    if (ip == NULL) {
        return if_usage(sh);
    }
    struct wren_ipv6_addr a = { .state = WREN_IPV6_ADDR_VALID };
    if (wren_shell_prefix(argv[3], a.addr, &a.prefix_len) < 0) {
        return wren_shell_error(sh, -EINVAL, "bad address");
    }
    int res;
    if (strcmp(argv[2], "add") == 0) {
        if (a.prefix_len == 128 && strchr(argv[3], '/') == NULL) {
            a.prefix_len = 64;
        }
        res = wren_netapi_set(sh->node, ip, WREN_NETOPT_IPV6_ADDR, id, &a, sizeof(a));
    } else if (strcmp(argv[2], "del") == 0) {
        res = wren_netapi_set(sh->node, ip, WREN_NETOPT_IPV6_ADDR_REMOVE, id, a.addr, 16);
    } else {
        res = -EINVAL;
    }
    return res < 0 ? wren_shell_error(sh, res, "ifconfig") : 0;
}

/* IF faults LOSS% REORDER% [HOLD_MS]: the device's fault injector */
static int if_faults(struct wren_shell *sh, uint8_t id, int argc, char **argv)
{
    int bad = 0;
    struct wren_netif *nif = wren_netif_get(sh->node, id);
    long loss = pct_hundredths(argv[3]), reorder = pct_hundredths(argv[4]);
    long hold = argc == 6 ? wren_shell_num(argv[5], 1, 60000, &bad) : 0;
    if (nif == NULL || loss < 0 || reorder < 0 || bad) {
        return wren_shell_error(sh, -EINVAL, "ifconfig IF faults LOSS% REORDER% [HOLD_MS]");
    }
    struct wren_netopt_faults f = { .loss = (uint16_t)loss, .reorder = (uint16_t)reorder,
                                    .hold_ms = (uint16_t)hold };
    int res = wren_netapi_set(sh->node, &nif->module, WREN_NETOPT_FAULTS, 0, &f, sizeof(f));
    return res < 0 ? wren_shell_error(sh, res, "ifconfig faults") : 0;
}

/* IF dgloss LOSS% [SEED]: 6LoWPAN drops whole datagrams both ways (after
 * reassembly, before fragmentation) with that probability */
static int if_dgloss(struct wren_shell *sh, uint8_t id, int argc, char **argv)
{
    int bad = 0;
    struct wren_module *lo = wren_shell_layer(sh, WREN_NETTYPE_SIXLOWPAN);
    long loss = pct_hundredths(argv[3]);
    uint64_t seed = 0;
    for (const char *p = argc == 5 ? argv[4] : ""; *p; p++) {
        bad |= *p < '0' || *p > '9' || seed > UINT64_MAX / 10 - 1;
        seed = seed * 10 + (uint64_t)(*p - '0');
    }
    if (wren_netif_get(sh->node, id) == NULL || lo == NULL || loss < 0 || bad) {
        return wren_shell_error(sh, -EINVAL, "ifconfig IF dgloss LOSS% [SEED]");
    }
    struct wren_netopt_faults f = { .seed = seed, .loss = (uint16_t)loss };
    int res = wren_netapi_set(sh->node, lo, WREN_NETOPT_FAULTS, id, &f, sizeof(f));
    return res < 0 ? wren_shell_error(sh, res, "ifconfig dgloss") : 0;
}

/* IF ack on|off: ask for 802.15.4 ACKs on unicast (off for peers that never
 * send any, such as lwIP's zepif) */
static int if_ack(struct wren_shell *sh, uint8_t id, int argc, char **argv)
{
    (void)argc;
    struct wren_netif *nif = wren_netif_get(sh->node, id);
    uint8_t on = strcmp(argv[3], "on") == 0;
    if (nif == NULL || (!on && strcmp(argv[3], "off") != 0)) {
        return wren_shell_error(sh, -EINVAL, "ifconfig IF ack on|off");
    }
    int res = wren_netapi_set(sh->node, &nif->module, WREN_NETOPT_ACK_REQ, 0, &on, 1);
    return res < 0 ? wren_shell_error(sh, res, "ifconfig ack") : 0;
}

/* IF l2src short|long: the link address frames leave from (802.15.4: the
 * short address or the EUI-64), set through IPv6, which compresses against
 * it; another word is taken for an address (if_addr) */
static int if_l2src(struct wren_shell *sh, uint8_t id, int argc, char **argv)
{
    struct wren_module *ip = wren_shell_layer(sh, WREN_NETTYPE_IPV6);
    if (ip == NULL || (strcmp(argv[3], "short") != 0 && strcmp(argv[3], "long") != 0)) {
        return if_addr(sh, id, argc, argv);
    }
    uint16_t alen = argv[3][0] == 's' ? 2 : 8;
    int res = wren_netapi_set(sh->node, ip, WREN_NETOPT_ADDR_LEN, id, &alen, sizeof(alen));
    return res < 0 ? wren_shell_error(sh, res, "ifconfig l2src") : 0;
}

/* an option and the argument counts it takes (the whole line's, "ifconfig"
 * included); a line that fits none is an address's (if_addr) */
struct if_opt {
    const char *name;
    uint8_t argc_min, argc_max;
    int (*fn)(struct wren_shell *sh, uint8_t id, int argc, char **argv);
};

static const struct if_opt if_opts[] = {
    { "faults", 5, 6, if_faults },
    { "dgloss", 4, 5, if_dgloss },
#if CONFIG_WREN_IEEE802154_SEC
    { "key", 4, UINT8_MAX, if_sec },
    { "sec", 4, UINT8_MAX, if_sec },
#endif
    { "ack", 4, 4, if_ack },
    { "l2src", 4, 4, if_l2src },
};

int wren_shell_ifconfig(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    (void)m;
    if (argc == 1) {
        for (struct wren_netif *n = sh->node->netifs; n; n = n->next) {
            show_if(sh, n);
        }
        return 0;
    }
    int bad = 0;
    uint8_t id = (uint8_t)wren_shell_num(argv[1], 1, 255, &bad);
    if (bad || argc < 4) {
        return if_usage(sh);
    }
    for (size_t i = 0; i < sizeof(if_opts) / sizeof(if_opts[0]); i++) {
        const struct if_opt *o = &if_opts[i];
        if (argc >= o->argc_min && argc <= o->argc_max && strcmp(argv[2], o->name) == 0) {
            return o->fn(sh, id, argc, argv);
        }
    }
    return if_addr(sh, id, argc, argv);
}
