/* Inside the TSCH MAC: what tsch.c (queues, the frames we send), tsch_rx.c
 * (the frames we receive: joining, synchronisation, Enh-ACKs), tsch_sched.c
 * (schedule, options) and tsch_slot.c (the slot engine) share. */
#ifndef WREN_LINK_TSCH_PRIV_H
#define WREN_LINK_TSCH_PRIV_H

#include <string.h>

#include "link/mac_priv.h"
#include "mac/tsch/tsch.h"

#if CONFIG_WREN_TSCH

/* what the timer does next (struct wren_tsch.phase) */
enum {
    TSCH_PH_IDLE = 0,  /* no role, or no cell */
    TSCH_PH_SCAN,      /* scanning: next channel */
    TSCH_PH_SLOT,      /* the start of the next active slot */
    TSCH_PH_TX,        /* hand the frame to the radio */
    TSCH_PH_TX_WAIT,   /* the radio sends (TX event ends it) */
    TSCH_PH_ACK_ON,    /* switch on for the Enh-ACK */
    TSCH_PH_ACK_WAIT,  /* the ACK must have begun by now */
    TSCH_PH_ACK_RX,    /* the ACK is coming in */
    TSCH_PH_RX_ON,     /* switch on to listen */
    TSCH_PH_RX_MID,    /* a frame of a neighbour in time is on the air now */
    TSCH_PH_RX_WAIT,   /* a frame must have begun by now */
    TSCH_PH_RX_BUSY,   /* a frame is coming in */
    TSCH_PH_ACK_SEND,  /* hand our Enh-ACK to the radio */
    TSCH_PH_ACK_SENDING,
};

#define TSCH_Q_EB 0xff   /* the frame in progress is an EB */
#define TSCH_Q_NONE 0xfe
#define TSCH_SLOTFRAME_MINIMAL 0
#define TSCH_SLOTFRAME_EB 1 /* wren_tsch_config.eb_sf_len */
#define TSCH_BC_P_MAX 65535u /* wren_tsch.bc_p: a broadcast in every shared cell */
#define TSCH_MAX_PSDU 127
#define TSCH_FCS_LEN 2

/* us on air of a PSDU of @p psdu bytes (with FCS): SHR, PHR, PSDU at 250 kb/s */
static inline uint32_t tsch_airtime_us(unsigned psdu)
{
    return (6u + psdu) * 32u;
}

static inline struct wren_node *tsch_node(const struct wren_tsch *t)
{
    return t->nif->netif.node;
}

/* ASN modulo @p m (1..65535) with 32-bit divisions only */
uint32_t wren_tsch_asn_mod(uint64_t asn, uint32_t m);

static inline bool wren_tsch_is_ts(const struct wren_tsch *t, const uint8_t *addr)
{
    return t->ts_len == 8 && memcmp(t->ts, addr, 8) == 0;
}

/* security on: a level for some frame type */
static inline bool wren_tsch_sec_on(const struct wren_tsch *t)
{
#if CONFIG_WREN_IEEE802154_SEC
    const uint8_t *l = t->nif->sec.level;
    return (l[0] | l[1] | l[2] | l[3]) != 0;
#else
    (void)t;
    return false;
#endif
}

/* tsch.c */
void wren_tsch_hop_default(struct wren_tsch_config *cfg);
int wren_tsch_config_check(const struct wren_tsch_config *c);
int wren_tsch_sec_prepare(struct wren_tsch *t, struct ieee802154_hdr *h);
int wren_tsch_sec_seal(struct wren_tsch *t, const struct ieee802154_hdr *h, size_t n);
void wren_tsch_radio(struct wren_tsch *t, bool on);
void wren_tsch_set_channel(struct wren_tsch *t, uint8_t ch);
uint8_t wren_tsch_pick_queue(struct wren_tsch *t, const struct wren_tsch_cell *c);
int wren_tsch_build_frame(struct wren_tsch *t, uint8_t q);
void wren_tsch_tx_result(struct wren_tsch *t, bool acked);
void wren_tsch_keepalive(struct wren_tsch *t);
bool wren_tsch_ts_pending(struct wren_tsch *t);
uint32_t wren_tsch_eb_min_ms(const struct wren_tsch *t);
void wren_tsch_flush(struct wren_tsch *t);
void wren_tsch_minimal_schedule(struct wren_tsch *t);

/* tsch_rx.c */
void wren_tsch_rx_frame(struct wren_tsch *t, struct wren_snip *pkt,
                        const struct wren_netdev_rx_info *info, uint64_t rx_start);

/* tsch_slot.c */
void wren_tsch_timer_cb(struct wren_timer *tm, void *arg);
void wren_tsch_start(struct wren_tsch *t);
void wren_tsch_schedule(struct wren_tsch *t);
void wren_tsch_end_slot(struct wren_tsch *t);
void wren_tsch_sync(struct wren_tsch *t, int32_t shift);
void wren_tsch_desync(struct wren_tsch *t);
void wren_tsch_eb_cells(struct wren_tsch *t);
void wren_tsch_shared_heard(struct wren_tsch *t, bool busy);
uint16_t wren_tsch_bc_chance(const struct wren_tsch *t);
int32_t wren_tsch_drift_ppb(const struct wren_tsch *t);
uint64_t wren_tsch_slot_time(const struct wren_tsch *t, uint64_t asn);

#endif /* CONFIG_WREN_TSCH */

#endif
