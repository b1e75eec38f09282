/* Inside the CoAP module only. */
#ifndef WREN_COAP_COAP_PRIV_H
#define WREN_COAP_COAP_PRIV_H

#include "coap/coap.h"
#include "shell/shell.h"

/** Whether the server's state for messages (c->srv, WREN_LAZY) is made:
 *  always without CONFIG_WREN_NODE_MEM; with it, once a message came. */
static inline bool wren_coap_srv_made(const struct wren_coap *c)
{
#if CONFIG_WREN_NODE_MEM
    return c->srv != NULL;
#else
    (void)c;
    return true;
#endif
}

/** Whether the client's exchanges (c->cl) are made: once it sent a request. */
static inline bool wren_coap_cl_made(const struct wren_coap *c)
{
#if CONFIG_WREN_NODE_MEM
    return c->cl != NULL;
#else
    (void)c;
    return true;
#endif
}

/** How a response goes out besides what the handler made. */
struct wren_coap_resp_meta {
    uint8_t type;
    uint16_t mid;
    const uint8_t *token;
    uint8_t tkl;
    bool block;            /* with Block2 blk */
    bool has_b1;           /* with Block1 b1 */
    bool get;
    struct coap_block blk, b1;
    int32_t observe;       /* Observe value, -1: none */
};

/** A notification of more than one message of @p room bytes carries (the
 *  same over UDP and TCP): with Block2 its first block, the client asking for
 *  the rest (RFC 7959 3.4); without, a 5.00 with no payload, the observation's
 *  last notification (RFC 7641 3.2). @return false when it became the 5.00. */
static inline bool wren_coap_notify_fit(struct wren_coap_resp *resp,
                                        struct wren_coap_resp_meta *mt, size_t room)
{
    if (resp->pos <= room) {
        return true;
    }
    if (!CONFIG_WREN_COAP_BLOCK2) {
        *resp = (struct wren_coap_resp){ .code = COAP_CODE_INTERNAL_ERROR, .cf = -1 };
        return false;
    }
    mt->block = true;
    mt->blk = (struct coap_block){ .num = 0, .szx = (uint8_t)wren_coap_block_szx_fit(room) };
    resp->max = COAP_BLOCK_SIZE(mt->blk.szx);
    return true;
}

/** The header and options of @p resp (its payload written at c->tx +
 *  WREN_COAP_RESP_HDR_ROOM) placed right before the payload, in the UDP
 *  format. @return its offset in c->tx, and *len. */
int wren_coap_place_response(struct wren_coap *c, struct wren_coap_resp *resp,
                             struct wren_coap_resp_meta *mt, size_t *len);

/**
 * Observations of a transport other than UDP's table (CoAP over TCP): @p reg
 * a GET asks to observe @p r (RFC 7641 3.1; registered: return the Observe
 * value to send, else -1); otherwise @p unreg a GET without Observe (or with
 * 1) ends the observation of its token (RFC 7641 3.6). @return -1 then.
 */
typedef int32_t (*wren_coap_obs_fn)(void *arg, const struct wren_coap_resource *r,
                                    const struct coap_msg *m, bool reg, bool unreg);

/** Run request @p m from @p from and build its response into c->tx (UDP
 *  format, type ACK for a CON), at most @p limit bytes when it can be Block2
 *  block 0 (0: CONFIG_WREN_COAP_MSG_MAX). @return its offset in c->tx and
 *  *len, or -1 for a RST (a NON with an unrecognized critical option). */
int wren_coap_handle_request(struct wren_coap *c, const struct coap_msg *m,
                             const struct wren_sock_udp_ep *from, size_t *len,
                             size_t limit, wren_coap_obs_fn obs, void *obs_arg);

/** handle_request(): no response now (a NON whose handler deferred it) */
#define WREN_COAP_NO_RESPONSE (-2)

/** The node's time in ms (wraps), for the lifetimes of exchanges. */
uint32_t wren_coap_now_ms(const struct wren_coap *c);

/** `/.well-known/core` (RFC 6690), served on every node. */
extern const struct wren_coap_resource wren_coap_wellknown;

/** RFC 7252 5.9.2.9: the largest body a request with a token of @p tkl
 *  bytes and @p opts bytes of options can carry in a message the server
 *  takes (Size1 of a 4.13). */
uint32_t wren_coap_body_max(uint8_t tkl, size_t opts);

/** RFC 7641 4.1: the observer of @p ep and @p m's token, registered for
 *  @p r with Accept @p accept (-1: none); NULL when every slot is in use
 *  (counted: the request is answered without Observe). */
struct wren_coap_observer *wren_coap_obs_register(struct wren_coap *c,
                                                 const struct wren_coap_resource *r,
                                                 const struct wren_sock_udp_ep *ep,
                                                 const struct coap_msg *m, int32_t accept);

/** RFC 7641 3.6: end the observation of @p ep with @p token. */
void wren_coap_obs_remove(struct wren_coap *c, const struct wren_sock_udp_ep *ep,
                          const uint8_t *token, uint8_t tkl);

/** An ACK or RST from @p from for a notification? (counted, handled) */
bool wren_coap_obs_input(struct wren_coap *c, const struct coap_msg *m,
                         const struct wren_sock_udp_ep *from);

/** Forget every observer (the server stops). */
void wren_coap_obs_stop(struct wren_coap *c);

/** Send the notifications handlers asked for while they ran. */
void wren_coap_obs_flush(struct wren_coap *c);

/** Handle the datagram of @p n bytes in c->rx from @p from. */
void wren_coap_input(struct wren_coap *c, size_t n, const struct wren_sock_udp_ep *from,
                     bool mcast);

/** Send @p len bytes of @p msg to @p to, counted (tx, tx_drop). @return 0 or -ENOBUFS. */
int wren_coap_send(struct wren_coap *c, const uint8_t *msg, size_t len,
                   const struct wren_sock_udp_ep *to);

/** A CON's first retransmission timeout, random in [ACK_TIMEOUT,
 *  ACK_TIMEOUT * ACK_RANDOM_FACTOR] (RFC 7252 4.2), ms. */
uint32_t wren_coap_ack_timeout(struct wren_coap *c);

/** An ACK or RST for a separate response? (src/coap/coap_sep.c) */
bool wren_coap_sep_input(struct wren_coap *c, const struct coap_msg *m,
                         const struct wren_sock_udp_ep *from);

/** Send response @p msg (@p len bytes) to @p to after a random time within
 *  CONFIG_WREN_COAP_LEISURE_MS (RFC 7252 8.2), kept in a separate-response
 *  slot. @return 0, -ENOSPC (no slot), -EMSGSIZE. */
int wren_coap_sep_leisure(struct wren_coap *c, const uint8_t *msg, size_t len,
                          const struct wren_sock_udp_ep *to);

/** Forget every separate response (the server stops). */
void wren_coap_sep_stop(struct wren_coap *c);

/** Hand an ACK, RST or response to the client. @return whether it matched a request. */
bool wren_coap_client_input(struct wren_coap *c, const struct coap_msg *m,
                            const struct wren_sock_udp_ep *from);

/** Hand a response that came over CoAP over TCP from @p from to the
 *  client's TCP exchanges. @return whether it matched one. */
bool wren_coap_client_input_tcp(struct wren_coap *c, const struct coap_msg *m,
                                const struct wren_sock_udp_ep *from);

/** The TCP connection to @p to is up (@p err 0: send the exchanges waiting
 *  for it) or gone (@p err < 0: end them and those in flight with it). */
void wren_coap_client_tcp_event(struct wren_coap *c, const struct wren_sock_udp_ep *to, int err);

/** Whether response @p m is a 2.xx with Block2 saying more blocks follow
 *  (into @p blk; the next block number fits, RFC 7959 2.2). */
bool wren_coap_block2_more(const struct coap_msg *m, struct coap_block *blk);

/** End every client exchange without calling back (the server stops). */
void wren_coap_client_stop(struct wren_coap *c);

/** Add `/counter`, `/stats` and `/pattern` (src/coap/coap_res.c). */
void wren_coap_default_resources(struct wren_coap *c);

/** The `coap` command (src/coap/coap_shell.c). */
extern const struct wren_shell_cmd wren_coap_shell_cmds[];

#endif
