/*
 * wren-lora-hub: a LoRa "channel" between wren-node processes (--lora):
 * every datagram (a LoRa frame behind its LoRaTap header, runtime/host/
 * lora_udp.h) goes to every other member it has heard from; an empty
 * datagram only registers its sender (wren-node sends one at start).
 *
 *   wren-lora-hub [--port PORT] [--pcap FILE] [--quiet]
 *
 * Pacing is the senders': a device sends a frame's datagram when the
 * frame's airtime has passed and takes no other frame meanwhile, so the
 * hub relays at once. Frequencies, spreading factors and sync words are the
 * receivers' business; no collisions are made here (frames from two
 * members that overlap both arrive: a whole datagram is a whole frame).
 * --pcap FILE writes each frame as the hub received it, LINKTYPE_LORATAP
 * (270: the datagram is a LoRaTap record as it stands), stamped with the
 * kernel's receive time (ns): the end of the frame's airtime. The hub
 * itself is runtime/host/udp_hub.c, shared with wren-zep-hub.
 */
#include "host/udp_hub.h"

/* an empty datagram only registers its sender (wren-node's hello) */
static bool relayed(const unsigned char *buf, size_t n)
{
    (void)buf;
    return n > 0;
}

/* the datagram is a LoRaTap record as it stands */
static bool frame(const unsigned char *buf, size_t n, size_t *off, size_t *len)
{
    (void)buf;
    *off = 0;
    *len = n;
    return true;
}

int main(int argc, char **argv)
{
    static const struct wren_udp_hub lora = {
        .name = "wren-lora-hub",
        .default_port = 17759, /* WREN_LORA_HUB_PORT */
        .pcap_help = "  --pcap FILE  write the LoRa frames relayed (LoRaTap, LINKTYPE 270), each\n"
                     "               stamped (ns) when it arrived: the end of its airtime\n",
        .linktype = 270, /* LINKTYPE_LORATAP */
        .relayed = relayed,
        .frame = frame,
    };
    return wren_udp_hub_main(&lora, argc, argv);
}
