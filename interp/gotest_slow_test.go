//go:build !race

package interp

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestGoTestsSlow runs the programs of goTestSlow as TestGoTests runs the
// others, with the same verdicts: each must pass or be refused by a
// sandbox rule. They take the interpreter minutes (divmod.go: about
// 4 minutes on one core without the race detector, far longer with it), so
// this test is built without -race only and runs when BYREF_SLOW_TESTS=1,
// as the Makefile's test target sets for its own step. Their Evals get a
// deadline no run reaches, as no test bounds wall-clock time.
func TestGoTestsSlow(t *testing.T) {
	if testing.Short() || os.Getenv("BYREF_SLOW_TESTS") != "1" {
		t.Skip("runs for minutes; set BYREF_SLOW_TESTS=1 (make test does, without -race)")
	}
	dir := goTestDir(t)
	names := make([]string, 0, len(goTestSlow))
	for name := range goTestSlow {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		f := filepath.Join(dir, name)
		code, ok := goTestProgram(t, f)
		if !ok {
			t.Errorf("%s is no longer a program TestGoTests runs; take it off goTestSlow", name)
			continue
		}
		want := goTestWant(f)
		start := time.Now()
		got, err := runGoTestWith(code, Options{Timeout: noDeadline})
		switch {
		case goTestPassed(got, want, err):
			t.Logf("%s: passes (%v)", name, time.Since(start).Round(time.Second))
		case goTestRefused(err):
			t.Logf("%s: refused by rule: %v", name, err)
		case err != nil:
			t.Errorf("%s: %v\noutput:\n%s", name, err, clip(got))
		default:
			t.Errorf("%s: output differs\ngot:\n%s\nwant:\n%s", name, clip(got), clip(want))
		}
	}
}

// noDeadline is an Eval timeout no run reaches (a century).
const noDeadline = 100 * 365 * 24 * time.Hour
