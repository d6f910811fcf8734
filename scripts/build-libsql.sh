#!/usr/bin/env bash
# build-libsql.sh — build rust/libsql-capi, manydb's C ABI over libSQL's
# Rust SDK (crate libsql 0.10.0 from crates.io, local files only, with its
# bundled libSQL C library from libsql-ffi), for the libsql engine's worker.
#
# Runs cargo build --release --locked; the crates are downloaded by cargo
# into its own cache and the library is built into
# third_party/libsql-capi/target (git-ignored). A clean build takes ~2.5
# minutes on 2 cores with the crates already downloaded (most of it
# compiling libSQL's sqlite3.c, and bindgen, a build dependency of
# libsql-ffi that is compiled but not run); later builds only relink when
# nothing changed.
#
# Exit status: 0 when the library is there; 0 with ONE line on stdout saying
# why when it cannot be built (no cargo, build failed, e.g. offline), after
# removing a stale library: the Makefile can then skip the worker that
# needs it and build the rest.
#
# Usage: scripts/build-libsql.sh   (run from the repository root)
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CRATE="$ROOT/rust/libsql-capi"
TARGET="$ROOT/third_party/libsql-capi/target"
LIB="$TARGET/release/libmanydb_libsql_capi.a"

command -v cargo >/dev/null 2>&1 || {
	rm -f "$LIB"
	echo "libsql: cargo not found; the libsql worker is not built (needs Rust's cargo to build the libsql crates from crates.io)"
	exit 0
}
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
if ! CARGO_TARGET_DIR="$TARGET" cargo build --release --locked --manifest-path "$CRATE/Cargo.toml" >"$LOG" 2>&1; then
	rm -f "$LIB"
	echo "libsql: cargo build failed ($(grep -m1 -i 'error' "$LOG" || tail -n1 "$LOG")); the libsql worker is not built"
	exit 0
fi
