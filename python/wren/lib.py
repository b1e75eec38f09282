"""ctypes binding of the simulator library (runtime/sim/sim.h)."""
import ctypes
import os
from ctypes import (POINTER, c_char_p, c_double, c_int, c_int32, c_size_t,
                    c_uint8, c_uint16, c_uint32, c_uint64, c_void_p)

from . import paths

NETOPT_CHANNEL = 1
NETOPT_ADDRESS = 2
NETOPT_CCA_BEFORE_TX = 8
NETOPT_ACK_REQ = 9
NETOPT_STATE = 11
NETOPT_CSMA = 0x80
NETOPT_CSMA_MIN_BE = 0x81
NETOPT_CSMA_MAX_BE = 0x82
NETOPT_CSMA_MAX_BACKOFFS = 0x83
NETOPT_MAX_RETRIES = 0x84
NETOPT_RETRY_DELAY = 0x85
NETOPT_MAC_PARENT = 0x87
NETOPT_MAC_POLL = 0x88

TIMING = {"jitter": 0, "poisson": 1, "periodic": 2}

_lib = None


def load(path=None):
    """Load libwren_sim.so (from $WREN_LIB, or the default build tree)."""
    global _lib
    if _lib is not None:
        return _lib
    path = path or os.environ.get("WREN_LIB") or str(paths.BUILD / "libwren_sim.so")
    lib = ctypes.CDLL(path)
    sig = {
        "wren_sim_new": (c_void_p, [c_uint64]),
        "wren_sim_free": (None, [c_void_p]),
        "wren_sim_set_range": (None, [c_void_p, c_double, c_double]),
        "wren_sim_set_proc_delay": (c_int, [c_void_p, c_int32, c_uint32]),
        "wren_sim_add_node": (c_int, [c_void_p, c_double, c_double, c_double, c_uint32]),
        "wren_sim_set_link": (c_int, [c_void_p, c_uint32, c_uint32, c_double]),
        "wren_sim_remove_link": (c_int, [c_void_p, c_uint32, c_uint32]),
        "wren_sim_netopt_set": (c_int, [c_void_p, c_uint32, c_uint16, c_void_p, c_size_t]),
        "wren_sim_netopt_get": (c_int, [c_void_p, c_uint32, c_uint16, c_void_p, c_size_t]),
        "wren_sim_open_pcap": (c_int, [c_void_p, c_char_p]),
        "wren_sim_rawgen": (c_int, [c_void_p, c_uint32, c_int32, c_uint16, c_uint32,
                                    c_uint8, c_uint32, c_uint64]),
        "wren_sim_run": (None, [c_void_p, c_uint64]),
        "wren_sim_now": (c_uint64, [c_void_p]),
        "wren_sim_node_count": (c_uint32, [c_void_p]),
        "wren_sim_events": (c_uint64, [c_void_p]),
        "wren_sim_counters": (c_int, [c_void_p, c_uint32, POINTER(c_char_p),
                                      POINTER(c_uint64), c_int]),
        "wren_sim_bytes_per_node": (c_size_t, [c_void_p]),
        "wren_sim_pktbufs_clean": (c_int, [c_void_p]),
        "wren_sim_shell": (c_int, [c_void_p, c_uint32, c_char_p]),
        "wren_sim_shell_output": (c_int, [c_void_p, c_uint32, c_char_p, c_size_t]),
        "wren_sim_inject": (c_int, [c_void_p, c_uint32, c_char_p, c_size_t]),
        "wren_sim_zep_bridge": (c_int, [c_void_p, c_double, c_double, c_double, c_uint16,
                                        c_char_p, c_uint16]),
        "wren_sim_run_realtime": (c_int, [c_void_p, c_uint64]),
        "wren_sim_zep_stats": (c_int, [c_void_p, POINTER(c_uint64)]),
    }
    for name, (res, args) in sig.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    _lib = lib
    return lib


class SimError(RuntimeError):
    pass


def _check(res, what):
    if res < 0:
        raise SimError(f"{what} failed: {os.strerror(-res)}")
    return res


class Sim:
    """One simulated network: nodes, links, traffic, a virtual clock."""

    def __init__(self, seed=1):
        self.lib = load()
        self.h = self.lib.wren_sim_new(seed)
        if not self.h:
            raise MemoryError("wren_sim_new")

    def close(self):
        if self.h:
            self.lib.wren_sim_free(self.h)
            self.h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def set_range(self, range_m, prr=1.0):
        self.lib.wren_sim_set_range(self.h, range_m, prr)

    def set_proc_delay(self, us, node=-1):
        """Per-frame processing delay of @node's radio (-1: every node, and
        nodes added later): @us per full 127-octet frame, pro rata for shorter
        ones, before each attempt; ACKs take none. 0 turns it off."""
        _check(self.lib.wren_sim_set_proc_delay(self.h, node, int(us)), "set_proc_delay")

    def add_node(self, x=0.0, y=0.0, z=0.0, pktbuf=0):
        return _check(self.lib.wren_sim_add_node(self.h, x, y, z, pktbuf), "add_node")

    def set_link(self, a, b, prr=1.0):
        _check(self.lib.wren_sim_set_link(self.h, a, b, prr), "set_link")

    def remove_link(self, a, b):
        _check(self.lib.wren_sim_remove_link(self.h, a, b), "remove_link")

    def set_opt_u8(self, node, opt, value):
        v = c_uint8(value)
        _check(self.lib.wren_sim_netopt_set(self.h, node, opt, ctypes.byref(v), 1), "netopt set")

    def set_opt_u16(self, node, opt, value):
        v = c_uint16(value)
        _check(self.lib.wren_sim_netopt_set(self.h, node, opt, ctypes.byref(v), 2), "netopt set")

    def set_opt_bytes(self, node, opt, data):
        buf = (c_uint8 * len(data)).from_buffer_copy(bytes(data))
        _check(self.lib.wren_sim_netopt_set(self.h, node, opt, buf, len(data)), "netopt set")

    def set_sleepy(self, node, parent, poll_ms, max_poll_ms=None):
        """Make @node a sleepy end device polling node @parent (its short
        address is its id) every @poll_ms (adaptive up to @max_poll_ms)."""
        import struct
        self.set_opt_bytes(node, NETOPT_MAC_PARENT, struct.pack(">H", parent))
        self.set_opt_bytes(node, NETOPT_MAC_POLL,
                           struct.pack("=II", poll_ms, max_poll_ms or poll_ms))

    def set_cca(self, node, on):
        """CSMA-CA (with its clear channel assessments) on or off."""
        self.set_opt_u8(node, NETOPT_CSMA, 1 if on else 0)

    def set_mac(self, node, csma=None, ack=None, retries=None, retry_delay_ms=None,
                min_be=None, max_be=None, max_backoffs=None):
        """802.15.4 MAC parameters of @node (None: leave as is)."""
        for opt, val in ((NETOPT_CSMA, csma), (NETOPT_ACK_REQ, ack),
                         (NETOPT_MAX_RETRIES, retries), (NETOPT_CSMA_MAX_BE, max_be),
                         (NETOPT_CSMA_MIN_BE, min_be), (NETOPT_CSMA_MAX_BACKOFFS, max_backoffs)):
            if val is not None:
                self.set_opt_u8(node, opt, int(val))
        if retry_delay_ms is not None:
            self.set_opt_u16(node, NETOPT_RETRY_DELAY, int(retry_delay_ms))

    def set_channel(self, node, channel):
        self.set_opt_u16(node, NETOPT_CHANNEL, channel)

    def open_pcap(self, path):
        _check(self.lib.wren_sim_open_pcap(self.h, str(path).encode()), f"pcap {path}")

    def rawgen(self, node, dst=-1, size=40, interval_s=1.0, timing="jitter", count=0,
               start_s=0.0):
        _check(self.lib.wren_sim_rawgen(self.h, node, dst, size, int(interval_s * 1e6),
                                        TIMING[timing], count, int(start_s * 1e6)), "rawgen")

    def run(self, until_s):
        self.lib.wren_sim_run(self.h, int(round(until_s * 1e6)))

    def zep_bridge(self, local_port, remote_port, remote_host="127.0.0.1", x=0.0, y=0.0,
                   z=0.0):
        """A radio at (x, y, z) that exchanges frames with live processes over
        ZEP (after the nodes: returns its radio index for set_link)."""
        return _check(self.lib.wren_sim_zep_bridge(self.h, x, y, z, local_port,
                                                   remote_host.encode(), remote_port),
                      "zep_bridge")

    def run_realtime(self, seconds):
        """Run @seconds of wall-clock time, virtual time at wall-clock pace."""
        self.lib.wren_sim_run_realtime(self.h, int(round(seconds * 1e6)))

    def zep_stats(self):
        out = (c_uint64 * 8)()
        _check(self.lib.wren_sim_zep_stats(self.h, out), "zep_stats")
        names = ("to_zep", "to_zep_errors", "from_zep", "rx_malformed", "rx_other",
                 "rx_bad_fcs", "queue_drops", "tx_busy")
        return dict(zip(names, out))

    @property
    def now(self):
        return self.lib.wren_sim_now(self.h) / 1e6

    @property
    def node_count(self):
        return self.lib.wren_sim_node_count(self.h)

    @property
    def events(self):
        return self.lib.wren_sim_events(self.h)

    def bytes_per_node(self):
        return self.lib.wren_sim_bytes_per_node(self.h)

    def pktbufs_clean(self):
        return bool(self.lib.wren_sim_pktbufs_clean(self.h))

    def shell(self, node, line):
        """Run a shell command on @node; return (result, output so far)."""
        res = self.lib.wren_sim_shell(self.h, node, line.encode())
        return res, self.output(node)

    def output(self, node):
        """Take the shell output @node has collected."""
        chunks = []
        buf = ctypes.create_string_buffer(65536)
        while True:
            n = self.lib.wren_sim_shell_output(self.h, node, buf, len(buf))
            if n <= 0:
                break
            chunks.append(buf.raw[:n].decode(errors="replace"))
        return "".join(chunks)

    def inject(self, node, psdu):
        """Make @node's radio receive @psdu (an 802.15.4 frame with its FCS)."""
        return self.lib.wren_sim_inject(self.h, node, bytes(psdu), len(psdu))

    def counters(self, node):
        n = 256
        names = (c_char_p * n)()
        values = (c_uint64 * n)()
        k = _check(self.lib.wren_sim_counters(self.h, node, names, values, n), "counters")
        return {names[i].decode(): values[i] for i in range(min(k, n))}
