#!/usr/bin/env bash
# ensure-sqlite-dev.sh — install sqlite3.h (Debian's libsqlite3-dev) for
# the C source of sqlite-vec (github.com/asg017/sqlite-vec-go-bindings/cgo,
# used by internal/engines/sqlite). It is compiled with -DSQLITE_CORE and
# includes "sqlite3.h", which that module does not ship and cannot take
# from mattn/go-sqlite3 (a cgo package's include path names only its own
# directory and the system's), so the header must be on the system
# include path. Only the declarations are used: sqlite-vec's calls link to
# the SQLite mattn/go-sqlite3 compiles into the worker, not to the system
# library.
#
# Does nothing when /usr/include/sqlite3.h exists. Otherwise, as root on a
# system with apt-get, runs apt-get install -y libsqlite3-dev (after
# apt-get update if the first attempt fails). When it cannot (not root,
# no apt-get, no network), it prints ONE line saying so and exits 0: the
# build of worker-sqlite (and go vet/test of internal/engines/sqlite)
# then fails on the missing header.
#
# Usage: scripts/ensure-sqlite-dev.sh   (make build calls it)
set -euo pipefail

header=/usr/include/sqlite3.h
pkg=libsqlite3-dev
[[ -e $header ]] && exit 0

skip() {
	echo "sqlite-dev: $header (package $pkg) $1; worker-sqlite and every package that imports internal/engines/sqlite will not build without it (install it, e.g. sudo apt-get install $pkg, or set CGO_CFLAGS=-I<a directory with sqlite3.h>)"
	exit 0
}
[[ $(id -u) -eq 0 ]] || skip "is missing, and installing $pkg needs root"
command -v apt-get >/dev/null 2>&1 || skip "is missing, and there is no apt-get here"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -q "$pkg" >/dev/null 2>&1; then
	apt-get update -q >/dev/null 2>&1 || true
	apt-get install -y -q "$pkg" >/dev/null 2>&1 || skip "is missing, and apt-get install $pkg failed"
fi
[[ -e $header ]] || skip "is still missing after apt-get install $pkg"
echo "sqlite-dev: installed $pkg ($header)"
