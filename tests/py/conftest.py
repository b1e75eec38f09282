"""Fixtures and helpers shared by the Python tests.

Whatever a fixture creates is released at its teardown, also when the test
fails:

  sim, sim_factory  simulated networks; after a test that passed, each runs
                    on (5 s, or 0.5 s of wall-clock time with a ZEP bridge)
                    and every node's packet buffer must then be empty and
                    consistent (wren_sim_pktbufs_clean); they are freed in
                    any case
  netns             a network namespace (needs root), deleted with every
                    process started in it
  tapns             a namespace with a TAP device tap0, up; the processes in
                    it are stopped, tap0 deleted, then the namespace
  host_procs        processes on this host, outside any namespace
  wren_node         a factory of wren-node processes (WrenNode), killed and
                    waited for

Tests that run against the wall clock (real processes, ZEP, TAP: any test
using host_ok, host_procs or wren_node, and modules marked realtime) get the
marker `realtime`; ./wren test runs the others side by side (pytest-xdist)
and these afterwards, alone, so that load from other tests cannot make them
miss their deadlines.

WREN_BUILD selects the build tree (wren-node, wren-zep-hub and, unless
WREN_LIB names one, libwren_sim.so): see python/wren/paths.py.
"""
import itertools
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from wren import paths
from wren.lib import Sim
from wren.shellproc import ShellProcess

ROOT: Path = paths.ROOT
BUILD: Path = paths.BUILD
NODE: Path = BUILD / "wren-node"
HUB: Path = BUILD / "wren-zep-hub"

_CALL_FAILED = pytest.StashKey[bool]()
_ns_counter = itertools.count()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Remember whether a test's call failed: teardowns then only release
    what it made, without checks that would repeat its failure."""
    rep = yield
    if rep.when == "call":
        item.stash[_CALL_FAILED] = rep.failed
    return rep


#: Fixtures that make a test wall-clock bound (see the module docstring).
_REALTIME_FIXTURES = {"host_ok", "host_procs", "wren_node"}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "realtime: runs against the wall clock; "
                            "./wren test runs it alone, after the parallel part")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _REALTIME_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.realtime)


def call_failed(request: pytest.FixtureRequest) -> bool:
    return request.node.stash.get(_CALL_FAILED, False)


# ---- simulated networks ---------------------------------------------------

@pytest.fixture
def sim_factory(request: pytest.FixtureRequest) -> Iterator[Callable[..., Sim]]:
    """make(seed=1) -> Sim. At teardown, after a test that passed, every
    Sim runs on and must have every packet buffer empty; all are freed."""
    made: list[Sim] = []

    def make(seed: int = 1) -> Sim:
        s = Sim(seed)
        made.append(s)
        return s
    yield make
    dirty = []
    try:
        if not call_failed(request):
            for i, s in enumerate(made):
                if not s.h:
                    continue  # the test freed it
                if s.bridged:
                    s.run_realtime(0.5)
                else:
                    s.run(s.now + 5.0)
                if not s.pktbufs_clean():
                    dirty.append(i)
    finally:
        for s in made:
            s.close()
    assert not dirty, f"a packet buffer is not empty at the end (sims {dirty})"


@pytest.fixture
def sim(sim_factory: Callable[..., Sim]) -> Sim:
    """A Sim with seed 1 (sim_factory's checks and cleanup)."""
    return sim_factory(1)


# ---- processes, namespaces, TAP devices ----------------------------------

def stop_process(p: "subprocess.Popen[Any]", grace: float = 5.0) -> None:
    """Stop @p if it still runs (SIGTERM, SIGKILL after @grace seconds; at
    once with grace 0), wait for it and close its pipes."""
    if p.poll() is None:
        if grace > 0:
            p.terminate()
            try:
                p.wait(grace)
            except subprocess.TimeoutExpired:
                pass
        if p.poll() is None:
            p.kill()
    p.wait()
    for f in (p.stdin, p.stdout, p.stderr):
        if f:
            try:
                f.close()
            except OSError:
                pass  # (a broken pipe flushing stdin)


class Procs:
    """Processes a test started, run through @prefix (a namespace's `ip
    netns exec NAME`, or nothing); stop_all() stops every one still running."""

    def __init__(self, prefix: Sequence[str] = ()) -> None:
        self.prefix = list(prefix)
        self.stoppers: list[Callable[[], None]] = []

    def popen(self, *cmd: object, track: bool = True, **kw: Any) -> "subprocess.Popen[Any]":
        # ip netns exec execs the command: the child's pid is the program's
        p = subprocess.Popen([*self.prefix, *map(str, cmd)], **kw)
        if track:
            self.track(lambda: stop_process(p))
        return p

    def track(self, stop: Callable[[], None]) -> None:
        self.stoppers.append(stop)

    def run(self, *cmd: object, check: bool = False,
            timeout: float = 60) -> "subprocess.CompletedProcess[str]":
        return subprocess.run([*self.prefix, *map(str, cmd)], capture_output=True, text=True,
                              check=check, timeout=timeout)

    def stop_all(self) -> None:
        while self.stoppers:
            self.stoppers.pop()()


class Netns(Procs):
    """A network namespace and the processes started in it."""

    def __init__(self, name: str) -> None:
        super().__init__(["ip", "netns", "exec", name])
        self.name = name

    def ip(self, *args: object, check: bool = True) -> "subprocess.CompletedProcess[str]":
        return subprocess.run(["ip", "-n", self.name, *map(str, args)], capture_output=True,
                              text=True, check=check, timeout=30)

    def wait_listening(self, port: int, udp: bool = False, timeout: float = 20.0) -> None:
        """Until a socket in the namespace listens on TCP (or is bound to
        UDP) @port. A server started with popen is not ready at once, and a
        probe with coap-client cannot tell: libcoap 4.3's coap-client exits
        0 when the connection is refused or the port unreachable."""
        deadline = time.monotonic() + timeout
        while not self.run("ss", "-H", "-lnu" if udp else "-lnt", f"sport = :{port}").stdout:
            assert time.monotonic() < deadline, \
                f"nothing listens on {'UDP' if udp else 'TCP'} port {port} in {self.name}"
            time.sleep(0.05)


def _why_no_host() -> str | None:
    if not sys.platform.startswith("linux"):
        return "Linux only (TAP, network namespaces)"
    if os.geteuid() != 0:
        return "needs root: network namespaces and TAP devices"
    if shutil.which("ip") is None:
        return "iproute2 ('ip') is not installed"
    if not NODE.exists() or not HUB.exists():
        return f"build wren-node and wren-zep-hub first ({BUILD})"
    probe = f"wren-probe-{os.getpid()}"
    res = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if res.returncode != 0:
        return f"'ip netns' is unavailable: {res.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


@pytest.fixture(scope="session")
def host_ok() -> None:
    """Skip unless namespaces, TAP devices and the host programs are there."""
    why = _why_no_host()
    if why:
        pytest.skip(why)


@pytest.fixture
def netns(host_ok: None) -> Iterator[Netns]:
    """A fresh network namespace with lo up; at teardown every process
    started in it is stopped and the namespace deleted."""
    name = f"wren-{os.getpid()}-{next(_ns_counter)}"
    subprocess.run(["ip", "netns", "add", name], check=True, capture_output=True)
    ns = Netns(name)
    try:
        ns.ip("link", "set", "lo", "up")
        yield ns
    finally:
        try:
            ns.stop_all()
        finally:
            subprocess.run(["ip", "netns", "del", name], capture_output=True)


@pytest.fixture
def tapns(netns: Netns) -> Iterator[Netns]:
    """netns with a persistent TAP interface tap0, up; at teardown the
    processes in the namespace are stopped (nothing holds tap0 any more)
    and tap0 is deleted before the namespace."""
    netns.ip("tuntap", "add", "dev", "tap0", "mode", "tap")
    try:
        netns.ip("link", "set", "tap0", "up")
        yield netns
    finally:
        try:
            netns.stop_all()
        finally:
            netns.ip("tuntap", "del", "dev", "tap0", "mode", "tap", check=False)


@pytest.fixture
def host_procs() -> Iterator[Procs]:
    """Processes on this host (no namespace), stopped at teardown."""
    procs = Procs()
    try:
        yield procs
    finally:
        procs.stop_all()


class WrenNode(ShellProcess):
    """A wren-node process driven through its shell on stdin."""

    def __init__(self, procs: Procs, *args: object) -> None:
        super().__init__(procs.popen(NODE, *args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1, track=False))
        procs.track(self.stop)

    def failure_context(self) -> str:
        return self.stderr_now()

    def stderr_now(self) -> str:
        if self.p.poll() is None or self.p.stderr is None or self.p.stderr.closed:
            return ""
        return str(self.p.stderr.read())

    def wait_valid(self, addr: str, timeout: float = 15.0) -> None:
        """Wait until DAD made @addr valid (no longer TENTATIVE)."""
        deadline = time.monotonic() + timeout
        while True:
            out = self.run("ifconfig", r"drops:")
            if re.search(rf"inet6 addr: {re.escape(addr)}/\d+  scope: \w+\n", out):
                return
            assert time.monotonic() < deadline, f"{addr} never became valid:\n{out}"
            time.sleep(0.2)

    def pktbuf_empty(self, wait_s: float = 5.0) -> bool:
        """Whether the packet buffer is empty at some look within @wait_s
        (quiescent: in-flight work, a reply, a retransmission, gets time)."""
        deadline = time.monotonic() + wait_s
        while True:
            out = self.run("pktbuf", r"packet buffer:")
            if re.search(r", 0 in use \(0 snips\)", out):
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.1)

    def exit(self) -> int:
        """The shell's exit; the process's exit status."""
        self._write("exit\n")
        return self.p.wait(10)

    def stop(self) -> None:
        """Kill the process if it still runs and wait for it (idempotent)."""
        stop_process(self.p, grace=0)
        self.t.join(5)


@pytest.fixture
def wren_node() -> Iterator[Callable[..., WrenNode]]:
    """start(*args, ns=None) -> WrenNode: wren-node with @args, in the
    namespace @ns or on this host; every one is killed and waited for at
    teardown (after the test's own orderly exits)."""
    if not NODE.exists():
        pytest.skip(f"build wren-node first ({NODE})")
    host = Procs()
    nodes: list[WrenNode] = []

    def start(*args: object, ns: Procs | None = None) -> WrenNode:
        node = WrenNode(ns if ns is not None else host, *args)
        nodes.append(node)
        return node
    try:
        yield start
    finally:
        for node in reversed(nodes):
            node.stop()
        host.stop_all()


# ---- tools ----------------------------------------------------------------

def parse_stats(text: str) -> dict[str, int]:
    """'set.counter' -> value for every counter the shell's `stats` printed: a
    set's first line 'set: name value ...', then its indented lines."""
    values, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^(\w+):(.*)$", line)
        if m:
            current, rest = m.group(1), m.group(2)
        elif current and line.startswith("   "):
            rest = line
        else:
            continue
        for name, value in re.findall(r"(\w+) (\d+)", rest):
            values[f"{current}.{name}"] = int(value)
    return values


def tshark_fields(pcap: str | Path, *fields: str, extra: Sequence[str] = ()) -> list[list[str]]:
    """Rows of the given tshark fields, one per frame. IRC is switched off:
    tshark registers it on TCP port 57000, inside Linux's ephemeral port
    range, and then reads a test's TCP payload as malformed IRC."""
    if not shutil.which("tshark"):
        pytest.skip("tshark not installed")
    cmd = ["tshark", "-r", str(pcap), "-T", "fields", "--disable-protocol", "irc", *extra]
    for f in fields:
        cmd += ["-e", f]
    res = subprocess.run(cmd, capture_output=True, text=True, check=True,
                         env={**os.environ, "HOME": "/tmp"})
    return [line.split("\t") for line in res.stdout.splitlines()]
