/* Ethernet neighbor discovery's shell command: nd (the neighbor cache, the
 * router, SLAAC and DAD counters). */
#include <errno.h>
#include <stdio.h>

#include "ipv6/addr_str.h"
#include "ipv6/ipv6.h"
#include "nib/nd_eth.h"
#include "shell/shell.h"
#include "wire/ipv6.h"

int wren_nd_eth_show(struct wren_shell *sh, const struct wren_nd_eth *nd)
{
    static const char *const st[] = { "-", "INCOMPLETE", "REACHABLE", "STALE", "DELAY", "PROBE" };
    char ip[WREN_IPV6_ADDR_STRLEN];
    const uint8_t *m = nd->mac;
    wren_shell_printf(sh, "Iface %u  MAC %02x:%02x:%02x:%02x:%02x:%02x\n", nd->if_id, m[0], m[1],
                      m[2], m[3], m[4], m[5]);
    for (unsigned i = 0; i < CONFIG_WREN_ND_ETH_NEIGHBORS; i++) {
        const struct wren_nd_eth_neighbor *n = &nd->nc[i];
        if (n->state) {
            wren_shell_printf(sh, "neighbor %s lladdr %02x:%02x:%02x:%02x:%02x:%02x %s%s\n",
                              wren_ipv6_addr_to_str(ip, n->ip), n->mac[0], n->mac[1], n->mac[2],
                              n->mac[3], n->mac[4], n->mac[5], st[n->state],
                              n->held ? " (1 held)" : "");
        }
    }
    const struct wren_nd_eth_stats *c = &nd->stats;
    wren_shell_printf(sh, "rx ns %lu na %lu invalid %lu; tx ns %lu na %lu fail %lu; resolved %lu "
                          "failed %lu; held replaced %lu dropped %lu; cache replaced %lu full %lu; "
                          "probes failed %lu; dad ok %lu dup %lu; conflicts %lu\n",
                      (unsigned long)c->rx_ns, (unsigned long)c->rx_na,
                      (unsigned long)c->rx_invalid, (unsigned long)c->tx_ns,
                      (unsigned long)c->tx_na, (unsigned long)c->tx_fail,
                      (unsigned long)c->res_ok, (unsigned long)c->res_failed,
                      (unsigned long)c->held_replaced, (unsigned long)c->held_dropped,
                      (unsigned long)c->nc_replaced, (unsigned long)c->nc_full,
                      (unsigned long)c->probe_failed, (unsigned long)c->dad_ok,
                      (unsigned long)c->dad_dup, (unsigned long)c->addr_conflict);
    wren_shell_printf(sh, "router %s; rx ra %lu invalid %lu; tx rs %lu; slaac added %lu failed "
                          "%lu, prefixes ignored %lu; routes refused %lu\n",
                      wren_ipv6_addr_is_unspecified(nd->router)
                          ? "none"
                          : wren_ipv6_addr_to_str(ip, nd->router),
                      (unsigned long)c->rx_ra, (unsigned long)c->rx_ra_invalid,
                      (unsigned long)c->tx_rs, (unsigned long)c->slaac_added,
                      (unsigned long)c->slaac_failed, (unsigned long)c->pio_ignored,
                      (unsigned long)c->route_failed);
    return 0;
}

static int cmd_nd(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return wren_nd_eth_show(sh, (const struct wren_nd_eth *)m);
}

const struct wren_shell_cmd wren_nd_eth_shell_cmds[] = {
    { "nd", "Ethernet neighbor cache, router, SLAAC and DAD counters", cmd_nd },
    { NULL, NULL, NULL },
};
