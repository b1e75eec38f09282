/* Inside src/sixtop: what 6P (sixp.c), MSF (msf.c) and the shell share. */
#ifndef WREN_SIXTOP_PRIV_H
#define WREN_SIXTOP_PRIV_H

#include "mac/tsch/tsch.h"
#include "sixtop/sixtop.h"

#ifndef CONFIG_WREN_SIXTOP_SCHED_CELLS
/** cells read at once from the MAC (GET WREN_NETOPT_TSCH_CELLS, on the stack:
 *  36 bytes each): the whole schedule, or MSF would miss busy slots */
#define CONFIG_WREN_SIXTOP_SCHED_CELLS CONFIG_WREN_TSCH_CELLS
#endif

/** Slotframe every 6P/MSF cell lives in (RFC 9033 2: one slotframe, handle 0). */
#define SIXTOP_SLOTFRAME 0

/** @brief GET @p opt of the interface into @p val[@p max]. @return as
 *         wren_netapi_get(), -ENODEV without the interface. */
int wren_sixtop_if_get(struct wren_sixtop *s, uint16_t opt, void *val, size_t max);
/** @brief SET @p opt of the interface. @return as wren_netapi_set(), -ENODEV. */
int wren_sixtop_if_set(struct wren_sixtop *s, uint16_t opt, const void *val, size_t len);
/** @brief The schedule (GET WREN_NETOPT_TSCH_CELLS) into @p c[@p max].
 *  @return how many, or -errno (-ENOTSUP: the interface runs no TSCH). */
int wren_sixtop_sched(struct wren_sixtop *s, struct wren_tsch_cell *c, unsigned max);
/** wren_sixtop_cell()'s @p how: CellOptions (TX/RX/SHARED) | kind | SIXTOP_ADD */
#define SIXTOP_ADD 0x10000u
#define SIXTOP_NEG ((unsigned)WREN_TSCH_CELL_NEGOTIATED << 8)
#define SIXTOP_AUTO ((unsigned)WREN_TSCH_CELL_AUTONOMOUS << 8)
/** @brief SET CELL_ADD (@p how has SIXTOP_ADD) or CELL_DEL of one cell of
 *         slotframe 0 with @p nbr (NULL: any), of the kind and options in
 *         @p how. @return 0 or -errno. */
int wren_sixtop_cell(struct wren_sixtop *s, unsigned how, const uint8_t *nbr, struct sixp_cell c);
/** @brief Whether cell @p c (slotframe 0) is a negotiated cell with @p nbr. */
bool wren_sixtop_is_negotiated(const struct wren_tsch_cell *c, const uint8_t nbr[8]);
/** @brief Whether slot offset @p slot of slotframe 0 is in @p c[@p n], in
 *         @p out[@p k], or in a list of one of our transactions in progress. */
bool wren_sixtop_slot_busy(const struct wren_sixtop *s, const struct wren_tsch_cell *c, unsigned n,
                           const struct sixp_cell *out, unsigned k, uint16_t slot);
/** @brief @p s's tables (s->tab), made with MSF started on first use (at
 *         init on a TSCH interface; else by the first 6P message or shell
 *         command); NULL: no memory (only with CONFIG_WREN_NODE_MEM). */
#if CONFIG_WREN_NODE_MEM
struct wren_sixtop_tables *wren_sixtop_tables(struct wren_sixtop *s);
#else
static inline struct wren_sixtop_tables *wren_sixtop_tables(struct wren_sixtop *s)
{
    return s->tab; /* built in */
}
#endif
/** @brief Our transaction with @p nbr, or NULL. */
struct wren_sixp_trans *wren_sixtop_trans_of(struct wren_sixtop *s, const uint8_t nbr[8]);
/** @brief Node time, whole seconds. */
uint32_t wren_sixtop_now_s(const struct wren_sixtop *s);
/** @brief The interface's module. */
struct wren_module *wren_sixtop_netif(struct wren_sixtop *s);

/* MSF (msf.c) */
extern const struct wren_sixp_sf wren_msf_sf;
void wren_msf_init(struct wren_sixtop *s);
/** once a second */
void wren_msf_tick(struct wren_sixtop *s);
/** a 6P message is queued to @p nbr: give it the autonomous TX cell */
void wren_msf_sending(struct wren_sixtop *s, const uint8_t nbr[8]);
/** @brief Up to @p max candidate cells for an ADD/RELOCATE: free slots of
 *         slotframe 0, random channel offsets. @return how many. */
unsigned wren_msf_candidates(struct wren_sixtop *s, struct sixp_cell *out, unsigned max);
/** @brief SAX hash (RFC 9033 Appendix A) of @p eui64 modulo @p max. */
uint16_t wren_msf_sax(const uint8_t eui64[8], uint16_t max);

#endif
