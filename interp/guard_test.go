package interp

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	yaegi "github.com/byref/byref/internal/yaegi/interp"
)

// TestRawRecursionIsFatal documents why the call-depth guard exists: in a
// subprocess, unbounded recursion in a plain yaegi interpreter overflows the
// Go stack, which kills the process (measured: about 890,000 frames, 1 GB
// of stack, ~1.1 KiB per interpreted call).
func TestRawRecursionIsFatal(t *testing.T) {
	if os.Getenv("BYREF_INTERP_CHILD") == "recursion" {
		i := yaegi.New(yaegi.Options{})
		if _, err := i.Eval("func f(n int) int { return f(n+1) }"); err != nil {
			panic(err)
		}
		_, _ = i.Eval("f(0)")
		os.Exit(0)
	}
	if testing.Short() {
		t.Skip("uses 1 GB of stack in a subprocess")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRawRecursionIsFatal$")
	cmd.Env = append(os.Environ(), "BYREF_INTERP_CHILD=recursion")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "stack overflow") {
		t.Fatalf("expected a fatal stack overflow, got err=%v\n%.500s", err, out)
	}
}

func TestGuardSize(t *testing.T) {
	g := &guard{maxAlloc: 1 << 20, maxDepth: 10}
	if n := g.size(10, []int64(nil)); n != 10 {
		t.Fatal(n)
	}
	for _, c := range []struct{ n, zero any }{{1 << 20, []int64(nil)}, {uint64(1) << 63, []byte(nil)}, {int64(1 << 40), map[int]int(nil)}} {
		func() {
			defer func() {
				if _, ok := recover().(allocPanic); !ok {
					t.Errorf("size(%v) did not panic with allocPanic", c.n)
				}
			}()
			g.size(c.n, c.zero)
		}()
	}
}
