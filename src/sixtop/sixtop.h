/**
 * @file sixtop.h
 * @brief 6top: the 6top Protocol (6P, RFC 8480) and the Minimal Scheduling
 *        Function (MSF, RFC 9033) above an interface's TSCH MAC.
 *
 * One instance per 802.15.4 interface, registered for WREN_NETTYPE_SIXTOP.
 * It reaches the MAC only through netopts on the interface
 * (WREN_NETOPT_TSCH_CELL_ADD/CELL_DEL/CELLS/QUEUES/SYNC/TIME_SOURCE/JOIN_PRIO)
 * and 6P messages it sends (netapi SND: netif header naming the neighbour's
 * EUI-64, then the message) and receives (RCV: the message, then the netif
 * header naming the sender). On a CSMA interface the TSCH netopts answer
 * -ENOTSUP and the module stays silent.
 *
 * 6P (sixp.c): 2-step transactions (ADD, DELETE, RELOCATE, COUNT, LIST,
 * SIGNAL, CLEAR), one at a time with each neighbour (a request from a
 * neighbour we are in a transaction with is answered RC_ERR_BUSY); one
 * SeqNum per neighbour shared by both directions (RFC 8480 3.4.6): 0 after a
 * reset or a CLEAR, a request must carry the value the responder holds
 * (otherwise RC_ERR_SEQNUM: the schedules disagree), both ends step it
 * (0xff -> 1) when a request is answered other than BUSY/VERSION/SFID/
 * SEQNUM; timeouts. The schedule change of a transaction is applied by 6P
 * itself (responder on sending a SUCCESS response, initiator on receiving
 * it): negotiated cells with that neighbour, CellOptions mirrored on the
 * responder. Which cells is the scheduling function's choice: 6P calls the
 * SF named by the message's SFID (struct wren_sixp_sf); MSF is SFID 0.
 *
 * MSF (msf.c): the autonomous RX cell at the SAX hash of our EUI-64 (slot
 * 1 + hash mod (SLOTFRAME_LENGTH - 1), channel hash mod NUM_CH_OFFSET,
 * RFC 9033 3 and Appendix A), an autonomous TX cell to a neighbour while
 * frames are queued for it and no negotiated TX cell to it exists; a
 * negotiated TX cell to RPL's preferred parent and more or fewer as the
 * cells' use crosses LIM_NUMCELLSUSED_HIGH/LOW over MAX_NUM_CELLS (TX and
 * RX), relocation of a TX cell whose PDR is RELOCATE_PDRTHRES below the
 * best, the parent switch (ADD to the new, CLEAR with the old), 6P error
 * handling as RFC 9033 Table 1 (CLEAR, wait-and-retry, quarantine). Glue
 * (RFC 8180 6.1, RFC 9033 2): the preferred parent (GET WREN_NETOPT_RPL_PARENT
 * from the module registered for ICMPv6 type 155) is SET as TSCH's time
 * source, DAGRank(rank) - 1 as the join priority.
 *
 * @code
 *   // a request by hand (the shell's `6p add`): one TX cell to nbr, of the
 *   // candidates MSF picks
 *   wren_sixtop_request(s, nbr, SIXP_CMD_ADD, SIXP_CELL_TX, 1, NULL, 0);
 * @endcode
 */
#ifndef WREN_SIXTOP_SIXTOP_H
#define WREN_SIXTOP_SIXTOP_H

#include <stdbool.h>
#include <stdint.h>

#include "core/counters.h"
#include "core/module.h"
#include "core/node.h"
#include "core/timer.h"
#include "net/netreg.h"
#include "wire/sixp.h"

#ifndef CONFIG_WREN_SIXP_NBRS
#define CONFIG_WREN_SIXP_NBRS 8     /**< neighbours whose SeqNum we keep */
#endif
#ifndef CONFIG_WREN_SIXP_TRANS
#define CONFIG_WREN_SIXP_TRANS 2    /**< transactions we initiate at once (each with
                                         another neighbour) */
#endif
#ifndef CONFIG_WREN_SIXP_CELLS
#define CONFIG_WREN_SIXP_CELLS 5    /**< most cells in a list we send (RFC 9033 CELL_LIST_SIZE) */
#endif
#ifndef CONFIG_WREN_SIXP_COUNT_LIST
/** 6P COUNT and LIST (RFC 8480 3.3.4, 3.3.5): answered, and sent by hand
 *  (`6p count`, `6p list`). MSF never sends either (RFC 9033 uses ADD,
 *  DELETE, RELOCATE and CLEAR); with 0 a node answers them RC_ERR, as it
 *  does SIGNAL, and wren_sixtop_request() refuses them (-EINVAL) */
#define CONFIG_WREN_SIXP_COUNT_LIST 1
#endif
#ifndef CONFIG_WREN_SIXP_TIMEOUT_S
/** a transaction's timeout, s: the request and the response each wait for
 *  their neighbour's shared cell and may be sent up to 16 times with back-off */
#define CONFIG_WREN_SIXP_TIMEOUT_S 30
#endif
_Static_assert(CONFIG_WREN_SIXP_NBRS >= 1 && CONFIG_WREN_SIXP_NBRS <= 255, "1..255 neighbours");
_Static_assert(CONFIG_WREN_SIXP_TRANS >= 1 && CONFIG_WREN_SIXP_TRANS <= CONFIG_WREN_SIXP_NBRS,
               "at most one transaction per neighbour");
_Static_assert(CONFIG_WREN_SIXP_CELLS >= 1 && CONFIG_WREN_SIXP_CELLS <= 32, "1..32 cells");

/** MSF's parameters (RFC 9033 17); defaults as the RFC. */
struct wren_msf_cfg {
    uint16_t slotframe_len;       /**< SLOTFRAME_LENGTH (101), slotframe 0's */
    uint8_t num_ch_offset;        /**< NUM_CH_OFFSET (16) */
    uint8_t lim_high_pct;         /**< LIM_NUMCELLSUSED_HIGH (75) */
    uint8_t lim_low_pct;          /**< LIM_NUMCELLSUSED_LOW (25) */
    uint8_t relocate_pdr_pct;     /**< RELOCATE_PDRTHRES (50) */
    uint16_t max_num_cells;       /**< MAX_NUM_CELLS (100): cells elapsed per decision */
    uint16_t min_numtx;           /**< TX samples a cell needs before its PDR counts (16) */
    uint16_t housekeeping_s;      /**< HOUSEKEEPINGCOLLISION_PERIOD (60) */
    uint16_t quarantine_s;        /**< QUARANTINE_DURATION (300) */
    uint16_t wait_min_s;          /**< WAITDURATION_MIN (30) */
    uint16_t wait_max_s;          /**< WAITDURATION_MAX (60) */
    uint8_t enabled;              /**< 0: MSF answers 6P but starts nothing on its own */
};

/* Counters, every drop and error by reason. */
#define WREN_SIXTOP_COUNTERS(C)                                                                    \
    C(tx_request)       /* requests sent */                                                        \
    C(tx_response)      /* responses sent (errors included) */                                     \
    C(rx_request)       /* requests received (well formed or answerable) */                        \
    C(rx_response)      /* responses matched to our transaction */                                 \
    C(trans_ok)         /* our transactions answered SUCCESS/EOL */                                \
    C(trans_timeout)    /* our transactions that timed out */                                      \
    C(trans_refused)    /* requests not started: a transaction with that neighbour or no slot */   \
    C(rx_truncated)     /* shorter than the 6P header or its command's fixed body */               \
    C(rx_bad_version)   /* a version other than 0 (a request is answered ERR_VERSION) */           \
    C(rx_bad_type)      /* type 3 */                                                               \
    C(rx_unknown_cmd)   /* request with an unknown command (answered ERR) */                       \
    C(rx_bad_rc)        /* response with an unknown return code */                                 \
    C(rx_bad_length)    /* body length its command does not allow (a request: answered ERR) */     \
    C(rx_bad_sfid)      /* request for an SF we do not run (answered ERR_SFID) */                  \
    C(rx_err_seqnum)    /* request whose SeqNum is not ours (answered ERR_SEQNUM) */               \
    C(rx_stale_seqnum)  /* response whose SeqNum is not its transaction's */                       \
    C(rx_no_trans)      /* response or confirmation with no transaction waiting for it */          \
    C(rx_busy)          /* request while in a transaction with its sender (answered ERR_BUSY) */   \
    C(rx_bad_celllist)  /* request naming cells we do not have with its sender (ERR_CELLLIST) */   \
    C(rx_locked)        /* request naming cells of a transaction in progress (ERR_LOCKED) */       \
    C(rx_no_addr)       /* message without a netif header naming an EUI-64 */                      \
    C(nbr_full)         /* neighbour table full of neighbours in transactions (ERR_BUSY / not sent) */\
    C(nbr_evict)        /* neighbour heard from longest ago forgotten for a new one */             \
    C(tx_nobuf)         /* packet buffer full: message not sent */                                 \
    C(rc_err)           /* responses received, by error code: RC_ERR */                            \
    C(rc_reset)                                                                                    \
    C(rc_err_version)                                                                              \
    C(rc_err_sfid)                                                                                 \
    C(rc_err_seqnum)                                                                               \
    C(rc_err_celllist)                                                                             \
    C(rc_err_busy)                                                                                 \
    C(rc_err_locked)                                                                               \
    C(cell_add_fail)    /* the MAC refused a cell (table full, duplicate) */                       \
    C(msf_add)          /* MSF: ADD requests it started */                                         \
    C(msf_delete)                                                                                  \
    C(msf_relocate)                                                                                \
    C(msf_clear)                                                                                   \
    C(msf_parent_switch)                                                                           \
    C(msf_auto_tx)      /* autonomous TX cells installed */                                        \
    C(msf_quarantine)   /* neighbours quarantined (RC_ERR, RESET, VERSION, SFID) */                \
    C(msf_waitretry)    /* waits before a retry (BUSY, LOCKED, timeout) */                        \
    C(msf_no_room)      /* ADDs not asked or cells not granted: the MAC's schedule is full */ \
    C(msf_no_relay)     /* TX cells not granted to a child: no dedicated TX cell of ours to   \
                           our parent yet (msf.c relays) */                                    \
    WREN_SIXTOP_COUNTERS_MEM(C)

/* with state made on first use (core/config.h CONFIG_WREN_NODE_MEM) */
#if CONFIG_WREN_NODE_MEM
#define WREN_SIXTOP_COUNTERS_MEM(C) \
    C(no_mem)           /* 6P messages dropped: no memory for the tables (wren_node_mem) */
#else
#define WREN_SIXTOP_COUNTERS_MEM(C)
#endif

struct wren_sixtop_stats {
    WREN_SIXTOP_COUNTERS(WREN_COUNTER_U32)
};

struct wren_sixtop;

/** A transaction we started. */
struct wren_sixp_trans {
    uint8_t nbr[8];
    uint8_t used;
    uint8_t cmd;          /**< enum sixp_cmd */
    uint8_t sfid;
    uint8_t seqnum;
    uint8_t cell_options; /**< as sent (our view) */
    uint8_t num_cells;
    uint8_t n_cells;      /**< cells proposed (ADD, RELOCATE candidates) or named */
    uint8_t n_rel;        /**< RELOCATE: cells to move (the first n_rel of rel) */
    uint32_t deadline_s;  /**< node time, s */
    struct sixp_cell cells[CONFIG_WREN_SIXP_CELLS];
    struct sixp_cell rel[CONFIG_WREN_SIXP_CELLS];
};

/** A scheduling function (RFC 8480 4.2): which cells; what to do after. */
struct wren_sixp_sf {
    uint8_t sfid;
    const char *name;
    /**
     * Responder: pick the cells of the answer to @p req (ADD, RELOCATE: of
     * its candidates; 6P checked the rest) into @p out[@p max].
     * @return how many (0..num_cells), or -SIXP_RC_x to answer that code.
     */
    int (*pick)(struct wren_sixtop *s, const uint8_t nbr[8], const struct sixp_msg *req,
                struct sixp_cell *out, unsigned max);
    /** Initiator: transaction @p t ended with return code @p rc (response
     *  @p resp, body parsed), or rc -1 (timeout, @p resp NULL). */
    void (*done)(struct wren_sixtop *s, const struct wren_sixp_trans *t, int rc,
                 const struct sixp_msg *resp);
};

/** What MSF keeps (one per interface). */
struct wren_msf {
    struct wren_msf_cfg cfg;
    uint8_t parent[8];           /**< preferred parent's EUI-64 */
    uint8_t has_parent;
    uint8_t had_parent;          /**< parent holds the last one we had */
    uint8_t auto_rx;             /**< our autonomous RX cell is installed */
    uint8_t auto_tx_n;           /**< autonomous TX cells installed (of auto_tx) */
    uint8_t auto_tx[4][8];       /**< their neighbours */
    struct sixp_cell auto_c;     /**< our autonomous RX cell */
    /* these four in this order: msf.c clears them as one range */
    uint16_t elapsed[2], used[2]; /**< NumCellsElapsed/Used: TX [0], RX [1] */
    uint32_t last_elapsed[2], last_used[2]; /**< the cells' counters summed at the last look */
    uint32_t wait_until_s;       /**< no request to the parent before (waitretry) */
    uint32_t next_housekeeping_s;
    uint8_t quarantine[8];       /**< a quarantined neighbour */
    uint32_t quarantine_until_s;
    uint8_t old_parent[8];       /**< to CLEAR after a switch */
    uint8_t clear_old;
    uint16_t last_jp;            /**< join priority last SET (0x100: none yet) */
};

struct wren_sixp_nbr {
    uint8_t addr[8];
    uint8_t used;
    uint8_t seqnum;   /**< the next request's, either direction (0: after reset/CLEAR) */
    uint32_t seen_s;  /**< last heard from or sent to, s */
};

/** 6P's neighbours and transactions and MSF's state: what an interface
 *  running TSCH uses (wren_sixtop_tables()). */
struct wren_sixtop_tables {
    struct wren_sixp_nbr nbrs[CONFIG_WREN_SIXP_NBRS];
    struct wren_sixp_trans trans[CONFIG_WREN_SIXP_TRANS];
    struct wren_msf msf;
};

struct wren_sixtop {
    struct wren_module module; /**< first */
    struct wren_node *node;
    struct wren_sixtop_stats stats; /**< near the start: short offsets in the code */
    struct wren_netreg_entry reg;
    struct wren_timer tick;
    uint8_t if_id;
    uint8_t eui64[8];          /**< ours (GET WREN_NETOPT_ADDRESS_LONG) */
    const struct wren_sixp_sf *sf[2]; /**< SFs we run; [0] is MSF */
    WREN_LAZY(struct wren_sixtop_tables, tab); /**< made at init on a TSCH interface, else on
                                                    first use (core/node.h) */
    uint8_t last_rc;           /**< the last response received: its return code, */
    uint8_t last_n_cells;      /**< ... cells (of its list), */
    uint16_t last_total;       /**< ... and total (COUNT), for the shell */
};

/**
 * @brief Start transaction @p cmd with neighbour @p nbr (EUI-64) under
 *        MSF: ADD/RELOCATE propose cells the SF picks (ADD: @p num_cells new;
 *        RELOCATE: @p cells[@p n] moved), DELETE names @p cells[@p n] (NULL:
 *        the SF picks @p num_cells of ours with @p nbr), COUNT/LIST/CLEAR
 *        take only @p cell_options.
 * @return 0 (the request is queued; the SF's done() follows); -EBUSY (a
 *         transaction with @p nbr is in progress, or none free), -ENOSPC
 *         (neighbour table full), -ENOENT (DELETE/RELOCATE: no such cells),
 *         -ENOTSUP (the interface runs no TSCH), -ENOBUFS, -EINVAL.
 */
int wren_sixtop_request(struct wren_sixtop *s, const uint8_t nbr[8], uint8_t cmd,
                        uint8_t cell_options, uint8_t num_cells, const struct sixp_cell *cells,
                        unsigned n);

/** @brief Our SeqNum with @p nbr, or -1 if we keep none. */
int wren_sixtop_seqnum(const struct wren_sixtop *s, const uint8_t nbr[8]);

/** @brief Set up @p s on interface @p if_id (the stack assembly calls it
 *         through the module's init). @return 0, -ENODEV. */
int wren_sixtop_init(struct wren_node *node, struct wren_sixtop *s, uint8_t if_id);

/** The module, for the stack assembly (src/stack/stack.h). */
extern const struct wren_module_ops wren_sixtop_module;

#endif
