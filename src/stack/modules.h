/**
 * @file modules.h
 * @brief The module list: every protocol module the stack has, in the order
 *        a full node starts them. Adding a protocol adds one line here.
 *
 * wren-node runs every module of the list, the simulator's nodes every one
 * but the opt-in ones (OPT below) unless a scenario names its modules (a
 * module whose interfaces a node lacks is left out by the assembly); the
 * counter tests check every module of it. X(name) names the declaration
 * `wren_<name>_module` in the module's public header.
 */
#ifndef WREN_STACK_MODULES_H
#define WREN_STACK_MODULES_H

#include "coap/coap.h"
#include "coap/coap_plugtest.h"
#include "coap/coap_tcp.h"
#include "icmpv6/icmpv6.h"
#include "ipv6/ipv6.h"
#include "nib/nd_eth.h"
#include "ndn/ndn.h"
#include "nib/nib.h"
#include "rpl/rpl.h"
#include "schc/schc.h"
#include "sixlowpan/sixlowpan.h"
#include "sixtop/sixtop.h"
#include "tcp/tcp.h"
#include "udp/udp.h"

/* the ETSI CoAP plugtest resources, where CONFIG_WREN_COAP_PLUGTEST builds them */
#if CONFIG_WREN_COAP_PLUGTEST
#define WREN_STACK_MODULE_PLUGTEST(OPT) OPT(coap_plugtest)
#else
#define WREN_STACK_MODULE_PLUGTEST(OPT)
#endif

/* The list: X(name) for the modules a node runs by default, OPT(name) for
 * the opt-in ones, in the list (by name, counters, `--modules`) but run by a
 * simulated node only where its scenario names them ([stack] modules), so
 * that nodes that do not use them do not pay for them. */
#define WREN_STACK_MODULE_LIST(X, OPT) \
    X(sixlowpan)              \
    X(ipv6)                   \
    X(icmpv6)                 \
    X(udp)                    \
    X(tcp)                    \
    X(coap)                   \
    X(coap_tcp)               \
    WREN_STACK_MODULE_PLUGTEST(OPT) \
    X(nib)                    \
    X(nd_eth)                 \
    X(rpl)                    \
    X(sixtop)                 \
    OPT(ndn)                  \
    X(schc)

/** Every module of the list (wren-node's default), opt-in ones included. */
#define WREN_STACK_MODULES(X) WREN_STACK_MODULE_LIST(X, X)
#define WREN_STACK_MODULE_SKIP(name)
/** The modules of the list but the opt-in ones (a simulated node's default). */
#define WREN_STACK_DEFAULT_MODULES(X) WREN_STACK_MODULE_LIST(X, WREN_STACK_MODULE_SKIP)

/** @brief The module called @p name in the list (its X(name)), or NULL. */
const struct wren_module_ops *wren_stack_module_named(const char *name);
/**
 * @brief The modules @p list names (blanks or commas between names) into
 *        @p mods[@p max], in order.
 * @param[out] bad  the offending name on an error (when @p bad_len > 0)
 * @return how many; -ENOENT for a name not in the list, -E2BIG beyond @p max.
 */
int wren_stack_modules_named(const char *list, const struct wren_module_ops **mods,
                             unsigned max, char *bad, size_t bad_len);
/** @brief The name of module @p i of the list, or NULL past its end. */
const char *wren_stack_module_name(unsigned i);

/** Initializer of an array of every module of the list. */
#define WREN_STACK_MODULE_PTR(name) &wren_##name##_module,
#define WREN_STACK_ALL_MODULES { WREN_STACK_MODULES(WREN_STACK_MODULE_PTR) }
/** Initializer of an array of the default modules (no opt-in ones). */
#define WREN_STACK_DEFAULT_MODULE_PTRS { WREN_STACK_DEFAULT_MODULES(WREN_STACK_MODULE_PTR) }

#endif
