#include "pktbuf/pktbuf.h"

#include <assert.h>
#include <errno.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define PKTBUF_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PKTBUF_ASAN 1
#endif
#endif

#ifdef PKTBUF_ASAN
#include <sanitizer/asan_interface.h>
/* Free space (beyond each free block's header) is poisoned, so a stale
 * pointer into a released snip is caught by ASan. */
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* A free block starts with this header; blocks are whole units. */
struct blk {
    wren_pktbuf_off_t size;
    wren_pktbuf_off_t next;
};

_Static_assert(sizeof(struct blk) <= PKTBUF_ALIGN, "free header fits a unit");
_Static_assert(_Alignof(struct wren_snip) <= PKTBUF_ALIGN, "snips are aligned");

#define ROUND_UP(n) (((n) + PKTBUF_ALIGN - 1) & ~(size_t)(PKTBUF_ALIGN - 1))
#define ROUND_DOWN(n) ((n) & ~(size_t)(PKTBUF_ALIGN - 1))

#define DESC ROUND_UP(sizeof(struct wren_snip))

static struct blk blk_get(const struct wren_pktbuf *pb, size_t off)
{
    struct blk b;
    memcpy(&b, pb->arena + off, sizeof(b));
    return b;
}

static void blk_put(struct wren_pktbuf *pb, size_t off, size_t size, size_t next)
{
    struct blk b = { (wren_pktbuf_off_t)size, (wren_pktbuf_off_t)next };
    UNPOISON(pb->arena + off, sizeof(b));
    memcpy(pb->arena + off, &b, sizeof(b));
}

void wren_pktbuf_init(struct wren_pktbuf *pb, void *arena, size_t size)
{
    assert(((uintptr_t)arena & (PKTBUF_ALIGN - 1)) == 0);
    if (size > PKTBUF_MAX_SIZE) {
        size = PKTBUF_MAX_SIZE;
    }
    size = ROUND_DOWN(size);
    pb->arena = arena;
    pb->size = (wren_pktbuf_off_t)size;
    pb->desc_cache = NULL;
    pb->desc_cached = 0;
    memset(&pb->stats, 0, sizeof(pb->stats));
    pb->stats.size = (uint32_t)size;
    if (size) {
        pb->free_head = 0;
        blk_put(pb, 0, size, size);
        POISON(pb->arena + PKTBUF_ALIGN, size - PKTBUF_ALIGN);
    } else {
        pb->free_head = 0;
    }
}

static void arena_free(struct wren_pktbuf *pb, size_t off, size_t n);
static void *list_alloc(struct wren_pktbuf *pb, size_t size);

static void *arena_alloc(struct wren_pktbuf *pb, size_t size)
{
    void *p = list_alloc(pb, size);
    if (PKTBUF_DESC_CACHE && p == NULL && pb->desc_cached) {
        /* short of space: the descriptors kept aside go back first */
        while (pb->desc_cache) {
            uint8_t *d = pb->desc_cache;
            UNPOISON(d, DESC);
            memcpy(&pb->desc_cache, d, sizeof(void *));
            pb->desc_cached--;
            pb->stats.in_use += DESC;
            arena_free(pb, (size_t)(d - pb->arena), DESC);
        }
        p = list_alloc(pb, size);
    }
    if (p == NULL) {
        pb->stats.alloc_fail++;
    }
    return p;
}

/* a descriptor from the cache (there must be one) */
static uint8_t *desc_pop(struct wren_pktbuf *pb)
{
    uint8_t *d = pb->desc_cache;
    UNPOISON(d, DESC);
    memcpy(&pb->desc_cache, d, sizeof(void *));
    pb->desc_cached--;
    pb->stats.in_use += DESC;
    return d;
}

static void note_high_water(struct wren_pktbuf *pb)
{
    if (pb->stats.in_use > pb->stats.high_water) {
        pb->stats.high_water = pb->stats.in_use;
    }
}

/* a descriptor alone: from the cache if one is there */
static void *desc_alloc(struct wren_pktbuf *pb)
{
    if (!PKTBUF_DESC_CACHE || pb->desc_cache == NULL) {
        return arena_alloc(pb, DESC);
    }
    uint8_t *d = desc_pop(pb);
    note_high_water(pb);
    return d;
}

static void desc_free(struct wren_pktbuf *pb, size_t off)
{
    if (pb->desc_cached + 1 > PKTBUF_DESC_CACHE) { /* full, or no cache at all */
        arena_free(pb, off, DESC);
        return;
    }
    uint8_t *d = pb->arena + off;
    memcpy(d, &pb->desc_cache, sizeof(void *));
    POISON(d + sizeof(void *), DESC - sizeof(void *));
    pb->desc_cache = d;
    pb->desc_cached++;
    pb->stats.in_use -= DESC;
}

static void *list_alloc(struct wren_pktbuf *pb, size_t size)
{
    size_t n = ROUND_UP(size);
    size_t prev = pb->size;
    size_t off = pb->free_head;
    while (off < pb->size) {
        struct blk b = blk_get(pb, off);
        if (b.size >= n) {
            size_t link;
            if (b.size == n) {
                link = b.next;
            } else {
                link = off + n;
                blk_put(pb, link, b.size - n, b.next);
            }
            if (prev == pb->size) {
                pb->free_head = (wren_pktbuf_off_t)link;
            } else {
                struct blk p = blk_get(pb, prev);
                blk_put(pb, prev, p.size, link);
            }
            pb->stats.in_use += (uint32_t)n;
            if (pb->stats.in_use > pb->stats.high_water) {
                pb->stats.high_water = pb->stats.in_use;
            }
            UNPOISON(pb->arena + off, n);
            return pb->arena + off;
        }
        prev = off;
        off = b.next;
    }
    return NULL;
}

/* Return [off, off + n) to the free list; off and n are whole units. */
static void arena_free(struct wren_pktbuf *pb, size_t off, size_t n)
{
    if (n == 0) {
        return;
    }
    assert(off % PKTBUF_ALIGN == 0 && n % PKTBUF_ALIGN == 0 && off + n <= pb->size);
    size_t prev = pb->size;
    size_t next = pb->free_head;
    while (next < off) {
        prev = next;
        next = blk_get(pb, next).next;
    }
    assert(next >= off + n); /* no double free */
    POISON(pb->arena + off, n);
    size_t size = n;
    if (next < pb->size && off + n == next) {
        struct blk nb = blk_get(pb, next);
        size += nb.size;
        next = nb.next;
        POISON(pb->arena + off + n, sizeof(struct blk));
    }
    if (prev < pb->size) {
        struct blk pbk = blk_get(pb, prev);
        assert(prev + pbk.size <= off);
        if (prev + pbk.size == off) {
            blk_put(pb, prev, pbk.size + size, next);
        } else {
            blk_put(pb, off, size, next);
            blk_put(pb, prev, pbk.size, off);
        }
    } else {
        blk_put(pb, off, size, next);
        pb->free_head = (wren_pktbuf_off_t)off;
    }
    pb->stats.in_use -= (uint32_t)n;
}

static size_t off_of(const struct wren_pktbuf *pb, const void *p)
{
    return (size_t)((const uint8_t *)p - pb->arena);
}

/* The units a snip's data owns: [round_down(data), round_up(data + size)). */
static void free_data(struct wren_pktbuf *pb, struct wren_snip *s)
{
    if (s->size && s->data) {
        size_t off = off_of(pb, s->data);
        size_t start = ROUND_DOWN(off);
        arena_free(pb, start, ROUND_UP(off + s->size) - start);
    }
    s->data = NULL;
    s->size = 0;
}

struct wren_snip *wren_pktbuf_add(struct wren_pktbuf *pb, struct wren_snip *next,
                                  const void *data, size_t size, uint8_t type)
{
    if (size > UINT16_MAX) {
        pb->stats.alloc_fail++;
        return NULL;
    }
    /* descriptor and data in one allocation, the data right behind */
    struct wren_snip *s = size ? arena_alloc(pb, DESC + size) : desc_alloc(pb);
    if (s == NULL) {
        return NULL;
    }
    s->data = NULL;
    if (size) {
        s->data = (uint8_t *)s + DESC;
        if (data) {
            memcpy(s->data, data, size);
        }
    }
    s->next = next;
    s->size = (uint16_t)size;
    s->users = 1;
    s->type = type;
    pb->stats.snips++;
    return s;
}

struct wren_snip *wren_pktbuf_add_chain(struct wren_pktbuf *pb, unsigned n,
                                        const uint16_t *sizes, const uint8_t *types,
                                        struct wren_snip *next)
{
    size_t total = 0;
    for (unsigned i = 0; i < n; i++) {
        if (i + 1 < n && sizes[i] % PKTBUF_ALIGN) {
            return NULL; /* a cut inside a unit could not be freed on its own */
        }
        total += sizes[i];
    }
    if (n == 0) {
        return NULL;
    }
    /* descriptors kept aside are used first: the rest and the data are one
     * allocation, [desc k .. desc n-1][data 0][data 1]..., each snip owning
     * its own units */
    unsigned k = !PKTBUF_DESC_CACHE ? 0 : pb->desc_cached < n ? pb->desc_cached : n;
    size_t need = (n - k) * DESC + total;
    uint8_t *block = need ? list_alloc(pb, need) : NULL;
    if (need && block == NULL) {
        k = 0; /* arena_alloc may give the cached descriptors back to make room */
        block = arena_alloc(pb, n * DESC + total);
        if (block == NULL) {
            return NULL;
        }
    }
    uint8_t *data = block ? block + (n - k) * DESC : NULL;
    struct wren_snip *first = NULL, *prev = NULL;
    for (unsigned i = 0; i < n; i++) {
        struct wren_snip *sn =
            (struct wren_snip *)(void *)(i < k ? desc_pop(pb) : block + (i - k) * DESC);
        sn->data = NULL;
        if (sizes[i]) {
            sn->data = data;
            data += sizes[i];
        }
        sn->size = sizes[i];
        sn->users = 1;
        sn->type = types[i];
        if (prev) {
            prev->next = sn;
        } else {
            first = sn;
        }
        prev = sn;
    }
    note_high_water(pb);
    prev->next = next;
    pb->stats.snips += n;
    return first;
}

struct wren_snip *wren_pktbuf_mark(struct wren_pktbuf *pb, struct wren_snip *pkt,
                                   size_t size, uint8_t type)
{
    if (pkt == NULL || size > pkt->size || pkt->users != 1) {
        return NULL;
    }
    size_t off = pkt->size ? off_of(pb, pkt->data) : 0;
    bool whole = size == pkt->size;
    bool aligned_cut = ((off + size) % PKTBUF_ALIGN) == 0;
    struct wren_snip *hdr;
    if (whole || aligned_cut || size == 0) {
        /* split in place: the header keeps the units before the cut */
        hdr = desc_alloc(pb);
        if (hdr == NULL) {
            return NULL;
        }
        hdr->next = pkt->next;
        hdr->data = size ? pkt->data : NULL;
        hdr->size = (uint16_t)size;
        hdr->users = 1;
        hdr->type = type;
        pb->stats.snips++;
        pkt->data = pkt->size == size ? NULL : pkt->data + size;
        pkt->size = (uint16_t)(pkt->size - size);
    } else {
        /* the cut falls inside a unit: copy the header out, give back the
         * whole units before the unit the payload now starts in */
        hdr = wren_pktbuf_add(pb, pkt->next, pkt->data, size, type);
        if (hdr == NULL) {
            return NULL;
        }
        size_t start = ROUND_DOWN(off);
        arena_free(pb, start, ROUND_DOWN(off + size) - start);
        pkt->data += size;
        pkt->size = (uint16_t)(pkt->size - size);
    }
    pkt->next = hdr;
    return hdr;
}

void wren_pktbuf_trim_front(struct wren_pktbuf *pb, struct wren_snip *snip, size_t n)
{
    if (n >= snip->size) {
        free_data(pb, snip);
        return;
    }
    size_t off = off_of(pb, snip->data);
    size_t start = ROUND_DOWN(off);
    arena_free(pb, start, ROUND_DOWN(off + n) - start);
    snip->data += n;
    snip->size = (uint16_t)(snip->size - n);
}

int wren_pktbuf_trim_back(struct wren_pktbuf *pb, struct wren_snip *snip, size_t size)
{
    if (snip->users != 1) {
        return -EINVAL;
    }
    if (size == 0) {
        free_data(pb, snip);
    } else if (size < snip->size) {
        size_t off = off_of(pb, snip->data);
        size_t keep = ROUND_UP(off + size);
        arena_free(pb, keep, ROUND_UP(off + snip->size) - keep);
        snip->size = (uint16_t)size;
    }
    return 0;
}

int wren_pktbuf_realloc_data(struct wren_pktbuf *pb, struct wren_snip *snip, size_t size)
{
    if (snip->users != 1 || size > UINT16_MAX) {
        return -EINVAL;
    }
    if (size == 0 || (snip->data && size <= snip->size)) {
        return wren_pktbuf_trim_back(pb, snip, size);
    }
    uint8_t *data = arena_alloc(pb, size);
    if (data == NULL) {
        return -ENOBUFS;
    }
    if (snip->data) {
        memcpy(data, snip->data, snip->size);
        free_data(pb, snip);
    }
    snip->data = data;
    snip->size = (uint16_t)size;
    return 0;
}

void wren_pktbuf_hold(struct wren_pktbuf *pb, struct wren_snip *pkt, unsigned n)
{
    (void)pb;
    for (; pkt; pkt = pkt->next) {
        assert(pkt->users + n <= UINT8_MAX);
        pkt->users = (uint8_t)(pkt->users + n);
    }
}

void wren_pktbuf_release(struct wren_pktbuf *pb, struct wren_snip *pkt)
{
    /* data freed along a packet is often end to end (headers split off one
     * frame or built in one chain): join such ranges into one free */
    size_t ps = 0, pe = 0;
    bool have = false;
    while (pkt) {
        struct wren_snip *next = pkt->next;
        assert(pkt->users > 0);
        if (--pkt->users == 0) {
            size_t doff = off_of(pb, pkt);
            if (pkt->size && pkt->data) {
                size_t off = off_of(pb, pkt->data);
                size_t start = ROUND_DOWN(off), end = ROUND_UP(off + pkt->size);
                if (start == doff + DESC) {
                    start = doff; /* the descriptor goes with its data */
                    doff = SIZE_MAX;
                }
                if (have && start == pe) {
                    pe = end;
                } else if (have && end == ps) {
                    ps = start;
                } else {
                    if (have) {
                        arena_free(pb, ps, pe - ps);
                    }
                    ps = start;
                    pe = end;
                    have = true;
                }
            }
            if (doff != SIZE_MAX) {
                desc_free(pb, doff);
            }
            pb->stats.snips--;
        }
        pkt = next;
    }
    if (have) {
        arena_free(pb, ps, pe - ps);
    }
}

/* A private copy of shared snip @p s (same next), dropping one user of s. */
static struct wren_snip *snip_dup(struct wren_pktbuf *pb, struct wren_snip *s)
{
    struct wren_snip *c = wren_pktbuf_add(pb, s->next, s->data, s->size, s->type);
    if (c) {
        s->users--;
    }
    return c;
}

int wren_pktbuf_write_path(struct wren_pktbuf *pb, struct wren_snip **pkt,
                           struct wren_snip **target)
{
    struct wren_snip *prev = NULL;
    for (struct wren_snip *s = *pkt; s; s = s->next) {
        bool last = s == *target;
        if (s->users > 1) {
            struct wren_snip *c = snip_dup(pb, s);
            if (c == NULL) {
                return -ENOBUFS;
            }
            if (prev) {
                prev->next = c;
            } else {
                *pkt = c;
            }
            s = c;
            if (last) {
                *target = c;
            }
        }
        if (last) {
            return 0;
        }
        prev = s;
    }
    return -EINVAL;
}

int wren_pktbuf_merge(struct wren_pktbuf *pb, struct wren_snip **pkt)
{
    struct wren_snip *head = *pkt;
    if (head == NULL || (head->next == NULL && head->users == 1)) {
        return 0;
    }
    /* a chain whose data already lie end to end (wren_pktbuf_add_chain)
     * merges in place: the head takes the data, the others' descriptors go */
    bool contiguous = head->users == 1 && head->data;
    for (struct wren_snip *sn = head; contiguous && sn->next; sn = sn->next) {
        contiguous = sn->next->users == 1 && sn->next->data == sn->data + sn->size;
    }
    if (contiguous) {
        while (head->next) {
            struct wren_snip *sn = head->next;
            head->size = (uint16_t)(head->size + sn->size);
            head->next = sn->next;
            desc_free(pb, off_of(pb, sn));
            pb->stats.snips--;
        }
        return 0;
    }
    size_t total = wren_pkt_len(head);
    struct wren_snip *m = wren_pktbuf_add(pb, NULL, NULL, total, head->type);
    if (m == NULL) {
        return -ENOBUFS;
    }
    wren_pkt_copy_from(head, 0, m->data, total);
    wren_pktbuf_release(pb, head);
    *pkt = m;
    return 0;
}

struct wren_snip *wren_pktbuf_release_head(struct wren_pktbuf *pb, struct wren_snip *pkt)
{
    /* the head's next is not touched: another holder may share it */
    struct wren_snip *rest = pkt->next;
    assert(pkt->users > 0);
    if (pkt->users > 1) {
        pkt->users--;
    } else {
        pkt->next = NULL; /* ours alone: cut it off and free it alone */
        wren_pktbuf_release(pb, pkt);
    }
    return rest;
}

void wren_pktbuf_remove_snip(struct wren_pktbuf *pb, struct wren_snip **pkt,
                             struct wren_snip *snip)
{
    if (*pkt == snip) {
        *pkt = wren_pktbuf_release_head(pb, snip);
        return;
    }
    struct wren_snip *prev = *pkt;
    while (prev && prev->next != snip) {
        prev = prev->next;
    }
    if (prev == NULL) {
        return;
    }
    /* unlinking rewrites prev->next: prev must be ours alone; if it
     * cannot be copied, keep the snip rather than corrupt a sharer */
    if (wren_pktbuf_write_path(pb, pkt, &prev) != 0) {
        return;
    }
    prev->next = snip->next;
    wren_pktbuf_release_head(pb, snip);
}

struct wren_snip *wren_pkt_reverse(struct wren_snip *pkt)
{
    struct wren_snip *out = NULL;
    while (pkt) {
        struct wren_snip *next = pkt->next;
        pkt->next = out;
        out = pkt;
        pkt = next;
    }
    return out;
}

size_t wren_pkt_len(const struct wren_snip *pkt)
{
    size_t n = 0;
    for (; pkt; pkt = pkt->next) {
        n += pkt->size;
    }
    return n;
}

struct wren_snip *wren_pkt_search(struct wren_snip *pkt, uint8_t type)
{
    for (; pkt; pkt = pkt->next) {
        if (pkt->type == type) {
            return pkt;
        }
    }
    return NULL;
}

size_t wren_pkt_copy(const struct wren_snip *pkt, void *buf, size_t max)
{
    return wren_pkt_copy_from(pkt, 0, buf, max);
}

size_t wren_pkt_copy_from(const struct wren_snip *pkt, size_t off, void *buf, size_t n)
{
    size_t done = 0;
    for (; pkt && done < n; pkt = pkt->next) {
        if (off >= pkt->size) {
            off -= pkt->size;
            continue;
        }
        size_t k = pkt->size - off < n - done ? pkt->size - off : n - done;
        memcpy((uint8_t *)buf + done, pkt->data + off, k);
        done += k;
        off = 0;
    }
    return done;
}

bool wren_pktbuf_is_sane(const struct wren_pktbuf *pb)
{
    size_t free_bytes = 0;
    size_t prev_end = 0;
    bool first = true;
    size_t off = pb->free_head;
    size_t guard = pb->size / PKTBUF_ALIGN + 1;
    while (off < pb->size) {
        if (guard-- == 0 || off % PKTBUF_ALIGN) {
            return false;
        }
        struct blk b = blk_get(pb, off);
        if (b.size == 0 || b.size % PKTBUF_ALIGN || off + b.size > pb->size) {
            return false;
        }
        /* ordered, and never two adjacent free blocks */
        if (!first && off <= prev_end) {
            return false;
        }
        first = false;
        prev_end = off + b.size;
        free_bytes += b.size;
        off = b.next;
    }
    size_t cached = 0;
    for (const uint8_t *d = pb->desc_cache; d && cached <= PKTBUF_DESC_CACHE * DESC;) {
        cached += DESC;
        const uint8_t *nx;
        memcpy(&nx, d, sizeof(nx));
        d = nx;
    }
    return off == pb->size && cached == (size_t)pb->desc_cached * DESC &&
           free_bytes + cached + pb->stats.in_use == pb->size;
}
