/* Cortex-M3 image: the smallest CoAP server (the coap_server_min library:
 * CONFIG_WREN_COAP_BLOCK2=0, _SEPARATE=0, _MULTICAST=0, _LF_FILTERS=0,
 * _DEDUP=0 and no client, no default resources, no Block1), the feature set of RIOT's
 * gcoap + nanocoap server it is compared with: observe and
 * /.well-known/core. main plays the client with wire messages and checks
 * what the server does with what it left out: an observation with a CON
 * and a NON notification, a discovery whose filter is ignored (RFC 6690
 * 4.1 makes filtering optional), Block2 refused as the critical option it
 * does not know (4.02), a representation beyond a message answered 5.00,
 * never cut, a duplicate CON run again (no duplicate cache, as gcoap has
 * none) and a ping. Its linker map gives rom_coap_server_min_bytes. */
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

/* 300 bytes: beyond a 256-byte message */
static void big_get(struct wren_coap *c, const struct wren_coap_req *req,
                    struct wren_coap_resp *resp, void *arg)
{
    (void)c;
    (void)req;
    (void)arg;
    for (unsigned i = 0; i < 30; i++) {
        wren_coap_resp_write(resp, "0123456789", 10);
    }
}

static const struct wren_coap_resource temp_res = {
    .path = "/temp", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT, .observable = true,
    .attrs = ";rt=\"temperature\"", .handler = temp_get,
};
static const struct wren_coap_resource big_res = {
    .path = "/big", .methods = WREN_COAP_GET, .cf = COAP_CF_TEXT, .handler = big_get,
};

/* An ACK of @p mid with @p code and no payload. */
static bool refused(const struct coap_msg *m, uint16_t mid, uint8_t code)
{
    return m->type == COAP_ACK && m->mid == mid && m->code == code && m->payload_len == 0;
}

/* What the smallest server leaves out, and how it answers instead (four checks). */
static int left_out(struct wren_coap *c)
{
    static const char links[] = "</temp>;ct=0;obs;rt=\"temperature\",</big>;ct=0";
    int ok = 0;
    struct coap_msg m;
    /* the filter names nothing that matches, and is ignored: both links */
    coap_wc_get(COAP_CON, 102, "/.well-known/core", -1, -1, "rt=none");
    ok += coap_wc_recv(&m) == 0 && m.code == COAP_CODE_CONTENT &&
          m.payload_len == strlen(links) && memcmp(m.payload, links, m.payload_len) == 0;
    coap_wc_get(COAP_CON, 103, "/temp", -1, 0x02, NULL); /* Block2 block 0 of 64 bytes */
    ok += coap_wc_recv(&m) == 0 && refused(&m, 103, COAP_CODE_BAD_OPTION);
    coap_wc_get(COAP_CON, 104, "/big", -1, -1, NULL);
    ok += coap_wc_recv(&m) == 0 && refused(&m, 104, COAP_CODE_INTERNAL_ERROR);
    uint32_t runs = c->stats.req;
    coap_wc_get(COAP_CON, 106, "/temp", -1, -1, NULL);
    coap_wc_get(COAP_CON, 106, "/temp", -1, -1, NULL); /* its duplicate */
    ok += coap_wc_recv(&m) == 0 && coap_wc_content(&m, COAP_ACK, "217", false) &&
          coap_wc_recv(&m) == 0 && coap_wc_content(&m, COAP_ACK, "217", false) &&
          c->stats.req == runs + 2;
    return ok;
}

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
        wren_coap_resource_add(c, &temp_res) < 0 || wren_coap_resource_add(c, &big_res) < 0) {
        return 2;
    }
    int ok = coap_wc_observe(c, &temp_res, &temp) + left_out(c);
    struct coap_msg m;
    coap_wc_empty(COAP_CON, 105); /* ping */
    ok += coap_wc_recv(&m) == 0 && m.type == COAP_RST && m.mid == 105;
    ok += c->stats.req_bad_option == 1 && c->stats.resp_too_large == 1;
    wren_rt_cortexm_run_until(&wren_inst_rt, wren_node_now(node) + 1000000);
    int clean = wren_pktbuf_is_empty(&node->pktbuf) && wren_pktbuf_is_sane(&node->pktbuf);
    printf("wren cortex-m3 coap server (min): %d/10 exchanges, pktbuf %s\n", ok,
           clean ? "empty" : "NOT EMPTY");
    return ok == 10 && clean ? 0 : 1;
}
