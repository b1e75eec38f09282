/**
 * @file coap_plugtest.h
 * @brief The resources of the ETSI CoAP plugtests (CoAP#1-#4 test
 *        descriptions TD_COAP_CORE, _BLOCK, _OBS and _LINK, server side),
 *        served by the node's CoAP server (coap/coap.h) beside its own.
 *
 * A module of the stack's list (`coap_plugtest`, after `coap`): hosted
 * builds (wren-node, the simulator) have CONFIG_WREN_COAP_PLUGTEST=1 from
 * CMake (option WREN_COAP_PLUGTEST) and run it; firmware images leave it out
 * unless they name it and define CONFIG_WREN_COAP_PLUGTEST=1 with room for
 * its resources (CONFIG_WREN_COAP_RESOURCES >= WREN_COAP_PLUGTEST_N_RES +
 * the application's).
 *
 *   /test            GET (the request described), POST 2.01 with Location-Path
 *                    location1/location2/location3, PUT 2.04, DELETE 2.02
 *   /seg1/seg2/seg3  GET             /query       GET: its Uri-Query options
 *   /separate        GET answered CONFIG_WREN_COAP_PLUGTEST_SEP_MS later
 *   /large           GET, WREN_COAP_PLUGTEST_LARGE bytes (Block2)
 *   /large-update    GET, PUT in Block1 blocks (atomic, up to
 *                    CONFIG_WREN_COAP_PLUGTEST_BODY bytes)
 *   /large-create    POST in Block1 blocks: 2.01 with Location-Path
 *                    large-create/N, a resource whose GET describes the body
 *   /large-post      POST in Block1 blocks, 2.04 with a representation larger than
 *                    a block (the body's size and hash, then /large's lines)
 *   /obs, /obs-non, /obs-large  observable, change every
 *                    CONFIG_WREN_COAP_PLUGTEST_OBS_MS while observed; /obs's
 *                    notifications are CON, /obs-non's NON, /obs-large's
 *                    larger than a block; /obs takes PUT (same format: the
 *                    new value; another format: observers get 4.06) and
 *                    DELETE (observers get 4.04)
 *   /multi-format    GET as text/plain (0) or application/xml (41) by Accept
 *   /validate        GET with ETag (2.03 when the request's ETag is current),
 *                    PUT with If-Match: a new value, a new ETag
 *   /location-query  POST: 2.01 with Location-Query first=1&second=2
 *   /create1         PUT with If-None-Match creates it (then 4.12), DELETE
 *   /link1../link3   rt "Type1 Type2", "Type2 Type3", "Type1 Type3"; if If1, If2, foo
 *   /path            ct=40: the links of /path/sub1, /path/sub2, /path/sub3
 *
 * All state is this module's (struct wren_coap_plugtest); its one timer
 * runs only while a resource is observed, so a node nobody asks costs no
 * event and no random number.
 */
#ifndef WREN_COAP_COAP_PLUGTEST_H
#define WREN_COAP_COAP_PLUGTEST_H

#include <stdint.h>

#include "coap/coap.h"
#include "core/counters.h"
#include "core/module.h"
#include "core/timer.h"
#include "net/netreg.h"
#include "shell/shell.h"

/** The module is in the stack's list (src/stack/modules.h). */
#ifndef CONFIG_WREN_COAP_PLUGTEST
#define CONFIG_WREN_COAP_PLUGTEST 0
#endif
/** Bytes /large-update keeps (a PUT beyond: 4.13), and the most a
 *  /large-create or /large-post body may have. */
#ifndef CONFIG_WREN_COAP_PLUGTEST_BODY
#define CONFIG_WREN_COAP_PLUGTEST_BODY 1280
#endif
/** /separate answers this long after the request, ms. */
#ifndef CONFIG_WREN_COAP_PLUGTEST_SEP_MS
#define CONFIG_WREN_COAP_PLUGTEST_SEP_MS 1500u
#endif
/** The observable resources change this often while observed, ms (the
 *  shell's `plugtest obs MS` changes it). */
#ifndef CONFIG_WREN_COAP_PLUGTEST_OBS_MS
#define CONFIG_WREN_COAP_PLUGTEST_OBS_MS 5000u
#endif

/** Resources the module adds (the one /large-create makes included). */
#define WREN_COAP_PLUGTEST_N_RES 23
/** Size of /large and /obs-large, bytes. */
#define WREN_COAP_PLUGTEST_LARGE 2048u
/** Bytes of /test's, /validate's and /create1's values and /obs's PUT value. */
#define WREN_COAP_PLUGTEST_VALUE 32

_Static_assert(!CONFIG_WREN_COAP_PLUGTEST ||
                   CONFIG_WREN_COAP_RESOURCES >= WREN_COAP_PLUGTEST_N_RES,
               "CONFIG_WREN_COAP_PLUGTEST needs CONFIG_WREN_COAP_RESOURCES >= 23");
_Static_assert(CONFIG_WREN_COAP_PLUGTEST_BODY >= 64 && CONFIG_WREN_COAP_PLUGTEST_BODY <= 65535,
               "CONFIG_WREN_COAP_PLUGTEST_BODY: 64..65535");

#define WREN_COAP_PLUGTEST_COUNTERS(C)                                                         \
    C(req)              /* requests its resources handled */                                   \
    C(created)          /* 2.01: /test, /large-create, /location-query, /create1 */           \
    C(sep_deferred)     /* /separate requests answered later */                               \
    C(sep_now)          /* ... answered at once: no separate responses (TCP) */               \
    C(sep_busy)         /* ... 5.03: every separate-response slot in use */                   \
    C(precond_failed)   /* 4.12: If-Match / If-None-Match did not hold */                     \
    C(not_acceptable)   /* 4.06: /obs asked for a format it does not have now */              \
    C(too_large)        /* 4.13: a body beyond what the resource keeps */                     \
    C(obs_ticks)        /* changes of the observable resources (every OBS_MS) */              \
    C(obs_notified)     /* notifications asked for (observers of all transports) */           \
    C(obs_406)          /* /obs changed format: its observers told 4.06 */                    \
    C(obs_404)          /* /obs deleted: its observers told 4.04 */

struct wren_coap_plugtest_stats {
    WREN_COAP_PLUGTEST_COUNTERS(WREN_COUNTER_U32)
};

struct wren_coap_plugtest {
    struct wren_module module;       /**< first: found through netreg */
    struct wren_coap_plugtest_stats stats;
    struct wren_netreg_entry reg;
    struct wren_node *node;
    struct wren_coap *coap;
    struct wren_timer sep_timer;     /**< /separate's answers */
    uint8_t sep_pending;             /**< separate-response handles it answers (bits) */
    struct wren_timer obs_timer;     /**< the observable resources' changes */
    struct wren_timer obs_now;       /**< /obs's observers told of a PUT or DELETE */
    uint32_t obs_value;              /**< their current value */
    uint32_t obs_ms;                 /**< ... changed this often (`plugtest obs MS`) */
    uint8_t obs_ticking;
    uint8_t obs_deleted;             /**< /obs was deleted */
    int16_t obs_cf;                  /**< /obs's format (a PUT can change it) */
    uint8_t obs_put_len;             /**< a PUT's value replaces the count (0: none) */
    char obs_put[WREN_COAP_PLUGTEST_VALUE];
    uint8_t validate_len;
    uint16_t validate_etag;
    char validate[WREN_COAP_PLUGTEST_VALUE];
    uint8_t create1_exists;
    uint8_t create1_len;
    char create1[WREN_COAP_PLUGTEST_VALUE];
    uint16_t update_len;             /**< /large-update's representation (0: the initial) */
    uint16_t stage_len;              /**< bytes of the upload in progress */
    uint8_t stage_addr[16];          /**< ... whose endpoint */
    uint16_t stage_port;
    uint8_t update[CONFIG_WREN_COAP_PLUGTEST_BODY];
    uint8_t stage[CONFIG_WREN_COAP_PLUGTEST_BODY];
    uint32_t body_fnv;               /**< FNV-1a of the /large-create or /large-post body so far */
    uint32_t created_n;              /**< /large-create's resources made */
    uint32_t created_len;
    uint32_t created_fnv;
    uint32_t post_len;               /**< the last /large-post body's size and FNV-1a: */
    uint32_t post_fnv;               /**< its answer, written again for later blocks */
    char created_path[24];           /**< "/large-create/N" */
    struct wren_coap_resource created;
};

/** netreg context the module registers under (type UDP, beyond every port). */
#define WREN_COAP_PLUGTEST_NETREG_CTX (0x20000u + COAP_PORT)

extern const struct wren_module_ops wren_coap_plugtest_module;

/** The `plugtest` shell command (state; `obs MS`, `ack MS`: the pace). */
extern const struct wren_shell_cmd wren_coap_plugtest_shell_cmds[];

/**
 * @brief Add the plugtest resources to @p node's CoAP server (started
 *        before), state in @p p.
 * @return 0, -ENOENT (no CoAP server), -ENOSPC (CONFIG_WREN_COAP_RESOURCES
 *         too small), -EEXIST (a path is served already), -errno of netreg.
 */
int wren_coap_plugtest_init(struct wren_node *node, struct wren_coap_plugtest *p);

/** @brief Remove the resources and stop the timers. */
void wren_coap_plugtest_stop(struct wren_coap_plugtest *p);

#endif
