/* The client side of the CoAP server images (main_coap_server.c,
 * main_coap_server_min.c): wire messages built and parsed with src/wire/coap
 * over a plain UDP socket (wren_inst_sock_cli) to the node's own server at
 * ::1, and the observation exchange both images check. Not stack code: the
 * size report counts none of it. */
#ifndef WREN_CORTEXM_COAP_WIRE_CLIENT_H
#define WREN_CORTEXM_COAP_WIRE_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "coap/coap.h"
#include "sock/sock_udp.h"

extern struct wren_sock_udp wren_inst_sock_cli;

/** A GET of @p path with token ab cd (with Observe @p observe and Block2
 *  @p block2 when >= 0, and Uri-Query @p query unless NULL). */
void coap_wc_get(uint8_t type, uint16_t mid, const char *path, int32_t observe,
                 int32_t block2, const char *query);
/** An empty message: an ACK, or a CON (a ping). */
void coap_wc_empty(uint8_t type, uint16_t mid);
/** Run the node 100 ms and parse the next message the client got: 0 or -1. */
int coap_wc_recv(struct coap_msg *m);
/** A 2.05 of type @p type with the token, payload @p text and (@p obs) an
 *  Observe option. */
bool coap_wc_content(const struct coap_msg *m, uint8_t type, const char *text, bool obs);
/**
 * The observation of @p r, whose handler writes *@p value: register (answer
 * 215), a CON notification acknowledged (216), a NON one within the CON
 * interval (217), a GET without Observe that ends it (then no observer is
 * left to notify). @return how many of the four went as they should.
 */
int coap_wc_observe(struct wren_coap *c, const struct wren_coap_resource *r, uint32_t *value);

#endif
