"""A scenario run's result as text and JSON: the summary `./wren sim`
prints, the memory line, the JSON file, and the counters' derived figures
(duty cycle, drops, RPL route tables) that the summary and the plots use.
Split from scenario.py (which re-exports these names): they read a result
dict only, never a simulation."""
import json
import sys
from pathlib import Path
from typing import Any, Mapping, TextIO

from .errors import UserError

Result = dict[str, Any]

#: the per-node table of ./wren sim: (column, counter); None: computed
SUMMARY_COLUMNS: list[tuple[str, str | None]] = [
    ("node", None),
    ("tx", "radio.tx_frames"),
    ("rx", "radio.rx_frames"),
    ("coll", "radio.rx_collisions"),
    ("loss", "radio.rx_link_loss"),
    ("cca_busy", "radio.cca_busy"),
    ("app_sent", "app.sent"),
    ("app_rcvd", "app.received"),
    ("drops", None),
    ("duty%", None),
]
#: added when the result carries the energy model's figures (wren.energy)
ENERGY_COLUMNS: list[str] = ["mJ", "mJ/pkt", "uJ/B"]
#: added when the result carries the CPU model's estimate (wren.cpu)
CPU_COLUMNS: list[str] = ["cpu_ms", "cpu%"]


def rpl_tables_state(c: Mapping[str, int]) -> dict[str, Any] | None:
    """RPL's tables from a node's gauges: {"routes": used, "routes_size": n,
    "routes_full": bool, "parents": .., "parents_size": .., "parents_full":
    ..}, or None for a node without RPL. Full means the next DAO target or
    candidate parent is refused (rpl.routes_full / rpl.parents_full count
    those refusals)."""
    if "rpl.routes_size" not in c:
        return None
    out: dict[str, Any] = {}
    for t in ("routes", "parents"):
        used, size = c[f"rpl.{t}_used"], c[f"rpl.{t}_size"]
        out.update({t: used, f"{t}_size": size, f"{t}_full": used >= size})
    return out


def duty(c: Mapping[str, int]) -> float:
    """The radio's duty cycle: the fraction of time it was on."""
    on = sum(c.get(f"radio.time_{s}_us", 0) for s in ("listen", "rx", "tx"))
    total = on + c.get("radio.time_off_us", 0)
    return on / total if total else 0.0


def drops(c: Mapping[str, int]) -> int:
    """Frames the interfaces dropped, for every reason there is a counter of."""
    return sum(v for k, v in c.items() if k.startswith("netif.") and "drop" in k)


def _fig(v: float | None) -> str:
    """An energy figure for the table: 4 significant digits, "-" for none."""
    return "-" if v is None else f"{v:.4g}"


def summary(result: Result, out: TextIO = sys.stdout) -> None:
    """Print the per-node table and totals."""
    en = result.get("energy")
    cp = result.get("cpu")
    hdr = ([name for name, _ in SUMMARY_COLUMNS] + (ENERGY_COLUMNS if en else [])
           + (CPU_COLUMNS if cp else []))
    rows: list[list[Any]] = []
    for nd in result["nodes"]:
        c = nd["counters"]
        row: list[Any] = []
        for name, key in SUMMARY_COLUMNS:
            row.append(nd["id"] if name == "node" else drops(c) if name == "drops"
                       else f"{duty(c) * 100:.1f}" if name == "duty%" else c.get(key, 0))
        if en:
            e = nd["energy"]
            row += [_fig(e["mj"]), _fig(e["mj_per_rx_packet"]), _fig(e["uj_per_rx_byte"])]
        if cp:
            row += [f"{nd['cpu']['active_ms']:.3f}", f"{nd['cpu']['duty'] * 100:.4f}"]
        rows.append(row)
    t = result["totals"]
    rows.append(["total"] + [t.get(key, 0) if key else drops(t) if name == "drops" else ""
                             for name, key in SUMMARY_COLUMNS[1:]]
                + ([_fig(en["mj"]), _fig(en["mj_per_delivered_packet"]),
                    _fig(en["uj_per_delivered_byte"])] if en else [])
                + ([f"{cp['active_s'] * 1e3:.3f}", f"{cp['mean_duty'] * 100:.4f}"] if cp else []))
    widths = [max(len(str(x)) for x in col) for col in zip(hdr, *rows)]
    fmt = "  ".join(f"{{:>{w}}}" for w in widths)
    print(fmt.format(*hdr), file=out)
    for r in rows:
        print(fmt.format(*r), file=out)
    print(f"\n{result['scenario']}: {len(result['nodes'])} nodes, seed {result['seed']}, "
          f"{result['duration_s']:g} s simulated in {result['wall_s']:.2f} s wall, "
          f"{result['events']} events", file=out)
    print(f"frames on air {t.get('radio.tx_frames', 0)}, received {t.get('radio.rx_frames', 0)}, "
          f"lost to collisions {t.get('radio.rx_collisions', 0)}, CCA busy "
          f"{t.get('radio.cca_busy', 0)}, app frames sent {t.get('app.sent', 0)}, delivered "
          f"{t.get('app.received', 0)}", file=out)
    if en:
        print(f"energy ({en['profile']}: {en['description']}, {en['supply_v']:g} V): "
              f"{en['mj']:.3f} mJ in all; mJ/pkt and uJ/B per packet and payload byte the "
              f"node's apps received (total: delivered in the network); {en['mcu']}"
              + (f"; {en['lora']}" if any(nd["energy"].get("lora_mj") for nd in result["nodes"])
                 else ""), file=out)
    if cp:
        print(f"cpu: {cp['note']}; cpu% = CPU active time / simulated time (total: the "
              f"nodes' mean)", file=out)
    if result.get("memory"):
        print(f"memory: {memory_line(result['memory'])}", file=out)
    if result["pcap"]:
        print(f"capture: {result['pcap']}", file=out)
    for t in ("routes", "parents"):
        full = [f"{nd['id']} ({nd['rpl'][t]}, {nd['counters'].get(f'rpl.{t}_full', 0)} refused)"
                for nd in result["nodes"] if nd.get("rpl", {}).get(f"{t}_full")]
        if full:
            print(f"RPL {t[:-1]} table full on node (entries, refusals): {', '.join(full)}",
                  file=out)
    # the neighbour cache (6LoWPAN ND, nib.nc_full; Ethernet ND, nd_eth.nc_full): entries
    # refused because every one was protected or busy
    nc = [f"{nd['id']} ({sum(v for k, v in nd['counters'].items() if k.endswith('.nc_full'))}"
          f" refused)" for nd in result["nodes"]
          if any(v for k, v in nd["counters"].items() if k.endswith(".nc_full"))]
    if nc:
        print(f"neighbour cache full on node (refusals): {', '.join(nc)}", file=out)
    for f in result.get("failed_commands", []):
        print(f"command failed on node {f['node']} at {f['at']:g} s: {f['cmd']} "
              f"({f['result']})", file=out)
    if result["pktbuf_in_use"]:
        print(f"packets still in flight at the end: {result['pktbuf_in_use']} bytes of "
              f"packet buffer in use", file=out)


def memory_line(mem: dict[str, int]) -> str:
    """"T bytes per node: pktbuf P, ..." from a memory object, parts largest first."""
    parts = sorted(((k, v) for k, v in mem.items() if k != "total" and v), key=lambda kv: -kv[1])
    return (f"{mem['total']} bytes per node: "
            + ", ".join(f"{k} {v}" for k, v in parts))


def write_json(result: Result, path: str | Path) -> None:
    """Write @result as JSON (a UserError if the file cannot be written)."""
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w") as f:
            json.dump(result, f, indent=1)
    except OSError as e:
        raise UserError(f"cannot write {path}: {e.strerror}") from None
