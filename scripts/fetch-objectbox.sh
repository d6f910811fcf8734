#!/usr/bin/env bash
# fetch-objectbox.sh — install the ObjectBox C library for worker-objectbox.
#
# The library (libobjectbox.so) ships in PyPI's objectbox-clib wheel. This
# script downloads that wheel with pip, unpacks the library into
# third_party/objectbox/lib/ (git-ignored) and checks its version. It does
# nothing when the right version is already there.
#
# Exit status: 0 when the library is there (or was installed); 0 with ONE
# line on stdout saying why when it cannot be had (no python3/pip, no
# network): the Makefile then skips worker-objectbox and builds the rest.
# A library of the wrong version is an error (exit 1).
#
# Usage: scripts/fetch-objectbox.sh   (run from the repository root;
#        make build calls it)
set -euo pipefail

VERSION=5.3.2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEST="$ROOT/third_party/objectbox/lib"
LIB="$DEST/libobjectbox.so"
STAMP="$DEST/VERSION"

# skip prints the one line explaining why the library is missing, and exits 0.
skip() {
	echo "objectbox: $1; worker-objectbox is not built (needs objectbox-clib==$VERSION from PyPI)"
	exit 0
}

if [[ -f "$LIB" && -f "$STAMP" && "$(cat "$STAMP")" == "$VERSION" ]]; then
	exit 0
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=scripts/wheel.sh
source "$ROOT/scripts/wheel.sh"
unpack_wheel "objectbox-clib==$VERSION" "objectbox_clib-$VERSION" "$TMP/x" --platform manylinux_2_28_x86_64
SO="$TMP/x/objectbox_clib/lib/x86_64/libobjectbox.so"
[[ -f "$SO" ]] || skip "the wheel holds no objectbox_clib/lib/x86_64/libobjectbox.so"

# The library's own version string (obx_version_string), e.g. "5.3.2".
GOT=$("$PY" -c 'import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.obx_version_string.restype = ctypes.c_char_p
print(lib.obx_version_string().decode())' "$SO" 2>&1 || true)
if [[ "$GOT" != "$VERSION" ]]; then
	echo "objectbox: the wheel's libobjectbox.so reports version '$GOT', want $VERSION" >&2
	exit 1
fi

mkdir -p "$DEST"
install -m 0755 "$SO" "$LIB"
echo "$VERSION" >"$STAMP"
echo "objectbox: installed libobjectbox.so $GOT into ${DEST#"$ROOT/"}"
