package llm

import (
	"math"
	"testing"
)

func TestPriceCost(t *testing.T) {
	// Claude Sonnet's published prices as an example: $3 input, $15
	// output, $0.30 cache reads, $3.75 cache writes per million tokens.
	p := Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	u := Usage{InputTokens: 1_000_000, CacheReadTokens: 600_000, CacheWriteTokens: 300_000, OutputTokens: 10_000}
	want := 0.1*3 + 0.6*0.3 + 0.3*3.75 + 0.01*15
	if got := p.Cost(u); math.Abs(got-want) > 1e-9 {
		t.Errorf("Cost = %v, want %v", got, want)
	}
	// No cache write price: writes cost the input price.
	if got := (Price{Input: 2}).Cost(Usage{InputTokens: 1_000_000, CacheWriteTokens: 500_000}); math.Abs(got-2) > 1e-9 {
		t.Errorf("Cost = %v, want 2", got)
	}
}
