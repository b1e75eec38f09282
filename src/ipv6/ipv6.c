#include "ipv6/ipv6.h"
#include "ipv6/ipv6_priv.h"

#include <errno.h>
#include <string.h>

#include "core/byteorder.h"
#include "core/config.h"
#include "shell/shell.h"
#include "core/node.h"
#include "link/link_est.h"
#include "net/netapi.h"
#include "net/netif.h"
#include "net/netopt.h"
#include "net/nettype.h"
#include "wire/icmpv6_types.h"
#include "wire/inet_csum.h"
#include "wire/ipv6.h"
#include "wire/ipv6_ext.h"
#include "wire/rpl.h"

struct wren_ipv6_if *wren_ipv6_if_get(struct wren_ipv6 *ip, uint8_t if_id)
{
    for (unsigned i = 0; if_id && i < wren_ipv6_n_ifs(ip); i++) {
        if (WREN_IPV6_IF(ip, i)->if_id == if_id) {
            return WREN_IPV6_IF(ip, i);
        }
    }
    return NULL;
}

/* ---- addresses --------------------------------------------------------- */

/* RFC 6282 section 3.2.2: the IID of a short address, 0000:00ff:fe00:XXXX */
static const uint8_t short_iid[6] = { 0, 0, 0, 0xff, 0xfe, 0 };

void wren_ipv6_iid_from_l2(uint8_t *iid, const uint8_t *l2, uint8_t l2len)
{
    if (l2len == 8) {
        /* RFC 4944 section 6: the EUI-64 with the U/L bit inverted */
        memcpy(iid, l2, 8);
        iid[0] ^= 0x02;
    } else if (CONFIG_WREN_IPV6_ETHERNET && l2len == 6) {
        /* RFC 4291 appendix A / RFC 2464 4: EUI-48 -> EUI-64 (ff:fe in the
         * middle), U/L bit inverted (Ethernet links only) */
        memcpy(iid, l2, 3);
        iid[3] = 0xff;
        iid[4] = 0xfe;
        memcpy(iid + 5, l2 + 3, 3);
        iid[0] ^= 0x02;
    } else {
        memcpy(iid, short_iid, 6);
        iid[6] = l2len == 2 ? l2[0] : 0;
        iid[7] = l2len == 2 ? l2[1] : 0;
    }
}

uint8_t wren_ipv6_l2_from_iid(const uint8_t *iid, uint8_t *l2)
{
    if (memcmp(iid, short_iid, 6) == 0) {
        l2[0] = iid[6];
        l2[1] = iid[7];
        return 2;
    }
    memcpy(l2, iid, 8);
    l2[0] ^= 0x02;
    return 8;
}

/* The slot of @p ifc holding @p addr, or -1. */
static int addr_index(const struct wren_ipv6_if *ifc, const uint8_t *addr)
{
    for (int i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
        if (ifc->addrs[i].state && memcmp(ifc->addrs[i].addr, addr, 16) == 0) {
            return i;
        }
    }
    return -1;
}

int wren_ipv6_addr_add(struct wren_ipv6 *ip, uint8_t if_id, const uint8_t *addr,
                       uint8_t prefix_len, uint8_t state)
{
    struct wren_ipv6_if *ifc = wren_ipv6_if_get(ip, if_id);
    if (ifc == NULL) {
        return -ENODEV;
    }
    if (prefix_len > 128 || wren_ipv6_addr_is_multicast(addr) || wren_ipv6_addr_is_unspecified(addr) ||
        state == WREN_IPV6_ADDR_UNUSED) {
        return -EINVAL;
    }
    /* update in place, else the first free slot */
    int i = addr_index(ifc, addr);
    for (int k = 0; i < 0 && k < CONFIG_WREN_IPV6_ADDRS; k++) {
        i = ifc->addrs[k].state ? -1 : k;
    }
    if (i < 0) {
        return -ENOSPC;
    }
    struct wren_ipv6_addr *a = &ifc->addrs[i];
    wren_ipv6_addr_copy(a->addr, addr);
    a->prefix_len = prefix_len;
    a->state = state;
    return 0;
}

static int addr_remove(struct wren_ipv6_if *ifc, const uint8_t *addr)
{
    if (ifc == NULL) {
        return -ENODEV;
    }
    int i = addr_index(ifc, addr);
    if (i < 0) {
        return -ENOENT;
    }
    memset(&ifc->addrs[i], 0, sizeof(ifc->addrs[i]));
    return 0;
}

bool wren_ipv6_is_own(const struct wren_ipv6 *ip, const uint8_t *addr)
{
    for (unsigned k = 0; k < wren_ipv6_n_ifs(ip); k++) {
        if (WREN_IPV6_IF(ip, k)->if_id && addr_index(WREN_IPV6_IF(ip, k), addr) >= 0) {
            return true;
        }
    }
    return false;
}

static int group_set(struct wren_ipv6_if *ifc, const uint8_t *g, bool join)
{
    if (ifc == NULL) {
        return -ENODEV;
    }
    if (!wren_ipv6_addr_is_multicast(g)) {
        return -EINVAL;
    }
#if !CONFIG_WREN_IPV6_GROUPS
    (void)join;
    return -ENOTSUP;
#else
    /* join: the first free slot (::); leave: the group's slot */
    static const uint8_t none[16];
    for (unsigned i = 0; i < CONFIG_WREN_IPV6_GROUPS; i++) {
        if (memcmp(ifc->groups[i], join ? none : g, 16) == 0) {
            memcpy(ifc->groups[i], join ? g : none, 16);
            return 0;
        }
    }
    return join ? -ENOSPC : -ENOENT;
#endif
}

static unsigned scope_of(const uint8_t *a)
{
    if (wren_ipv6_addr_is_multicast(a)) {
        return a[1] & 0x0f;
    }
    if (wren_ipv6_addr_is_link_local(a) || wren_ipv6_addr_is_loopback(a)) {
        return 2;
    }
    return 14;
}

int wren_ipv6_select_src(const struct wren_ipv6 *ip, uint8_t if_id, const uint8_t *dst,
                         uint8_t *src)
{
    const struct wren_ipv6_addr *best = NULL;
    unsigned best_score = 0;
    unsigned dscope = scope_of(dst);
    for (unsigned k = 0; k < wren_ipv6_n_ifs(ip); k++) {
        const struct wren_ipv6_if *ifc = WREN_IPV6_IF(ip, k);
        if (!ifc->if_id || (if_id && ifc->if_id != if_id)) {
            continue;
        }
        for (unsigned i = 0; i < CONFIG_WREN_IPV6_ADDRS; i++) {
            const struct wren_ipv6_addr *a = &ifc->addrs[i];
            if (a->state != WREN_IPV6_ADDR_VALID) {
                continue;
            }
            /* rule 2: a scope at least the destination's, the smallest such;
             * rule 8: longest matching prefix */
            unsigned s = scope_of(a->addr);
            unsigned score = (s >= dscope ? 256u : 0u) + (16u - (s > dscope ? s - dscope : 0u)) * 8u +
                             (wren_ipv6_addr_is_multicast(dst) ? 0 : wren_ipv6_prefix_common(a->addr, dst) / 16);
            if (best == NULL || score > best_score) {
                best = a;
                best_score = score;
            }
        }
    }
    if (best == NULL) {
        return -EADDRNOTAVAIL;
    }
    wren_ipv6_addr_copy(src, best->addr);
    return 0;
}

#if CONFIG_WREN_IPV6_ROUTER
void wren_ipv6_icmp_error(struct wren_ipv6 *ip, struct wren_snip *pkt, uint8_t type, uint8_t code,
                          uint16_t param)
{
    ipv6_icmp_error_post(ip, pkt, type, code, param);
}
#endif

/* ---- module ------------------------------------------------------------ */

static void ipv6_handle(struct wren_node *node, struct wren_module *self,
                        const struct wren_msg *msg)
{
    struct wren_ipv6 *ip = (struct wren_ipv6 *)self;
    switch (msg->type) {
    case WREN_MSG_SND:
        wren_ipv6_send(ip, msg->ptr);
        break;
    case WREN_MSG_RCV:
        wren_ipv6_receive(ip, msg->ptr);
        break;
    default:
        if (msg->ptr) {
            wren_pktbuf_release(&node->pktbuf, msg->ptr);
        }
        break;
    }
}

static int ipv6_get(struct wren_node *node, struct wren_module *self, uint16_t opt,
                    uint16_t ctx, void *val, size_t max)
{
    (void)node;
    struct wren_ipv6 *ip = (struct wren_ipv6 *)self;
    struct wren_ipv6_if *ifc = wren_ipv6_if_get(ip, (uint8_t)ctx);
    uint8_t fwd = ip->forwarding;
    const void *v;  /* the value; NULL: needs an interface ctx does not name */
    size_t len;
    switch (opt) {
    case WREN_NETOPT_IPV6_ADDR:
        v = ifc ? ifc->addrs : NULL;
        len = sizeof(ifc->addrs);
        break;
    case WREN_NETOPT_IPV6_SRC_SELECT: {
        if (max < 16) {
            return -EOVERFLOW;
        }
        uint8_t dst[16];
        wren_ipv6_addr_copy(dst, val);
        int res = wren_ipv6_select_src(ip, (uint8_t)ctx, dst, val);
        return res < 0 ? res : 16;
    }
    case WREN_NETOPT_IPV6_IS_OWN: {
        if (max < 16) {
            return -EOVERFLOW;
        }
        uint8_t own = wren_ipv6_is_own(ip, val);
        return wren_netopt_put(val, max, &own, 1);
    }
    case WREN_NETOPT_IPV6_FORWARDING:
        v = &fwd;
        len = 1;
        break;
    case WREN_NETOPT_IPV6_ROUTES:
        v = wren_ipv6_fib(ip)->e;
        len = sizeof(ip->fib->e);
        break;
    case WREN_NETOPT_IPV6_STATS:
        v = &ip->stats;
        len = sizeof(ip->stats);
        break;
    case WREN_NETOPT_IPV6_MTU:
        v = ifc ? &ifc->mtu : NULL;
        len = sizeof(ifc->mtu);
        break;
    case WREN_NETOPT_HOP_LIMIT:
        v = ifc ? &ifc->hop_limit : NULL;
        len = sizeof(ifc->hop_limit);
        break;
    default:
        return -ENOTSUP;
    }
    return v ? wren_netopt_put(val, max, v, len) : -ENODEV;
}

/* SET WREN_NETOPT_ADDR_LEN: the link address frames leave from, set on
 * the interface, and taken for the netif headers 6LoWPAN compresses
 * against. */
static int set_addr_len(struct wren_ipv6 *ip, struct wren_ipv6_if *ifc, const void *val,
                        size_t len)
{
    struct wren_netif *netif = ifc ? wren_netif_get(ip->node, ifc->if_id) : NULL;
    uint16_t alen = 0;
    if (netif == NULL) {
        return -ENODEV;
    }
    int res = wren_netapi_set(ip->node, &netif->module, WREN_NETOPT_ADDR_LEN, 0, val, len);
    if (res < 0) {
        return res;
    }
    memcpy(&alen, val, 2);
    int n = wren_netapi_get(ip->node, &netif->module,
                            alen == 8 ? WREN_NETOPT_ADDRESS_LONG : WREN_NETOPT_ADDRESS, 0,
                            ifc->l2addr, sizeof(ifc->l2addr));
    ifc->l2len = n > 0 ? (uint8_t)n : 0;
    return 0;
}

/* values of bytes only: SET may read them in place, at any alignment */
_Static_assert(_Alignof(struct wren_ipv6_addr) == 1 && _Alignof(struct wren_fib_entry) == 1,
               "option structs of bytes");

/* SET WREN_NETOPT_IPV6_ROUTE_ADD / _DEL: a FIB route. */
static int set_route(struct wren_ipv6 *ip, uint16_t opt, const void *val, size_t len)
{
    const struct wren_fib_entry *r = val;
    if (len != sizeof(*r)) {
        return -EINVAL;
    }
    if (opt == WREN_NETOPT_IPV6_ROUTE_DEL) {
#if CONFIG_WREN_NODE_MEM
        if (ip->fib == NULL) {
            return -ENOENT; /* no route was ever added */
        }
#endif
        return wren_fib_del(ip->fib, r->prefix, r->prefix_len);
    }
    if (wren_ipv6_if_get(ip, r->if_id) == NULL) {
        return -ENODEV;
    }
#if CONFIG_WREN_NODE_MEM
    if (WREN_LAZY_GET(ip->node, ip, fib) == NULL) {
        return -ENOMEM; /* the table: made by the first route */
    }
#endif
    return wren_fib_add(ip->fib, r);
}

/* SET WREN_NETOPT_IPV6_FORWARDING (a router's build only). */
static int set_forwarding(struct wren_ipv6 *ip, const uint8_t *b, size_t len)
{
    if (!CONFIG_WREN_IPV6_ROUTER) {
        return -ENOTSUP;
    }
    if (len != 1) {
        return -EINVAL;
    }
    ip->forwarding = b[0] != 0;
    return 0;
}

/* SET WREN_NETOPT_IPV6_MTU of an interface: at least IPv6's minimum. */
static int set_mtu(struct wren_ipv6_if *ifc, const void *val, size_t len)
{
    uint16_t mtu = 0;
    if (len == 2) {
        memcpy(&mtu, val, 2);
    }
    if (ifc == NULL || mtu < IPV6_MIN_MTU) {
        return ifc ? -EINVAL : -ENODEV;
    }
    ifc->mtu = mtu;
    return 0;
}

static int ipv6_set(struct wren_node *node, struct wren_module *self, uint16_t opt,
                    uint16_t ctx, const void *val, size_t len)
{
    (void)node;
    struct wren_ipv6 *ip = (struct wren_ipv6 *)self;
    struct wren_ipv6_if *ifc = wren_ipv6_if_get(ip, (uint8_t)ctx);
    const uint8_t *b = val;
    switch (opt) {
    case WREN_NETOPT_IPV6_NETIF_ADD:
        return len == 1 ? wren_ipv6_netif_add(ip, b[0]) : -EINVAL;
    case WREN_NETOPT_IPV6_ADDR: {
        const struct wren_ipv6_addr *a = val;
        if (len != sizeof(*a)) {
            return -EINVAL;
        }
        return wren_ipv6_addr_add(ip, (uint8_t)ctx, a->addr, a->prefix_len, a->state);
    }
    case WREN_NETOPT_IPV6_ADDR_REMOVE:
        return len == 16 ? addr_remove(ifc, val) : -EINVAL;
    case WREN_NETOPT_IPV6_GROUP_JOIN:
    case WREN_NETOPT_IPV6_GROUP_LEAVE:
        return len == 16 ? group_set(ifc, val, opt == WREN_NETOPT_IPV6_GROUP_JOIN) : -EINVAL;
    case WREN_NETOPT_IPV6_FORWARDING:
        return set_forwarding(ip, b, len);
    case WREN_NETOPT_IPV6_ROUTE_ADD:
    case WREN_NETOPT_IPV6_ROUTE_DEL:
        return set_route(ip, opt, val, len);
    case WREN_NETOPT_IPV6_MTU:
        return set_mtu(ifc, val, len);
    case WREN_NETOPT_ADDR_LEN:
        return set_addr_len(ip, ifc, val, len);
    case WREN_NETOPT_HOP_LIMIT:
        if (ifc == NULL || len != 1 || b[0] == 0) {
            return ifc ? -EINVAL : -ENODEV;
        }
        ifc->hop_limit = b[0];
        return 0;
    default:
        return -ENOTSUP;
    }
}

/* IPv6 runs on every interface the node has */
static int ipv6_stack_start(struct wren_node *node, struct wren_ipv6 *ip)
{
    int res = wren_ipv6_init(node, ip);
    for (struct wren_netif *n = node->netifs; n && res >= 0; n = n->next) {
        res = wren_ipv6_netif_add(ip, n->id);
    }
    return res;
}

static int ipv6_stack_init(struct wren_node *node, struct wren_module *self, uint8_t if_id)
{
    (void)if_id;
    return ipv6_stack_start(node, (struct wren_ipv6 *)self);
}

static const struct wren_counter_set ipv6_counters =
    WREN_COUNTER_SET("ipv6", WREN_IPV6_COUNTERS, WREN_NETOPT_IPV6_STATS, uint32_t);

/* in its _shell.c */
extern const struct wren_shell_cmd wren_ipv6_shell_cmds[];

const struct wren_module_ops wren_ipv6_module = {
    .name = "ipv6",
    .handle = ipv6_handle,
    .get = ipv6_get,
    .set = ipv6_set,
    .init = ipv6_stack_init,
    .size = sizeof(struct wren_ipv6),
    .counters = WREN_IF_NAMES(&ipv6_counters),
    .cmds = WREN_IF_SHELL(wren_ipv6_shell_cmds),
};

int wren_ipv6_init(struct wren_node *node, struct wren_ipv6 *ip)
{
    memset(ip, 0, sizeof(*ip));
    ip->module.ops = &wren_ipv6_module;
    ip->module.prio = WREN_PRIO_NET;
    ip->node = node;
    if (!CONFIG_WREN_NODE_MEM) {
        wren_fib_init(ip->fib); /* built in (zeroed by the init's memset too) */
    }
    return wren_netreg_register(node, WREN_NETTYPE_IPV6, WREN_NETREG_DEMUX_ALL, &ip->module,
                                &ip->reg);
}

int wren_ipv6_netif_add(struct wren_ipv6 *ip, uint8_t if_id)
{
    struct wren_node *node = ip->node;
    struct wren_netif *netif = wren_netif_get(node, if_id);
    if (netif == NULL) {
        return -ENODEV;
    }
    struct wren_ipv6_if *ifc = wren_ipv6_if_get(ip, if_id);
    for (unsigned i = 0; ifc == NULL && i < wren_ipv6_n_ifs(ip); i++) {
        ifc = WREN_IPV6_IF(ip, i)->if_id == 0 ? WREN_IPV6_IF(ip, i) : NULL;
    }
#if WREN_IPV6_IFS_LAZY
    if (ifc == NULL && ip->more_ifs == NULL) { /* the second: the other slots made now */
        if (WREN_LAZY_GET(node, ip, more_ifs) == NULL) {
            ip->stats.no_mem++;
            return -ENOMEM;
        }
        ifc = &ip->more_ifs->e[0];
    }
#endif
    if (ifc == NULL) {
        return -ENOSPC;
    }
    memset(ifc, 0, sizeof(*ifc));
    ifc->if_id = if_id;
    ifc->hop_limit = WREN_IPV6_DEFAULT_HOP_LIMIT;
    ifc->mtu = IPV6_MIN_MTU;
    uint16_t type = 0, alen = 2;
    wren_netapi_get(node, &netif->module, WREN_NETOPT_DEVICE_TYPE, 0, &type, sizeof(type));
    if (type == WREN_NETDEV_TYPE_IEEE802154) {
        ifc->flags |= WREN_IPV6_IF_SIXLO;
    } else if (type == WREN_NETDEV_TYPE_LORA) {
        ifc->flags |= WREN_IPV6_IF_SCHC; /* RFC 8724: SCHC fragments up to the IPv6 MTU */
    } else if (type == WREN_NETDEV_TYPE_ETHERNET) {
        if (!CONFIG_WREN_IPV6_ETHERNET) {
            ifc->if_id = 0; /* the slot stays free */
            return -ENOTSUP;
        }
        /* RFC 2464: the link's MTU; next hops resolved by NS/NA */
        ifc->flags |= WREN_IPV6_IF_ND;
        uint16_t mtu = 0;
        wren_netapi_get(node, &netif->module, WREN_NETOPT_MAX_PDU_SIZE, 0, &mtu, sizeof(mtu));
        ifc->mtu = mtu > IPV6_MIN_MTU ? mtu : IPV6_MIN_MTU;
    }
    wren_netapi_get(node, &netif->module, WREN_NETOPT_ADDR_LEN, 0, &alen, sizeof(alen));
    int n = wren_netapi_get(node, &netif->module,
                            alen == 8 ? WREN_NETOPT_ADDRESS_LONG : WREN_NETOPT_ADDRESS, 0,
                            ifc->l2addr, sizeof(ifc->l2addr));
    ifc->l2len = n > 0 ? (uint8_t)n : 0;
    uint8_t ll[16] = { 0xfe, 0x80 };
    uint8_t eui64[8];
    if ((ifc->flags & WREN_IPV6_IF_SIXLO) &&
        wren_netapi_get(node, &netif->module, WREN_NETOPT_ADDRESS_LONG, 0, eui64, 8) == 8) {
        /* RFC 4944 6: on 802.15.4 the IID is the EUI-64's, whatever
         * address the frames leave from */
        wren_ipv6_iid_from_l2(ll + 8, eui64, 8);
    } else {
        wren_ipv6_iid_from_l2(ll + 8, ifc->l2addr, ifc->l2len);
    }
    return wren_ipv6_addr_add(ip, if_id, ll, 64, WREN_IPV6_ADDR_VALID);
}

uint16_t wren_ipv6_upper_csum(const uint8_t *src, const uint8_t *dst, uint8_t next,
                              const struct wren_snip *s, size_t len)
{
    struct inet_csum c;
    wren_inet_csum_init(&c);
    wren_inet_csum_pseudo(&c, src, dst, (uint32_t)len, next);
    for (size_t left = len; s && left; s = s->next) {
        size_t n = s->size < left ? s->size : left;
        wren_inet_csum_update(&c, s->data, n);
        left -= n;
    }
    return wren_inet_csum_final(&c);
}

void wren_ipv6_hdr_init(uint8_t *h, const uint8_t *src, const uint8_t *dst, uint8_t next)
{
    /* version 6, all else zero but the next header and the addresses */
    memset(h, 0, IPV6_HDR_LEN);
    h[0] = 6 << 4;
    h[IPV6_OFF_NEXT] = next;
    if (src) {
        wren_ipv6_addr_copy(h + IPV6_OFF_SRC, src);
    }
    wren_ipv6_addr_copy(h + IPV6_OFF_DST, dst);
}

struct wren_snip *wren_ipv6_hdr_add(struct wren_pktbuf *pb, struct wren_snip *pkt,
                                    const uint8_t *src, const uint8_t *dst, uint8_t next,
                                    uint8_t if_id)
{
    struct wren_snip *s = wren_pktbuf_add(pb, pkt, NULL, IPV6_HDR_LEN, WREN_NETTYPE_IPV6);
    if (s == NULL) {
        return NULL;
    }
    wren_ipv6_hdr_init(s->data, src, dst, next);
    if (if_id) {
        struct wren_snip *nh = wren_netif_hdr_add(pb, s, NULL, 0, NULL, 0);
        if (nh == NULL) {
            s->next = NULL; /* pkt stays the caller's */
            wren_pktbuf_release(pb, s);
            return NULL;
        }
        wren_netif_hdr(nh)->if_id = if_id;
        s = nh;
    }
    return s;
}
