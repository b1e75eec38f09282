/* Inside the 802.15.4 link layer: the MAC's entry points. */
#ifndef WREN_LINK_MAC_PRIV_H
#define WREN_LINK_MAC_PRIV_H

#include "link/ieee802154_link.h"
#include "wire/ieee802154.h"

void wren_mac_init(struct wren_ieee802154_netif *nif);
/* Take @p pkt (netif header, then the payload snips) whose MAC header is
 * @p mhr and send it with CSMA-CA, ACK and retries as configured; the
 * interface hears of the outcome through wren_netif_tx_done(). */
void wren_mac_send(struct wren_ieee802154_netif *nif, struct wren_snip *pkt, const uint8_t *mhr,
                   uint8_t mhr_len, uint8_t seq, bool ack_req);
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

#endif
