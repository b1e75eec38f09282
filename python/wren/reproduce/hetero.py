"""The RIOT paper's Figure 1 (section 2.1): two sensors, one on LoRa and
one on 802.15.4, a router with both radios and an Ethernet uplink to a host
(scenarios/hetero_router.toml), each sensor sending one sensor value per
UDP datagram to the host at 1, 2, 5, 10 and 20 packets per second. Loss per
sensor, and why the LoRa link breaks, read from the counters: the airtime
the sensor's radio spent (its share of the time), the frames its LoRa
interface's queue dropped (netif tx_drop_queue) and those the duty-cycle
limit refused (lora dc_drop).

Runs: the paper's lab had no duty-cycle limit (5 frames a second are far
above 1 % at any spreading factor), so the primary sweep is SF7 at 125 kHz
with the limit off; 250 kHz (half the airtime) and the regulatory 1 % limit
(ETSI EN 300 220, as the LoRa radio applies it) are second curves."""
import functools
import tomllib
from typing import Any

from .. import paths, scenario
from .core import Outcome, Panel, Row, Series, fmt, pv

RATES = (1, 2, 5, 10, 20)
START_S = 3.0            # the sensors start (the scenario's flow send)
SEND_S = 20.0            # each sensor sends for this long ...
DRAIN_S = 4.0            # ... then the run goes on this long (queues empty)
SEEDS = (1, 2, 3)
VARIANTS = {             # name -> ([lora] bw, duty_cycle)
    "125k_off": (125, "off"),
    "250k_off": (250, "off"),
    "125k_1pct": (125, "regional"),
}
PRIMARY = "125k_off"
LABEL = {"125k_off": "SF7 125 kHz, no duty-cycle limit",
         "250k_off": "SF7 250 kHz, no duty-cycle limit",
         "125k_1pct": "SF7 125 kHz, 1 % duty cycle (EU868)"}
SENSORS = {"154": (1, "2001:db8:154::2"), "lora": (2, "2001:db8:10a::2")}
HOST = 3

MEASURED = ("simulator: datagrams the host's flow sink received / the sensor generated, "
            f"{SEND_S:g} s of sending per rate and {len(SEEDS)} seeds (scenarios/"
            "hetero_router.toml)")
MODELLED = ("LoRa airtime by the Semtech modem formula, SF7 CR 4/5, LoRaWAN framing + SCHC "
            "rule 1 (24-byte frames); 802.15.4 unslotted CSMA-CA at 250 kbit/s; unit-disk "
            "802.15.4 links; Bor et al.'s LoRa path loss; send times jittered 0.5..1.5 x the "
            "period (wren's flow sender)")
DIFFERS = ("the paper ran RIOT on iotlab-m3 boards and gives no LoRa settings; wren's LoRa "
           "link carries IPv6 by SCHC over LoRaWAN, its sensors' datagrams hold 8 bytes")


def _scenario(rate: float, variant: str, seed: int) -> dict[str, Any]:
    with open(paths.ROOT / "scenarios" / "hetero_router.toml", "rb") as f:
        data = tomllib.load(f)
    bw, dc = VARIANTS[variant]
    data["lora"].update(bw=bw, duty_cycle=dc)
    data["seed"] = seed
    data["duration"] = START_S + SEND_S + DRAIN_S
    count = round(rate * SEND_S)
    mean_ms = round(1000 / rate)
    for sh in data["shell"]:
        cmds = sh["cmd"] if isinstance(sh["cmd"], list) else [sh["cmd"]]
        if any(c.startswith("flow send") for c in cmds):
            sh["cmd"] = f"flow send 2001:db8:e::2 size 8 mean {mean_ms} count {count}"
        if any(c == "flow stats" for c in cmds):
            sh["at"] = data["duration"] - 0.5
    return data


def _received(shell: str, addr: str) -> int:
    for line in shell.splitlines():
        if line.startswith(f"flow src {addr} received "):
            return int(line.split()[4])
    return 0


def _generated(shell: str) -> int:
    for line in shell.splitlines():
        if line.startswith("flow: generated "):
            return int(line.split()[2])
    return 0


@functools.cache
def run(rate: float, variant: str, seed: int) -> dict[str, Any]:
    """One run: per sensor generated / received, and the LoRa sensor's
    counters that say why frames were lost."""
    res = scenario.run(_scenario(rate, variant, seed), progress=False)
    nodes = res["nodes"]
    out: dict[str, Any] = {}
    for tech, (node, addr) in SENSORS.items():
        gen = _generated(nodes[node]["shell"])
        rcv = _received(nodes[HOST]["shell"], addr)
        out[tech] = {"generated": gen, "received": rcv,
                     "loss_pct": 100.0 * (gen - rcv) / gen if gen else None}
    c = nodes[SENSORS["lora"][0]]["counters"]
    out["why"] = {"airtime_share": c.get("lora2.tx_airtime_us", 0) / (SEND_S * 1e6),
                  "queue_drops": c.get("netif2.tx_drop_queue", 0),
                  "dc_drops": c.get("lora2.dc_drop", 0),
                  "frames_sent": c.get("lora2.tx_frames", 0),
                  # the router: datagrams Ethernet ND dropped while resolving the host
                  # (RFC 4861 7.2.2: one packet held per neighbour)
                  "router_nd_held_dropped": nodes[0]["counters"].get("nd3.held_dropped", 0)}
    out["pktbuf_in_use"] = res["pktbuf_in_use"]
    return out


def mean_loss(rate: float, variant: str, tech: str, seeds: tuple[int, ...] = SEEDS) -> float:
    """Loss over all seeds' datagrams together, %."""
    runs = [run(rate, variant, s)[tech] for s in seeds]
    gen = sum(r["generated"] for r in runs)
    return 100.0 * (gen - sum(r["received"] for r in runs)) / gen


def _why(rate: float, variant: str) -> dict[str, float]:
    runs = [run(rate, variant, s)["why"] for s in SEEDS]
    return {k: sum(r[k] for r in runs) / len(runs) for k in runs[0]}


def saturation_pps(variant: str = PRIMARY, seeds: tuple[int, ...] = SEEDS) -> int | None:
    """The lowest whole rate (1..20 packets/s) at which the LoRa sensor loses
    more than 1 % of its datagrams."""
    for rate in range(1, 21):
        if mean_loss(rate, variant, "lora", seeds) > 1.0:
            return rate
    return None


def _rows() -> list[Row]:
    rows = []
    for tech, name in (("lora", "LoRa"), ("154", "802.15.4")):
        for variant in VARIANTS:
            kind = "paper" if variant == PRIMARY else "label"
            for rate in RATES:
                is5 = rate == 5
                rows.append(Row(
                    f"{name} sensor, {rate} packets/s, {LABEL[variant]}: loss", "%",
                    mean_loss(rate, variant, tech),
                    pv("riot.fig1.loss_5pps_pct") if is5 else
                    pv("riot.fig1.lora_text" if tech == "lora" else "riot.fig1.lowpan_text")
                    if rate >= 10 else None,
                    measured=MEASURED, modelled=MODELLED, differs=DIFFERS,
                    kind=kind if is5 else "label",
                    headline=is5 and tech == "lora" and variant == PRIMARY))
    return rows


def _notes() -> list[str]:
    sat = saturation_pps()
    notes = [f"LoRa saturation ({LABEL[PRIMARY]}): loss first exceeds 1 % at {sat} packets/s "
             "(whole rates 1..20 tried)."]
    for variant in VARIANTS:
        for rate in RATES:
            w = _why(rate, variant)
            notes.append(
                f"{LABEL[variant]}, {rate}/s: LoRa airtime {100 * w['airtime_share']:.0f} % of "
                f"the time, frames sent {w['frames_sent']:.0f}, queue drops "
                f"{w['queue_drops']:.0f}, duty-cycle drops {w['dc_drops']:.0f}; the router's "
                f"Ethernet ND dropped {w['router_nd_held_dropped']:.2g} while first resolving "
                "the host (one packet held per neighbour, RFC 4861 7.2.2) (means per run)")
    notes.append("Why: a 24-byte frame takes 61.7 ms at SF7/125 kHz, so the air carries at "
                 "most ~16 a second; above that the interface's queue overflows (queue drops); "
                 "at 250 kHz ~32. With the 1 % limit the radio may send one frame per 6.2 s: "
                 "every rate loses most (duty-cycle drops).")
    return notes


def riot_fig1(quick: bool) -> Outcome:
    del quick  # the sweep is short either way (~1 s of wall time per run)
    series = []
    for k, variant in enumerate(VARIANTS):
        for tech, style in (("lora", "o-"), ("154", "s--")):
            name = "LoRa" if tech == "lora" else "802.15.4"
            series.append(Series(f"wren {name}, {LABEL[variant]}", list(RATES),
                                 [max(mean_loss(r, variant, tech), 1e-2) for r in RATES],
                                 f"C{k}{style}"))
    panel = Panel("Figure 1: loss per sensor vs rate (0 drawn at 0.01 %)", "packets/s per sensor",
                  "loss (%)", series, hlines=[(1.0, "paper: << 1 % up to 5/s")],
                  vlines=[(10.0, "paper: LoRa degrades from 10/s")], logy=True)
    return Outcome(rows=_rows(), panels=[panel], notes=_notes())


def bench() -> list[dict[str, Any]]:
    from ..bench import _record
    anchor = "./wren bench hetero (scenarios/hetero_router.toml, SF7 125 kHz, no duty-cycle limit)"
    sat = saturation_pps()
    return [_record("hetero_loss_5pps_lora_pct", mean_loss(5, PRIMARY, "lora"), "%", "lower",
                    1.0, anchor),
            _record("hetero_loss_5pps_154_pct", mean_loss(5, PRIMARY, "154"), "%", "lower",
                    1.0, anchor),
            _record("hetero_lora_saturation_pps", float(sat) if sat else float("nan"),
                    "packets/s", "higher", None, anchor)]
