/**
 * @file zep.h
 * @brief An 802.15.4 radio netdev that carries frames in ZEP v2 over UDP
 *        (src/wire/zep.h), so several host processes share one channel
 *        and Wireshark dissects the traffic. Host runtime only (Linux).
 *
 * Like a transceiver, the device appends the FCS on TX and checks and
 * strips it on RX; it sends in CRC mode (the LQI/CRC byte 1), on its
 * channel, with its device id (the node id) and a per-device sequence
 * number, to one remote address: a dispatcher (wren-zep-hub, which forwards
 * each packet to every other process it has heard from) or a peer. It
 * receives on a bound local port and drops, with a counter each, packets
 * that do not parse, acknowledgements, other channels and bad FCSs. It is a
 * wire to the MAC (WREN_NETOPT_IS_WIRED): no CSMA, no ACK frames.
 *
 * At open it sends the remote one ZEP acknowledgement packet (8 bytes) so
 * that a dispatcher learns the new member before it has anything to say.
 *
 *     static struct wren_zep zep;
 *     char why[160];
 *     if (wren_zep_open(&zep, &host, 17755, "127.0.0.1", 17754, id, why, sizeof(why)) < 0)
 *         errx(1, "%s", why);
 *     // an interface of the node (src/stack/stack.h):
 *     // { .link = &wren_link_ieee802154, .dev = &zep.netdev } in its description
 */
#ifndef WREN_DRIVERS_ZEP_H
#define WREN_DRIVERS_ZEP_H

#include "core/counters.h"
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "host/rt_host.h"
#include "net/netdev.h"
#include "wire/zep.h"

#define WREN_ZEP_COUNTERS(C)                                                           \
    C(rx_packets)          /* datagrams read */                                        \
    C(rx_frames)           /* frames handed to the stack */                            \
    C(rx_malformed)        /* not a ZEP v2 packet, or a PSDU too short for an FCS */   \
    C(rx_acks)             /* ZEP acknowledgements (ignored) */                        \
    C(rx_other_channel)                                                                \
    C(rx_bad_fcs)                                                                      \
    C(rx_overrun)          /* a datagram arrived while a frame waited: left queued */  \
    C(tx_frames)                                                                       \
    C(tx_errors)           /* sendto() failed: the frame is lost */

struct wren_zep_stats {
    WREN_ZEP_COUNTERS(WREN_COUNTER_U32)
};

struct wren_zep {
    struct wren_netdev netdev; /**< first */
    struct wren_host_fd hfd;
    struct wren_host *host;
    struct sockaddr_storage remote; /**< where frames go */
    socklen_t remote_len;
    uint16_t channel; /**< 11..26 */
    uint16_t device_id;
    uint8_t short_addr[2]; /**< network order */
    uint8_t long_addr[8];  /**< EUI-64, network order */
    uint32_t seq;
    bool rx_pending;
    bool tx_done;
    uint8_t rx_len;
    uint8_t rx_lqi;
    struct wren_zep_stats stats;
    uint8_t rx_buf[ZEP_MAX_PSDU];
};

/**
 * @brief Open a ZEP radio: bind UDP @p local_port, send to @p remote_host :
 *        @p remote_port. Node @p id gives the device id, the short address
 *        (id) and the EUI-64 (02:00:00:00 and id, 32 bits), as in the sim.
 * @param[out] why  on failure, one line naming the cause
 * @return 0 or -errno (-EADDRINUSE: the port is taken; -EINVAL: bad remote).
 */
int wren_zep_open(struct wren_zep *zep, struct wren_host *host, uint16_t local_port,
                  const char *remote_host, uint16_t remote_port, uint16_t id, char *why,
                  size_t why_len);

/** @brief Stop watching and close the socket. */
void wren_zep_close(struct wren_zep *zep);

#endif
