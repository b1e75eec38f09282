/*
 * wren-zep-hub: a ZEP dispatcher, so that several wren-node processes (or
 * RIOT native instances) share one 802.15.4 channel over UDP.
 *
 *   wren-zep-hub [--port PORT] [--pcap FILE] [--quiet]
 *
 * It listens on UDP PORT (default 17754, on IPv6 and IPv4) and forwards
 * every ZEP data packet to every other sender it has heard from; a ZEP
 * acknowledgement packet only registers its sender (wren-node sends one at
 * start). Nothing is parsed beyond the type byte: channels, FCSs and the
 * rest are the receivers' business. SIGINT/SIGTERM end it.
 *
 * --pcap FILE writes every ZEP data packet's 802.15.4 frame (with its FCS,
 * LINKTYPE 195) as the hub received it, stamped with the kernel's receive
 * time in nanoseconds. A ZEP datagram marks the END of its frame (RX-done,
 * as wren's ZEP radio, RIOT's socket_zep and Contiki-NG send it), so each
 * record's time is when its frame ended on the air as seen from the hub;
 * the frame began its airtime ((6 + length) * 32 us) before. That is the
 * channel for measuring interframe spaces (end to next start) and ACK
 * turnarounds (frame's end to ACK's end) on the wire. Each record is
 * flushed as it is written. The hub itself is runtime/host/udp_hub.c,
 * shared with wren-lora-hub.
 */
#include "host/udp_hub.h"

/* a ZEP acknowledgement (EX, version, type 2) only registers its sender */
static bool relayed(const unsigned char *buf, size_t n)
{
    return !(n >= 4 && buf[0] == 'E' && buf[1] == 'X' && buf[3] == 2);
}

/* The frame of a ZEP v2 data packet (header 32 bytes, length at 31), if it is one. */
static bool frame(const unsigned char *buf, size_t n, size_t *off, size_t *len)
{
    if (n < 32 || buf[0] != 'E' || buf[1] != 'X' || buf[2] != 2 || buf[3] != 1 ||
        (size_t)buf[31] + 32 > n) {
        return false;
    }
    *off = 32;
    *len = buf[31];
    return true;
}

int main(int argc, char **argv)
{
    static const struct wren_udp_hub zep = {
        .name = "wren-zep-hub",
        .default_port = 17754,
        .pcap_help = "  --pcap FILE  write the 802.15.4 frames received, each stamped (ns) when\n"
                     "               it arrived: the end of the frame's airtime\n",
        .linktype = 195, /* IEEE 802.15.4 with FCS */
        .relayed = relayed,
        .frame = frame,
    };
    return wren_udp_hub_main(&zep, argc, argv);
}
