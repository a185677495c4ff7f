package recorded

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/byref/byref/llm"
)

// Call sends req to m, streamed or not, and returns the response, the
// chunks a stream reported, and the error.
func Call(m llm.Model, req llm.Request, stream bool) (llm.Response, []llm.Chunk, error) {
	if !stream {
		resp, err := m.Generate(context.Background(), req)
		return resp, nil, err
	}
	var chunks []llm.Chunk
	resp, err := m.(llm.Streamer).Stream(context.Background(), req, func(c llm.Chunk) error {
		chunks = append(chunks, c)
		return nil
	})
	return resp, chunks, err
}

// CheckResult fails the test where the client's result differs from what
// the recording says: for an error, its kind (llm.StatusError's for the
// status) and the provider's message; otherwise the text, refusal,
// reasoning, calls, usage and stop reason, and for a stream, that the
// chunks add up to the text, the reasoning and the calls.
func CheckResult(t *testing.T, resp llm.Response, chunks []llm.Chunk, err error, exp Expected) {
	t.Helper()
	if exp.Status >= 300 {
		want := llm.StatusError("x", exp.Status, 0, nil)
		var pe *llm.ProviderError
		if !errors.As(err, &pe) || !errors.Is(err, want.Kind) || pe.StatusCode != exp.Status || pe.Retryable != want.Retryable {
			t.Fatalf("err = %v, want a %v ProviderError of status %d", err, want.Kind, exp.Status)
		}
		if exp.Message != "" && !strings.Contains(err.Error(), exp.Message) {
			t.Errorf("the error %q does not say the provider's message %q", err, exp.Message)
		}
		return
	}
	if err != nil {
		t.Fatalf("err = %v", err)
	}
	if resp.Text != exp.Text {
		t.Errorf("Text = %q, recorded %q", resp.Text, exp.Text)
	}
	if resp.Refusal != exp.Refusal {
		t.Errorf("Refusal = %q, recorded %q", resp.Refusal, exp.Refusal)
	}
	if resp.Reasoning != exp.Reasoning {
		t.Errorf("Reasoning = %q, recorded %q", resp.Reasoning, exp.Reasoning)
	}
	if !reflect.DeepEqual(resp.ToolCalls, exp.Calls) {
		t.Errorf("ToolCalls = %+v, recorded %+v", resp.ToolCalls, exp.Calls)
	}
	if resp.Usage != exp.Usage {
		t.Errorf("Usage = %+v, recorded %+v", resp.Usage, exp.Usage)
	}
	if resp.StopReason != exp.Stop {
		t.Errorf("StopReason = %q, recorded %q", resp.StopReason, exp.Stop)
	}
	if chunks == nil {
		return
	}
	var text, reasoning strings.Builder
	var calls []llm.ToolCall
	for _, c := range chunks {
		text.WriteString(c.Text)
		reasoning.WriteString(c.Reasoning)
		if c.ToolCall != nil {
			if c.ToolCall.Name != "" || len(calls) == 0 {
				calls = append(calls, llm.ToolCall{ID: c.ToolCall.ID, Name: c.ToolCall.Name})
			}
			calls[len(calls)-1].Arguments += c.ToolCall.Arguments
		}
	}
	if text.String() != resp.Text || reasoning.String() != resp.Reasoning || !reflect.DeepEqual(calls, resp.ToolCalls) {
		t.Errorf("the chunks add up to text %q, reasoning %q, calls %+v; the response has %q, %q, %+v",
			text.String(), reasoning.String(), calls, resp.Text, resp.Reasoning, resp.ToolCalls)
	}
}

// CheckSent checks the client's last request against the recording: its
// path with the query, the credentials header (header: value), and the
// body's shape, by check (CheckChatRequest or CheckResponsesRequest).
func CheckSent(t *testing.T, s *Server, r *Recording, check func(got, want map[string]any) []string, header, value string) {
	t.Helper()
	got, path, hdr := s.Sent(t)
	if path != r.Request.Path {
		t.Errorf("path %s, recorded %s", path, r.Request.Path)
	}
	if hdr.Get(header) != value {
		t.Errorf("%s: %q, want %q", header, hdr.Get(header), value)
	}
	for _, d := range check(got, r.RequestBody(t)) {
		t.Error(d)
	}
}
