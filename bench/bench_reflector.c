/* Frames through a whole node and back: an application posts a raw frame to
 * an 802.15.4 interface on the L2 reflector; the link layer frames it, the
 * device swaps the addresses and raises its interrupt, the interface reads
 * it into the packet buffer, the link layer parses and dispatches it to the
 * sink. Usage: bench_reflector FRAMES PAYLOAD. Run under callgrind twice
 * with different FRAMES: the difference divided by the difference in frames
 * is the cost of one round trip, without start-up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/node.h"
#include "drivers/loopback.h"
#include "link/ieee802154_link.h"
#include "stack/stack.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "sim/world.h"

struct sink {
    struct wren_module module;
    struct wren_netreg_entry reg;
    unsigned long got;
};

static void sink_handle(struct wren_node *node, struct wren_module *self,
                        const struct wren_msg *msg)
{
    ((struct sink *)self)->got += msg->type == WREN_MSG_RCV;
    wren_pktbuf_release(&node->pktbuf, msg->ptr);
}

static const struct wren_module_ops sink_ops = { .name = "sink", .handle = sink_handle };

int main(int argc, char **argv)
{
    unsigned long frames = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
    size_t payload = argc > 2 ? strtoul(argv[2], NULL, 10) : 20;
    static struct wren_world world;
    static struct wren_node node;
    static _Alignas(8) uint8_t arena[CONFIG_WREN_PKTBUF_SIZE];
    static struct wren_ieee802154_netif nif;
    static struct wren_loopback refl;
    static struct sink sink = { .module = { .ops = &sink_ops, .prio = WREN_PRIO_APP } };
    wren_world_init(&world, 1);
    /* nothing here makes state on first use: the world's rt ops as they are */
    wren_node_init(&node, &wren_world_rt_ops, &world, arena, sizeof(arena), 1, 1);
    wren_reflector_setup(&refl);
    const struct wren_stack_iface ifs[] = {
        { .link = &wren_link_ieee802154, .dev = &refl.netdev, .state = &nif },
    };
    const struct wren_stack_desc d = { .ifaces = ifs, .n_ifaces = 1 };
    if (wren_stack_build(&node, &d, NULL, 0, NULL) < 0) {
        return 2;
    }
    wren_netreg_register(&node, WREN_NETTYPE_UNDEF, WREN_NETREG_DEMUX_ALL, &sink.module,
                         &sink.reg);
    /* short addresses both ways (9-octet MAC headers), as the RIOT paper's
     * micro-benchmark; frames leave from the EUI-64 by default */
    const uint16_t two = 2;
    wren_netapi_set(&node, &nif.netif.module, WREN_NETOPT_ADDR_LEN, 0, &two, sizeof(two));
    const uint8_t peer[2] = { 0x00, 0x02 };
    for (unsigned long i = 0; i < frames; i++) {
        struct wren_snip *pl =
            wren_pktbuf_add(&node.pktbuf, NULL, NULL, payload, WREN_NETTYPE_UNDEF);
        memset(pl->data, 0x3f, payload);
        struct wren_snip *pkt = wren_netif_hdr_add(&node.pktbuf, pl, NULL, 0, peer, 2);
        wren_netapi_send(&node, &nif.netif.module, pkt);
        wren_world_run_until(&world, world.now);
    }
    int clean = wren_pktbuf_is_empty(&node.pktbuf);
    printf("%lu/%lu frames reflected, pktbuf %s\n", sink.got, frames, clean ? "empty" : "LEAK");
    wren_world_destroy(&world);
    return sink.got == frames && clean ? 0 : 1;
}
