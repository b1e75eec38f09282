/* RPL's shell command: rpl (state, parents, routes, counters; take a role). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/node.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "ipv6/addr_str.h"
#include "rpl/rpl.h"
#include "rpl/rpl_priv.h"
#include "shell/shell.h"

static const char usage[] =
    "usage: rpl [show] | rpl root PREFIX/LEN [instance N] [storing|nonstoring] [of0|mrhof] "
    "[grounded|floating] [dio IMIN DOUBLINGS K] [lifetime N UNIT_S] | "
    "rpl router [float|nofloat] [storing|nonstoring] | rpl leaf [storing|nonstoring] | rpl off | "
    "rpl repair | rpl dio-config N|all\n";

static const char *const mop_name[] = { "no-downward", "non-storing", "storing",
                                        "storing-mcast" };

/* The role, the mode expected, the DODAG joined or rooted. */
static void show_dodag(struct wren_shell *sh, const struct wren_rpl *rpl)
{
    static const char *const role[] = { "off", "root", "router", "leaf" };
    char a[WREN_IPV6_ADDR_STRLEN];
    wren_shell_printf(sh, "iface %u role %s%s%s\n", rpl->if_id, role[rpl->role],
                      rpl->floating ? " (floating, a router)" : "",
                      rpl->role != WREN_RPL_OFF && rpl->role != WREN_RPL_ROOT && !rpl->joined
                          ? " (not joined)"
                          : "");
    if (rpl->want_mop != 0xff && rpl->role != WREN_RPL_OFF && rpl->role != WREN_RPL_ROOT) {
        wren_shell_printf(sh, "expects %s mode", mop_name[rpl->want_mop & 3]);
        if (rpl->heard_mop != 0xff) {
            wren_shell_printf(sh, "; heard a %s DODAG (%lu DIOs): not joined",
                              mop_name[rpl->heard_mop & 3],
                              (unsigned long)rpl->stats.dio_mop_mismatch);
        }
        wren_shell_printf(sh, "\n");
    }
    if (rpl->joined || rpl->role == WREN_RPL_ROOT) {
        wren_shell_printf(sh, "instance %u dodag %s %s version %u mop %u of %s rank %u\n",
                          rpl->instance, wren_ipv6_addr_to_str(a, rpl->dodagid),
                          rpl->grounded ? "grounded" : "floating", rpl->version,
                          rpl->mop, rpl->cfg.ocp == 1 ? "mrhof" : "of0", rpl->rank);
        if (rpl->addr[0]) {
            wren_shell_printf(sh, "address %s\n", wren_ipv6_addr_to_str(a, rpl->addr));
        }
        wren_shell_printf(sh, "trickle I %lu ms sent %lu suppressed %lu\n",
                          (unsigned long)rpl->trickle.i, (unsigned long)rpl->trickle.sent,
                          (unsigned long)rpl->trickle.suppressed);
    }
}

static void show_parents(struct wren_shell *sh, const struct wren_rpl *rpl, uint32_t now)
{
    char a[WREN_IPV6_ADDR_STRLEN];
    unsigned n = 0;
    for (int i = 0; i < (int)wren_rpl_n_parents(rpl); i++) {
        const struct wren_rpl_parent *p = &rpl->parents[i];
        if (p->used) {
            wren_shell_printf(sh, "parent %s rank %u etx %u.%02u heard %lus ago%s\n",
                              wren_ipv6_addr_to_str(a, p->addr), p->rank, p->etx / 128,
                              (p->etx % 128) * 100 / 128,
                              (unsigned long)(now - p->heard_s), i == rpl->pref ? " preferred" : "");
            n++;
        }
    }
    wren_shell_printf(sh, "parents %u of %u%s\n", n, (unsigned)CONFIG_WREN_RPL_PARENTS,
                      n == CONFIG_WREN_RPL_PARENTS ? " (full)" : "");
}

static void show_routes(struct wren_shell *sh, const struct wren_rpl *rpl, uint32_t now)
{
    char a[WREN_IPV6_ADDR_STRLEN], v[WREN_IPV6_ADDR_STRLEN];
    unsigned n = 0;
    for (unsigned i = 0; i < rpl->n_routes; i++) {
        const struct wren_rpl_route *r = &rpl->routes[i];
        if (!route_live(r)) {
            continue;
        }
        /* the next hop's address: a child's link-local one (storing), a
         * DAO parent's in the prefix (non-storing) */
        uint8_t via[16] = { 0xfe, 0x80 };
        if (rpl->mop == RPL_MOP_NON_STORING || (r->flags & RT_EXTERNAL)) {
            memcpy(via, rpl->prefix, 8);
        }
        memcpy(via + 8, r->via, 8);
        wren_shell_printf(sh, "route %s/%u via %s expires %lus%s\n",
                          wren_ipv6_addr_to_str(a, r->target), r->plen,
                          wren_ipv6_addr_to_str(v, via), (unsigned long)(r->expires_s - now),
                          (r->flags & RT_EXTERNAL) ? " external (tunnel)" : "");
        n++;
    }
    unsigned size = rpl->routes ? rpl->n_routes : CONFIG_WREN_RPL_ROUTES; /* made or not */
    wren_shell_printf(sh, "routes %u of %u%s\n", n, size, n == size ? " (full)" : "");
}

static void show_leaves(struct wren_shell *sh, const struct wren_rpl *rpl, uint32_t now)
{
    char a[WREN_IPV6_ADDR_STRLEN];
    for (unsigned i = 0; i < wren_rpl_n_ruls(rpl); i++) {
        const struct wren_rpl_rul *e = &rpl->ruls[i];
        if (e->if_id && !(e->flags & RUL_GONE)) {
            wren_shell_printf(sh, "leaf %s iface %u expires %lus%s\n",
                              wren_ipv6_addr_to_str(a, e->addr), e->if_id,
                              (unsigned long)(e->expires_s - now),
                              (e->flags & RUL_ANNOUNCED) ? " announced" : "");
        }
    }
}

static void show(struct wren_shell *sh, const struct wren_rpl *rpl)
{
    uint32_t now = wren_node_now_s(sh->node);
    show_dodag(sh, rpl);
    show_parents(sh, rpl, now);
    show_routes(sh, rpl, now);
    show_leaves(sh, rpl, now);
#if CONFIG_WREN_COUNTER_NAMES
    static const char *const names[] = { WREN_RPL_COUNTERS(WREN_COUNTER_STR) };
    const uint32_t *v = (const uint32_t *)&rpl->stats;
    for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        wren_shell_printf(sh, "%s%s %lu", i ? " " : "", names[i], (unsigned long)v[i]);
    }
    wren_shell_printf(sh, "\n");
#endif
}

/* `dio IMIN DOUBLINGS K` of `rpl root` at argv[*i]: Imin = 2^IMIN ms,
 * Imax = Imin x 2^DOUBLINGS, redundancy K. Returns 0 or -EINVAL (said). */
static int root_dio(struct wren_shell *sh, struct wren_rpl_role_cfg *c, char **argv, int *i)
{
    int bad = 0;
    if (!(c->flags & WREN_RPL_CFG_TIMERS)) { /* the other half: rpl.c's defaults */
        c->lifetime = 30;
        c->lifetime_unit = 60;
    }
    c->flags |= WREN_RPL_CFG_TIMERS;
    c->dio_imin = (uint8_t)wren_shell_num(argv[++*i], CONFIG_WREN_RPL_DIO_IMIN_MIN,
                                          CONFIG_WREN_RPL_DIO_IMAX_MAX, &bad);
    c->dio_doublings = (uint8_t)wren_shell_num(argv[++*i], 0, 20, &bad);
    c->dio_k = (uint8_t)wren_shell_num(argv[++*i], 0, 255, &bad);
    if (bad || c->dio_imin + c->dio_doublings > CONFIG_WREN_RPL_DIO_IMAX_MAX) {
        /* the local limits every node applies (rpl.h) */
        wren_shell_printf(sh, "rpl: dio IMIN (%u..%u) DOUBLINGS (0..20, IMIN + "
                              "DOUBLINGS <= %u) K (0..255)\n",
                          CONFIG_WREN_RPL_DIO_IMIN_MIN, CONFIG_WREN_RPL_DIO_IMAX_MAX,
                          CONFIG_WREN_RPL_DIO_IMAX_MAX);
        return -EINVAL;
    }
    return 0;
}

/* `lifetime N UNIT_S` of `rpl root` at argv[*i]: routes live N x UNIT_S
 * seconds; DAOs refresh them at half. Returns 0 or -EINVAL (said). */
static int root_lifetime(struct wren_shell *sh, struct wren_rpl_role_cfg *c, char **argv, int *i)
{
    int bad = 0;
    if (!(c->flags & WREN_RPL_CFG_TIMERS)) { /* the other half: rpl.c's defaults */
        c->dio_imin = 10;
        c->dio_doublings = 8;
        c->dio_k = 10;
    }
    c->flags |= WREN_RPL_CFG_TIMERS;
    c->lifetime = (uint8_t)wren_shell_num(argv[++*i], 1, 255, &bad);
    c->lifetime_unit = (uint16_t)wren_shell_num(argv[++*i], 1, 65535, &bad);
    if (bad || (uint32_t)c->lifetime * c->lifetime_unit < CONFIG_WREN_RPL_LIFETIME_MIN_S) {
        wren_shell_printf(sh, "rpl: lifetime N (1..255) UNIT_S (1..65535), N x UNIT_S "
                              ">= %u s\n", CONFIG_WREN_RPL_LIFETIME_MIN_S);
        return -EINVAL;
    }
    return 0;
}

/* One option of `rpl root PREFIX/LEN ...` at argv[*i] (those taking
 * values step *i over them). Returns 0 or -EINVAL (said). */
static int root_option(struct wren_shell *sh, struct wren_rpl_role_cfg *c, int argc, char **argv,
                       int *i)
{
    const char *o = argv[*i];
    if (strcmp(o, "instance") == 0 && *i + 1 < argc) {
        int bad = 0;
        c->instance = (uint8_t)wren_shell_num(argv[++*i], 0, 127, &bad);
        if (bad) {
            wren_shell_printf(sh, "rpl: instance is 0..127 (a global instance)\n");
            return -EINVAL;
        }
    } else if (strcmp(o, "storing") == 0 || strcmp(o, "nonstoring") == 0) {
        c->mop = o[0] == 's' ? RPL_MOP_STORING : RPL_MOP_NON_STORING;
    } else if (strcmp(o, "of0") == 0 || strcmp(o, "mrhof") == 0) {
        c->ocp = o[0] == 'm';
    } else if (strcmp(o, "grounded") == 0 || strcmp(o, "floating") == 0) {
        c->flags = (uint8_t)((c->flags & ~WREN_RPL_CFG_GROUNDED) |
                             (o[0] == 'g' ? WREN_RPL_CFG_GROUNDED : 0));
    } else if (strcmp(o, "dio") == 0 && *i + 3 < argc) {
        return root_dio(sh, c, argv, i);
    } else if (strcmp(o, "lifetime") == 0 && *i + 2 < argc) {
        return root_lifetime(sh, c, argv, i);
    } else {
        wren_shell_printf(sh, "%s", usage);
        return -EINVAL;
    }
    return 0;
}

/* `rpl root PREFIX/LEN [options]`: a root typed by hand is grounded unless
 * told `floating`. Returns 0 or -EINVAL (said). */
static int parse_root(struct wren_shell *sh, struct wren_rpl_role_cfg *c, int argc, char **argv)
{
    c->role = WREN_RPL_ROOT;
    if (argc < 3 || wren_shell_prefix(argv[2], c->prefix, &c->prefix_len) < 0) {
        wren_shell_printf(sh, "%s", usage);
        return -EINVAL;
    }
    for (int i = 3; i < argc; i++) {
        int rc = root_option(sh, c, argc, argv, &i);
        if (rc < 0) {
            return rc;
        }
    }
    return 0;
}

/* `rpl router|leaf [float|nofloat] [storing|nonstoring]`: floating
 * (routers) and the one mode joined, if told. Returns 0 or -EINVAL (said). */
static int parse_router(struct wren_shell *sh, struct wren_rpl_role_cfg *c, int argc,
                        char **argv)
{
    c->role = argv[1][0] == 'r' ? WREN_RPL_ROUTER : WREN_RPL_LEAF;
    c->flags = 0;
    for (int i = 2; i < argc; i++) {
        bool router = c->role == WREN_RPL_ROUTER;
        if (router && strcmp(argv[i], "nofloat") == 0) {
            c->flags |= WREN_RPL_CFG_NO_FLOAT;
        } else if (router && strcmp(argv[i], "float") == 0) {
            if (!CONFIG_WREN_RPL_FLOATING) {
                wren_shell_printf(sh, "rpl router: floating DODAGs are not built in "
                                      "(CONFIG_WREN_RPL_FLOATING=0)\n");
                return -ENOTSUP;
            }
            c->flags &= (uint8_t)~WREN_RPL_CFG_NO_FLOAT;
        } else if (strcmp(argv[i], "storing") == 0 || strcmp(argv[i], "nonstoring") == 0) {
            c->flags |= WREN_RPL_CFG_MOP;
            c->mop = argv[i][0] == 's' ? RPL_MOP_STORING : RPL_MOP_NON_STORING;
        } else {
            wren_shell_printf(sh, "rpl %s: unknown option '%s'\n%s", argv[1], argv[i], usage);
            return -EINVAL;
        }
    }
    return 0;
}

/* `rpl dio-config N|all`: a test knob, multicast DIOs from now on that
 * carry the configuration */
static int cmd_dio_config(struct wren_shell *sh, struct wren_module *m, const char *arg)
{
    int bad = 0;
    uint8_t n = strcmp(arg, "all") == 0 ? 0xff : (uint8_t)wren_shell_num(arg, 0, 254, &bad);
    if (bad) {
        wren_shell_printf(sh, "rpl dio-config: N (0..254) or all\n");
        return -EINVAL;
    }
    return wren_netapi_set(sh->node, m, WREN_NETOPT_RPL_DIO_CONFIG, 0, &n, 1);
}

/* Take role @p c, saying why not. */
static int take_role(struct wren_shell *sh, struct wren_rpl *rpl, const struct wren_rpl_role_cfg *c)
{
    int rc = wren_rpl_set_role(rpl, c);
    if (rc == -ENOTSUP) {
        wren_shell_printf(sh, "rpl: %s mode is not built in (CONFIG_WREN_RPL_%s=0)\n",
                          c->mop == RPL_MOP_STORING ? "storing" : "non-storing",
                          c->mop == RPL_MOP_STORING ? "STORING" : "NONSTORING");
        return rc;
    }
    return rc < 0 ? wren_shell_error(sh, rc, "rpl") : 0;
}

static int cmd_rpl(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    struct wren_rpl *rpl = (struct wren_rpl *)m;
    /* (defaults: a mode this build has, a grounded DODAG) */
    struct wren_rpl_role_cfg c = { .mop = CONFIG_WREN_RPL_STORING ? RPL_MOP_STORING
                                                                  : RPL_MOP_NON_STORING,
                                   .instance = 0, .flags = WREN_RPL_CFG_GROUNDED };
    int rc = 0;
    if (argc == 1 || strcmp(argv[1], "show") == 0) {
        show(sh, rpl);
        return 0;
    }
    if (strcmp(argv[1], "root") == 0) {
        rc = parse_root(sh, &c, argc, argv);
    } else if (strcmp(argv[1], "router") == 0 || strcmp(argv[1], "leaf") == 0) {
        rc = parse_router(sh, &c, argc, argv);
    } else if (strcmp(argv[1], "dio-config") == 0 && argc == 3) {
        return cmd_dio_config(sh, m, argv[2]);
    } else if (strcmp(argv[1], "off") == 0 && argc == 2) {
        c.role = WREN_RPL_OFF;
    } else if (strcmp(argv[1], "repair") == 0 && argc == 2) {
        rc = wren_rpl_global_repair(rpl);
        return rc < 0 ? wren_shell_error(sh, rc, "rpl repair (at a root)") : 0;
    } else {
        wren_shell_printf(sh, "%s", usage);
        return -EINVAL;
    }
    return rc < 0 ? rc : take_role(sh, rpl, &c);
}

const struct wren_shell_cmd wren_rpl_shell_cmds[] = {
    { "rpl", "RPL state; rpl root PREFIX/LEN [instance N] [storing|nonstoring] [of0|mrhof] "
             "[grounded|floating] [dio IMIN DOUBLINGS K] [lifetime N UNIT_S] | "
             "router [float|nofloat] [storing|nonstoring] | leaf [storing|nonstoring] | off | "
             "repair (root: new version) | dio-config N|all (multicast DIOs with the "
             "configuration)",
      cmd_rpl },
    { NULL, NULL, NULL },
};
