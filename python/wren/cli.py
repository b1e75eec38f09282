"""./wren: the front end. Run ./wren -h for the commands.

A mistake of the user's (wren.errors.UserError: a bad scenario file, a
capture or result path that cannot be written) is one line on stderr,
"wren: ...", and exit status 2.
"""
import argparse
import sys
from collections.abc import Callable, Sequence

from . import build, paths
from .errors import UserError


def cmd_sim(args: argparse.Namespace) -> int:
    from . import scenario
    from . import energy
    sc = scenario.load(args.scenario)   # checked before anything is built
    energy.profile(args.profile)        # so is the energy profile
    picture = None
    if getattr(args, "plot", None) is not None:   # and the picture's file name
        from . import plot
        picture = plot.check_path(args.plot or paths.OUT / f"{sc.name or 'scenario'}.png")
    build.sim_lib()
    result = scenario.run(sc, seed=args.seed, duration=args.duration, pcap=args.pcap)
    energy.annotate(result, args.profile)
    scenario.summary(result)
    if args.json:
        scenario.write_json(result, args.json)
        print(f"result: {args.json}")
    if picture is not None:
        if args.pcap and (sc.pcap_format or "wpan") == "wpan":
            from . import traffic
            result["traffic"] = traffic.table(args.pcap, len(result["nodes"]))
        plot.topology(result, picture)
        print(f"picture: {picture}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from . import demo, energy, plot, scenario, traffic
    sc = scenario.load(paths.SCENARIOS / "demo.toml")
    energy.profile(args.profile)
    picture = plot.check_path(args.plot or paths.OUT / "demo.png")
    pcap = args.pcap or str(paths.OUT / "demo.pcap")
    out_json = args.json or str(paths.OUT / "demo.json")
    paths.OUT.mkdir(exist_ok=True)
    build.sim_lib()
    result = scenario.run(sc, seed=args.seed, duration=args.duration, pcap=pcap)
    energy.annotate(result, args.profile)
    st = demo.story(sc, result)
    result["story"] = st
    result["traffic"] = traffic.table(pcap, len(result["nodes"]))
    demo.tell(st)
    scenario.write_json(result, out_json)
    plot.topology(result, picture)
    print(f"\n{result['duration_s']:g} s simulated in {result['wall_s']:.2f} s wall "
          f"({result['events']} events), seed {result['seed']}")
    print(f"capture: {pcap} (tshark -r {pcap}); result: {out_json} (every counter of every "
          f"node); picture: {picture}")
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    build.host()
    print(f"built {paths.BUILD}")
    return 0


def cmd_test(args: argparse.Namespace) -> int:
    from . import testrun
    return testrun.main(args)


def cmd_bench(args: argparse.Namespace) -> int:
    if args.from_ and not args.check:
        raise UserError("--from FILE only goes with --check")
    if args.check and args.name:
        raise UserError("--check runs the benchmarks of the guarded records: give no NAME")
    if not args.from_:
        build.host()
    from . import bench
    return bench.main(args)


def cmd_reproduce(args: argparse.Namespace) -> int:
    from . import reproduce
    return reproduce.main(args)

def cmd_sweep(args: argparse.Namespace) -> int:
    from . import sweep
    sweep.plan(args.scenario, args.set or [], args.seeds, args.duration, args.profile)
    build.sim_lib()   # after the arguments are checked: a mistake builds nothing
    return sweep.main(args)


def cmd_cpucosts(args: argparse.Namespace) -> int:
    import shutil
    from . import cpu
    if not shutil.which("qemu-system-arm"):
        raise UserError("cpucosts needs qemu-system-arm (./scripts/bootstrap.sh installs it)")
    ins = cpu.write()
    for op in cpu.OPS:
        print(f"{op:>10}  {ins[op]:8.1f} instructions")
    print(f"written: {cpu.COSTS}")
    (c, lo, hi), lines = cpu.measured_cpi()
    print(f"cycle model (wren.cpu): CPI {cpu.CPI:g}, band {cpu.CPI_LOW:g}..{cpu.CPI_HIGH:g}; "
          f"the UDP images' instruction mix gives {c:g}, {lo:g}..{hi:g}:")
    print("\n".join(lines))
    if (c, lo, hi) != (cpu.CPI, cpu.CPI_LOW, cpu.CPI_HIGH):
        print("the constants in python/wren/cpu.py no longer match the measured mix: update them")
    return 0


def cmd_size(args: argparse.Namespace) -> int:
    from . import size
    size.main(args)
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="wren", description="wren network stack front end")
    sub = p.add_subparsers(dest="cmd")

    def sim_opts(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--seed", type=int, help="override the scenario's seed")
        sp.add_argument("--duration", type=float, help="simulated seconds")
        sp.add_argument("--pcap", help="write every frame on the air to this pcap")
        sp.add_argument("--json", help="write the result (all counters) as JSON")
        sp.add_argument("--profile", default="iotlab-m3",
                        help="radio/MCU current profile of the energy model "
                             "(python/wren/data/energy_profiles.toml; default iotlab-m3)")

    def command(name: str, fn: Callable[[argparse.Namespace], int],
                help: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help)
        sp.set_defaults(func=fn)
        return sp

    sp = command("demo", cmd_demo, "build and run the demo: a self-forming 30-node RPL mesh "
                                   "with CoAP observe, ping and TCP (scenarios/demo.toml)")
    sim_opts(sp)
    sp.add_argument("--plot", metavar="FILE", help="the picture (default out/demo.png)")
    sp = command("sim", cmd_sim, "run a scenario")
    sp.add_argument("scenario", help="scenario TOML file")
    sim_opts(sp)
    sp.add_argument("--plot", nargs="?", const="", metavar="FILE",
                    help="draw the topology (links by PRR, the RPL DODAG) and per-node "
                         "delivery and duty cycle (.png, .svg or .pdf; default "
                         "out/<scenario name>.png)")

    sp = command("test", cmd_test, "build and run every test")
    sp.add_argument("--quick", action="store_true",
                    help="skip the sanitizer, fuzz and Cortex-M3 stages")
    sp.add_argument("--fuzz-seconds", type=int, default=20, help="per fuzz target")

    sp = command("bench", cmd_bench, "run benchmarks and print their figures")
    sp.add_argument("name", nargs="?", help="only benchmarks whose name contains this")
    sp.add_argument("--json", help="write the records as JSON")
    sp.add_argument("--check", action="store_true",
                    help="run the benchmarks of the guarded records "
                         "(python/wren/data/bench_guards.toml) and fail on a guard's miss "
                         "or drift; print the other records' target misses")
    sp.add_argument("--from", dest="from_", metavar="FILE",
                    help="with --check: check the records of a --json file instead of "
                         "running the benchmarks")

    sp = command("reproduce", cmd_reproduce,
                 "re-run the papers' figures; plots and a report beside the papers' values")
    from . import reproduce
    reproduce.add_arguments(sp)

    sp = command("sweep", cmd_sweep, "a grid of runs of a scenario, merged into one table "
                                     "(mean and 95 %% CI per cell)")
    sp.add_argument("scenario", help="scenario TOML file")
    sp.add_argument("--set", action="append", metavar="KEY=V1,V2..",
                    help="a dotted scenario key and its values (radio.prr=0.8,0.9); repeat "
                         "for more parameters: every combination runs")
    sp.add_argument("--seeds", type=int, default=5, help="seeds 1..N per cell (default 5)")
    sp.add_argument("--jobs", type=int, help="local processes (default: the number of cores)")
    sp.add_argument("--ray", metavar="ADDRESS|auto",
                    help="run on a Ray cluster (auto: the one `ray start` made here)")
    sp.add_argument("--out", help="directory of results (default out/sweep/SCENARIO); a rerun "
                                  "with the same directory resumes")
    sp.add_argument("--duration", type=float, help="simulated seconds of each run")
    sp.add_argument("--profile", default="iotlab-m3", help="energy profile (as ./wren sim)")
    sp.add_argument("--metric", action="append", metavar="COUNTER",
                    help="also table this counter's total over the nodes (e.g. coap.obs_notify)")

    sp = command("size", cmd_size, "Cortex-M3 ROM/RAM report")
    sp.add_argument("--json", help="write rom_*/ram_* records as JSON")

    command("cpucosts", cmd_cpucosts, "measure the Cortex-M3 instructions per frame and "
                                      "datagram under qemu (the CPU model's costs file)")

    command("build", cmd_build, "build the host tree only")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if not getattr(args, "func", None):
        args = p.parse_args(["demo", *(argv if argv is not None else sys.argv[1:])])
    try:
        return int(args.func(args))
    except UserError as e:
        print(f"wren: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
