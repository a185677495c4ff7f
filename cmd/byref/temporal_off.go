//go:build !temporal

package main

import (
	"context"
	"errors"
	"io"

	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// errNoTemporal is what a byref built without the Temporal SDK answers to
// its Temporal flags and commands.
var errNoTemporal = errors.New("this byref is built without Temporal (it keeps the Temporal SDK out of the CLI); build it with the tag: go build -tags temporal ./cmd/byref, or go install -tags temporal github.com/byref/byref/cmd/byref@latest")

// engine refuses: see errNoTemporal.
func (temporalFlags) engine(context.Context, run.Store, io.Writer) (server.Engine, func(), error) {
	return nil, nil, errNoTemporal
}

// workerCmd refuses: see errNoTemporal.
func workerCmd(context.Context, []string, io.Writer, io.Writer) error {
	return errNoTemporal
}
