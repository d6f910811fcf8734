#!/usr/bin/env bash
# obx_c_vs_go.sh — manydb's obx_cached open run vs. a C program doing the
# same ObjectBox calls, on the same stores in the same order.
#
# Creates STORES stores (1,000 notes of 300 characters) with
# worker-objectbox, then for each seed 1..RUNS runs worker-objectbox's open
# phase (obx_cached) and bench/objectbox_bench.c (built here with gcc and
# objectbox-go's objectbox.h, linked to the same libobjectbox.so) over the
# stores in the order of that seed (worker.Order, printed by obxhelper).
# After one untimed pass, the runs alternate which side goes first. Prints
# each run's medians of open, count, close and open+count+close and, last,
# the medians over the runs of the latter and their ratio manydb / C (goal:
# at most 1.10).
#
# Usage: bench/obx_c_vs_go.sh [STORES] [RUNS]   (after make build)
# OBX_BENCH_THREAD=1 runs the C program's loop in a second thread (a glibc
# thread arena, like the Go worker's locked thread).
# The stores go to a new temporary directory, removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

STORES=${1:-200}
RUNS=${2:-3}
OBJECTS=1000
LIB=third_party/objectbox/lib
WORKER=bin/worker-objectbox

[[ -x $WORKER && -f $LIB/libobjectbox.so ]] || { echo "obx_c_vs_go: run make build first (needs $WORKER and $LIB)"; exit 1; }
command -v gcc >/dev/null || { echo "obx_c_vs_go: gcc not found"; exit 1; }

TMP=$(mktemp -d /tmp/manydb-obx-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
DIR=$TMP/stores
HEADERS=$(go list -m -f '{{.Dir}}' github.com/objectbox/objectbox-go)/objectbox
gcc -O2 -Wall -o "$TMP/objectbox_bench" bench/objectbox_bench.c -I"$HEADERS" \
	-L"$LIB" -Wl,-rpath,"$(pwd)/$LIB" -lobjectbox
go build -tags objectbox -o "$TMP/obxhelper" ./bench/obxhelper
"$TMP/obxhelper" model "$TMP/model.bin"

mkdir -p "$DIR"
echo "creating $STORES stores in $DIR ..."
$WORKER --variant obx_cached --phase create --dir "$DIR" --stores "$STORES" --objects $OBJECTS >/dev/null

# One untimed pass first, so that both sides find the stores in the page
# cache as the writes after create left them; then the runs, alternating
# which side goes first.
"$TMP/obxhelper" order "$DIR" "$STORES" 1 | "$TMP/objectbox_bench" "$TMP/model.bin" $OBJECTS >/dev/null

run_go() {
	$WORKER --variant obx_cached --phase open --dir "$DIR" --stores "$STORES" --objects $OBJECTS \
		--run "$1" --seed "$1" | "$TMP/obxhelper" median
}
run_c() { "$TMP/obxhelper" order "$DIR" "$STORES" "$1" | "$TMP/objectbox_bench" "$TMP/model.bin" $OBJECTS; }
total() { awk '{for (i = 1; i < NF; i++) if ($i == "total_ms") print $(i+1)}' <<<"$1"; }

gos=() cs=()
for seed in $(seq 1 "$RUNS"); do
	if ((seed % 2)); then
		go_line=$(run_go "$seed")
		c_line=$(run_c "$seed")
	else
		c_line=$(run_c "$seed")
		go_line=$(run_go "$seed")
	fi
	echo "run $seed  manydb obx_cached: $go_line"
	echo "run $seed  C program:         $c_line"
	gos+=("$(total "$go_line")")
	cs+=("$(total "$c_line")")
done

med() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
GO=$(med "${gos[@]}")
C=$(med "${cs[@]}")
awk -v g="$GO" -v c="$C" -v s="$STORES" -v r="$RUNS" 'BEGIN {
	printf "open+count+close median over %d runs of %d stores: manydb obx_cached %.4f ms, C %.4f ms, ratio %.3f (goal <= 1.10)\n", r, s, g, c, g / c
}'
