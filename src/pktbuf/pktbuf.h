/**
 * @file pktbuf.h
 * @brief A node's central packet buffer: variable-size snips in one arena.
 *
 * A packet is a singly linked list of snips; each snip is one header or the
 * payload. Snip descriptors and their data both live in the node's arena
 * (default 6 KiB), allocated first-fit from an address-ordered free list
 * that coalesces on free, in units of PKTBUF_ALIGN bytes, with no per-block
 * header: any whole-unit sub-range of an allocation can be freed on its
 * own, which is what lets a received frame be split into header snips
 * without copying.
 *
 * Order of snips:
 *
 *     TX, header-first:   [netif] -> [ipv6] -> [udp] -> [payload]
 *     RX, payload-first:  [payload] -> [udp] -> [ipv6] -> [netif]
 *
 * A sender builds a packet by prepending headers with wren_pktbuf_add(); a
 * receiver gets one snip holding the whole frame and each layer splits its
 * header off the front with wren_pktbuf_mark().
 *
 * Ownership: every snip carries a reference count (users). Handing a packet
 * to one more receiver is wren_pktbuf_hold(); each holder ends with exactly
 * one wren_pktbuf_release() of the head. A holder that wants to modify a
 * snip other holders can see first calls wren_pktbuf_write_path(), which
 * duplicates the shared part of the path from the head to that snip.
 *
 * Exhaustion is an error code (NULL or -ENOBUFS) and a counter, never a
 * crash; the arena's statistics give in-use bytes, the high-water mark and
 * allocation failures.
 */
#ifndef WREN_PKTBUF_PKTBUF_H
#define WREN_PKTBUF_PKTBUF_H

#include "core/counters.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if UINTPTR_MAX > 0xffffffffu
typedef uint32_t wren_pktbuf_off_t;
#define PKTBUF_ALIGN 8u
#else
typedef uint16_t wren_pktbuf_off_t;
#define PKTBUF_ALIGN 4u
#endif

/** Largest arena a node can have. */
#define PKTBUF_MAX_SIZE ((size_t)(wren_pktbuf_off_t)-1 - PKTBUF_ALIGN + 1)

struct wren_snip {
    struct wren_snip *next;
    uint8_t *data;
    uint16_t size;
    uint8_t users;    /**< reference count */
    uint8_t type;     /**< enum wren_nettype */
};

#define WREN_PKTBUF_COUNTERS(C)                                        \
    C(in_use)        /* bytes allocated now (descriptors and data) */  \
    C(high_water)    /* most bytes ever allocated at once */           \
    C(alloc_fail)    /* allocations refused for lack of space */       \
    C(snips)         /* snips alive now */                             \
    C(size)          /* arena size */

struct wren_pktbuf_stats {
    WREN_PKTBUF_COUNTERS(WREN_COUNTER_U32)
};

/** Freed snip descriptors kept aside for reuse (header snips come and go
 *  with every packet); given back to the free list when space runs short.
 *  A speed feature: 0 leaves the cache out (every descriptor comes from and
 *  goes back to the free list) for the smallest images. */
#ifndef CONFIG_WREN_PKTBUF_DESC_CACHE
#define CONFIG_WREN_PKTBUF_DESC_CACHE 4
#endif
#define PKTBUF_DESC_CACHE CONFIG_WREN_PKTBUF_DESC_CACHE

struct wren_pktbuf {
    uint8_t *arena;
    wren_pktbuf_off_t size;
    wren_pktbuf_off_t free_head;  /**< offset of the first free block, size if none */
    void *desc_cache;             /**< freed descriptors, linked through their first word */
    uint8_t desc_cached;
    struct wren_pktbuf_stats stats;
};

/** @brief Take over @p arena (aligned to PKTBUF_ALIGN) as an empty buffer. */
void wren_pktbuf_init(struct wren_pktbuf *pb, void *arena, size_t size);

/**
 * @brief Allocate a snip of @p size bytes in front of @p next.
 * @param[in] data  bytes to copy in, or NULL to leave the data uninitialised
 * @return the snip (users = 1), or NULL if the arena is exhausted; @p next is
 *         untouched on failure and still belongs to the caller.
 */
struct wren_snip *wren_pktbuf_add(struct wren_pktbuf *pb, struct wren_snip *next,
                                  const void *data, size_t size, uint8_t type);

/**
 * @brief Allocate @p n snips at once, linked in order, whose data are
 *        contiguous in memory (one arena allocation): headers built in front
 *        of a payload. All sizes but the last must be whole units
 *        (PKTBUF_ALIGN), so each snip still owns and frees its own part;
 *        wren_pktbuf_merge() of such a chain needs no copy.
 * @return the first snip (the last one's next is @p next), or NULL.
 */
struct wren_snip *wren_pktbuf_add_chain(struct wren_pktbuf *pb, unsigned n,
                                        const uint16_t *sizes, const uint8_t *types,
                                        struct wren_snip *next);

/**
 * @brief Split the first @p size bytes off @p pkt's data into a new snip
 *        inserted after @p pkt (RX: the header moves behind the payload).
 * @return the new header snip, or NULL (-ENOBUFS, or @p size beyond the data).
 */
struct wren_snip *wren_pktbuf_mark(struct wren_pktbuf *pb, struct wren_snip *pkt,
                                   size_t size, uint8_t type);

/** @brief Drop the first @p n bytes of @p snip's data (n <= size). */
void wren_pktbuf_trim_front(struct wren_pktbuf *pb, struct wren_snip *snip, size_t n);

/**
 * @brief Keep only the first @p size bytes of @p snip's data, freeing the
 *        units beyond them (padding, a trailer); a @p size at or above the
 *        current one changes nothing.
 * @return 0, or -EINVAL if @p snip is shared.
 */
int wren_pktbuf_trim_back(struct wren_pktbuf *pb, struct wren_snip *snip, size_t size);

/**
 * @brief Resize @p snip's data in place: shrinking always works; growing
 *        works if the arena has room (the data may move).
 * @return 0, -ENOBUFS, or -EINVAL if @p snip is shared.
 */
int wren_pktbuf_realloc_data(struct wren_pktbuf *pb, struct wren_snip *snip, size_t size);

/** @brief Add @p n users to every snip of @p pkt. */
void wren_pktbuf_hold(struct wren_pktbuf *pb, struct wren_snip *pkt, unsigned n);

/** @brief Drop one user from every snip of @p pkt, freeing those that reach 0. */
void wren_pktbuf_release(struct wren_pktbuf *pb, struct wren_snip *pkt);

/**
 * @brief Make every snip from the head of *pkt up to and including *target
 *        private to the caller, copying those that are shared.
 * @param[in,out] pkt     head of the caller's packet; updated to the new head
 * @param[in,out] target  a snip of the packet; updated to its private copy
 * @return 0, or -ENOBUFS (then *pkt is still a valid packet of the caller's,
 *         possibly partly copied, and *target is still shared).
 */
int wren_pktbuf_write_path(struct wren_pktbuf *pb, struct wren_snip **pkt,
                           struct wren_snip **target);

/**
 * @brief Merge all snips of *pkt into one snip holding their data in order
 *        (of the first snip's type).
 * @return 0, or -ENOBUFS (then *pkt is unchanged).
 */
int wren_pktbuf_merge(struct wren_pktbuf *pb, struct wren_snip **pkt);

/** @brief Release the first snip of @p pkt alone (a netif header, say)
 *         and return the rest, which stays the caller's. */
struct wren_snip *wren_pktbuf_release_head(struct wren_pktbuf *pb, struct wren_snip *pkt);

/** @brief Unlink @p snip from *pkt and release it (it must be in the list). */
void wren_pktbuf_remove_snip(struct wren_pktbuf *pb, struct wren_snip **pkt,
                             struct wren_snip *snip);

/** @brief Reverse the order of a packet's snips (RX order <-> TX order). */
struct wren_snip *wren_pkt_reverse(struct wren_snip *pkt);

/** @brief Total data bytes of @p pkt. */
size_t wren_pkt_len(const struct wren_snip *pkt);

/** @brief First snip of @p pkt of @p type, or NULL. */
struct wren_snip *wren_pkt_search(struct wren_snip *pkt, uint8_t type);

/** @brief Copy the data of @p pkt into @p buf; return bytes copied (at most @p max). */
size_t wren_pkt_copy(const struct wren_snip *pkt, void *buf, size_t max);

/** @brief Copy up to @p n bytes of @p pkt's data, starting @p off bytes in,
 *         into @p buf; return the bytes copied. */
size_t wren_pkt_copy_from(const struct wren_snip *pkt, size_t off, void *buf, size_t n);

/** @brief Whether nothing is allocated. */
static inline bool wren_pktbuf_is_empty(const struct wren_pktbuf *pb)
{
    return pb->stats.in_use == 0;
}

/**
 * @brief Check the arena's invariants: the free list is ordered, within
 *        bounds, coalesced, and free + in-use bytes equal the arena size.
 * @return true if consistent.
 */
bool wren_pktbuf_is_sane(const struct wren_pktbuf *pb);

#endif
