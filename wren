#!/bin/sh
# wren's one command: ./wren demo | test | sim | bench | size | reproduce | build (./wren -h)
set -e
ROOT=$(cd "$(dirname "$0")" && pwd)
"$ROOT/scripts/bootstrap.sh" "${1:-demo}"
# malloc's heap in transparent huge pages where the kernel allows them (madvise
# mode): a 10,000-node simulation touches ~350 MB at random, and each event
# then costs 15-20 % less in TLB misses (docs/architecture.md, "Simulator
# speed"); results do not depend on it
GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.malloc.hugetlb=1" \
PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}" exec "$ROOT/.venv/bin/python" -m wren.cli "$@"
