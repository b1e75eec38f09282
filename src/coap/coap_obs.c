/* Observers (RFC 7641): registrations by endpoint and token, notifications
 * (NON, CON at least once per CONFIG_WREN_COAP_OBS_CON_MS, retransmitted
 * like requests), and their ACKs and RSTs. */
#include <string.h>

#include "coap/coap_priv.h"
#include "core/node.h"

static void obs_free(struct wren_coap_observer *o)
{
    wren_timer_cancel(o->c->node, &o->timer);
    o->used = 0;
}

/* RFC 7641 4.1: the observer of @p ep with @p token (an entry per endpoint
 * and token: wren_coap_obs_register() keeps them unique), or NULL with
 * *free_slot the first free slot (NULL: none). */
static struct wren_coap_observer *obs_find(struct wren_coap *c, const struct wren_sock_udp_ep *ep,
                                           const uint8_t *token, uint8_t tkl,
                                           struct wren_coap_observer **free_slot)
{
    *free_slot = NULL;
    for (unsigned i = 0; i < CONFIG_WREN_COAP_OBSERVERS; i++) {
        struct wren_coap_observer *o = &WREN_COAP_SRV(c)->obs[i];
        if (!o->used) {
            *free_slot = *free_slot ? *free_slot : o;
        } else if (o->ep.port == ep->port && memcmp(o->ep.addr, ep->addr, 16) == 0 &&
                   o->tkl == tkl && memcmp(o->token, token, tkl) == 0) {
            return o;
        }
    }
    return NULL;
}

/* Remove the observation of @p ep with @p token (RFC 7641 3.6). */
void wren_coap_obs_remove(struct wren_coap *c, const struct wren_sock_udp_ep *ep,
                          const uint8_t *token, uint8_t tkl)
{
    struct wren_coap_observer *free_slot;
    struct wren_coap_observer *o = obs_find(c, ep, token, tkl, &free_slot);
    if (o) {
        c->stats.obs_remove++;
        obs_free(o);
    }
}

static void obs_timer(struct wren_timer *t, void *arg);

/* RFC 7641 4.1: a registration with the endpoint and token of an observer
 * replaces it (for whatever resource it names now), another token is
 * another observer. @p accept is the registration's Accept (-1: none), kept
 * for the notifications. NULL when every slot is in use: the request is
 * answered without Observe, and the observers stay as they were. */
struct wren_coap_observer *wren_coap_obs_register(struct wren_coap *c,
                                                 const struct wren_coap_resource *r,
                                                 const struct wren_sock_udp_ep *ep,
                                                 const struct coap_msg *m, int32_t accept)
{
    struct wren_coap_observer *free_slot;
    struct wren_coap_observer *o = obs_find(c, ep, m->token, m->tkl, &free_slot);
    if (o == NULL && free_slot == NULL) {
        c->stats.obs_full++;
        return NULL;
    }
    if (o == NULL) {
        o = free_slot;
        c->stats.obs_add++;
        *o = (struct wren_coap_observer){ .c = c, .used = 1, .ep = *ep, .tkl = m->tkl };
        memcpy(o->token, m->token, m->tkl);
        wren_timer_init(&o->timer, obs_timer, o);
    }
    o->res = r;
    o->accept = (int16_t)accept;
    return o;
}

/* ---- notifications (RFC 7641 4.2, 4.5) ------------------------------------------------ */

/* Send @p o a notification of its resource's current state (a new message ID,
 * the next sequence number; CON when due). */
static void obs_send(struct wren_coap_observer *o)
{
    struct wren_coap *c = o->c;
    const struct wren_coap_resource *r = o->res;
    size_t room = CONFIG_WREN_COAP_MSG_MAX - WREN_COAP_RESP_HDR_ROOM;
    /* the format the registration asked for (it was one r produces) */
    struct wren_coap_resp resp = { .code = COAP_CODE_CONTENT,
                                   .cf = r->cfs && o->accept >= 0 ? o->accept : r->cf,
                                   .buf = WREN_COAP_SRV(c)->tx + WREN_COAP_RESP_HDR_ROOM, .max = room };
    struct coap_msg empty = { .code = COAP_CODE_GET, .tkl = o->tkl };
    memcpy(empty.token, o->token, o->tkl);
    struct wren_coap_req req = { .msg = &empty, .remote = o->ep, .method = COAP_CODE_GET,
                                 .cf = -1, .accept = o->accept, .notify = true };
    c->in_handler = 1;
    r->handler(c, &req, &resp, r->arg);
    c->in_handler = 0;
    if (COAP_CODE_CLASS(resp.code) != 2) {
        /* RFC 7641 3.2: a non-2.xx notification ends the observation */
        resp.pos = 0;
    }
    uint32_t now = wren_coap_now_ms(c);
    bool con = !o->had_con || now - o->last_con_ms >= c->obs_con_ms;
    c->obs_seq = (c->obs_seq + 1) & COAP_OBSERVE_MASK;
    o->mid = c->next_mid++;
    struct wren_coap_resp_meta mt = { .type = con ? COAP_CON : COAP_NON, .mid = o->mid, .token = o->token,
                            .tkl = o->tkl, .get = true, .observe = (int32_t)c->obs_seq };
    if (!wren_coap_notify_fit(&resp, &mt, room)) {
        c->stats.resp_too_large++;
    }
    size_t len;
    int at = wren_coap_place_response(c, &resp, &mt, &len);
    c->stats.obs_notify++;
    o->dirty = 0;
    (void)wren_coap_send(c, WREN_COAP_SRV(c)->tx + at, len, &o->ep);
    if (COAP_CODE_CLASS(resp.code) != 2) {
        obs_free(o);
        return;
    }
    if (con) {
        c->stats.obs_con++;
        o->con_pending = 1;
        o->retx = 0;
        o->timeout_ms = wren_coap_ack_timeout(c);
        wren_timer_set(c->node, &o->timer, (uint64_t)o->timeout_ms * 1000u);
    }
}

/* A CON notification's ACK did not come: send the current state again
 * (RFC 7641 4.5.2), or give the observer up after MAX_RETRANSMIT. */
static void obs_timer(struct wren_timer *t, void *arg)
{
    (void)t;
    struct wren_coap_observer *o = arg;
    struct wren_coap *c = o->c;
    if (o->retx >= c->max_retransmit) {
        c->stats.obs_timeout++;
        obs_free(o);
        return;
    }
    uint8_t retx = (uint8_t)(o->retx + 1);
    uint32_t timeout = o->timeout_ms * 2;
    o->had_con = 0; /* makes it CON again */
    obs_send(o);
    if (o->used) {
        o->retx = retx;
        o->timeout_ms = timeout;
        wren_timer_set(c->node, &o->timer, (uint64_t)timeout * 1000u);
    }
}

int wren_coap_notify(struct wren_coap *c, const struct wren_coap_resource *r)
{
    int n = 0;
    for (unsigned i = 0; i < CONFIG_WREN_COAP_OBSERVERS && wren_coap_srv_made(c); i++) {
        struct wren_coap_observer *o = &WREN_COAP_SRV(c)->obs[i];
        if (!o->used || o->res != r) {
            continue;
        }
        n++;
        if (o->con_pending || c->in_handler) {
            /* sent when the pending one is acknowledged, or after the response */
            o->dirty = 1;
            c->notify_deferred |= c->in_handler;
            continue;
        }
        obs_send(o);
    }
    if (c->tcp_notify) {
        n += c->tcp_notify(c->tcp_arg, r); /* CoAP over TCP's observers */
    }
    return n;
}

/* Notifications a handler asked for, now that its response is out. */
void wren_coap_obs_flush(struct wren_coap *c)
{
    c->notify_deferred = 0;
    if (c->tcp_notify) {
        (void)c->tcp_notify(c->tcp_arg, NULL);
    }
    for (unsigned i = 0; i < CONFIG_WREN_COAP_OBSERVERS && wren_coap_srv_made(c); i++) {
        struct wren_coap_observer *o = &WREN_COAP_SRV(c)->obs[i];
        if (o->used && o->dirty && !o->con_pending) {
            obs_send(o);
        }
    }
}

void wren_coap_set_obs_con_ms(struct wren_coap *c, uint32_t ms)
{
    c->obs_con_ms = ms;
}

/* An ACK or RST from @p from: a notification's? */
bool wren_coap_obs_input(struct wren_coap *c, const struct coap_msg *m,
                         const struct wren_sock_udp_ep *from)
{
    for (unsigned i = 0; i < CONFIG_WREN_COAP_OBSERVERS; i++) {
        struct wren_coap_observer *o = &WREN_COAP_SRV(c)->obs[i];
        if (!o->used || o->mid != m->mid || o->ep.port != from->port ||
            memcmp(o->ep.addr, from->addr, 16) != 0) {
            continue;
        }
        if (m->type == COAP_RST) {
            c->stats.obs_rst++; /* RFC 7641 3.6: the client has forgotten it */
            obs_free(o);
            return true;
        }
        if (o->con_pending) {
            wren_timer_cancel(c->node, &o->timer);
            o->con_pending = 0;
            o->had_con = 1;
            o->last_con_ms = wren_coap_now_ms(c);
            if (o->dirty) {
                obs_send(o);
            }
        }
        return true;
    }
    return false;
}
/* Forget every observer (the server stops). */
void wren_coap_obs_stop(struct wren_coap *c)
{
    for (unsigned i = 0; i < CONFIG_WREN_COAP_OBSERVERS && wren_coap_srv_made(c); i++) {
        if (WREN_COAP_SRV(c)->obs[i].used) {
            obs_free(&WREN_COAP_SRV(c)->obs[i]);
        }
    }
}
