/* Cortex-M3 image: a CoAP server only (CONFIG_WREN_COAP_CLIENT=0, no
 * default resources) with one observable resource, on sock_udp over the
 * IPv6 loopback. main plays the client with a plain UDP socket and wire
 * messages: a GET registering as an observer, a CON notification it
 * acknowledges, a NON one, a GET that ends the observation, a ping. Its
 * linker map gives the server's ROM (./wren size: rom_coap_server_bytes). */
#include <stdio.h>
#include <string.h>

#include "coap/coap.h"
#include "instance.h"

struct wren_sock_udp wren_inst_sock_cli;

static uint32_t temp = 215;

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

static const struct wren_sock_udp_ep server = { .addr = { [15] = 1 }, .port = COAP_PORT };
static const uint8_t token[2] = { 0xab, 0xcd };

static void send_req(uint8_t type, uint16_t mid, int32_t observe)
{
    uint8_t b[32];
    struct coap_builder bld;
    wren_coap_build_init(&bld, b, sizeof(b), type, COAP_CODE_GET, mid, token, sizeof(token));
    if (observe >= 0) {
        wren_coap_build_opt_uint(&bld, COAP_OPT_OBSERVE, (uint32_t)observe);
    }
    wren_coap_build_opt_path(&bld, COAP_OPT_URI_PATH, "/temp");
    int n = wren_coap_build_end(&bld);
    if (n > 0) {
        wren_sock_udp_send(&wren_inst_sock_cli, b, (size_t)n, &server);
    }
}

static void send_empty(uint8_t type, uint16_t mid)
{
    uint8_t b[COAP_HDR_LEN];
    struct coap_builder bld;
    wren_coap_build_init(&bld, b, sizeof(b), type, COAP_CODE_EMPTY, mid, NULL, 0);
    wren_sock_udp_send(&wren_inst_sock_cli, b, sizeof(b), &server);
}

/* The next message the client gets, parsed; 0 or -1. */
static uint8_t rxbuf[64];
static int recv_msg(struct coap_msg *m)
{
    wren_rt_cortexm_run_until(&wren_inst_rt, wren_node_now(&wren_inst_node) + 100000);
    ssize_t n = wren_sock_udp_recv(&wren_inst_sock_cli, rxbuf, sizeof(rxbuf), 0, NULL);
    return n > 0 && wren_coap_parse(rxbuf, (size_t)n, m) == 0 ? 0 : -1;
}

/* A 2.05 with the token, payload @p text and (@p obs) an Observe option. */
static bool content(const struct coap_msg *m, uint8_t type, const char *text, bool obs)
{
    return m->type == type && m->code == COAP_CODE_CONTENT && m->tkl == sizeof(token) &&
           memcmp(m->token, token, sizeof(token)) == 0 && m->payload_len == strlen(text) &&
           memcmp(m->payload, text, m->payload_len) == 0 &&
           obs == wren_coap_opt_find(m, COAP_OPT_OBSERVE, &(struct coap_opt){ 0 });
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
        wren_coap_resource_add(c, &temp_res) < 0) {
        return 2;
    }
    int ok = 0;
    struct coap_msg m;
    send_req(COAP_CON, 100, COAP_OBSERVE_REGISTER);
    ok += recv_msg(&m) == 0 && content(&m, COAP_ACK, "215", true) && m.mid == 100;
    temp = 216; /* the first notification is CON: acknowledged */
    ok += wren_coap_notify(c, &temp_res) == 1 && recv_msg(&m) == 0 &&
          content(&m, COAP_CON, "216", true);
    send_empty(COAP_ACK, m.mid);
    temp = 217; /* then NON within the CON interval */
    ok += wren_coap_notify(c, &temp_res) == 1 && recv_msg(&m) == 0 &&
          content(&m, COAP_NON, "217", true);
    send_req(COAP_CON, 101, -1); /* a GET without Observe ends the observation */
    ok += recv_msg(&m) == 0 && content(&m, COAP_ACK, "217", false) &&
          wren_coap_notify(c, &temp_res) == 0;
    send_empty(COAP_CON, 102); /* ping */
    ok += recv_msg(&m) == 0 && m.type == COAP_RST && m.mid == 102;
    wren_rt_cortexm_run_until(&wren_inst_rt, wren_node_now(node) + 1000000);
    int clean = wren_pktbuf_is_empty(&node->pktbuf) && wren_pktbuf_is_sane(&node->pktbuf);
    printf("wren cortex-m3 coap server: %d/5 exchanges, pktbuf %s\n", ok,
           clean ? "empty" : "NOT EMPTY");
    return ok == 5 && clean ? 0 : 1;
}
