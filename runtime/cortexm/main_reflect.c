/* Cortex-M3 image: a node with an 802.15.4 interface over the L2 reflector.
 * An application thread sends frames of growing size, sleeping between
 * them; each comes back through the whole receive path and is checked.
 * Prints a summary over semihosting and exits 0 if every frame returned
 * intact and the packet buffer is empty. */
#include <stdio.h>
#include <string.h>

#include "core/module.h"
#include "core/thread.h"
#include "instance.h"
#include "net/netapi.h"
#include "net/netif.h"

#define FRAMES 20

struct sink {
    struct wren_module module;
    struct wren_netreg_entry reg;
    unsigned received;
    unsigned bad;
};

static struct sink sink;
static struct wren_thread sender;
static _Alignas(8) uint8_t sender_stack[1024];

static void sink_handle(struct wren_node *node, struct wren_module *self,
                        const struct wren_msg *msg)
{
    struct sink *s = (struct sink *)self;
    struct wren_snip *pkt = msg->ptr;
    if (msg->type == WREN_MSG_RCV) {
        unsigned ok = pkt->size >= 2 && pkt->data[0] == 0x3f;
        for (unsigned i = 1; ok && i < pkt->size; i++) {
            ok = pkt->data[i] == (uint8_t)(i * 3u + pkt->size);
        }
        ok ? s->received++ : s->bad++;
    }
    wren_pktbuf_release(&node->pktbuf, pkt);
}

static const struct wren_module_ops sink_ops = { .name = "sink", .handle = sink_handle };

static void send_frames(void *arg)
{
    (void)arg;
    struct wren_node *node = &wren_inst_node;
    const uint8_t peer[2] = { 0x00, 0x02 };
    for (unsigned n = 0; n < FRAMES; n++) {
        size_t len = 2 + n * 5;
        struct wren_snip *pl = wren_pktbuf_add(&node->pktbuf, NULL, NULL, len, WREN_NETTYPE_UNDEF);
        if (pl == NULL) {
            continue;
        }
        pl->data[0] = 0x3f; /* NALP */
        for (unsigned i = 1; i < len; i++) {
            pl->data[i] = (uint8_t)(i * 3u + len);
        }
        struct wren_snip *pkt = wren_netif_hdr_add(&node->pktbuf, pl, NULL, 0, peer, 2);
        if (pkt == NULL) {
            wren_pktbuf_release(&node->pktbuf, pl);
            continue;
        }
        wren_netapi_send(node, &wren_inst_netif.netif.module, pkt);
        wren_thread_sleep(node, 10000);
    }
}

int main(void)
{
    struct wren_node *node = &wren_inst_node;
    static const struct wren_stack_iface ifs[] = { WREN_INST_IFACE };
    static const struct wren_stack_desc d = { .ifaces = ifs, .n_ifaces = 1 };
    wren_reflector_setup(&wren_inst_dev);
    if (wren_inst_init(&d) < 0) {
        return 2;
    }
    sink.module.ops = &sink_ops;
    sink.module.prio = WREN_PRIO_APP;
    wren_netreg_register(node, WREN_NETTYPE_UNDEF, WREN_NETREG_DEMUX_ALL, &sink.module, &sink.reg);
    wren_thread_start(node, &sender, sender_stack, sizeof(sender_stack), send_frames, NULL,
                      "sender");
    wren_rt_cortexm_run_until(&wren_inst_rt, 10000000);
    int clean = wren_pktbuf_is_empty(&node->pktbuf) && wren_pktbuf_is_sane(&node->pktbuf);
    printf("wren cortex-m3: %u/%u frames reflected intact, %u bad, t=%lu us, pktbuf %s, "
           "high water %lu bytes\n",
           sink.received, FRAMES, sink.bad, (unsigned long)wren_inst_rt.now,
           clean ? "empty" : "NOT EMPTY", (unsigned long)node->pktbuf.stats.high_water);
    return sink.received == FRAMES && sink.bad == 0 && clean && sender.state == WREN_THREAD_DONE
               ? 0
               : 1;
}
