/*
 * wren-node: one wren node as a Linux process, on real time.
 *
 *   wren-node [--id N] [--tap IFNAME] [--zep LPORT:[RHOST:]RPORT[@CH]]... [--channel C]
 *             [--lora LPORT:[RHOST:]RPORT [--lorawan SESSION] [--schc-rules FILE]]
 *             [--any-channel] [--pan ID] [--eui64 ADDR]
 *             [--border-router PREFIX/LEN] [--default-via ADDR]
 *             [--rpl-root PREFIX/LEN [--rpl-mode storing|non-storing]]
 *             [--tap-loss PCT] [--tap-reorder PCT] [--tap-hold-ms MS] [--tap-seed N]
 *             [--pktbuf BYTES] [--script FILE] [--exit-on-eof] [--modules LIST]
 *
 * Interfaces: an Ethernet interface over a TAP device (IPv6 with classic
 * neighbor discovery, so Linux's own tools reach it) and/or an 802.15.4
 * interface over ZEP (6LoWPAN, 6LoWPAN-ND; run wren-zep-hub for several
 * processes to share a channel; give --zep twice, on two channels, for a
 * router between two radio links). The node id gives the addresses: MAC
 * 02:57:52 and the id (24 bits) on Ethernet; on 802.15.4 the short address
 * id and the EUI-64 02:57:52:ff:fe and the id (wren_ieee802154_eui64_from_id,
 * as simulated node N has), unless --eui64 gives one; the IPv6 addresses are
 * made of the EUI-64 (RFC 4944 6). --pan sets the PAN ID (default 0x0023).
 * A ZEP interface behaves as a 250 kbit/s radio at wall-clock pace (CSMA-CA,
 * ACKs, interframe spaces: runtime/host/zep.h). Channel 0 (@0), which lwIP's
 * zepif and some tools send, is a channel like the others; --any-channel
 * takes the frames of every channel.
 *
 * The shell reads lines from stdin (or --script FILE): every command of the
 * node's shell (`help`), plus `nd` (the Ethernet neighbor cache), `sleep MS`
 * (pause reading commands, for scripts) and `exit`. SIGINT/SIGTERM end it
 * cleanly; so does the end of the input with --exit-on-eof.
 *
 * Border router (--border-router PREFIX/LEN, with --zep): the node is the
 * 6LoWPAN border router (6LBR) of PREFIX on the (first) 802.15.4
 * interface: its RAs carry the prefix (PIO), the prefix as context 0 (6CO)
 * and an ABRO with its address there (RFC 6775 4.3: 6LRs, RIOT's among
 * them, ignore RAs without one); it takes registrations (ARO). A TAP is
 * optional: without one the 6LBR serves a LoWPAN on radio links only (a
 * second --zep is another link it routes to); with --tap it also forwards
 * between the TAP and the 802.15.4 link. The Linux side then routes PREFIX
 * via the node's TAP link-local address; --default-via ADDR gives the node
 * a default route through ADDR (the Linux host's link-local address on the
 * TAP) for its replies.
 *
 * RPL border router (--rpl-root PREFIX/LEN, with --zep; with --tap too for
 * a border router): the node is the root of an RPL DODAG (RFC 6550) on the
 * first 802.15.4 interface, storing mode unless --rpl-mode non-storing: its
 * DIOs carry PREFIX (PIO, autoconfiguration with LEN 64), it takes the
 * address PREFIX + its link-local IID, forwards, and routes PREFIX onto the
 * radio link (the DAOs' routes are longer, so they win). Its route table
 * holds RPL_ROOT_ROUTES (1,024) nodes. The Linux side
 * routes PREFIX via the node's TAP link-local address, as for
 * --border-router; --default-via gives the nodes' replies their way out.
 *
 * Faults on the TAP (for tests; this kernel has no netem): --tap-loss drops
 * that percentage of the frames in each direction, --tap-reorder holds that
 * percentage back until the next frame in the same direction has gone (or
 * --tap-hold-ms, default 5, has passed), from a PRNG seeded by --tap-seed
 * (default: the node id). The shell's `ifconfig` shows the counters and
 * `ifconfig IF faults LOSS REORDER [MS]` changes the rates at run time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/node.h"
#include "core/timer.h"
#include "host/tap.h"
#include "host/zep.h"
#include "host/wren_node_lora.h"
#include "host/rt_host.h"
#include "icmpv6/icmpv6.h"
#include "ipv6/addr_str.h"
#include "ipv6/ipv6.h"
#include "link/ethernet_link.h"
#include "link/ieee802154_link.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "nib/nd_eth.h"
#include "nib/nib.h"
#include "rpl/rpl.h"
#include "shell/shell.h"
#include "sixlowpan/sixlowpan.h"
#include "apps/tcp_app.h"
#include "tcp/tcp.h"
#include "udp/udp.h"
#include "stack/modules.h"
#include "stack/stack.h"

#define ARENA_MAX (256u * 1024u)
#define LINE_MAX_LEN 256
#define MAX_ZEP 2 /* 802.15.4 interfaces (CONFIG_WREN_IPV6_IFS: 3 with TAP and LoRa) */
#define RPL_ROOT_ROUTES 1024 /* --rpl-root: routes (nodes of the DODAG) the root holds */

/* The process's one node and everything around it. */
struct app {
    struct wren_host host;
    struct wren_node node;
    struct wren_tap tap;
    struct wren_ethernet_netif eth;
    struct wren_nd_eth nd;
    struct wren_zep zep[MAX_ZEP];
    struct wren_ieee802154_netif lowpan_if[MAX_ZEP];
    struct wren_lora_udp lora;    /**< --lora: LoRa over UDP (host/lora_udp.h) */
    union {
        struct wren_netif netif;        /**< first of both */
        struct wren_lora_netif raw;     /**< the raw LoRa link */
        struct wren_lorawan_netif wan;  /**< --lorawan: LoRaWAN, SCHC above */
    } lora_if;
    bool has_lora;
    struct wren_stack stack;      /**< the modules the assembly made */
    struct wren_tcp_app tcp_app;
    struct wren_shell shell;
    bool has_tap;
    unsigned n_zep;
    /* the console */
    struct wren_host_fd in;
    char buf[4 * LINE_MAX_LEN];
    size_t len;
    bool eof, exit_on_eof, sleeping;
    struct wren_timer sleep_timer;
};

static struct app app;
static _Alignas(8) uint8_t arena[ARENA_MAX];
/* the modules' state: every module of the list, one NIB per ZEP interface */
static _Alignas(8) uint8_t modules[64 * 1024];
/* --rpl-root: the root's route table, one route per node of the DODAG
 * (the CONFIG_WREN_RPL_ROUTES built into the module suit a router) */
static struct wren_rpl_route rpl_routes[RPL_ROOT_ROUTES];

static void out(void *ctx, const char *s)
{
    (void)ctx;
    fputs(s, stdout);
    fflush(stdout);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: wren-node [--id N] [--tap IFNAME] [--zep LPORT:[RHOST:]RPORT[@CH]]... "
               "[--channel C]\n"
               "                 [--any-channel] [--pan ID] [--eui64 ADDR]\n"
               "                 [--border-router PREFIX/LEN] [--default-via ADDR]\n"
               "                 [--tap-loss PCT] [--tap-reorder PCT] [--tap-hold-ms MS] "
               "[--tap-seed N]\n"
               "                 [--rpl-root PREFIX/LEN [--rpl-mode storing|non-storing]]\n"
               "                 [--pktbuf BYTES] [--script FILE] [--exit-on-eof] [--modules LIST]\n"
               "  --tap IFNAME   Ethernet interface over TAP device IFNAME (needs CAP_NET_ADMIN)\n"
               "  --zep SPEC     802.15.4 over ZEP: bind UDP LPORT, send to RHOST:RPORT\n"
               "                 (RHOST defaults to 127.0.0.1; e.g. a wren-zep-hub on 17754),\n"
               "                 on channel CH if given (11..26, or 0 as lwIP's zepif sends);\n"
               "                 twice for two radio links (a router)\n"
               "  --lora SPEC    LoRa over UDP: bind UDP LPORT, send to RHOST:RPORT (a\n"
               "                 wren-lora-hub, default port 17759); shell: lora\n"
               "  --lorawan DEVADDR:NWKSKEY:APPSKEY[:network]\n"
               "                 the LoRa interface runs IPv6 over SCHC over LoRaWAN (RFC\n"
               "                 9011) in this session (hex; ':network': a router's side)\n"
               "  --schc-rules FILE\n"
               "                 SCHC rules (src/wire/schc.h's text) for --lorawan\n"
               "  --id N         node id (1..65535): link addresses and ZEP device id\n"
               "  --channel C    802.15.4 channel for ZEP without @CH (11..26, default 26)\n"
               "  --any-channel  ZEP takes frames of every channel (else other channels'\n"
               "                 frames are dropped and counted as other-channel)\n"
               "  --pan ID       802.15.4 PAN ID of the ZEP interfaces (0..0xfffe, default 0x0023)\n"
               "  --eui64 ADDR   EUI-64 of the ZEP interfaces, 8 hex bytes (02:57:52:ff:fe:00:00:01);\n"
               "                 default 02:57:52:ff:fe and the id; the IPv6 addresses' IIDs\n"
               "  --border-router PREFIX/LEN\n"
               "                 6LoWPAN border router (6LBR, needs --zep): advertise PREFIX\n"
               "                 on the first ZEP link (RA with PIO, 6CO as context 0, ABRO),\n"
               "                 take address registrations (ARO); with --tap, forward\n"
               "                 between the TAP and the ZEP link too; on Linux: ip -6 route\n"
               "                 add PREFIX via <this node's TAP link-local> dev IFNAME\n"
               "  --rpl-root PREFIX/LEN\n"
               "                 RPL DODAG root of PREFIX on the first ZEP link (LEN 64 for\n"
               "                 the nodes' autoconfiguration): DIOs with PREFIX, forwarding,\n"
               "                 PREFIX routed onto the radio link; with --tap a border router\n"
               "                 (Linux: ip -6 route add PREFIX via <TAP link-local> dev IFNAME)\n"
               "  --rpl-mode storing|non-storing\n"
               "                 RPL mode of operation of --rpl-root (default storing)\n"
               "  --default-via ADDR\n"
               "                 default route through ADDR on the TAP (e.g. the Linux\n"
               "                 host's link-local address there)\n"
               "  --tap-loss PCT drop PCT %% of the TAP's frames, each direction (e.g. 5, 0.5)\n"
               "  --tap-reorder PCT\n"
               "                 hold PCT %% of the TAP's frames back until the next one in the\n"
               "                 same direction has gone (or --tap-hold-ms has passed)\n"
               "  --tap-hold-ms MS\n"
               "                 longest hold of a reordered frame (default 5)\n"
               "  --tap-seed N   seed of the fault injector's PRNG (default: the node id)\n"
               "  --pktbuf BYTES packet buffer size (default 65536)\n"
               "  --script FILE  read commands from FILE instead of stdin\n"
               "  --exit-on-eof  exit when the commands run out\n"
               "  --modules LIST the modules to run, comma-separated, in start order\n"
               "                 (default: all of them: sixlowpan,ipv6,icmpv6,udp,tcp,coap,nib,nd_eth,rpl)\n");
}

/* ---- program commands ------------------------------------------------------ */

/* `nd`: the Ethernet ND module's view, then the TAP device's counters */
static int cmd_nd(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    (void)m;
    (void)argc;
    (void)argv;
    struct app *a = &app;
    struct wren_module *nd = wren_stack_module(&a->stack, &wren_nd_eth_module, 0);
    if (nd == NULL) {
        out(NULL, "no Ethernet interface\n");
        return -ENODEV;
    }
    wren_nd_eth_show(sh, (const struct wren_nd_eth *)nd);
    char s[400];
    const struct wren_netopt_fault_stats *f = &a->tap.fault_stats;
    snprintf(s, sizeof(s),
             "tap %.16s: rx %lu (errors %lu) tx %lu (errors %lu); faults: rx dropped %lu reordered "
             "%lu, tx dropped %lu reordered %lu\n",
             a->tap.name, (unsigned long)a->tap.stats.rx_frames,
             (unsigned long)a->tap.stats.rx_errors, (unsigned long)a->tap.stats.tx_frames,
             (unsigned long)a->tap.stats.tx_errors, (unsigned long)f->rx_dropped,
             (unsigned long)f->rx_reordered, (unsigned long)f->tx_dropped,
             (unsigned long)f->tx_reordered);
    out(NULL, s);
    return 0;
}

static int cmd_zep(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    (void)sh;
    (void)m;
    (void)argc;
    (void)argv;
    struct app *a = &app;
    char s[400];
    if (a->n_zep == 0) {
        out(NULL, "no ZEP interface\n");
        return -ENODEV;
    }
    for (unsigned i = 0; i < a->n_zep; i++) {
        const struct wren_zep *zp = &a->zep[i];
        const struct wren_zep_stats *z = &zp->stats;
        snprintf(s, sizeof(s),
                 "zep channel %u%s device %u: rx packets %lu frames %lu; drops: malformed %lu "
                 "acks %lu other-channel %lu bad-fcs %lu; radio: while-tx %lu overlap %lu cca-busy %lu; "
                 "tx %lu acks %lu (errors %lu)\n",
                 zp->channel, zp->any_channel ? " (any)" : "", zp->device_id,
                 (unsigned long)z->rx_packets, (unsigned long)z->rx_frames,
                 (unsigned long)z->rx_malformed, (unsigned long)z->rx_acks,
                 (unsigned long)z->rx_other_channel, (unsigned long)z->rx_bad_fcs,
                 (unsigned long)z->rx_while_tx, (unsigned long)z->rx_overlap,
                 (unsigned long)z->cca_busy, (unsigned long)z->tx_frames,
                 (unsigned long)z->tx_acks, (unsigned long)z->tx_errors);
        out(NULL, s);
    }
    return 0;
}

static int cmd_lora(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    (void)sh;
    (void)m;
    if (!app.has_lora) {
        out(NULL, "no LoRa interface\n");
        return -ENODEV;
    }
    return wren_node_lora_cmd(&app.node, &app.lora, &app.lora_if.raw, argc, argv, out);
}

static void console_drain(struct app *a);

static void sleep_done(struct wren_timer *t, void *arg)
{
    (void)t;
    struct app *a = arg;
    a->sleeping = false;
    console_drain(a);
}

/* Run one line: a program command, else the node's shell. */
static void exec_line(struct app *a, char *line)
{
    char *p = line + strspn(line, " \t\r");
    char *end = p + strlen(p);
    while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) {
        *--end = 0;
    }
    if (*p == 0 || *p == '#') {
        return;
    }
    if (strcmp(p, "exit") == 0 || strcmp(p, "quit") == 0) {
        wren_host_stop(&a->host);
        return;
    }
    if (strncmp(p, "sleep", 5) == 0 && (p[5] == ' ' || p[5] == 0)) {
        char *e;
        long ms = strtol(p + 5, &e, 10);
        if (ms < 0 || *e) {
            out(NULL, "usage: sleep MS\n");
            return;
        }
        a->sleeping = true;
        wren_timer_set(&a->node, &a->sleep_timer, (uint64_t)ms * 1000u);
        return;
    }
    wren_shell_exec(&a->shell, p);
    if (strcmp(p, "help") == 0) {
        out(NULL, "sleep     sleep MS: wait before reading the next command\n"
                  "exit      leave (also: end of input with --exit-on-eof, SIGINT, SIGTERM)\n");
    }
}

/* Run every complete line buffered, unless a sleep holds them back. */
static void console_drain(struct app *a)
{
    while (!a->sleeping && !a->host.stop) {
        char *nl = memchr(a->buf, '\n', a->len);
        if (nl == NULL && a->eof && a->len) {
            nl = a->buf + a->len; /* a last line without newline */
            if (a->len == sizeof(a->buf)) {
                a->len--;
                nl--;
            }
        }
        if (nl == NULL) {
            break;
        }
        *nl = 0;
        size_t used = (size_t)(nl - a->buf) + (nl < a->buf + a->len ? 1 : 0);
        char line[sizeof(a->buf)];
        memcpy(line, a->buf, (size_t)(nl - a->buf) + 1);
        memmove(a->buf, a->buf + used, a->len - used);
        a->len -= used;
        exec_line(a, line);
    }
    if (a->len == sizeof(a->buf) && memchr(a->buf, '\n', a->len) == NULL) {
        out(NULL, "error: line too long, dropped\n");
        a->len = 0;
    }
    /* read more only when there is room */
    a->in.events = (!a->eof && a->len < sizeof(a->buf)) ? POLLIN : 0;
    if (a->eof && a->len == 0 && !a->sleeping && a->exit_on_eof) {
        wren_host_stop(&a->host);
    }
}

static void console_readable(struct wren_host_fd *hfd, short revents)
{
    struct app *a = hfd->arg;
    (void)revents;
    ssize_t n = read(hfd->fd, a->buf + a->len, sizeof(a->buf) - a->len);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        return;
    }
    if (n <= 0) {
        a->eof = true;
    } else {
        a->len += (size_t)n;
    }
    console_drain(a);
}

/* ---- setup ------------------------------------------------------------------ */

static int parse_zep(const char *spec, unsigned *lport, char *rhost, size_t rhost_len,
                     unsigned *rport, unsigned long *channel)
{
    /* LPORT:RPORT, LPORT:HOST:RPORT, LPORT:[V6ADDR]:RPORT, each with @CH */
    char tmp[128];
    snprintf(tmp, sizeof(tmp), "%s", spec);
    char *at = strchr(tmp, '@');
    if (at) {
        char *ec;
        *at = 0;
        *channel = strtoul(at + 1, &ec, 10);
        if (*ec || ec == at + 1 || (*channel != 0 && (*channel < 11 || *channel > 26))) {
            return -1;
        }
    }
    char *first = strchr(tmp, ':');
    char *last = strrchr(tmp, ':');
    if (first == NULL) {
        return -1;
    }
    *first = 0;
    *last = 0;
    char *e1, *e2;
    unsigned long lp = strtoul(tmp, &e1, 10), rp = strtoul(last + 1, &e2, 10);
    if (*e1 || *e2 || lp > 65535 || rp == 0 || rp > 65535) {
        return -1;
    }
    const char *h = first == last ? "127.0.0.1" : first + 1;
    size_t hl = strlen(h);
    if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') {
        snprintf(rhost, rhost_len, "%.*s", (int)(hl - 2), h + 1);
    } else {
        snprintf(rhost, rhost_len, "%s", h);
    }
    *lport = (unsigned)lp;
    *rport = (unsigned)rp;
    return 0;
}

static int die(const char *what, int res)
{
    fprintf(stderr, "wren-node: %s (%s)\n", what, strerror(-res));
    return 1;
}

/* What the command line asks for. */
struct opts {
    const char *tap_name, *zep_spec[MAX_ZEP], *script, *br_spec, *via_spec, *rpl_spec,
        *rpl_mode;
    const struct wren_module_ops *mods[16]; /**< --modules, in start order */
    uint8_t n_mods;                         /**< 0: every module of the list */
    unsigned n_zep_spec;
    const char *lora_spec, *lorawan_spec, *schc_rules;
    struct wren_lorawan_session lorawan; /**< --lorawan */
    unsigned long id, channel, pktbuf, pan;
    bool has_pan, has_eui64;
    uint8_t eui64[8];
    struct wren_netopt_faults faults;
    bool tap_seed_given, exit_on_eof, any_channel;
    uint8_t br_prefix[16], br_len, via[16];
    struct wren_rpl_role_cfg rpl; /**< --rpl-root: role ROOT */
};

/* A user's mistake: one line naming it. @return 2 (the exit status). */
static int bad_arg(const char *what)
{
    fprintf(stderr, "wren-node: %s\n", what);
    return 2;
}

/* --eui64 ADDR: 8 hex bytes, ':' or '-' between them or nothing; an
 * individual address, not all zeros. @return 0 or -1. */
static int parse_eui64(const char *arg, uint8_t *eui)
{
    const char *p = arg;
    unsigned any = 0;
    for (unsigned i = 0; i < 8; i++) {
        if (i && (*p == ':' || *p == '-')) {
            p++;
        }
        unsigned v;
        int n = 0;
        if (sscanf(p, "%2x%n", &v, &n) != 1 || n != 2) {
            return -1;
        }
        eui[i] = (uint8_t)v;
        any |= v;
        p += 2;
    }
    return (*p || !any || (eui[0] & 0x01)) ? -1 : 0;
}

/* --modules LIST: names of the module list (src/stack/modules.h). @return 0 or 2. */
static int take_modules(struct opts *o, const char *arg)
{
    char bad[32];
    int n = wren_stack_modules_named(arg, o->mods, sizeof(o->mods) / sizeof(o->mods[0]), bad,
                                     sizeof(bad));
    if (n < 0) {
        fprintf(stderr, "wren-node: --modules: %s '%s' (the modules:",
                n == -ENOENT ? "no module" : "too many at", bad);
        for (unsigned i = 0; wren_stack_module_name(i); i++) {
            fprintf(stderr, " %s", wren_stack_module_name(i));
        }
        fprintf(stderr, ")\n");
        return 2;
    }
    o->n_mods = (uint8_t)n;
    return n ? 0 : bad_arg("--modules wants at least one module");
}

/* An option whose argument is kept as it is: its field in struct opts */
static const char **str_opt(struct opts *o, int c)
{
    switch (c) {
    case 't': return &o->tap_name;
    case 'l': return &o->lora_spec;
    case 'C': return &o->schc_rules;
    case 'b': return &o->br_spec;
    case 'd': return &o->via_spec;
    case 'r': return &o->rpl_spec;
    case 'M': return &o->rpl_mode;
    case 's': return &o->script;
    default: return NULL;
    }
}

/* The TAP's fault options: --tap-loss, --tap-reorder, --tap-hold-ms, --tap-seed */
static int take_fault_opt(struct opts *o, int c, const char *arg)
{
    char *e;
    if (c == 'L' || c == 'R') {
        double pct = strtod(arg, &e);
        if (*e || e == arg || !(pct >= 0 && pct <= 100)) {
            return bad_arg(c == 'L' ? "--tap-loss wants a percentage 0..100"
                                    : "--tap-reorder wants a percentage 0..100");
        }
        *(c == 'L' ? &o->faults.loss : &o->faults.reorder) = (uint16_t)(pct * 100.0 + 0.5);
        return 0;
    }
    if (c == 'H') {
        unsigned long ms = strtoul(arg, &e, 0);
        o->faults.hold_ms = (uint16_t)ms;
        return (*e || ms == 0 || ms > 60000) ? bad_arg("--tap-hold-ms wants 1..60000") : 0;
    }
    o->faults.seed = strtoull(arg, &e, 0); /* 'S' */
    o->tap_seed_given = true;
    return (*e || o->faults.seed == 0) ? bad_arg("--tap-seed wants a number above 0") : 0;
}

/* The node's numbers: --id, --pan, --eui64, --channel, --pktbuf */
static int take_num_opt(struct opts *o, int c, const char *arg)
{
    char *e;
    switch (c) {
    case 'i':
        o->id = strtoul(arg, &e, 0);
        return (*e || o->id == 0 || o->id > 65535) ? bad_arg("--id wants 1..65535") : 0;
    case 'P':
        o->pan = strtoul(arg, &e, 0);
        o->has_pan = true;
        return (*e || e == arg || o->pan > 0xfffe) ? bad_arg("--pan wants a PAN ID 0..0xfffe")
                                                   : 0;
    case 'E':
        o->has_eui64 = true;
        return parse_eui64(arg, o->eui64) < 0
                   ? bad_arg("--eui64 wants 8 hex bytes, e.g. 02:57:52:ff:fe:00:00:01 (not a "
                             "group address, not all zeros)")
                   : 0;
    case 'c':
        o->channel = strtoul(arg, &e, 0);
        return (*e || o->channel < 11 || o->channel > 26) ? bad_arg("--channel wants 11..26")
                                                            : 0;
    default: /* 'p' */
        o->pktbuf = strtoul(arg, &e, 0);
        return (*e || o->pktbuf < 2048 || o->pktbuf > ARENA_MAX)
                   ? bad_arg("--pktbuf wants 2048..262144")
                   : 0;
    }
}

/* One option. @return 0, or the exit status (0 after --help is -1). */
static int take_opt(struct opts *o, int c, const char *arg)
{
    const char **str = str_opt(o, c);
    if (str) {
        *str = arg;
        return 0;
    }
    switch (c) {
    case 'i': case 'P': case 'E': case 'c': case 'p':
        return take_num_opt(o, c, arg);
    case 'L': case 'R': case 'H': case 'S':
        return take_fault_opt(o, c, arg);
    case 'W':
        o->lorawan_spec = arg;
        return wren_node_lorawan_parse(arg, &o->lorawan);
    case 'z':
        if (o->n_zep_spec == MAX_ZEP) {
            return bad_arg("at most 2 --zep interfaces");
        }
        o->zep_spec[o->n_zep_spec++] = arg;
        return 0;
    case 'e':
        o->exit_on_eof = true;
        return 0;
    case 'A':
        o->any_channel = true;
        return 0;
    case 'm':
        return take_modules(o, arg);
    case 'h':
        usage(stdout);
        return -1;
    default:
        usage(stderr);
        return 2;
    }
}

/* PREFIX/LEN with LEN 1..@p max_len into @p prefix, @p len. @return 0 or -1. */
static int parse_prefix(const char *spec, uint8_t *prefix, uint8_t *len, unsigned max_len)
{
    char tmp[64];
    snprintf(tmp, sizeof(tmp), "%s", spec);
    char *slash = strchr(tmp, '/'), *el = NULL;
    unsigned long l = slash ? strtoul(slash + 1, &el, 10) : 0;
    if (slash) {
        *slash = 0;
    }
    if (!slash || *el || el == slash + 1 || l == 0 || l > max_len ||
        wren_ipv6_addr_from_str(prefix, tmp) < 0) {
        return -1;
    }
    *len = (uint8_t)l;
    return 0;
}

/* --rpl-root and --rpl-mode. @return 0 or 2. */
static int check_rpl(struct opts *o)
{
    if (o->rpl_mode && !o->rpl_spec) {
        return bad_arg("--rpl-mode needs --rpl-root");
    }
    if (!o->rpl_spec) {
        return 0;
    }
    o->rpl.role = WREN_RPL_ROOT;
    o->rpl.mop = RPL_MOP_STORING;
    o->rpl.flags = WREN_RPL_CFG_GROUNDED; /* it has the uplink (RFC 6550 3.2.4) */
    if (parse_prefix(o->rpl_spec, o->rpl.prefix, &o->rpl.prefix_len, 128) < 0 ||
        wren_ipv6_addr_is_multicast(o->rpl.prefix) || wren_ipv6_addr_is_link_local(o->rpl.prefix)) {
        fprintf(stderr, "wren-node: --rpl-root wants a global PREFIX/LEN (LEN 1..128; 64 for "
                        "the nodes' autoconfiguration), not '%s'\n",
                o->rpl_spec);
        return 2;
    }
    if (o->rpl_mode && strcmp(o->rpl_mode, "non-storing") == 0) {
        o->rpl.mop = RPL_MOP_NON_STORING;
    } else if (o->rpl_mode && strcmp(o->rpl_mode, "storing") != 0) {
        fprintf(stderr, "wren-node: --rpl-mode wants storing or non-storing, not '%s'\n",
                o->rpl_mode);
        return 2;
    }
    return o->n_zep_spec ? 0 : bad_arg("--rpl-root needs --zep (the DODAG's radio link)");
}

/* How many interfaces, and the LoRa options. @return 0 or 2. */
static int check_ifs(const struct opts *o)
{
    if ((o->tap_name ? 1u : 0u) + o->n_zep_spec + (o->lora_spec ? 1u : 0u) >
        CONFIG_WREN_IPV6_IFS) {
        return bad_arg("IPv6 runs on three interfaces at most: --tap, --zep and --lora");
    }
    if ((o->lorawan_spec || o->schc_rules) && !o->lora_spec) {
        return bad_arg("--lorawan and --schc-rules need --lora");
    }
    if (o->schc_rules && !o->lorawan_spec) {
        return bad_arg("--schc-rules needs --lorawan (SCHC runs over the LoRaWAN link)");
    }
    return 0;
}

/* Options that only make sense together. @return 0 or 2. */
static int check_needs(struct opts *o);

static int check_opts(struct opts *o)
{
    if (!o->tap_name && !o->n_zep_spec && !o->lora_spec) {
        usage(stderr);
        return bad_arg("give at least one interface (--tap, --zep or --lora)");
    }
    int res = check_ifs(o);
    if (res) {
        return res;
    }
    if (o->br_spec) {
        if (parse_prefix(o->br_spec, o->br_prefix, &o->br_len, 64) < 0) {
            fprintf(stderr, "wren-node: --border-router wants PREFIX/LEN (LEN 1..64; 64 for "
                            "SLAAC), not '%s'\n",
                    o->br_spec);
            return 2;
        }
        if (!o->n_zep_spec) {
            return bad_arg("--border-router needs --zep (the 6LoWPAN link it serves)");
        }
    }
    if ((res = check_rpl(o)) != 0) {
        return res;
    }
    return check_needs(o);
}

/* Options that need an interface given: the 802.15.4 ones --zep, the TAP's --tap
 * (--default-via also read into o->via) */
static int check_needs(struct opts *o)
{
    if ((o->has_pan || o->has_eui64) && !o->n_zep_spec) {
        return bad_arg("--pan and --eui64 need --zep");
    }
    if ((o->faults.loss || o->faults.reorder || o->faults.hold_ms || o->tap_seed_given) &&
        !o->tap_name) {
        return bad_arg("--tap-loss, --tap-reorder, --tap-hold-ms and --tap-seed need --tap");
    }
    if (o->any_channel && !o->n_zep_spec) {
        return bad_arg("--any-channel needs --zep");
    }
    if (o->via_spec && (!o->tap_name || wren_ipv6_addr_from_str(o->via, o->via_spec) < 0)) {
        return bad_arg("--default-via wants an IPv6 address on the TAP (and --tap)");
    }
    return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
    static const struct option opts[] = {
        {"id", required_argument, NULL, 'i'},
        {"tap", required_argument, NULL, 't'},
        {"zep", required_argument, NULL, 'z'},
        {"lora", required_argument, NULL, 'l'},
        {"lorawan", required_argument, NULL, 'W'},
        {"schc-rules", required_argument, NULL, 'C'},
        {"channel", required_argument, NULL, 'c'},
        {"pan", required_argument, NULL, 'P'},
        {"eui64", required_argument, NULL, 'E'},
        {"pktbuf", required_argument, NULL, 'p'},
        {"script", required_argument, NULL, 's'},
        {"exit-on-eof", no_argument, NULL, 'e'},
        {"any-channel", no_argument, NULL, 'A'},
        {"modules", required_argument, NULL, 'm'},
        {"border-router", required_argument, NULL, 'b'},
        {"default-via", required_argument, NULL, 'd'},
        {"rpl-root", required_argument, NULL, 'r'},
        {"rpl-mode", required_argument, NULL, 'M'},
        {"tap-loss", required_argument, NULL, 'L'},
        {"tap-reorder", required_argument, NULL, 'R'},
        {"tap-hold-ms", required_argument, NULL, 'H'},
        {"tap-seed", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c, res;
    static const char shortopts[] = "i:t:z:l:c:p:s:ehb:d:r:M:L:R:H:S:m:P:E:W:C:";
    while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
        if ((res = take_opt(o, c, optarg)) != 0) {
            return res;
        }
    }
    if (optind < argc) {
        usage(stderr);
        return 2;
    }
    return check_opts(o);
}

/* The devices: a TAP (Ethernet) and up to two ZEP radios. @return 0 or 1. */
static int open_devices(struct app *a, const struct opts *o)
{
    char why[200];
    if (o->tap_name) {
        const uint8_t mac[6] = {0x02, 0x57, 0x52, (uint8_t)(o->id >> 16), (uint8_t)(o->id >> 8),
                                (uint8_t)o->id};
        if (wren_tap_open(&a->tap, &a->host, o->tap_name, mac, why, sizeof(why)) < 0) {
            fprintf(stderr, "wren-node: %s\n", why);
            return 1;
        }
        struct wren_netopt_faults f = o->faults;
        if (!o->tap_seed_given) {
            f.seed = o->id;
        }
        wren_tap_set_faults(&a->tap, &f);
        a->has_tap = true;
    }
    for (unsigned i = 0; i < o->n_zep_spec; i++) {
        unsigned lport, rport;
        unsigned long ch = o->channel;
        char rhost[64];
        if (parse_zep(o->zep_spec[i], &lport, rhost, sizeof(rhost), &rport, &ch) < 0) {
            fprintf(stderr, "wren-node: --zep wants LPORT:[RHOST:]RPORT[@CH], not '%s'\n",
                    o->zep_spec[i]);
            return 2;
        }
        if (wren_zep_open(&a->zep[i], &a->host, (uint16_t)lport, rhost, (uint16_t)rport,
                          (uint16_t)o->id, why, sizeof(why)) < 0) {
            fprintf(stderr, "wren-node: %s\n", why);
            return 1;
        }
        a->zep[i].channel = (uint16_t)ch;
        a->zep[i].any_channel = o->any_channel;
        /* the EUI-64 the IPv6 addresses are made of: --eui64, else the id's */
        uint8_t eui[8];
        if (o->has_eui64) {
            memcpy(eui, o->eui64, 8);
        } else {
            wren_ieee802154_eui64_from_id((uint32_t)o->id, eui);
        }
        a->zep[i].netdev.driver->set(&a->zep[i].netdev, WREN_NETOPT_ADDRESS_LONG, eui, 8);
        a->n_zep++;
    }
    if (o->lora_spec) {
        int res = wren_node_lora_open(&a->lora, &a->host, o->lora_spec);
        if (res) {
            return res;
        }
        a->has_lora = true;
    }
    return 0;
}

/* The node: the TAP first, then the radios, the modules asked for (default:
 * every module of the list). */
static int build_stack(struct app *a, const struct opts *o)
{
    static const struct wren_module_ops *const mods[] = WREN_STACK_ALL_MODULES;
    struct wren_stack_iface ifs[2 + MAX_ZEP];
    unsigned n = 0;
    if (a->has_tap) {
        ifs[n++] = (struct wren_stack_iface){.link = &wren_link_ethernet, .dev = &a->tap.netdev,
                                             .state = &a->eth};
    }
    for (unsigned i = 0; i < a->n_zep; i++) {
        ifs[n++] = (struct wren_stack_iface){.link = &wren_link_ieee802154,
                                             .dev = &a->zep[i].netdev, .state = &a->lowpan_if[i]};
    }
    if (a->has_lora) {
        ifs[n++] = (struct wren_stack_iface){.link = o->lorawan_spec ? &wren_link_lorawan
                                                                     : &wren_link_lora,
                                             .dev = &a->lora.netdev, .state = &a->lora_if};
    }
    struct wren_stack_desc desc = WREN_STACK_DESC(ifs, mods);
    desc.n_ifaces = (uint8_t)n;
    if (o->n_mods) {
        desc.mods = o->mods;
        desc.n_mods = o->n_mods;
    }
    if (wren_stack_pool_size(NULL, &desc) > sizeof(modules)) {
        return -ENOMEM;
    }
    return wren_stack_build(&a->node, &desc, modules, sizeof(modules), &a->stack);
}

/* --lorawan's session and --schc-rules. @return 0, 1 or 2. */
static int configure_lorawan(struct app *a, const struct opts *o)
{
    if (!o->lorawan_spec) {
        return 0;
    }
    int res = wren_netapi_set(&a->node, &a->lora_if.netif.module, WREN_NETOPT_LORAWAN_SESSION,
                              0, &o->lorawan, sizeof(o->lorawan));
    if (res < 0) {
        return die("cannot set the LoRaWAN session", res);
    }
    struct wren_module *schc = wren_stack_module(&a->stack, &wren_schc_module,
                                                 a->lora_if.netif.id);
    if (schc == NULL) {
        fprintf(stderr, "wren-node: --lorawan needs the schc module\n");
        return 2;
    }
    return o->schc_rules ? wren_node_schc_rules(&a->node, schc, o->schc_rules) : 0;
}

/* Border router and default route, the netapi way. @return 0 or 1. */
static int configure(struct app *a, const struct opts *o)
{
    int res = configure_lorawan(a, o);
    if (res) {
        return res;
    }
    for (unsigned i = 0; o->has_pan && i < a->n_zep; i++) {
        uint16_t pan = (uint16_t)o->pan;
        if ((res = wren_netapi_set(&a->node, &a->lowpan_if[i].netif.module, WREN_NETOPT_NID, 0,
                                   &pan, sizeof(pan))) < 0) {
            return die("cannot set the PAN ID", res);
        }
    }
    if (o->br_len) {
        /* the 6LBR: prefix and context 0 on the (first) 6LoWPAN link, ABRO */
        struct wren_nib *nib = (struct wren_nib *)wren_stack_module(
            &a->stack, &wren_nib_module, a->lowpan_if[0].netif.id);
        if (nib == NULL) {
            fprintf(stderr, "wren-node: --border-router needs the nib module\n");
            return 2;
        }
        if ((res = wren_nib_prefix_add(nib, o->br_prefix, o->br_len, 0)) < 0 ||
            (res = wren_nib_border_router(nib, 1)) < 0) {
            return die("cannot become a border router", res);
        }
    }
    if (o->rpl.role == WREN_RPL_ROOT) {
        /* the DODAG root on the (first) 802.15.4 interface, and its prefix
         * routed there: a destination no DAO announced yet goes onto the
         * radio link, not back where it came from */
        uint8_t zif = a->lowpan_if[0].netif.id;
        struct wren_module *rpl = wren_stack_module(&a->stack, &wren_rpl_module, zif);
        struct wren_module *ip = wren_stack_module(&a->stack, &wren_ipv6_module, 0);
        if (rpl == NULL || ip == NULL) {
            fprintf(stderr, "wren-node: --rpl-root needs the rpl and ipv6 modules\n");
            return 2;
        }
        struct wren_fib_entry r = {.prefix_len = o->rpl.prefix_len, .if_id = zif};
        memcpy(r.prefix, o->rpl.prefix, 16);
        struct wren_rpl_route_mem mem = {.mem = rpl_routes, .n = RPL_ROOT_ROUTES};
        if ((res = wren_netapi_set(&a->node, rpl, WREN_NETOPT_RPL_ROUTE_MEM, 0, &mem,
                                   sizeof(mem))) < 0 ||
            (res = wren_netapi_set(&a->node, rpl, WREN_NETOPT_RPL_ROLE, 0, &o->rpl,
                                   sizeof(o->rpl))) < 0 ||
            (res = wren_netapi_set(&a->node, ip, WREN_NETOPT_IPV6_ROUTE_ADD, 0, &r,
                                   sizeof(r))) < 0) {
            return die("cannot become the RPL root", res);
        }
    }
    if (o->via_spec) {
        struct wren_fib_entry d = {.prefix_len = 0, .if_id = a->eth.netif.id};
        memcpy(d.next_hop, o->via, 16);
        struct wren_module *ip = wren_stack_module(&a->stack, &wren_ipv6_module, 0);
        if (ip == NULL) {
            fprintf(stderr, "wren-node: --default-via needs the ipv6 module\n");
            return 2;
        }
        if ((res = wren_netapi_set(&a->node, ip, WREN_NETOPT_IPV6_ROUTE_ADD, 0, &d,
                                   sizeof(d))) < 0) {
            return die("cannot add the default route", res);
        }
    }
    return 0;
}

/* the program's own commands (the shell looks them up first) */
static const struct wren_shell_cmd program_cmds[] = {
    {"nd", "Ethernet neighbor cache, counters and the TAP's counters", cmd_nd},
    {"zep", "ZEP radio counters", cmd_zep},
    {"lora", "LoRa radio: settings and counters; lora send TEXT; lora set KEY V", cmd_lora},
    {NULL, NULL, NULL},
};

int main(int argc, char **argv)
{
    struct app *a = &app;
    struct opts o = {.id = 1, .channel = 26, .pktbuf = 65536};
    int res = parse_args(argc, argv, &o);
    if (res != 0) {
        return res < 0 ? 0 : res;
    }
    a->exit_on_eof = o.exit_on_eof;
    int in_fd = 0;
    if (o.script && (in_fd = open(o.script, O_RDONLY | O_CLOEXEC)) < 0) {
        fprintf(stderr, "wren-node: cannot read %s: %s\n", o.script, strerror(errno));
        return 1;
    }
    if ((res = wren_host_init(&a->host)) < 0) {
        return die("cannot set up the event loop", res);
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)getpid();
    wren_node_init(&a->node, &wren_host_rt_ops, &a->host, arena, o.pktbuf & ~7ul,
                   (uint32_t)o.id, seed);
    wren_host_set_node(&a->host, &a->node);
    if ((res = open_devices(a, &o)) != 0) {
        return res;
    }
    if ((res = build_stack(a, &o)) < 0) {
        return die("cannot start the stack", res);
    }
    if ((res = configure(a, &o)) != 0) {
        return res;
    }
    wren_shell_init(&a->shell, &a->node, out, NULL);
    wren_shell_set_extra(&a->shell, program_cmds);
    wren_tcp_app_init(&a->tcp_app, &a->node, out, NULL);
    wren_shell_set_tcp(&a->shell, &a->tcp_app);
    wren_timer_init(&a->sleep_timer, sleep_done, a);
    a->in = (struct wren_host_fd){.fd = in_fd, .events = POLLIN, .cb = console_readable, .arg = a};
    wren_host_fd_add(&a->host, &a->in);

    wren_host_run(&a->host);
    wren_timer_cancel(&a->node, &a->sleep_timer);
    if (a->has_tap) {
        wren_tap_close(&a->tap);
    }
    for (unsigned i = 0; i < a->n_zep; i++) {
        wren_zep_close(&a->zep[i]);
    }
    if (a->has_lora) {
        wren_lora_udp_close(&a->lora);
    }
    wren_host_fini(&a->host);
    return 0;
}
