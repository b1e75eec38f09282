/**
 * @file sixp.h
 * @brief 6P messages (RFC 8480 3.2): what the 6top sub-IE (0xC9) of an IETF
 *        payload IE carries between two TSCH neighbours.
 *
 * Pure wire code: no I/O, no state. Every message starts with 4 bytes:
 *
 * @verbatim
 *   byte 0                      1        2        3
 *  +-------+-----+-----+       +------+ +------+ +--------+
 *  | R (2) | T(2)| V(4)|       | Code | | SFID | | SeqNum |  then the body
 *  +-------+-----+-----+       +------+ +------+ +--------+
 *   bits 7..6  5..4  3..0
 * @endverbatim
 *
 * (RFC 8480 draws Version first: 802.15.4 sends the low bits first, so
 * Version is the low nibble, Type bits 4-5; tshark's 6top dissector reads
 * them the same way.) Multi-byte fields (Metadata, slot and channel offsets,
 * Offset, MaxNumCells, Total) are little-endian, as every 802.15.4 field.
 *
 * Bodies of requests, by command (RFC 8480 3.3):
 * @verbatim
 *  ADD, DELETE   Metadata(2) CellOptions(1) NumCells(1) CellList(4*n)
 *  RELOCATE      Metadata(2) CellOptions(1) NumCells(1)
 *                RelocationCellList(4*NumCells) CandidateCellList(4*m)
 *  COUNT         Metadata(2) CellOptions(1)
 *  LIST          Metadata(2) CellOptions(1) Reserved(1) Offset(2) MaxNumCells(2)
 *  SIGNAL        Metadata(2) Payload(...)
 *  CLEAR         Metadata(2)
 * @endverbatim
 * A response or confirmation carries the return code in Code; its body
 * depends on the transaction's command, which the message does not name:
 * wren_sixp_parse() leaves it raw and wren_sixp_body_parse() reads it once
 * the caller knows the command (a CellList for ADD, DELETE, RELOCATE and
 * LIST, Total(2) for COUNT, the payload for SIGNAL, nothing for CLEAR).
 *
 * A cell on the wire is slotOffset(2) channelOffset(2). Cell lists are
 * kept as pointers into the message (no copy, no bound on their length
 * here); read and write them with wren_sixp_cell_get()/wren_sixp_cell_put().
 *
 * @code
 *   struct sixp_msg m;
 *   int rc = wren_sixp_parse(buf, len, &m);
 *   if (rc == -SIXP_ERR_VERSION)   // header fields are valid: answer RC_ERR_VERSION
 *       ...
 *   struct sixp_msg a = { .type = SIXP_TYPE_REQUEST, .code = SIXP_CMD_ADD, .sfid = 0,
 *                         .seqnum = 7, .cell_options = SIXP_CELL_TX, .num_cells = 1,
 *                         .cells = list, .n_cells = 3 };
 *   uint8_t out[64];
 *   int n = wren_sixp_emit(&a, out, sizeof(out));   // bytes written or -SIXP_ERR_x
 * @endcode
 */
#ifndef WREN_WIRE_SIXP_H
#define WREN_WIRE_SIXP_H

#include <stddef.h>
#include <stdint.h>

#define SIXP_VERSION 0       /**< RFC 8480 3.2.1 */
#define SIXP_HDR_LEN 4
#define SIXP_CELL_LEN 4
#define SIXP_IE_SUBID 0xc9   /**< the 6top sub-IE of the IETF IE (RFC 8480 5.1) */
#define SIXP_SFID_MSF 0      /**< RFC 9033 17 */

/** Type (RFC 8480 3.2.1). */
enum sixp_type {
    SIXP_TYPE_REQUEST = 0,
    SIXP_TYPE_RESPONSE = 1,
    SIXP_TYPE_CONFIRMATION = 2,
};

/** Commands (Code of a request, RFC 8480 6.2.3). */
enum sixp_cmd {
    SIXP_CMD_ADD = 1,
    SIXP_CMD_DELETE = 2,
    SIXP_CMD_RELOCATE = 3,
    SIXP_CMD_COUNT = 4,
    SIXP_CMD_LIST = 5,
    SIXP_CMD_SIGNAL = 6,
    SIXP_CMD_CLEAR = 7,
};

/** Return codes (Code of a response or confirmation, RFC 8480 6.2.4). */
enum sixp_rc {
    SIXP_RC_SUCCESS = 0,
    SIXP_RC_EOL = 1,          /**< end of the list (LIST) */
    SIXP_RC_ERR = 2,          /**< generic error */
    SIXP_RC_RESET = 3,        /**< critical error, reset */
    SIXP_RC_ERR_VERSION = 4,  /**< unsupported 6P version */
    SIXP_RC_ERR_SFID = 5,     /**< unsupported SFID */
    SIXP_RC_ERR_SEQNUM = 6,   /**< schedule inconsistency */
    SIXP_RC_ERR_CELLLIST = 7, /**< cell list error */
    SIXP_RC_ERR_BUSY = 8,     /**< busy */
    SIXP_RC_ERR_LOCKED = 9,   /**< cells are locked */
    SIXP_RC_NUMOF
};

/** CellOptions bits (RFC 8480 6.2.6). */
enum {
    SIXP_CELL_TX = 0x01,
    SIXP_CELL_RX = 0x02,
    SIXP_CELL_SHARED = 0x04,
};

/** Errors, returned negated (-SIXP_ERR_x). */
enum sixp_err {
    SIXP_ERR_TRUNCATED = 1, /**< shorter than the header or than the fixed part of its body */
    SIXP_ERR_VERSION,       /**< a version other than 0 (header fields valid) */
    SIXP_ERR_TYPE,          /**< the reserved type 3 (header fields valid) */
    SIXP_ERR_CMD,           /**< a request with an unknown command (header fields valid) */
    SIXP_ERR_RC,            /**< a response/confirmation with an unknown return code */
    SIXP_ERR_LENGTH,        /**< body longer than its fixed format / a cell list not a
                                 multiple of 4 / RELOCATE's list shorter than NumCells */
    SIXP_ERR_INVAL,         /**< emit: a value the format cannot carry */
    SIXP_ERR_NOBUFS,        /**< emit: output buffer too small */
};

struct sixp_cell {
    uint16_t slot_offset;
    uint16_t channel_offset;
};

/** A 6P message; which members mean something depends on type and code. */
struct sixp_msg {
    uint8_t version;
    uint8_t type;             /**< enum sixp_type */
    uint8_t code;             /**< enum sixp_cmd (request) or enum sixp_rc */
    uint8_t sfid;
    uint8_t seqnum;
    uint8_t cell_options;     /**< ADD, DELETE, RELOCATE, COUNT, LIST requests */
    uint8_t num_cells;        /**< ADD, DELETE, RELOCATE requests */
    uint16_t metadata;        /**< every request */
    uint16_t offset;          /**< LIST request */
    uint16_t max_num_cells;   /**< LIST request */
    uint16_t total;           /**< COUNT response (body parsed) */
    uint8_t resp_cmd;         /**< response/confirmation: the transaction's command, which
                                   decides its body (wren_sixp_body_parse() sets it); 0:
                                   the body is body/body_len as it is */
    const uint8_t *cells;     /**< CellList / RelocationCellList, SIXP_CELL_LEN each */
    uint16_t n_cells;
    const uint8_t *cand;      /**< RELOCATE request: CandidateCellList */
    uint16_t n_cand;
    const uint8_t *body;      /**< the bytes after the header (a SIGNAL request: its
                                   payload, after Metadata) */
    uint16_t body_len;
};

/**
 * @brief Parse the 6P message in @p buf[@p len] (the 6top sub-IE's content).
 *
 * A request's body is parsed by its command; a response's or
 * confirmation's is left in body/body_len (see wren_sixp_body_parse()).
 * @return 0; -SIXP_ERR_TRUNCATED, -SIXP_ERR_VERSION, -SIXP_ERR_TYPE,
 *         -SIXP_ERR_CMD, -SIXP_ERR_RC, -SIXP_ERR_LENGTH. For every error but
 *         TRUNCATED below 4 bytes the header fields (version, type, code,
 *         sfid, seqnum) are filled, so the receiver can answer.
 */
int wren_sixp_parse(const uint8_t *buf, size_t len, struct sixp_msg *m);

/**
 * @brief Read the body of response or confirmation @p m (parsed by
 *        wren_sixp_parse()) as the answer to command @p cmd.
 *
 * SUCCESS or EOL: ADD, DELETE, RELOCATE, LIST: cells/n_cells; COUNT: total
 * (exactly 2 bytes); SIGNAL: nothing to do (body); CLEAR: empty. An error
 * code's body is not read.
 * @return 0; -SIXP_ERR_LENGTH; -SIXP_ERR_CMD for an unknown @p cmd.
 */
int wren_sixp_body_parse(struct sixp_msg *m, uint8_t cmd);

/** @brief Bytes wren_sixp_emit() writes for @p m; -SIXP_ERR_INVAL (see emit). */
int wren_sixp_len(const struct sixp_msg *m);

/**
 * @brief Write @p m (version 0) into @p buf[@p max].
 *
 * A request writes the body of its command from the members. A response or
 * confirmation with resp_cmd 0 writes body/body_len as they are; with a
 * command, SUCCESS/EOL write the cells (ADD, DELETE, RELOCATE, LIST), the
 * total (COUNT), body/body_len (SIGNAL) or nothing (CLEAR), and an error
 * code nothing.
 * @return bytes written; -SIXP_ERR_INVAL (type 3, unknown command, a
 *         RELOCATE with fewer cells than NumCells, more than 65535 bytes),
 *         -SIXP_ERR_NOBUFS (nothing written).
 */
int wren_sixp_emit(const struct sixp_msg *m, uint8_t *buf, size_t max);

/** @brief Cell @p i of a wire cell list. */
static inline struct sixp_cell wren_sixp_cell_get(const uint8_t *list, unsigned i)
{
    const uint8_t *p = list + (size_t)i * SIXP_CELL_LEN;
    struct sixp_cell c = { (uint16_t)(p[0] | p[1] << 8), (uint16_t)(p[2] | p[3] << 8) };
    return c;
}

/** @brief Write cell @p c as cell @p i of a wire cell list. */
static inline void wren_sixp_cell_put(uint8_t *list, unsigned i, struct sixp_cell c)
{
    uint8_t *p = list + (size_t)i * SIXP_CELL_LEN;
    p[0] = (uint8_t)c.slot_offset;
    p[1] = (uint8_t)(c.slot_offset >> 8);
    p[2] = (uint8_t)c.channel_offset;
    p[3] = (uint8_t)(c.channel_offset >> 8);
}

/** @brief Name of command @p cmd ("ADD", ...) or NULL. */
const char *wren_sixp_cmd_name(uint8_t cmd);
/** @brief Name of return code @p rc ("SUCCESS", "ERR_BUSY", ...) or NULL. */
const char *wren_sixp_rc_name(uint8_t rc);

#endif
