/**
 * @file ieee802154_sec.h
 * @brief 802.15.4 security in the link layer (IEEE 802.15.4-2015 9): the
 *        outgoing and incoming frame security procedures with AES-128
 *        CCM* (crypto/ccm.h), keys, security levels per frame type, frame
 *        counters and replay protection, for the CSMA MAC and for TSCH.
 *
 * Per interface: a table of keys, each named by its key index (key
 * identifier mode 1, 9.4.4: the key source is macDefaultKeySource, not
 * sent); per frame type (beacon, data, ACK, command) the security level
 * and the key of outgoing frames, which is also the least level accepted
 * on incoming ones (levels compare as 9.2.5 says: at least as much MIC
 * and encryption if required); one outgoing frame counter; and a bounded
 * table of the highest frame counter accepted per neighbour (by EUI-64).
 * The minimal 6TiSCH configuration (RFC 8180 6, RFC 9031 keys K1/K2)
 * is: beacons level 1 (MIC-32) with key 1 (K1); data and ACKs level 5
 * (ENC-MIC-32) with key 2 (K2).
 *
 * Nonce (9.3.2.2): the sender's EUI-64, then the frame counter
 * (big-endian) and the security level; or, for TSCH frames (the ASN in
 * nonce bit), the EUI-64 and the 5-byte ASN (big-endian). So secured
 * frames always leave from the EUI-64, and a secured frame from a short
 * address is dropped (rx_no_src): its sender's EUI-64 is unknown.
 *
 * What is encrypted (levels 4-7): the payload IEs and the MAC payload;
 * the MHR (auxiliary security header included), the header IEs with their
 * termination IE, and a command frame's identifier are authenticated only.
 * Levels 1-3 authenticate the whole frame.
 *
 * Replay protection: a frame counter must be above the highest one
 * accepted from that neighbour. The same counter again is the sender's
 * retransmission of that frame after a lost ACK (MAC retries reuse the
 * secured frame): once its MIC holds, it is reported apart (1), for the
 * MAC to acknowledge and drop as a duplicate. Security runs before the MAC's duplicate
 * detection, so a forged frame never enters the MAC's table of recent
 * sequence numbers (where it would make the genuine frame a duplicate). A neighbour enters the table
 * with its first frame that passes the MIC check; when the table is full
 * a new neighbour's frames are dropped (rx_nbr_full) rather than evicting
 * one whose counter then could be replayed. TSCH frames with the ASN in
 * the nonce skip the counter check: the ASN of the slot makes them fresh;
 * so they are taken only on a TSCH link (the caller gives the slot's ASN):
 * on a CSMA link, which has no ASN, they are dropped (rx_asn_not_tsch),
 * and every secured frame there passes the counter check.
 *
 * How the TSCH MAC uses it (frames it builds itself in flat buffers):
 * @code
 *   // TX (EB, data or Enh-ACK): security fields from the policy of h.type
 *   int mic = wren_ieee802154_sec_prepare(nif, &h, true); // < 0: drop
 *   f.hdr = h; ... n = wren_ieee802154_emit(&f, buf, 125); // MIC zeros
 *   if (mic > 0)
 *       wren_ieee802154_sec_secure(nif, &h, asn, buf, open_len, n); // open_len:
 *       // MHR + header IEs + HT1/HT2 (the payload IEs and payload are encrypted)
 *   // RX, after wren_ieee802154_parse(buf, len, &f) into a writable buf:
 *   if (wren_ieee802154_sec_unsecure(nif, &f, buf, len, src, &asn) < 0)
 *       drop; // counted; src: the sender's EUI-64 (an Enh-ACK has no source
 *             // address: the neighbour the ACKed frame went to), NULL for
 *             // the frame's own extended source
 *   // f.payload_ie / f.payload now hold plaintext (re-walk the payload IEs)
 * @endcode
 */
#ifndef WREN_LINK_IEEE802154_SEC_H
#define WREN_LINK_IEEE802154_SEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"
#include "core/counters.h"
#include "wire/ieee802154.h"

/** Keys per interface (the minimal 6TiSCH configuration has two). */
#ifndef CONFIG_WREN_IEEE802154_SEC_KEYS
#define CONFIG_WREN_IEEE802154_SEC_KEYS 2
#endif
/** Neighbours whose frame counters an interface remembers (16 bytes each). */
#ifndef CONFIG_WREN_IEEE802154_SEC_NEIGHBOURS
#define CONFIG_WREN_IEEE802154_SEC_NEIGHBOURS 8
#endif

_Static_assert(!CONFIG_WREN_IEEE802154_SEC || CONFIG_WREN_IEEE802154_SECURITY,
               "link-layer security needs the auxiliary security header (wire)");
_Static_assert(CONFIG_WREN_IEEE802154_SEC_KEYS > 0 && CONFIG_WREN_IEEE802154_SEC_NEIGHBOURS > 0,
               "at least one key and one neighbour");

/** Security levels (802.15.4-2015 Table 9-6). */
enum {
    WREN_SEC_NONE = 0,
    WREN_SEC_MIC32 = 1,
    WREN_SEC_MIC64 = 2,
    WREN_SEC_MIC128 = 3,
    WREN_SEC_ENC = 4, /**< 802.15.4-2006 only (reserved in 2015): no MIC */
    WREN_SEC_ENC_MIC32 = 5,
    WREN_SEC_ENC_MIC64 = 6,
    WREN_SEC_ENC_MIC128 = 7,
};

/** Counters of the security procedures; every drop has its reason. */
#define WREN_SEC_COUNTERS(C)                                                              \
    C(tx_secured)     /* frames secured */                                                \
    C(tx_no_key)      /* not sent: the key of their frame type is not set */              \
    C(tx_counter_end) /* not sent: the frame counter reached 0xffffffff (9.3.3) */        \
    C(tx_nobuf)       /* not sent: no packet buffer for the secured frame */              \
    C(rx_secured)     /* secured frames that passed (MIC, counter) */                     \
    C(rx_no_key)      /* dropped: no key with that key identifier */                      \
    C(rx_bad_mic)     /* dropped: the MIC did not match */                                \
    C(rx_replay)      /* dropped: frame counter not above the neighbour's last one */     \
    C(rx_level)       /* dropped: unsecured or secured below the level required */        \
    C(rx_malformed)   /* dropped: bad auxiliary header (level 0, no counter, ...) */      \
    C(rx_no_src)      /* dropped: no EUI-64 of the sender for the nonce */                \
    C(rx_nbr_full)    /* dropped: a new neighbour and its counter table is full */       \
    C(rx_asn_not_tsch) /* dropped: ASN in the nonce on a link without slots (CSMA) */ \
    WREN_SEC_COUNTERS_MEM(C)

/* with the tables made on first use (core/config.h CONFIG_WREN_NODE_MEM) */
#if CONFIG_WREN_NODE_MEM
#define WREN_SEC_COUNTERS_MEM(C) \
    C(no_mem)         /* keys refused: no memory for the key and counter tables */
#else
#define WREN_SEC_COUNTERS_MEM(C)
#endif

struct wren_ieee802154_sec_stats {
    WREN_SEC_COUNTERS(WREN_COUNTER_U32)
};

/** A key (SET WREN_NETOPT_SEC_KEY); also its slot in the table. */
struct wren_ieee802154_sec_key {
    uint8_t index;   /**< key index (key identifier mode 1), 1..255; 0: free slot */
    uint8_t key[16]; /**< AES-128 key */
};

/** The security of one frame type (SET/GET WREN_NETOPT_SEC_LEVEL). */
struct wren_ieee802154_sec_policy {
    uint8_t frame_type; /**< IEEE802154_TYPE_BEACON / DATA / ACK / CMD */
    uint8_t level;      /**< WREN_SEC_*: outgoing, and the least accepted */
    uint8_t key_index;  /**< key of outgoing frames (1..255) */
};

struct wren_ieee802154_sec_nbr {
    uint8_t addr[8];  /**< EUI-64 */
    uint32_t counter; /**< highest frame counter accepted */
    bool used;
};

#if CONFIG_WREN_NODE_MEM
/** The key and neighbour-counter tables, made by the first key set (with
 *  CONFIG_WREN_NODE_MEM 0, part of struct wren_ieee802154_sec). */
struct wren_ieee802154_sec_tab {
    struct wren_ieee802154_sec_key keys[CONFIG_WREN_IEEE802154_SEC_KEYS];
    struct wren_ieee802154_sec_nbr nbrs[CONFIG_WREN_IEEE802154_SEC_NEIGHBOURS];
};
#endif

/** An interface's security state (in struct wren_ieee802154_netif). */
struct wren_ieee802154_sec {
#if CONFIG_WREN_NODE_MEM
    struct wren_ieee802154_sec_key *keys; /**< the tab's (NULL: no key set yet) */
    struct wren_ieee802154_sec_nbr *nbrs; /**< the tab's */
#else
    struct wren_ieee802154_sec_key keys[CONFIG_WREN_IEEE802154_SEC_KEYS];
    struct wren_ieee802154_sec_nbr nbrs[CONFIG_WREN_IEEE802154_SEC_NEIGHBOURS];
#endif
    uint32_t frame_counter; /**< of the next secured frame */
    uint8_t level[4];       /**< per frame type */
    uint8_t key_index[4];
    struct wren_ieee802154_sec_stats stats;
};

struct wren_ieee802154_netif;

/**
 * @brief Bytes that security adds to an outgoing frame of @p type
 *        (auxiliary security header and MIC).
 * @return 0 if frames of that type leave unsecured.
 */
size_t wren_ieee802154_sec_overhead(const struct wren_ieee802154_netif *nif, uint8_t type);

/**
 * @brief Outgoing frame security, step 1: fill the security fields of @p h
 *        (security, level, key identifier mode 1 and key index, frame
 *        counter) from the policy of h->type, taking the next frame counter.
 *        For frames of a type sent unsecured, h is left as is.
 * @param[in]     nif  The interface.
 * @param[in,out] h    Header being built (type and version set); secured
 *                     frames leave from the EUI-64: src_mode must be
 *                     IEEE802154_ADDR_EXT (-EINVAL otherwise), or NONE
 *                     (an Enh-ACK, whose receiver knows the sender).
 * @param[in]     tsch TSCH frame (version 2 only): the ASN goes into the
 *                     nonce, the frame counter is suppressed.
 * @return The MIC length to leave room for (0, 4, 8 or 16); 0 with h
 *         unchanged if the type is sent unsecured.
 * @return -ENOENT if the type's key is not set (counted tx_no_key).
 * @return -EOVERFLOW if the frame counter is exhausted (tx_counter_end).
 * @return -EINVAL for a short source address, or tsch with version < 2.
 */
int wren_ieee802154_sec_prepare(struct wren_ieee802154_netif *nif, struct ieee802154_hdr *h,
                                bool tsch);

/**
 * @brief Outgoing frame security, step 2: seal an emitted MPDU (no FCS)
 *        in place: encrypt what follows the first @p open_len bytes (levels
 *        4-7), write the MIC into its last bytes.
 * @param[in]     nif      The interface (its key and EUI-64).
 * @param[in]     h        The header, as prepared by
 *                         wren_ieee802154_sec_prepare().
 * @param[in]     asn      Absolute slot number of the frame, if h->asn_in_nonce.
 * @param[in,out] mpdu     The frame, its MIC (zeros) included.
 * @param[in]     open_len Bytes authenticated only with encryption: MHR,
 *                         header IEs and their termination IE, a command
 *                         frame's identifier (ignored for levels 1-3).
 * @param[in]     len      Bytes in @p mpdu.
 * @return 0, or -ENOENT if the key went away, -EINVAL if @p len cannot
 *         hold @p open_len and the MIC.
 */
int wren_ieee802154_sec_secure(struct wren_ieee802154_netif *nif, const struct ieee802154_hdr *h,
                               uint64_t asn, uint8_t *mpdu, size_t open_len, size_t len);

/**
 * @brief Incoming frame security: apply the policy of the frame's type to
 *        a parsed frame, and unsecure a secured one in place (MIC check,
 *        decryption, replay check, the neighbour's counter updated). Counts
 *        every drop by its reason and each frame that passes (rx_secured).
 * @param[in]     nif  The interface.
 * @param[in,out] f    The frame parsed from @p mpdu; on success its
 *                     pointers (payload IEs, payload) hold plaintext.
 * @param[in,out] mpdu The frame (writable; no FCS).
 * @param[in]     len  Bytes in @p mpdu.
 * @param[in]     src  Sender's EUI-64 for the nonce, or NULL: the frame's
 *                     extended source address.
 * @param[in]     asn  Absolute slot number of the frame (ASN in nonce) on a
 *                     TSCH link; NULL on a link without slots (CSMA), where
 *                     a frame with the ASN in its nonce is refused.
 * @return 0 if the frame may go on (unsecured where allowed, or unsecured
 *         now).
 * @return 1 for the neighbour's last accepted frame counter again: a
 *         retransmission whose MIC holds (acknowledge it, do not deliver it;
 *         not counted here; a bad MIC is rx_bad_mic). Never for ASN-in-nonce
 *         frames: a TSCH MAC secures each transmission anew with its slot's
 *         ASN.
 * @return -EPERM unsecured or below the required level (rx_level).
 * @return -EBADMSG bad MIC; -ENOENT unknown key; -EALREADY replay;
 *         -EPROTO malformed header; -EADDRNOTAVAIL no EUI-64 for the
 *         nonce; -ENOSPC counter table full; -EOPNOTSUPP the ASN in the
 *         nonce and @p asn NULL (rx_asn_not_tsch).
 */
int wren_ieee802154_sec_unsecure(struct wren_ieee802154_netif *nif, struct ieee802154_frame *f,
                                 uint8_t *mpdu, size_t len, const uint8_t *src,
                                 const uint64_t *asn);

/* netopts WREN_NETOPT_SEC_* of the interface (link layer; -ENOTSUP for others) */
int wren_ieee802154_sec_get(struct wren_ieee802154_netif *nif, uint16_t opt, void *val,
                            size_t max);
int wren_ieee802154_sec_set(struct wren_ieee802154_netif *nif, uint16_t opt, const void *val,
                            size_t len);
void wren_ieee802154_sec_init(struct wren_ieee802154_netif *nif);

#endif
