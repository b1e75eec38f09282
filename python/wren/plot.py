"""Pictures of a simulated network: ./wren sim SCENARIO --plot [FILE].

topology(result, path) draws, from a ./wren sim result (scenario.run; its
"positions", "links" and, with RPL, "rpl_parents" and "rpl_roots"):
  - the topology: nodes at their positions (a networkx spring layout of the
    links when the scenario gives no distinct positions), every link
    coloured by its packet reception ratio, and the RPL DODAG's
    preferred-parent edges as arrows from child to parent, roots as squares;
  - every loss counter that is not zero (network totals: radio receptions
    lost to collisions and to the link, MAC retries and frames given up,
    fragments and datagrams dropped, TCP and CoAP retransmissions, ...),
    the layers from the radio up;
  - per node, the datagrams it sent, forwarded and received, stacked by
    application, from result["traffic"] (wren.traffic.table, read from the
    run's capture) when the result has one; else what the raw-frame
    applications (app.sent, app.received) sent and received;
  - per node, the radio's duty cycle, unless every radio was on all the
    time (CSMA/CA without LPL: 100 % everywhere tells nothing).
The format follows the file's extension (.png, .svg or .pdf).
"""
import re
from pathlib import Path
from typing import Any

from .errors import UserError

FORMATS = (".png", ".svg", ".pdf")


def check_path(path: str | Path) -> Path:
    """@path as a Path, or a UserError when its extension is no format."""
    p = Path(path)
    if p.suffix.lower() not in FORMATS:
        raise UserError(f"cannot draw {path}: the picture's file name must end in "
                        f"{', '.join(FORMATS)}")
    return p


def _layout(result: dict[str, Any]) -> dict[int, tuple[float, float]]:
    pos = {i: (float(p[0]), float(p[1])) for i, p in enumerate(result.get("positions", []))}
    n = len(result["nodes"])
    if len(pos) == n and len(set(pos.values())) == n:
        return pos
    import networkx as nx
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from((a, b) for a, b, _ in result.get("links", []))
    lay = nx.spring_layout(g, seed=1)
    return {i: (float(x), float(y)) for i, (x, y) in lay.items()}


def _draw_network(fig: Any, ax: Any, result: dict[str, Any]) -> None:
    """Nodes at their positions, links by PRR, the DODAG's parent arrows."""
    import matplotlib
    from matplotlib import cm, colors
    from matplotlib.collections import LineCollection
    n = len(result["nodes"])
    pos = _layout(result)
    # links: one segment per pair, coloured by the worse direction's PRR
    pairs: dict[tuple[int, int], float] = {}
    for a, b, prr in result.get("links", []):
        k = (min(a, b), max(a, b))
        pairs[k] = min(prr, pairs.get(k, prr))
    cmap = matplotlib.colormaps["RdYlGn"]
    norm = colors.Normalize(0.0, 1.0)
    if pairs:
        segs = [[pos[a], pos[b]] for a, b in pairs]
        lc = LineCollection(segs, colors=[cmap(norm(v)) for v in pairs.values()],
                            linewidths=1.5, alpha=0.7, zorder=1)
        ax.add_collection(lc)
        fig.colorbar(cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, shrink=0.6,
                     label="link PRR")
    _draw_other_links(ax, result, pos)
    parents = result.get("rpl_parents") or {}
    edges = [(pos[int(c)], pos[par]) for c, par in parents.items() if par is not None]
    if len(edges) <= 300:
        for (x0, y0), (x1, y1) in edges:
            ax.annotate("", xy=(x1, y1), xytext=(x0, y0), zorder=2,
                        arrowprops={"arrowstyle": "-|>", "color": "black", "lw": 2.0,
                                    "shrinkA": 9, "shrinkB": 9})
    elif edges:   # many: lines without heads, drawn at once
        ax.add_collection(LineCollection([list(e) for e in edges], colors="black",
                                         linewidths=1.5, zorder=2))
    _draw_nodes(ax, result, pos)
    roots = set(result.get("rpl_roots") or [])
    joined = {int(c) for c, par in parents.items() if par is not None}
    title = result.get("scenario") or "scenario"
    extra = (f"\nRPL DODAG: {'edges' if len(edges) > 300 else 'arrows'} from child to "
             f"preferred parent, {len(joined)} of "
             f"{n - len(roots)} nodes joined, root square" if parents else "")
    ax.set_title(f"{title}: {n} nodes{extra}", fontsize=10)
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")


#: how the links of other technologies are drawn (802.15.4's by PRR)
_OTHER_STYLE = {"LoRa": {"color": "purple", "linestyle": "--", "linewidth": 2.0},
                "Ethernet": {"color": "dimgray", "linestyle": "-", "linewidth": 4.0}}


def _draw_other_links(ax: Any, result: dict[str, Any],
                      pos: dict[int, tuple[float, float]]) -> None:
    """LoRa and Ethernet links (result["other_links"]), with a legend."""
    drawn = set()
    for a, b, kind in result.get("other_links", []):
        st = _OTHER_STYLE.get(kind, {"color": "black"})
        ax.plot([pos[a][0], pos[b][0]], [pos[a][1], pos[b][1]], zorder=1, alpha=0.8,
                label=None if kind in drawn else kind, **st)
        drawn.add(kind)
    if drawn:
        ax.legend(fontsize=8, loc="best")


_FLOW_SENT = re.compile(r"^flow: generated (\d+) failed (\d+)$", re.M)
_FLOW_RCVD = re.compile(r"^flow src (\S+) received (\d+) ", re.M)
_IF_ADDR = re.compile(r"^> ifconfig \d+ add ([0-9a-fA-F:]+)/", re.M)


def _draw_flows(ax: Any, result: dict[str, Any]) -> bool:
    """Per flow sender (the shell's `flow` command): datagrams it made and
    those its sink received, from `flow stats`; False if there were none."""
    received: dict[str, int] = {}
    for nd in result["nodes"]:
        received.update({a: int(n) for a, n in _FLOW_RCVD.findall(nd.get("shell", ""))})
    rows = []
    for nd in result["nodes"]:
        sent = _FLOW_SENT.search(nd.get("shell", ""))
        if sent:
            got = sum(received.get(a, 0) for a in _IF_ADDR.findall(nd["shell"]))
            rows.append((nd["id"], int(sent.group(1)), got))
    if not rows:
        return False
    xs = [r[0] for r in rows]
    ax.bar([x - 0.2 for x in xs], [r[1] for r in rows], 0.4, label="datagrams made")
    ax.bar([x + 0.2 for x in xs], [r[2] for r in rows], 0.4, label="received at the sink")
    for x, made, got in rows:
        ax.text(x, max(made, got), f"{100 * (made - got) / made if made else 0:.1f} % lost",
                ha="center", va="bottom", fontsize=8)
    ax.set_ylabel("datagrams")
    ax.set_title("per sender (`flow`): datagrams made and received end to end", fontsize=9)
    ax.legend(fontsize=7)
    return True


def _draw_nodes(ax: Any, result: dict[str, Any], pos: dict[int, tuple[float, float]]) -> None:
    """Roots as gold squares, joined nodes light blue, the others white."""
    n = len(result["nodes"])
    parents = result.get("rpl_parents") or {}
    roots = set(result.get("rpl_roots") or [])
    joined = {int(c) for c, par in parents.items() if par is not None}
    big = n > 100
    size = 30 if big else 320
    groups: dict[tuple[str, str], list[int]] = {}
    for i in range(n):
        root = i in roots
        face = "gold" if root else ("white" if parents and i not in joined else "lightblue")
        groups.setdefault((face, "s" if root else "o"), []).append(i)
    for (face, marker), ids_ in groups.items():
        ax.scatter([pos[i][0] for i in ids_], [pos[i][1] for i in ids_], s=size * (3 if big and
                   marker == "s" else 1), marker=marker, c=face, edgecolors="black", zorder=3)
    if not big:
        for i in range(n):
            ax.text(pos[i][0], pos[i][1], str(i), ha="center", va="center", fontsize=8,
                    zorder=4)
    ax.set_aspect("equal", adjustable="datalim")
    ax.autoscale_view()


#: how each kind of datagram is drawn in the per-application panel
_KIND_STYLE = {"sent": "", "forwarded": "///", "received": "..."}
_APP_COLOURS = {"TCP": "C0", "CoAP": "C1", "ping": "C2", "UDP": "C4", "RPL": "0.75",
                "ND": "0.55", "other": "0.35"}


def _draw_traffic(ax: Any, result: dict[str, Any]) -> None:
    """Per node, three bars (sent, forwarded, received), each stacked by
    application, from result["traffic"] (wren.traffic.table)."""
    from matplotlib.patches import Patch
    tab = result["traffic"]
    n = len(tab["nodes"])
    apps = [a for a in tab["apps"] if any(sum(row[a].values()) for row in tab["nodes"])]
    ax.set_ylabel("datagrams")
    if n > 100:   # bars of a pixel or less alias: a step line per kind, every application
        for kind in tab["kinds"]:
            ax.plot(range(n), [sum(row[a][kind] for a in apps) for row in tab["nodes"]],
                    drawstyle="steps-mid", label=kind)
        ax.legend(fontsize=7)
        ax.set_title("per node: datagrams it sent, forwarded and received, every application "
                     "(from the capture)", fontsize=9)
        return
    w = 0.28
    for k, kind in enumerate(tab["kinds"]):
        xs = [i + (k - 1) * w for i in range(n)]
        bottom = [0] * n
        for app in apps:
            h = [row[app][kind] for row in tab["nodes"]]
            ax.bar(xs, h, w, bottom=bottom, color=_APP_COLOURS.get(app, "0.5"),
                   hatch=_KIND_STYLE[kind], edgecolor="white", linewidth=0.3)
            bottom = [b + v for b, v in zip(bottom, h)]
    handles = ([Patch(color=_APP_COLOURS.get(a, "0.5"), label=a) for a in apps]
               + [Patch(facecolor="white", edgecolor="black", hatch=_KIND_STYLE[k],
                        label=f"{k} ({'left' if i == 0 else 'middle' if i == 1 else 'right'})")
                  for i, k in enumerate(tab["kinds"])])
    ax.legend(handles=handles, fontsize=7, ncol=2)
    ax.set_title("per node: datagrams it sent, forwarded and received, by application "
                 "(from the capture; RPL and ND are the control plane)", fontsize=9)


def _draw_app_counters(ax: Any, result: dict[str, Any]) -> None:
    """Per node, what its raw-frame applications sent and received
    (app.sent, app.received): the panel when there is no traffic table."""
    cs = [nd["counters"] for nd in result["nodes"]]
    ids = list(range(len(cs)))
    w = 0.4
    sent, rcvd = [c.get("app.sent", 0) for c in cs], [c.get("app.received", 0) for c in cs]
    if len(cs) <= 100:
        ax.bar([i - w / 2 for i in ids], sent, w, label="app sent")
        ax.bar([i + w / 2 for i in ids], rcvd, w, label="app received")
    else:
        ax.plot(ids, sent, drawstyle="steps-mid", label="app sent")
        ax.plot(ids, rcvd, drawstyle="steps-mid", label="app received")
    ax.set_ylabel("packets")
    if not any(sent) and not any(rcvd):
        ax.text(0.5, 0.5, "no traffic of the raw-frame applications (app.*); run with a "
                "capture (--pcap) for every application's", transform=ax.transAxes,
                ha="center", fontsize=8)
    ax.set_title("per node: frames its raw-frame applications sent and received", fontsize=9)
    ax.legend(fontsize=7)


#: counters that count a loss (or its repair), by the words in their names
_LOSS_WORDS = ("drop", "noack", "collisions", "link_loss", "while_tx", "bad_fcs", "caf",
               "timeout", "rexmt", "retx", "retries", "aborted", "overrun")
#: ... and those of them that are not losses: frames for other nodes overheard
_NOT_LOSSES = {"netif.rx_drop_not_for_us"}
#: layers in the order a frame climbs them
_LAYERS = ("radio", "mac", "netif", "sec", "6lowpan", "ipv6", "icmpv6", "nib", "rpl", "udp",
           "tcp", "coap", "coap_tcp", "app")


def losses(result: dict[str, Any]) -> list[tuple[str, int]]:
    """(counter, network total) of every counter of a loss or its repair
    that is not zero, the layers from the radio up."""
    totals = result.get("totals") or {}
    if not totals:
        for nd in result["nodes"]:
            for k, v in nd["counters"].items():
                totals[k] = totals.get(k, 0) + v
    out = [(k, v) for k, v in totals.items() if v and k not in _NOT_LOSSES
           and any(w in k.split(".", 1)[-1] for w in _LOSS_WORDS)]
    rank = {layer: i for i, layer in enumerate(_LAYERS)}
    return sorted(out, key=lambda kv: (rank.get(kv[0].split(".")[0], len(rank)), kv[0]))


def _draw_losses(ax: Any, result: dict[str, Any], note: str) -> None:
    """Horizontal bars: every loss counter's network total (log scale)."""
    rows = losses(result)
    if not rows:
        ax.text(0.5, 0.5, "nothing lost", transform=ax.transAxes, ha="center")
        ax.set_xticks([])
        ax.set_yticks([])
    else:
        ys = range(len(rows))
        import matplotlib
        palette = matplotlib.colormaps["tab20"].colors
        layer_colour = {layer: palette[i % len(palette)] for i, layer in enumerate(_LAYERS)}
        ax.barh(ys, [v for _, v in rows],
                color=[layer_colour.get(k.split(".")[0], "0.5") for k, _ in rows])
        ax.set_yticks(list(ys), [k for k, _ in rows], fontsize=7)
        ax.invert_yaxis()
        ax.set_xscale("log")
        for y, (_, v) in zip(ys, rows):
            ax.text(v, y, f" {v}", va="center", fontsize=7)
    ax.set_xlabel("network total (log scale)")
    ax.set_title(f"losses by reason, and their repairs (retries, retransmissions){note}",
                 fontsize=9)


def _draw_duty(ax: Any, result: dict[str, Any]) -> None:
    """Per node, the radio's duty cycle (the share of time it was on)."""
    from .scenario import duty
    dc = [100 * duty(nd["counters"]) for nd in result["nodes"]]
    ids = list(range(len(dc)))
    if len(dc) <= 100:
        ax.bar(ids, dc, color="C2")
    else:   # bars of a pixel or less alias: a filled step line
        ax.fill_between(ids, dc, step="mid", color="C2")
    ax.set_ylabel("radio on (%)")
    ax.set_title("radio duty cycle", fontsize=9)
    ax.set_ylim(0, 100)


def _always_on(result: dict[str, Any]) -> bool:
    """Whether every radio listened all the time (CSMA/CA without LPL): its
    duty cycle, 100 % everywhere, tells nothing."""
    from .scenario import duty
    return all(duty(nd["counters"]) >= 0.9995 for nd in result["nodes"])


def topology(result: dict[str, Any], path: str | Path) -> list[Path]:
    """Draw @result's network into @path; returns the files written."""
    p = check_path(path)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(result["nodes"])
    on = _always_on(result)
    fig = plt.figure(figsize=(15, 10 if on else 13))
    grid = fig.add_gridspec(2 if on else 3, 2, width_ratios=[1.2, 1],
                            height_ratios=[1.4, 1] if on else [1.4, 1, 0.7])
    _draw_network(fig, fig.add_subplot(grid[0, 0]), result)
    _draw_losses(fig.add_subplot(grid[0, 1]), result,
                 "\n(every radio listened all the time, CSMA/CA: no duty-cycle panel)"
                 if on else "")
    lower = [fig.add_subplot(grid[1, :])]
    if "traffic" in result:
        _draw_traffic(lower[0], result)
    elif not _draw_flows(lower[0], result):
        _draw_app_counters(lower[0], result)
    if not on:
        lower.append(fig.add_subplot(grid[2, :], sharex=lower[0]))
        _draw_duty(lower[1], result)
    lower[-1].set_xlabel("node")
    for a in lower:
        a.grid(True, axis="y", alpha=0.3)
        if n <= 40:
            a.set_xticks(range(n))
            a.tick_params(axis="x", labelsize=7)
    fig.tight_layout()
    p.parent.mkdir(parents=True, exist_ok=True)
    try:
        fig.savefig(p, dpi=90)
    except OSError as e:
        raise UserError(f"cannot write {p}: {e.strerror}") from None
    finally:
        plt.close(fig)
    return [p]
