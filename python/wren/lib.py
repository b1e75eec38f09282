"""ctypes binding of the simulator library (runtime/sim/sim.h).

The netopt keys and the rawgen timings are read from the C headers
(src/net/netopt.h, src/apps/rawgen.h) when this module is imported, and
counter names come from the library at run time (wren_sim_counters), so
nothing here repeats a number or a counter name the C side defines.
"""
import ctypes
import errno
import difflib
import os
import struct
from collections.abc import Mapping
from ctypes import (POINTER, c_char_p, c_double, c_int, c_int32, c_size_t,
                    c_uint8, c_uint16, c_uint32, c_uint64, c_void_p)
from pathlib import Path
from types import TracebackType
from typing import Any, Final, cast

from . import cenum, paths, progress

#: every WREN_NETOPT_* key of enum wren_netopt, without the prefix
NETOPT: Final[Mapping[str, int]] = cenum.load(paths.SRC / "net/netopt.h", "wren_netopt",
                                              "WREN_NETOPT_")


def _netopt(name: str) -> int:
    try:
        return NETOPT[name]
    except KeyError:
        raise cenum.CEnumError(f"{paths.SRC / 'net/netopt.h'} has no WREN_NETOPT_{name}, "
                               f"which the Python binding uses") from None


# the keys the binding uses (the names only: the numbers are the header's)
NETOPT_CHANNEL: Final[int] = _netopt("CHANNEL")
NETOPT_ADDRESS: Final[int] = _netopt("ADDRESS")
NETOPT_CCA_BEFORE_TX: Final[int] = _netopt("CCA_BEFORE_TX")
NETOPT_ACK_REQ: Final[int] = _netopt("ACK_REQ")
NETOPT_STATE: Final[int] = _netopt("STATE")
NETOPT_CSMA: Final[int] = _netopt("CSMA")
NETOPT_CSMA_MIN_BE: Final[int] = _netopt("CSMA_MIN_BE")
NETOPT_CSMA_MAX_BE: Final[int] = _netopt("CSMA_MAX_BE")
NETOPT_CSMA_MAX_BACKOFFS: Final[int] = _netopt("CSMA_MAX_BACKOFFS")
NETOPT_MAX_RETRIES: Final[int] = _netopt("MAX_RETRIES")
NETOPT_RETRY_DELAY: Final[int] = _netopt("RETRY_DELAY")
NETOPT_MAC_PARENT: Final[int] = _netopt("MAC_PARENT")
NETOPT_MAC_POLL: Final[int] = _netopt("MAC_POLL")
NETOPT_MAC_LPL: Final[int] = _netopt("MAC_LPL")

#: rawgen's timings by their scenario names ("jitter", "poisson", "periodic")
TIMING: Final[Mapping[str, int]] = {
    k.lower(): v for k, v in cenum.load(paths.SRC / "apps/rawgen.h", "wren_rawgen_timing",
                                        "WREN_RAWGEN_").items()}

#: capture formats by name: their pcap link types (runtime/sim/pcap.h)
PCAP_FORMATS: Final[Mapping[str, int]] = {"wpan": 195, "wpan-tap": 283}

_lib: ctypes.CDLL | None = None

_SIGNATURES: Final[dict[str, tuple[Any, list[Any]]]] = {
    "wren_sim_new": (c_void_p, [c_uint64]),
    "wren_sim_free": (None, [c_void_p]),
    "wren_sim_set_range": (None, [c_void_p, c_double, c_double]),
    "wren_sim_set_proc_delay": (c_int, [c_void_p, c_int32, c_uint32]),
    "wren_sim_set_rx_proc_delay": (c_int, [c_void_p, c_int32, c_uint32]),
    "wren_sim_set_capture": (None, [c_void_p, c_double]),
    "wren_sim_set_drift": (c_int, [c_void_p, c_int32, c_double]),
    "wren_sim_set_drift_range": (c_int, [c_void_p, c_double]),
    "wren_sim_get_drift": (c_int, [c_void_p, c_uint32, POINTER(c_double)]),
    "wren_sim_node_now": (c_uint64, [c_void_p, c_uint32]),
    "wren_sim_set_pathloss": (c_int, [c_void_p, c_double, c_double, c_double, c_double,
                                      c_double]),
    "wren_sim_link_info": (c_int, [c_void_p, c_uint32, c_uint32, c_uint32, POINTER(c_double),
                                   POINTER(c_int32)]),
    "wren_sim_set_modules": (c_int, [c_void_p, c_char_p]),
    "wren_sim_set_mac": (c_int, [c_void_p, c_char_p]),
    "wren_sim_module_name": (c_char_p, [c_uint32]),
    "wren_sim_add_node": (c_int, [c_void_p, c_double, c_double, c_double, c_uint32]),
    "wren_sim_set_link": (c_int, [c_void_p, c_uint32, c_uint32, c_double]),
    "wren_sim_remove_link": (c_int, [c_void_p, c_uint32, c_uint32]),
    "wren_sim_netopt_set": (c_int, [c_void_p, c_uint32, c_uint16, c_void_p, c_size_t]),
    "wren_sim_netopt_get": (c_int, [c_void_p, c_uint32, c_uint16, c_void_p, c_size_t]),
    "wren_sim_open_pcap": (c_int, [c_void_p, c_char_p]),
    "wren_sim_open_pcap_as": (c_int, [c_void_p, c_char_p, c_uint32]),
    "wren_sim_rawgen": (c_int, [c_void_p, c_uint32, c_int32, c_uint16, c_uint32,
                                c_uint8, c_uint32, c_uint64]),
    "wren_sim_run": (None, [c_void_p, c_uint64]),
    "wren_sim_now": (c_uint64, [c_void_p]),
    "wren_sim_node_count": (c_uint32, [c_void_p]),
    "wren_sim_events": (c_uint64, [c_void_p]),
    "wren_sim_counters": (c_int, [c_void_p, c_uint32, POINTER(c_char_p),
                                  POINTER(c_uint64), c_int]),
    "wren_sim_bytes_per_node": (c_size_t, [c_void_p]),
    "wren_sim_memory": (c_int, [c_void_p, c_int32, POINTER(c_char_p), POINTER(c_uint64), c_int]),
    "wren_sim_failed_module": (c_char_p, [c_void_p]),
    "wren_sim_pktbufs_clean": (c_int, [c_void_p]),
    "wren_sim_rpl_routes": (c_int, [c_void_p, c_uint32, c_uint32]),
    "wren_sim_shell": (c_int, [c_void_p, c_uint32, c_char_p]),
    "wren_sim_shell_output": (c_int, [c_void_p, c_uint32, c_char_p, c_size_t]),
    "wren_sim_inject": (c_int, [c_void_p, c_uint32, c_char_p, c_size_t]),
    "wren_sim_zep_bridge": (c_int, [c_void_p, c_double, c_double, c_double, c_uint16,
                                    c_char_p, c_uint16]),
    "wren_sim_run_realtime": (c_int, [c_void_p, c_uint64]),
    "wren_sim_zep_counters": (c_int, [c_void_p, POINTER(c_char_p), POINTER(c_uint64), c_int]),
}


def library_path() -> Path:
    """$WREN_LIB, else libwren_sim.so in the host build tree ($WREN_BUILD or build/)."""
    return Path(os.environ.get("WREN_LIB") or paths.BUILD / "libwren_sim.so")


def load(path: str | os.PathLike[str] | None = None) -> ctypes.CDLL:
    """Load libwren_sim.so (once: later calls return the same library)."""
    global _lib
    if _lib is not None:
        return _lib
    lib = ctypes.CDLL(str(path or library_path()))
    for name, (res, args) in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    _lib = lib
    return lib


_bound: set[int] = set()


def load_with(signatures: Mapping[str, tuple[Any, list[Any]]]) -> ctypes.CDLL:
    """load(), with a module's own C functions (@signatures: name -> (restype,
    argtypes), as _SIGNATURES) declared the first time (wren.lora, wren.ethernet)."""
    lib = load()
    if id(signatures) not in _bound:
        for name, (res, args) in signatures.items():
            fn = getattr(lib, name)
            fn.restype = res
            fn.argtypes = args
        _bound.add(id(signatures))
    return lib


class SimError(RuntimeError):
    """A call into the simulator library failed."""

    def __init__(self, what: str, errno: int) -> None:
        super().__init__(f"{what} failed: {os.strerror(errno)}")
        self.what = what
        self.errno = errno


class _ClosedLib:
    """What a closed Sim calls instead of the library: every function raises
    (the handle is gone; passing NULL to the library would crash Python)."""

    def __getattr__(self, name: str) -> Any:
        def closed(*args: object) -> Any:
            raise SimError(f"{name} on a closed Sim", errno.EBADF)
        return closed


def _check(res: int, what: str) -> int:
    if res < 0:
        raise SimError(what, -res)
    return res


def counter_sets(counters: Mapping[str, int]) -> dict[str, dict[str, int]]:
    """{"radio": {"tx_frames": ..}, "6lowpan": {..}, ..} from "set.counter"
    names (a name without a dot is a set of its own)."""
    out: dict[str, dict[str, int]] = {}
    for name, value in counters.items():
        group, _, counter = name.partition(".")
        out.setdefault(group, {})[counter or group] = value
    return out


class Sim:
    """One simulated network: nodes, links, traffic, a virtual clock."""

    lib: ctypes.CDLL
    h: int | None
    #: whether a ZEP bridge joins it to live processes (see zep_bridge())
    bridged: bool

    def __init__(self, seed: int = 1) -> None:
        self.h = None
        self.bridged = False
        self.lib = load()
        self.h = self.lib.wren_sim_new(seed)
        if not self.h:
            raise MemoryError("wren_sim_new")

    def close(self) -> None:
        """Free the network (idempotent)."""
        if self.h:
            self.lib.wren_sim_free(self.h)
            self.h = None
            self.lib = cast(ctypes.CDLL, _ClosedLib())

    def __enter__(self) -> "Sim":
        return self

    def __exit__(self, typ: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "h", None):
            self.close()

    def set_range(self, range_m: float, prr: float = 1.0) -> None:
        """Links with reception ratio @prr between every pair of radios at
        most @range_m apart (nodes added later too)."""
        self.lib.wren_sim_set_range(self.h, range_m, prr)

    def set_proc_delay(self, us: int, node: int = -1) -> None:
        """Per-frame processing delay of @node's radio (-1: every node, and
        nodes added later): @us per full 127-octet frame, pro rata for shorter
        ones, before each attempt; ACKs take none. 0 turns it off."""
        _check(self.lib.wren_sim_set_proc_delay(self.h, node, int(us)), "set_proc_delay")

    def set_rx_proc_delay(self, us: int, node: int = -1) -> None:
        """Receive-side upload of @node's radio (-1: every node, and nodes
        added later): each received frame reaches the node @us per full
        127-octet frame (pro rata) after its end; the radio ACKs it itself
        and takes no other frame meanwhile. 0 turns it off."""
        _check(self.lib.wren_sim_set_rx_proc_delay(self.h, node, int(us)), "set_rx_proc_delay")

    def set_capture(self, p: float) -> None:
        """A frame being received survives an overlapping transmission with
        probability @p (0..1; 0, the default: every overlap destroys it)."""
        self.lib.wren_sim_set_capture(self.h, float(p))

    def set_pathloss(self, exponent: float = 3.0, ref_loss_db: float = 40.0,
                     sigma_db: float = 4.0, tx_power_dbm: float = 0.0,
                     noise_dbm: float = -100.0) -> None:
        """Links between nodes added from now on from log-distance path loss
        with log-normal shadowing (runtime/sim/pathloss.h; the defaults are
        its): RSSI = tx_power_dbm - ref_loss_db - 10 exponent log10(d / 1 m)
        - X, X ~ N(0, sigma_db) per pair from the seed; a frame gets through
        with the O-QPSK PRR of its length at SNR = RSSI - noise_dbm.
        exponent 0 turns the model off."""
        _check(self.lib.wren_sim_set_pathloss(self.h, float(exponent), float(ref_loss_db),
                                              float(sigma_db), float(tx_power_dbm),
                                              float(noise_dbm)), "set_pathloss")

    def link(self, a: int, b: int, psdu: int = 127) -> tuple[float, int] | None:
        """(PRR of a @psdu-octet frame, RSSI dBm) of the link from @a to @b,
        or None if @b does not hear @a."""
        prr, rssi = c_double(), c_int32()
        res = self.lib.wren_sim_link_info(self.h, a, b, psdu, ctypes.byref(prr),
                                          ctypes.byref(rssi))
        if res == -errno.ENOENT:
            return None
        _check(res, f"link {a} -> {b}")
        return prr.value, rssi.value

    def set_drift(self, ppm: float, node: int = -1) -> None:
        """Node @node's crystal runs @ppm parts per million fast (negative:
        slow) from now on: its clock, timers and radio timestamps (-1: every
        node, and nodes added later). By default each node draws its offset
        within +-30 ppm from the seed (set_drift_range)."""
        _check(self.lib.wren_sim_set_drift(self.h, node, float(ppm)), f"set_drift {ppm}")

    def set_drift_range(self, max_ppm: float) -> None:
        """Nodes added from now on draw their crystal offset uniformly within
        +-@max_ppm from the seed and their id (0: exact clocks)."""
        _check(self.lib.wren_sim_set_drift_range(self.h, float(max_ppm)),
               f"set_drift_range {max_ppm}")

    def drift(self, node: int) -> float:
        """Node @node's crystal offset, ppm."""
        v = c_double()
        _check(self.lib.wren_sim_get_drift(self.h, node, ctypes.byref(v)), "drift")
        return v.value

    def node_now_us(self, node: int) -> int:
        """Node @node's own clock (its wren_node_now()), us."""
        t = self.lib.wren_sim_node_now(self.h, node)
        if t == 2**64 - 1:
            raise SimError("node_now", errno.EINVAL)
        return int(t)

    def module_names(self) -> list[str]:
        """The stack's module list (src/stack/modules.h), in start order."""
        names: list[str] = []
        while (n := self.lib.wren_sim_module_name(len(names))) is not None:
            names.append(n.decode())
        return names

    def unknown_module(self, name: str) -> str | None:
        """Why @name is not a module of the list (with a suggestion), or None."""
        known = self.module_names()
        if name in known:
            return None
        close = difflib.get_close_matches(name, known, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        return f"unknown module '{name}'{hint}; the modules are {', '.join(known)}"

    def set_modules(self, modules: list[str] | None) -> None:
        """The modules nodes added from now on run (None: every module of
        the list but the opt-in ones, the default); an unknown name is a
        ValueError naming it."""
        for m in modules or []:
            why = self.unknown_module(m)
            if why:
                raise ValueError(why)
        _check(self.lib.wren_sim_set_modules(self.h, " ".join(modules or []).encode()),
               "set_modules")

    def add_node(self, x: float = 0.0, y: float = 0.0, z: float = 0.0, pktbuf: int = 0) -> int:
        """A node at (x, y, z) with a packet buffer of @pktbuf bytes (0: the
        default); returns its id (0, 1, ...; also its short address)."""
        res = self.lib.wren_sim_add_node(self.h, x, y, z, pktbuf)
        failed = self.lib.wren_sim_failed_module(self.h) if res < 0 else None
        if failed and res != -errno.ECANCELED:
            raise SimError(f"add_node: module {failed.decode()!r} refused to start (a module "
                           f"it needs missing from the set?)", -res)
        return _check(res, "add_node")

    def set_link(self, a: int, b: int, prr: float = 1.0) -> None:
        """A directed link from @a to @b delivering the share @prr of frames
        (0: it interferes but never delivers)."""
        _check(self.lib.wren_sim_set_link(self.h, a, b, prr), "set_link")

    def remove_link(self, a: int, b: int) -> None:
        _check(self.lib.wren_sim_remove_link(self.h, a, b), "remove_link")

    def set_opt_u8(self, node: int, opt: int, value: int) -> None:
        v = c_uint8(value)
        _check(self.lib.wren_sim_netopt_set(self.h, node, opt, ctypes.byref(v), 1), "netopt set")

    def set_opt_u16(self, node: int, opt: int, value: int) -> None:
        v = c_uint16(value)
        _check(self.lib.wren_sim_netopt_set(self.h, node, opt, ctypes.byref(v), 2), "netopt set")

    def set_opt_bytes(self, node: int, opt: int, data: bytes) -> None:
        buf = (c_uint8 * len(data)).from_buffer_copy(bytes(data))
        _check(self.lib.wren_sim_netopt_set(self.h, node, opt, buf, len(data)), "netopt set")

    def set_sleepy(self, node: int, parent: int, poll_ms: int,
                   max_poll_ms: int | None = None) -> None:
        """Make @node a sleepy end device polling node @parent (its short
        address is its id) every @poll_ms (adaptive up to @max_poll_ms)."""
        self.set_opt_bytes(node, NETOPT_MAC_PARENT, struct.pack(">H", parent))
        self.set_opt_bytes(node, NETOPT_MAC_POLL,
                           struct.pack("=II", poll_ms, max_poll_ms or poll_ms))

    def set_lpl(self, node: int, interval_ms: int) -> None:
        """Low-power listening on @node's CSMA MAC: its radio wakes every
        @interval_ms to listen, frames go out as trains of copies (0: off,
        the radio always on; mac/csma/ieee802154_lpl.c)."""
        self.set_opt_u16(node, NETOPT_MAC_LPL, interval_ms)

    def set_cca(self, node: int, on: bool) -> None:
        """CSMA-CA (with its clear channel assessments) on or off."""
        self.set_opt_u8(node, NETOPT_CSMA, 1 if on else 0)

    def set_mac(self, node: int, csma: bool | None = None, ack: bool | None = None,
                retries: int | None = None, retry_delay_ms: int | None = None,
                min_be: int | None = None, max_be: int | None = None,
                max_backoffs: int | None = None) -> None:
        """802.15.4 MAC parameters of @node (None: leave as is)."""
        for opt, val in ((NETOPT_CSMA, csma), (NETOPT_ACK_REQ, ack),
                         (NETOPT_MAX_RETRIES, retries), (NETOPT_CSMA_MAX_BE, max_be),
                         (NETOPT_CSMA_MIN_BE, min_be), (NETOPT_CSMA_MAX_BACKOFFS, max_backoffs)):
            if val is not None:
                self.set_opt_u8(node, opt, int(val))
        if retry_delay_ms is not None:
            self.set_opt_u16(node, NETOPT_RETRY_DELAY, int(retry_delay_ms))

    def set_mac_kind(self, kind: str) -> None:
        """The MAC of nodes added from now on: "csma" (default) or "tsch"."""
        res = self.lib.wren_sim_set_mac(self.h, kind.encode())
        if res < 0:
            raise SimError(f"unknown MAC kind {kind!r} (csma or tsch)", -res)

    def set_channel(self, node: int, channel: int) -> None:
        self.set_opt_u16(node, NETOPT_CHANNEL, channel)

    def open_pcap(self, path: str | os.PathLike[str], fmt: str = "wpan") -> None:
        """Capture every frame on the air into @path, stamped with the true
        time its first symbol began: @fmt "wpan" is LINKTYPE 195 (the PSDU),
        "wpan-tap" LINKTYPE 283 (with each frame's channel: tshark's
        wpan-tap.ch_num)."""
        if fmt not in PCAP_FORMATS:
            raise ValueError(f"unknown pcap format '{fmt}'; the formats are "
                             f"{', '.join(PCAP_FORMATS)}")
        _check(self.lib.wren_sim_open_pcap_as(self.h, os.fsencode(path), PCAP_FORMATS[fmt]),
               f"pcap {path}")

    def rawgen(self, node: int, dst: int = -1, size: int = 40, interval_s: float = 1.0,
               timing: str = "jitter", count: int = 0, start_s: float = 0.0) -> None:
        """Raw frames of @size payload bytes from @node to @dst (-1:
        broadcast) every @interval_s (0: only receive), at most @count (0:
        no limit), from @start_s on."""
        _check(self.lib.wren_sim_rawgen(self.h, node, dst, size, int(interval_s * 1e6),
                                        TIMING[timing], count, int(start_s * 1e6)), "rawgen")

    def run(self, until_s: float) -> None:
        """Run until the virtual clock reads @until_s seconds (an open
        progress.TaskBar hears of the simulated time and events)."""
        t0, e0 = self.lib.wren_sim_now(self.h), self.lib.wren_sim_events(self.h)
        self.lib.wren_sim_run(self.h, int(round(until_s * 1e6)))
        progress.sim_step((self.lib.wren_sim_now(self.h) - t0) / 1e6,
                          self.lib.wren_sim_events(self.h) - e0)

    def zep_bridge(self, local_port: int, remote_port: int, remote_host: str = "127.0.0.1",
                   x: float = 0.0, y: float = 0.0, z: float = 0.0) -> int:
        """A radio at (x, y, z) that exchanges frames with live processes over
        ZEP (after the nodes: returns its radio index for set_link)."""
        idx = _check(self.lib.wren_sim_zep_bridge(self.h, x, y, z, local_port,
                                                  remote_host.encode(), remote_port),
                     "zep_bridge")
        self.bridged = True
        return idx

    def run_realtime(self, seconds: float) -> None:
        """Run @seconds of wall-clock time, virtual time at wall-clock pace."""
        self.lib.wren_sim_run_realtime(self.h, int(round(seconds * 1e6)))

    def zep_stats(self) -> dict[str, int]:
        """The ZEP bridge's counters by name (from its C counter list)."""
        n = _check(self.lib.wren_sim_zep_counters(self.h, None, None, 0), "zep_stats")
        names = (c_char_p * n)()
        values = (c_uint64 * n)()
        _check(self.lib.wren_sim_zep_counters(self.h, names, values, n), "zep_stats")
        return {name.decode(): int(v) for name, v in zip(names, values) if name is not None}

    @property
    def now(self) -> float:
        """The virtual clock, seconds."""
        return float(self.lib.wren_sim_now(self.h)) / 1e6

    @property
    def node_count(self) -> int:
        return int(self.lib.wren_sim_node_count(self.h))

    @property
    def events(self) -> int:
        return int(self.lib.wren_sim_events(self.h))

    def bytes_per_node(self) -> int:
        return int(self.lib.wren_sim_bytes_per_node(self.h))

    def memory(self, node: int = -1) -> dict[str, int]:
        """Bytes of @node (-1: of every node, summed) by part: "node",
        "pktbuf", "netif", "radio", "shell", "apps", each module by name
        (its state from the build and what it made on first use), "total"
        (their sum); the names come from the library (wren_sim_memory)."""
        n = _check(self.lib.wren_sim_memory(self.h, node, None, None, 0), f"memory {node}")
        names = (c_char_p * n)()
        values = (c_uint64 * n)()
        _check(self.lib.wren_sim_memory(self.h, node, names, values, n), f"memory {node}")
        return {cast(bytes, names[i]).decode(): int(values[i]) for i in range(n)}

    def rpl_routes(self, node: int, n: int) -> None:
        """Give @node's RPL a route table of @n entries (before it takes a
        role): a non-storing root needs one per node of its DODAG, a storing
        router one per node below it."""
        _check(self.lib.wren_sim_rpl_routes(self.h, node, n), f"rpl_routes node {node}")

    def pktbufs_clean(self) -> bool:
        """Whether every node's packet buffer is empty and consistent."""
        return bool(self.lib.wren_sim_pktbufs_clean(self.h))

    def shell(self, node: int, line: str) -> tuple[int, str]:
        """Run a shell command on @node; return (result, output so far)."""
        res = self.lib.wren_sim_shell(self.h, node, line.encode())
        return res, self.output(node)

    def output(self, node: int) -> str:
        """Take the shell output @node has collected."""
        chunks = []
        buf = ctypes.create_string_buffer(65536)
        while True:
            n = self.lib.wren_sim_shell_output(self.h, node, buf, len(buf))
            if n <= 0:
                break
            chunks.append(buf.raw[:n].decode(errors="replace"))
        return "".join(chunks)

    def inject(self, node: int, psdu: bytes) -> int:
        """Make @node's radio receive @psdu (an 802.15.4 frame with its FCS)."""
        return int(self.lib.wren_sim_inject(self.h, node, bytes(psdu), len(psdu)))

    def counters(self, node: int) -> dict[str, int]:
        """Every counter of @node, by the names the library gives them
        ("set.counter": "radio.tx_frames", "6lowpan.frag_rx", ...), in its
        order. However many there are: the library says how many first."""
        n = _check(self.lib.wren_sim_counters(self.h, node, None, None, 0), "counters")
        while True:
            names = (c_char_p * max(n, 1))()
            values = (c_uint64 * max(n, 1))()
            k = _check(self.lib.wren_sim_counters(self.h, node, names, values, n), "counters")
            if k <= n:
                break
            n = k  # (it cannot grow between two calls today; if it could, ask again)
        return {(names[i] or b"?").decode(): int(values[i]) for i in range(k)}
