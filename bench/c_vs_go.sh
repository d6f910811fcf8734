#!/usr/bin/env bash
# manydb's SQLite open phase against a C program with the same amalgamation:
# sqlite_capi (the same C calls through cgo) and sqlite (mattn's driver).
# Usage: [SETTING=name] [BIN=dir] bench/c_vs_go.sh [STORES] [RUNS]   (defaults 200, 150)
# SETTING (default: default) is a manydb setting, e.g. trim-threshold or
# jemalloc: both programs run under its malloc environment. BIN (default:
# bin) is where the workers are, to compare another build's.
# Short runs, many of them: docs/benchmarks.md says why.
set -euo pipefail
cd "$(dirname "$0")/.."
stores=${1:-200}
runs=${2:-150}
bin=${BIN:-bin}
setting=${SETTING:-default}
amalgamation=$(go list -m -f '{{.Dir}}' github.com/mattn/go-sqlite3)
# The compile options of mattn/go-sqlite3's cgo CFLAGS (sqlite3.go), -O2 as cgo.
gcc -O2 -std=gnu99 -DSQLITE_ENABLE_RTREE -DSQLITE_THREADSAFE=1 -DHAVE_USLEEP=1 \
  -DSQLITE_ENABLE_FTS3 -DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_TRACE_SIZE_LIMIT=15 \
  -DSQLITE_OMIT_DEPRECATED -DSQLITE_DEFAULT_WAL_SYNCHRONOUS=1 -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT \
  -Wno-deprecated-declarations -I"$amalgamation" \
  -o bench/sqlite_bench bench/sqlite_bench.c "$amalgamation/sqlite3-binding.c" -lpthread -ldl -lm
root=$(mktemp -d /tmp/manydb-bench.XXXXXX)
trap 'rm -rf "$root"' EXIT
dir="$root/sqlite"
mkdir -p "$dir"
echo "creating $stores stores in $dir …" >&2
"$bin/worker-sqlite" --variant sqlite --phase create --dir "$dir" --stores "$stores" >/dev/null
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
go build -o "$root/cvsgo" ./bench/cvsgo
"$root/cvsgo" --c bench/sqlite_bench --worker "$bin/worker-sqlite" --variant sqlite_capi --dir "$dir" --stores "$stores" --runs "$runs" --setting "$setting"
"$root/cvsgo" --c bench/sqlite_bench --worker "$bin/worker-sqlite" --variant sqlite --dir "$dir" --stores "$stores" --runs "$runs" --setting "$setting"
echo "the same, with the C program running the three pragmas mattn/go-sqlite3 runs on every open:"
SQLITE_BENCH_PRAGMAS=1 "$root/cvsgo" --c bench/sqlite_bench --worker "$bin/worker-sqlite" --variant sqlite --dir "$dir" --stores "$stores" --runs "$runs" --setting "$setting"
