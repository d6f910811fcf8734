#!/usr/bin/env bash
# screenshot.sh — take a screenshot of an HTML page in headless chromium.
#
# Usage: scripts/screenshot.sh PAGE.html OUT.png [WIDTHxHEIGHT]
set -euo pipefail

page=${1:?usage: scripts/screenshot.sh PAGE.html OUT.png [WIDTHxHEIGHT]}
out=${2:?usage: scripts/screenshot.sh PAGE.html OUT.png [WIDTHxHEIGHT]}
size=${3:-1200x1400}
abs=$(cd "$(dirname "$page")" && pwd)/$(basename "$page")
outabs=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
# --no-sandbox: chromium refuses to run as root with its sandbox.
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--window-size="${size/x/,}" --screenshot="$outabs" "file://$abs" >/dev/null 2>&1
test -s "$outabs" || { echo "screenshot: chromium wrote no $out" >&2; exit 1; }
echo "$out"
