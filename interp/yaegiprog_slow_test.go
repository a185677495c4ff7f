//go:build !race

package interp

import (
	"os"
	"testing"
)

// TestYaegiProgramsSlow runs the programs of yaegiSlow as TestYaegiPrograms
// runs the others, with the same verdicts, without a deadline. Like
// TestGoTestsSlow it is built without -race only and runs when
// BYREF_SLOW_TESTS=1, as the Makefile's test target sets for its own step.
func TestYaegiProgramsSlow(t *testing.T) {
	if testing.Short() || os.Getenv("BYREF_SLOW_TESTS") != "1" {
		t.Skip("runs for minutes; set BYREF_SLOW_TESTS=1 (make test does, without -race)")
	}
	yaegiPrograms(t, func(name string) bool { return yaegiSlow[name] != "" }, Options{Timeout: noDeadline})
}
