package agent_test

// A model's stop reason decides what its answer is worth: a refusal, a
// content-filter stop or an answer cut by the token limit fails the run with
// a typed reason, through the real provider adapters against wire-format
// servers.

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/llm/llmtest"
	_ "github.com/byref/byref/llm/providers"
	"github.com/byref/byref/run"
)

// modelOver opens provider's adapter against a server answering with body.
func modelOver(t *testing.T, provider string, body string) llm.Model {
	t.Helper()
	suffix, base := "/chat/completions", "/v1"
	if provider == "anthropic" {
		suffix, base = "/v1/messages", ""
	}
	srv := llmtest.NewServer(t, suffix, llmtest.Reply{Body: body})
	m, err := llm.OpenWith(provider+":test-model", llm.Config{APIKey: "k", BaseURL: srv.URL() + base, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return generateOnly{m}
}

// generateOnly hides a model's Stream: these tests script whole JSON
// answers, which the runtime reads through Generate (it streams a model
// that implements llm.Streamer).
type generateOnly struct{ llm.Model }

// failedRun runs a task on model and returns the outcome and snapshot.
func failedRun(t *testing.T, model llm.Model, opts agent.Options) (agent.Outcome, run.Snapshot) {
	t.Helper()
	rt := newAgent(t, model, opts)
	h, err := rt.Start(context.Background(), agent.RunOptions{Task: "What is the weather in Paris?"})
	if err != nil {
		t.Fatal(err)
	}
	o, err := h.Wait(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	snap, err := h.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != run.StatusFailed || snap.Status != run.StatusFailed {
		t.Fatalf("outcome %+v, snapshot status %s; want failed", o, snap.Status)
	}
	if snap.Result != nil {
		t.Errorf("a failed answer became the result %s", snap.Result)
	}
	return o, snap
}

func TestRefusalFailsTheRunAndKeepsItsText(t *testing.T) {
	body := `{"id":"c1","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":6}}`
	o, snap := failedRun(t, modelOver(t, "openai", body), agent.Options{})
	if snap.FailureKind != run.FailureRefusal || snap.Refusal != "I can't help with that." {
		t.Errorf("snapshot failure %q, refusal %q", snap.FailureKind, snap.Refusal)
	}
	if !strings.Contains(o.Reason, "I can't help with that.") || !strings.Contains(snap.FailureReason, "refused") {
		t.Errorf("reason %q / %q does not say the model refused and what it said", o.Reason, snap.FailureReason)
	}
}

func TestEmptyAnthropicRefusalFailsTheRun(t *testing.T) {
	body := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":"refusal","stop_sequence":null,"usage":{"input_tokens":30,"output_tokens":0}}`
	_, snap := failedRun(t, modelOver(t, "anthropic", body), agent.Options{})
	if snap.FailureKind != run.FailureRefusal || snap.Refusal == "" {
		t.Errorf("snapshot failure %q, refusal %q", snap.FailureKind, snap.Refusal)
	}
}

func TestContentFilterFailsTheRun(t *testing.T) {
	body := `{"id":"c1","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"Here is how to"},"finish_reason":"content_filter"}],"usage":{"prompt_tokens":5,"completion_tokens":4}}`
	_, snap := failedRun(t, modelOver(t, "openai", body), agent.Options{})
	if snap.FailureKind != run.FailureContentFilter {
		t.Errorf("snapshot failure %q", snap.FailureKind)
	}
}

// A text answer cut mid-sentence by max_tokens is not the run's result.
func TestTruncatedAnswerFailsTheRun(t *testing.T) {
	body := `{"id":"c1","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"The weather in Paris is"},"finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":16}}`
	o, snap := failedRun(t, modelOver(t, "openai", body), agent.Options{})
	if snap.FailureKind != run.FailureMaxTokens || !strings.Contains(o.Reason, "MaxTokens") {
		t.Errorf("snapshot failure %q, reason %q", snap.FailureKind, o.Reason)
	}
	if snap.LastAssistantMessage != "The weather in Paris is" {
		t.Errorf("the cut text was not kept: %q", snap.LastAssistantMessage)
	}
}

// A tool call whose arguments were cut by max_tokens is not run.
func TestTruncatedToolCallIsNotRun(t *testing.T) {
	var ran atomic.Int32
	probe := action.MustNew(action.Spec{Name: "get_weather", Func: func(city string) string { ran.Add(1); return "sunny" }, Params: []action.Param{{Name: "city"}}})
	body := `{"id":"c1","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Par"}}]},"finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":16}}`
	_, snap := failedRun(t, modelOver(t, "openai", body), agent.Options{Actions: action.MustSet(probe)})
	if snap.FailureKind != run.FailureMaxTokens || ran.Load() != 0 || len(snap.ToolCalls) != 0 {
		t.Errorf("failure %q, action ran %d times, %d calls scheduled", snap.FailureKind, ran.Load(), len(snap.ToolCalls))
	}
}

// Gemini 3's thought signature and Anthropic's thinking blocks go back to
// the provider with the turn that carried them, through the agent loop.
func TestThoughtSignaturesGoBackThroughTheLoop(t *testing.T) {
	for _, tc := range []struct {
		provider, suffix, base string
		first, second          string
		check                  func(t *testing.T, body map[string]any)
	}{
		{
			"gemini-openai", "/chat/completions", "/v1beta/openai",
			`{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"extra_content":{"google":{"thought_signature":"Sig_A=="}},"function":{"arguments":"{\"location\":\"<<var:city>>\",\"unit\":\"c\",\"return\":null}","name":"get_weather"},"id":"function-call-1","type":"function"}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":6}}`,
			`{"id":"c2","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Sunny."},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":6}}`,
			func(t *testing.T, body map[string]any) {
				msgs := body["messages"].([]any)
				call := llmtest.Path(t, msgs[len(msgs)-2], "tool_calls", 0)
				if llmtest.Path(t, call, "extra_content", "google", "thought_signature") != "Sig_A==" {
					t.Errorf("the call went back as %v", call)
				}
			},
		},
		{
			"anthropic", "/v1/messages", "",
			`{"id":"m1","type":"message","role":"assistant","content":[{"type":"thinking","thinking":"Look it up.","signature":"SigT"},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"<<var:city>>","unit":"c","return":null}}],"stop_reason":"tool_use","usage":{"input_tokens":5,"output_tokens":6}}`,
			`{"id":"m2","type":"message","role":"assistant","content":[{"type":"text","text":"Sunny."}],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":6}}`,
			func(t *testing.T, body map[string]any) {
				msgs := body["messages"].([]any)
				turn := msgs[len(msgs)-2]
				if llmtest.Path(t, turn, "content", 0, "type") != "thinking" || llmtest.Path(t, turn, "content", 0, "signature") != "SigT" {
					t.Errorf("the turn went back as %v", turn)
				}
			},
		},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.suffix, llmtest.Reply{Body: tc.first}, llmtest.Reply{Body: tc.second})
			m, err := llm.OpenWith(tc.provider+":test-model", llm.Config{APIKey: "k", BaseURL: srv.URL() + tc.base, Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			o, err := newAgent(t, generateOnly{m}, agent.Options{}).Run(context.Background(), agent.RunOptions{Task: "Weather?"})
			if err != nil || o.Status != run.StatusCompleted || srv.Requests() != 2 {
				t.Fatalf("outcome %+v, %v, %d requests", o, err, srv.Requests())
			}
			tc.check(t, srv.Body(1))
		})
	}
}

// A run restored from its log sends the thought signatures and thinking
// blocks back as the live run would: the log keeps them.
func TestRestoredRunSendsSignaturesBack(t *testing.T) {
	ctx := context.Background()
	store := run.NewMemoryStore()
	open := func(srv *llmtest.Server) llm.Model {
		m, err := llm.OpenWith("gemini-openai:test-model", llm.Config{APIKey: "k", BaseURL: srv.URL() + "/v1beta/openai", Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		return generateOnly{m}
	}
	first := llmtest.NewServer(t, "/chat/completions", llmtest.Reply{Body: `{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"extra_content":{"google":{"thought_signature":"Sig_Q=="}},"function":{"arguments":"{\"question\":\"Which city?\",\"return\":null}","name":"ask_user"},"id":"function-call-1","type":"function"}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":6}}`})
	rt, err := agent.New(agent.Options{Model: open(first), Store: store})
	if err != nil {
		t.Fatal(err)
	}
	h, err := rt.Start(ctx, agent.RunOptions{Task: "Ask me a city."})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, h, 1)
	defer h.Cancel(ctx) // the first process's loop, still waiting

	second := llmtest.NewServer(t, "/chat/completions", llmtest.Reply{Body: `{"id":"c2","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Rome it is."},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":6}}`})
	rt2, err := agent.New(agent.Options{Model: open(second), Store: store})
	if err != nil {
		t.Fatal(err)
	}
	restored, err := rt2.Restore(ctx, h.ID(), agent.RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	req, ok := restored.Pending()
	if !ok {
		t.Fatal("the restored run awaits nothing")
	}
	if err := restored.Resume(ctx, req.ID, run.Answer{Text: "Rome"}); err != nil {
		t.Fatal(err)
	}
	if o, err := restored.Wait(ctx); err != nil || o.Status != run.StatusCompleted {
		t.Fatalf("outcome %+v, %v", o, err)
	}
	msgs := second.Body(0)["messages"].([]any)
	call := llmtest.Path(t, msgs[len(msgs)-2], "tool_calls", 0)
	if llmtest.Path(t, call, "extra_content", "google", "thought_signature") != "Sig_Q==" {
		t.Errorf("the restored run sent the call back as %v", call)
	}
}
