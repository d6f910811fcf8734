#!/usr/bin/env bash
# ensure-allocators.sh — install the malloc libraries of the settings
# jemalloc, mimalloc and tcmalloc (internal/settings): Debian's
# libjemalloc2, libmimalloc2.0 and libtcmalloc-minimal4. A worker runs
# under such a setting with the library in LD_PRELOAD.
#
# Does nothing for a library that is installed. Otherwise, as root on a
# system with apt-get, runs apt-get install -y for the missing packages
# (after apt-get update if the first attempt fails). When it cannot (not
# root, no apt-get, no network), it prints ONE line saying so and exits 0:
# manydb run then skips those settings, saying how to get the library.
#
# Usage: scripts/ensure-allocators.sh   (make build calls it)
set -euo pipefail

# package:library file, as internal/settings names them.
wanted=(libjemalloc2:libjemalloc.so.2 libmimalloc2.0:libmimalloc.so.2 libtcmalloc-minimal4:libtcmalloc_minimal.so.4)

# The directories manydb searches (settings.LibDirs): the multiarch ones first.
triplet=$(gcc -dumpmachine 2>/dev/null || echo "$(uname -m)-linux-gnu")
installed() {
	local dir
	for dir in /usr/lib/"$triplet" /lib/"$triplet" /usr/lib64 /usr/lib /usr/local/lib; do
		[[ -e $dir/$1 ]] && return 0
	done
	return 1
}

missing=()
for pair in "${wanted[@]}"; do
	installed "${pair#*:}" || missing+=("${pair%%:*}")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

skip() {
	echo "allocators: ${missing[*]} $1; manydb run skips the settings that need them (install them, e.g. sudo apt-get install ${missing[*]})"
	exit 0
}
[[ $(id -u) -eq 0 ]] || skip "not installed, and installing needs root"
command -v apt-get >/dev/null 2>&1 || skip "not installed, and there is no apt-get here"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -q "${missing[@]}" >/dev/null 2>&1; then
	apt-get update -q >/dev/null 2>&1 || true
	apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 || skip "could not be installed (apt-get install failed)"
fi
still=()
for pair in "${wanted[@]}"; do
	installed "${pair#*:}" || still+=("${pair%%:*}")
done
if [[ ${#still[@]} -gt 0 ]]; then
	missing=("${still[@]}")
	skip "still missing after apt-get"
fi
echo "allocators: installed ${missing[*]}"
