#include "sim/sim.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/tcp_app.h"
#include "sim/flow.h"
#include "sim/sensor.h"
#include "sim/sim_eth.h"
#include "sim/sim_lora.h"
#include "core/byteorder.h"
#include "stack/modules.h"
#include "stack/stack.h"
#include "icmpv6/icmpv6.h"
#include "net/netapi.h"
#include "net/netreg.h"
#include "rpl/rpl.h"

#include "sim/zep_bridge.h"

static void names_free(struct wren_sim *s);
static double drift_draw(const struct wren_sim *s, uint32_t id);

/* A piece of state a module of a node made on first use (wren_node_mem),
 * freed with the node. */
struct wren_sim_piece {
    struct wren_sim_piece *next;
    const struct wren_module_ops *owner;
    size_t size;
    _Alignas(8) uint8_t mem[];
};

/* the nodes' rt `mem` op: a piece of its own for each request, zeroed */
static void *node_mem(void *rt, struct wren_node *node, const struct wren_module_ops *owner,
                      size_t size)
{
    (void)rt;
    struct wren_sim_node *sn = (struct wren_sim_node *)(void *)node; /* its first member */
    struct wren_sim_piece *p = calloc(1, sizeof(*p) + size);
    if (p == NULL) {
        return NULL;
    }
    p->owner = owner;
    p->size = size;
    p->next = sn->pieces;
    sn->pieces = p;
    return p->mem;
}

struct wren_sim *wren_sim_new(uint64_t seed)
{
    struct wren_sim *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return NULL;
    }
    s->seed = seed;
    s->drift_max_ppm = WREN_SIM_DRIFT_DEFAULT_PPM;
    wren_world_init(&s->world, seed);
    wren_medium_init(&s->medium, &s->world);
    s->node_rt_ops = wren_clock_rt_ops;
    s->node_rt_ops.mem = node_mem;
    return s;
}

static void node_free(struct wren_sim_node *sn)
{
    if (sn == NULL) {
        return;
    }
    free(sn->arena);
    free(sn->modules);
    for (struct wren_sim_piece *p = sn->pieces, *next; p; p = next) {
        next = p->next;
        free(p);
    }
    free(sn->shell);
    free(sn->app);
    free(sn->out);
    free(sn->tcp_app);
    free(sn->rpl_routes);
    free(sn->tsch);
    if (sn->sensor) {
        wren_sensor_free(sn->sensor);
        free(sn->sensor);
    }
    if (sn->flow) {
        wren_flow_free(sn->flow);
        free(sn->flow);
    }
    free(sn->lora);
    free(sn);
}

void wren_sim_free(struct wren_sim *s)
{
    if (s == NULL) {
        return;
    }
    if (s->zep) {
        wren_sim_zep_close(s->zep);
    }
    /* the medium still lists the bridge's radio: free the bridge after it */
    wren_medium_destroy(&s->medium);
    if (s->lora) {
        wren_lora_medium_destroy(s->lora);
        free(s->lora);
    }
    wren_world_destroy(&s->world);
    wren_sim_eth_bus_free(s->eth); /* its ports */
    free(s->zep);
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        node_free(s->nodes[i]);
    }
    node_free(s->failed);
    free(s->nodes);
    names_free(s);
    free(s);
}

void wren_sim_set_range(struct wren_sim *s, double range, double prr)
{
    wren_medium_set_range(&s->medium, range, prr);
}

/* Collect shell output (in the simulator, memory may grow). */
static void out_cb(void *ctx, const char *str)
{
    struct wren_sim_node *sn = ctx;
    size_t n = strlen(str);
    if (sn->out_len + n + 1 > sn->out_cap) {
        size_t cap = (sn->out_len + n + 1) * 2;
        char *o = realloc(sn->out, cap);
        if (o == NULL) {
            return;
        }
        sn->out = o;
        sn->out_cap = cap;
    }
    memcpy(sn->out + sn->out_len, str, n + 1);
    sn->out_len += n;
}

/* The list's default modules (no opt-in ones, src/stack/modules.h) on the
 * node's one 802.15.4 interface, unless the scenario names them */
static const struct wren_module_ops *const sim_modules[] = WREN_STACK_DEFAULT_MODULE_PTRS;

int wren_sim_set_modules(struct wren_sim *s, const char *names)
{
    const struct wren_module_ops *mods[sizeof(s->mods) / sizeof(s->mods[0])];
    int n = wren_stack_modules_named(names, mods, sizeof(mods) / sizeof(mods[0]), NULL, 0);
    if (n < 0) {
        return n;
    }
    memcpy(s->mods, mods, (size_t)n * sizeof(mods[0]));
    s->n_mods = (uint8_t)n;
    return 0;
}

const char *wren_sim_module_name(uint32_t i)
{
    return wren_stack_module_name(i);
}

/* the TSCH interface of a simulated node: its MAC state beside the node */
static int tsch_link_add(struct wren_node *node, void *state, struct wren_netdev *dev)
{
    struct wren_sim_node *sn = state;
    return wren_ieee802154_netif_add_tsch(node, &sn->netif, sn->tsch, dev);
}

static const struct wren_link_def sim_tsch_link = {
    .name = "ieee802154_tsch",
    .size = 0,
    .type = WREN_NETDEV_TYPE_IEEE802154,
    .add = tsch_link_add,
};

int wren_sim_set_mac(struct wren_sim *s, const char *kind)
{
    if (kind && strcmp(kind, "tsch") == 0) {
        s->mac_tsch = 1;
    } else if (kind == NULL || kind[0] == 0 || strcmp(kind, "csma") == 0) {
        s->mac_tsch = 0;
    } else {
        return -ENOENT;
    }
    return 0;
}

/* bit i of a node's mod_mask for each module of @p mods in the list */
static uint32_t mod_mask(const struct wren_module_ops *const *mods, unsigned n)
{
    uint32_t mask = 0;
    for (unsigned i = 0; i < 32 && wren_stack_module_name(i); i++) {
        const struct wren_module_ops *m = wren_stack_module_named(wren_stack_module_name(i));
        for (unsigned k = 0; k < n; k++) {
            mask |= (uint32_t)(mods[k] == m) << i;
        }
    }
    return mask;
}

static int stack_init(struct wren_sim *s, struct wren_sim_node *sn)
{
    struct wren_stack_iface ifs[] = {
        { .link = &wren_link_ieee802154, .dev = &sn->radio.netdev, .state = &sn->netif },
        { .link = NULL }, /* the LoRa interface, if any (sim_lora.h) */
        { .link = NULL }, /* the Ethernet port, if any (sim_eth.h) */
    };
    if (s->mac_tsch) {
        sn->tsch = calloc(1, sizeof(*sn->tsch));
        if (sn->tsch == NULL) {
            return -ENOMEM;
        }
        ifs[0].link = &sim_tsch_link;
        ifs[0].state = sn;
    }
    struct wren_stack_desc desc = WREN_STACK_DESC(ifs, sim_modules);
    desc.n_ifaces = 1;
    if (sn->lora) {
        wren_sim_lora_iface(s, sn, &ifs[desc.n_ifaces++]);
    }
    if (sn->eth) {
        wren_sim_eth_iface(sn, &ifs[desc.n_ifaces++]);
    }
    if (s->n_mods) {
        desc.mods = s->mods;
        desc.n_mods = s->n_mods;
    }
    size_t len = wren_stack_pool_size(NULL, &desc);
    sn->modules = calloc(1, len ? len : 8); /* malloc's alignment suffices (8) */
    if (sn->modules == NULL) {
        return -ENOMEM;
    }
    sn->mod_mask = mod_mask(desc.mods, desc.n_mods);
    struct wren_stack built = { .n = 0 };
    int res = wren_stack_build(&sn->node, &desc, sn->modules, len, &built);
    if (res < 0) {
        s->failed_module = built.failed ? built.failed->name : NULL;
        return res;
    }
    return 0;
}

/* node @p sn's shell, made by its first command */
static struct wren_shell *shell_of(struct wren_sim_node *sn)
{
    if (sn->shell == NULL && (sn->shell = malloc(sizeof(*sn->shell))) != NULL) {
        wren_shell_init(sn->shell, &sn->node, out_cb, sn);
        wren_shell_set_extra(sn->shell, wren_sim_shell_cmds);
        wren_shell_set_tcp(sn->shell, sn->tcp_app);
    }
    return sn->shell;
}

int wren_sim_add_node(struct wren_sim *s, double x, double y, double z, uint32_t pktbuf_size)
{
    if (s->zep) {
        return -EBUSY; /* node ids are radio indexes: the bridge took the next one */
    }
    if (s->failed) {
        return -ECANCELED; /* its radio holds the next index (see below) */
    }
    if (s->n_nodes == s->cap_nodes) {
        uint32_t cap = s->cap_nodes ? s->cap_nodes * 2 : 64;
        struct wren_sim_node **n = realloc(s->nodes, cap * sizeof(*n));
        if (n == NULL) {
            return -ENOMEM;
        }
        s->nodes = n;
        s->cap_nodes = cap;
    }
    size_t arena_size = pktbuf_size ? pktbuf_size : CONFIG_WREN_PKTBUF_SIZE;
    struct wren_sim_node *sn = calloc(1, sizeof(*sn));
    uint8_t *arena = aligned_alloc(PKTBUF_ALIGN, (arena_size + PKTBUF_ALIGN - 1) &
                                                     ~(size_t)(PKTBUF_ALIGN - 1));
    if (sn == NULL || arena == NULL) {
        free(sn);
        free(arena);
        return -ENOMEM;
    }
    sn->arena = arena;
    sn->arena_size = arena_size;
    uint32_t id = s->n_nodes;
    /* the node's own crystal (in range: both bounds are checked when set) */
    wren_world_clock_init(&sn->clock, &s->world, s->drift_fixed ? s->drift_ppm
                                                                : drift_draw(s, id));
    wren_node_init(&sn->node, &s->node_rt_ops, &sn->clock, arena, arena_size, id, s->seed);
    int res = wren_medium_add_radio(&s->medium, &sn->radio, x, y, z);
    if (res < 0) {
        free(arena);
        free(sn);
        return res;
    }
    sn->radio.clock = &sn->clock;
    if (s->lora_on && (res = wren_sim_lora_attach(s, sn, x, y, z)) < 0) {
        s->failed = sn; /* its 802.15.4 radio holds the next index */
        return res;
    }
    if (s->eth_on && (res = wren_sim_eth_attach(s, sn)) < 0) {
        s->failed = sn;
        return res;
    }
    res = stack_init(s, sn);
    if (res < 0) {
        /* The medium lists its radio and the world may hold timers of the
         * modules that did start: the node is kept, out of the simulation,
         * until wren_sim_free, and no node can be added after it. */
        s->failed = sn;
        return res;
    }
    s->nodes[s->n_nodes++] = sn;
    return (int)id;
}

static struct wren_sim_node *get(struct wren_sim *s, uint32_t id)
{
    return id < s->n_nodes ? s->nodes[id] : NULL;
}

/* The crystal offset node @p id draws: uniform in +-max from (seed, id)
 * alone (splitmix64), so it does not depend on what else drew numbers. */
static double drift_draw(const struct wren_sim *s, uint32_t id)
{
    uint64_t z = s->seed + 0x9e3779b97f4a7c15ull * ((uint64_t)id + 1) + 0x5851f42d4c957f2dull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    double u = (double)(z >> 11) * (1.0 / 9007199254740992.0);
    return (2.0 * u - 1.0) * s->drift_max_ppm;
}

int wren_sim_set_drift(struct wren_sim *s, int32_t id, double ppm)
{
    if (!(fabs(ppm) <= WREN_WORLD_CLOCK_MAX_PPM)) {
        return -EINVAL;
    }
    if (id < 0) {
        s->drift_fixed = true;
        s->drift_ppm = ppm;
        for (uint32_t i = 0; i < s->n_nodes; i++) {
            wren_world_clock_set_ppm(&s->nodes[i]->clock, &s->nodes[i]->node, ppm);
        }
        return 0;
    }
    struct wren_sim_node *sn = get(s, (uint32_t)id);
    if (sn == NULL) {
        return -EINVAL;
    }
    return wren_world_clock_set_ppm(&sn->clock, &sn->node, ppm);
}

int wren_sim_set_drift_range(struct wren_sim *s, double max_ppm)
{
    if (!(max_ppm >= 0 && max_ppm <= WREN_WORLD_CLOCK_MAX_PPM)) {
        return -EINVAL;
    }
    s->drift_max_ppm = max_ppm;
    s->drift_fixed = false;
    return 0;
}

int wren_sim_get_drift(const struct wren_sim *s, uint32_t id, double *ppm)
{
    if (id >= s->n_nodes) {
        return -EINVAL;
    }
    *ppm = s->nodes[id]->clock.ppm;
    return 0;
}

uint64_t wren_sim_node_now(const struct wren_sim *s, uint32_t id)
{
    if (id >= s->n_nodes) {
        return UINT64_MAX;
    }
    return wren_world_clock_local(&s->nodes[id]->clock, s->world.now);
}

int wren_sim_set_proc_delay(struct wren_sim *s, int32_t id, uint32_t us)
{
    if (id < 0) {
        wren_medium_set_proc_delay(&s->medium, us);
        for (uint32_t i = 0; i < s->n_nodes; i++) {
            s->nodes[i]->radio.proc_delay_us = us;
        }
        return 0;
    }
    struct wren_sim_node *sn = get(s, (uint32_t)id);
    if (sn == NULL) {
        return -EINVAL;
    }
    sn->radio.proc_delay_us = us;
    return 0;
}

void wren_sim_set_capture(struct wren_sim *s, double p)
{
    wren_medium_set_capture(&s->medium, p);
}

int wren_sim_set_rx_proc_delay(struct wren_sim *s, int32_t id, uint32_t us)
{
    if (id < 0) {
        wren_medium_set_rx_proc_delay(&s->medium, us);
        for (uint32_t i = 0; i < s->n_nodes; i++) {
            s->nodes[i]->radio.rx_proc_delay_us = us;
        }
        return 0;
    }
    struct wren_sim_node *sn = get(s, (uint32_t)id);
    if (sn == NULL) {
        return -EINVAL;
    }
    sn->radio.rx_proc_delay_us = us;
    return 0;
}

int wren_sim_set_pathloss(struct wren_sim *s, double exponent, double ref_loss_db,
                          double sigma_db, double tx_power_dbm, double noise_dbm)
{
    if (exponent == 0) {
        return wren_medium_set_pathloss(&s->medium, NULL, 0);
    }
    struct wren_pathloss p = {
        .exponent = exponent,
        .ref_loss_db = ref_loss_db,
        .sigma_db = sigma_db,
        .tx_power_dbm = tx_power_dbm,
        .noise_dbm = noise_dbm,
    };
    return wren_medium_set_pathloss(&s->medium, &p, s->seed);
}

int wren_sim_link_info(const struct wren_sim *s, uint32_t from, uint32_t to, uint32_t psdu_len,
                       double *prr, int32_t *rssi)
{
    if (from >= s->medium.n_radios || to >= s->medium.n_radios || psdu_len == 0 ||
        psdu_len > WREN_PHY_MAX_PSDU) {
        return -EINVAL;
    }
    const struct wren_sim_link *l = wren_medium_link(&s->medium, from, to);
    if (l == NULL) {
        return -ENOENT;
    }
    if (prr) {
        *prr = wren_sim_link_prr(l, psdu_len);
    }
    if (rssi) {
        *rssi = l->rssi;
    }
    return 0;
}

int wren_sim_set_link(struct wren_sim *s, uint32_t from, uint32_t to, double prr)
{
    return wren_medium_set_link(&s->medium, from, to, prr);
}

int wren_sim_remove_link(struct wren_sim *s, uint32_t from, uint32_t to)
{
    if (from >= s->n_nodes || to >= s->n_nodes) {
        return -EINVAL;
    }
    wren_medium_remove_link(&s->medium, from, to);
    return 0;
}

int wren_sim_netopt_set(struct wren_sim *s, uint32_t id, uint16_t opt, const void *val,
                        size_t len)
{
    struct wren_sim_node *sn = get(s, id);
    if (sn == NULL) {
        return -EINVAL;
    }
    return wren_netapi_set(&sn->node, &sn->netif.netif.module, opt, 0, val, len);
}

int wren_sim_netopt_get(struct wren_sim *s, uint32_t id, uint16_t opt, void *val, size_t max)
{
    struct wren_sim_node *sn = get(s, id);
    if (sn == NULL) {
        return -EINVAL;
    }
    return wren_netapi_get(&sn->node, &sn->netif.netif.module, opt, 0, val, max);
}

int wren_sim_open_pcap(struct wren_sim *s, const char *path)
{
    return wren_medium_open_pcap(&s->medium, path, WREN_PCAP_LINKTYPE_IEEE802154_FCS);
}

int wren_sim_open_pcap_as(struct wren_sim *s, const char *path, uint32_t linktype)
{
    if (linktype != WREN_PCAP_LINKTYPE_IEEE802154_FCS &&
        linktype != WREN_PCAP_LINKTYPE_IEEE802154_TAP) {
        return -EINVAL; /* the 802.15.4 medium's capture: its two formats only */
    }
    return wren_medium_open_pcap(&s->medium, path, linktype);
}

int wren_sim_rawgen(struct wren_sim *s, uint32_t id, int32_t dst, uint16_t payload_len,
                    uint32_t interval_us, uint8_t timing, uint32_t count, uint64_t start_us)
{
    struct wren_sim_node *sn = get(s, id);
    if (sn == NULL || sn->app_on || (dst >= 0 && get(s, (uint32_t)dst) == NULL)) {
        return -EINVAL;
    }
    if (sn->app == NULL && (sn->app = calloc(1, sizeof(*sn->app))) == NULL) {
        return -ENOMEM; /* the generator only for nodes that use it */
    }
    uint8_t addr[2];
    uint8_t alen = 0;
    if (dst >= 0) {
        /* the destination's short address, asked of its interface */
        struct wren_sim_node *d = get(s, (uint32_t)dst);
        if (wren_netapi_get(&d->node, &d->netif.netif.module, WREN_NETOPT_ADDRESS, 0, addr,
                            sizeof(addr)) != 2) {
            return -EINVAL;
        }
        alen = 2;
    }
    int res = wren_rawgen_start(&sn->node, sn->app, sn->netif.netif.id, addr, alen,
                                payload_len, interval_us, timing, count, start_us);
    if (res == 0) {
        sn->app_on = 1;
    }
    return res;
}

int wren_sim_inject(struct wren_sim *s, uint32_t id, const uint8_t *psdu, size_t len)
{
    return wren_medium_inject(&s->medium, id, psdu, len);
}

int wren_sim_shell(struct wren_sim *s, uint32_t id, const char *line)
{
    struct wren_sim_node *sn = get(s, id);
    if (sn == NULL) {
        return -EINVAL;
    }
    if (sn->tcp_app == NULL && strncmp(line, "tcp", 3) == 0) {
        /* the TCP application's buffers only for nodes that use it */
        sn->tcp_app = calloc(1, sizeof(*sn->tcp_app));
        if (sn->tcp_app == NULL) {
            return -ENOMEM;
        }
        wren_tcp_app_init(sn->tcp_app, &sn->node, out_cb, sn);
        if (sn->shell) {
            wren_shell_set_tcp(sn->shell, sn->tcp_app);
        }
    }
    if (sn->sensor == NULL && strncmp(line, "sensor", 6) == 0) {
        /* the experiment application (sim/sensor.h) only for nodes that use it */
        sn->sensor = calloc(1, sizeof(*sn->sensor));
        if (sn->sensor == NULL) {
            return -ENOMEM;
        }
        wren_sensor_init(sn->sensor, &sn->node);
    }
    if (sn->flow == NULL && strncmp(line, "flow", 4) == 0) {
        /* per-source UDP flows (sim/flow.h) only for nodes that use them */
        sn->flow = calloc(1, sizeof(*sn->flow));
        if (sn->flow == NULL) {
            return -ENOMEM;
        }
        wren_flow_init(sn->flow, &sn->node);
    }
    struct wren_shell *sh = shell_of(sn);
    if (sh == NULL) {
        return -ENOMEM;
    }
    int res = wren_shell_exec(sh, line);
    /* what the command queued runs now, at the same virtual instant */
    wren_world_run_until(&s->world, s->world.now);
    return res;
}

int wren_sim_shell_output(struct wren_sim *s, uint32_t id, char *buf, size_t max)
{
    struct wren_sim_node *sn = get(s, id);
    if (sn == NULL || max == 0) {
        return -EINVAL;
    }
    size_t n = sn->out_len < max - 1 ? sn->out_len : max - 1;
    if (n) {
        memcpy(buf, sn->out, n);
        memmove(sn->out, sn->out + n, sn->out_len - n + 1);
        sn->out_len -= n;
    }
    buf[n] = 0;
    return (int)n;
}

void wren_sim_run(struct wren_sim *s, uint64_t until_us)
{
    wren_world_run_until(&s->world, until_us);
}


uint64_t wren_sim_now(const struct wren_sim *s)
{
    return s->world.now;
}

uint32_t wren_sim_node_count(const struct wren_sim *s)
{
    return s->n_nodes;
}

uint64_t wren_sim_events(const struct wren_sim *s)
{
    return s->world.fired;
}

/* A counter set's full names ("nib2.rx_rs"), made once per simulation for
 * each (set, interface suffix) a node reports. */
struct wren_sim_names {
    const struct wren_counter_set *set;
    char suffix[4];
    char **full;
};

static void names_free(struct wren_sim *s)
{
    for (size_t i = 0; i < s->n_names; i++) {
        for (unsigned k = 0; k < s->names[i].set->n; k++) {
            free(s->names[i].full[k]);
        }
        free(s->names[i].full);
    }
    free(s->names);
}

static char *full_name(const char *set, const char *suffix, const char *name)
{
    size_t len = strlen(set) + strlen(suffix) + 1 + strlen(name) + 1;
    char *c = malloc(len);
    if (c) {
        snprintf(c, len, "%s%s.%s", set, suffix, name);
    }
    return c;
}

/* @p set's full names with @p suffix, or NULL when out of memory */
static char *const *set_names(struct wren_sim *s, const struct wren_counter_set *set,
                              const char *suffix)
{
    for (size_t i = 0; i < s->n_names; i++) {
        if (s->names[i].set == set && strcmp(s->names[i].suffix, suffix) == 0) {
            return s->names[i].full;
        }
    }
    struct wren_sim_names *v = realloc(s->names, (s->n_names + 1) * sizeof(*v));
    if (v == NULL) {
        return NULL;
    }
    s->names = v;
    struct wren_sim_names *e = &v[s->n_names];
    e->set = set;
    snprintf(e->suffix, sizeof(e->suffix), "%s", suffix);
    e->full = calloc(set->n, sizeof(*e->full));
    for (unsigned k = 0; e->full && k < set->n; k++) {
        if ((e->full[k] = full_name(set->name, suffix, set->names[k])) == NULL) {
            while (k--) {
                free(e->full[k]);
            }
            free(e->full);
            e->full = NULL;
        }
    }
    if (e->full == NULL) {
        return NULL;
    }
    s->n_names++;
    return e->full;
}

struct collect {
    struct wren_sim *s;
    const char **names;
    uint64_t *values;
    int max;
    int n;
};

static void collect(void *ctx, const struct wren_counter_set *set, const char *suffix,
                    const void *values)
{
    struct collect *c = ctx;
    if (set->names == NULL) {
        return;
    }
    char *const *full = c->n < c->max ? set_names(c->s, set, suffix) : NULL;
    for (unsigned i = 0; i < set->n; i++, c->n++) {
        if (c->n < c->max) {
            c->names[c->n] = full ? full[i] : "?";
            c->values[c->n] = wren_counter_value(set, values, i);
        }
    }
}

int wren_sim_counters(struct wren_sim *s, uint32_t id, const char **names, uint64_t *values,
                      int max)
{
    struct wren_sim_node *sn = get(s, id);
    if (sn == NULL) {
        return -EINVAL;
    }
    struct collect c = { s, names, values, max, 0 };
    wren_stack_counters(&sn->node, collect, &c);
    /* the raw traffic application every sim node has */
    static const struct wren_rawgen_stats none; /* a node that never generated */
    collect(&c, &wren_rawgen_counters, "", sn->app ? &sn->app->stats : &none);
    return c.n;
}

int wren_sim_rpl_routes(struct wren_sim *s, uint32_t id, uint32_t n)
{
    struct wren_sim_node *sn = get(s, id);
    if (sn == NULL || n == 0 || n > 0xffff) {
        return -EINVAL;
    }
    struct wren_netreg_entry *e =
        wren_netreg_lookup(&sn->node, WREN_NETTYPE_ICMPV6, ICMPV6_RPL, NULL);
    if (e == NULL) {
        return -ENODEV;
    }
    struct wren_rpl_route_mem m = { calloc(n, sizeof(struct wren_rpl_route)), n };
    if (m.mem == NULL) {
        return -ENOMEM;
    }
    int res = wren_netapi_set(&sn->node, e->module, WREN_NETOPT_RPL_ROUTE_MEM, 0, &m, sizeof(m));
    if (res < 0) {
        free(m.mem);
        return res;
    }
    free(sn->rpl_routes); /* the module no longer uses it */
    sn->rpl_routes = m.mem;
    sn->rpl_routes_n = n;
    return 0;
}

const char *wren_sim_failed_module(const struct wren_sim *s)
{
    return s->failed_module;
}

/* ---- memory by part --------------------------------------------------------------- */

#define MEM_PARTS 40

struct mem_acc {
    const char *names[MEM_PARTS];
    uint64_t values[MEM_PARTS];
    int n;
};

/* @p bytes more for part @p name (a static string) */
static void mem_add(struct mem_acc *a, const char *name, uint64_t bytes)
{
    int i = 0;
    while (i < a->n && strcmp(a->names[i], name) != 0) {
        i++;
    }
    if (i == a->n) {
        if (a->n == MEM_PARTS) {
            return; /* cannot happen: a part per module of the list at most */
        }
        a->names[a->n++] = name;
    }
    a->values[i] += bytes;
}

/* the state module @p m has on @p sn: its pieces of the build and first use */
static uint64_t module_bytes(const struct wren_sim_node *sn, const struct wren_module_ops *m)
{
    const struct wren_module_ops *one[] = { m };
    const struct wren_stack_desc d = { .mods = one, .n_mods = 1 };
    uint64_t n = wren_stack_pool_size(&sn->node, &d);
    if (m == &wren_rpl_module) {
        n += (uint64_t)sn->rpl_routes_n * sizeof(struct wren_rpl_route);
    }
    return n;
}

static uint64_t apps_bytes(const struct wren_sim_node *sn)
{
    return (sn->app ? sizeof(*sn->app) : 0) + (sn->tcp_app ? sizeof(*sn->tcp_app) : 0) +
           (sn->sensor ? sizeof(*sn->sensor) : 0) + (sn->flow ? sizeof(*sn->flow) : 0);
}

static void node_memory(const struct wren_sim_node *sn, struct mem_acc *a)
{
    /* its slot in the simulation's node index, which grows by doubling */
    mem_add(a, "node", sizeof(*sn) - sizeof(sn->netif) - sizeof(sn->radio) + 2 * sizeof(void *));
    mem_add(a, "pktbuf", sn->arena_size);
    mem_add(a, "netif", sizeof(sn->netif) + (sn->tsch ? sizeof(*sn->tsch) : 0));
    mem_add(a, "radio", sizeof(sn->radio) + sn->radio.cap_links * sizeof(struct wren_sim_link));
    if (sn->lora) {
        mem_add(a, "lora", sizeof(*sn->lora)); /* its LoRa radio and interface */
    }
    if (sn->eth) {
        mem_add(a, "ethernet", sizeof(*sn->eth)); /* its Ethernet port and interface */
    }
    mem_add(a, "shell", (sn->shell ? sizeof(*sn->shell) : 0) + sn->out_cap);
    mem_add(a, "apps", apps_bytes(sn));
    for (unsigned i = 0; i < 32 && wren_stack_module_name(i); i++) {
        if (sn->mod_mask & (1u << i)) {
            const struct wren_module_ops *m = wren_stack_module_named(wren_stack_module_name(i));
            uint64_t n = module_bytes(sn, m);
            if (n) {
                mem_add(a, m->name, n);
            }
        }
    }
    for (const struct wren_sim_piece *p = sn->pieces; p; p = p->next) {
        mem_add(a, p->owner ? p->owner->name : "other", sizeof(*p) + p->size);
    }
}

int wren_sim_memory(const struct wren_sim *s, int32_t id, const char **names, uint64_t *values,
                    int max)
{
    if (id < -1 || (id >= 0 && (uint32_t)id >= s->n_nodes)) {
        return -EINVAL;
    }
    struct mem_acc a = { .n = 0 };
    for (uint32_t i = id < 0 ? 0 : (uint32_t)id; i < (id < 0 ? s->n_nodes : (uint32_t)id + 1);
         i++) {
        node_memory(s->nodes[i], &a);
    }
    uint64_t total = 0;
    for (int i = 0; i < a.n; i++) {
        total += a.values[i];
    }
    mem_add(&a, "total", total);
    for (int i = 0; i < a.n && i < max; i++) {
        names[i] = a.names[i];
        values[i] = a.values[i];
    }
    return a.n;
}

size_t wren_sim_bytes_per_node(const struct wren_sim *s)
{
    if (s->n_nodes == 0) {
        return 0;
    }
    const char *names[MEM_PARTS];
    uint64_t values[MEM_PARTS];
    int n = wren_sim_memory(s, -1, names, values, MEM_PARTS);
    return n > 0 ? (size_t)(values[n - 1] / s->n_nodes) : 0;
}

struct wren_node *wren_sim_node(struct wren_sim *s, uint32_t id)
{
    struct wren_sim_node *sn = get(s, id);
    return sn ? &sn->node : NULL;
}

int wren_sim_pktbufs_clean(const struct wren_sim *s)
{
    for (uint32_t i = 0; i < s->n_nodes; i++) {
        const struct wren_pktbuf *pb = &s->nodes[i]->node.pktbuf;
        if (!wren_pktbuf_is_empty(pb) || !wren_pktbuf_is_sane(pb)) {
            return 0;
        }
    }
    return 1;
}
