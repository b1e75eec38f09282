"""Where things live in the repository and its build trees."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build"
BUILD_ASAN = ROOT / "build-asan"
BUILD_FUZZ = ROOT / "build-fuzz"
BUILD_ARM = ROOT / "build-arm"
OUT = ROOT / "out"
SCENARIOS = ROOT / "scenarios"
