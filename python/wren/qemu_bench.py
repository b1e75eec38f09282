"""The stack on an emulated Cortex-M3 (qemu mps2-an385), counted instruction
by instruction: every guest instruction between an image's bench_mark()
pairs is traced (-singlestep -d exec,nochain), counted, charged to the
function it belongs to, to that function's module (the linker map: each
function is its own .text section) and, through the call stack rebuilt
from the trace (a BL/BLX pushes a frame, reaching a frame's return address
pops it), to the protocol layer on whose behalf it ran (LAYER_RULE).

The UDP images (runtime/cortexm/main_udp.c: the IPv6 loopback;
main_udp_pipe.c: two nodes on a wire, 6LoWPAN and 802.15.4 between them)
measure every payload size of runtime/cortexm/udp_sizes.h in one run, one
phase per size; udp() caches what a run finds, in the process and on disk
beside the image (keyed by the image's SHA-256), so ./wren reproduce traces
each image once per build."""
import collections
import dataclasses
import functools
import hashlib
import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from . import build, size

IMAGE = "udp"
#: the UDP images, by the path they measure (bench_udp's modes)
IMAGES = {"loopback": "udp", "pipe": "udp_pipe"}
OTHER = "other (libc, runtime)"
#: changes when what udp() stores changes (the disk cache is then remade)
_CACHE_VERSION = "mix-1"
#: the layers of the RIOT paper's Fig. 5 and where wren's link layer goes
LAYERS = ("6Lo", "IPv6", "UDP", "link")
#: the rule by which instructions are charged to a layer, inclusively
LAYER_RULE = (
    "each instruction is charged to the innermost protocol layer on the call stack (6LoWPAN; "
    "IPv6 with ICMPv6 and the FIB; UDP with its socket), so the packet-buffer work, netapi "
    "dispatch and checksums a layer calls are its own, as GNRC's per-thread timing charges a "
    "thread; the scheduler's work before a layer's handler runs (no layer on the stack) is "
    "charged to that handler's layer, as GNRC's receiving thread pays for its msg_receive; the "
    "802.15.4 link layer, MAC, netif and the loopback device are GNRC's netif thread and driver "
    "(the paper's Fig. 5 leaves them out): column 'link'")


def _elf(tree: Path, image: str) -> Path:
    return tree / f"runtime/cortexm/wren_{image}.elf"


class _Qemu:
    """@elf run under qemu with every guest instruction logged to a file
    (a FIFO is far slower: qemu writes the log line by line); lines()
    yields the log, output is what the image printed."""

    def __init__(self, elf: Path):
        self.dir = Path(tempfile.mkdtemp(prefix="wren-trace-", dir=elf.parent))
        log = self.dir / "exec.log"
        res = subprocess.run(["qemu-system-arm", "-M", "mps2-an385", "-nographic",
                              "-semihosting-config", "enable=on,target=native", "-singlestep",
                              "-d", "exec,nochain", "-D", str(log), "-kernel", str(elf)],
                             capture_output=True, text=True, timeout=1800)
        self.output = res.stdout + res.stderr
        self.returncode = res.returncode
        self.log = log

    def lines(self) -> Iterator[str]:
        try:
            with open(self.log, errors="replace", buffering=1 << 20) as f:
                yield from f
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def _traces(lines: Iterator[str]) -> Iterator[tuple[int, str]]:
    """(pc, function) per executed instruction."""
    for line in lines:
        if line.startswith("Trace"):
            p = line.split()
            # "Trace 0: 0x7f.. [00800400/000078f2/00000110/ff000201] memset"
            yield int(p[3][10:18], 16), p[4] if len(p) > 4 else "?"


def calls(elf: Path) -> dict[int, int]:
    """Address -> length in bytes of every BL/BLX instruction in @elf."""
    dis = subprocess.run(["arm-none-eabi-objdump", "-d", str(elf)], capture_output=True,
                         text=True, check=True).stdout
    out: dict[int, int] = {}
    cond = "(eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?"
    pat = re.compile(r"^\s*([0-9a-f]+):\s+([0-9a-f]{4})( [0-9a-f]{4})?\s+(blx?" + cond +
                     r")(\.[nw])?\s")
    for line in dis.splitlines():
        m = pat.match(line)
        if m:
            out[int(m.group(1), 16)] = 4 if m.group(3) else 2
    return out


_COND = ("eq", "ne", "cs", "cc", "hs", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt",
         "gt", "le", "al")


def _regs(ops: str) -> list[str]:
    """The registers of a list operand "{r4, r5, r6-r8, lr}"."""
    body = ops[ops.find("{") + 1:ops.find("}")]
    out: list[str] = []
    for r in (x.strip() for x in body.split(",") if x.strip()):
        if "-" in r:
            lo, hi = (int(x.strip()[1:]) for x in r.split("-"))
            out += [f"r{i}" for i in range(lo, hi + 1)]
        else:
            out.append(r)
    return out


def _kind(mn: str, ops: str) -> tuple[str, int]:
    """The cycle class of one instruction (Cortex-M3 TRM, ARM DDI 0337I,
    Table 3-1) and its register count for LDM/STM/PUSH/POP."""
    m = mn.split(".")[0]
    base = m[:-2] if len(m) > 2 and m[-2:] in _COND and m[:-2] in (
        "b", "bl", "blx", "bx", "ldr", "str", "ldrb", "strb", "ldrh", "strh", "pop") else m
    if m.startswith("it") and set(m[2:]) <= {"t", "e"}:
        return "it", 0
    if base in ("b", "bl", "blx", "bx", "cbz", "cbnz"):
        return "b", 0
    if base in ("tbb", "tbh"):
        return "tb", 0
    if base in ("ldrd", "strd"):
        return "ldrd", 0
    if base.startswith(("ldm", "stm", "push", "pop")):
        regs = _regs(ops)
        return ("lsm_pc" if "pc" in regs else "lsm"), len(regs)
    if base.startswith("ldr"):
        if ops.split(",")[0].strip() == "pc":
            return "ld_pc", 0
        return ("lit" if "[pc" in ops else "ld"), 0
    if base.startswith("str"):
        return "st", 0
    if base in ("mla", "mls"):
        return "mla", 0
    if base in ("umull", "smull", "umlal", "smlal"):
        return "mull", 0
    if base in ("udiv", "sdiv"):
        return "div", 0
    return "alu", 0


def instructions(elf: Path) -> dict[int, tuple[int, str, int]]:
    """Address -> (length in bytes, cycle class, registers) of every
    instruction of @elf (arm-none-eabi-objdump -d)."""
    dis = subprocess.run(["arm-none-eabi-objdump", "-d", str(elf)], capture_output=True,
                         text=True, check=True).stdout
    pat = re.compile(r"^\s*([0-9a-f]+):\s+([0-9a-f]{4})( [0-9a-f]{4})?\s+(\S+)\s*([^;<]*)")
    out = {}
    for line in dis.splitlines():
        m = pat.match(line)
        if m and not m.group(4).startswith("."):
            kind, n = _kind(m.group(4), m.group(5))
            out[int(m.group(1), 16)] = (4 if m.group(3) else 2, kind, n)
    return out


class _Mix:
    """The instruction mix of a phase, as the cycle model needs it: counts
    per cycle class (a load or store single right after a load single is
    'pipelined', TRM 3.3.2), taken branches (short: the target within 16
    bytes, the STM32 prefetch buffer's two 64-bit lines), and the fetch
    stalls of straight-line runs (cpu.py, cycle_model)."""

    def __init__(self) -> None:
        from .cpu import BASE_CYCLES
        self.base = BASE_CYCLES
        self.n: collections.Counter[str] = collections.Counter()
        self.run_bytes = 0
        self.run_cycles = 0.0

    def add(self, prev: tuple[int, str, int] | None, prev_pc: int, pc: int,
            cur: tuple[int, str, int]) -> None:
        size, kind, regs = cur
        if prev is not None and pc != prev_pc + prev[0]:
            self.n["taken"] += 1
            self.n["taken_short"] += abs(pc - prev_pc) < 16
            self._end_run()
        if kind in ("ld", "st", "lit") and prev is not None and prev[1] in ("ld", "lit") \
                and pc == prev_pc + prev[0]:
            kind += "_p"
        self.n[kind] += 1
        self.n["regs"] += regs
        self.run_bytes += size
        self.run_cycles += self.base[kind] + regs

    def _end_run(self) -> None:
        # a run's first 64-bit line comes with the branch refill; each
        # further one takes 1 + 2 wait states, overlapped with execution
        lines = (self.run_bytes + 7) // 8
        self.n["fetch_stall"] += max(0.0, 3 * (lines - 1) - self.run_cycles)
        self.run_bytes, self.run_cycles = 0, 0.0

    def counts(self) -> dict[str, float]:
        self._end_run()
        return dict(self.n)


def trace(image: str) -> tuple[Path, dict[int, collections.Counter[str]]]:
    """Run @image under qemu with every guest instruction traced; return the
    ARM build tree and, per measured phase, the instructions executed in
    each function. A phase is what runs between two bench_mark() calls:
    the first pair of marks is phase 1, the second pair phase 2, ...; what
    runs between pairs (set-up, warm-up, checks) is not counted."""
    tree = build.arm()
    q = _Qemu(_elf(tree, image))
    phases: dict[int, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    marks = 0
    last = None
    for _, fn in _traces(q.lines()):
        if fn == "bench_mark" and last != "bench_mark":
            marks += 1
        last = fn
        if marks % 2 == 1 and fn != "bench_mark":
            phases[(marks + 1) // 2][fn] += 1
    if q.returncode != 0:
        raise RuntimeError(f"wren_{image}.elf exited {q.returncode} under qemu: "
                           f"{q.output.strip()[-300:]}")
    return tree, dict(phases)


def function_objects(tree: Path, image: str) -> dict[str, str]:
    """Function name -> the object file its code comes from (@image's map)."""
    text = (tree / f"runtime/cortexm/wren_{image}.map").read_text()
    return {sec[len(".text."):]: obj for obj, sec, kind, _ in size.parse_map(text)
            if kind == "rom" and sec.startswith(".text.")}


def function_modules(tree: Path, image: str) -> dict[str, str]:
    """Function name -> the module its code belongs to, from @image's map."""
    return {fn: size._module_of(obj, ".text." + fn) or OTHER
            for fn, obj in function_objects(tree, image).items()}


#: size-report modules -> the layer they are (None: not a layer of their own)
_LAYER_OF_MODULE = {"6LoWPAN": "6Lo", "IPv6": "IPv6", "ICMPv6": "IPv6",
                    "6LoWPAN-ND (NIB)": "IPv6", "UDP": "UDP", "sock": "UDP",
                    "802.15.4 (frames + link)": "link"}
#: object files whose functions are a layer's although their module is not
_LAYER_OF_OBJECT = {"netif.c": "link", "loopback.c": "link", "inet_csum.c": None}


def function_layers(tree: Path, image: str) -> dict[str, str | None]:
    """Function name -> the layer it is an entry of, or None (pktbuf, netapi,
    scheduler, checksum, libc: charged to whoever calls them)."""
    objs = function_objects(tree, image)
    mods = function_modules(tree, image)
    return {fn: _LAYER_OF_OBJECT[obj] if obj in _LAYER_OF_OBJECT
            else _LAYER_OF_MODULE.get(mods[fn]) for fn, obj in objs.items()}


@dataclass
class Phase:
    """What one measured phase executed."""
    instructions: int
    functions: collections.Counter[str]
    layers: collections.Counter[str]   # inclusive, by LAYER_RULE; + "rest"
    mix: dict[str, float] = dataclasses.field(default_factory=dict)  # _Mix.counts()


class _Stack:
    """The call stack rebuilt from the trace: per frame its return address
    and the layer it runs for (None: none of its own)."""

    def __init__(self, calls_: dict[int, int], layer_of: dict[str, str | None]):
        self.calls = calls_
        self.layer_of = layer_of
        self.ret: list[int] = [-1]
        self.lay: list[str | None] = [None]
        self.layer: str | None = None   # the innermost layer on the stack
        self.prev_pc = -1
        self.prev_fn = ""

    def step(self, pc: int, fn: str) -> str | None:
        """Advance to the instruction at @pc in @fn; the layer it runs for."""
        n = self.calls.get(self.prev_pc)
        if n is not None and pc != self.prev_pc + n:
            self.ret.append(self.prev_pc + n)
            self.lay.append(self.layer_of.get(fn))
            self._innermost()
        elif fn != self.prev_fn:
            if pc in self.ret[1:]:
                k = len(self.ret) - 1 - self.ret[::-1].index(pc)
                del self.ret[k:], self.lay[k:]
            elif self.layer_of.get(fn) is not None:
                # a tail call or a jump into another function: the frame
                # becomes that function's layer
                self.lay[-1] = self.layer_of[fn]
            self._innermost()
        self.prev_pc, self.prev_fn = pc, fn
        return self.layer

    def _innermost(self) -> None:
        self.layer = next((x for x in reversed(self.lay) if x is not None), None)


def _phases(lines: Iterator[str], calls_: dict[int, int], layer_of: dict[str, str | None],
            insns: dict[int, tuple[int, str, int]]) -> list[Phase]:
    stack = _Stack(calls_, layer_of)
    mix = _Mix()
    prev: tuple[int, str, int] | None = None
    out: list[Phase] = []
    marks = 0
    prev_pc = -1
    pending = 0     # instructions with no layer on the stack, not yet charged
    cur: Phase | None = None
    for pc, fn in _traces(lines):
        if fn == "bench_mark" and stack.prev_fn != "bench_mark":
            marks += 1
            if marks % 2 == 1:
                cur = Phase(0, collections.Counter(), collections.Counter())
                mix, prev = _Mix(), None
            elif cur is not None:
                cur.layers["rest"] += pending
                cur.mix = mix.counts()
                pending = 0
                out.append(cur)
                cur = None
        lay = stack.step(pc, fn)
        if cur is None or fn == "bench_mark":
            continue
        ins = insns[pc]
        mix.add(prev, prev_pc, pc, ins)
        prev, prev_pc = ins, pc
        cur.instructions += 1
        cur.functions[fn] += 1
        if lay is None:
            pending += 1
        else:
            cur.layers[lay] += 1 + pending
            pending = 0
    return out


@dataclass
class UdpM3:
    """Cortex-M3 instructions per datagram at one payload size."""
    size: int
    total: float
    modules: dict[str, float]     # exclusive, by the size report's modules
    layers: dict[str, float]      # inclusive (LAYER_RULE): LAYERS + "rest"
    functions: dict[str, float]
    mix: dict[str, float]         # the instruction mix (_Mix), for cpu.cycle_model


def _measure(tree: Path, image: str) -> dict[int, UdpM3]:
    elf = _elf(tree, image)
    layer_of = function_layers(tree, image)
    mods = function_modules(tree, image)
    q = _Qemu(elf)
    phases = _phases(q.lines(), calls(elf), layer_of, instructions(elf))
    text = q.output
    if q.returncode != 0:
        raise RuntimeError(f"wren_{image}.elf failed under qemu: {text.strip()[-300:]}")
    m = re.search(r"^sizes:((?: \d+)+)$", text, re.M)
    r = re.search(r"^measured: (\d+) datagrams per size$", text, re.M)
    if m is None or r is None:
        raise RuntimeError(f"wren_{image}.elf printed no size list: {text.strip()[-300:]}")
    sizes = [int(x) for x in m.group(1).split()]
    reps = int(r.group(1))
    if len(phases) != len(sizes):
        raise RuntimeError(f"wren_{image}.elf: {len(sizes)} sizes, {len(phases)} phases traced")
    out = {}
    for s, ph in zip(sizes, phases):
        per_mod: collections.Counter[str] = collections.Counter()
        for fn, n in ph.functions.items():
            per_mod[mods.get(fn, OTHER)] += n
        out[s] = UdpM3(s, ph.instructions / reps,
                       {k: v / reps for k, v in per_mod.most_common()},
                       {k: ph.layers.get(k, 0) / reps for k in (*LAYERS, "rest")},
                       {k: v / reps for k, v in ph.functions.most_common()},
                       {k: v / reps for k, v in ph.mix.items()})
    return out


def _cache_file(tree: Path, image: str) -> tuple[Path, str]:
    digest = hashlib.sha256(_elf(tree, image).read_bytes()).hexdigest()
    return tree / f"runtime/cortexm/wren_{image}.m3counts.json", digest


@functools.cache
def udp(mode: str) -> dict[int, UdpM3]:
    """{payload size: UdpM3} of bench_udp's @mode ("loopback" or "pipe") on
    the Cortex-M3: one traced qemu run of its image, cached in the process
    and on disk keyed by the image's hash."""
    if mode not in IMAGES:
        raise ValueError(f"unknown UDP path {mode!r}: one of {', '.join(IMAGES)}")
    if not shutil.which("qemu-system-arm"):
        raise RuntimeError("qemu-system-arm is not installed (apt-get install qemu-system-arm)")
    tree = build.arm()
    image = IMAGES[mode]
    path, digest = _cache_file(tree, image)
    # the cache is checked against what this code would write (LAYER_RULE)
    key = hashlib.sha256((digest + LAYER_RULE + _CACHE_VERSION).encode()).hexdigest()
    if path.exists():
        data = json.loads(path.read_text())
        if data.get("key") == key:
            return {int(s): UdpM3(**v) for s, v in data["sizes"].items()}
    res = _measure(tree, image)
    path.write_text(json.dumps({"key": key, "sizes": {s: vars(v) for s, v in res.items()}}))
    return res


def run() -> tuple[float, dict[str, float]] | None:
    """Instructions of a 20-byte datagram over the IPv6 loopback on the
    Cortex-M3 and their split by module, or None when qemu is not
    installed."""
    if not shutil.which("qemu-system-arm"):
        return None
    r = udp("loopback")[20]
    return r.total, r.modules
