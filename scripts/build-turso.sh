#!/usr/bin/env bash
# build-turso.sh — build rust/turso-capi, manydb's C ABI over Turso
# Database (crates turso_sdk_kit/turso_core from crates.io), for
# worker-turso.
#
# Runs cargo build --release --locked; the crates are downloaded by cargo
# into its own cache and the library is built into
# third_party/turso-capi/target (git-ignored). A clean build takes ~5-6
# minutes on 2 cores; later builds only relink when nothing changed.
#
# Exit status: 0 when the library is there; 0 with ONE line on stdout saying
# why when it cannot be built (no cargo, build failed, e.g. offline): the
# Makefile then skips worker-turso and builds the rest.
#
# Usage: scripts/build-turso.sh   (run from the repository root;
#        make build calls it)
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CRATE="$ROOT/rust/turso-capi"
TARGET="$ROOT/third_party/turso-capi/target"
LIB="$TARGET/release/libmanydb_turso_capi.a"

command -v cargo >/dev/null 2>&1 || {
	rm -f "$LIB"
	echo "turso: cargo not found; worker-turso is not built (needs Rust's cargo to build the turso crates from crates.io)"
	exit 0
}
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
if ! CARGO_TARGET_DIR="$TARGET" cargo build --release --locked --manifest-path "$CRATE/Cargo.toml" >"$LOG" 2>&1; then
	rm -f "$LIB"
	echo "turso: cargo build failed ($(grep -m1 -i 'error' "$LOG" || tail -n1 "$LOG")); worker-turso is not built"
	exit 0
fi
