/* 802.15.4 security in the link layer (see ieee802154_sec.h):
 * 802.15.4-2015 9.2.2 (outgoing frame security procedure), 9.2.4
 * (incoming), 9.3 (CCM* nonce and inputs), 9.4 (auxiliary header). */
#include "link/ieee802154_sec.h"

#include <errno.h>
#include <string.h>

#include "crypto/ccm.h"
#include "core/node.h"
#include "link/ieee802154_link.h"
#include "net/netopt.h"

#if CONFIG_WREN_IEEE802154_SEC

static size_t mic_len(uint8_t level)
{
    return level & 3 ? (size_t)2 << (level & 3) : 0;
}

/* 9.2.5: a level satisfies a required one if it has at least its MIC and
 * encrypts if that does. */
static bool level_ok(uint8_t got, uint8_t req)
{
    return (got & 3) >= (req & 3) && (got & 4) >= (req & 4);
}

/* entries of the key table: none before the first key made it
 * (CONFIG_WREN_NODE_MEM; built in otherwise); the neighbours' table is made
 * with it, and reached only with a key */
static unsigned n_keys(const struct wren_ieee802154_sec *s)
{
#if CONFIG_WREN_NODE_MEM
    return s->keys ? CONFIG_WREN_IEEE802154_SEC_KEYS : 0;
#else
    (void)s;
    return CONFIG_WREN_IEEE802154_SEC_KEYS;
#endif
}

static const uint8_t *key_of(const struct wren_ieee802154_sec *s, uint8_t index)
{
    for (unsigned i = 0; index && i < n_keys(s); i++) {
        if (s->keys[i].index == index)
            return s->keys[i].key;
    }
    return NULL;
}

/* 9.3.2.2: source EUI-64, then the frame counter (big-endian) and the
 * level, or the 5-byte ASN (big-endian). */
static void nonce_of(uint8_t n[13], const uint8_t src[8], const struct ieee802154_hdr *h,
                     uint64_t asn)
{
    memcpy(n, src, 8);
    if (h->asn_in_nonce) {
        for (unsigned i = 0; i < 5; i++)
            n[8 + i] = (uint8_t)(asn >> (8 * (4 - i)));
    } else {
        for (unsigned i = 0; i < 4; i++)
            n[8 + i] = (uint8_t)(h->frame_counter >> (8 * (3 - i)));
        n[12] = h->sec_level;
    }
}

size_t wren_ieee802154_sec_overhead(const struct wren_ieee802154_netif *nif, uint8_t type)
{
    uint8_t level = nif->sec.level[type & 3];
    /* security control, frame counter, key index (key id mode 1) */
    return level ? 1 + 4 + 1 + mic_len(level) : 0;
}

int wren_ieee802154_sec_prepare(struct wren_ieee802154_netif *nif, struct ieee802154_hdr *h,
                                bool tsch)
{
    struct wren_ieee802154_sec *s = &nif->sec;
    uint8_t t = h->type & 3;

    if (!s->level[t])
        return 0;
    if (h->src_mode == IEEE802154_ADDR_SHORT || (tsch && h->version < IEEE802154_VERSION_2015))
        return -EINVAL;
    if (!key_of(s, s->key_index[t])) {
        s->stats.tx_no_key++;
        return -ENOENT;
    }
    if (tsch) {
        /* 9.4.2: the ASN replaces the frame counter in the nonce */
        h->fc_suppressed = true;
        h->asn_in_nonce = true;
    } else {
        if (s->frame_counter == UINT32_MAX) {
            s->stats.tx_counter_end++;
            return -EOVERFLOW;
        }
        h->frame_counter = s->frame_counter++;
    }
    h->security = true;
    h->sec_level = s->level[t];
    h->key_id_mode = 1;
    h->key_index = s->key_index[t];
    return (int)mic_len(h->sec_level);
}

int wren_ieee802154_sec_secure(struct wren_ieee802154_netif *nif, const struct ieee802154_hdr *h,
                               uint64_t asn, uint8_t *mpdu, size_t open_len, size_t len)
{
    const uint8_t *key = key_of(&nif->sec, h->key_index);
    size_t mic = mic_len(h->sec_level);
    uint8_t nonce[13];

    if (!key)
        return -ENOENT;
    if (len < mic || (h->sec_level & 4 && len - mic < open_len))
        return -EINVAL;
    len -= mic;
    if (!(h->sec_level & 4))
        open_len = len; /* authentication only: nothing encrypted */
    nonce_of(nonce, nif->long_addr, h, asn);
    wren_ccm_seal(key, nonce, mpdu, open_len, len - open_len, mic);
    nif->sec.stats.tx_secured++;
    return 0;
}

static struct wren_ieee802154_sec_nbr *nbr_of(struct wren_ieee802154_sec *s, const uint8_t *a,
                                              struct wren_ieee802154_sec_nbr **free_slot)
{
    *free_slot = NULL;
    for (unsigned i = 0; i < CONFIG_WREN_IEEE802154_SEC_NEIGHBOURS; i++) {
        struct wren_ieee802154_sec_nbr *n = &s->nbrs[i];
        if (!n->used) {
            if (!*free_slot)
                *free_slot = n;
        } else if (memcmp(n->addr, a, 8) == 0) {
            return n;
        }
    }
    return NULL;
}

/* 9.2.4 h), i): the counter must be fresh. @p *n: the neighbour's entry, or
 * NULL and @p *slot a free one. Returns 0 (fresh), 1 (the neighbour's last
 * counter again: a retransmission, if the MIC holds) or a drop reason. */
static int counter_check(struct wren_ieee802154_sec *s, const struct ieee802154_hdr *h,
                         const uint8_t *src, struct wren_ieee802154_sec_nbr **n,
                         struct wren_ieee802154_sec_nbr **slot, uint32_t **reason)
{
    *n = nbr_of(s, src, slot);
    if (*n && h->frame_counter == (*n)->counter) {
        return 1;
    }
    if (h->frame_counter == UINT32_MAX || (*n && h->frame_counter < (*n)->counter)) {
        *reason = &s->stats.rx_replay;
        return -EALREADY;
    }
    if (!*n && !*slot) {
        *reason = &s->stats.rx_nbr_full;
        return -ENOSPC;
    }
    return 0;
}

/* 9.2.4 b)-e): a secured frame needs a level, and a counter unless the ASN
 * stands in for it; the ASN only on a link with slots; a level the policy
 * for its frame type accepts. 0, or a drop reason in @p *reason. */
static int frame_check(struct wren_ieee802154_sec *s, const struct ieee802154_hdr *h,
                       const uint64_t *asn, uint32_t **reason)
{
    if (!h->sec_level || (h->fc_suppressed && !h->asn_in_nonce)) {
        *reason = &s->stats.rx_malformed;
        return -EPROTO;
    }
    /* 9.3.2.2: the ASN in the nonce is TSCH's; a link without slots has no
     * ASN to hold it to, and such a frame skips the counter check: one
     * recorded would pass for ever */
    if (h->asn_in_nonce && !asn) {
        *reason = &s->stats.rx_asn_not_tsch;
        return -EOPNOTSUPP;
    }
    if (!level_ok(h->sec_level, s->level[h->type & 3])) {
        *reason = &s->stats.rx_level;
        return -EPERM;
    }
    return 0;
}

/* 9.2.4 k): the neighbour's counter is the frame's from now on (a new
 * neighbour takes the free slot). */
static void counter_update(const struct ieee802154_hdr *h, const uint8_t *src,
                           struct wren_ieee802154_sec_nbr *n, struct wren_ieee802154_sec_nbr *slot)
{
    if (!n) {
        n = slot;
        memcpy(n->addr, src, 8);
        n->used = true;
    }
    n->counter = h->frame_counter;
}

int wren_ieee802154_sec_unsecure(struct wren_ieee802154_netif *nif, struct ieee802154_frame *f,
                                 uint8_t *mpdu, size_t len, const uint8_t *src,
                                 const uint64_t *asn)
{
    struct wren_ieee802154_sec *s = &nif->sec;
    const struct ieee802154_hdr *h = &f->hdr;
    struct wren_ieee802154_sec_nbr *n = NULL, *slot = NULL;
    uint32_t *reason;
    const uint8_t *key;
    uint8_t nonce[13];
    size_t mic = wren_ieee802154_mic_len(h);
    size_t end = len - mic; /* parse checked len >= mic */
    size_t open_len;
    int err, fresh = 0;

    if (!h->security) {
        if (!s->level[h->type & 3])
            return 0;
        reason = &s->stats.rx_level, err = -EPERM;
        goto drop;
    }
    err = frame_check(s, h, asn, &reason);
    if (err)
        goto drop;
    /* key identifier mode 1 only: the key index names the key */
    key = h->key_id_mode == 1 ? key_of(s, h->key_index) : NULL;
    if (!key) {
        reason = &s->stats.rx_no_key, err = -ENOENT;
        goto drop;
    }
    if (!src) {
        if (h->src_mode != IEEE802154_ADDR_EXT) {
            reason = &s->stats.rx_no_src, err = -EADDRNOTAVAIL;
            goto drop;
        }
        src = h->src_addr;
    }
    if (!h->asn_in_nonce) {
        fresh = counter_check(s, h, src, &n, &slot, &reason);
        if (fresh < 0) {
            err = fresh;
            goto drop;
        }
    }
    /* a: all up to the payload IEs (or the payload); m: the rest */
    open_len = h->sec_level & 4 ? (size_t)((f->payload_ie_len ? f->payload_ie : f->payload) - mpdu)
                                : end;
    nonce_of(nonce, src, h, h->asn_in_nonce ? *asn : 0);
    if (wren_ccm_open(key, nonce, mpdu, open_len, end - open_len, mic) < 0) {
        /* (a retransmission's MIC too: a forgery under the last counter
         * must not reach the MAC, which would ACK it and take its sequence
         * number for one seen) */
        reason = &s->stats.rx_bad_mic, err = -EBADMSG;
        goto drop;
    }
    if (fresh == 1) {
        return 1; /* the last frame again: a retransmission (our ACK was lost) */
    }
    if (!h->asn_in_nonce)
        counter_update(h, src, n, slot);
    s->stats.rx_secured++;
    return 0;

drop:
    (*reason)++;
    return err;
}

void wren_ieee802154_sec_init(struct wren_ieee802154_netif *nif)
{
    memset(&nif->sec, 0, sizeof(nif->sec));
}

int wren_ieee802154_sec_get(struct wren_ieee802154_netif *nif, uint16_t opt, void *val,
                            size_t max)
{
    struct wren_ieee802154_sec *s = &nif->sec;
    switch (opt) {
    case WREN_NETOPT_SEC_KEY: {
        uint8_t idx[CONFIG_WREN_IEEE802154_SEC_KEYS];
        size_t n = 0;
        for (unsigned i = 0; i < n_keys(s); i++) {
            if (s->keys[i].index)
                idx[n++] = s->keys[i].index;
        }
        return wren_netopt_put(val, max, idx, n);
    }
    case WREN_NETOPT_SEC_LEVEL: {
        struct wren_ieee802154_sec_policy p;
        if (max < sizeof(p))
            return -EOVERFLOW;
        memcpy(&p, val, sizeof(p));
        if (p.frame_type > IEEE802154_TYPE_CMD)
            return -EINVAL;
        p.level = s->level[p.frame_type];
        p.key_index = s->key_index[p.frame_type];
        return wren_netopt_put(val, max, &p, sizeof(p));
    }
    case WREN_NETOPT_SEC_FRAME_COUNTER:
        return wren_netopt_put(val, max, &s->frame_counter, 4);
    case WREN_NETOPT_SEC_STATS:
        return wren_netopt_put(val, max, &s->stats, sizeof(s->stats));
    case WREN_NETOPT_SEC_OVERHEAD: {
        uint16_t v = (uint16_t)wren_ieee802154_sec_overhead(nif, IEEE802154_TYPE_DATA);
        return wren_netopt_put(val, max, &v, 2);
    }
    default:
        return -ENOTSUP;
    }
}

/* A key (its index names it): replaces the key of that index, else takes a
 * free entry. */
static int key_set(struct wren_ieee802154_sec *s, const void *val, size_t len)
{
    struct wren_ieee802154_sec_key k;
    struct wren_ieee802154_sec_key *slot = NULL;
    if (len != sizeof(k))
        return -EINVAL;
    memcpy(&k, val, sizeof(k));
    if (k.index == 0)
        return -EINVAL;
    for (unsigned i = 0; i < CONFIG_WREN_IEEE802154_SEC_KEYS; i++) {
        struct wren_ieee802154_sec_key *e = &s->keys[i];
        if (e->index == k.index || (!slot && !e->index))
            slot = e;
        if (e->index == k.index)
            break;
    }
    if (!slot)
        return -ENOSPC;
    *slot = k;
    return 0;
}

static int key_del(struct wren_ieee802154_sec *s, const void *val, size_t len)
{
    if (len != 1)
        return -EINVAL;
    for (unsigned i = 0; i < n_keys(s); i++) {
        if (s->keys[i].index && s->keys[i].index == *(const uint8_t *)val) {
            memset(&s->keys[i], 0, sizeof(s->keys[i]));
            return 0;
        }
    }
    return -ENOENT;
}

#if CONFIG_WREN_NODE_MEM
/* The tables, made by the first key (charged to the interface). @return 0
 * or -ENOMEM (counted). */
static int tab_ready(struct wren_ieee802154_netif *nif)
{
    struct wren_ieee802154_sec *s = &nif->sec;
    if (s->keys == NULL) {
        struct wren_ieee802154_sec_tab *t =
            wren_node_mem(nif->netif.node, nif->netif.module.ops, sizeof(*t));
        if (t == NULL) {
            s->stats.no_mem++;
            return -ENOMEM;
        }
        s->keys = t->keys;
        s->nbrs = t->nbrs;
    }
    return 0;
}
#endif

int wren_ieee802154_sec_set(struct wren_ieee802154_netif *nif, uint16_t opt, const void *val,
                            size_t len)
{
    struct wren_ieee802154_sec *s = &nif->sec;
    switch (opt) {
    case WREN_NETOPT_SEC_KEY:
#if CONFIG_WREN_NODE_MEM
        /* (a key key_set refuses makes nothing) */
        if (len == sizeof(struct wren_ieee802154_sec_key) && *(const uint8_t *)val &&
            tab_ready(nif) < 0)
            return -ENOMEM;
#endif
        return key_set(s, val, len);
    case WREN_NETOPT_SEC_KEY_DEL:
        return key_del(s, val, len);
    case WREN_NETOPT_SEC_LEVEL: {
        struct wren_ieee802154_sec_policy p;
        if (len != sizeof(p))
            return -EINVAL;
        memcpy(&p, val, sizeof(p));
        if (p.frame_type > IEEE802154_TYPE_CMD || p.level > 7 || (p.level && !p.key_index))
            return -EINVAL;
        s->level[p.frame_type] = p.level;
        s->key_index[p.frame_type] = p.key_index;
        return 0;
    }
    case WREN_NETOPT_SEC_FRAME_COUNTER:
        if (len != 4)
            return -EINVAL;
        memcpy(&s->frame_counter, val, 4);
        return 0;
    default:
        return -ENOTSUP;
    }
}

#endif /* CONFIG_WREN_IEEE802154_SEC */
