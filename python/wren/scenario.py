"""Scenarios: TOML files that describe a network, its traffic and its run.

A scenario has a seed and a duration, a radio model, nodes (a grid, a
random field or an explicit list), optional explicit links, MAC
parameters, applications and shell commands. docs/scenarios.md
documents every key; scenarios/demo.toml uses them.

load() reads a file into a Scenario, typed dataclasses checked against the
keys they declare: an unknown key (with the closest known one as a
suggestion), a value of the wrong type or out of range, a node id beyond
the scenario's nodes, a missing required key, a missing file or invalid TOML
each raise one ScenarioError naming the file and the line (tomllib keeps no
positions: wren.tomlpos finds them in the text).
"""
import ipaddress
import json
import math
import os
import random
import re
import string
import time
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Final, Literal

from . import cenum, ethernet, lib, lora, paths, progress
from .errors import UserError
from .lib import Sim, SimError
from .tomlpos import Path as TomlPath
from .toml_tables import ScenarioError, Table, Where, _Ctx, _parse_table, _table_name, spec

__all__ = ["Scenario", "ScenarioError", "Grid", "RandomField", "NodeSpec", "Radio", "PathLoss",
           "Link",
           "Mac", "App", "Shell", "Rpl", "load", "parse", "build", "run", "summary", "write_json",
           "duty", "drops", "memory_line", "rpl_tables_state", "SUMMARY_COLUMNS", "ENERGY_COLUMNS",
           "CPU_COLUMNS"]

Result = dict[str, Any]
"""What run() returns and write_json() writes (plain JSON data)."""

U8, U16, U32, U64 = (1 << 8) - 1, (1 << 16) - 1, (1 << 32) - 1, (1 << 64) - 1


#: the largest crystal offset the simulator takes (WREN_WORLD_CLOCK_MAX_PPM)
MAX_DRIFT_PPM: Final[float] = 1000.0

NodeSel = Literal["all"] | list[int]
"""Nodes a key applies to: "all" or a list of ids."""


def _id_list(v: Any) -> Any:
    """A node id as a list of one ("all" and lists stay)."""
    return [v] if isinstance(v, int) else v


def _str_list(v: Any) -> Any:
    """A string as a list of one."""
    return [v] if isinstance(v, str) else v


@dataclass(kw_only=True)
class Grid(Table):
    """[grid]: rows x cols nodes, `spacing` metres apart, row by row."""
    rows: int = spec(lo=1, hi=U32)
    cols: int = spec(lo=1, hi=U32)
    spacing: float = spec(10.0, lo=0.0, unit="metres")


@dataclass(kw_only=True)
class RandomField(Table):
    """[random]: `count` nodes placed at random in width x height metres."""
    count: int = spec(lo=1, hi=U32)
    width: float = spec(lo=0.0, unit="metres")
    height: float = spec(lo=0.0, unit="metres")


@dataclass(kw_only=True)
class NodeSpec(Table):
    """A [[nodes]] entry: a node's position and its own processing delay."""
    x: float = spec(0.0)
    y: float = spec(0.0)
    z: float = spec(0.0)
    proc_delay_us: int | None = spec(None, lo=0, hi=U32)
    # this node's crystal offset, ppm (negative: slow), instead of a drawn one
    drift_ppm: float | None = spec(None, lo=-MAX_DRIFT_PPM, hi=MAX_DRIFT_PPM, unit="ppm")


@dataclass(kw_only=True)
class PathLoss(Table):
    """[radio.pathloss]: links from log-distance path loss with log-normal
    shadowing (runtime/sim/pathloss.h): RSSI = tx_power_dbm - ref_loss_db -
    10 exponent log10(d / 1 m) - X, X ~ N(0, sigma_db) drawn per pair from
    the seed; each frame gets through with the O-QPSK PRR of its length at
    SNR = RSSI - noise_dbm. The defaults are the C model's."""
    exponent: float = spec(3.0, lo=0.1, hi=10.0)
    ref_loss_db: float = spec(40.0, lo=0.0, hi=200.0, unit="dB")
    sigma_db: float = spec(4.0, lo=0.0, hi=30.0, unit="dB")
    tx_power_dbm: float = spec(0.0, lo=-50.0, hi=50.0, unit="dBm")
    noise_dbm: float = spec(-100.0, lo=-200.0, hi=0.0, unit="dBm")


@dataclass(kw_only=True)
class Radio(Table):
    """[radio]: links by range or [radio.pathloss], CCA, channel, per-frame
    processing delay, the crystals' offsets."""
    range: float | None = spec(None, lo=0.0, unit="metres")
    prr: float = spec(1.0, lo=0.0, hi=1.0)
    cca: bool = spec(True)
    channel: int | None = spec(None, lo=11, hi=26)
    proc_delay_us: int | None = spec(None, lo=0, hi=U32)
    # every node's crystal offset is drawn within +-drift_ppm from the seed
    # (default 30; 0: exact clocks); [[nodes]] may give a node its own
    drift_ppm: float | None = spec(None, lo=0.0, hi=MAX_DRIFT_PPM, unit="ppm")
    pathloss: PathLoss | None = spec(None)


@dataclass(kw_only=True)
class Stack(Table):
    """[stack]: the modules every node runs, by name, in start order
    (default: every module of the stack's list but the opt-in ones, such as
    coap_plugtest, which a node runs only where this names them;
    src/stack/modules.h)."""
    modules: list[str] | None = spec(None, toml=list[str])


@dataclass(kw_only=True)
class Link(Table):
    """A [[links]] entry: a link from node `from` to node `to` (both ways
    unless both = false) delivering the share `prr` of frames."""
    src: int = spec(key="from", node_ref=True, what="a node id")
    dst: int = spec(key="to", node_ref=True, what="a node id")
    prr: float = spec(1.0, lo=0.0, hi=1.0)
    both: bool = spec(True)


@dataclass(kw_only=True)
class Mac(Table):
    """[mac]: 802.15.4 MAC of every node: `kind` "csma" (the default) or
    "tsch" (src/mac/tsch/tsch.h: node `coordinator` starts the network, the
    others join it); its parameters (None: the default; retries and the
    backoff exponents apply to either)."""
    kind: str = spec("csma", choices=lambda: {"csma": 0, "tsch": 1})
    coordinator: int = spec(0, node_ref=True, what="a node id")
    csma: bool | None = spec(None)
    ack: bool | None = spec(None)
    retries: int | None = spec(None, lo=0, hi=U8)
    retry_delay_ms: int | None = spec(None, lo=0, hi=U16)
    min_be: int | None = spec(None, lo=0, hi=U8)
    max_be: int | None = spec(None, lo=0, hi=U8)
    max_backoffs: int | None = spec(None, lo=0, hi=U8)


def _rawgen_min_size() -> int:
    return cenum.define(paths.SRC / "apps/rawgen.h", "WREN_RAWGEN_HDR_LEN")


@dataclass(kw_only=True)
class App(Table):
    """An [[apps]] entry: rawgen on `nodes`, sending `size`-byte payloads to
    `dst` every `interval` seconds (0: only receive)."""
    kind: Literal["rawgen"] = spec("rawgen", key="type")
    nodes: NodeSel = spec("all", toml=NodeSel | int, conv=_id_list, node_ref=True,
                          what='"all", a list of node ids or a node id')
    dst: Literal["broadcast"] | int = spec("broadcast", node_ref=True,
                                           what='"broadcast" or a node id')
    size: int = spec(40, lo=_rawgen_min_size(), hi=U16, unit="bytes")
    interval: float = spec(1.0, lo=0.0, hi=U32 / 1e6, unit="seconds")
    timing: str = spec("jitter", choices=lambda: lib.TIMING)
    start: float = spec(0.0, lo=0.0, hi=U64 / 1e6, unit="seconds")
    count: int = spec(0, lo=0, hi=U32)


@dataclass(kw_only=True)
class Shell(Table):
    """A [[shell]] entry: commands run `at` a time on `node` or `nodes`
    (neither: every node), again `every` so many seconds until `until` (or
    the end of the run) if given; {id}, {prev}, {next} become node ids,
    {addr} the node's address in the [rpl] prefix and {addr[N]} node N's."""
    at: float = spec(0.0, lo=0.0, unit="seconds")
    every: float | None = spec(None, lo=0.001, unit="seconds")
    until: float | None = spec(None, lo=0.0, unit="seconds")
    node: int | None = spec(None, node_ref=True, what="a node id")
    nodes: NodeSel | None = spec(None, toml=NodeSel | int, conv=_id_list, node_ref=True,
                                 what='"all", a list of node ids or a node id')
    cmd: list[str] = spec(toml=str | list[str], conv=_str_list)


@dataclass(kw_only=True)
class Rpl(Table):
    """[rpl]: RPL on every node: the `root` nodes start a DODAG each with
    `prefix` (nodes take addresses in it when it is a /64), the `leaves`
    join and never route, every other node joins as a router."""
    root: list[int] = spec(toml=list[int] | int, conv=_id_list, node_ref=True,
                           what="a list of node ids or a node id")
    leaves: list[int] = spec(factory=list, toml=list[int] | int, conv=_id_list, node_ref=True,
                             what="a list of node ids or a node id")
    prefix: str = spec("2001:db8::/64")
    mode: Literal["storing", "non-storing"] = spec("storing")
    objective: Literal["of0", "mrhof"] = spec("of0")
    instance: int = spec(0, lo=0, hi=127)
    # the roots' DODAGs are grounded (RFC 6550 3.2.4: the G flag of their
    # DIOs); false: floating DODAGs, left for a grounded one when one is heard
    grounded: bool = spec(True)
    # a router that loses every parent roots a floating DODAG of its own so
    # the nodes below it stay connected (they rejoin a grounded DODAG heard
    # later); false: it only solicits DIOs (`rpl router nofloat`)
    floating: bool = spec(True)
    # route tables given to RPL (wren_sim_rpl_routes): a root's holds a
    # route to every node of its DODAG (default: one per node of the
    # scenario, so a whole DODAG never fills it); in storing mode a router's
    # holds the nodes below it (default: one per other node; non-storing
    # routers keep none and get no memory: the 16 built into every node,
    # CONFIG_WREN_RPL_ROUTES, stay unused)
    root_routes: int | None = spec(None, lo=1, hi=65535, unit="routes")
    routes: int | None = spec(None, lo=1, hi=65535, unit="routes")


@dataclass(kw_only=True)
class LoraPathLoss(Table):
    """[lora.pathloss]: the LoRa medium's log-distance path loss (defaults:
    Bor et al., MSWiM 2016, runtime/sim/lora_medium.h)."""
    # the reference distance d0 and the loss there, PL(d0)
    ref_distance: float = spec(40.0, lo=0.001, unit="metres")
    ref_loss_db: float = spec(127.41, lo=0.0, hi=300.0, unit="dB")
    gamma: float = spec(2.08, lo=0.1, hi=10.0)
    sigma_db: float = spec(0.0, lo=0.0, hi=30.0, unit="dB")


@dataclass(kw_only=True)
class Lora(Table):
    """[lora]: a LoRa interface beside the 802.15.4 one on `nodes`, all with
    these settings (python/wren/lora.py; None: the radio's default)."""
    nodes: NodeSel = spec("all", toml=NodeSel | int, conv=_id_list, node_ref=True,
                          what='"all", a list of node ids or a node id')
    sf: int | None = spec(None, lo=7, hi=12)
    bw: int | None = spec(None, lo=125, hi=500, unit="kHz (125, 250 or 500)")
    cr: int | None = spec(None, lo=5, hi=8, unit="(coding rate 4/cr)")
    channel: int | None = spec(None, lo=0, hi=2)
    freq: int | None = spec(None, lo=1, hi=U32, unit="Hz")
    tx_power: int | None = spec(None, lo=-4, hi=20, unit="dBm")
    syncword: int | None = spec(None, lo=0, hi=255)
    preamble: int | None = spec(None, lo=6, hi=65535, unit="symbols")
    # the duty-cycle limit: "regional" (ETSI's per sub-band, the radio's
    # default), "off", or a share in 1/100 % (100: 1 %)
    duty_cycle: Literal["regional", "off"] | int = spec(
        "regional", what='"regional", "off" or a share in 1/100 % (0..10000)')
    region: Literal["eu868", "none"] = spec("eu868")
    pcap: str | None = spec(None)
    pathloss: LoraPathLoss | None = spec(None)
    # a sensor on each of `senders`: a `size`-byte frame every `interval`
    # seconds from `start`, `count` times (0: to the end)
    senders: list[int] = spec(factory=list, toml=list[int] | int, conv=_id_list, node_ref=True,
                              what="a list of node ids or a node id")
    interval: float = spec(1.0, lo=0.001, hi=4294.0, unit="seconds")
    size: int = spec(20, lo=4, hi=255, unit="bytes")
    count: int = spec(0, lo=0, hi=U32)
    start: float = spec(0.0, lo=0.0, unit="seconds")
    # the link layer: "raw" LoRa frames, or "lorawan": IPv6 over SCHC over
    # LoRaWAN (RFC 9011), every LoRa node in one session, `network` the
    # router's side (the others are devices), the SCHC rules' text
    # (src/wire/schc.h; default: the module's default set)
    link: Literal["raw", "lorawan"] = spec("raw")
    network: int | None = spec(None, lo=0, hi=U32, node_ref=True)
    devaddr: int = spec(0x260B0001, lo=0, hi=U32)
    nwkskey: str = spec("00" * 16, what="32 hex digits")
    appskey: str = spec("00" * 16, what="32 hex digits")
    rules: str | None = spec(None)


@dataclass(kw_only=True)
class Ethernet(Table):
    """[ethernet]: a wired Ethernet port on `nodes`, all on one bus
    (runtime/sim/sim_eth.h)."""
    nodes: NodeSel = spec("all", toml=NodeSel | int, conv=_id_list, node_ref=True,
                          what='"all", a list of node ids or a node id')
    latency_us: int = spec(50, lo=0, hi=U32, unit="us")
    bitrate: int = spec(100_000_000, lo=1, hi=U32, unit="bit/s")
    pcap: str | None = spec(None)


@dataclass(kw_only=True)
class Scenario(Table):
    """A whole scenario (docs/scenarios.md)."""
    name: str | None = spec(None)
    seed: int = spec(1, lo=0, hi=U64)
    duration: float = spec(10.0, lo=0.0, unit="seconds")
    pktbuf: int = spec(0, lo=0, hi=U32, unit="bytes")
    # the capture's format (--pcap): "wpan" LINKTYPE 195, "wpan-tap" 283
    # with each frame's channel
    pcap_format: str = spec("wpan", choices=lambda: lib.PCAP_FORMATS)
    grid: Grid | None = spec(None)
    random: RandomField | None = spec(None)
    nodes: list[NodeSpec] = spec(factory=list)
    radio: Radio = spec(factory=Radio)
    stack: Stack = spec(factory=Stack)
    links: list[Link] = spec(factory=list)
    mac: Mac = spec(factory=Mac)
    apps: list[App] = spec(factory=list)
    shell: list[Shell] = spec(factory=list)
    rpl: Rpl | None = spec(None)
    lora: Lora | None = spec(None)
    ethernet: Ethernet | None = spec(None)

    @property
    def node_count(self) -> int:
        if self.grid is not None:
            return self.grid.rows * self.grid.cols
        if self.random is not None:
            return self.random.count
        return len(self.nodes)

    def positions(self) -> list[tuple[float, float, float]]:
        """The nodes' coordinates, from [grid], [random] or [[nodes]]."""
        if self.grid is not None:
            g = self.grid
            return [(g.spacing * (i % g.cols), g.spacing * (i // g.cols), 0.0)
                    for i in range(g.rows * g.cols)]
        if self.random is not None:
            r = self.random
            rng = random.Random(self.seed ^ 0x5EED)
            return [(rng.uniform(0, r.width), rng.uniform(0, r.height), 0.0)
                    for _ in range(r.count)]
        return [(n.x, n.y, n.z) for n in self.nodes]


# ---- parsing and checking -------------------------------------------------

def _node_refs(sc: Scenario, ctx: _Ctx) -> None:
    """Every node id a key names is one of the scenario's nodes."""
    n = sc.node_count
    lists: list[tuple[str, list[Table]]] = [("links", list(sc.links)), ("apps", list(sc.apps)),
                                           ("shell", list(sc.shell))]
    if sc.rpl is not None:
        lists.append(("rpl", [sc.rpl]))
    for name, entries in lists:
        for i, entry in enumerate(entries):
            for f in fields(entry):  # type: ignore[arg-type]
                if not f.metadata.get("node_ref"):
                    continue
                key = f.metadata.get("key") or f.name
                value = getattr(entry, f.name)
                ids = value if isinstance(value, list) else [value]
                for k, node in enumerate(ids):
                    if isinstance(node, int) and not 0 <= node < n:
                        table: TomlPath = (name, i) if name != "rpl" else (name,)
                        where = ctx.at(table, key)
                        if isinstance(value, list) and ctx.pos:
                            line = ctx.pos.element(table + (key, k))
                            where = Where(ctx.source, line or where.line)
                        raise ScenarioError(
                            f"node {node} in '{key}' of {_table_name(table)} is out of range: "
                            f"the scenario has {n} node{'s' if n != 1 else ''} "
                            f"({'0..' + str(n - 1) if n > 1 else '0'})", where)


def _check(sc: Scenario, ctx: _Ctx) -> None:
    sources = [(k, v) for k, v in (("grid", sc.grid), ("random", sc.random),
                                   ("nodes", sc.nodes or None)) if v is not None]
    if not sources:
        raise ScenarioError("no nodes: the scenario needs [grid], [random] or [[nodes]]",
                            Where(ctx.source, None))
    if len(sources) > 1:
        names = {"grid": "[grid]", "random": "[random]", "nodes": "[[nodes]]"}
        first, second = sorted((k for k, _ in sources), key=lambda k: ctx.at((), k).line or 0)[:2]
        raise ctx.error((), second, f"{names[second]} besides {names[first]}: a scenario places "
                                    f"its nodes with one of [grid], [random] and [[nodes]]")
    _node_refs(sc, ctx)
    if sc.radio.pathloss is not None and sc.radio.range is not None:
        raise ctx.error(("radio",), "range", "'range' in [radio] besides [radio.pathloss]: "
                                             "links come from one model or the other")
    for i, link in enumerate(sc.links):
        if link.src == link.dst:
            raise ctx.error(("links", i), "to", f"a link from node {link.src} to itself")
    if sc.rpl is not None:
        _check_rpl(sc.rpl, ctx)
        if sc.stack.modules is not None and "rpl" not in sc.stack.modules:
            raise ctx.error(("stack",), "modules", "[rpl] needs the rpl module: add \"rpl\" to "
                                                   "'modules' in [stack]")
    for i, sh in enumerate(sc.shell):
        if sh.node is not None and sh.nodes is not None:
            raise ctx.error(("shell", i), "nodes", "[[shell]] has both 'node' and 'nodes': "
                                                   "give one")
        if sh.until is not None and sh.every is None:
            raise ctx.error(("shell", i), "until", "'until' in [[shell]] without 'every': "
                                                   "a command that runs once needs no end")
        if sh.until is not None and sh.until < sh.at:
            raise ctx.error(("shell", i), "until", f"'until' in [[shell]] ({sh.until:g} s) is "
                                                   f"before 'at' ({sh.at:g} s)")
        for cmd in sh.cmd:
            _check_template(cmd, ctx, ("shell", i), sc)


def _check_rpl(r: Rpl, ctx: _Ctx) -> None:
    if not r.root:
        raise ctx.error(("rpl",), "root", "'root' in [rpl] names no node: a DODAG needs a root")
    both = sorted(set(r.root) & set(r.leaves))
    if both:
        raise ctx.error(("rpl",), "leaves", f"node {both[0]} is in both 'root' and 'leaves' of "
                                            f"[rpl]: a root cannot be a leaf")
    try:
        net = ipaddress.IPv6Network(r.prefix, strict=True)
    except ValueError as e:
        raise ctx.error(("rpl",), "prefix", f"'prefix' in [rpl]: {json.dumps(r.prefix)} is not "
                                            f"an IPv6 prefix ({e})") from None
    if net.prefixlen == 0:
        raise ctx.error(("rpl",), "prefix", "'prefix' in [rpl]: a prefix of length 0 is the "
                                            "whole address space; give the DODAG's prefix, "
                                            "e.g. 2001:db8::/64")


def rpl_tables(sim: Sim, r: Rpl, n: int) -> None:
    """Give RPL its route tables (before the roles): each root one of
    `root_routes` (default n), each router one of `routes` (default: n - 1
    in storing mode, none given in non-storing mode)."""
    for node in range(n):
        size = ((r.root_routes or n) if node in r.root else
                r.routes or (max(n - 1, 1) if r.mode == "storing" else None))
        if size and node not in r.leaves:
            sim.rpl_routes(node, size)


def _rpl_commands(r: Rpl, n: int) -> list[tuple[int, str]]:
    """The [rpl] table as shell commands at time 0, node by node."""
    out = []
    for node in range(n):
        if node in r.root:
            mode = "nonstoring" if r.mode == "non-storing" else "storing"
            g = "grounded" if r.grounded else "floating"
            out.append((node, f"rpl root {r.prefix} instance {r.instance} {mode} {r.objective} "
                              f"{g}"))
        else:
            out.append((node, "rpl leaf" if node in r.leaves else
                              "rpl router" if r.floating else "rpl router nofloat"))
    return out


class _Addrs(str):
    """{addr} in a [[shell]] command: this node's address in the [rpl]
    prefix; {addr[N]}: node N's (IIDs from the nodes' EUI-64s, as the
    nodes make them)."""
    prefix: str
    n: int

    def __new__(cls, prefix: str, node: int, n: int) -> "_Addrs":
        from .addr import addr
        obj = super().__new__(cls, addr(prefix, node))
        obj.prefix, obj.n = prefix, n
        return obj

    def __getitem__(self, key: Any) -> str:  # type: ignore[override]
        from .addr import addr
        node = int(key)
        if not 0 <= node < self.n:
            raise IndexError(f"node {node} is out of range: the scenario has {self.n} node"
                             f"{'s' if self.n != 1 else ''}")
        return addr(self.prefix, node)


def _addr_prefix(sc: Scenario) -> str | None:
    """The /64 of [rpl] that {addr} takes addresses in, or None."""
    if sc.rpl is None:
        return None
    net = ipaddress.IPv6Network(sc.rpl.prefix, strict=True)
    return str(net.network_address) if net.prefixlen == 64 else None


def _fields(sc: Scenario, node: int) -> dict[str, Any]:
    """What a [[shell]] command's placeholders become on @node."""
    out: dict[str, Any] = {"id": node, "prev": node - 1, "next": node + 1}
    prefix = _addr_prefix(sc)
    if prefix is not None:
        out["addr"] = _Addrs(prefix, node, sc.node_count)
    return out


def _check_template(cmd: str, ctx: _Ctx, table: TomlPath, sc: Scenario) -> None:
    """A [[shell]] command's placeholders are {id}, {prev}, {next}, {addr}
    and {addr[N]}."""
    try:
        names = [f for _, f, _, _ in string.Formatter().parse(cmd) if f is not None]
    except ValueError as e:
        raise ctx.error(table, "cmd", f"'cmd' in [[shell]]: {e} in {json.dumps(cmd)} "
                                      f"(write {{{{ and }}}} for braces)") from None
    for name in names:
        base = re.split(r"[.\[]", name, maxsplit=1)[0]
        if base not in ("id", "prev", "next", "addr"):
            raise ctx.error(table, "cmd", f"'cmd' in [[shell]]: unknown placeholder "
                                          f"{{{name}}} in {json.dumps(cmd)} (known: {{id}}, "
                                          f"{{prev}}, {{next}}, {{addr}}, {{addr[N]}})")
        if base == "addr" and _addr_prefix(sc) is None:
            raise ctx.error(table, "cmd", f"'cmd' in [[shell]]: {{{name}}} in "
                                          f"{json.dumps(cmd)} needs [rpl] with a /64 'prefix' "
                                          f"(the nodes' addresses are in it)")
    try:
        cmd.format(**_fields(sc, 0))
    except (ValueError, IndexError, KeyError, AttributeError, TypeError) as e:
        msg = str(e).strip("'\"")
        raise ctx.error(table, "cmd", f"'cmd' in [[shell]]: {msg} in {json.dumps(cmd)}") from None


def parse(data: Mapping[str, Any], source: str | None = None, text: str | None = None,
          name: str | None = None) -> Scenario:
    """A checked Scenario from parsed TOML @data; @source names the file
    and @text is its content, for the lines of error messages."""
    ctx = _Ctx(source, text)
    sc = _parse_table(Scenario, dict(data), (), ctx)
    if sc.name is None:
        sc.name = name
    sc.where = Where(source, None)
    _check(sc, ctx)
    return sc


def load(path: str | Path) -> Scenario:
    """Read and check a scenario file."""
    src = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError("no such file", Where(src, None)) from None
    except IsADirectoryError:
        raise ScenarioError("is a directory, not a scenario file", Where(src, None)) from None
    except UnicodeDecodeError:
        raise ScenarioError("not a text file (UTF-8)", Where(src, None)) from None
    except OSError as e:
        raise ScenarioError(f"cannot read: {e.strerror}", Where(src, None)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        # tomllib says "Expected '=' ... (at line 3, column 5)" or "... (at end of document)"
        msg, line = str(e), None
        if (m := re.search(r"\s*\(at line (\d+), column (\d+)\)$", msg)):
            msg, line = msg[:m.start()] + f" (column {m.group(2)})", int(m.group(1))
        elif (m := re.search(r"\s*\(at end of document\)$", msg)):
            msg, line = msg[:m.start()] + " at the end of the file", text.count("\n") or None
        raise ScenarioError(f"invalid TOML: {msg}", Where(src, line)) from None
    return parse(data, source=src, text=text, name=Path(path).stem)


def _scenario(sc: Scenario | Mapping[str, Any]) -> Scenario:
    return sc if isinstance(sc, Scenario) else parse(sc)


# ---- running ------------------------------------------------------------

@contextmanager
def _at(where: Where, what: str) -> Iterator[None]:
    """Turn the simulator's refusal of what a table asked for into a
    ScenarioError at that table."""
    try:
        yield
    except SimError as e:
        raise ScenarioError(f"{what}: {e}", where) from None


def _ids(sel: NodeSel | None, n: int) -> list[int]:
    return list(range(n)) if sel in (None, "all") else list(sel)  # type: ignore[arg-type]


def build(sc: Scenario | Mapping[str, Any], seed: int | None = None,
          pcap: str | Path | None = None) -> tuple[Sim, int]:
    """Create the Sim a scenario describes. Returns (sim, seed)."""
    sc = _scenario(sc)
    seed = sc.seed if seed is None else int(seed)
    sim = Sim(seed)
    try:
        _populate(sim, sc)
        if pcap:
            try:
                sim.open_pcap(pcap, sc.pcap_format)
            except SimError as e:
                raise UserError(f"cannot write the capture {pcap}: "
                                f"{os.strerror(e.errno)}") from None
    except BaseException:
        sim.close()
        raise
    return sim, seed


def _ethernet(sim: Sim, eth: Ethernet) -> None:
    """The [ethernet] bus's parameters and capture."""
    try:
        ethernet.params(sim, eth.latency_us, eth.bitrate)
        if eth.pcap:
            ethernet.open_pcap(sim, eth.pcap)
    except (ValueError, SimError) as e:
        raise ScenarioError(f"[ethernet] {e}", eth.where) from None


def _populate(sim: Sim, sc: Scenario) -> None:
    radio, mac = sc.radio, sc.mac
    if sc.stack.modules is not None:
        for m in sc.stack.modules:
            why = sim.unknown_module(m)
            if why:
                raise ScenarioError(f"modules: {why}", sc.stack.where)
        with _at(sc.stack.where, "modules"):
            sim.set_modules(sc.stack.modules)
    if radio.range is not None:
        sim.set_range(radio.range, radio.prr)
    if radio.pathloss is not None:
        pl = radio.pathloss
        with _at(pl.where, "pathloss"):
            sim.set_pathloss(exponent=pl.exponent, ref_loss_db=pl.ref_loss_db,
                             sigma_db=pl.sigma_db, tx_power_dbm=pl.tx_power_dbm,
                             noise_dbm=pl.noise_dbm)
    if radio.drift_ppm is not None:
        with _at(radio.where, "drift_ppm"):
            sim.set_drift_range(radio.drift_ppm)
    if radio.proc_delay_us is not None:
        with _at(radio.where, "proc_delay_us"):
            sim.set_proc_delay(radio.proc_delay_us)
    with _at(mac.where, "kind"):
        sim.set_mac_kind(mac.kind)
    lora_ids = set(_ids(sc.lora.nodes, sc.node_count)) if sc.lora else set()
    eth_ids = set(_ids(sc.ethernet.nodes, sc.node_count)) if sc.ethernet else set()
    if sc.lora:
        lora.set_link(sim, sc.lora.link)
    for i, (x, y, z) in enumerate(sc.positions()):
        if sc.lora:
            lora.enable(sim, i in lora_ids)
        if sc.ethernet:
            ethernet.enable(sim, i in eth_ids)
        with _at(sc.where, "adding a node"):
            sim.add_node(x, y, z, sc.pktbuf)
    if sc.lora:
        lora.populate(sim, sc.lora, sorted(lora_ids))
    if sc.ethernet:
        _ethernet(sim, sc.ethernet)
    n = sim.node_count
    for i, nd in enumerate(sc.nodes):
        if nd.proc_delay_us is not None:
            with _at(nd.where, f"proc_delay_us of node {i}"):
                sim.set_proc_delay(nd.proc_delay_us, i)
        if nd.drift_ppm is not None:
            with _at(nd.where, f"drift_ppm of node {i}"):
                sim.set_drift(nd.drift_ppm, i)
    for link in sc.links:
        with _at(link.where, f"link {link.src} -> {link.dst}"):
            sim.set_link(link.src, link.dst, link.prr)
            if link.both:
                sim.set_link(link.dst, link.src, link.prr)
    for node in range(n):
        with _at(mac.where, f"MAC parameters of node {node}"):
            sim.set_mac(node, csma=radio.cca if mac.csma is None else mac.csma, ack=mac.ack,
                        retries=mac.retries, retry_delay_ms=mac.retry_delay_ms,
                        min_be=mac.min_be, max_be=mac.max_be, max_backoffs=mac.max_backoffs)
        if radio.channel is not None:
            with _at(radio.where, f"channel of node {node}"):
                sim.set_channel(node, radio.channel)
    if mac.kind == "tsch":
        with _at(mac.where, "coordinator"):
            res, out = sim.shell(mac.coordinator, "tsch coordinator")
            if res < 0:
                raise ScenarioError(f"[mac] coordinator: {out.strip()}", mac.where)
    if sc.rpl is not None:
        with _at(sc.rpl.where, "route tables"):
            rpl_tables(sim, sc.rpl, n)
    for app in sc.apps:
        for node in _ids(app.nodes, n):
            with _at(app.where, f"{app.kind} on node {node}"):
                sim.rawgen(node, -1 if app.dst == "broadcast" else int(app.dst), size=app.size,
                           interval_s=app.interval, timing=app.timing, count=app.count,
                           start_s=app.start)


def _commands(sc: Scenario, n: int, duration: float) -> list[tuple[float, int, str]]:
    """[(time, node, command)] from the [[shell]] tables, in time order
    (an entry with `every` once per period from `at` until `until` or
    @duration); at the same time in the order of the file (entries, their
    nodes, the commands of a list)."""
    out = []
    for i, c in enumerate(sc.shell):
        times = [c.at]
        if c.every is not None:
            # until `until` (inclusive), or the end of the run (exclusive)
            end = min(duration - 1e-6, c.until) if c.until is not None else duration - 1e-6
            k = 1
            while c.at + k * c.every <= end + 1e-9:
                times.append(c.at + k * c.every)
                k += 1
        for node in _ids(c.nodes if c.nodes is not None else
                         ([c.node] if c.node is not None else None), n):
            for k, cmd in enumerate(c.cmd):
                line = cmd.format(**_fields(sc, node))
                for t in times:
                    out.append((round(t, 6), i, node, k, line))
    out.sort(key=lambda e: e[:4])
    first = [] if sc.rpl is None else [(0.0, node, cmd) for node, cmd in _rpl_commands(sc.rpl, n)]
    return first + [(t, node, cmd) for t, _, node, _, cmd in out]


def run(sc: Scenario | Mapping[str, Any], seed: int | None = None,
        duration: float | None = None, pcap: str | Path | None = None,
        progress: bool = True) -> Result:
    """Build and run a scenario; return its result (JSON data)."""
    sc = _scenario(sc)
    sim, seed = build(sc, seed, pcap)
    try:
        return _run(sim, sc, seed, sc.duration if duration is None else float(duration), pcap,
                    progress)
    finally:
        sim.close()


#: [rpl] formation is looked for this many times per simulated second
FORMED_STEPS = 10


def _dodag_formed(sim: Sim, r: Rpl) -> bool:
    """Whether every node has joined a DODAG (joined more often than it
    detached, by its counters) and the roots hold a route to every other
    node (storing: their route tables; non-storing: their source routes)."""
    n = sim.node_count
    others = [i for i in range(n) if i not in r.root]
    if sum(sim.counters(i).get("rpl.routes_used", 0) for i in r.root) < len(others):
        return False
    for i in others:
        c = sim.counters(i)
        if c.get("rpl.joined", 0) <= c.get("rpl.detached", 0):
            return False
    return True


def _run(sim: Sim, sc: Scenario, seed: int, duration: float, pcap: str | Path | None,
         progress_: bool) -> Result:
    commands = _commands(sc, sim.node_count, duration)
    shell_out: dict[int, list[str]] = {i: [] for i in range(sim.node_count)}
    failed = []
    t0 = time.monotonic()
    formed: float | None = None
    prev = 0.0
    with progress.SimBar(duration, sc.name or "sim", show=None if progress_ else False) as bar:
        for t in progress.slices(0.0, duration):
            # with [rpl], until the DODAG has formed, stop every 0.1 s of
            # simulated time to look (where a run stops does not change it)
            stops = [t]
            if sc.rpl is not None and formed is None:
                stops = [k / FORMED_STEPS for k in range(math.floor(prev * FORMED_STEPS) + 1,
                                                         math.floor(t * FORMED_STEPS) + 1)]
                stops = [u for u in stops if u < t] + [t]
            for u in stops:
                while commands and commands[0][0] <= u:
                    at, node, cmd = commands.pop(0)
                    sim.run(at)
                    res, out = sim.shell(node, cmd)
                    shell_out[node].append(f"> {cmd}\n{out}")
                    if res != 0:
                        failed.append({"node": node, "at": at, "cmd": cmd, "result": res})
                sim.run(u)
                if sc.rpl is not None and formed is None and _dodag_formed(sim, sc.rpl):
                    formed = u
            prev = t
            bar.update(sim.now, sim.events)
    wall = time.monotonic() - t0
    for i in range(sim.node_count):
        shell_out[i].append(sim.output(i))
    nodes: list[dict[str, Any]] = [{"id": i, "counters": sim.counters(i), "shell": "".join(shell_out[i]),
              "drift_ppm": sim.drift(i),  # the node's crystal offset
              "memory": sim.memory(i)}  # bytes by part: pktbuf, netif, radio, modules, total
             for i in range(sim.node_count)]
    for nd in nodes:
        tables = rpl_tables_state(nd["counters"])
        if tables is not None:
            nd["rpl"] = tables
    topo = topology(sim, sc)
    totals: dict[str, int] = {}
    for nd in nodes:
        for k, v in nd["counters"].items():
            if not k.startswith("pktbuf.") and not k.startswith("sched."):
                totals[k] = totals.get(k, 0) + v
    return {
        "scenario": sc.name,
        "seed": seed,
        "duration_s": duration,
        "wall_s": round(wall, 3),
        "events": sim.events,
        "pcap": str(pcap) if pcap else None,
        "pktbuf_in_use": sum(nd["counters"].get("pktbuf.in_use", 0) for nd in nodes),
        "failed_commands": failed,
        "totals": totals,
        "memory": memory_per_node(sim),
        "nodes": nodes,
        **topo,
        **({"rpl_formed_s": formed} if sc.rpl is not None else {}),
    }


def memory_per_node(sim: Sim) -> dict[str, int]:
    """Bytes per node by part (wren_sim_memory: pktbuf, netif, radio, each
    module, total), the nodes' mean rounded; "total" is sim_bytes_per_node's
    figure (the mean rounded down), so the rounded parts may miss it by a few."""
    n = max(sim.node_count, 1)
    mem = sim.memory(-1)
    return {k: (v // n if k == "total" else round(v / n)) for k, v in mem.items()}


_PARENT = re.compile(r"^parent (\S+) rank \d+ .*preferred$", re.M)


def _other_links(sc: Scenario) -> list[list[Any]]:
    """[[a, b, "LoRa"|"Ethernet"]]: the LoRa links (to the LoRaWAN network
    side, or between every two LoRa nodes) and the Ethernet bus's pairs."""
    out: list[list[Any]] = []
    if sc.lora is not None:
        ids = _ids(sc.lora.nodes, sc.node_count)
        net = sc.lora.network if sc.lora.link == "lorawan" else None
        out += [[a, b, "LoRa"] for a in ids for b in ids
                if a < b and (net is None or net in (a, b))]
    if sc.ethernet is not None:
        ids = _ids(sc.ethernet.nodes, sc.node_count)
        out += [[a, b, "Ethernet"] for a in ids for b in ids if a < b]
    return out


def topology(sim: Sim, sc: Scenario) -> dict[str, Any]:
    """What a picture of the network needs (./wren sim --plot, wren.plot):
    "positions" [[x, y, z]] per node, "links" [[from, to, prr]] (the range
    model's, then the [[links]] entries, which override them), and with
    [rpl] "rpl_parents" {node: its preferred parent's node id or None}, read
    from the `rpl` shell command at the end of the run (read-only)."""
    from .addr import ll
    pos = sc.positions()
    links: dict[tuple[int, int], float] = {}
    radio = sc.radio
    if radio.range is not None and radio.range > 0:
        # pairs within range through a grid of range-sized cells: each node is
        # compared with the nodes of its own and the 26 cells around it
        r = radio.range
        cells: dict[tuple[int, ...], list[int]] = {}
        for i, p in enumerate(pos):
            cells.setdefault(tuple(math.floor(c / r) for c in p), []).append(i)
        near = [(dx, dy, dz) for dx in (-1, 0, 1) for dy in (-1, 0, 1) for dz in (-1, 0, 1)]
        for (cx, cy, cz), members in cells.items():
            for dx, dy, dz in near:
                for b in cells.get((cx + dx, cy + dy, cz + dz), ()):
                    for a in members:
                        if a != b and math.dist(pos[a], pos[b]) <= r:
                            links[(a, b)] = radio.prr
    if radio.pathloss is not None:
        # the model's links as the simulator drew them: PRR of a full frame
        for a in range(sim.node_count):
            for b in range(sim.node_count):
                if a != b and (info := sim.link(a, b)) is not None:
                    links[(a, b)] = info[0]
    for link in sc.links:
        links[(link.src, link.dst)] = link.prr
        if link.both:
            links[(link.dst, link.src)] = link.prr
    out: dict[str, Any] = {"positions": [list(p) for p in pos],
                           "links": [[a, b, prr] for (a, b), prr in sorted(links.items())],
                           "other_links": _other_links(sc)}
    if sc.rpl is not None:
        ids = {ipaddress.IPv6Address(ll(i)): i for i in range(sim.node_count)}
        parents: dict[str, int | None] = {}
        for i in range(sim.node_count):
            _, text = sim.shell(i, "rpl")
            m = _PARENT.search(text)
            parents[str(i)] = ids.get(ipaddress.IPv6Address(m.group(1))) if m else None
        out["rpl_parents"] = parents
        out["rpl_roots"] = list(sc.rpl.root)
    return out


# ---- results ------------------------------------------------------------


# a result's summary and JSON (python/wren/result_text.py), here as before
from .result_text import (CPU_COLUMNS, ENERGY_COLUMNS, SUMMARY_COLUMNS,  # noqa: E402
                          drops, duty, memory_line, rpl_tables_state, summary, write_json)
