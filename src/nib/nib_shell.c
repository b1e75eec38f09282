/* The 6LoWPAN NIB's shell command: nib (neighbors, routers, prefixes,
 * counters; solicit routers; advertise a prefix). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/node.h"
#include "ipv6/addr_str.h"
#include "ipv6/ipv6.h"
#include "net/netreg.h"
#include "nib/nib.h"
#include "nib/nib_priv.h"
#include "shell/shell.h"
#include "wire/ipv6.h"

#define NIB_USAGE \
    "usage: nib [IF] [show] | nib [IF] rs | nib [IF] prefix add PREFIX/LEN [ctx CID] | " \
    "nib [IF] abro VERSION\n"

static struct wren_nib *nib_of(struct wren_shell *sh, long if_id)
{
    /* the 6LoWPAN NIB among the NS receivers (Ethernet ND is another
     * module): of interface @p if_id, or the first one (0) */
    struct wren_netreg_entry *e = NULL;
    while ((e = wren_netreg_lookup(sh->node, WREN_NETTYPE_ICMPV6, 135 /* NS */, e))) {
        if (strcmp(e->module->ops->name, "nib") == 0 &&
            (if_id == 0 || ((struct wren_nib *)e->module)->if_id == if_id)) {
            return (struct wren_nib *)e->module;
        }
    }
    return NULL;
}

static void show_neighbors(struct wren_shell *sh, const struct wren_nib *nib)
{
    static const char *const st[] = { "-", "STALE", "REACHABLE", "ROUTER", "REGISTERED" };
    uint32_t now = wren_node_now_s(sh->node);
    for (unsigned i = 0; i < CONFIG_WREN_NIB_NEIGHBORS && wren_nib_nc_made(nib); i++) {
        const struct wren_nib_neighbor *n = &nib->nc->e[i];
        if (n->state) {
            char a[WREN_IPV6_ADDR_STRLEN], l[24] = "";
            for (unsigned k = 0, o = 0; k < n->l2len && k < 8; k++) {
                o += (unsigned)snprintf(l + o, sizeof(l) - o, k ? ":%02x" : "%02x", n->l2[k]);
            }
            wren_shell_printf(sh, "neighbor %s lladdr %s %s", wren_ipv6_addr_to_str(a, n->ip), l,
                              st[n->state]);
            if (n->state >= WREN_NIB_ROUTER) {
                wren_shell_printf(sh, " expires %lus", (unsigned long)(n->expires_s - now));
            }
            wren_shell_printf(sh, "\n");
        }
    }
}

/* prefixes, the ABRO (learned or our own) and the contexts from RAs */
static void show_prefixes(struct wren_shell *sh, const struct wren_nib *nib)
{
    char a[WREN_IPV6_ADDR_STRLEN];
    for (unsigned i = 0; i < CONFIG_WREN_NIB_PREFIXES; i++) {
        if (nib->prefixes[i].len) {
            wren_shell_printf(sh, "prefix %s/%u %s\n",
                              wren_ipv6_addr_to_str(a, nib->prefixes[i].prefix),
                              nib->prefixes[i].len, nib->prefixes[i].own ? "advertised" : "learned");
        }
    }
    if (nib->rpl_6lr) {
        uint8_t p[16] = { 0 };
        memcpy(p, nib->dodag_prefix, 8);
        wren_shell_printf(sh, "prefix %s/64 advertised (RPL's DODAG)\n", wren_ipv6_addr_to_str(a, p));
    }
    if (nib->has_abro) { /* the border router learned from RAs */
        wren_shell_printf(sh, "abro %s version %lu\n", wren_ipv6_addr_to_str(a, nib->abro.addr),
                          (unsigned long)nib->abro.version);
    }
    if (nib->border_router) {
        wren_shell_printf(sh, "abro version %lu (own)\n", (unsigned long)nib->abro_version);
    }
    if (nib->ra_cids) { /* the contexts (6CO) this NIB took from RAs */
        wren_shell_printf(sh, "contexts from RAs:");
        for (unsigned cid = 0; cid < 16; cid++) {
            if (nib->ra_cids & (1u << cid)) {
                wren_shell_printf(sh, " %u", cid);
            }
        }
        wren_shell_printf(sh, "\n");
    }
}

static void show_counters(struct wren_shell *sh, const struct wren_nib_stats *s)
{
    wren_shell_printf(sh, "rx rs %lu ra %lu ns %lu na %lu invalid %lu; tx rs %lu ra %lu ns %lu na %lu; "
                          "cache replaced %lu full %lu; aro ok %lu dup %lu full %lu "
                          "(rfc6775 %lu rfc8505 %lu); abro learned %lu stale %lu; ra unsolicited %lu; "
                          "registrations ok %lu failed %lu\n",
                      (unsigned long)s->rx_rs, (unsigned long)s->rx_ra, (unsigned long)s->rx_ns,
                      (unsigned long)s->rx_na, (unsigned long)s->rx_invalid, (unsigned long)s->tx_rs,
                      (unsigned long)s->tx_ra, (unsigned long)s->tx_ns, (unsigned long)s->tx_na,
                      (unsigned long)s->nc_replaced, (unsigned long)s->nc_full,
                      (unsigned long)s->aro_ok, (unsigned long)s->aro_dup, (unsigned long)s->aro_full,
                      (unsigned long)s->aro_rx_6775, (unsigned long)s->aro_rx_8505,
                      (unsigned long)s->abro_learned, (unsigned long)s->abro_stale,
                      (unsigned long)s->tx_ra_unsol, (unsigned long)s->reg_ok,
                      (unsigned long)s->reg_failed);
}

static int show(struct wren_shell *sh, const struct wren_nib *nib)
{
    wren_shell_printf(sh, "iface %u role: %s\n", nib->if_id,
                      nib->border_router ? "border router" : nib->rpl_6lr ? "router (RPL 6LR)" :
                      nib->router ? "router" : "host");
    show_neighbors(sh, nib);
    show_prefixes(sh, nib);
    show_counters(sh, &nib->stats);
    return 0;
}

/* nib prefix add PREFIX/LEN [ctx CID]; 1: not this command's arguments */
static int prefix_add(struct wren_shell *sh, struct wren_nib *nib, int argc, char **argv)
{
    uint8_t p[16], len;
    int bad = wren_shell_prefix(argv[3], p, &len) < 0;
    long cid = 16;
    if (argc >= 6 && strcmp(argv[4], "ctx") == 0) {
        cid = wren_shell_num(argv[5], 0, 15, &bad);
    }
    if (bad) {
        return 1;
    }
    int res = wren_nib_prefix_add(nib, p, len, (uint8_t)cid);
    return res < 0 ? wren_shell_error(sh, res, "nib prefix") : 0;
}

/* nib abro VERSION: become the border router (6LBR) of the prefixes
 * advertised here, or start a new version of its ABRO */
static int abro(struct wren_shell *sh, struct wren_nib *nib, const char *arg)
{
    int bad = 0;
    long v = wren_shell_num(arg, 1, 0x7fffffffL, &bad);
    if (bad) {
        wren_shell_printf(sh, "error: nib abro: VERSION is a number 1..2147483647, not '%s'\n", arg);
        return -EINVAL;
    }
    if (!nib->router || nib->rpl_6lr) {
        wren_shell_printf(sh, "error: nib abro: a border router advertises a prefix of its "
                              "own first (nib prefix add)\n");
        return -EINVAL;
    }
    if (nib->border_router && (uint32_t)v <= nib->abro_version) {
        wren_shell_printf(sh, "error: nib abro: version %ld is not above %lu (6LRs keep the "
                              "higher)\n", v, (unsigned long)nib->abro_version);
        return -ERANGE;
    }
    int res = nib->border_router ? wren_nib_abro_version(nib, (uint32_t)v)
                                 : wren_nib_border_router(nib, (uint32_t)v);
    return res < 0 ? wren_shell_error(sh, res, "nib abro") : 0;
}

static int cmd_nib(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    (void)m; /* the first NIB; nib IF ... picks the NIB of interface IF */
    long if_id = 0;
    if (argc >= 2 && argv[1][0] >= '1' && argv[1][0] <= '9') {
        int bad = 0;
        if_id = wren_shell_num(argv[1], 1, 255, &bad);
        if (bad) {
            wren_shell_printf(sh, NIB_USAGE);
            return -EINVAL;
        }
        argc--;
        argv++;
    }
    struct wren_nib *nib = nib_of(sh, if_id);
    if (nib == NULL) {
        return wren_shell_error(sh, -ENODEV, "no neighbor discovery");
    }
    if (argc == 1 || strcmp(argv[1], "show") == 0) {
        return show(sh, nib);
    }
    if (strcmp(argv[1], "rs") == 0) {
        wren_nib_solicit(nib);
        return 0;
    }
    if (argc >= 4 && strcmp(argv[1], "prefix") == 0 && strcmp(argv[2], "add") == 0) {
        int res = prefix_add(sh, nib, argc, argv);
        if (res <= 0) {
            return res;
        }
    }
    if (argc == 3 && strcmp(argv[1], "abro") == 0) {
        return abro(sh, nib, argv[2]);
    }
    wren_shell_printf(sh, NIB_USAGE);
    return -EINVAL;
}

const struct wren_shell_cmd wren_nib_shell_cmds[] = {
    { "nib", "[IF] neighbors, routers, prefixes; [IF] rs; [IF] prefix add PREFIX/LEN [ctx CID]; "
             "[IF] abro VERSION (be the 6LBR)",
      cmd_nib },
    { NULL, NULL, NULL },
};
