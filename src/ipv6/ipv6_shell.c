/* The IPv6 module's shell commands: fib (routes) and forward. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/node.h"
#include "ipv6/addr_str.h"
#include "ipv6/ipv6.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "net/netopt.h"
#include "shell/shell.h"
#include "wire/ipv6.h"

/* `fib`: the routes, one a line */
static int show_fib(struct wren_shell *sh, struct wren_module *ip)
{
    struct wren_fib_entry r[CONFIG_WREN_FIB_ENTRIES];
    int n = wren_netapi_get(sh->node, ip, WREN_NETOPT_IPV6_ROUTES, 0, r, sizeof(r));
    wren_shell_printf(sh, "%-28s %-28s %s\n", "Destination", "Next hop", "Iface");
    for (int i = 0; n > 0 && i < CONFIG_WREN_FIB_ENTRIES; i++) {
        if (r[i].if_id) {
            char p[WREN_IPV6_ADDR_STRLEN + 4], h[WREN_IPV6_ADDR_STRLEN];
            char a[WREN_IPV6_ADDR_STRLEN];
            snprintf(p, sizeof(p), "%s/%u", wren_ipv6_addr_to_str(a, r[i].prefix),
                     r[i].prefix_len);
            wren_shell_printf(sh, "%-28s %-28s %u\n", r[i].prefix_len ? p : "default",
                      wren_ipv6_addr_is_unspecified(r[i].next_hop)
                          ? "on-link"
                          : wren_ipv6_addr_to_str(h, r[i].next_hop),
                      r[i].if_id);
        }
    }
    return 0;
}

/* `fib add|del PREFIX/LEN|default [via NEXTHOP] [dev IF]` into @p r;
 * returns nonzero if a word is bad or missing */
static int parse_route(int argc, char **argv, struct wren_fib_entry *r)
{
    int bad = 0;
    if (argc < 3 || (strcmp(argv[2], "default") ? wren_shell_prefix(argv[2], r->prefix, &r->prefix_len) < 0
                                                : (r->prefix_len = 0, 0))) {
        bad = 1;
    }
    for (int i = 3; !bad && i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "via") == 0) {
            bad = wren_ipv6_addr_from_str(r->next_hop, argv[i + 1]) < 0;
        } else if (strcmp(argv[i], "dev") == 0) {
            r->if_id = (uint8_t)wren_shell_num(argv[i + 1], 1, 255, &bad);
        } else {
            bad = 1;
        }
    }
    return bad;
}

static int cmd_fib(struct wren_shell *sh, struct wren_module *ip, int argc, char **argv)
{
    struct wren_node *node = sh->node;
    if (argc == 1) {
        return show_fib(sh, ip);
    }
    struct wren_fib_entry r = { 0 };
    int bad = parse_route(argc, argv, &r);
    if (bad || (strcmp(argv[1], "add") && strcmp(argv[1], "del"))) {
        wren_shell_printf(sh, "usage: fib [add PREFIX/LEN|default [via NEXTHOP] dev IF | del PREFIX/LEN]\n");
        return -EINVAL;
    }
    if (r.if_id == 0 && node->netifs) {
        r.if_id = node->netifs->id;
    }
    int res = wren_netapi_set(node, ip, strcmp(argv[1], "add") == 0 ? WREN_NETOPT_IPV6_ROUTE_ADD
                                                                     : WREN_NETOPT_IPV6_ROUTE_DEL,
                              0, &r, sizeof(r));
    return res < 0 ? wren_shell_error(sh, res, "fib") : 0;
}

static int cmd_forward(struct wren_shell *sh, struct wren_module *ip, int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "on") && strcmp(argv[1], "off"))) {
        wren_shell_printf(sh, "usage: forward on|off\n");
        return -EINVAL;
    }
    uint8_t on = strcmp(argv[1], "on") == 0;
    return wren_netapi_set(sh->node, ip, WREN_NETOPT_IPV6_FORWARDING, 0, &on, 1);
}

const struct wren_shell_cmd wren_ipv6_shell_cmds[] = {
    { "fib", "routes; add PREFIX/LEN|default [via NEXTHOP] dev IF; del PREFIX/LEN", cmd_fib },
    { "forward", "forward on|off: route between interfaces", cmd_forward },
    { NULL, NULL, NULL },
};
