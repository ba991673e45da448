# make run   - build and run the default scenario
# make test  - gofmt check, go vet, every test, race detector on the core
# make bench - Go benchmarks of the engine, scheduler and autoscalers
GO       ?= go
BIN      := bin/sim
SCENARIO ?= hybrid-naive
# Packages whose tests also run under the race detector.
RACE_PKGS := ./sim/engine/ ./sim/scheduler/ ./sim/simulation/ ./sim/experiment/

.PHONY: build run test bench fmt vet clean

build:
	$(GO) build -o $(BIN) ./cmd/sim

run: build
	./$(BIN) run $(SCENARIO)

fmt:
	@out=$$(gofmt -l cmd scenarios sim); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

test: fmt vet
	$(GO) test ./...
	$(GO) test -race $(RACE_PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./sim/...

clean:
	rm -rf bin
