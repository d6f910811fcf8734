# obx_common.sh — sourced by obx_c_vs_go.sh and obx_callgrind.sh (from the
# repository's root): what both need, checked, and the C program,
# bench/obxhelper and the model's bytes built into a new temporary
# directory $TMP, removed when the script exits.
OBJECTS=1000
LIB=third_party/objectbox/lib
WORKER=${BIN:-bin}/worker-objectbox

# obx_setup NAME: NAME is the calling script's, for its messages.
obx_setup() {
	[[ -x $WORKER && -f $LIB/libobjectbox.so ]] || { echo "$1: run make build first (needs $WORKER and $LIB)"; exit 1; }
	command -v gcc >/dev/null || { echo "$1: gcc not found"; exit 1; }
	TMP=$(mktemp -d "/tmp/manydb-$1.XXXXXX")
	trap 'rm -rf "$TMP"' EXIT
	local headers
	headers=$(go list -m -f '{{.Dir}}' github.com/objectbox/objectbox-go)/objectbox
	gcc -O2 -Wall -o "$TMP/objectbox_bench" bench/objectbox_bench.c -I"$headers" \
		-L"$LIB" -Wl,-rpath,"$(pwd)/$LIB" -lobjectbox
	go build -tags objectbox -o "$TMP/obxhelper" ./bench/obxhelper
	"$TMP/obxhelper" model "$TMP/model.bin"
}
