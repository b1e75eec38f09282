#!/bin/sh
# wren's one command: ./wren demo | test | sim | bench | size | reproduce | build (./wren -h)
set -e
ROOT=$(cd "$(dirname "$0")" && pwd)
"$ROOT/scripts/bootstrap.sh" "${1:-demo}"
PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}" exec "$ROOT/.venv/bin/python" -m wren.cli "$@"
