#!/bin/sh
# redraw.sh [DIR ...]: draws each committed record's page again with the
# code as it is: `manydb report` of the files the page names, in the
# order it names them, into the page's directory (every directory under
# docs/results/ with a report.html when none is given; a DIR is read
# from where the script is run). Needs bin/manydb built from the code to
# draw with (make workers).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
manydb=$repo/bin/manydb
[ -x "$manydb" ] || { echo "redraw.sh: no bin/manydb: run make workers first" >&2; exit 2; }
if [ $# -eq 0 ]; then
	for page in "$repo"/docs/results/*/report.html; do
		[ -f "$page" ] && set -- "$@" "${page%/report.html}"
	done
	[ $# -gt 0 ] || { echo "redraw.sh: no page under docs/results/" >&2; exit 2; }
fi
for dir in "$@"; do
	page=$dir/report.html
	[ -f "$page" ] || { echo "redraw.sh: $page: no page there" >&2; exit 2; }
	files=$(grep -oE 'href="[^"#]*\.jsonl(\.gz)?"' "$page" | sed 's/^href="//; s/"$//' | awk '!seen[$0]++')
	[ -n "$files" ] || { echo "redraw.sh: $page names no records" >&2; exit 2; }
	# shellcheck disable=SC2086 # the names are the page's own, without spaces
	(cd "$dir" && "$manydb" report -o .redraw.html $files >/dev/null && mv .redraw.html report.html)
	echo "redraw.sh: $page drawn again"
done
