/**
 * @file sensor.h
 * @brief The TCP paper's anemometer application (its sections 9.2-9.4), for
 *        simulated experiments: a sensor makes one reading of @c size bytes
 *        every @c period, keeps them in an application queue, and once
 *        @c batch readings wait hands them to TCP or to CoAP (CON POSTs in
 *        Block1 blocks); a sink on the other end counts the readings that
 *        arrive whole. The shell's `sensor` command drives it (sim only).
 *
 * The queue (the paper's 9.2): TCP's holds @c batch readings not yet in
 * TCP's send buffer (which holds the rest until they are acknowledged);
 * CoAP's holds @c batch readings plus as many as TCP's send buffer holds
 * (the paper: 64 and 64 + 40), in flight ones included. A reading made
 * while the queue is full is lost (`lost_full`). Once @c batch readings
 * wait, the transport drains the queue: TCP takes what its buffer has room
 * for as the room appears, until the queue is empty; CoAP sends everything
 * queued as one body, block by block, each block a CON with RFC 7252's
 * retransmissions (initial timeout in [T, 1.5 T], T the option `rto MS`,
 * default RFC 7252's 2 s; doubled; 4 retransmissions).
 * A block given up loses the readings it carries (`lost_giveup`) and the
 * rest goes on as a new body (the paper: "gives up after just 4
 * retransmissions ... moving to the next packet"; its own block-wise code
 * did not drop the whole batch, unlike Californium's). The CoAP client is
 * the application's own, on the codec of src/wire/coap.h, as the paper's
 * was: wren's client keeps requests of at most CONFIG_WREN_COAP_CLIENT_MSG_MAX
 * (256) bytes, and the experiment needs 5-frame (512-byte) blocks.
 *
 * TCP's connection opens at the start; a failed one is opened again after
 * 1 s, starting at the next whole reading.
 *
 * A sleepy sensor (option `poll MS`, the node already a sleepy child of its
 * parent): as the paper's leaves, it polls its parent every MS (the paper:
 * 100 ms) while it awaits a TCP ACK or a CoAP response and every
 * WREN_SENSOR_IDLE_POLL_MS (OpenThread's default, 4 minutes) otherwise,
 * through SET WREN_NETOPT_MAC_POLL on its interface. TCP awaits an answer
 * from its SYN until its connection has carried data: if the handshake's
 * last ACK is lost, the server's SYN-ACK retries must reach the sensor (at
 * 4-minute polls they did not, and the server gave the connection up before
 * the first batch).
 *
 * The stream: readings that entered the queue, numbered from 0, are one
 * byte stream whose byte @e o is o mod 251. TCP sends it on one connection
 * (a new connection after a failed one starts at the next whole reading);
 * each CoAP body carries its stream offset in a Uri-Query `o=N`. The sink
 * checks every byte and counts a reading delivered when all its bytes came,
 * per sensor (source address; up to WREN_SENSOR_SINK_PEERS of them) and in
 * all.
 */
#ifndef WREN_SIM_SENSOR_H
#define WREN_SIM_SENSOR_H

#include <stdbool.h>
#include <stdint.h>

#include "coap/coap.h"
#include "core/timer.h"
#include "shell/shell.h"
#include "sock/sock_udp.h"
#include "tcp/tcp.h"

/** TCP send buffer: 40 readings of 82 bytes (the TCP paper's 9.2: "an
 *  additional 40 readings fit in TCP's send buffer"); also the sink's window */
#define WREN_SENSOR_TCP_BUF 3280
/** Sensors one sink tells apart (by source address): the paper's four,
 *  nodes 12-15 (its 9.2) */
#define WREN_SENSOR_SINK_PEERS 4
/** The sink's TCP connections: two per sensor, so that a sensor's new
 *  connection finds a slot while its failed one still lingers at the sink */
#define WREN_SENSOR_SINK_CONNS (2 * WREN_SENSOR_SINK_PEERS)
#define WREN_SENSOR_MSG_MAX 640    /**< a CoAP block of 512 and its header */
#define WREN_SENSOR_IDLE_POLL_MS 240000u /**< a sleepy sensor's poll when nothing is awaited */

enum { WREN_SENSOR_OFF = 0, WREN_SENSOR_TCP, WREN_SENSOR_COAP };

struct wren_sensor_stats {
    uint32_t generated;     /**< readings made */
    uint32_t lost_full;     /**< ... lost: the queue was full */
    uint32_t lost_giveup;   /**< ... lost: CoAP gave up their block, or TCP's connection failed */
    uint32_t acked;         /**< readings acknowledged end to end */
    uint32_t batches;       /**< times the queue was handed to the transport */
    uint32_t coap_blocks;   /**< CoAP blocks sent (first transmissions) */
    uint32_t coap_retx;     /**< CoAP retransmissions (each after a timeout) */
    uint32_t coap_giveups;  /**< CoAP blocks given up after MAX_RETRANSMIT */
    uint32_t coap_errors;   /**< CoAP answers other than 2.31 / 2.04 (body restarted) */
    uint32_t coap_wait_ms;  /**< CoAP: time spent in timeouts that expired */
    uint32_t tcp_failures;  /**< TCP connections that closed with an error (reconnected) */
};

struct wren_sensor;

/** What the sink knows of one sensor (its source address). */
struct wren_sensor_peer {
    bool used;
    uint8_t addr[16];
    uint32_t delivered;          /**< its readings that arrived whole */
    uint8_t *got;                /**< CoAP: bytes received, then a flag per reading */
};

/** One of the sink's TCP connections. */
struct wren_sensor_sconn {
    struct wren_sensor *s;
    struct wren_sensor_peer *peer;
    uint64_t rx;                 /**< bytes of this connection */
    struct wren_tcp_conn conn;
    uint8_t snd[64];
    uint8_t rcv[WREN_SENSOR_TCP_BUF];
    uint8_t bm[WREN_SENSOR_TCP_BUF / 8];
};

struct wren_sensor {
    struct wren_node *node;
    uint8_t proto;               /**< WREN_SENSOR_TCP / _COAP on a sensor, OFF otherwise */
    bool sink;                   /**< a sink listens on this node */
    /* parameters */
    uint32_t period_us;
    uint16_t size;               /**< bytes per reading */
    uint16_t batch;              /**< readings per batch */
    uint16_t cap;                /**< CoAP: readings the queue holds */
    uint16_t mss;                /**< TCP MSS */
    uint16_t block;              /**< CoAP block size */
    uint32_t rto_ms;             /**< CoAP: initial ACK timeout (RFC 7252's ACK_TIMEOUT) */
    uint32_t count;              /**< readings to make (0: no end) */
    uint32_t poll_ms;            /**< sleepy: poll the parent this often while an answer
                                      is awaited (0: the radio is left alone) */
    bool polling_fast;
    uint8_t dst[16];
    uint16_t port;
    struct wren_timer tick;
    /* the queue: readings [head, tail) of the stream are held */
    uint32_t head, tail;
    bool draining;
    struct wren_sensor_stats st;
    /* TCP */
    struct wren_tcp_conn conn;
    uint8_t snd[WREN_SENSOR_TCP_BUF];
    uint8_t rcv[64];
    uint8_t bm[8];
    bool conn_open;              /**< the connection is in use (opened at the first batch) */
    uint64_t written;            /**< stream bytes given to TCP */
    uint64_t conn_base;          /**< stream offset of this connection's first byte */
    struct wren_timer retry;     /**< reconnect after a failed connection */
    int tcp_err;                 /**< why the last connection failed (-errno) */
    uint32_t tcp_err_s;          /**< and when, s */
    /* CoAP */
    struct wren_sock_udp sock;
    struct wren_timer rto;
    bool up_active;
    uint32_t up_first;           /**< first reading of the body */
    uint32_t up_n;               /**< readings in it */
    uint32_t up_blk;             /**< the block in flight */
    uint16_t mid;
    uint8_t token[4];
    uint8_t retx;
    uint32_t timeout_ms;
    uint16_t msg_len;
    uint8_t msg[WREN_SENSOR_MSG_MAX];
    /* sink */
    struct wren_tcp_listener lis;
    struct wren_tcp_conn *pool[WREN_SENSOR_SINK_CONNS];
    struct wren_sensor_sconn sconn[WREN_SENSOR_SINK_CONNS];
    struct wren_sensor_peer peer[WREN_SENSOR_SINK_PEERS];
    uint32_t delivered;          /**< readings that arrived whole, all sensors */
    uint32_t unknown;            /**< messages or connections from a sensor beyond the table */
    uint64_t tcp_bytes, coap_bytes, bad;
    uint32_t n_slots;            /**< readings the CoAP sink can track per sensor */
    struct wren_coap_resource res;
};

/** @brief Prepare @p s on @p node (zeroed memory). */
void wren_sensor_init(struct wren_sensor *s, struct wren_node *node);
/** @brief Forget @p s's memory beyond the struct (the sink's reading table). */
void wren_sensor_free(struct wren_sensor *s);

/** The `sensor` shell command (the simulator's own; its node's sensor is
 *  found from the shell). */
extern const struct wren_shell_cmd wren_sim_shell_cmds[];

#endif
