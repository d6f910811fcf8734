#!/usr/bin/env bash
# ensure-chromium.sh — install Debian's chromium for the report's screenshot
# (scripts/screenshot.sh, make report).
#
# Does nothing when chromium is installed. Otherwise, as root on a system
# with apt-get, runs apt-get install -y chromium (after apt-get update if
# the first attempt fails). When it cannot, it prints ONE line saying so and
# exits 1: make report then stops before the screenshot.
#
# Usage: scripts/ensure-chromium.sh
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "ensure-chromium: chromium is missing and this is not root with apt-get: install Debian's chromium package (apt-get install chromium) and rerun" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q chromium >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null; } || {
	echo "ensure-chromium: apt-get install chromium failed (no network?); install it and rerun" >&2
	exit 1
}
