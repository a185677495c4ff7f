package run_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/byref/byref/run"
)

func TestHistory(t *testing.T) {
	ev := func(ps ...run.Payload) []run.Event {
		out := make([]run.Event, len(ps))
		for i, p := range ps {
			out[i] = run.Event{Seq: int64(i + 1), Payload: p}
		}
		return out
	}
	call := func(step int, id, action, args string) run.ToolCallScheduled {
		return run.ToolCallScheduled{Step: step, Call: run.ToolCall{ID: id, Name: action, Arguments: args}}
	}
	created := []run.VariableInfo{{Name: "weather", Type: "string"}}
	resolution := &run.Resolution{Args: []run.Argument{{Param: "location", Raw: json.RawMessage(`"Paris"`)}}}
	cases := []struct {
		name   string
		events []run.Event
		want   []run.Instruction
	}{
		{"a call, with the model's text as its reason",
			ev(run.Usage{}, run.AssistantMessage{Step: 1, Text: "Look it up."}, call(1, "c1", "get_weather", `{"location":"Paris"}`),
				run.ToolCallCompleted{CallID: "c1", Success: true, Created: created, Result: "weather", Resolution: resolution}),
			[]run.Instruction{{Step: 1, Kind: run.KindCall, Reason: "Look it up.", CallID: "c1", Action: "get_weather", Arguments: `{"location":"Paris"}`,
				Args: resolution.Args, Return: "weather", ReturnCreated: true, Created: []string{"weather"}}}},
		{"the reason of an earlier answer does not carry over to a new one without text",
			ev(run.Usage{}, run.AssistantMessage{Step: 1, Text: "A plan."}, call(1, "c1", "a", `{}`),
				run.Usage{}, call(1, "c2", "a", `{}`), run.ToolCallCompleted{CallID: "c2", Success: true}),
			[]run.Instruction{{Step: 1, Kind: run.KindCall, CallID: "c2", Action: "a", Arguments: `{}`}}},
		{"a call scheduled and never completed (a rejected plan) is no instruction",
			ev(call(1, "c1", "a", `{}`), run.AwaitRequested{ID: "p", Await: run.AwaitApproval}, run.AwaitResolved{ID: "p", Answer: run.Answer{Decision: run.Denied}}),
			nil},
		{"an approver's edit is the call's arguments",
			ev(call(2, "c1", "a", `{"x":1}`), run.AwaitRequested{ID: "w1", Await: run.AwaitApproval, Call: &run.ToolCall{ID: "c1", Name: "a", Arguments: `{"x":1}`}},
				run.AwaitResolved{ID: "w1", Answer: run.Answer{Decision: run.Approved, Arguments: `{"x":2}`}}, run.ToolCallCompleted{CallID: "c1", Success: true}),
			[]run.Instruction{{Step: 2, Kind: run.KindCall, CallID: "c1", Action: "a", Arguments: `{"x":2}`}}},
		{"a denied call keeps its arguments and the denial is its error",
			ev(call(1, "c1", "a", `{"x":1}`), run.AwaitRequested{ID: "w1", Await: run.AwaitApproval, Call: &run.ToolCall{ID: "c1"}},
				run.AwaitResolved{ID: "w1", Answer: run.Answer{Decision: run.Denied, Arguments: `{"x":2}`}}, run.ToolCallCompleted{CallID: "c1", Error: "the user denied this call"}),
			[]run.Instruction{{Step: 1, Kind: run.KindCall, CallID: "c1", Action: "a", Arguments: `{"x":1}`, Err: "the user denied this call"}}},
		{"a call retried after an authorization is one instruction",
			ev(call(1, "c1", "a", `{}`), run.AwaitRequested{ID: "w1", Await: run.AwaitAuthorization, Call: &run.ToolCall{ID: "c1"}, Link: "https://example.com"},
				run.AwaitResolved{ID: "w1", Answer: run.Answer{Decision: run.Approved}}, run.ToolCallCompleted{CallID: "c1", Success: true}),
			[]run.Instruction{{Step: 1, Kind: run.KindCall, CallID: "c1", Action: "a", Arguments: `{}`}}},
		{"the same call ID in two steps",
			ev(call(1, "c", "a", `{"n":1}`), run.ToolCallCompleted{CallID: "c", Success: true}, call(2, "c", "a", `{"n":2}`), run.ToolCallCompleted{CallID: "c", Success: true}),
			[]run.Instruction{{Step: 1, Kind: run.KindCall, CallID: "c", Action: "a", Arguments: `{"n":1}`}, {Step: 2, Kind: run.KindCall, CallID: "c", Action: "a", Arguments: `{"n":2}`}}},
		{"a failure with no message gets one",
			ev(call(1, "c1", "a", `{}`), run.ToolCallCompleted{CallID: "c1"}, run.SnippetExecuted{Step: 1, Snippet: run.Snippet{Code: "x := 1"}}),
			[]run.Instruction{{Step: 1, Kind: run.KindCall, CallID: "c1", Action: "a", Arguments: `{}`, Err: "the call failed"},
				{Step: 1, Kind: run.KindSnippet, Code: "x := 1", Err: "the snippet failed"}}},
		{"a snippet and a run_go call are snippets; a kept result is created by its instruction",
			ev(run.AssistantMessage{Step: 3, Text: "```go\nx := 1\n```"},
				run.SnippetExecuted{Step: 3, Snippet: run.Snippet{Code: "x := 1", Writes: []string{"x"}}, Success: true, Created: []run.VariableInfo{{Name: "x"}}, Kept: "snippet_output"},
				call(3, "g", "run_go", `{"code":"y := x"}`),
				run.ToolCallCompleted{CallID: "g", Success: true, Snippet: &run.Snippet{Code: "y := x", Reads: []string{"x"}}, Created: []run.VariableInfo{{Name: "y"}},
					Resolution: &run.Resolution{Args: []run.Argument{{Param: "code", Raw: json.RawMessage(`"y := x"`)}}}}),
			[]run.Instruction{{Step: 3, Kind: run.KindSnippet, Reason: "```go\nx := 1\n```", Code: "x := 1", Writes: []string{"x"}, Created: []string{"x", "snippet_output"}},
				{Step: 3, Kind: run.KindSnippet, Reason: "```go\nx := 1\n```", CallID: "g", Code: "y := x", Reads: []string{"x"}, Created: []string{"y"}}}},
		{"a completion of a call never scheduled still counts",
			ev(run.Unknown{Type: "future"}, run.ToolCallCompleted{CallID: "lost", Success: true}),
			[]run.Instruction{{Kind: run.KindCall, CallID: "lost"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := run.History(c.events)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("History =\n%+v\nwant\n%+v", got, c.want)
			}
			var f run.HistoryFolder
			for i, e := range c.events {
				f.Apply(e)
				if n := len(run.History(c.events[:i+1])); f.Len() != n {
					t.Fatalf("after event %d, the folder has %d instructions, History %d", i+1, f.Len(), n)
				}
			}
		})
	}
}
