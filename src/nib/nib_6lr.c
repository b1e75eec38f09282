/* The router side of 6LoWPAN-ND that follows the LoWPAN's state (RFC 6775
 * 8.1, RFC 9010): a RPL router of this interface is a 6LR of its DODAG's
 * prefix, a router whose ABRO changes announces it, and a RPL 6LR's host
 * routes to its registered hosts end with their registrations. Run each
 * second from nib.c's tick; nib.h describes the behaviour. */
#include <errno.h>
#include <string.h>

#include "core/config.h"
#include "ipv6/ipv6.h"
#include "net/netapi.h"
#include "net/netopt.h"
#include "net/nettype.h"
#include "nib/nib.h"
#include "nib/nib_priv.h"
#include "rpl/rpl.h"
#include "wire/rpl.h"

static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
static const uint8_t all_routers[16] = { 0xff, 0x02, [15] = 2 };

/* The /64 of a DODAG the node routes in (GET WREN_NETOPT_RPL_PREFIX of the
 * RPL modules, the receivers of ICMPv6 type 155): this interface's module
 * first, else another interface's (a router with a link that runs no RPL
 * serves the hosts there too, RFC 9010) */
static bool rpl_dodag_prefix(struct wren_nib *nib, uint8_t prefix[8])
{
    struct wren_rpl_prefix p;
    bool found = false;
    struct wren_netreg_entry *e = NULL;
    while ((e = wren_netreg_lookup(nib->node, WREN_NETTYPE_ICMPV6, ICMPV6_RPL, e))) {
        if (wren_netapi_get(nib->node, e->module, WREN_NETOPT_RPL_PREFIX, 0, &p, sizeof(p)) !=
            (int)sizeof(p)) {
            continue;
        }
        uint8_t id = 0;
        bool here = wren_netapi_get(nib->node, e->module, WREN_NETOPT_IF_ID, 0, &id, 1) == 1 &&
                    id == nib->if_id;
        if (here || !found) {
            memcpy(prefix, p.prefix, 8);
            found = true;
        }
        if (here) {
            break;
        }
    }
    return found;
}

/* RFC 6775 / RFC 9010: while the node routes in a DODAG, this NIB is a 6LR
 * advertising the DODAG's /64; when it stops, it is a host again. A
 * configured router (an own prefix) stays as it is. */
static void rpl_6lr_update(struct wren_nib *nib)
{
    if (!CONFIG_WREN_IPV6_ROUTER || (nib->router && !nib->rpl_6lr)) {
        return;
    }
    uint8_t g[8];
    bool on = rpl_dodag_prefix(nib, g);
    if (on && (!nib->rpl_6lr || memcmp(nib->dodag_prefix, g, 8) != 0)) {
        memcpy(nib->dodag_prefix, g, 8);
        if (!nib->rpl_6lr) {
            /* routers listen to all-routers, where hosts solicit */
            struct wren_module *ipm = wren_nib_layer(nib, WREN_NETTYPE_IPV6);
            if (ipm) {
                wren_netapi_set(nib->node, ipm, WREN_NETOPT_IPV6_GROUP_JOIN, nib->if_id,
                                all_routers, 16);
            }
        }
        nib->rpl_6lr = true;
        nib->router = true;
    } else if (!on && nib->rpl_6lr) {
        nib->rpl_6lr = false;
        nib->router = false;
    }
}

/* RFC 6775 8.1 / RFC 4861 6.2.4: a router whose ABRO changed (the first,
 * another 6LBR, a new version) announces it at once with a few multicast
 * RAs, so that the news travels hop by hop to every 6LR and host. */
static void ra_announce(struct wren_nib *nib, uint32_t now)
{
    struct wren_nib_abro a;
    if (!IS_ROUTER(nib) || !wren_nib_ra_abro(nib, &a)) {
        return;
    }
    if (!nib->has_announced || a.version != nib->announced.version ||
        memcmp(a.addr, nib->announced.addr, 16) != 0) {
        nib->announced = a;
        nib->has_announced = true;
        nib->announce_left = CONFIG_WREN_NIB_ANNOUNCE_RAS;
        nib->next_announce_s = now;
    }
    if (nib->announce_left && now >= nib->next_announce_s) {
        nib->announce_left--;
        nib->next_announce_s = now + CONFIG_WREN_NIB_ANNOUNCE_GAP_S;
        wren_nib_send_ra(nib, all_nodes);
        nib->stats.tx_ra_unsol++;
    }
}

void wren_nib_6lr_tick(struct wren_nib *nib, uint32_t now)
{
    rpl_6lr_update(nib);
    ra_announce(nib, now);
    for (unsigned i = 0; i < CONFIG_WREN_NIB_NEIGHBORS && wren_nib_nc_made(nib); i++) {
        struct wren_nib_neighbor *n = &nib->nc->e[i];
        if (n->routed &&
            (!nib->rpl_6lr || n->state != WREN_NIB_REGISTERED || n->expires_s <= now)) {
            if (n->state == WREN_NIB_REGISTERED && n->expires_s <= now) {
                n->state = WREN_NIB_FREE; /* its registration is over */
            }
            wren_nib_host_route(nib, n, false);
        }
    }
}
