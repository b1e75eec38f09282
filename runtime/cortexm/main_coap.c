/* Cortex-M3 image: the CoAP module (server with its default resources,
 * Block1/Block2, observe, and the client) on sock_udp over the IPv6
 * loopback. The client talks to the node's own server: 16 KiB of /pattern
 * in Block2 blocks, 2,000 bytes PUT in Block1 blocks, an observation of
 * /counter through three POSTs. Its linker map gives the CoAP module's
 * ROM and RAM (./wren size: rom_coap_full_bytes). */
#include <stdio.h>
#include <string.h>

#include "coap/coap.h"
#include "instance.h"



static struct {
    size_t bytes;
    int final, notes;
    uint8_t code;
} got;

static void cb(struct wren_coap *c, int status, const struct coap_msg *m, void *arg)
{
    (void)c;
    (void)arg;
    if (m) {
        got.bytes += m->payload_len;
        got.code = m->code;
        got.notes += status > 0 && wren_coap_opt_find(m, COAP_OPT_OBSERVE, &(struct coap_opt){ 0 });
    }
    got.final += status <= 0;
}

static size_t source(void *arg, size_t off, uint8_t *buf, size_t max)
{
    (void)arg;
    for (size_t i = 0; i < max; i++) {
        buf[i] = (uint8_t)((off + i) % 251u);
    }
    return max;
}

static int request(const struct wren_coap_client_req *rq)
{
    static const struct wren_sock_udp_ep self = { .addr = { [15] = 1 }, .port = COAP_PORT };
    memset(&got, 0, sizeof(got));
    int x = wren_coap_request(&wren_inst_coap, &self, rq, cb, NULL);
    wren_rt_cortexm_run_until(&wren_inst_rt, wren_node_now(&wren_inst_node) + 1000000);
    return x;
}

int main(void)
{
    static const struct wren_module_ops *const mods[] = {
        &wren_ipv6_module, &wren_icmpv6_module, &wren_udp_module, &wren_coap_module,
    };
    static void *const states[] = { &wren_inst_ipv6, &wren_inst_icmpv6, &wren_inst_udp,
                                    &wren_inst_coap };
    static const struct wren_stack_desc d = { .mods = mods, .states = states, .n_mods = 4 };
    if (wren_inst_init(&d) < 0) {
        return 2;
    }
    int ok = 0;
    struct wren_coap_client_req rq = { .method = COAP_CODE_GET, .path = "/pattern", .cf = -1,
                                       .accept = -1 };
    request(&rq);
    ok += got.final == 1 && got.code == COAP_CODE_CONTENT && got.bytes == 16384;
    rq = (struct wren_coap_client_req){ .method = COAP_CODE_PUT, .path = "/pattern", .cf = -1,
                                        .accept = -1, .len = 2000, .source = source };
    request(&rq);
    ok += got.final == 1 && got.code == COAP_CODE_CHANGED && wren_inst_coap.pattern_len == 2000;
    rq = (struct wren_coap_client_req){ .method = COAP_CODE_GET, .path = "/counter", .cf = -1,
                                        .accept = -1, .observe = true };
    int x = request(&rq);
    for (int i = 0; i < 3; i++) {
        struct wren_coap_client_req post = { .method = COAP_CODE_POST, .path = "/counter",
                                             .cf = -1, .accept = -1 };
        static const struct wren_sock_udp_ep self = { .addr = { [15] = 1 }, .port = COAP_PORT };
        wren_coap_request(&wren_inst_coap, &self, &post, NULL, NULL);
        wren_rt_cortexm_run_until(&wren_inst_rt, wren_node_now(&wren_inst_node) + 1000000);
    }
    ok += got.notes == 4 && wren_inst_coap.counter == 3;
    wren_coap_cancel(&wren_inst_coap, x);
    struct wren_node *node = &wren_inst_node;
    wren_rt_cortexm_run_until(&wren_inst_rt, wren_node_now(node) + 1000000);
    int clean = wren_pktbuf_is_empty(&node->pktbuf) && wren_pktbuf_is_sane(&node->pktbuf);
    printf("wren cortex-m3 coap: %d/3 exchanges, pktbuf %s\n", ok, clean ? "empty" : "NOT EMPTY");
    return ok == 3 && clean ? 0 : 1;
}
