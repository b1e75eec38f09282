import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def sim_factory():
    """Create Sims and, when the test ends, check every node's packet buffer
    drained back to empty, then free them."""
    from wren.lib import Sim
    made = []

    def make(seed=1):
        s = Sim(seed)
        made.append(s)
        return s
    yield make
    for s in made:
        if s.h:
            s.run(s.now + 5.0)
            assert s.pktbufs_clean(), "a packet buffer is not empty at the end"
            s.close()


def tshark_fields(pcap, *fields, extra=()):
    """Rows of the given tshark fields, one per frame."""
    if not shutil.which("tshark"):
        pytest.skip("tshark not installed")
    cmd = ["tshark", "-r", str(pcap), "-T", "fields", *extra]
    for f in fields:
        cmd += ["-e", f]
    res = subprocess.run(cmd, capture_output=True, text=True, check=True,
                         env={**os.environ, "HOME": "/tmp"})
    return [line.split("\t") for line in res.stdout.splitlines()]
