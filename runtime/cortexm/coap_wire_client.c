#include "coap_wire_client.h"

#include <string.h>

#include "instance.h"

static const struct wren_sock_udp_ep server = { .addr = { [15] = 1 }, .port = COAP_PORT };
static const uint8_t token[2] = { 0xab, 0xcd };

void coap_wc_get(uint8_t type, uint16_t mid, const char *path, int32_t observe,
                 int32_t block2, const char *query)
{
    uint8_t b[64];
    struct coap_builder bld;
    wren_coap_build_init(&bld, b, sizeof(b), type, COAP_CODE_GET, mid, token, sizeof(token));
    if (observe >= 0) {
        wren_coap_build_opt_uint(&bld, COAP_OPT_OBSERVE, (uint32_t)observe);
    }
    wren_coap_build_opt_path(&bld, COAP_OPT_URI_PATH, path);
    if (query) {
        wren_coap_build_opt_query(&bld, COAP_OPT_URI_QUERY, query);
    }
    if (block2 >= 0) {
        wren_coap_build_opt_uint(&bld, COAP_OPT_BLOCK2, (uint32_t)block2);
    }
    int n = wren_coap_build_end(&bld);
    if (n > 0) {
        wren_sock_udp_send(&wren_inst_sock_cli, b, (size_t)n, &server);
    }
}

void coap_wc_empty(uint8_t type, uint16_t mid)
{
    uint8_t b[COAP_HDR_LEN];
    struct coap_builder bld;
    wren_coap_build_init(&bld, b, sizeof(b), type, COAP_CODE_EMPTY, mid, NULL, 0);
    wren_sock_udp_send(&wren_inst_sock_cli, b, sizeof(b), &server);
}

static uint8_t rxbuf[320]; /* a 300-byte answer fits: main_coap_server_min's /big */

int coap_wc_recv(struct coap_msg *m)
{
    wren_rt_cortexm_run_until(&wren_inst_rt, wren_node_now(&wren_inst_node) + 100000);
    ssize_t n = wren_sock_udp_recv(&wren_inst_sock_cli, rxbuf, sizeof(rxbuf), 0, NULL);
    return n > 0 && wren_coap_parse(rxbuf, (size_t)n, m) == 0 ? 0 : -1;
}

bool coap_wc_content(const struct coap_msg *m, uint8_t type, const char *text, bool obs)
{
    return m->type == type && m->code == COAP_CODE_CONTENT && m->tkl == sizeof(token) &&
           memcmp(m->token, token, sizeof(token)) == 0 && m->payload_len == strlen(text) &&
           memcmp(m->payload, text, m->payload_len) == 0 &&
           obs == wren_coap_opt_find(m, COAP_OPT_OBSERVE, &(struct coap_opt){ 0 });
}

int coap_wc_observe(struct wren_coap *c, const struct wren_coap_resource *r, uint32_t *value)
{
    int ok = 0;
    struct coap_msg m;
    *value = 215;
    coap_wc_get(COAP_CON, 100, r->path, COAP_OBSERVE_REGISTER, -1, NULL);
    ok += coap_wc_recv(&m) == 0 && coap_wc_content(&m, COAP_ACK, "215", true) && m.mid == 100;
    *value = 216; /* the first notification is CON: acknowledged */
    ok += wren_coap_notify(c, r) == 1 && coap_wc_recv(&m) == 0 &&
          coap_wc_content(&m, COAP_CON, "216", true);
    coap_wc_empty(COAP_ACK, m.mid);
    *value = 217; /* then NON within the CON interval */
    ok += wren_coap_notify(c, r) == 1 && coap_wc_recv(&m) == 0 &&
          coap_wc_content(&m, COAP_NON, "217", true);
    coap_wc_get(COAP_CON, 101, r->path, -1, -1, NULL); /* a GET without Observe ends it */
    ok += coap_wc_recv(&m) == 0 && coap_wc_content(&m, COAP_ACK, "217", false) &&
          wren_coap_notify(c, r) == 0;
    return ok;
}
