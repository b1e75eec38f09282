/**
 * @file lora_udp.h
 * @brief A LoRa modem netdev that carries its frames over UDP to a hub
 *        (wren-lora-hub), so that wren-node processes share a LoRa channel
 *        and a host-run router joins the LoRa world. Host runtime only.
 *
 * Each datagram is one LoRa frame behind a LoRaTap v0 header
 * (src/wire/loratap.h: frequency, bandwidth, spreading factor, sync word),
 * exactly a record of a LINKTYPE_LORATAP capture. Like the ZEP radio
 * (zep.h), a datagram marks the END of its frame: send() puts the frame on
 * the air for its airtime (src/drivers/lora_phy.h, at wall-clock pace; the
 * device refuses other frames meanwhile, -EBUSY), then the datagram goes to
 * the hub and TX_COMPLETE follows. So frames leave no faster than the air
 * takes them, and the duty-cycle limit (src/drivers/lora_modem.h) refuses
 * and counts (dc_drop) what a real device would not send. A receiver takes
 * a datagram as a frame just received if its frequency, spreading factor,
 * bandwidth and sync word are the device's (else rx_other_channel,
 * rx_other_sync) and it did not overlap the device's own transmission
 * (half duplex: rx_while_tx). Over UDP there is no RF: no path loss, no
 * collisions between senders (the hub relays everything), no RSSI (0).
 *
 * At open the device sends the hub an empty datagram, so that the hub
 * learns the new member before it has anything to say.
 *
 *     static struct wren_lora_udp lu;
 *     char why[160];
 *     if (wren_lora_udp_open(&lu, &host, 17760, "127.0.0.1", 17759, why, sizeof(why)) < 0)
 *         errx(1, "%s", why);
 *     // { .link = &wren_link_lora, .dev = &lu.netdev } in the node's description
 */
#ifndef WREN_HOST_LORA_UDP_H
#define WREN_HOST_LORA_UDP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/counters.h"
#include "core/timer.h"
#include "drivers/lora_modem.h"
#include "host/rt_host.h"
#include "net/netdev.h"
#include "wire/loratap.h"

/** The UDP port wren-lora-hub listens on by default. */
#define WREN_LORA_HUB_PORT 17759
/** Frames heard and not yet handed to the stack. */
#ifndef CONFIG_WREN_LORA_UDP_RX_QUEUE
#define CONFIG_WREN_LORA_UDP_RX_QUEUE 4
#endif

#define WREN_LORA_UDP_COUNTERS(C)                                                      \
    C(tx_frames)          /* frames put on the air */                                  \
    C(tx_airtime_us)      /* their time on the air */                                  \
    C(dc_drop)            /* frames refused: their sub-band closed by the duty cycle */ \
    C(tx_too_long)        /* frames refused: over the setting's and region's limit */   \
    C(tx_errors)          /* sendto() failed: the frame is lost */                     \
    C(rx_packets)         /* datagrams read */                                         \
    C(rx_frames)          /* frames handed to the stack */                             \
    C(rx_malformed)       /* not a LoRaTap record */                                   \
    C(rx_other_channel)   /* another frequency, spreading factor or bandwidth */       \
    C(rx_other_sync)      /* another sync word */                                      \
    C(rx_while_tx)        /* on the air while we sent: lost (half duplex) */           \
    C(rx_overrun)         /* the queue of frames heard was full */

struct wren_lora_udp_stats {
    WREN_LORA_UDP_COUNTERS(WREN_COUNTER_U64)
};

struct wren_lora_udp_rx {
    uint8_t len;
    uint8_t buf[WREN_LORA_MAX_PAYLOAD];
};

struct wren_lora_udp {
    struct wren_netdev netdev; /**< first */
    struct wren_host_fd hfd;
    struct wren_host *host;
    struct sockaddr_storage remote;
    socklen_t remote_len;
    struct wren_lora_modem modem;
    uint8_t state;             /**< enum wren_netopt_state: OFF or IDLE (TX while on_air) */
    bool on_air;
    bool tx_done;              /**< TX_COMPLETE to report */
    uint64_t tx_begin, tx_end; /**< the last transmission, us (wren_host_now) */
    struct wren_timer tx_timer;
    uint16_t tx_len;           /**< LoRaTap header + payload */
    uint8_t tx_buf[LORATAP_V0_LEN + WREN_LORA_MAX_PAYLOAD];
    struct wren_lora_udp_rx rxq[CONFIG_WREN_LORA_UDP_RX_QUEUE];
    unsigned rx_head, rx_count;
    struct wren_lora_udp_stats stats;
};

/**
 * @brief Open the device: bind UDP @p local_port, send to @p remote_host :
 *        @p remote_port (a wren-lora-hub).
 * @param[out] why  on failure, one line naming the cause
 * @return 0 or -errno (-EADDRINUSE: the port is taken; -EINVAL: bad remote).
 */
int wren_lora_udp_open(struct wren_lora_udp *lu, struct wren_host *host, uint16_t local_port,
                       const char *remote_host, uint16_t remote_port, char *why, size_t why_len);

/** @brief Stop watching and close the socket. */
void wren_lora_udp_close(struct wren_lora_udp *lu);

#endif
