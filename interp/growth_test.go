//go:build !race

package interp

import "testing"

// TestGrowth runs 10,000 snippets on one Interpreter, with the default
// rebuild policy and with rebuilds disabled, and fails when the last 100
// allocate more than 1.5× the allocations or bytes per snippet of the first
// 100 (what grows with accumulated compiled code shows there). It logs the
// times (target: last within 1.5× of first) but asserts none.
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
		t.Logf("%s: first 100: %s per snippet; last 100: %s per snippet (time %.2fx)", name, first.per(100), last.per(100), float64(last.d)/float64(first.d))
		if float64(last.allocs) > 1.5*float64(first.allocs) || float64(last.bytes) > 1.5*float64(first.bytes) {
			t.Errorf("%s: the last 100 snippets allocate %s per snippet, over 1.5× the first 100 (%s)", name, last.per(100), first.per(100))
		}
	}
}
