/* Inside the CoAP module only. */
#ifndef WREN_COAP_COAP_PRIV_H
#define WREN_COAP_COAP_PRIV_H

#include "coap/coap.h"
#include "shell/shell.h"

/** Handle the datagram of @p n bytes in c->rx from @p from. */
void wren_coap_input(struct wren_coap *c, size_t n, const struct wren_sock_udp_ep *from);

/** Add `/counter`, `/stats` and `/pattern` (src/coap/coap_res.c). */
void wren_coap_default_resources(struct wren_coap *c);

/** The `coap` command (src/coap/coap_shell.c). */
extern const struct wren_shell_cmd wren_coap_shell_cmds[];

#endif
