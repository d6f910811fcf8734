# manydb — build, run the default study, test.
#
#   make run    build, then a small study of every engine that builds here
#   make test   build, then vet and all tests (what CI runs)
#   make bench  benchmarks: harness overhead and manydb vs. a C program

GO      ?= go
BIN     := bin
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
LDFLAGS := -X main.version=$(VERSION)

# The default study of 'make run': small enough for a few minutes.
STORES ?= 200
RUNS   ?= 3
HOLD   ?= 100
ROOT   ?= data
OUT    ?= results/make-run.jsonl

.PHONY: build run test bench clean

build:
	@mkdir -p $(BIN)
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/manydb ./cmd/manydb
	$(GO) build -o $(BIN)/worker-sqlite ./cmd/worker-sqlite
	$(GO) build -o $(BIN)/worker-libsql ./cmd/worker-libsql || echo "worker-libsql not built: go-libsql needs cgo (a C compiler) on linux or darwin, amd64 or arm64"
	$(GO) build -o $(BIN)/worker-tursogo ./cmd/worker-tursogo || echo "worker-tursogo not built: see the go build error above"

run: build
	@mkdir -p $(dir $(OUT))
	$(BIN)/manydb run --engines all --stores $(STORES) --runs $(RUNS) --hold $(HOLD) --root $(ROOT) --out $(OUT)

test: build
	$(GO) vet ./...
	$(GO) test -count=1 ./...

bench: build
	$(GO) test -run '^$$' -bench . -benchtime 20000x ./internal/worker/
	./bench/c_vs_go.sh

clean:
	rm -rf $(BIN)
