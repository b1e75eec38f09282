#!/bin/sh
# Make sure what a ./wren command needs is on this machine: Debian packages
# (installed when running as root, else a one-line hint) and the Python venv.
# Usage: scripts/bootstrap.sh [demo|test|...]
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:-demo}

base="cmake ninja-build gcc libc6-dev pkg-config libcmocka-dev python3 python3-venv"
full="$base tshark clang libclang-rt-14-dev gcc-arm-none-eabi libnewlib-arm-none-eabi binutils-arm-none-eabi valgrind qemu-system-arm iproute2 iputils-ping radvd"
case "$cmd" in
    test|size|bench|fuzz) want=$full ;;
    *) want=$base ;;
esac

missing=""
for p in $want; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "wren: installing Debian packages:$missing" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2
        # tshark asks whether non-root users may capture; answer no
        echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
        apt-get install -y -qq --no-install-recommends $missing >&2
    else
        echo "wren: missing Debian packages:$missing (run: sudo apt-get install$missing)" >&2
        exit 1
    fi
fi

venv="$ROOT/.venv"
stamp="$venv/.wren-requirements"
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$ROOT/python/requirements.txt" "$stamp"; then
    echo "wren: preparing the Python venv in .venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$ROOT/python/requirements.txt" >&2
    cp "$ROOT/python/requirements.txt" "$stamp"
fi
