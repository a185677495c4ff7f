package storetest

import (
	"encoding/json"
	"time"

	"github.com/byref/byref/run"
)

// EveryKind returns one payload of every kind a store must be able to
// append, with every field set to a value that is not its zero value, so a
// round trip shows any field a store drops. RunCreated is not among them
// (it is written by Create); the events are in an order a store accepts
// after Create: the status changes form a legal lifecycle.
func EveryKind() []run.Payload {
	deadline := time.Date(2026, 11, 21, 12, 0, 0, 123456789, time.UTC)
	refs := map[string]run.VariableRef{
		"city": {Variable: "paris", Type: "string", Preview: `"Paris"`},
		"page": {Variable: "page", Type: "*browser.Page", Preview: "<page https://example.com>"},
	}
	call := run.ToolCall{ID: "call_1", Name: "get_weather",
		Arguments: `{"city":"<<var:paris>>","units":"metric"}`, References: refs, Signature: "Sig_A=="}
	vars := []run.VariableInfo{{Name: "weather", Type: "main.Weather", Preview: `{Temp:21}`}}
	mods := []run.VariableInfo{{Name: "notes", Type: "[]string", Preview: `["a" "b"]`}}
	snippet := run.Snippet{Code: "total := a + b", Reads: []string{"a", "b"}, Writes: []string{"total"}}
	return []run.Payload{
		run.StatusChanged{From: run.StatusCreated, To: run.StatusRunning, Reason: "started"},
		run.PhaseChanged{From: run.PhasePrompted, To: run.PhasePlanning},
		run.UserMessage{Text: "What's the weather in Paris?", Turn: "turn_1"},
		run.AssistantMessage{Step: 1, Text: "Let me check.", Reasoning: "The user wants weather; call get_weather.",
			Thinking: []run.Thinking{{Text: "The user wants weather; call get_weather.", Signature: "c2ln"}, {Redacted: "EmwKAhgB"}}},
		run.ToolCallScheduled{Step: 1, Call: call},
		run.Progress{CallID: "call_1", Message: "working: 2 of 3 pages"},
		run.ToolCallCompleted{CallID: "call_1", Success: true, Error: "retried once",
			Duration: 1500 * time.Millisecond, Stdout: "fetched\n", Stderr: "warn\n",
			Created: vars, Modified: mods},
		run.SnippetExecuted{Step: 2, Snippet: snippet, Success: false, Error: "undefined: c",
			Duration: 3 * time.Millisecond, Stdout: "out", Stderr: "err", Created: vars, Modified: mods},
		run.VariableCreated{Step: 1, Variable: vars[0], Secret: true, Value: json.RawMessage(`{"temp":21}`)},
		run.VariableModified{Step: 2, Variable: mods[0], Secret: true, Value: json.RawMessage(`["a","b"]`)},
		run.AwaitRequested{ID: "await_1", Await: run.AwaitAuthorization, Message: "Authorize access",
			Call: &call, Snippet: &snippet, Link: "https://auth.example.com/x", Deadline: deadline},
		run.StatusChanged{From: run.StatusRunning, To: run.StatusAwaiting, Reason: "authorization"},
		run.AwaitResolved{ID: "await_1", Answer: run.Answer{Decision: run.Denied, Reason: "not now",
			Arguments: `{"city":"Lyon"}`, Text: "Lyon instead", Input: json.RawMessage(`{"k":[1,2]}`)}},
		run.StatusChanged{From: run.StatusAwaiting, To: run.StatusRunning, Reason: "resumed"},
		run.ChildRunStarted{Child: "run_child", CallID: "call_2", Name: "researcher"},
		run.ChildRunFinished{Child: "run_child", CallID: "call_2", Status: run.StatusFailed,
			Result: json.RawMessage(`{"found":false}`), Error: "gave up"},
		run.Result{Value: json.RawMessage(`{"temp":21,"city":"Paris"}`)},
		run.Usage{InputTokens: 1200, OutputTokens: 340, CacheReadTokens: 1000, CacheWriteTokens: 150, ReasoningTokens: 300, Cost: 0.00219855},
		run.ContextCompacted{Step: 3, Messages: 7, Tokens: 97000, Threshold: 96000, Summary: "Steps 1 to 3, compacted: …", Tools: []string{"get_weather", "terminate"}},
		run.Error{Step: 3, Message: "model: 429, retrying"},
		run.Error{Step: 4, Message: "the model refused the task: no.", Failure: run.FailureRefusal, Refusal: "no."},
		run.StatusChanged{From: run.StatusRunning, To: run.StatusCompleted, Reason: "terminated"},
	}
}

// created returns a full RunCreated event for id.
func created(id run.ID, at time.Time) run.Event {
	return run.Event{RunID: id, Time: at, Payload: run.RunCreated{
		Name: "weather", Session: "sess_1", Turn: "turn_1",
		ParentRun: "run_parent", ParentToolCall: "call_9",
		Tags:  map[string]string{"order": "42", "team": "ops"},
		Input: json.RawMessage(`{"city":"Paris"}`),
		Options: run.Spec{ModelName: "openai:gpt-4o-mini", Approval: run.ApproveOnToolCall,
			Limits:       run.Limits{MaxSteps: 20, MaxTokens: 100000, Retry: run.RetryPolicy{Attempts: 2, Backoff: time.Second}},
			Actions:      []string{"get_weather"},
			InputSchema:  json.RawMessage(`{"type":"object"}`),
			ResultSchema: json.RawMessage(`{"type":"object","required":["temp"]}`)},
	}}
}
