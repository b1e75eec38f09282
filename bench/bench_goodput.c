/* Single-hop UDP goodput over the simulated 802.15.4 channel, beside the
 * analytic bound, as in the RIOT paper's figure 8.
 *
 *   bench_goodput nomac|mac SIZE SECONDS [short|long [UPLOAD_US]]
 *
 * Node 0 sends SIZE-byte UDP datagrams to node 1 for SECONDS simulated
 * seconds, keeping its interface's send queue from running dry (a new
 * datagram whenever the queue empties), so the channel is never idle for
 * want of data. "nomac": no CSMA, no ACKs (the interframe space is kept);
 * "mac": unslotted CSMA-CA, ACKs, retries. The bound is the time the same
 * frames need back to back: each frame's airtime (SHR+PHR+PSDU), with
 * "mac" the turnaround and the Imm-Ack after it, then the interframe space
 * (LIFS: every frame here is longer than 18 octets), which after an
 * acknowledged frame runs from the end of its ACK (802.15.4-2015 6.2.4).
 * "short" (the default): frames from and to 16-bit short addresses (9-octet
 * MAC headers). "long": from and to the nodes' EUI-64s (21-octet MAC
 * headers), with addresses whose IIDs are those EUI-64s (SLAAC), as RIOT's
 * 802.15.4 drivers sent by default when the RIOT paper measured (its
 * drivers set NETDEV_IEEE802154_SRC_MODE_LONG at reset). UPLOAD_US: the
 * sender's upload of each frame to its radio before CCA, per full 127-octet
 * frame, pro rata below (wren_sim_set_proc_delay; 0: none). The bound
 * stays the PHY's: the frames on air, without the upload.
 * Prints: mode size seconds datagrams_received goodput_kbps bound_kbps frames
 * mean_psdu_octets (data frames, FCS included). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

static struct wren_sim_node *sn(struct wren_sim *s, uint32_t i)
{
    return s->nodes[i];
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 6 || (argc > 4 && strcmp(argv[4], "short") != 0 &&
                                 strcmp(argv[4], "long") != 0)) {
        fprintf(stderr, "usage: bench_goodput nomac|mac SIZE SECONDS [short|long [UPLOAD_US]]\n");
        return 2;
    }
    int eui64 = argc > 4 && strcmp(argv[4], "long") == 0;
    uint32_t upload_us = argc > 5 ? (uint32_t)strtoul(argv[5], NULL, 10) : 0;
    int mac = strcmp(argv[1], "mac") == 0;
    unsigned size = (unsigned)strtoul(argv[2], NULL, 10);
    double seconds = strtod(argv[3], NULL);
    struct wren_sim *s = wren_sim_new(1);
    if (upload_us) {
        wren_sim_set_proc_delay(s, -1, upload_us);
    }
    wren_sim_add_node(s, 0, 0, 0, 0);
    wren_sim_add_node(s, 10, 0, 0, 0);
    wren_sim_set_link(s, 0, 1, 1.0);
    wren_sim_set_link(s, 1, 0, 1.0);
    for (uint32_t i = 0; i < 2; i++) {
        uint8_t v = (uint8_t)mac;
        wren_sim_netopt_set(s, i, WREN_NETOPT_CSMA, &v, 1);
        wren_sim_netopt_set(s, i, WREN_NETOPT_ACK_REQ, &v, 1);
    }
    if (eui64) {
        /* the SLAAC addresses from the EUI-64s (02:57:52:ff:fe:00:00:0N) */
        wren_sim_shell(s, 0, "ifconfig 1 add 2001:db8::57:52ff:fe00:0/64");
        wren_sim_shell(s, 1, "ifconfig 1 add 2001:db8::57:52ff:fe00:1/64");
    } else {
        /* frames from and to the short addresses (9-octet MAC headers),
         * whose IIDs these global addresses carry */
        wren_sim_shell(s, 0, "ifconfig 1 l2src short");
        wren_sim_shell(s, 1, "ifconfig 1 l2src short");
        wren_sim_shell(s, 0, "ifconfig 1 add 2001:db8::ff:fe00:0/64");
        wren_sim_shell(s, 1, "ifconfig 1 add 2001:db8::ff:fe00:1/64");
    }
    wren_sim_shell(s, 0, "fib add 2001:db8::/64 dev 1");
    wren_sim_shell(s, 1, "udp server start 50123 sink");
    struct wren_sock_udp sock;
    wren_sock_udp_create(&sn(s, 0)->node, &sock, NULL, NULL);
    struct wren_sock_udp_ep to = { .port = 50123 };
    to.addr[0] = 0x20;
    to.addr[1] = 0x01;
    to.addr[2] = 0x0d;
    to.addr[3] = 0xb8;
    if (eui64) {
        to.addr[9] = 0x57;
        to.addr[10] = 0x52;
    }
    to.addr[11] = 0xff;
    to.addr[12] = 0xfe;
    to.addr[15] = 1;
    static uint8_t data[1232];
    wren_udp_pattern(data, size);
    uint64_t end = (uint64_t)(seconds * 1e6);
    struct wren_netif *netif = &sn(s, 0)->netif.netif;
    uint64_t sent = 0;
    while (wren_sim_now(s) < end) {
        if (netif->txq_len == 0) {
            if (wren_sock_udp_send(&sock, data, size, &to) == (ssize_t)size) {
                sent++;
            }
        }
        wren_sim_run(s, wren_sim_now(s) + 10);
    }
    const struct wren_udp_server *srv = &sn(s, 1)->shell->server; /* its `udp server` made it */
    const struct wren_sim_radio_stats *rs = &sn(s, 0)->radio.stats;
    /* the bound: the sender's frames back to back, each followed by its
     * Imm-Ack if it asks for one (aTurnaroundTime, 192 us, then 6 + 5
     * octets), then LIFS (640 us) */
    uint64_t frames = sn(s, 0)->netif.mac.stats.tx_attempts;
    uint64_t data_bytes = rs->tx_bytes - 5u * (rs->tx_frames - frames); /* less the ACKs it sent */
    double after_us = 640.0 + (mac ? 192.0 + 11.0 * 32.0 : 0.0);
    double per_frame_us =
        frames ? ((double)(data_bytes + 6 * frames) * 32.0 + after_us * (double)frames) / (double)frames
               : 0;
    double frames_per_dgram = sent ? (double)frames / (double)sent : 0;
    double bound_kbps = frames ? size * 8.0 / (frames_per_dgram * per_frame_us) * 1000.0 : 0;
    double goodput_kbps = (double)srv->received * size * 8.0 / seconds / 1000.0;
    double mean_psdu = frames ? (double)data_bytes / (double)frames : 0;
    printf("%s %u %.1f %lu %.2f %.2f %lu %.1f\n", argv[1], size, seconds,
           (unsigned long)srv->received, goodput_kbps, bound_kbps, (unsigned long)frames, mean_psdu);
    wren_sock_udp_close(&sock);
    wren_sim_free(s);
    return 0;
}
