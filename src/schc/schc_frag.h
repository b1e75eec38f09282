/**
 * @file schc_frag.h
 * @brief SCHC fragmentation and reassembly (RFC 8724 section 8) with the
 *        LoRaWAN profile (RFC 9011 5.6): uplink ACK-on-Error, downlink
 *        ACK-Always.
 *
 * The sender and the receiver are state machines in structs the caller
 * gives (no globals, sizes from CONFIG_WREN_SCHC_MAX_PACKET); they own no
 * timers: the caller asks for the deadline and calls the timeout function
 * at it. Every message they take is parsed by bounds-checked bit readers;
 * a bad one is refused with a reason (enum wren_schc_frag_err) for the
 * caller's counters.
 *
 * Messages (RFC 8724 8.3; DTag T = 0 bits in both profiles):
 * @verbatim
 *  Regular  | rule | W | FCN (first tile's)  | tiles             | pad |
 *  All-1    | rule | W | FCN = 1..1 | RCS 32 | last tile         | pad |
 *  ACK REQ  | rule | W | FCN = 0..0 | pad (no tile)                    |
 *  S-Abort  | rule | W | FCN = 1..1 | pad (no RCS)                     |
 *  ACK      | rule | W | C | bitmap, compressed (8.3.2.1) | pad          |
 *  R-Abort  | rule | W = 1..1 | C = 1 | 1s to the byte, then 0xff        |
 * @endverbatim
 * A window holds WINDOW_SIZE tiles, FCN counting down from WINDOW_SIZE - 1;
 * the bitmap's bit i (left to right) stands for the window's i-th tile,
 * FCN WINDOW_SIZE-1-i, and in the last window the right-most bit for the
 * All-1's tile (8.2.2.3). The last tile always goes in the All-1. The RCS is the CRC32 of IEEE 802.3 (RFC 8724
 * 8.2.3's default) over the SCHC packet.
 */
#ifndef WREN_SCHC_SCHC_FRAG_H
#define WREN_SCHC_SCHC_FRAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Largest SCHC packet fragmented or reassembled, bytes (an IPv6 MTU's
 *  1,280 sent with the no-compression rule: 1,281). */
#ifndef CONFIG_WREN_SCHC_MAX_PACKET
#define CONFIG_WREN_SCHC_MAX_PACKET 1288
#endif
/** Smallest and largest tile a profile may have (bounding the tile bitmaps
 *  and the receiver's copy of the All-1's tile). */
#define WREN_SCHC_MIN_TILE 10
#define WREN_SCHC_MAX_TILE 64
#define WREN_SCHC_MAX_TILES ((CONFIG_WREN_SCHC_MAX_PACKET + WREN_SCHC_MIN_TILE - 1) / WREN_SCHC_MIN_TILE)

/** A fragmentation profile (the parameters RFC 8724 8.2 names, set by a profile). */
struct wren_schc_frag_profile {
    uint8_t rule_id;
    uint8_t m;            /**< bits of W */
    uint8_t n;            /**< bits of FCN */
    uint8_t window;       /**< WINDOW_SIZE, tiles (at most 2^n - 1) */
    uint8_t tile;         /**< bytes, at least WREN_SCHC_MIN_TILE */
    uint8_t ack_always;   /**< 1: ACK-Always, 0: ACK-on-Error */
    uint8_t max_ack_requests;
    uint32_t retrans_ms;  /**< Retransmission Timer */
    uint32_t inactivity_ms; /**< Inactivity Timer */
};

/** RFC 9011 5.6.2, uplink: RuleID 20 (FPortUp), M = 2, N = 6, WINDOW_SIZE
 *  63, tiles of 10 bytes, ACK-on-Error, MAX_ACK_REQUESTS 8, both timers 12
 *  hours (the RECOMMENDED defaults). */
extern const struct wren_schc_frag_profile wren_schc_frag_lorawan_up;
/** RFC 9011 5.6.3, downlink: RuleID 21 (FPortDown), M = 1, N = 1,
 *  WINDOW_SIZE 1, ACK-Always, MAX_ACK_REQUESTS 8, Inactivity Timer 12 hours,
 *  Retransmission Timer a ninth of it; RFC 9011's one tile is whatever the
 *  MTU leaves, here a fixed 40 bytes. */
extern const struct wren_schc_frag_profile wren_schc_frag_lorawan_down;

/** Why a message was refused (returned negated). */
enum wren_schc_frag_err {
    SCHC_FRAG_ERR_TRUNCATED = 1, /**< shorter than its header */
    SCHC_FRAG_ERR_RULE,          /**< not this profile's rule ID */
    SCHC_FRAG_ERR_WINDOW,        /**< a window beyond the packet's or not the one expected */
    SCHC_FRAG_ERR_TILE,          /**< tiles that are not whole, or run past the packet */
    SCHC_FRAG_ERR_RCS,           /**< reassembled, but the RCS does not check: aborted */
    SCHC_FRAG_ERR_ABORTED,       /**< the peer aborted */
    SCHC_FRAG_ERR_STATE,         /**< not expected now (no session, session over) */
    SCHC_FRAG_ERR_TOO_BIG,       /**< sender: packet above the maximum or profile's reach */
    SCHC_FRAG_ERR_GAVE_UP,       /**< sender: MAX_ACK_REQUESTS spent; receiver: inactivity */
};

enum wren_schc_frag_state {
    WREN_SCHC_FRAG_IDLE = 0,
    WREN_SCHC_FRAG_SENDING,  /**< fragments to send (sender) / receiving (receiver) */
    WREN_SCHC_FRAG_WAIT_ACK,
    WREN_SCHC_FRAG_DONE,
    WREN_SCHC_FRAG_ABORTED,  /**< sender: an abort message waits to be sent */
};

/** A sender session. */
struct wren_schc_frag_tx {
    const struct wren_schc_frag_profile *p;
    uint8_t state;
    uint8_t ack_reqs;         /**< ACK REQs sent since the last ACK */
    uint8_t req_pending;      /**< an ACK REQ (or an abort) to send next */
    uint16_t len, ntiles;
    uint16_t next;            /**< the next tile to look at */
    uint32_t deadline;        /**< retransmission timer (WAIT_ACK) */
    uint8_t todo[(WREN_SCHC_MAX_TILES + 7) / 8]; /**< tiles to (re)send */
    uint8_t pkt[CONFIG_WREN_SCHC_MAX_PACKET];
};

/** A receiver session. */
struct wren_schc_frag_rx {
    const struct wren_schc_frag_profile *p;
    uint8_t state;
    uint8_t all1;             /**< the All-1 came */
    uint8_t stale;            /**< the All-1 failed and no tile came since */
    uint8_t last;             /**< bytes of the All-1's tile */
    uint8_t w_done;           /**< W of the All-1 (for repeated C = 1 ACKs) */
    uint16_t len;             /**< the packet's length (DONE) */
    uint16_t window;          /**< ACK-Always: the window expected next */
    uint32_t rcs;
    uint32_t deadline;        /**< inactivity timer */
    uint8_t have[(WREN_SCHC_MAX_TILES + 7) / 8];
    uint8_t lastbuf[WREN_SCHC_MAX_TILE];
    uint8_t pkt[CONFIG_WREN_SCHC_MAX_PACKET];
};

/** @brief Start sending SCHC packet @p pkt (@p len bytes, copied).
 *  @return 0; -SCHC_FRAG_ERR_TOO_BIG. */
int wren_schc_frag_tx_start(struct wren_schc_frag_tx *tx, const struct wren_schc_frag_profile *p,
                            const uint8_t *pkt, size_t len);

/**
 * @brief The next message to send now, into @p out (at most @p mtu bytes).
 * @return its length; 0 when nothing is to be sent before an ACK or the
 *         deadline; -SCHC_FRAG_ERR_TRUNCATED if @p mtu cannot hold a tile.
 */
int wren_schc_frag_tx_next(struct wren_schc_frag_tx *tx, uint32_t now, uint8_t *out, size_t mtu);

/**
 * @brief Take an ACK (or a Receiver-Abort) @p msg of @p len bytes.
 * @return 1 when the packet got through (DONE), 0 when taken (tiles to
 *         resend: call _next), -SCHC_FRAG_ERR_ABORTED (receiver abort),
 *         other negatives for a message refused (state unchanged).
 */
int wren_schc_frag_tx_ack(struct wren_schc_frag_tx *tx, uint32_t now, const uint8_t *msg,
                          size_t len);

/** @brief The retransmission timer went off: an ACK REQ to send, or, after
 *  MAX_ACK_REQUESTS, a Sender-Abort (then the state is ABORTED).
 *  @return 0, or -SCHC_FRAG_ERR_GAVE_UP. */
int wren_schc_frag_tx_timeout(struct wren_schc_frag_tx *tx, uint32_t now);

/** @brief Start a receiver session for profile @p p. */
void wren_schc_frag_rx_start(struct wren_schc_frag_rx *rx, const struct wren_schc_frag_profile *p,
                             uint32_t now);

/**
 * @brief Take fragment @p msg (@p len bytes); an ACK or abort to send back
 *        is written to @p ack (room for 16 bytes), its length in *@p ack_len
 *        (0: none).
 * @return 1 when the packet is whole and checked (rx->pkt, rx->len), 0 when
 *         taken, negative for a message refused or a session aborted.
 */
int wren_schc_frag_rx_input(struct wren_schc_frag_rx *rx, uint32_t now, const uint8_t *msg,
                            size_t len, uint8_t *ack, size_t *ack_len);

/** @brief The inactivity timer went off: a Receiver-Abort into @p ack.
 *  @return -SCHC_FRAG_ERR_GAVE_UP. */
int wren_schc_frag_rx_timeout(struct wren_schc_frag_rx *rx, uint8_t *ack, size_t *ack_len);

/** @brief The CRC32 (IEEE 802.3, reflected 0xEDB88320) of @p len bytes. */
uint32_t wren_schc_crc32(const uint8_t *p, size_t len);

#endif
