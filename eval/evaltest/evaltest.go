// Package evaltest runs an eval set under go test: one subtest per case,
// which fails when the case is not as it should be (a trial failed, or a
// case that fails on purpose passed), with the diff of every failed
// expectation.
//
//	func TestEvals(t *testing.T) {
//		set, err := eval.Load("testdata/evals")
//		if err != nil {
//			t.Fatal(err)
//		}
//		set.Agent = myAgentOptions()
//		evaltest.Run(t, set, nil) // nil: replay the cassettes, no key needed
//	}
package evaltest

import (
	"context"
	"strings"
	"testing"

	"github.com/byref/byref/eval"
	"github.com/byref/byref/llm"
)

// Run runs set against model (nil replays each case's cassette) once per
// case, and reports each case as a subtest named after it. It returns the
// report, for tests that look further.
func Run(t *testing.T, set *eval.Set, model llm.Model) *eval.Report {
	t.Helper()
	return RunWith(t, set, eval.Options{Model: model})
}

// RunWith is Run with the runner's options (repetitions, budgets, judge,
// price).
func RunWith(t *testing.T, set *eval.Set, opts eval.Options) *eval.Report {
	t.Helper()
	r, err := eval.Run(context.Background(), set, opts)
	if err != nil {
		t.Fatalf("evaltest: %v", err)
	}
	for _, c := range r.Cases {
		t.Run(c.Name, func(t *testing.T) {
			if c.OK {
				if c.FailsOnPurpose != "" {
					t.Logf("fails on purpose (%s): %s", c.FailsOnPurpose, firstFailure(c))
				}
				return
			}
			if c.FailsOnPurpose != "" && c.Passes > 0 {
				t.Errorf("the case should fail (%s), but %d of %d trials passed", c.FailsOnPurpose, c.Passes, len(c.Trials))
				return
			}
			for _, tr := range c.Trials {
				if c.FailsOnPurpose != "" && tr.Error == "" {
					continue // failing is what it should do
				}
				for _, f := range tr.Failures {
					t.Errorf("trial %d: %s:\n%s", tr.Repetition, f.Expectation, indent(f.Diff))
				}
			}
		})
	}
	return r
}

func firstFailure(c eval.CaseReport) string {
	for _, tr := range c.Trials {
		for _, f := range tr.Failures {
			return f.Expectation + ": " + f.Diff
		}
	}
	return ""
}

func indent(s string) string { return "\t" + strings.ReplaceAll(s, "\n", "\n\t") }
