/**
 * @file lorawan.h
 * @brief LoRaWAN 1.0.x data frames (LoRaWAN Specification v1.0.3, section
 *        4): parse/emit, the MIC (AES-CMAC over the B0 block and the frame,
 *        4.4) and FRMPayload encryption (AES in the spec's counter mode,
 *        4.3.3).
 *
 * Pure code. The PHY payload of a data frame:
 *
 * @verbatim
 *  +------+---------+-------+------+-------+-------+------------+-----+
 *  | MHDR | DevAddr | FCtrl | FCnt | FOpts | FPort | FRMPayload | MIC |
 *  |  1   |  4 (LE) |   1   | 2 LE | 0..15 | 0..1  |     N      |  4  |
 *  +------+---------+-------+------+-------+-------+------------+-----+
 *  MHDR: MType (3 bits) | RFU (3) | Major (2, 0 = LoRaWAN R1)
 *  FCtrl uplink: ADR | ADRACKReq | ACK | ClassB | FOptsLen (4)
 *  FCtrl downlink: ADR | RFU | ACK | FPending | FOptsLen (4)
 * @endverbatim
 *
 * FPort is present when a payload follows the header (an empty FRMPayload
 * after an FPort is allowed); FPort 0 carries MAC commands only and is
 * refused with FOpts (4.3.2). With SCHC (RFC 9011 5.1) FPort is the rule
 * ID.
 *
 * @code
 *   struct wren_lorawan_frame f = { .mtype = LORAWAN_UNCONF_UP, .devaddr = a,
 *       .fcnt = cnt, .has_port = true, .fport = rule_id, .payload = p, .payload_len = n };
 *   int len = wren_lorawan_seal(&f, nwkskey, appskey, cnt, buf, sizeof(buf));
 *   // receiver: parse, check the MIC, then decrypt in place
 *   if (wren_lorawan_parse(buf, len, &g) == 0 && wren_lorawan_open(&g, nwkskey, appskey,
 *           cnt32, buf, len) == 0) { ... g.payload is plaintext ... }
 * @endcode
 */
#ifndef WREN_WIRE_LORAWAN_H
#define WREN_WIRE_LORAWAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LORAWAN_MIN_LEN 12     /**< MHDR + FHDR without FOpts + MIC */
#define LORAWAN_MIC_LEN 4
#define LORAWAN_MAX_FOPTS 15

/** MType (LoRaWAN 1.0.3 4.2.1, Table 1): the data frames. */
enum {
    LORAWAN_UNCONF_UP = 2,
    LORAWAN_UNCONF_DOWN = 3,
    LORAWAN_CONF_UP = 4,
    LORAWAN_CONF_DOWN = 5,
};

/** FCtrl bits (4.3.1); FOptsLen is the low nibble, kept in fopts_len. */
#define LORAWAN_FCTRL_ADR 0x80
#define LORAWAN_FCTRL_ADRACKREQ 0x40 /**< uplink */
#define LORAWAN_FCTRL_ACK 0x20
#define LORAWAN_FCTRL_FPENDING 0x10  /**< downlink (ClassB uplink) */

struct wren_lorawan_frame {
    uint8_t mtype;          /**< LORAWAN_* */
    uint8_t major;          /**< 0: LoRaWAN R1 */
    uint8_t fctrl;          /**< the flag bits (high nibble) */
    uint8_t fopts_len;
    uint32_t devaddr;
    uint16_t fcnt;          /**< the 16 bits on the air */
    bool has_port;
    uint8_t fport;
    const uint8_t *fopts;   /**< fopts_len bytes */
    const uint8_t *payload; /**< FRMPayload, payload_len bytes */
    size_t payload_len;
    uint32_t mic;           /**< parse: as received (first byte lowest); emit: written */
};

/** Errors, returned negated (-LORAWAN_ERR_x). */
enum wren_lorawan_err {
    LORAWAN_ERR_TRUNCATED = 1, /**< shorter than its header, FOpts and MIC */
    LORAWAN_ERR_TYPE,          /**< not a data frame (join, proprietary, RFU) */
    LORAWAN_ERR_MAJOR,         /**< not LoRaWAN R1 */
    LORAWAN_ERR_FOPTS_PORT0,   /**< FOpts with FPort 0 */
    LORAWAN_ERR_NOBUFS,        /**< emit: buffer too short */
    LORAWAN_ERR_INVAL,         /**< emit: a field out of range */
    LORAWAN_ERR_MIC,           /**< open: the MIC does not check */
};

/** Is @p mtype a downlink? */
static inline bool wren_lorawan_is_down(uint8_t mtype)
{
    return mtype == LORAWAN_UNCONF_DOWN || mtype == LORAWAN_CONF_DOWN;
}

/** @brief Parse data frame @p buf (@p len bytes) into @p f (pointing into @p buf).
 *  @return 0; -LORAWAN_ERR_TRUNCATED, _TYPE, _MAJOR, _FOPTS_PORT0. */
int wren_lorawan_parse(const uint8_t *buf, size_t len, struct wren_lorawan_frame *f);

/** @brief Bytes @p f takes on the air, MIC included. */
size_t wren_lorawan_len(const struct wren_lorawan_frame *f);

/** @brief Write @p f (payload as given, MIC f->mic) into @p buf.
 *  @return its length; -LORAWAN_ERR_NOBUFS, -LORAWAN_ERR_INVAL. */
int wren_lorawan_emit(const struct wren_lorawan_frame *f, uint8_t *buf, size_t len);

/** @brief The MIC (4.4) of frame @p msg (@p len bytes without its MIC)
 *  under @p nwkskey, with the 32-bit frame counter @p fcnt32. */
uint32_t wren_lorawan_mic(const uint8_t nwkskey[16], bool down, uint32_t devaddr, uint32_t fcnt32,
                          const uint8_t *msg, size_t len);

/** @brief Encrypt or decrypt (the same operation, 4.3.3) @p len bytes of
 *  FRMPayload at @p p in place. */
void wren_lorawan_crypt(const uint8_t key[16], bool down, uint32_t devaddr, uint32_t fcnt32,
                        uint8_t *p, size_t len);

/**
 * @brief Emit @p f with its payload encrypted (AppSKey, NwkSKey for FPort
 *        0) and its MIC computed, the 32-bit counter @p fcnt32 (its low 16
 *        bits are f->fcnt).
 * @return the frame's length; -LORAWAN_ERR_NOBUFS, -LORAWAN_ERR_INVAL.
 */
int wren_lorawan_seal(const struct wren_lorawan_frame *f, const uint8_t nwkskey[16],
                      const uint8_t appskey[16], uint32_t fcnt32, uint8_t *buf, size_t len);

/**
 * @brief Check the MIC of parsed frame @p f (its bytes: @p buf, @p len; a copy will do) with
 *        the 32-bit counter @p fcnt32, then decrypt its payload in place.
 * @return 0, or -LORAWAN_ERR_MIC (nothing decrypted).
 */
int wren_lorawan_open(const struct wren_lorawan_frame *f, const uint8_t nwkskey[16],
                      const uint8_t appskey[16], uint32_t fcnt32, uint8_t *buf, size_t len);

/**
 * @brief RFC 9011 5.3's Interface Identifier: the first 8 bytes of
 *        AES-CMAC(AppSKey, DevEUI) (no tie to the hardware EUI; it changes
 *        with the session key).
 * @param[in] deveui 8 bytes, as LoRaWAN's join messages carry it reversed:
 *        here in the order it is written (most significant byte first).
 */
void wren_lorawan_iid(const uint8_t appskey[16], const uint8_t deveui[8], uint8_t iid[8]);

#endif
