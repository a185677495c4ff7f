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

func TestNormalizeStopReason(t *testing.T) {
	tests := map[string]StopReason{
		"stop": StopEnd, "end_turn": StopEnd, "tool_calls": StopToolCalls, "tool_use": StopToolCalls,
		"length": StopMaxTokens, "max_tokens": StopMaxTokens, "content_filter": StopContentFilter,
		"": "", "pause_turn": "pause_turn",
	}
	for in, want := range tests {
		if got := normalizeStopReason(in); got != want {
			t.Errorf("normalizeStopReason(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUsageArithmetic(t *testing.T) {
	u := Usage{InputTokens: 3, OutputTokens: 4}.Add(Usage{InputTokens: 1, OutputTokens: 1})
	if u != (Usage{4, 5}) || u.Total() != 9 {
		t.Errorf("u = %+v, total %d", u, u.Total())
	}
}

func TestResponseMessage(t *testing.T) {
	r := CallTool("x", `{}`)
	m := r.Message()
	if m.Role != RoleAssistant || len(m.ToolCalls) != 1 {
		t.Errorf("m = %+v", m)
	}
}
