"""The UDP loopback benchmark on an emulated Cortex-M3 (qemu mps2-an385):
every guest instruction between the image's two bench_mark() calls is
traced (-singlestep -d exec,nochain), counted, and charged to a module
through the linker map (each function is its own .text section)."""
import collections
import re
import shutil
import subprocess
import tempfile

from pathlib import Path

from . import build, size

IMAGE = "udp"
MEASURED = 10  # datagrams between the marks (runtime/cortexm/main_udp.c)


def trace(image: str) -> tuple[Path, dict[int, collections.Counter[str]]]:
    """Run @image under qemu with every guest instruction traced; return the
    ARM build tree and, per measured phase, the instructions executed in
    each function. A phase is what runs between two bench_mark() calls:
    the first pair of marks is phase 1, the second pair phase 2, ...; what
    runs between pairs (set-up, warm-up, checks) is not counted."""
    tree = build.arm()
    elf = tree / f"runtime/cortexm/wren_{image}.elf"
    phases: dict[int, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    with tempfile.TemporaryDirectory() as d:
        log = f"{d}/exec.log"
        subprocess.run(["qemu-system-arm", "-M", "mps2-an385", "-nographic", "-semihosting-config",
                        "enable=on,target=native", "-singlestep", "-d", "exec,nochain", "-D", log,
                        "-kernel", str(elf)], check=True, capture_output=True, timeout=600)
        marks = 0
        last = None
        with open(log, errors="replace") as f:
            for line in f:
                if not line.startswith("Trace"):
                    continue
                m = re.search(r"\] (\S+)\s*$", line)
                fn = m.group(1) if m else "?"
                if fn == "bench_mark" and last != "bench_mark":
                    marks += 1
                last = fn
                if marks % 2 == 1 and fn != "bench_mark":
                    phases[(marks + 1) // 2][fn] += 1
    return tree, dict(phases)


def function_modules(tree: Path, image: str) -> dict[str, str]:
    """Function name -> the module its code belongs to, from @image's map."""
    mapping: dict[str, str] = {}
    for obj, sec, kind, _ in size.parse_map((tree / f"runtime/cortexm/wren_{image}.map").read_text()):
        if kind == "rom" and sec.startswith(".text."):
            mapping[sec[len(".text."):]] = size._module_of(obj, sec) or "other (libc, runtime)"
    return mapping


def run() -> tuple[float, dict[str, float]] | None:
    """Instructions per datagram on the Cortex-M3 and their split by module,
    or None when qemu is not installed."""
    if not shutil.which("qemu-system-arm"):
        return None
    tree, phases = trace(IMAGE)
    counts = phases.get(1, collections.Counter())
    mods = function_modules(tree, IMAGE)
    per_module: collections.Counter[str] = collections.Counter()
    for fn, n in counts.items():
        per_module[mods.get(fn, "other (libc, runtime)")] += n
    total = sum(counts.values()) / MEASURED
    return total, {k: v / MEASURED for k, v in per_module.most_common()}
