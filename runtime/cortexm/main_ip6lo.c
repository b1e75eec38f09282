/* Cortex-M3 image: the smallest IP node — 802.15.4, 6LoWPAN, IPv6 and
 * ICMPv6 echo. A neighbour's echo requests arrive as frames on the radio
 * (a stand-in device), one whole and one in fragments; the node must answer
 * both. Its linker map is the footprint the size report gives for the
 * IPv6-over-6LoWPAN node. */
#include <stdio.h>
#include <string.h>

#include "core/byteorder.h"
#include "instance.h"
#include "wire/icmpv6_types.h"
#include "wire/ieee802154.h"
#include "wire/inet_csum.h"
#include "wire/ipv6.h"
#include "wire/sixlowpan.h"

/* The MAC header of a frame from the peer (0x0002) to us (0x0001). */
static size_t mhr(uint8_t *f)
{
    struct ieee802154_hdr h;
    memset(&h, 0, sizeof(h));
    h.type = IEEE802154_TYPE_DATA;
    h.version = IEEE802154_VERSION_2006;
    h.dst_mode = h.src_mode = IEEE802154_ADDR_SHORT;
    h.panid_comp = true;
    h.dst_pan = h.src_pan = 0x0023;
    put_be16(h.dst_addr, 0x0001);
    put_be16(h.src_addr, 0x0002);
    return (size_t)wren_ieee802154_hdr_emit(&h, f, 32);
}

/* An echo request fe80::ff:fe00:2 -> fe80::ff:fe00:1 with @p n bytes of
 * data, as an IPv6 datagram at @p p; returns its length. */
static size_t echo_request(uint8_t *p, size_t n)
{
    struct ipv6_hdr ip = { .payload_len = (uint16_t)(8 + n), .next = IPV6_NH_ICMPV6,
                           .hop_limit = 64 };
    const uint8_t peer[16] = { 0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 2 };
    const uint8_t self[16] = { 0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 1 };
    memcpy(ip.src, peer, 16);
    memcpy(ip.dst, self, 16);
    wren_ipv6_hdr_emit(&ip, p);
    uint8_t *icmp = p + IPV6_HDR_LEN;
    memset(icmp, 0, 8);
    icmp[0] = ICMPV6_ECHO_REQUEST;
    put_be16(icmp + 4, 0x4242);
    for (size_t i = 0; i < n; i++) {
        icmp[8 + i] = (uint8_t)i;
    }
    struct inet_csum c;
    wren_inet_csum_init(&c);
    wren_inet_csum_pseudo(&c, peer, self, (uint32_t)(8 + n), IPV6_NH_ICMPV6);
    wren_inet_csum_update(&c, icmp, 8 + n);
    put_be16(icmp + 2, wren_inet_csum_final(&c));
    return IPV6_HDR_LEN + 8 + n;
}

/* Hand the node a frame and let it answer. */
static int deliver(const uint8_t *f, size_t n)
{
    if (wren_loopback_inject(&wren_inst_dev, f, n) < 0) {
        return -1;
    }
    wren_rt_cortexm_run_until(&wren_inst_rt, wren_inst_rt.now + 100000);
    return 0;
}

int main(void)
{
    static const struct wren_module_ops *const mods[] = {
        &wren_sixlowpan_module, &wren_ipv6_module, &wren_icmpv6_module,
    };
    static void *const states[] = { &wren_inst_sixlowpan, &wren_inst_ipv6, &wren_inst_icmpv6 };
    static const struct wren_stack_iface ifs[] = { WREN_INST_IFACE };
    static const struct wren_stack_desc d = { .ifaces = ifs, .n_ifaces = 1, .mods = mods,
                                              .states = states, .n_mods = 3 };
    struct wren_node *node = &wren_inst_node;
    wren_loopback_setup(&wren_inst_dev, WREN_NETDEV_TYPE_IEEE802154, 125);
    if (wren_inst_init(&d) < 0) {
        return 2;
    }
    /* one frame: uncompressed IPv6 after the MAC header */
    uint8_t f[127];
    size_t h = mhr(f);
    f[h] = SIXLOWPAN_DISPATCH_IPV6_BYTE;
    int bad = deliver(f, h + 1 + echo_request(f + h + 1, 16));
    uint32_t frames_small = wren_inst_dev.frames;
    /* a 248-byte datagram in three fragments (RFC 4944 5.3): reassembled
     * in the one slot, the reply fragmented again */
    static uint8_t dg[IPV6_HDR_LEN + 8 + 200];
    size_t len = echo_request(dg, 200);
    for (size_t off = 0; off < len && !bad; off += 104) {
        struct sixlowpan_frag fr = { .size = (uint16_t)len, .tag = 7, .offset = (uint16_t)off,
                                     .first = off == 0 };
        size_t n = h + (size_t)wren_sixlowpan_frag_emit(&fr, f + h, sizeof(f) - h);
        if (off == 0) {
            f[n++] = SIXLOWPAN_DISPATCH_IPV6_BYTE;
        }
        size_t k = len - off < 104 ? len - off : 104;
        memcpy(f + n, dg + off, k);
        bad = deliver(f, n + k);
    }
    uint32_t frames_big = wren_inst_dev.frames - frames_small;
    int clean = wren_pktbuf_is_empty(&node->pktbuf) && wren_pktbuf_is_sane(&node->pktbuf);
    printf("wren cortex-m3 ip6lo: echo requests %lu, replies %lu, frames sent %lu + %lu "
           "(fragmented), reassembled %lu, pktbuf %s\n",
           (unsigned long)wren_inst_icmpv6.stats.rx_echo_req,
           (unsigned long)wren_inst_icmpv6.stats.tx_echo_reply, (unsigned long)frames_small,
           (unsigned long)frames_big, (unsigned long)wren_inst_sixlowpan.stats.frag_reassembled,
           clean ? "empty" : "NOT EMPTY");
    return !bad && wren_inst_icmpv6.stats.tx_echo_reply == 2 && frames_small == 1 &&
                   frames_big >= 2 && wren_inst_sixlowpan.stats.frag_reassembled == 1 && clean
               ? 0
               : 1;
}
