package main

import (
	"testing"

	"github.com/byref/byref/run"
)

// TestDescribeProgress: what an action reports with runtime.Progress is a
// line of byref run's output.
func TestDescribeProgress(t *testing.T) {
	got := describe(run.Event{Data: run.Progress{CallID: "call_1", Message: "3 of 10 pages"}})
	if got != "  … 3 of 10 pages" {
		t.Fatalf("describe = %q", got)
	}
}
