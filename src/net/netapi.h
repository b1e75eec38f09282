/**
 * @file netapi.h
 * @brief How layers talk: SND/RCV messages carrying packets, and synchronous
 *        GET/SET on netopt keys answered by an ACK (a length or -errno).
 *
 * Ownership: wren_netapi_send()/wren_netapi_receive() take the caller's
 * reference to the packet on every path; if the receiver's queue is full the
 * packet is released and -ENOBUFS returned, so the caller only counts.
 */
#ifndef WREN_NET_NETAPI_H
#define WREN_NET_NETAPI_H

#include <stddef.h>
#include <stdint.h>

#include "core/module.h"
#include "core/sched.h"
#include "net/netopt.h"
#include "net/netreg.h"
#include "pktbuf/pktbuf.h"

struct wren_node;

/** @brief Queue @p pkt down to @p module (SND). @return 0 or -ENOBUFS. */
int wren_netapi_send(struct wren_node *node, struct wren_module *module,
                     struct wren_snip *pkt);

/** @brief Queue @p pkt up to @p module (RCV). @return 0 or -ENOBUFS. */
int wren_netapi_receive(struct wren_node *node, struct wren_module *module,
                        struct wren_snip *pkt);

/**
 * @brief Give @p pkt to every module registered for (type, demux), each
 *        with its own reference, as a message of @p msg_type (SND or RCV).
 * @return how many modules got it; 0 means nobody wanted it and it has been
 *         released (the caller counts the drop).
 */
int wren_netapi_dispatch(struct wren_node *node, uint8_t type, uint32_t demux,
                         uint16_t msg_type, struct wren_snip *pkt);

/**
 * @brief wren_netapi_dispatch() of a whole message (its arg too) whose ptr
 *        is a packet; with no receiver the packet stays the caller's.
 * @return how many modules got it; 0: nobody is registered for (type,
 *         demux) and the caller still owns msg->ptr (to answer with an
 *         error, say).
 */
int wren_netapi_try_dispatch(struct wren_node *node, uint8_t type, uint32_t demux,
                             const struct wren_msg *msg);

/** @brief GET @p opt from @p module. @return the value's length, or -errno
 *         (-ENOTSUP if the module has no such option). */
int wren_netapi_get(struct wren_node *node, struct wren_module *module, uint16_t opt,
                    uint16_t ctx, void *val, size_t max);

/** @brief SET @p opt on @p module. @return 0/length, or -errno. */
int wren_netapi_set(struct wren_node *node, struct wren_module *module, uint16_t opt,
                    uint16_t ctx, const void *val, size_t len);

#endif
