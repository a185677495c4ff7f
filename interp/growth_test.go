//go:build !race

package interp

import "testing"

// TestGrowth runs 10,000 snippets on one Interpreter and logs the mean time
// of the first and the last 100, with the default rebuild policy and with
// rebuilds disabled (target: last within 1.5× of first). It asserts no times.
// Run with: go test -run TestGrowth -v ./interp/
func TestGrowth(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 snippets")
	}
	for _, every := range []int{0, 1 << 30} {
		first, last := growth(t, every, 10000)
		name := "default rebuild policy"
		if every != 0 {
			name = "no rebuilds"
		}
		t.Logf("%s: first 100: %v/snippet, last 100: %v/snippet (%.2fx)", name, first/100, last/100, float64(last)/float64(first))
	}
}
