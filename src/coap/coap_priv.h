/* Inside the CoAP module only. */
#ifndef WREN_COAP_COAP_PRIV_H
#define WREN_COAP_COAP_PRIV_H

#include "coap/coap.h"
#include "shell/shell.h"

/** Handle the datagram of @p n bytes in c->rx from @p from. */
void wren_coap_input(struct wren_coap *c, size_t n, const struct wren_sock_udp_ep *from);

/** Hand an ACK, RST or response to the client. @return whether it matched a request. */
bool wren_coap_client_input(struct wren_coap *c, const struct coap_msg *m,
                            const struct wren_sock_udp_ep *from);

/** End every client exchange without calling back (the server stops). */
void wren_coap_client_stop(struct wren_coap *c);

/** Add `/counter`, `/stats` and `/pattern` (src/coap/coap_res.c). */
void wren_coap_default_resources(struct wren_coap *c);

/** The `coap` command (src/coap/coap_shell.c). */
extern const struct wren_shell_cmd wren_coap_shell_cmds[];

#endif
