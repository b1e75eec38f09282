/* Fuzz a whole node's receive path: the input is a sequence of frames
 * (one length byte, then that many bytes), each handed to a simulated node's
 * radio with a valid FCS, so they reach the MAC, 6LoWPAN (reassembly
 * included), IPv6, ICMPv6, neighbor discovery (as a host, a router, the
 * border router or a RPL router), UDP and the raw sink. After
 * every frame the packet buffer must be consistent; once the node has had
 * time to finish what the frames started (answers sent, reassembly timed
 * out), it must be empty. */
#include <stdint.h>
#include <stdlib.h>

#include "core/byteorder.h"
#include "sim/sim.h"
#include "wire/ieee802154.h"
#include "fuzz_modules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wren_sim *s = wren_sim_new(1);
    fuzz_every_module(s);
    wren_sim_add_node(s, 0, 0, 0, 512);
    wren_sim_rawgen(s, 0, -1, 10, 0, 0, 0, 0);
    uint8_t on = 1;
    /* promiscuous half the time, so frames for others go up too */
    if (size && (data[0] & 1)) {
        wren_sim_netopt_set(s, 0, WREN_NETOPT_PROMISCUOUS, &on, 1);
    }
    /* its neighbor discovery role, from bits 1-2: a host, a router with a
     * context, the border router (ABRO), a RPL router (a 6LR once a DIO
     * the input holds lets it join) */
    static const char *const role[4][2] = {
        { NULL, NULL },
        { "nib prefix add 2001:db8::/64 ctx 1", NULL },
        { "nib prefix add 2001:db8::/64 ctx 1", "nib abro 1" },
        { "rpl router", NULL },
    };
    for (unsigned i = 0; size && i < 2; i++) {
        const char *cmd = role[(data[0] >> 1) & 3][i];
        if (cmd && wren_sim_shell(s, 0, cmd) != 0) {
            abort();
        }
    }
    /* NDN: Interests under any name go out on the radio's broadcast face,
     * so the forwarder's PIT and strategy run too */
    if (wren_sim_shell(s, 0, "ndn route add / if 1") != 0) {
        abort();
    }
    size_t off = size ? 1 : 0;
    uint64_t t = 0;
    while (off < size) {
        size_t n = data[off++] % 126;
        if (n > size - off) {
            n = size - off;
        }
        uint8_t psdu[127];
        for (size_t i = 0; i < n; i++) {
            psdu[i] = data[off + i];
        }
        off += n;
        put_le16(psdu + n, wren_ieee802154_fcs(psdu, n));
        wren_sim_inject(s, 0, psdu, n + 2);
        t += 1000;
        wren_sim_run(s, t);
        if (!wren_pktbuf_is_sane(&wren_sim_node(s, 0)->pktbuf)) {
            abort();
        }
    }
    /* longer than the reassembly timeout and any retransmission */
    wren_sim_run(s, t + 30000000);
    struct wren_node *node = wren_sim_node(s, 0);
    if (!wren_pktbuf_is_empty(&node->pktbuf) || !wren_pktbuf_is_sane(&node->pktbuf)) {
        abort();
    }
    wren_sim_free(s);
    return 0;
}
