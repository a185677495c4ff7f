package main

import (
	"strings"
	"testing"

	"github.com/byref/byref/run"
)

// runs show gives the prompt cache's reads and writes, the reasoning tokens
// and the provider's cost when there are any, and a compaction's event in the run's events.
func TestShowCacheUsageAndCompaction(t *testing.T) {
	if got := tokens(run.Usage{InputTokens: 10, OutputTokens: 2}); got != "10 in / 2 out" {
		t.Errorf("tokens = %q", got)
	}
	if got := tokens(run.Usage{InputTokens: 1000, OutputTokens: 20, CacheReadTokens: 900, CacheWriteTokens: 80}); got != "1000 in (900 read from the prompt cache, 80 written to it) / 20 out" {
		t.Errorf("tokens = %q", got)
	}
	if got := tokens(run.Usage{InputTokens: 3329, OutputTokens: 53, CacheReadTokens: 3211, ReasoningTokens: 20, Cost: 0.00219855}); got != "3329 in (3211 read from the prompt cache, 0 written to it) / 53 out (20 reasoning), $0.00219855 reported by the provider" {
		t.Errorf("tokens = %q", got)
	}
	line := describe(run.Event{Payload: run.ContextCompacted{Step: 40, Messages: 79, Tokens: 97000, Threshold: 96000}})
	if !strings.Contains(line, "compacted after step 40") || !strings.Contains(line, "79 messages") {
		t.Errorf("describe = %q", line)
	}
}
