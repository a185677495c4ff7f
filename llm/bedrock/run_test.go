package bedrock_test

import (
	"encoding/json"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/bedrock"
	"github.com/byref/byref/llm/internal/recorded"
	"github.com/byref/byref/llm/llmtest"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

var secretAction = action.MustNew(action.Spec{
	Name: "secret_retrieval_tool", Description: "A tool that requires a password to retrieve a secret.",
	Func: func(password string) string {
		return map[string]string{"mellon": "Welcome to Moria!", "radiance": "Life before Death"}[password]
	},
	Params: []action.Param{{Name: "password", Description: "The password."}},
})

// generateOnly hides a model's Stream, so that the run calls Converse,
// whose recorded JSON the test can point at the run's variables.
type generateOnly struct{ llm.Model }

// recordedReasoning is the reasoning block of the recorded ConverseStream
// with Claude's thinking: its text and signature, from the decoded events.
func recordedReasoning(t *testing.T, rec *recorded.Recording) map[string]any {
	t.Helper()
	text, sig := "", ""
	for _, e := range rec.Response.Events {
		var ev struct {
			Payload struct {
				Delta struct {
					ReasoningContent *struct{ Text, Signature string } `json:"reasoningContent"`
				} `json:"delta"`
			} `json:"payload"`
		}
		if err := json.Unmarshal(e, &ev); err != nil {
			t.Fatal(err)
		}
		if r := ev.Payload.Delta.ReasoningContent; r != nil {
			text += r.Text
			sig += r.Signature
		}
	}
	if text == "" || sig == "" {
		t.Fatalf("no reasoning in %s", rec.Name)
	}
	return map[string]any{"reasoningContent": map[string]any{"reasoningText": map[string]any{"text": text, "signature": sig}}}
}

// A run on Bedrock, against a server replaying recorded turns (their tool
// uses pointed at the run's variables, the second turn with Claude's
// recorded reasoning block), calls secret_retrieval_tool by reference and
// by value in parallel, asks its user, is restored from its log by a
// second process in the middle of its await, and goes on: the request
// after the restore sends Claude's reasoning back first in its turn, with
// its signature, as Bedrock requires with tool use; the cache tokens
// reach the outcome's usage.
func TestRunRestoredKeepsReasoning(t *testing.T) {
	recs := map[string]*recorded.Recording{}
	for _, r := range recorded.Load(t, "bedrock") {
		recs[r.Name] = r
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(recs["converse-tool-use"].Response.Body), &first); err != nil {
		t.Fatal(err)
	}
	content := llmtest.Path(t, first, "output", "message", "content").([]any)
	llmtest.Path(t, content[1], "toolUse").(map[string]any)["input"] = map[string]any{"password": "<<var:password>>"}
	reasoning := recordedReasoning(t, recs["converse-stream-reasoning"])
	second := map[string]any{"output": map[string]any{"message": map[string]any{"role": "assistant", "content": []any{reasoning,
		map[string]any{"toolUse": map[string]any{"toolUseId": "tooluse_ask", "name": action.AskUserName, "input": map[string]any{"question": "Which one first?"}}}}}},
		"stopReason": "tool_use", "usage": map[string]any{"inputTokens": 600, "outputTokens": 80, "cacheReadInputTokens": 512, "totalTokens": 1192}}
	body := func(v any) llmtest.Reply {
		b, _ := json.Marshal(v)
		return llmtest.Reply{Body: string(b)}
	}

	store := run.NewMemoryStore()
	ag := func(s *llmtest.Server) *agent.Agent {
		m, err := bedrock.New(bedrock.Options{Config: llm.Config{Model: "us.anthropic.claude-sonnet-4-20250514-v1:0", BaseURL: s.URL()}, Region: "us-east-1", Credentials: fakeCredentials})
		if err != nil {
			t.Fatal(err)
		}
		rt, err := agent.New(agent.Options{Model: generateOnly{m}, Store: store, Actions: action.MustSet(secretAction),
			Variables: []variable.Spec{{Name: "password", Value: "mellon"}}})
		if err != nil {
			t.Fatal(err)
		}
		return rt
	}
	s1 := llmtest.NewServer(t, "/converse", body(first), body(second))
	s2 := llmtest.NewServer(t, "/converse", recs["converse-tool-result-followup"].Reply(t))
	o, snap := recorded.RunRestored(t, ag(s1), ag(s2), "Retrieve the secrets of mellon and radiance.", "mellon")
	// The cache read of the second turn reaches the outcome's usage, over
	// the restore: 440 + 600+512 + 591 input tokens in all.
	if o.Usage.CacheReadTokens != 512 || o.Usage.InputTokens != 440+600+512+591 {
		t.Errorf("outcome usage %+v; want the cache read of 512 counted", o.Usage)
	}
	if len(snap.ToolCalls) < 2 || snap.ToolCalls[0].Resolution == nil || snap.ToolCalls[0].Resolution.Args[0].Ref != "password" || !snap.ToolCalls[0].Success || !snap.ToolCalls[1].Success {
		t.Fatalf("secret_retrieval_tool was not called by reference and by value: %+v", snap.ToolCalls)
	}
	msgs := s2.Body(0)["messages"].([]any)
	var turn any
	for _, m := range msgs {
		for _, b := range m.(map[string]any)["content"].([]any) {
			if tu, ok := b.(map[string]any)["toolUse"]; ok && tu.(map[string]any)["name"] == action.AskUserName {
				turn = m
			}
		}
	}
	if turn == nil {
		t.Fatalf("the ask_user turn was not sent after the restore: %v", msgs)
	}
	want := llmtest.Path(t, reasoning, "reasoningContent", "reasoningText", "signature")
	if llmtest.Path(t, turn, "content", 0, "reasoningContent", "reasoningText", "signature") != want {
		t.Errorf("the restored run sent the turn back as %v; want its reasoning first, signed %v", turn, want)
	}
}
