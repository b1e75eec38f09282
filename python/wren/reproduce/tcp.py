"""The radio and TCP figures: RIOT Fig. 8, the TCP paper's Figs. 4-6,
section 7.2 and Eq. 2."""
import functools
import math
from typing import Any

from .core import Outcome, Panel, Row, Series, _radio, paper_number, pv



TCP_SEEDS_QUICK = (1,)


@functools.cache
def _tcp(hops: int, proc: int, d: int, mss: int | None, wnd: int | None, seeds: tuple[int, ...],
         prr: float = 1.0) -> dict[str, Any]:
    from .. import bench_tcp
    return bench_tcp.tcp_transfer_mean(hops, proc, retry_delay_ms=d, mss=mss, wnd=wnd,
                                       seeds=seeds, prr=prr)


@functools.cache
def _mss(frames: int, hops: int = 1) -> int:
    from .. import bench_tcp
    m = bench_tcp.tcp_mss_for_frames(frames, hops)
    if m is None:
        raise RuntimeError(f"no MSS fits a segment into {frames} frames")
    return m


def _seeds(quick: bool) -> tuple[int, ...]:
    from .. import bench_tcp
    return TCP_SEEDS_QUICK if quick else tuple(bench_tcp.TCP_SEEDS)


def _seed_note(quick: bool) -> str:
    s = _seeds(quick)
    return f"seed {s[0]}" if len(s) == 1 else f"mean of seeds {s[0]}..{s[-1]}"



def riot_fig8(quick: bool) -> Outcome:
    sizes = [100, 500, 1000, 1232] if quick else list(range(48, 1233, 48)) + [1232]
    secs = 5 if quick else 10
    nomac = [_radio("nomac", s, secs) for s in sizes]
    mac = [_radio("mac", s, secs) for s in sizes]
    frac_mac = mac[-1][0] / nomac[-1][1]
    frac_nomac = nomac[-1][0] / nomac[-1][1]
    two_thirds = paper_number("riot.fig8.mac_fraction")
    return Outcome(
        rows=[Row("CSMA-CA + ACKs: goodput / PHY bound without contention, 1,232 B",
                  "fraction of bound", frac_mac, pv("riot.fig8.mac_fraction")),
              Row("no CSMA, no ACKs: goodput / PHY bound, 1,232 B", "fraction of bound",
                  frac_nomac, pv("riot.fig8.nomac_text"))],
        panels=[Panel("single-hop UDP goodput vs the PHY bound", "UDP payload (bytes)",
                      "goodput (kbit/s)",
                      [Series("bound (headers, SIFS/LIFS, no contention)", sizes,
                              [b for _, b in nomac], "k--"),
                       Series("wren: no CSMA, no ACKs", sizes, [g for g, _ in nomac], "o-"),
                       Series("wren: CSMA-CA + ACKs", sizes, [g for g, _ in mac], "s-"),
                       Series("paper: CSMA + ACKs stay below 2/3 of the bound", sizes,
                              [two_thirds * b for _, b in nomac], "r:", True)])],
        notes=[f"wren: bench_goodput nomac|mac SIZE {secs} (bench.goodput_1hop), simulated "
               "802.15.4 at 250 kbit/s; the bound is the same frames back to back with their "
               "interframe spaces and no ACKs (the paper's)."])



def _proc() -> int:
    from .. import bench_tcp
    return int(bench_tcp.TCP_PROC_US)


def _delay() -> int:
    from .. import bench_tcp
    return int(bench_tcp.TCP_RETRY_DELAY)


def tcp_fig4(quick: bool) -> Outcome:
    seeds = _seeds(quick)
    ks = list(range(1, 9))
    msss = [_mss(k) for k in ks]
    res = {p: [_tcp(1, p, _delay(), m, None, seeds) for m in msss] for p in (0, _proc())}
    g = [r["goodput"] for r in res[_proc()]]
    best = max(g)
    knee = next(k for k, v in zip(ks, g) if v >= 0.95 * best)
    five = res[_proc()][4]
    return Outcome(
        rows=[Row("one hop, MSS of 5 frames, 8.2 ms per frame: goodput", "kbit/s",
                  five["goodput"], pv("tcp.sec63.openthread_kbps")),
              Row("the same frames back to back: upper bound", "kbit/s", five["bound"],
                  pv("tcp.sec64.bound_kbps")),
              Row("smallest MSS within 5 % of the best goodput", "frames", float(knee),
                  pv("tcp.fig4.mss_frames"))],
        panels=[Panel("TCP goodput vs MSS, one hop", "MSS (802.15.4 frames per segment)",
                      "goodput (kbit/s)",
                      [Series("wren: no processing delay", ks,
                              [r["goodput"] for r in res[0]], "o-"),
                       Series("wren: 8.2 ms per frame", ks, g, "s-"),
                       Series("wren: bound, 8.2 ms per frame", ks,
                              [r["bound"] for r in res[_proc()]], "k:"),
                       Series("paper: 75 kb/s at 5 frames (6.3)", [5],
                              [paper_number("tcp.sec63.openthread_kbps")], "rx", True),
                       Series("paper: bound 82 kb/s (6.4)", [5],
                              [paper_number("tcp.sec64.bound_kbps")], "r+", True)])],
        notes=[f"wren: bench_tcp.tcp_transfer_mean, 100 KiB over one simulated hop, 2 KiB "
               f"buffers, {_seed_note(quick)}; MSS for k frames: "
               + ", ".join(f"{k}:{m}" for k, m in zip(ks, msss))
               + ". The paper plots no numbers for Figure 4 (one hop is 63-75 kb/s in 6.3)."])


def tcp_fig5(quick: bool) -> Outcome:
    seeds = _seeds(quick)
    mss = _mss(5)
    smss = mss - 12
    ws = list(range(1, 9))
    res = {p: [_tcp(1, p, _delay(), mss, w * smss, seeds) for w in ws] for p in (0, _proc())}
    g = [r["goodput"] for r in res[_proc()]]
    best = max(g)
    w_off = next(w for w, v in zip(ws, g) if v >= 0.95 * best)
    r1 = res[_proc()][0]
    bdp = r1["bound"] * 1000 / 8 * r1["srtt_ms"] / 1000 / 1024   # KiB
    kib = [w * smss / 1024 for w in ws]
    return Outcome(
        rows=[Row("window where goodput levels off (within 5 % of the best)", "KiB",
                  w_off * smss / 1024, pv("tcp.fig5.leveloff_kib")),
              Row("bandwidth-delay product (bound x RTT of one segment)", "KiB", bdp,
                  pv("tcp.fig5.bdp_kib"))],
        panels=[Panel("TCP goodput vs window, one hop, MSS 5 frames", "window (KiB)",
                      "goodput (kbit/s)",
                      [Series("wren: no processing delay", kib,
                              [r["goodput"] for r in res[0]], "o-"),
                       Series("wren: 8.2 ms per frame", kib, g, "s-"),
                       Series("wren: model B (Eq. 2), 8.2 ms", kib,
                              [r["model"] for r in res[_proc()]], "C1:")],
                      vlines=[(paper_number("tcp.fig5.leveloff_kib"),
                               "paper: levels off at ~1.5 KiB"),
                              (paper_number("tcp.fig5.bdp_kib"), "paper: BDP ~1.6 KiB")])],
        notes=[f"wren: bench_tcp.tcp_transfer_mean, MSS {mss} ({smss} data bytes), window = "
               f"both buffers = w segments, 8.2 ms per frame, {_seed_note(quick)}. The paper's "
               "text gives where its curve levels off and its BDP, no goodput values."])


def _fig6_delays(quick: bool) -> list[int]:
    return [0, 10, 30, 40, 100] if quick else [0, 5, 10, 20, 30, 40, 50, 60, 80, 100]


def tcp_fig6(quick: bool) -> Outcome:
    seeds = _seeds(quick)
    wnd = int(paper_number("tcp.fig6.window_bytes"))
    ds = _fig6_delays(quick)
    res = {h: [_tcp(h, _proc(), d, _mss(5, h), wnd, seeds) for d in ds] for h in (1, 3)}
    i0, i30 = ds.index(0), ds.index(30)
    return Outcome(
        rows=[Row("three hops, d = 0: TCP segment loss", "%", 100 * res[3][i0]["p"],
                  pv("tcp.fig6.loss_d0")),
              Row("three hops, d = 30 ms: TCP segment loss", "%", 100 * res[3][i30]["p"],
                  pv("tcp.fig6.loss_d30"))],
        panels=[Panel("goodput vs link retry delay d", "d (ms)", "goodput (kbit/s)",
                      [Series(f"wren: {h} hop{'s' if h > 1 else ''}", ds,
                              [r["goodput"] for r in res[h]], st)
                       for h, st in ((1, "o-"), (3, "s-"))]
                      + [Series(f"wren: model B (Eq. 2), {h} hop{'s' if h > 1 else ''}", ds,
                                [r["model"] for r in res[h]], st)
                         for h, st in ((1, "C0:"), (3, "C1:"))]),
                Panel("TCP segment loss vs d", "d (ms)", "segment loss (%)",
                      [Series(f"wren: {h} hop{'s' if h > 1 else ''}", ds,
                              [100 * r["p"] for r in res[h]], st)
                       for h, st in ((1, "o-"), (3, "s-"))]
                      + [Series("paper: three hops (7.3)", [0, 30],
                                [paper_number("tcp.fig6.loss_d0"),
                                 paper_number("tcp.fig6.loss_d30")], "rx", True)])],
        notes=[f"wren: bench_tcp.tcp_transfer_mean over a simulated line (nodes two apart are "
               f"hidden terminals), window {wnd} bytes (the paper's), MSS 5 frames, 8.2 ms per "
               f"frame, {_seed_note(quick)}; segment loss = TCP retransmissions / segments sent."
               " The paper's 30 ms figure is an upper limit (\"less than 1%\")."])


def _hops(quick: bool) -> dict[int, dict[str, Any]]:
    seeds = _seeds(quick)
    return {h: _tcp(h, _proc(), _delay(), _mss(5, h), None, seeds) for h in (1, 2, 3, 4)}


def tcp_sec72(quick: bool) -> Outcome:
    res = _hops(quick)
    hs = [1, 2, 3, 4]
    return Outcome(
        rows=[Row(f"{h} hop{'s' if h > 1 else ''}: goodput, d = 40 ms", "kbit/s",
                  res[h]["goodput"], pv(f"tcp.sec72.hops{h}_kbps"),
                  note="the paper enlarged its window for four hops; wren keeps 2 KiB"
                  if h == 4 else "")
              for h in hs],
        panels=[Panel("TCP goodput vs hops", "hops", "goodput (kbit/s)",
                      [Series("wren: 8.2 ms per frame", hs, [res[h]["goodput"] for h in hs],
                              "s-"),
                       Series("wren: bound B/min(h,3)", hs, [res[h]["bound"] for h in hs], "k:"),
                       Series("wren: model B (Eq. 2)", hs, [res[h]["model"] for h in hs], "C1:"),
                       Series("paper (OpenThread, 7.2)", hs,
                              [paper_number(f"tcp.sec72.hops{h}_kbps") for h in hs], "rx-",
                              True)])],
        notes=[f"wren: bench_tcp.tcp_transfer_mean over a simulated line, MSS 5 frames, 2 KiB "
               f"buffers, retry delay 40 ms, 8.2 ms per frame, {_seed_note(quick)}."])


def _eq1(r: dict[str, Any]) -> float:
    """The classic model, B = MSS/RTT * sqrt(3 / 2p) (kbit/s; inf at p = 0)."""
    rtt = r["srtt_ms"] / 1000
    if r["p"] == 0 or rtt == 0:
        return math.inf
    return r["smss"] * 8 / rtt * math.sqrt(3 / (2 * r["p"])) / 1000


def tcp_eq2(quick: bool) -> Outcome:
    seeds = _seeds(quick)
    hops = _hops(quick)
    cases: list[tuple[str, dict[str, Any]]] = [(f"{h} hop{'s' if h > 1 else ''}, d = 40 ms", r)
                                               for h, r in hops.items()]
    cases.append(("3 hops, d = 0", _tcp(3, _proc(), 0, _mss(5, 3),
                                        int(paper_number("tcp.fig6.window_bytes")), seeds)))
    for h in ((1, 3) if quick else (1, 2, 3, 4)):
        cases.append((f"{h} hop{'s' if h > 1 else ''}, PRR 0.9",
                      _tcp(h, _proc(), _delay(), _mss(5, h), None, seeds, 0.9)))
    rows = [Row(f"{name}: measured / Eq. 2 (wren's RTT {r['srtt_ms']:.0f} ms, loss "
                f"{100 * r['p']:.1f} %, w {r['w']:.1f})", "ratio",
                r["goodput"] / r["model"] if r["model"] else None, pv("tcp.eq2.text"))
            for name, r in cases]
    d0 = cases[4][1]
    rows.append(Row("Eq. 1 (the classic model) for 3 hops, d = 0", "kbit/s", _eq1(d0),
                    pv("tcp.eq1.hop3_kbps"), note=f"measured {d0['goodput']:.1f} kbit/s"))
    names = [n for n, _ in cases]
    return Outcome(
        rows=rows,
        panels=[Panel("measured goodput and the models", "", "goodput (kbit/s)",
                      [Series("wren: measured", names, [r["goodput"] for _, r in cases], "C0"),
                       Series("Eq. 2 with wren's RTT, loss, window", names,
                              [r["model"] for _, r in cases], "C1"),
                       Series("Eq. 1 (inf at zero loss: not drawn)", names,
                              [e if math.isfinite(e := _eq1(r)) else None for _, r in cases],
                              "C7")], bars=True, logy=True)],
        notes=["Eq. 2: B = MSS/RTT x 1/(1/w + 2p), with wren's smoothed RTT, its TCP "
               "retransmission rate p and the window w in segments (bench_tcp.tcp_transfer). "
               "The "
               f"paper says the model closely matches its measurements; {_seed_note(quick)}."])
