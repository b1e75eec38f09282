/* Inside the 802.15.4 link layer: the MAC's entry points. */
#ifndef WREN_LINK_MAC_PRIV_H
#define WREN_LINK_MAC_PRIV_H

#include "link/ieee802154_link.h"
#include "wire/ieee802154.h"

/* Build the MAC header of a frame from us to @p dst (dst_len 0: broadcast)
 * into @p buf (at least 23 bytes); return its length or -1 (in link.c).
 * A data frame that security applies to is built whole, secured, into one
 * snip that replaces the payload of @p pkt (netif header, payload): the
 * return value is then 0 (no header in buf), or -1 if that failed
 * (counted; pkt unchanged). */
int wren_link_mhr(struct wren_ieee802154_netif *nif, uint8_t type, const uint8_t *dst,
                  uint8_t dst_len, bool ack_req, bool fp, uint8_t seq, uint8_t *buf,
                  struct wren_snip *pkt);

#if CONFIG_WREN_MAC_SOFT

enum { WREN_MAC_IDLE = 0, WREN_MAC_BACKOFF, WREN_MAC_SENDING, WREN_MAC_WAIT_ACK,
       WREN_MAC_RETRY_WAIT, WREN_MAC_FAILED /* securing failed: ends from the timer */ };

void wren_mac_init(struct wren_ieee802154_netif *nif);
/* Take @p pkt (netif header, then the payload snips) from the interface:
 * send it with CSMA-CA, ACK and retries as configured (0: the interface
 * hears of the outcome through wren_netif_tx_done()), hold it for a sleepy
 * child (1), or refuse it while busy (-EBUSY). */
int wren_mac_submit(struct wren_ieee802154_netif *nif, struct wren_snip *pkt);

void wren_mac_tx_event(struct wren_netif *netif, enum wren_netdev_event ev);

enum wren_mac_rx {
    WREN_MAC_RX_DELIVER,   /* a data frame to pass up */
    WREN_MAC_RX_CONSUMED,  /* the MAC's own (an ACK) */
    WREN_MAC_RX_DUP,       /* a retransmission already passed up (ACKed again) */
};
/* A frame for us arrived: acknowledge it if asked, spot duplicates and ACKs. */
enum wren_mac_rx wren_mac_rx(struct wren_ieee802154_netif *nif, const struct ieee802154_frame *f,
                             bool for_us_unicast);

int wren_mac_get(struct wren_ieee802154_netif *nif, uint16_t opt, void *val, size_t max);
int wren_mac_set(struct wren_ieee802154_netif *nif, uint16_t opt, const void *val, size_t len);

/* The radio on (listening) or off; the MAC remembers which. */
void wren_mac_radio_on(struct wren_ieee802154_netif *nif, bool on);

#if CONFIG_WREN_MAC_LPL
/* Low-power listening (ieee802154_lpl.c). */
void wren_mac_lpl_init(struct wren_ieee802154_netif *nif);
/* SET WREN_NETOPT_MAC_LPL: the check interval (0: off, the radio on). */
int wren_mac_lpl_set(struct wren_ieee802154_netif *nif, uint16_t ms);
/* A try of a frame starts (its train, one check interval and a listen
 * window long, starts with its first copy); how long to wait before it
 * (0: now): a unicast to a neighbour whose wake we know waits for it. */
uint32_t wren_mac_lpl_try(struct wren_ieee802154_netif *nif);
/* The frame in progress was acknowledged: its receiver was awake then. */
void wren_mac_lpl_acked(struct wren_ieee802154_netif *nif);
/* A copy went out unacknowledged: whether another should follow. */
bool wren_mac_lpl_again(struct wren_ieee802154_netif *nif);
/* The channel was busy: how long to wait before CCA again (0: CSMA-CA's own backoff). */
uint32_t wren_mac_lpl_busy_us(struct wren_ieee802154_netif *nif);
/* The MAC is idle and nothing more is awaited here: sleep unless listening. */
void wren_mac_lpl_idle(struct wren_ieee802154_netif *nif);
/* A frame for us (or a broadcast) was taken: sleep once the MAC is idle. */
void wren_mac_lpl_got(struct wren_ieee802154_netif *nif);
#endif

#endif /* CONFIG_WREN_MAC_SOFT */

/* Pass a received data frame up (in link.c): @p pkt holds the MPDU parsed
 * into @p f; the payload goes to netreg @p type with a netif header
 * (WREN_NETTYPE_UNDEF: 6LoWPAN or NALP by its first byte). Owns @p pkt. */
void wren_link_deliver(struct wren_ieee802154_netif *nif, struct wren_snip *pkt,
                       const struct ieee802154_frame *f, const struct wren_netdev_rx_info *info,
                       uint8_t type);

#if CONFIG_WREN_TSCH
/* The TSCH MAC (tsch.c, tsch_slot.c), in place of the CSMA one when
 * nif->tsch is set. */
void wren_tsch_init(struct wren_ieee802154_netif *nif);
/* Queue @p pkt (netif header first) for its neighbour: 1 (taken, no TX
 * event follows) or -errno after having dropped it. */
int wren_tsch_submit(struct wren_ieee802154_netif *nif, struct wren_snip *pkt);
/* A received frame (one snip, MPDU without FCS). Owns @p pkt. */
void wren_tsch_recv(struct wren_ieee802154_netif *nif, struct wren_snip *pkt,
                    const struct wren_netdev_rx_info *info);
void wren_tsch_tx_event(struct wren_ieee802154_netif *nif, enum wren_netdev_event ev);
int wren_tsch_get(struct wren_ieee802154_netif *nif, uint16_t opt, void *val, size_t max);
int wren_tsch_set(struct wren_ieee802154_netif *nif, uint16_t opt, const void *val, size_t len);
#endif

#endif
