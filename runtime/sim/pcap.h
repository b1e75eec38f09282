/**
 * @file pcap.h
 * @brief pcap capture files with virtual timestamps.
 */
#ifndef WREN_SIM_PCAP_H
#define WREN_SIM_PCAP_H

#include <stdint.h>
#include <stdio.h>

/** LINKTYPE_IEEE802_15_4_WITHFCS: 802.15.4 PSDU including the FCS. */
#define WREN_PCAP_LINKTYPE_IEEE802154_FCS 195

struct wren_pcap {
    FILE *f;
    uint64_t frames;
};

/** @brief Create @p path with a pcap header. @return 0 or -errno. */
int wren_pcap_open(struct wren_pcap *p, const char *path, uint32_t linktype);
/** @brief Append one frame captured at @p ts_us. */
void wren_pcap_write(struct wren_pcap *p, uint64_t ts_us, const uint8_t *data, size_t len);
/** @brief Flush and close. */
void wren_pcap_close(struct wren_pcap *p);

#endif
