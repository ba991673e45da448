# make run   - build and run the default scenario
# make test  - gofmt check, go vet, every test, race detector on the core, a short fuzz run,
#              the generated 2,000-node day under --check
# make bench - Go benchmarks of the engine, scheduler, autoscalers and market
# make properties - 1000 generated scenarios (PROPS_N; half imported through
#                 sim import) run under --check against the end-to-end
#                 properties of sim/internal/props (about 20 s on two idle
#                 cores; go test runs the first 300, -short 30); a failing seed's
#                 scenario is written to $TMPDIR/props-seed-N.yaml (/tmp by default)
# make fuzz  - a longer fuzz run of every fuzz target (FUZZTIME each, default 60s;
#              a count such as 100000x avoids Go 1.26's deadline flake, see fuzz-short)
# make fidelity - our Karpenter solve against upstream Karpenter's, and our scheduler
#                 against upstream's framework, on generated cases (nested modules
#                 fidelity/ and fidelity/scheduler/; vet, their tests, then the comparisons),
#                 then fidelity-disruption and fidelity-ca
# make fidelity-disruption - our Karpenter disruption decisions against upstream
#                 v1.15.0's through sim import + sim run (nested module fidelity/disruption;
#                 fetches Go 1.27.3 through the module proxy for it, see below): the 100
#                 cases, and 12 repair and 10 static ones to keep CI short (the command's
#                 defaults run 40 and 20)
# make fidelity-ca - our Cluster Autoscaler's scale-up decision, then its scale-down
#                 plan, against upstream's (nested module fidelity/ca; needs a
#                 checkout of upstream, see below)
GO       ?= go
BIN      := bin/sim
SCENARIO ?= hybrid-naive
FUZZTIME ?= 60s
# Packages whose tests also run under the race detector (the parallel ones
# and the core).
RACE_PKGS := ./sim/engine/ ./sim/scheduler/ ./sim/simulation/ ./sim/experiment/ ./sim/sweep/
# Fuzz targets as NAME:PACKAGE.
FUZZ_TARGETS := FuzzQueue:./sim/engine/ FuzzReadBytes:./sim/manifest/ FuzzLoad:./sim/scenario/ \
	FuzzParseFlags:./sim/clusterautoscaler/config/ FuzzReadTrace:./sim/spotmarket/ \
	FuzzParseCron:./sim/workload/ FuzzImport:./sim/importer/ FuzzMergeRead:./sim/sweep/ \
	FuzzCAIndexes:./sim/clusterautoscaler/ FuzzClusterIndexes:./sim/cluster/ FuzzSchedulerIndexes:./sim/scheduler/ \
	FuzzMessage:./sim/internal/clip/ FuzzParse:./sim/internal/duration/ FuzzKarpenterIndexes:./sim/karpenter/ \
	FuzzCron:./sim/internal/cron/

.PHONY: build run test unit race fuzz fuzz-short check-scale bench bench-scale bench-scale-week fmt vet clean fidelity fidelity-disruption fidelity-ca properties

build:
	$(GO) build -o $(BIN) ./cmd/sim

run: build
	./$(BIN) run $(SCENARIO)

fmt:
	@out=$$(gofmt -l cmd scenarios sim); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

unit:
	$(GO) test ./...

race:
	$(GO) test -race $(RACE_PKGS)

test: fmt vet unit race fuzz-short check-scale

# make check-scale - the generated 2,000-node day under --check: the
# invariants after every event and every model's incremental structures
# (indexes, caches, mirrors) against recomputations from scratch.
check-scale: build
	./$(BIN) gen scale --nodes 2000 --pods 60000 --days 1 > bin/scale-check.yaml
	./$(BIN) run bin/scale-check.yaml --check -o json --report bin/scale-check.json

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		name=$${t%%:*}; pkg=$${t#*:}; \
		echo "fuzz $$name in $$pkg for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

# A count, not a duration: with a duration Go 1.26's fuzz coordinator may
# fail a target with "context deadline exceeded" at the deadline on a busy
# machine (golang/go#75804, fixed in Go 1.27); a count has no deadline.
fuzz-short:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=3000x

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./sim/...

PROPS_N ?= 1000
properties:
	PROPS_N=$(PROPS_N) $(GO) test -count=1 -run '^TestGeneratedScenarios$$' -v ./sim/internal/props/

clean:
	rm -rf bin

# The harnesses import sigs.k8s.io/karpenter and k8s.io/kubernetes, so each
# lives in its own module; a comparison exits 1 when a target of issue 10
# (Karpenter; also 22) or 23 (scheduler) is missed. fidelity/jobvalidation runs
# sim sweep --emit-job's manifests through the API server's validation;
# fidelity/dashboards runs Karpenter's capacity dashboard's queries on sim
# run --metrics with Prometheus' PromQL engine.
FIDELITY_MODULES := fidelity fidelity/scheduler fidelity/jobvalidation fidelity/dashboards
# sigs.k8s.io/karpenter v1.15.0 (fidelity/ and fidelity/disruption/) needs
# Go 1.26.9, newer than the machine's: GOTOOLCHAIN=go1.27.3 makes the go
# command fetch that toolchain from the module proxy (for those modules
# only; the simulator builds with the machine's Go).
KARPENTER_GO := GOTOOLCHAIN=go1.27.3 $(GO)
fidelity:
	@for m in $(FIDELITY_MODULES); do \
		out=$$(cd $$m && gofmt -l .); \
		if [ -n "$$out" ]; then echo "gofmt would change in $$m:"; echo "$$out"; exit 1; fi; \
	done
	cd fidelity && $(KARPENTER_GO) vet ./... && $(KARPENTER_GO) test ./...
	cd fidelity/jobvalidation && $(GO) vet ./... && $(GO) test ./...
	cd fidelity/dashboards && $(GO) vet ./... && $(GO) test ./...
	cd fidelity && $(KARPENTER_GO) run ./cmd/fidelity
	cd fidelity/scheduler && $(GO) vet ./... && $(GO) test ./...
	cd fidelity/scheduler && $(GO) run ./cmd/fidelity-scheduler
	@$(MAKE) --no-print-directory fidelity-disruption
	@$(MAKE) --no-print-directory fidelity-ca

# Karpenter's disruption against upstream v1.15.0, through sim import and
# sim run. It exits 1 when a target of issue 32 is missed.
DISRUPTION_GO := $(KARPENTER_GO)
fidelity-disruption:
	@out=$$(cd fidelity/disruption && gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change in fidelity/disruption:"; echo "$$out"; exit 1; fi
	cd fidelity/disruption && $(DISRUPTION_GO) vet ./... && $(DISRUPTION_GO) test ./...
	cd fidelity/disruption && $(DISRUPTION_GO) run ./cmd/fidelity-disruption -repair 12 -static 10

# The Cluster Autoscaler's harness imports sigs.k8s.io/cluster-autoscaler,
# which the Go module proxy does not serve: fidelity/ca/go.mod replaces it
# with a checkout of kubernetes-sigs/cluster-autoscaler at the commit named
# in fidelity/ca/UPSTREAM, placed in $(CA_UPSTREAM) (git-ignored), and its
# scale-down planner's k8s.io/autoscaler/cluster-autoscaler/apis (refused by
# the proxy too) with kubernetes/autoscaler's cluster-autoscaler/apis tree at
# the commit in fidelity/ca/UPSTREAM_APIS, in $(CA_APIS). Without them the
# comparison is skipped with a note. The scale-up run exits 1 when a target
# of issue 22 is missed, the scale-down run (fidelity-ca-scaledown) when one
# of issue 34 is.
CA_UPSTREAM := .upstream/cluster-autoscaler
CA_APIS := .upstream/autoscaler-apis
fidelity-ca:
	@if [ ! -f $(CA_UPSTREAM)/go.mod ] || [ ! -f $(CA_APIS)/go.mod ]; then \
		echo "fidelity-ca: skipped: no upstream checkout in $(CA_UPSTREAM) (kubernetes-sigs/cluster-autoscaler at $$(cat fidelity/ca/UPSTREAM)) or $(CA_APIS) (kubernetes/autoscaler's cluster-autoscaler/apis at $$(cat fidelity/ca/UPSTREAM_APIS)); the Go module proxy does not serve them"; \
		exit 0; \
	fi; \
	set -e; cd fidelity/ca; \
	out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi; \
	$(GO) vet ./...; $(GO) test ./...; $(GO) run ./cmd/fidelity-ca; $(GO) run ./cmd/fidelity-ca-scaledown

# make bench-scale - generated scale scenarios end to end (sizes in SCALE_SIZES as
# nodes:pods:days), then 200 seeds of hybrid-naive; prints wall time, events/s
# and peak memory per run.
SCALE_SIZES ?= 500:15000:1 1000:30000:1 2000:60000:1
bench-scale: build
	@printf '%-22s %s\n' "scenario" "result"
	@for s in $(SCALE_SIZES); do \
		n=$${s%%:*}; rest=$${s#*:}; p=$${rest%%:*}; d=$${rest#*:}; \
		./$(BIN) gen scale --nodes $$n --pods $$p --days $$d > bin/scale-$$n-$$p-$$d.yaml; \
		r=$$(./$(BIN) run bin/scale-$$n-$$p-$$d.yaml -o json --report bin/scale-$$n-$$p-$$d.json 2>&1 | grep simulated); \
		printf '%-22s %s\n' "$${n}n/$${p}p/$${d}d" "$$r"; \
	done
	@r=$$(./$(BIN) run hybrid-naive --runs 200 -o json --report bin/runs200.json 2>&1 | grep "runs of"); \
		printf '%-22s %s\n' "hybrid-naive x200" "$$r"

# make bench-scale-week - the week at 5,000 nodes and 150,000 pods of issue 12
# (minutes), then the 200 seeds of hybrid-naive.
bench-scale-week:
	@$(MAKE) --no-print-directory bench-scale SCALE_SIZES=5000:150000:7
