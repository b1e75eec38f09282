"""LoRa interfaces of simulated nodes (runtime/sim/sim_lora.h), on a Sim.

    sim = Sim(1)
    lora.enable(sim)                       # nodes added from now on get one
    a, b = sim.add_node(0, 0), sim.add_node(100, 0)
    lora.configure(sim, a, sf=9, duty_cycle=0)
    lora.send(sim, a, b"hello")
    sim.run(2.0)
    sim.counters(b)["lora2.rx_frames"]

The netopt keys are read from src/net/netopt.h, as lib.py reads its own.
"""
import ctypes
import errno
import struct
from ctypes import (c_char_p, c_double, c_int, c_size_t, c_uint16, c_uint32, c_uint64,
                    c_void_p)
from typing import Final

from .lib import NETOPT, Sim, SimError, _check, load_with

_SIGNATURES: Final = {
    "wren_sim_set_lora": (c_int, [c_void_p, c_int]),
    "wren_sim_lora_if": (c_int, [c_void_p, c_uint32]),
    "wren_sim_lora_netopt_set": (c_int, [c_void_p, c_uint32, c_uint16, c_void_p, c_size_t]),
    "wren_sim_lora_netopt_get": (c_int, [c_void_p, c_uint32, c_uint16, c_void_p, c_size_t]),
    "wren_sim_lora_send": (c_int, [c_void_p, c_uint32, c_char_p, c_size_t]),
    "wren_sim_lora_open_pcap": (c_int, [c_void_p, c_char_p]),
    "wren_sim_lora_pathloss": (c_int, [c_void_p, c_double, c_double, c_double, c_double]),
    "wren_sim_lora_rx_dbm": (c_double, [c_void_p, c_uint32, c_uint32]),
    "wren_sim_lora_periodic": (c_int, [c_void_p, c_uint32, c_uint16, c_uint32, c_uint32,
                                       c_uint64]),
    "wren_sim_set_lora_link": (None, [c_void_p, c_int]),
    "wren_sim_lora_schc_set": (c_int, [c_void_p, c_uint32, c_uint16, c_void_p, c_size_t]),
    "wren_sim_lora_schc_get": (c_int, [c_void_p, c_uint32, c_uint16, c_void_p, c_size_t]),
}

#: the LoRa interface's link layers (runtime/sim/sim_lora.h)
LINKS: Final = {"raw": 0, "lorawan": 1}
#: enum WREN_LORAWAN_ROLE_* (src/link/lorawan_link.h)
ROLE_DEVICE: Final = 0
ROLE_NETWORK: Final = 1

#: WREN_LORA_DC_REGIONAL (src/net/netopt.h): the ETSI sub-band's limit
DC_REGIONAL: Final = 0xFFFF
#: enum wren_lora_region (src/drivers/lora_phy.h)
REGIONS: Final = {"none": 0, "eu868": 1}

# setting name -> (netopt key, struct format, allowed values or None, what it takes)
SETTINGS: Final = {
    "sf": ("LORA_SF", "B", range(7, 13), "7..12"),
    "bw": ("LORA_BW", "H", (125, 250, 500), "125, 250 or 500 (kHz)"),
    "cr": ("LORA_CR", "B", range(5, 9), "5..8 (coding rate 4/5..4/8)"),
    "freq": ("LORA_FREQ", "I", range(1, 2**32), "a frequency in Hz"),
    "channel": ("CHANNEL", "H", range(0, 3), "0..2 (868.1, 868.3, 868.5 MHz)"),
    "tx_power": ("TX_POWER", "h", range(-4, 21), "-4..20 (dBm)"),
    "syncword": ("LORA_SYNCWORD", "B", range(0, 256), "0..255"),
    "preamble": ("LORA_PREAMBLE", "H", range(6, 65536), "6..65535 (symbols)"),
    "duty_cycle": ("LORA_DUTY_CYCLE", "H", range(0, 10001),
                   "'regional', or 0..10000 (1/100 %; 0: off)"),
    "region": ("LORA_REGION", "B", range(0, 2), "'eu868' or 'none'"),
}


def _lib() -> ctypes.CDLL:
    return load_with(_SIGNATURES)


def enable(sim: Sim, on: bool = True) -> None:
    """Nodes added to @sim from now on get a LoRa interface (or not)."""
    _check(_lib().wren_sim_set_lora(sim.h, int(on)), "lora enable")


def set_link(sim: Sim, link: str) -> None:
    """Nodes added to @sim from now on run @link ('raw' or 'lorawan': IPv6
    over SCHC over LoRaWAN) on their LoRa interface."""
    if link not in LINKS:
        raise ValueError(f"lora link = {link!r}: takes 'raw' or 'lorawan'")
    _lib().wren_sim_set_lora_link(sim.h, LINKS[link])


def _key(name: str, value: str) -> bytes:
    """A 16-byte key from 32 hex digits, or a ValueError naming it."""
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raw = b""
    if len(raw) != 16:
        raise ValueError(f"lora {name} = {value!r}: takes 32 hex digits (16 bytes)")
    return raw


def session(sim: Sim, node: int, devaddr: int, nwkskey: str, appskey: str,
            network: bool) -> None:
    """@node's LoRaWAN session (struct wren_lorawan_session): @devaddr, the
    keys as hex, the network side (@network) or the device."""
    if not 0 <= devaddr < 2**32:
        raise ValueError(f"lora devaddr = {devaddr}: takes 0..0xffffffff")
    raw = (struct.pack("=I", devaddr) + _key("nwkskey", nwkskey) + _key("appskey", appskey)
           + bytes([ROLE_NETWORK if network else ROLE_DEVICE]))
    raw += bytes(-len(raw) % 4)
    buf = ctypes.create_string_buffer(raw, len(raw))
    _check(_lib().wren_sim_lora_netopt_set(sim.h, node, NETOPT["LORAWAN_SESSION"], buf,
                                           len(raw)), f"lora session on node {node}")


def set_rules(sim: Sim, node: int, text: str) -> None:
    """SCHC rules (src/wire/schc.h's text) for @node's LoRa interface; a
    mistake raises ValueError with the parser's one line."""
    lib = _lib()
    raw = text.encode() + b"\0"
    res = lib.wren_sim_lora_schc_set(sim.h, node, NETOPT["SCHC_RULES"], raw, len(raw))
    if res < 0:
        err = ctypes.create_string_buffer(200)
        n = lib.wren_sim_lora_schc_get(sim.h, node, NETOPT["SCHC_ERROR"], err, 200)
        why = err.value.decode(errors="replace") if n > 0 else ""
        if why:
            raise ValueError(f"lora rules: {why}")
        _check(res, f"lora rules on node {node}")


def interface(sim: Sim, node: int) -> int:
    """@node's LoRa interface id."""
    return _check(_lib().wren_sim_lora_if(sim.h, node), f"lora interface of node {node}")


def _value(name: str, value: object) -> int:
    """A setting's value as the netopt takes it, or a ValueError naming it."""
    _, _, allowed, takes = SETTINGS[name]
    if name == "duty_cycle" and value == "regional":
        return DC_REGIONAL
    if name == "region" and isinstance(value, str) and value.lower() in REGIONS:
        return REGIONS[value.lower()]
    if isinstance(value, bool) or not isinstance(value, int) or value not in allowed:
        raise ValueError(f"lora {name} = {value!r}: takes {takes}")
    return value


def configure(sim: Sim, node: int, **settings: object) -> None:
    """Set @node's LoRa settings by name (SETTINGS: sf, bw, cr, freq,
    channel, tx_power, syncword, preamble, duty_cycle ('regional' or 1/100
    %, 0 off), region ('eu868', 'none')). A wrong one raises ValueError
    naming it."""
    lib = _lib()
    for name, value in settings.items():
        if name not in SETTINGS:
            raise ValueError(f"lora setting {name!r} unknown (one of {', '.join(SETTINGS)})")
        key, fmt, _, _ = SETTINGS[name]
        raw = struct.pack("=" + fmt, _value(name, value))
        buf = ctypes.create_string_buffer(raw, len(raw))
        _check(lib.wren_sim_lora_netopt_set(sim.h, node, NETOPT[key], buf, len(raw)),
               f"lora {name} = {value} on node {node}")


def get(sim: Sim, node: int, name: str) -> int:
    """@node's LoRa setting @name (SETTINGS)."""
    key, fmt, _, _ = SETTINGS[name]
    size = struct.calcsize("=" + fmt)
    buf = ctypes.create_string_buffer(size)
    _check(_lib().wren_sim_lora_netopt_get(sim.h, node, NETOPT[key], buf, size),
           f"lora {name} of node {node}")
    return int(struct.unpack("=" + fmt, buf.raw)[0])


def airtime_us(sim: Sim, node: int, length: int) -> int:
    """Time on air of a @length-byte frame at @node's present setting, us."""
    buf = ctypes.create_string_buffer(struct.pack("=H", length) + b"\0\0", 4)
    _check(_lib().wren_sim_lora_netopt_get(sim.h, node, NETOPT["LORA_AIRTIME"], buf, 4),
           f"lora airtime of {length} bytes")
    return int(struct.unpack("=I", buf.raw)[0])


def send(sim: Sim, node: int, frame: bytes) -> None:
    """Hand @node's LoRa interface @frame to send (now, or when it is free)."""
    res = _lib().wren_sim_lora_send(sim.h, node, bytes(frame), len(frame))
    if res == -errno.ENOBUFS:
        raise SimError(f"lora send on node {node} (packet buffer full)", errno.ENOBUFS)
    _check(res, f"lora send on node {node}")


def periodic(sim: Sim, node: int, size: int, interval_s: float, count: int = 0,
             start_s: float = 0.0) -> None:
    """From @start_s on, @node's LoRa interface gets a @size-byte frame (its
    sequence number first) every @interval_s, @count times (0: no end)."""
    if not 4 <= size <= 255:
        raise ValueError(f"lora size = {size}: takes 4..255 (bytes)")
    if not 0 < interval_s <= 4294.0:
        raise ValueError(f"lora interval = {interval_s}: takes a time above 0 s")
    _check(_lib().wren_sim_lora_periodic(sim.h, node, size, round(interval_s * 1e6), count,
                                          round(start_s * 1e6)), f"lora sender on node {node}")


def open_pcap(sim: Sim, path: str) -> None:
    """Capture every LoRa frame to @path (LINKTYPE_LORATAP, 270)."""
    _check(_lib().wren_sim_lora_open_pcap(sim.h, str(path).encode()), f"lora pcap {path}")


def set_pathloss(sim: Sim, d0_m: float = 40.0, pl_d0_db: float = 127.41, gamma: float = 2.08,
                 sigma_db: float = 0.0) -> None:
    """The LoRa medium's log-distance path loss (defaults: Bor et al., MSWiM
    2016, as runtime/sim/lora_medium.h cites)."""
    _check(_lib().wren_sim_lora_pathloss(sim.h, d0_m, pl_d0_db, gamma, sigma_db),
           "lora pathloss")


def rx_dbm(sim: Sim, a: int, b: int) -> float:
    """Power at node @b of a LoRa frame node @a sends, dBm."""
    return float(_lib().wren_sim_lora_rx_dbm(sim.h, a, b))


def _lorawan(sim: Sim, cfg: object, nodes: list[int]) -> None:
    """The [lora] table's session and rules on @nodes (LoRaWAN link)."""
    net = getattr(cfg, "network", None)
    if net is None:
        raise ValueError("lora network: link = 'lorawan' needs the node id of the network side "
                         "(the router; the others are its devices)")
    if net not in nodes:
        raise ValueError(f"lora network: node {net} has no LoRa interface")
    rules = getattr(cfg, "rules", None)
    for node in nodes:
        session(sim, node, cfg.devaddr, cfg.nwkskey, cfg.appskey,  # type: ignore[attr-defined]
                node == net)
        if rules:
            set_rules(sim, node, rules)


def populate(sim: Sim, cfg: object, nodes: list[int]) -> None:
    """Apply a scenario's [lora] table (scenario.Lora) to @nodes: the path
    loss, each node's settings, the capture. A setting the radio refuses is
    a ScenarioError at the table."""
    from .scenario import ScenarioError
    where = getattr(cfg, "where", None)
    pl = getattr(cfg, "pathloss", None)
    try:
        if pl is not None:
            set_pathloss(sim, pl.ref_distance, pl.ref_loss_db, pl.gamma, pl.sigma_db)
        settings = {k: getattr(cfg, k) for k in SETTINGS if getattr(cfg, k, None) is not None}
        if settings.get("duty_cycle") == "off":
            settings["duty_cycle"] = 0
        for node in nodes:
            configure(sim, node, **settings)
        if getattr(cfg, "link", "raw") == "lorawan":
            _lorawan(sim, cfg, nodes)
        if getattr(cfg, "pcap", None) and nodes:
            open_pcap(sim, cfg.pcap)  # type: ignore[attr-defined]
        for node in getattr(cfg, "senders", None) or []:
            if node not in nodes:
                raise ValueError(f"lora senders: node {node} has no LoRa interface")
            periodic(sim, node, cfg.size, cfg.interval, cfg.count,  # type: ignore[attr-defined]
                     cfg.start)  # type: ignore[attr-defined]
    except (ValueError, SimError) as e:
        raise ScenarioError(f"[lora] {e}", where) from None
