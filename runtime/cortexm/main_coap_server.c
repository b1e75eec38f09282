/* Cortex-M3 image: a CoAP server only (CONFIG_WREN_COAP_CLIENT=0, no
 * default resources) with one observable resource, on sock_udp over the
 * IPv6 loopback. main plays the client with a plain UDP socket and wire
 * messages: a GET registering as an observer, a CON notification it
 * acknowledges, a NON one, a GET that ends the observation, a ping. Its
 * linker map gives the server's ROM (./wren size: rom_coap_server_bytes). */
#include <stdio.h>
#include <string.h>

#include "coap/coap.h"
#include "coap_wire_client.h"
#include "instance.h"

struct wren_sock_udp wren_inst_sock_cli;

static uint32_t temp; /* coap_wc_observe sets it */

static void temp_get(struct wren_coap *c, const struct wren_coap_req *req,
                     struct wren_coap_resp *resp, void *arg)
{
    (void)c;
    (void)req;
    (void)arg;
    wren_coap_resp_write_uint(resp, temp);
}

static const struct wren_coap_resource temp_res = {
    .path = "/temp", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT, .observable = true,
    .handler = temp_get,
};

int main(void)
{
    static const struct wren_module_ops *const mods[] = {
        &wren_ipv6_module, &wren_icmpv6_module, &wren_udp_module, &wren_coap_module,
    };
    static void *const states[] = { &wren_inst_ipv6, &wren_inst_icmpv6, &wren_inst_udp,
                                    &wren_inst_coap };
    static const struct wren_stack_desc d = { .mods = mods, .states = states, .n_mods = 4 };
    struct wren_node *node = &wren_inst_node;
    struct wren_coap *c = &wren_inst_coap;
    if (wren_inst_init(&d) < 0 || wren_sock_udp_create(node, &wren_inst_sock_cli, NULL, NULL) < 0 ||
        wren_coap_resource_add(c, &temp_res) < 0) {
        return 2;
    }
    int ok = coap_wc_observe(c, &temp_res, &temp);
    struct coap_msg m;
    coap_wc_empty(COAP_CON, 102); /* ping */
    ok += coap_wc_recv(&m) == 0 && m.type == COAP_RST && m.mid == 102;
    wren_rt_cortexm_run_until(&wren_inst_rt, wren_node_now(node) + 1000000);
    int clean = wren_pktbuf_is_empty(&node->pktbuf) && wren_pktbuf_is_sane(&node->pktbuf);
    printf("wren cortex-m3 coap server: %d/5 exchanges, pktbuf %s\n", ok,
           clean ? "empty" : "NOT EMPTY");
    return ok == 5 && clean ? 0 : 1;
}
