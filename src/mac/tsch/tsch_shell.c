/* The `tsch` shell command: the TSCH MAC of the node's first interface
 * that runs one, through the WREN_NETOPT_TSCH_* keys only. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "mac/tsch/tsch.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "net/netopt.h"
#include "shell/shell.h"

#if CONFIG_WREN_TSCH && CONFIG_WREN_SHELL

static struct wren_module *tsch_if(struct wren_shell *sh)
{
    for (unsigned id = 1; id < 256; id++) {
        struct wren_netif *n = wren_netif_get(sh->node, (uint8_t)id);
        uint8_t role;
        if (n == NULL) {
            break;
        }
        if (wren_netapi_get(sh->node, &n->module, WREN_NETOPT_TSCH_ROLE, 0, &role, 1) == 1) {
            return &n->module;
        }
    }
    return NULL;
}

static const char *const role_names[] = { "off", "coordinator", "node" };

static void eui(char *out, const uint8_t *a, unsigned len)
{
    if (len != 8) {
        snprintf(out, 24, "any");
        return;
    }
    snprintf(out, 24, "%02x%02x:%02x%02x:%02x%02x:%02x%02x", a[0], a[1], a[2], a[3], a[4], a[5],
             a[6], a[7]);
}

static int parse_eui(const char *s, uint8_t out[8])
{
    unsigned n = 0;
    for (; *s && n < 16; s++) {
        int v = *s >= '0' && *s <= '9'   ? *s - '0'
                : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
                : *s >= 'A' && *s <= 'F' ? *s - 'A' + 10
                                         : -1;
        if (v < 0) {
            if (*s == ':' || *s == '-') {
                continue;
            }
            return -EINVAL;
        }
        out[n / 2] = (uint8_t)((n % 2) ? (out[n / 2] | v) : (v << 4));
        n++;
    }
    return n == 16 && *s == 0 ? 0 : -EINVAL;
}

static void show(struct wren_shell *sh, struct wren_module *m)
{
    struct wren_node *node = sh->node;
    struct wren_tsch_sync_info s;
    struct wren_tsch_config cfg;
    struct wren_tsch_stats st;
    char a[24];
    memset(&s, 0, sizeof(s));
    wren_netapi_get(node, m, WREN_NETOPT_TSCH_SYNC, 0, &s, sizeof(s));
    wren_netapi_get(node, m, WREN_NETOPT_TSCH_CONFIG, 0, &cfg, sizeof(cfg));
    eui(a, s.time_source, s.ts_len);
    wren_shell_printf(sh, "tsch: role %s  %s  asn %llu  join prio %u\n",
                      s.role < 3 ? role_names[s.role] : "?", s.synced ? "synced" : "not synced",
                      (unsigned long long)s.asn, s.join_prio);
    wren_shell_printf(sh, "  time source %s  last sync %lu ms ago  drift %ld ppb  broadcast chance "
                          "%lu.%lu %%\n", a, (unsigned long)s.last_sync_ms, (long)s.drift_ppb,
                      (unsigned long)(s.bc_chance * 1000ul / 65536ul) / 10ul,
                      (unsigned long)(s.bc_chance * 1000ul / 65536ul) % 10ul);
    wren_shell_printf(sh, "  slot %lu us  slotframe %u  EB %u..%u ms, EB slotframe %u  keep-alive %u ms  "
                      "desync %u ms  retries %u  BE %u..%u  hopping %u channels\n",
                      (unsigned long)cfg.slot_us, cfg.sf_len, cfg.eb_min_ms, cfg.eb_period_ms,
                      cfg.eb_sf_len,
                      cfg.ka_ms, cfg.desync_ms, cfg.max_retries, cfg.min_be, cfg.max_be,
                      cfg.hop_len);
    struct wren_tsch_cell cells[CONFIG_WREN_TSCH_CELLS];
    int n = wren_netapi_get(node, m, WREN_NETOPT_TSCH_CELLS, 0, cells, sizeof(cells));
    for (int i = 0; n > 0 && i < n / (int)sizeof(cells[0]); i++) {
        const struct wren_tsch_cell *c = &cells[i];
        static const char *const kinds[] = { "minimal", "autonomous", "negotiated", "manual" };
        eui(a, c->nbr, c->nbr_len);
        wren_shell_printf(sh, "  cell sf %u slot %u choff %u %s%s%s%s %s nbr %s: elapsed %lu used %lu "
                          "acked %lu rx %lu\n",
                          c->slotframe, c->slot_offset, c->channel_offset,
                          c->options & WREN_TSCH_CELL_TX ? "T" : "-",
                          c->options & WREN_TSCH_CELL_RX ? "R" : "-",
                          c->options & WREN_TSCH_CELL_SHARED ? "S" : "-",
                          c->options & WREN_TSCH_CELL_TIMEKEEPING ? "K" : "-",
                          c->kind < 4 ? kinds[c->kind] : "?", a, (unsigned long)c->elapsed,
                          (unsigned long)c->used, (unsigned long)c->tx_ack, (unsigned long)c->rx);
    }
    struct wren_tsch_queue_info q[CONFIG_WREN_TSCH_NBRS + 1];
    n = wren_netapi_get(node, m, WREN_NETOPT_TSCH_QUEUES, 0, q, sizeof(q));
    for (int i = 0; n > 0 && i < n / (int)sizeof(q[0]); i++) {
        eui(a, q[i].nbr, q[i].nbr_len);
        wren_shell_printf(sh, "  queue %s: %u\n", q[i].nbr_len ? a : "broadcast", q[i].len);
    }
    if (wren_netapi_get(node, m, WREN_NETOPT_TSCH_STATS, 0, &st, sizeof(st)) == sizeof(st)) {
        wren_shell_printf(sh, "  tx data %lu ok %lu noack %lu retries %lu eb %lu ka %lu  rx data %lu "
                          "eb %lu dup %lu idle %lu  acks %lu/%lu\n",
                          (unsigned long)st.tx_data, (unsigned long)st.tx_ok,
                          (unsigned long)st.tx_noack, (unsigned long)st.tx_retries,
                          (unsigned long)st.tx_eb, (unsigned long)st.tx_ka,
                          (unsigned long)st.rx_data, (unsigned long)st.rx_eb,
                          (unsigned long)st.rx_dup, (unsigned long)st.rx_idle,
                          (unsigned long)st.ack_rx, (unsigned long)st.ack_tx);
        wren_shell_printf(sh, "  joins %lu desyncs %lu (unconfirmed %lu) corrections %lu  drops: "
                          "queue %lu bad-ie %lu eb-asn %lu not-synced %lu unauthenticated %lu\n",
                          (unsigned long)st.sync_joins, (unsigned long)st.sync_desync,
                          (unsigned long)st.desync_unconfirmed,
                          (unsigned long)st.sync_corrections, (unsigned long)st.drop_queue_full,
                          (unsigned long)st.drop_bad_ie, (unsigned long)st.drop_eb_asn,
                          (unsigned long)st.drop_not_synced, (unsigned long)st.sync_unauth);
    }
}

/* the fields `tsch set` changes: name, where, size (bytes: 1, 2 or 4) */
#define CFG_KEY(f) { #f, offsetof(struct wren_tsch_config, f), \
                     sizeof(((struct wren_tsch_config *)0)->f) }
static const struct {
    const char *key;
    uint8_t off;
    uint8_t size;
} cfg_keys[] = {
    CFG_KEY(slot_us), CFG_KEY(sf_len), CFG_KEY(eb_period_ms), CFG_KEY(eb_min_ms),
    CFG_KEY(ka_ms), CFG_KEY(desync_ms), CFG_KEY(scan_ms), CFG_KEY(eb_sf_len),
    CFG_KEY(max_retries), CFG_KEY(min_be), CFG_KEY(max_be),
};

/* @p n into field @p key of @p cfg; false: no such key, or @p n does not fit it */
static bool cfg_put(struct wren_tsch_config *cfg, const char *key, long n)
{
    for (unsigned i = 0; i < sizeof(cfg_keys) / sizeof(cfg_keys[0]); i++) {
        uint8_t *f = (uint8_t *)cfg + cfg_keys[i].off;
        if (strcmp(key, cfg_keys[i].key) != 0) {
            continue;
        }
        if (cfg_keys[i].size == 4) {
            uint32_t v = (uint32_t)n;
            memcpy(f, &v, 4);
        } else if (cfg_keys[i].size == 2 && n <= 0xffff) {
            uint16_t v = (uint16_t)n;
            memcpy(f, &v, 2);
        } else if (cfg_keys[i].size == 1 && n <= 0xff) {
            *f = (uint8_t)n;
        } else {
            return false;
        }
        return true;
    }
    return false;
}

/* tsch set KEY VALUE: one field of the configuration */
static int set_cfg(struct wren_shell *sh, struct wren_module *m, const char *key, const char *v)
{
    struct wren_tsch_config cfg;
    int bad = 0;
    if (wren_netapi_get(sh->node, m, WREN_NETOPT_TSCH_CONFIG, 0, &cfg, sizeof(cfg)) !=
        sizeof(cfg)) {
        return wren_shell_error(sh, -EIO, "tsch set");
    }
    long n = wren_shell_num(v, 0, 1000000, &bad);
    if (bad) {
        wren_shell_printf(sh, "error: tsch set %s: bad value '%s'\n", key, v);
        return -EINVAL;
    }
    if (!cfg_put(&cfg, key, n)) {
        wren_shell_printf(sh, "error: tsch set: unknown key or value out of range: %s %s\n", key, v);
        return -EINVAL;
    }
    int res = wren_netapi_set(sh->node, m, WREN_NETOPT_TSCH_CONFIG, 0, &cfg, sizeof(cfg));
    return res < 0 ? wren_shell_error(sh, res, "tsch set (the configuration does not hold)") : 0;
}

/* tsch cell add|del SF SLOT CHOFF OPTS [NBR]; OPTS of T R S K */
static int cell_cmd(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    struct wren_tsch_cell c;
    int bad = 0;
    memset(&c, 0, sizeof(c));
    if (argc < 7 || argc > 8) {
        goto usage;
    }
    c.slotframe = (uint8_t)wren_shell_num(argv[3], 0, 255, &bad);
    c.slot_offset = (uint16_t)wren_shell_num(argv[4], 0, 65535, &bad);
    c.channel_offset = (uint16_t)wren_shell_num(argv[5], 0, 255, &bad);
    for (const char *p = argv[6]; *p; p++) {
        c.options |= *p == 'T' ? WREN_TSCH_CELL_TX
                   : *p == 'R' ? WREN_TSCH_CELL_RX
                   : *p == 'S' ? WREN_TSCH_CELL_SHARED
                   : *p == 'K' ? WREN_TSCH_CELL_TIMEKEEPING
                               : (bad = 1, 0);
    }
    if (argc == 8) {
        if (parse_eui(argv[7], c.nbr) < 0) {
            wren_shell_printf(sh, "error: tsch cell: bad neighbour EUI-64 '%s'\n", argv[7]);
            return -EINVAL;
        }
        c.nbr_len = 8;
    }
    if (bad) {
        goto usage;
    }
    c.kind = WREN_TSCH_CELL_MANUAL;
    bool add = strcmp(argv[2], "add") == 0;
    if (!add && strcmp(argv[2], "del") != 0) {
        goto usage;
    }
    int res = wren_netapi_set(sh->node, m, add ? WREN_NETOPT_TSCH_CELL_ADD : WREN_NETOPT_TSCH_CELL_DEL,
                              0, &c, sizeof(c));
    return res < 0 ? wren_shell_error(sh, res, add ? "tsch cell add" : "tsch cell del") : 0;
usage:
    wren_shell_printf(sh, "usage: tsch cell add|del SLOTFRAME SLOT CHOFF OPTS(T,R,S,K) [NBR-EUI64]\n");
    return -EINVAL;
}

int wren_tsch_shell(struct wren_shell *sh, struct wren_module *unused, int argc, char **argv)
{
    (void)unused;
    struct wren_module *m = tsch_if(sh);
    if (m == NULL) {
        wren_shell_printf(sh, "tsch: no interface runs TSCH\n");
        return -ENODEV;
    }
    if (argc == 1) {
        show(sh, m);
        return 0;
    }
    for (uint8_t r = 0; r < 3; r++) {
        if (argc == 2 && strcmp(argv[1], role_names[r]) == 0) {
            int res = wren_netapi_set(sh->node, m, WREN_NETOPT_TSCH_ROLE, 0, &r, 1);
            return res < 0 ? wren_shell_error(sh, res, "tsch role") : 0;
        }
    }
    if (strcmp(argv[1], "cell") == 0) {
        return cell_cmd(sh, m, argc, argv);
    }
    if (argc == 4 && strcmp(argv[1], "set") == 0) {
        return set_cfg(sh, m, argv[2], argv[3]);
    }
    if (argc == 3 && strcmp(argv[1], "prio") == 0) {
        int bad = 0;
        uint8_t p = (uint8_t)wren_shell_num(argv[2], 0, 255, &bad);
        if (bad) {
            goto usage;
        }
        int res = wren_netapi_set(sh->node, m, WREN_NETOPT_TSCH_JOIN_PRIO, 0, &p, 1);
        return res < 0 ? wren_shell_error(sh, res, "tsch prio") : 0;
    }
    if (argc == 3 && strcmp(argv[1], "ts") == 0) {
        uint8_t a[8];
        if (parse_eui(argv[2], a) < 0) {
            wren_shell_printf(sh, "error: tsch ts: bad EUI-64 '%s'\n", argv[2]);
            return -EINVAL;
        }
        int res = wren_netapi_set(sh->node, m, WREN_NETOPT_TSCH_TIME_SOURCE, 0, a, 8);
        return res < 0 ? wren_shell_error(sh, res, "tsch ts") : 0;
    }
usage:
    wren_shell_printf(sh, "usage: tsch [coordinator|node|off | cell add|del ... | set KEY VALUE | "
                      "prio N | ts EUI64]\n");
    return -EINVAL;
}

#endif
