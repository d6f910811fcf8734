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
# the median of the per-run ratios manydb / C with its 95 % interval (goal:
# at most 1.03), for obx_cached and for obx_nosync (no model, after a
# check that the store holds data.mdb, on both sides).
#
# Usage: [SETTING=name] [BIN=dir] bench/obx_c_vs_go.sh [STORES] [RUNS]   (defaults 200, 150;
# after make build). SETTING, BIN: as for bench/c_vs_go.sh.
# The stores go to a new temporary directory, removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

STORES=${1:-200}
RUNS=${2:-150}
source bench/obx_common.sh
obx_setup obx_c_vs_go
DIR=$TMP/stores

mkdir -p "$DIR"
echo "creating $STORES stores in $DIR ..."
$WORKER --variant obx_cached --phase create --dir "$DIR" --stores "$STORES" --objects $OBJECTS >/dev/null

# One untimed pass first, so that both sides find the stores in the page
# cache as the writes after create left them; then the runs, alternating
# which side goes first.
"$TMP/obxhelper" order "$DIR" "$STORES" 1 | "$TMP/objectbox_bench" "$TMP/model.bin" $OBJECTS >/dev/null

# SETTING (default: default) is a manydb setting, e.g. trim-threshold or
# jemalloc: both sides run under its malloc environment.
go build -o "$TMP/cvsgo" ./bench/cvsgo
if [[ ${SETTING:-default} != default ]]; then
	eval "$(go run ./bench/settingenv "$SETTING")"
fi
# The C loop runs in a second thread, like the worker's locked thread (a
# glibc thread arena for both), unless BENCH_C_MAIN_THREAD=1.
if [[ -z ${BENCH_C_MAIN_THREAD:-} ]]; then export OBX_BENCH_THREAD=1; fi

# obx_cached opens with the model bytes, obx_nosync without a model.
bench_variant() {
	local variant=$1 model=$2
	run_go() {
		$WORKER --variant "$variant" --phase open --dir "$DIR" --stores "$STORES" --objects $OBJECTS \
			--run "$1" --seed "$1" | "$TMP/obxhelper" median
	}
	run_c() { "$TMP/obxhelper" order "$DIR" "$STORES" "$1" | "$TMP/objectbox_bench" "$model" $OBJECTS; }
	total() { awk '{for (i = 1; i < NF; i++) if ($i == "total_ms") print $(i+1)}' <<<"$1"; }
	local ratios=() seed go_line c_line
	for seed in $(seq 1 "$RUNS"); do
		if ((seed % 2)); then
			go_line=$(run_go "$seed")
			c_line=$(run_c "$seed")
		else
			c_line=$(run_c "$seed")
			go_line=$(run_go "$seed")
		fi
		echo "run $seed  manydb $variant: $go_line"
		echo "run $seed  C program:  $c_line"
		ratios+=("$(awk -v g="$(total "$go_line")" -v c="$(total "$c_line")" 'BEGIN {print g / c}')")
	done
	echo "$variant under ${SETTING:-default}, $RUNS runs of $STORES stores (load $(cut -d' ' -f1-3 /proc/loadavg)):"
	"$TMP/cvsgo" --ratios "${ratios[*]}"
}
bench_variant obx_cached "$TMP/model.bin"
bench_variant obx_nosync -
