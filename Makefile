# byref's build. `make test` is what CI runs.
GO ?= go
STATICCHECK_VERSION ?= v0.8.2
GOBIN ?= $(shell $(GO) env GOPATH)/bin

.PHONY: test vet staticcheck unit bench demo fmt chromium temporal

## test: vet, staticcheck, the race-enabled test suite and, without -race, Go's slow test programs (what CI runs)
test: fmt vet staticcheck unit

## fmt: fail if any file is not gofmt-clean
fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	$(GO) vet -tags temporal ./cmd/byref

staticcheck:
	@test -x $(GOBIN)/staticcheck || $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(GOBIN)/staticcheck ./...
	$(GOBIN)/staticcheck -tags temporal ./cmd/byref

## chromium: Debian's chromium for the browser tests (they skip without it outside CI)
chromium:
	-./scripts/install-chromium.sh

## temporal: the Temporal CLI for the Temporal integration test (it skips without it outside CI; a cold build takes minutes)
temporal:
	./scripts/install-temporal.sh

unit: chromium
	GO=$(GO) ./scripts/unit.sh
	BYREF_SLOW_TESTS=1 $(GO) test -count=1 -timeout 30m -run '^(TestGoTestsSlow|TestYaegiProgramsSlow)$$' ./interp

## bench: every benchmark, with allocations
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## demo: the scripted demo; needs no API key
demo:
	$(GO) run ./cmd/byref demo
