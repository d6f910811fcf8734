#!/usr/bin/env bash
# obx_callgrind.sh — instructions, not time: manydb's obx_cached open run
# and bench/objectbox_bench.c under valgrind's callgrind, on the same stores
# in the same order. Prints, per store, the instructions executed inside
# the library's calls (obx_store_open, obx_box, obx_box_count,
# obx_store_close, with everything they call) and in the whole process.
# The count does not depend on the machine's load, so it tells whether
# manydb's side does more work than the C program, where the time ratio of
# obx_c_vs_go.sh cannot tell work from the machine's noise.
#
# Usage: [BIN=dir] bench/obx_callgrind.sh [STORES]   (after make build; needs valgrind:
# apt-get install valgrind). The stores go to a temporary directory,
# removed at the end. The Go worker runs with GODEBUG=asyncpreemptoff=1:
# callgrind aborts on Go's preemption signals.
set -euo pipefail
cd "$(dirname "$0")/.."

STORES=${1:-300}
command -v valgrind >/dev/null || { echo "obx_callgrind: valgrind not found (apt-get install valgrind)"; exit 1; }
source bench/obx_common.sh
obx_setup obx_callgrind
mkdir -p "$TMP/stores"
$WORKER --variant obx_cached --phase create --dir "$TMP/stores" --stores "$STORES" --objects $OBJECTS >/dev/null
"$TMP/obxhelper" order "$TMP/stores" "$STORES" 1 >"$TMP/order"
export OBX_BENCH_THREAD=1

valgrind --tool=callgrind --callgrind-out-file="$TMP/c.out" \
	"$TMP/objectbox_bench" "$TMP/model.bin" $OBJECTS <"$TMP/order" >/dev/null 2>"$TMP/c.log"
GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$TMP/go.out" \
	$WORKER --variant obx_cached --phase open --dir "$TMP/stores" --stores "$STORES" --objects $OBJECTS \
	--run 1 --seed 1 >/dev/null 2>"$TMP/go.log"

# report SIDE FILE: from callgrind's raw output, the calls and inclusive
# instructions of each library function, summed over its call sites, and
# the process total, each divided by the calls of obx_store_open (the
# worker makes one open more than the C program: its untimed first store).
# Names are compressed: "(id) name" on first use, "(id)" after.
report() {
	awk -v side="$1" '
		function named(s,    id, rest) {
			if (match(s, /^\([0-9]+\)/)) {
				id = substr(s, 1, RLENGTH); rest = substr(s, RLENGTH + 2)
				if (rest != "") name[id] = rest
				return name[id]
			}
			return s
		}
		BEGIN { want["obx_store_open"]; want["obx_box"]; want["obx_box_count"]; want["obx_store_close"] }
		/^fn=/ { named(substr($0, 4)); next }
		/^cfn=/ { cur = named(substr($0, 5)); next }
		/^calls=/ { split(substr($0, 7), a, " "); pending = a[1]; next }
		pending != "" { if (cur in want) { calls[cur] += pending; inc[cur] += $2 }; pending = ""; next }
		/^(summary|totals):/ { total = $2 }
		END {
			opens = calls["obx_store_open"]
			if (opens == 0) { print side ": no obx_store_open call in the profile" > "/dev/stderr"; exit 1 }
			lib = inc["obx_store_open"] + inc["obx_box"] + inc["obx_box_count"] + inc["obx_store_close"]
			printf "%-9s %4d opens; per store: library calls %8.0f instructions (open %.0f, box %.0f, count %.0f, close %.0f), whole process %8.0f\n",
				side, opens, lib / opens, inc["obx_store_open"] / opens, inc["obx_box"] / opens,
				inc["obx_box_count"] / opens, inc["obx_store_close"] / opens, total / opens
		}' "$2"
}
report "C program" "$TMP/c.out"
report "manydb" "$TMP/go.out"
