/* Fuzz RPL inside a node: the input's first byte picks the node's role (a
 * router or a root, storing or non-storing), then comes a sequence of RPL
 * control messages (one length byte, then the message from its code byte;
 * the top bit of the length byte sends it to the node's link-local address
 * instead of ff02::1a), each put in an IPv6 datagram (IPHC) from a neighbour
 * with a good ICMPv6 checksum and handed to the node's radio in an 802.15.4
 * frame, one simulated second apart. So DIOs that make it join, DAOs that fill its
 * route table, DIS and DAO-ACKs reach RPL's state machine, not only its
 * parser. After every frame the packet buffer must be consistent; once RPL
 * is off and the node has had time to finish, it must be empty. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/byteorder.h"
#include "sim/sim.h"
#include "ipv6/ipv6.h"
#include "net/netopt.h"
#include "wire/icmpv6.h"
#include "wire/ieee802154.h"
#include "wire/rpl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the neighbour: short address 0x0042, link-local fe80::ff:fe00:42; with
 * bit 2 of the first byte set, DAOs come from another one, 0x0043 (a child:
 * a router refuses DAOs from its preferred parent) */
static const uint8_t peer_ll[16] = { 0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 0x42 };
static const uint8_t child_ll[16] = { 0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 0x43 };
static const uint8_t all_rpl[16] = { 0xff, 0x02, [15] = 0x1a };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const roles[4] = {
        "rpl router", "rpl leaf", "rpl root 2001:db8::/64 storing",
        "rpl root 2001:db8::/64 nonstoring mrhof",
    };
    struct wren_sim *s = wren_sim_new(1);
    wren_sim_add_node(s, 0, 0, 0, 0);
    if (wren_sim_shell(s, 0, roles[size ? data[0] & 3 : 0]) != 0) {
        abort();
    }
    /* unicast frames go to the node's EUI-64; its link-local address is
     * derived from it (RFC 4944 6), as the IPHC below elides it */
    uint8_t eui[8] = { 0 }, me[16] = { 0xfe, 0x80 };
    if (wren_sim_netopt_get(s, 0, WREN_NETOPT_ADDRESS_LONG, eui, sizeof(eui)) != 8) {
        abort();
    }
    wren_ipv6_iid_from_l2(me + 8, eui, 8);
    struct wren_node *node = wren_sim_node(s, 0);
    size_t off = size ? 1 : 0;
    uint64_t t = 1000000;
    uint8_t seq = 0;
    while (off < size) {
        uint8_t lb = data[off++];
        bool uni = (lb & 0x80) != 0;
        size_t n = lb & 0x7f;
        if (n > size - off) {
            n = size - off;
        }
        bool child = (data[0] & 4) && n >= 1 && data[off] == RPL_CODE_DAO;
        if (n > 104) {
            n = 104; /* 15 + 3 + 1 + 104 + 2 = 125 */
        }
        /* the frame: 2006 data frame, PAN 0x23, from 0x0042, to the node's
         * EUI-64 or broadcast */
        uint8_t psdu[127];
        size_t k = 0;
        psdu[k++] = 0x41;
        psdu[k++] = uni ? 0x8c : 0x88; /* destination mode: long or short */
        psdu[k++] = seq++;
        put_le16(psdu + k, 0x23);
        k += 2;
        if (uni) {
            for (int i = 0; i < 8; i++) {
                psdu[k++] = eui[7 - i]; /* little-endian on the air */
            }
        } else {
            put_le16(psdu + k, 0xffff);
            k += 2;
        }
        put_le16(psdu + k, child ? 0x0043 : 0x0042);
        k += 2;
        /* RFC 6282 IPHC: traffic class and flow label elided, next header
         * inline, hop limit 255, source from the link address; destination
         * from the link address (unicast) or ff02::1a in 8 bits */
        psdu[k++] = 0x7b;
        psdu[k++] = uni ? 0x33 : 0x3b;
        psdu[k++] = 58;
        if (!uni) {
            psdu[k++] = 0x1a;
        }
        uint8_t *msg = psdu + k;
        msg[0] = ICMPV6_RPL;
        memcpy(msg + 1, data + off, n);
        off += n;
        size_t mlen = 1 + n;
        if (mlen >= 4) {
            msg[2] = msg[3] = 0;
            put_be16(msg + 2, wren_icmpv6_csum(child ? child_ll : peer_ll, uni ? me : all_rpl,
                                               msg, mlen));
        }
        k += mlen;
        put_le16(psdu + k, wren_ieee802154_fcs(psdu, k));
        wren_sim_inject(s, 0, psdu, k + 2);
        t += 1000000;
        wren_sim_run(s, t);
        if (!wren_pktbuf_is_sane(&node->pktbuf)) {
            abort();
        }
    }
    /* RPL off (its timers and frames stop), then longer than any
     * retransmission and the reassembly timeout */
    if (wren_sim_shell(s, 0, "rpl off") != 0) {
        abort();
    }
    wren_sim_run(s, t + 30000000);
    if (!wren_pktbuf_is_empty(&node->pktbuf) || !wren_pktbuf_is_sane(&node->pktbuf)) {
        abort();
    }
    wren_sim_free(s);
    return 0;
}
