/* 6top's shell command: 6p (transactions, SeqNums, MSF state, counters; 6P
 * requests by hand). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/node.h"
#include "shell/shell.h"
#include "sixtop/sixtop.h"
#include "sixtop/sixtop_priv.h"

static const char usage[] =
    "usage: 6p [show] | 6p add NBR [tx|rx] [N] | 6p delete NBR [tx|rx] [SLOT CH] | "
    "6p relocate NBR SLOT CH [tx|rx] | 6p count NBR [tx|rx] | 6p list NBR [tx|rx] | "
    "6p clear NBR | 6p msf on|off   (NBR: an EUI-64, 0011:2233:4455:6677)\n";

static void eui_str(char *out, const uint8_t *a)
{
    snprintf(out, 20, "%02x%02x:%02x%02x:%02x%02x:%02x%02x", a[0], a[1], a[2], a[3], a[4], a[5],
             a[6], a[7]);
}

static int eui_parse(const char *p, uint8_t out[8])
{
    unsigned n = 0;
    for (; *p; p++) {
        int v = *p >= '0' && *p <= '9'   ? *p - '0'
                : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
                : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10
                                         : -1;
        if (v < 0) {
            if (*p == ':' || *p == '-') {
                continue;
            }
            return -EINVAL;
        }
        if (n == 16) {
            return -EINVAL;
        }
        out[n / 2] = (uint8_t)(n % 2 ? out[n / 2] | v : v << 4);
        n++;
    }
    return n == 16 ? 0 : -EINVAL;
}

static void show(struct wren_shell *sh, const struct wren_sixtop *s)
{
    const struct wren_msf *f = &s->tab->msf;
    char a[20];
    uint32_t now = wren_node_now_s(sh->node);
    eui_str(a, s->eui64);
    wren_shell_printf(sh, "iface %u eui64 %s sf %u (MSF%s) autonomous rx slot %u ch %u%s\n",
                      s->if_id, a, SIXP_SFID_MSF, f->cfg.enabled ? "" : ", requests off",
                      f->auto_c.slot_offset, f->auto_c.channel_offset, f->auto_rx ? "" : " (not installed)");
    if (f->has_parent) {
        eui_str(a, f->parent);
        wren_shell_printf(sh, "parent %s cells elapsed tx %u rx %u used tx %u rx %u%s\n", a,
                          f->elapsed[0], f->elapsed[1], f->used[0], f->used[1],
                          f->wait_until_s && (int32_t)(now - f->wait_until_s) < 0 ? " (waiting)"
                                                                                   : "");
    }
    if (f->quarantine_until_s && (int32_t)(now - f->quarantine_until_s) < 0) {
        eui_str(a, f->quarantine);
        wren_shell_printf(sh, "quarantined %s for %lu s\n", a,
                          (unsigned long)(f->quarantine_until_s - now));
    }
    for (unsigned i = 0; i < f->auto_tx_n; i++) {
        eui_str(a, f->auto_tx[i]);
        wren_shell_printf(sh, "autonomous tx to %s\n", a);
    }
    for (unsigned i = 0; i < CONFIG_WREN_SIXP_NBRS; i++) {
        if (s->tab->nbrs[i].used) {
            eui_str(a, s->tab->nbrs[i].addr);
            wren_shell_printf(sh, "nbr %s seqnum %u\n", a, s->tab->nbrs[i].seqnum);
        }
    }
    for (unsigned i = 0; i < CONFIG_WREN_SIXP_TRANS; i++) {
        const struct wren_sixp_trans *t = &s->tab->trans[i];
        if (t->used) {
            eui_str(a, t->nbr);
            wren_shell_printf(sh, "transaction %s to %s seqnum %u cells %u timeout in %ld s\n",
                              wren_sixp_cmd_name(t->cmd), a, t->seqnum, t->n_cells,
                              (long)(int32_t)(t->deadline_s - now));
        }
    }
    if (s->stats.rx_response) {
        wren_shell_printf(sh, "last response %s cells %u total %u\n",
                          wren_sixp_rc_name(s->last_rc), s->last_n_cells, s->last_total);
    }
}

static uint8_t opts_arg(int argc, char **argv, int i)
{
    return i < argc && strcmp(argv[i], "rx") == 0 ? SIXP_CELL_RX : SIXP_CELL_TX;
}

/* the 6P command named @p name (RFC 8480 6.2.2's codes); 0: none */
static uint8_t cmd_of(const char *name)
{
    static const char *const cmds[] = { NULL, "add", "delete", "relocate", "count", "list",
                                        NULL, "clear" };
    uint8_t cmd = 0;
    for (uint8_t i = 1; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        cmd = cmds[i] && strcmp(name, cmds[i]) == 0 ? i : cmd;
    }
    return cmd;
}

/* the request of `6p CMD NBR ...` (arguments from argv[3]); *@p bad set
 * for a malformed argument */
static int request(struct wren_sixtop *s, uint8_t cmd, const uint8_t nbr[8], int argc,
                   char **argv, int *bad)
{
    struct sixp_cell c;
    switch (cmd) {
    case SIXP_CMD_ADD:
        return wren_sixtop_request(
            s, nbr, cmd, opts_arg(argc, argv, 3),
            (uint8_t)(argc > 4 ? wren_shell_num(argv[4], 1, CONFIG_WREN_SIXP_CELLS, bad) : 1),
            NULL, 0);
    case SIXP_CMD_DELETE:
        if (argc > 5) {
            c.slot_offset = (uint16_t)wren_shell_num(argv[4], 0, 0xffff, bad);
            c.channel_offset = (uint16_t)wren_shell_num(argv[5], 0, 0xffff, bad);
        }
        return *bad ? -EINVAL
                    : wren_sixtop_request(s, nbr, cmd, opts_arg(argc, argv, 3), 1,
                                          argc > 5 ? &c : NULL, argc > 5);
    case SIXP_CMD_RELOCATE:
        if (argc < 5) {
            *bad = 1;
            return -EINVAL;
        }
        c.slot_offset = (uint16_t)wren_shell_num(argv[3], 0, 0xffff, bad);
        c.channel_offset = (uint16_t)wren_shell_num(argv[4], 0, 0xffff, bad);
        return *bad ? -EINVAL
                    : wren_sixtop_request(s, nbr, cmd, opts_arg(argc, argv, 5), 1, &c, 1);
    default:
        return wren_sixtop_request(s, nbr, cmd, opts_arg(argc, argv, 3), 0, NULL, 0);
    }
}

static int cmd_6p(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    struct wren_sixtop *s = (struct wren_sixtop *)m;
    if (s == NULL) {
        return wren_shell_error(sh, -ENODEV, "no 6top module");
    }
    if (wren_sixtop_tables(s) == NULL) {
        return wren_shell_error(sh, -ENOMEM, "6p"); /* its tables: made by its first use */
    }
    if (argc < 2 || strcmp(argv[1], "show") == 0) {
        show(sh, s);
        return 0;
    }
    if (strcmp(argv[1], "msf") == 0 && argc == 3 &&
        (strcmp(argv[2], "on") == 0 || strcmp(argv[2], "off") == 0)) {
        s->tab->msf.cfg.enabled = strcmp(argv[2], "on") == 0;
        return 0;
    }
    uint8_t cmd = cmd_of(argv[1]), nbr[8];
    if (cmd == 0 || argc < 3) {
        wren_shell_printf(sh, "%s", usage);
        return -EINVAL;
    }
    if (eui_parse(argv[2], nbr) < 0) {
        wren_shell_printf(sh, "error: bad neighbour '%s' (an EUI-64: 0011:2233:4455:6677)\n",
                          argv[2]);
        return -EINVAL;
    }
    int bad = 0, rc = request(s, cmd, nbr, argc, argv, &bad);
    if (bad) {
        wren_shell_printf(sh, "%s", usage);
        return -EINVAL;
    }
    if (rc == -ENOTSUP) {
        wren_shell_printf(sh, "error: 6p %s: interface %u runs no TSCH\n", argv[1], s->if_id);
        return rc;
    }
    if (rc < 0) {
        return wren_shell_error(sh, rc, argv[1]);
    }
    wren_shell_printf(sh, "6P %s to %s sent, seqnum %d\n", wren_sixp_cmd_name(cmd), argv[2],
                      wren_sixtop_trans_of(s, nbr) ? wren_sixtop_trans_of(s, nbr)->seqnum : -1);
    return 0;
}

const struct wren_shell_cmd wren_sixtop_shell_cmds[] = {
    { "6p", "6top: transactions, SeqNums, MSF; 6P requests (6p help)", cmd_6p },
    { NULL, NULL, NULL },
};
