#include "sim/sim_lora.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "net/netapi.h"
#include "net/netreg.h"
#include "net/nettype.h"
#include "sim/sim.h"
#include "stack/stack.h"

int wren_sim_set_lora(struct wren_sim *s, int on)
{
    if (on && s->lora == NULL) {
        s->lora = calloc(1, sizeof(*s->lora));
        if (s->lora == NULL) {
            return -ENOMEM;
        }
        wren_lora_medium_init(s->lora, &s->world, s->seed);
    }
    s->lora_on = on ? 1 : 0;
    return 0;
}

int wren_sim_lora_attach(struct wren_sim *s, struct wren_sim_node *sn, double x, double y,
                         double z)
{
    sn->lora = calloc(1, sizeof(*sn->lora));
    if (sn->lora == NULL) {
        return -ENOMEM;
    }
    int res = wren_lora_medium_add_radio(s->lora, &sn->lora->radio, x, y, z);
    if (res < 0) {
        free(sn->lora);
        sn->lora = NULL;
        return res;
    }
    sn->lora->radio.clock = &sn->clock;
    return 0;
}

void wren_sim_set_lora_link(struct wren_sim *s, int lorawan)
{
    s->lora_link = lorawan ? 1 : 0;
}

void wren_sim_lora_iface(struct wren_sim *s, struct wren_sim_node *sn,
                         struct wren_stack_iface *out)
{
    sn->lora->lorawan = s->lora_link;
    out->link = s->lora_link ? &wren_link_lorawan : &wren_link_lora;
    out->dev = &sn->lora->radio.netdev;
    out->state = &sn->lora->netif;
}

static struct wren_sim_lora *lora_of(struct wren_sim *s, uint32_t id, int *err)
{
    if (id >= s->n_nodes) {
        *err = -EINVAL;
        return NULL;
    }
    *err = -ENODEV;
    return s->nodes[id]->lora;
}

int wren_sim_lora_if(struct wren_sim *s, uint32_t id)
{
    int err;
    struct wren_sim_lora *l = lora_of(s, id, &err);
    return l ? l->netif.netif.id : err;
}

int wren_sim_lora_netopt_set(struct wren_sim *s, uint32_t id, uint16_t opt, const void *val,
                             size_t len)
{
    int err;
    struct wren_sim_lora *l = lora_of(s, id, &err);
    if (l == NULL) {
        return err;
    }
    return wren_netapi_set(&s->nodes[id]->node, &l->netif.netif.module, opt, 0, val, len);
}

int wren_sim_lora_netopt_get(struct wren_sim *s, uint32_t id, uint16_t opt, void *val,
                             size_t max)
{
    int err;
    struct wren_sim_lora *l = lora_of(s, id, &err);
    if (l == NULL) {
        return err;
    }
    return wren_netapi_get(&s->nodes[id]->node, &l->netif.netif.module, opt, 0, val, max);
}

/* the SCHC module serving node @p id's LoRa interface, or NULL */
static struct wren_module *schc_of(struct wren_sim *s, uint32_t id)
{
    int err;
    struct wren_sim_lora *l = lora_of(s, id, &err);
    if (l == NULL) {
        return NULL;
    }
    struct wren_netreg_entry *e = wren_netreg_lookup(&s->nodes[id]->node, WREN_NETTYPE_SCHC,
                                                     l->netif.netif.id, NULL);
    return e ? e->module : NULL;
}

int wren_sim_lora_schc_set(struct wren_sim *s, uint32_t id, uint16_t opt, const void *val,
                           size_t len)
{
    struct wren_module *m = schc_of(s, id);
    return m ? wren_netapi_set(&s->nodes[id]->node, m, opt, 0, val, len) : -ENODEV;
}

int wren_sim_lora_schc_get(struct wren_sim *s, uint32_t id, uint16_t opt, void *val,
                           size_t max)
{
    struct wren_module *m = schc_of(s, id);
    return m ? wren_netapi_get(&s->nodes[id]->node, m, opt, 0, val, max) : -ENODEV;
}

/* @p frame down to @p l's interface (it runs when the node next runs) */
static int lora_queue(struct wren_node *node, struct wren_sim_lora *l, const uint8_t *frame,
                      size_t len)
{
    struct wren_snip *pl = wren_pktbuf_add(&node->pktbuf, NULL, frame, len, WREN_NETTYPE_LORA);
    struct wren_snip *pkt = pl ? wren_netif_hdr_add(&node->pktbuf, pl, NULL, 0, NULL, 0) : NULL;
    if (pkt == NULL) {
        if (pl) {
            wren_pktbuf_release(&node->pktbuf, pl);
        }
        return -ENOBUFS;
    }
    wren_netif_hdr(pkt)->if_id = l->netif.netif.id;
    wren_netif_hdr(pkt)->flags |= WREN_NETIF_HDR_BROADCAST;
    return wren_netapi_send(node, &l->netif.netif.module, pkt); /* takes pkt */
}

int wren_sim_lora_send(struct wren_sim *s, uint32_t id, const uint8_t *frame, size_t len)
{
    int err;
    struct wren_sim_lora *l = lora_of(s, id, &err);
    if (l == NULL) {
        return err;
    }
    int res = lora_queue(&s->nodes[id]->node, l, frame, len);
    wren_world_run_until(&s->world, s->world.now); /* it runs now, at this instant */
    return res;
}

static void app_timer_cb(struct wren_timer *t, void *arg)
{
    struct wren_sim_lora *l = arg;
    uint8_t frame[WREN_LORA_MAX_PAYLOAD] = {0};
    frame[0] = (uint8_t)(l->app_seq >> 24);
    frame[1] = (uint8_t)(l->app_seq >> 16);
    frame[2] = (uint8_t)(l->app_seq >> 8);
    frame[3] = (uint8_t)l->app_seq;
    l->app_seq++;
    (void)lora_queue(l->node, l, frame, l->app_size); /* a full queue counts as -ENOBUFS */
    if (l->app_left != UINT32_MAX) {
        l->app_left--;
    }
    if (l->app_left) {
        wren_world_timer_set(l->radio.medium->world, t, l->radio.medium->world->now +
                                                            l->app_interval_us);
    }
}

int wren_sim_lora_periodic(struct wren_sim *s, uint32_t id, uint16_t size, uint32_t interval_us,
                           uint32_t count, uint64_t start_us)
{
    int err;
    struct wren_sim_lora *l = lora_of(s, id, &err);
    if (l == NULL) {
        return err;
    }
    if (size < 4 || size > WREN_LORA_MAX_PAYLOAD) {
        return -EINVAL;
    }
    wren_world_timer_cancel(&s->world, &l->app_timer);
    if (interval_us == 0) {
        return 0;
    }
    l->node = &s->nodes[id]->node;
    l->app_size = size;
    l->app_interval_us = interval_us;
    l->app_left = count ? count : UINT32_MAX;
    wren_timer_init(&l->app_timer, app_timer_cb, l);
    wren_world_timer_set(&s->world, &l->app_timer, start_us > s->world.now ? start_us
                                                                           : s->world.now);
    return 0;
}

int wren_sim_lora_open_pcap(struct wren_sim *s, const char *path)
{
    return s->lora ? wren_lora_medium_open_pcap(s->lora, path) : -ENODEV;
}

int wren_sim_lora_pathloss(struct wren_sim *s, double d0_m, double pl_d0_db, double gamma,
                           double sigma_db)
{
    return s->lora ? wren_lora_medium_set_pathloss(s->lora, d0_m, pl_d0_db, gamma, sigma_db)
                   : -ENODEV;
}

double wren_sim_lora_rx_dbm(struct wren_sim *s, uint32_t from, uint32_t to)
{
    int err;
    struct wren_sim_lora *a = lora_of(s, from, &err), *b = lora_of(s, to, &err);
    if (a == NULL || b == NULL) {
        return NAN;
    }
    return wren_lora_medium_rx_dbm(s->lora, a->radio.index, b->radio.index);
}
