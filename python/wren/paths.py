"""Where things live in the repository and its build trees.

WREN_ROOT overrides the repository (the default is the tree this package
sits in: scripts/bootstrap.sh installs it editable); WREN_BUILD overrides the
host build tree (default build/), so tests and ./wren can run against a
build of their own: `WREN_BUILD=/tmp/b ./wren sim ...` builds and uses
/tmp/b. WREN_LIB, read by wren.lib, names the simulator library itself.
"""
import os
from pathlib import Path


def _dir(env: str, default: Path) -> Path:
    value = os.environ.get(env)
    return Path(value).resolve() if value else default


ROOT: Path = _dir("WREN_ROOT", Path(__file__).resolve().parents[2])
SRC: Path = ROOT / "src"
BUILD: Path = _dir("WREN_BUILD", ROOT / "build")
BUILD_ASAN: Path = ROOT / "build-asan"
BUILD_FUZZ: Path = ROOT / "build-fuzz"
BUILD_ARM: Path = ROOT / "build-arm"
OUT: Path = ROOT / "out"
SCENARIOS: Path = ROOT / "scenarios"
