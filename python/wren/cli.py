"""./wren: the front end. Run ./wren -h for the commands."""
import argparse
import sys
from pathlib import Path

from . import build, paths


def cmd_sim(args):
    build.host()
    from . import scenario
    sc = scenario.load(args.scenario)
    pcap = args.pcap
    result = scenario.run(sc, seed=args.seed, duration=args.duration, pcap=pcap)
    scenario.summary(result)
    if args.json:
        scenario.write_json(result, args.json)
        print(f"result: {args.json}")
    return 0


def cmd_demo(args):
    paths.OUT.mkdir(exist_ok=True)
    args.scenario = paths.SCENARIOS / "demo.toml"
    args.pcap = args.pcap or str(paths.OUT / "demo.pcap")
    args.json = args.json or str(paths.OUT / "demo.json")
    return cmd_sim(args)


def cmd_build(args):
    build.host()
    print(f"built {paths.BUILD}")
    return 0


def cmd_test(args):
    from . import testrun
    return testrun.main(args)


def cmd_bench(args):
    build.host()
    from . import bench
    return bench.main(args)


def cmd_size(args):
    from . import size
    size.main(args)
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(prog="wren", description="wren network stack front end")
    sub = p.add_subparsers(dest="cmd")

    def sim_opts(sp):
        sp.add_argument("--seed", type=int, help="override the scenario's seed")
        sp.add_argument("--duration", type=float, help="simulated seconds")
        sp.add_argument("--pcap", help="write every frame on the air to this pcap")
        sp.add_argument("--json", help="write the result (all counters) as JSON")

    sp = sub.add_parser("demo", help="build and run the demo simulation (scenarios/demo.toml)")
    sim_opts(sp)
    sp.set_defaults(func=cmd_demo)

    sp = sub.add_parser("sim", help="run a scenario")
    sp.add_argument("scenario", help="scenario TOML file")
    sim_opts(sp)
    sp.set_defaults(func=cmd_sim)

    sp = sub.add_parser("test", help="build and run every test")
    sp.add_argument("--quick", action="store_true",
                    help="skip the sanitizer, fuzz and Cortex-M3 stages")
    sp.add_argument("--fuzz-seconds", type=int, default=20, help="per fuzz target")
    sp.set_defaults(func=cmd_test)

    sp = sub.add_parser("bench", help="run benchmarks and print their figures")
    sp.add_argument("name", nargs="?", help="only benchmarks whose name contains this")
    sp.add_argument("--json", help="write the records as JSON")
    sp.set_defaults(func=cmd_bench)

    sp = sub.add_parser("size", help="Cortex-M3 ROM/RAM report")
    sp.add_argument("--json", help="write rom_*/ram_* records as JSON")
    sp.set_defaults(func=cmd_size)

    sp = sub.add_parser("build", help="build the host tree only")
    sp.set_defaults(func=cmd_build)

    args = p.parse_args(argv)
    if not getattr(args, "func", None):
        args = p.parse_args(["demo", *(argv or sys.argv[1:])])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
