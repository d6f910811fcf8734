#!/usr/bin/env bash
# build-capi.sh NAME — build rust/NAME-capi, one of manydb's small C ABIs
# over a Rust engine, for its worker:
#   turso   rust/turso-capi: Turso Database (crates turso_sdk_kit and
#           turso_core); a clean build takes ~5-6 minutes on 2 cores
#   libsql  rust/libsql-capi: libSQL's Rust SDK (crate libsql, local files
#           only, with libSQL's C library from libsql-ffi); ~2.5 minutes
#           with the crates already downloaded
# Later builds only relink when nothing changed.
#
# Runs cargo build --release --locked (the crate's committed Cargo.lock);
# cargo downloads the crates into its own cache and builds the static
# library into third_party/NAME-capi/target (git-ignored).
#
# Exit status: 0 when the library is there; 0 with ONE line on stdout
# saying why when it cannot be built (no cargo, build failed, e.g.
# offline), after removing a stale library: the worker is then built
# without the engine (its variants say how to enable it). 2 for a bad NAME.
#
# Usage: scripts/build-capi.sh turso|libsql   (make build calls it)
set -uo pipefail

NAME=${1:-}
case "$NAME" in
turso | libsql) ;;
*)
	echo "usage: scripts/build-capi.sh turso|libsql" >&2
	exit 2
	;;
esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CRATE="$ROOT/rust/$NAME-capi"
TARGET="$ROOT/third_party/$NAME-capi/target"
LIB="$TARGET/release/libmanydb_${NAME}_capi.a"

command -v cargo >/dev/null 2>&1 || {
	rm -f "$LIB"
	echo "$NAME: cargo not found; worker-$NAME is built without it (needs Rust's cargo to build rust/$NAME-capi from crates.io)"
	exit 0
}
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
case "$NAME" in
turso) TAKES="about 5-6 minutes on 2 cores" ;;
libsql) TAKES="about 2-3 minutes on 2 cores, more when crates are downloaded" ;;
esac
# Say what is built when it is not up to date (a clean build, or sources
# newer than the library), and show progress while cargo works.
if [ ! -f "$LIB" ] || [ -n "$(find "$CRATE" -newer "$LIB" -type f -not -path '*/target/*' -print -quit)" ]; then
	echo "$NAME: building rust/$NAME-capi with cargo (a clean build takes $TAKES); progress every 30 s"
	SHOW_PROGRESS=1
else
	SHOW_PROGRESS=0
fi
CARGO_TARGET_DIR="$TARGET" cargo build --release --locked --manifest-path "$CRATE/Cargo.toml" >"$LOG" 2>&1 &
CARGO=$!
START=$SECONDS
while kill -0 "$CARGO" 2>/dev/null; do
	for _ in $(seq 30); do
		sleep 1
		kill -0 "$CARGO" 2>/dev/null || break
	done
	if [ "$SHOW_PROGRESS" = 1 ] && kill -0 "$CARGO" 2>/dev/null; then
		n=$(grep -c '^ *Compiling ' "$LOG")
		last=$(grep '^ *\(Compiling\|Downloaded\) ' "$LOG" | tail -n1 | sed 's/^ *//')
		echo "$NAME: $((SECONDS - START)) s, $n crates compiled${last:+ (last: $last)}"
	fi
done
if ! wait "$CARGO"; then
	rm -f "$LIB"
	echo "$NAME: cargo build failed ($(grep -m1 -i 'error' "$LOG" || tail -n1 "$LOG")); worker-$NAME is built without it"
	exit 0
fi
