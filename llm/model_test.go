package llm

import (
	"context"
	"testing"
)

// plain is a Model that is not a Streamer.
type plain struct{ resp Response }

func (p plain) Generate(context.Context, Request) (Response, error) { return p.resp, nil }

func TestStreamFallsBackToGenerate(t *testing.T) {
	var chunks []Chunk
	resp, err := Stream(context.Background(), plain{Text("all at once")}, Request{}, func(c Chunk) error {
		chunks = append(chunks, c)
		return nil
	})
	if err != nil || resp.Text != "all at once" || len(chunks) != 1 || chunks[0].Text != "all at once" {
		t.Fatalf("resp %+v, chunks %+v, err %v", resp, chunks, err)
	}
}

func TestStopReasonPredicates(t *testing.T) {
	if !StopMaxTokens.Truncated() || StopEnd.Truncated() {
		t.Error("Truncated")
	}
	if !StopRefusal.Refused() || !StopContentFilter.Refused() || StopToolCalls.Refused() {
		t.Error("Refused")
	}
}

func TestUsageArithmetic(t *testing.T) {
	u := Usage{InputTokens: 3, OutputTokens: 4, CacheReadTokens: 2, ReasoningTokens: 2, Cost: 0.5}.Add(Usage{InputTokens: 1, OutputTokens: 1, CacheReadTokens: 1, CacheWriteTokens: 1, ReasoningTokens: 1, Cost: 0.25})
	if u != (Usage{InputTokens: 4, OutputTokens: 5, CacheReadTokens: 3, CacheWriteTokens: 1, ReasoningTokens: 3, Cost: 0.75}) || u.Total() != 9 {
		t.Errorf("u = %+v, total %d", u, u.Total())
	}
}

func TestResponseMessage(t *testing.T) {
	r := CallTool("x", `{}`)
	r.Thinking = []Thinking{{Text: "hm", Signature: "sig"}}
	m := r.Message()
	if m.Role != RoleAssistant || len(m.ToolCalls) != 1 || len(m.Thinking) != 1 {
		t.Errorf("m = %+v", m)
	}
}
