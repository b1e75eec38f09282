/*
 * A UDP hub between wren-node processes: every datagram a member sends goes
 * to every other member it has heard from (at most 64; when full, the one
 * heard from longest ago makes room), optionally written to a pcap stamped
 * with the kernel's receive time (ns). wren-zep-hub (802.15.4 over ZEP) and
 * wren-lora-hub (LoRa over LoRaTap datagrams) are its two kinds; each says
 * which datagrams are relayed and which bytes of them are the frame.
 */
#ifndef WREN_HOST_UDP_HUB_H
#define WREN_HOST_UDP_HUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wren_udp_hub {
    const char *name;           /**< the program's name, first in every message */
    unsigned long default_port; /**< --port's default */
    const char *pcap_help;      /**< --pcap's line(s) in the usage text */
    uint32_t linktype;          /**< the pcap's LINKTYPE */
    /** whether a datagram is relayed; one that is not only registers its sender */
    bool (*relayed)(const unsigned char *buf, size_t n);
    /** the frame a relayed datagram carries (offset and length), or false */
    bool (*frame)(const unsigned char *buf, size_t n, size_t *off, size_t *len);
};

/** The hub's command line (--port, --pcap, --quiet, --help) and its relay
 *  loop. @return the program's exit status. */
int wren_udp_hub_main(const struct wren_udp_hub *hub, int argc, char **argv);

#endif
