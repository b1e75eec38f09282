"""Pictures of a simulated network: ./wren sim SCENARIO --plot [FILE].

topology(result, path) draws, from a ./wren sim result (scenario.run; its
"positions", "links" and, with RPL, "rpl_parents" and "rpl_roots"):
  - the topology: nodes at their positions (a networkx spring layout of the
    links when the scenario gives no distinct positions), every link
    coloured by its packet reception ratio, and the RPL DODAG's
    preferred-parent edges as arrows from child to parent, roots as squares;
  - per node, bars of what its applications sent and received;
  - per node, the radio's duty cycle (the share of time it was on).
The format follows the file's extension (.png, .svg or .pdf).
"""
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


def topology(result: dict[str, Any], path: str | Path) -> list[Path]:
    """Draw @result's network into @path; returns the files written."""
    from .scenario import duty
    p = check_path(path)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import cm, colors
    from matplotlib.collections import LineCollection

    n = len(result["nodes"])
    pos = _layout(result)
    fig = plt.figure(figsize=(13, 6))
    grid = fig.add_gridspec(2, 2, width_ratios=[1.3, 1])
    ax = fig.add_subplot(grid[:, 0])
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
    parents = result.get("rpl_parents") or {}
    roots = set(result.get("rpl_roots") or [])
    edges = [(pos[int(c)], pos[par]) for c, par in parents.items() if par is not None]
    if len(edges) <= 300:
        for (x0, y0), (x1, y1) in edges:
            ax.annotate("", xy=(x1, y1), xytext=(x0, y0), zorder=2,
                        arrowprops={"arrowstyle": "-|>", "color": "black", "lw": 2.0,
                                    "shrinkA": 9, "shrinkB": 9})
    elif edges:   # many: lines without heads, drawn at once
        ax.add_collection(LineCollection([list(e) for e in edges], colors="black",
                                         linewidths=1.5, zorder=2))
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
    title = result.get("scenario") or "scenario"
    extra = (f"\nRPL DODAG: {'edges' if len(edges) > 300 else 'arrows'} from child to "
             f"preferred parent, {len(joined)} of "
             f"{n - len(roots)} nodes joined, root square" if parents else "")
    ax.set_title(f"{title}: {n} nodes{extra}", fontsize=10)
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")

    ids = list(range(n))
    cs = [nd["counters"] for nd in result["nodes"]]
    ax1 = fig.add_subplot(grid[0, 1])
    w = 0.4
    sent, rcvd = [c.get("app.sent", 0) for c in cs], [c.get("app.received", 0) for c in cs]
    if n <= 100:
        ax1.bar([i - w / 2 for i in ids], sent, w, label="app sent")
        ax1.bar([i + w / 2 for i in ids], rcvd, w, label="app received")
    else:
        ax1.plot(ids, sent, drawstyle="steps-mid", label="app sent")
        ax1.plot(ids, rcvd, drawstyle="steps-mid", label="app received")
    ax1.set_ylabel("packets")
    if not any(c.get("app.sent", 0) or c.get("app.received", 0) for c in cs):
        ax1.text(0.5, 0.5, "no application traffic", transform=ax1.transAxes, ha="center")
    ax1.set_title("delivery: packets each node's applications sent and received", fontsize=9)
    ax1.legend(fontsize=7)
    ax2 = fig.add_subplot(grid[1, 1])
    dc = [100 * duty(c) for c in cs]
    if n <= 100:
        ax2.bar(ids, dc, color="C2")
    else:   # bars of a pixel or less alias: a filled step line
        ax2.fill_between(ids, dc, step="mid", color="C2")
    ax2.set_ylabel("radio on (%)")
    ax2.set_xlabel("node")
    ax2.set_title("radio duty cycle", fontsize=9)
    ax2.set_ylim(0, 100)
    for a in (ax1, ax2):
        a.grid(True, axis="y", alpha=0.3)
        if n <= 40:
            a.set_xticks(ids)
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
