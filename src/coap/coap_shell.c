/* The CoAP module's shell command: `coap` lists the resources served. */
#include <errno.h>
#include <string.h>

#include "coap/coap_priv.h"
#include "shell/shell.h"

static int cmd_coap(struct wren_shell *sh, struct wren_module *m, int argc, char **argv)
{
    struct wren_coap *c = (struct wren_coap *)m;
    (void)argv;
    if (argc != 1) {
        wren_shell_printf(sh, "usage: coap\n");
        return -EINVAL;
    }
    wren_shell_printf(sh, "CoAP server on port %u: %u resources\n", COAP_PORT, c->n_res + 1u);
    wren_shell_printf(sh, "  /.well-known/core\n");
    for (unsigned i = 0; i < c->n_res; i++) {
        wren_shell_printf(sh, "  %s\n", c->res[i]->path);
    }
    unsigned used = 0;
    for (unsigned i = 0; i < CONFIG_WREN_COAP_DEDUP; i++) {
        used += c->dedup[i].used;
    }
    wren_shell_printf(sh, "exchanges remembered: %u of %u\n", used, CONFIG_WREN_COAP_DEDUP);
    return 0;
}

const struct wren_shell_cmd wren_coap_shell_cmds[] = {
    { "coap", "coap: the CoAP server's resources", cmd_coap },
    { NULL, NULL, NULL },
};
