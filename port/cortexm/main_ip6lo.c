/* Cortex-M3 image: the smallest IP node — 802.15.4, 6LoWPAN, IPv6 and
 * ICMPv6 echo. A neighbour's echo request arrives as a frame on the radio
 * (a stand-in device); the node must answer it. Its linker map is the
 * footprint the size report gives for the IPv6-over-6LoWPAN node. */
#include <stdio.h>
#include <string.h>

#include "core/byteorder.h"
#include "instance.h"
#include "wire/icmpv6_types.h"
#include "wire/ieee802154.h"
#include "wire/inet_csum.h"
#include "wire/ipv6.h"

static size_t echo_request_frame(uint8_t *f)
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
    int n = ieee802154_hdr_emit(&h, f, 32);
    uint8_t *p = f + n;
    *p++ = 0x41; /* uncompressed IPv6 */
    struct ipv6_hdr ip = { .payload_len = 8 + 16, .next = IPV6_NH_ICMPV6, .hop_limit = 64 };
    const uint8_t peer[16] = { 0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 2 };
    const uint8_t self[16] = { 0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 1 };
    memcpy(ip.src, peer, 16);
    memcpy(ip.dst, self, 16);
    ipv6_hdr_emit(&ip, p);
    uint8_t *icmp = p + IPV6_HDR_LEN;
    memset(icmp, 0, 8 + 16);
    icmp[0] = ICMPV6_ECHO_REQUEST;
    put_be16(icmp + 4, 0x4242);
    for (int i = 0; i < 16; i++) {
        icmp[8 + i] = (uint8_t)i;
    }
    struct inet_csum c;
    inet_csum_init(&c);
    inet_csum_pseudo(&c, peer, self, 24, IPV6_NH_ICMPV6);
    inet_csum_update(&c, icmp, 24);
    put_be16(icmp + 2, inet_csum_final(&c));
    return (size_t)n + 1 + IPV6_HDR_LEN + 24;
}

int main(void)
{
    struct wren_node *node = &wren_inst_node;
    if (wren_inst_init(0) < 0 || wren_sixlowpan_init(node, &wren_inst_sixlowpan) < 0 ||
        wren_ipv6_init(node, &wren_inst_ipv6) < 0 || wren_icmpv6_init(node, &wren_inst_icmpv6) < 0 ||
        wren_ipv6_netif_add(&wren_inst_ipv6, wren_inst_netif.netif.id) < 0) {
        return 2;
    }
    uint8_t f[127];
    size_t n = echo_request_frame(f);
    wren_loopback_inject(&wren_inst_dev, f, n);
    wren_rt_cortexm_run_until(&wren_inst_rt, 1000000);
    int clean = wren_pktbuf_is_empty(&node->pktbuf) && wren_pktbuf_is_sane(&node->pktbuf);
    printf("wren cortex-m3 ip6lo: echo requests %lu, replies %lu, frames sent %lu, pktbuf %s\n",
           (unsigned long)wren_inst_icmpv6.stats.rx_echo_req,
           (unsigned long)wren_inst_icmpv6.stats.tx_echo_reply,
           (unsigned long)wren_inst_dev.frames, clean ? "empty" : "NOT EMPTY");
    return wren_inst_icmpv6.stats.tx_echo_reply == 1 && wren_inst_dev.frames == 1 && clean ? 0 : 1;
}
