#include "host/wren_node_lora.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/netapi.h"
#include "net/netopt.h"
#include "net/nettype.h"

int wren_node_lora_open(struct wren_lora_udp *lu, struct wren_host *h, const char *spec)
{
    char tmp[128], rhost[96];
    snprintf(tmp, sizeof(tmp), "%s", spec);
    char *first = strchr(tmp, ':'), *last = strrchr(tmp, ':');
    char *e1 = NULL, *e2 = NULL;
    unsigned long lp = 0, rp = 0;
    if (first) {
        *first = 0;
        *last = 0;
        lp = strtoul(tmp, &e1, 10);
        rp = strtoul(last + 1, &e2, 10);
    }
    if (first == NULL || *e1 || *e2 || lp > 65535 || rp == 0 || rp > 65535) {
        fprintf(stderr, "wren-node: --lora wants LPORT:[RHOST:]RPORT, not '%s'\n", spec);
        return 2;
    }
    const char *host = first == last ? "127.0.0.1" : first + 1;
    size_t hl = strlen(host);
    if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
        snprintf(rhost, sizeof(rhost), "%.*s", (int)(hl - 2), host + 1);
    } else {
        snprintf(rhost, sizeof(rhost), "%s", host);
    }
    char why[200];
    if (wren_lora_udp_open(lu, h, (uint16_t)lp, rhost, (uint16_t)rp, why, sizeof(why)) < 0) {
        fprintf(stderr, "wren-node: %s\n", why);
        return 1;
    }
    return 0;
}

static int lora_send(struct wren_node *node, struct wren_lora_netif *nif, const char *text)
{
    size_t len = strlen(text);
    struct wren_snip *pl = wren_pktbuf_add(&node->pktbuf, NULL, text, len, WREN_NETTYPE_LORA);
    struct wren_snip *pkt = pl ? wren_netif_hdr_add(&node->pktbuf, pl, NULL, 0, NULL, 0) : NULL;
    if (pkt == NULL) {
        if (pl) {
            wren_pktbuf_release(&node->pktbuf, pl);
        }
        return -ENOBUFS;
    }
    wren_netif_hdr(pkt)->if_id = nif->netif.id;
    wren_netif_hdr(pkt)->flags |= WREN_NETIF_HDR_BROADCAST;
    return wren_netapi_send(node, &nif->netif.module, pkt);
}

static const struct {
    const char *name;
    uint16_t opt;
    uint8_t size;
} lora_keys[] = {
    {"sf", WREN_NETOPT_LORA_SF, 1},       {"bw", WREN_NETOPT_LORA_BW, 2},
    {"cr", WREN_NETOPT_LORA_CR, 1},       {"ch", WREN_NETOPT_CHANNEL, 2},
    {"sync", WREN_NETOPT_LORA_SYNCWORD, 1}, {"power", WREN_NETOPT_TX_POWER, 2},
    {"dc", WREN_NETOPT_LORA_DUTY_CYCLE, 2},
};

static int lora_set(struct wren_node *node, struct wren_lora_netif *nif, const char *key,
                    const char *arg, void (*out)(void *ctx, const char *s))
{
    char *e;
    long v = strcmp(key, "dc") == 0 && strcmp(arg, "regional") == 0 ? WREN_LORA_DC_REGIONAL
                                                                     : strtol(arg, &e, 0);
    for (unsigned i = 0; i < sizeof(lora_keys) / sizeof(lora_keys[0]); i++) {
        if (strcmp(key, lora_keys[i].name) != 0) {
            continue;
        }
        uint8_t b = (uint8_t)v;
        uint16_t w = (uint16_t)v;
        int res = wren_netapi_set(node, &nif->netif.module, lora_keys[i].opt, 0,
                                  lora_keys[i].size == 1 ? (const void *)&b : (const void *)&w,
                                  lora_keys[i].size);
        if (res < 0) {
            char s[96];
            snprintf(s, sizeof(s), "lora set %s %s: not a value the modem has\n", key, arg);
            out(NULL, s);
        }
        return res < 0 ? res : 0;
    }
    out(NULL, "lora set: one of sf, bw, cr, ch, sync, power, dc\n");
    return -EINVAL;
}

static void lora_show(const struct wren_lora_udp *lu, void (*out)(void *ctx, const char *s))
{
    const struct wren_lora_modem *m = &lu->modem;
    const struct wren_lora_udp_stats *c = &lu->stats;
    unsigned slot;
    char s[512];
    snprintf(s, sizeof(s),
             "lora %lu Hz SF%u BW%u CR4/%u sync 0x%02x %d dBm duty-cycle %u/10000: tx %llu "
             "(airtime %llu us) dc_drop %llu too-long %llu errors %llu; rx packets %llu frames "
             "%llu; drops: malformed %llu other-channel %llu other-sync %llu while-tx %llu "
             "overrun %llu\n",
             (unsigned long)m->freq_hz, m->phy.sf, m->phy.bw_khz, m->phy.cr, m->syncword,
             m->tx_power, wren_lora_modem_dc(m, &slot), (unsigned long long)c->tx_frames,
             (unsigned long long)c->tx_airtime_us, (unsigned long long)c->dc_drop,
             (unsigned long long)c->tx_too_long, (unsigned long long)c->tx_errors,
             (unsigned long long)c->rx_packets, (unsigned long long)c->rx_frames,
             (unsigned long long)c->rx_malformed, (unsigned long long)c->rx_other_channel,
             (unsigned long long)c->rx_other_sync, (unsigned long long)c->rx_while_tx,
             (unsigned long long)c->rx_overrun);
    out(NULL, s);
}

int wren_node_lora_cmd(struct wren_node *node, struct wren_lora_udp *lu,
                       struct wren_lora_netif *nif, int argc, char **argv,
                       void (*out)(void *ctx, const char *s))
{
    if (argc >= 3 && strcmp(argv[1], "send") == 0) {
        return lora_send(node, nif, argv[2]);
    }
    if (argc == 4 && strcmp(argv[1], "set") == 0) {
        return lora_set(node, nif, argv[2], argv[3], out);
    }
    if (argc != 1) {
        out(NULL, "usage: lora [send TEXT | set sf|bw|cr|ch|sync|power|dc VALUE]\n");
        return -EINVAL;
    }
    lora_show(lu, out);
    return 0;
}

static int hex_bytes(const char *p, size_t n, uint8_t *out, const char **end)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        int k = 0;
        if (sscanf(p, "%2x%n", &v, &k) != 1 || k != 2) {
            return -1;
        }
        out[i] = (uint8_t)v;
        p += 2;
    }
    *end = p;
    return 0;
}

int wren_node_lorawan_parse(const char *spec, struct wren_lorawan_session *s)
{
    uint8_t a[4];
    const char *p = spec;
    memset(s, 0, sizeof(*s));
    int bad = hex_bytes(p, 4, a, &p) < 0 || *p++ != ':' ||
              hex_bytes(p, 16, s->nwkskey, &p) < 0 || *p++ != ':' ||
              hex_bytes(p, 16, s->appskey, &p) < 0;
    if (!bad && *p) {
        bad = strcmp(p, ":network") != 0;
        s->role = WREN_LORAWAN_ROLE_NETWORK;
    }
    if (bad) {
        fprintf(stderr, "wren-node: --lorawan wants DEVADDR:NWKSKEY:APPSKEY[:network] (8, 32 "
                        "and 32 hex digits), not '%s'\n", spec);
        return 2;
    }
    s->devaddr = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
    return 0;
}

int wren_node_schc_rules(struct wren_node *node, struct wren_module *schc, const char *path)
{
    static char text[8192];
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "wren-node: cannot read --schc-rules %s: %s\n", path, strerror(errno));
        return 1;
    }
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    int full = n == sizeof(text) - 1 && !feof(f);
    fclose(f);
    if (full) {
        fprintf(stderr, "wren-node: --schc-rules %s: longer than %zu bytes\n", path,
                sizeof(text) - 1);
        return 2;
    }
    text[n] = 0;
    if (wren_netapi_set(node, schc, WREN_NETOPT_SCHC_RULES, 0, text, n + 1) < 0) {
        char why[160] = "";
        wren_netapi_get(node, schc, WREN_NETOPT_SCHC_ERROR, 0, why, sizeof(why) - 1);
        fprintf(stderr, "wren-node: --schc-rules %s: %s\n", path, why[0] ? why : "refused");
        return 2;
    }
    return 0;
}
