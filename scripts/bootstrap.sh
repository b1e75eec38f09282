#!/bin/sh
# Make sure what a ./wren command needs is on this machine: Debian packages
# (installed when running as root, else a one-line hint) and the Python venv.
# Usage: scripts/bootstrap.sh [demo|test|...]
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:-demo}

base="cmake ninja-build gcc libc6-dev pkg-config libcmocka-dev python3 python3-venv"
full="$base tshark clang libclang-rt-14-dev gcc-arm-none-eabi libnewlib-arm-none-eabi binutils-arm-none-eabi valgrind qemu-system-arm iproute2 iputils-ping radvd libcoap3-bin liblwip-dev"
case "$cmd" in
    test|size|bench|fuzz|reproduce) want=$full ;;
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

# The venv holds the pinned requirements and the front end itself (package
# wren, python/pyproject.toml), installed editable so ./wren runs the tree's
# code. The stamp is what the install was made from: it is redone when
# python/requirements.txt or python/pyproject.toml change.
venv="$ROOT/.venv"
stamp="$venv/.wren-install"
req="$ROOT/python/requirements.txt"
proj="$ROOT/python/pyproject.toml"
if [ ! -x "$venv/bin/python" ] || ! cat "$req" "$proj" | cmp -s - "$stamp"; then
    echo "wren: preparing the Python venv in .venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$req" -e "$ROOT/python" >&2
    cat "$req" "$proj" > "$stamp"
    rm -f "$venv/.wren-requirements"   # the stamp's former name
fi
