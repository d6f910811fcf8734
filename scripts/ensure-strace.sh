#!/usr/bin/env bash
# ensure-strace.sh — install strace for 'manydb profile', which counts the
# sync calls (fsync, fdatasync, msync, …) per store with it.
#
# Does nothing when strace is installed. Otherwise, as root on a system
# with apt-get, runs apt-get install -y strace (after apt-get update if the
# first attempt fails). When it cannot install it (not root, no apt-get,
# no network), it prints ONE line saying so and exits 0: manydb profile
# still runs, and its sync rows say "not counted".
#
# Usage: scripts/ensure-strace.sh   (make build calls it)
set -euo pipefail

if command -v strace >/dev/null 2>&1; then
	exit 0
fi
skip() {
	echo "strace: $1; manydb profile will not count the syncs (install strace, e.g. sudo apt-get install strace)"
	exit 0
}
[[ $(id -u) -eq 0 ]] || skip "not installed, and installing it needs root"
command -v apt-get >/dev/null 2>&1 || skip "not installed, and there is no apt-get here"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -q strace >/dev/null 2>&1; then
	apt-get update -q >/dev/null 2>&1 || true
	apt-get install -y -q strace >/dev/null 2>&1 || skip "apt-get install strace failed"
fi
command -v strace >/dev/null 2>&1 || skip "apt-get ran, but strace is still missing"
echo "strace: installed $(strace -V | head -n 1)"
