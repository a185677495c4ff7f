package run_test

import (
	"encoding/json"
	"testing"

	"github.com/byref/byref/run"
)

// A snapshot totals every part of the usage events, the reasoning tokens
// and the provider-reported cost with the tokens, a compaction's summary
// call included; a usage event written before those fields existed still
// reads, as zero.
func TestSnapshotUsageTotals(t *testing.T) {
	var older run.Event
	if err := json.Unmarshal([]byte(`{"run_id":"run_u","seq":4,"time":"2026-11-21T09:00:04Z","type":"usage",`+
		`"data":{"input_tokens":100,"output_tokens":20,"cache_read_tokens":80}}`), &older); err != nil {
		t.Fatal(err)
	}
	events := newLog("run_u", run.RunCreated{Name: "usage"}).
		to(run.StatusRunning, "").
		add(run.Usage{InputTokens: 1200, OutputTokens: 340, CacheReadTokens: 1024, CacheWriteTokens: 115, ReasoningTokens: 300, Cost: 0.002},
			run.ContextCompacted{Step: 1, Messages: 3, Summary: "s", Usage: &run.Usage{InputTokens: 50, OutputTokens: 5, ReasoningTokens: 2, Cost: 0.0005}}).
		events
	older.Seq = int64(len(events) + 1)
	events = append(events, older)
	got := run.Fold(events).Usage
	want := run.Usage{InputTokens: 1350, OutputTokens: 365, CacheReadTokens: 1104, CacheWriteTokens: 115, ReasoningTokens: 302, Cost: 0.0025}
	if got.InputTokens != want.InputTokens || got.OutputTokens != want.OutputTokens || got.CacheReadTokens != want.CacheReadTokens ||
		got.CacheWriteTokens != want.CacheWriteTokens || got.ReasoningTokens != want.ReasoningTokens || !near(got.Cost, want.Cost) {
		t.Errorf("usage %+v; want %+v", got, want)
	}
	b, err := json.Marshal(run.Usage{InputTokens: 1, OutputTokens: 2})
	if err != nil || string(b) != `{"input_tokens":1,"output_tokens":2}` {
		t.Errorf("a usage without reasoning or cost is written %s, %v; older readers expect no new fields", b, err)
	}
}

// near reports whether two dollar amounts agree to a millionth of a cent.
func near(a, b float64) bool { return a-b < 1e-8 && b-a < 1e-8 }
