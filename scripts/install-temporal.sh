#!/usr/bin/env bash
# Installs the Temporal CLI (its dev server runs the Temporal integration
# test) into GOPATH/bin, unless a temporal binary is already on PATH or
# there. It builds from the Go module proxy: a few minutes when the module
# cache is cold.
set -euo pipefail
version=v1.5.1
bin="$(go env GOPATH)/bin/temporal"
if command -v temporal >/dev/null || [ -x "$bin" ]; then
	exit 0
fi
echo "installing the Temporal CLI $version (once; it is kept in $bin)"
GOFLAGS=-buildvcs=false go install "github.com/temporalio/cli/cmd/temporal@$version"
