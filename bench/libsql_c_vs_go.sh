#!/usr/bin/env bash
# manydb's libSQL open phase against a C program making the same calls to
# the same library: bench/sqlite_bench.c linked with rust/libsql-capi's
# static library (libSQL's C library inside the crate libsql 0.10), against
# libsql_capi (the same C calls through cgo) and libsql (the Rust SDK).
# Usage: [SETTING=name] [BIN=dir] bench/libsql_c_vs_go.sh [STORES] [RUNS]   (defaults 200, 150)
# SETTING, BIN: as for bench/c_vs_go.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
stores=${1:-200}
runs=${2:-150}
bin=${BIN:-bin}
setting=${SETTING:-default}
lib=third_party/libsql-capi/target/release/libmanydb_libsql_capi.a
[ -f "$lib" ] || { echo "libsql_c_vs_go: $lib is missing: run make build (it needs cargo)"; exit 0; }
# Only SQLite's declarations are taken from mattn's header: the functions
# are libSQL's, from the static library.
header=$(go list -m -f '{{.Dir}}' github.com/mattn/go-sqlite3)
gcc -O2 -std=gnu99 -I"$header" -o bench/libsql_bench bench/sqlite_bench.c "$lib" -ldl -lgcc_s -lutil -lrt -lpthread -lm
root=$(mktemp -d /tmp/manydb-libsql-bench.XXXXXX)
trap 'rm -rf "$root"' EXIT
dir="$root/libsql"
mkdir -p "$dir"
echo "creating $stores stores in $dir …" >&2
"$bin/worker-libsql" --variant libsql_capi --phase create --dir "$dir" --stores "$stores" >/dev/null
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
go build -o "$root/cvsgo" ./bench/cvsgo
"$root/cvsgo" --c bench/libsql_bench --worker "$bin/worker-libsql" --variant libsql_capi --dir "$dir" --stores "$stores" --runs "$runs" --setting "$setting"
"$root/cvsgo" --c bench/libsql_bench --worker "$bin/worker-libsql" --variant libsql --dir "$dir" --stores "$stores" --runs "$runs" --setting "$setting"
