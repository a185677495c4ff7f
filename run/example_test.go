package run_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/byref/byref/run"
)

func ExampleTransition() {
	fmt.Println(run.CanTransition(run.StatusRunning, run.StatusAwaiting))
	err := run.Transition(run.StatusCreated, run.StatusCompleted)
	fmt.Println(errors.Is(err, run.ErrIllegalTransition))
	fmt.Println(err)
	// Output:
	// true
	// true
	// run: cannot move from created to completed; from created a run can move to: running, failed, cancelling
}

func ExampleFold() {
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	events := []run.Event{
		{RunID: "run_1", Seq: 1, Time: at, Payload: run.RunCreated{Name: "weather"}},
		{RunID: "run_1", Seq: 2, Time: at, Payload: run.StatusChanged{From: run.StatusCreated, To: run.StatusRunning}},
		{RunID: "run_1", Seq: 3, Time: at, Payload: run.ToolCallScheduled{Step: 1, Call: run.ToolCall{ID: "c1", Name: "get_weather"}}},
		{RunID: "run_1", Seq: 4, Time: at.Add(300 * time.Millisecond), Payload: run.ToolCallCompleted{CallID: "c1", Success: true, Duration: 300 * time.Millisecond}},
		{RunID: "run_1", Seq: 5, Time: at, Payload: run.Result{Value: json.RawMessage(`{"temp":21}`)}},
		{RunID: "run_1", Seq: 6, Time: at, Payload: run.StatusChanged{From: run.StatusRunning, To: run.StatusCompleted}},
	}
	s := run.Fold(events)
	fmt.Println(s.Name, s.Status, string(s.Result))
	for _, tc := range s.ToolCalls {
		fmt.Println(tc.Call.Name, tc.Success, tc.Duration)
	}
	// Output:
	// weather completed {"temp":21}
	// get_weather true 300ms
}

func ExampleMemoryStore() {
	ctx := context.Background()
	s := run.NewMemoryStore()

	// Creating twice with one ID is idempotent.
	created := run.Event{RunID: "run_1", Payload: run.RunCreated{Name: "weather", Tags: map[string]string{"order": "42"}}}
	_, ok, _ := s.Create(ctx, created)
	_, again, _ := s.Create(ctx, created)
	fmt.Println(ok, again)

	// Appends state the last sequence number they know.
	last, _ := s.Append(ctx, "run_1", 1,
		run.Event{Payload: run.StatusChanged{From: run.StatusCreated, To: run.StatusRunning}},
		run.Event{Payload: run.AssistantMessage{Text: "Checking the weather."}})
	_, err := s.Append(ctx, "run_1", 1, run.Event{Payload: run.AssistantMessage{Text: "stale"}})
	fmt.Println(last, errors.Is(err, run.ErrConflict))

	// Follow the run: stored events, then live ones, until it completes.
	go s.Append(ctx, "run_1", last, run.Event{Payload: run.StatusChanged{From: run.StatusRunning, To: run.StatusCompleted}})
	for e, err := range s.Events(ctx, "run_1", 1) {
		if err != nil {
			break
		}
		fmt.Println(e.Seq, e.Type())
	}

	runs, _, _ := s.List(ctx, run.Query{Tags: map[string]string{"order": "42"}})
	fmt.Println(runs[0].ID, runs[0].Status)
	// Output:
	// true false
	// 3 true
	// 1 run_created
	// 2 status_changed
	// 3 assistant_message
	// 4 status_changed
	// run_1 completed
}

func ExampleNewID() {
	a, b := run.NewID(), run.NewID()
	fmt.Println(len(a), a < b)
	// Output:
	// 36 true
}

// An action fails its run on purpose with Fail; servers map the kind onto
// their protocols (ACP: invalid_input).
func ExampleFail() {
	check := func(question string) (string, error) {
		if question == "" {
			return "", run.Fail(run.FailureInvalidInput, "the question is empty; ask something")
		}
		return "fine", nil
	}
	_, err := check("")
	var f *run.FailureError
	fmt.Println(errors.As(err, &f), f.Kind)
	fmt.Println(err)
	// Output:
	// true invalid_input
	// invalid_input: the question is empty; ask something
}

// An action that returns an Artifact adds a named file to the run's
// output; its variable records it, content base64 in JSON.
func ExampleArtifact() {
	a := run.Artifact{Name: "orders.csv", ContentType: "text/csv", Content: []byte("id,status\n1,late\n")}
	b, _ := json.Marshal(a)
	fmt.Println(string(b))
	// Output:
	// {"name":"orders.csv","content_type":"text/csv","content":"aWQsc3RhdHVzCjEsbGF0ZQo="}
}

func ExampleHistory() {
	events := []run.Event{
		{Seq: 1, Payload: run.AssistantMessage{Step: 1, Text: "Get the weather."}},
		{Seq: 2, Payload: run.ToolCallScheduled{Step: 1, Call: run.ToolCall{ID: "c1", Name: "get_weather", Arguments: `{"location":"<<var:city>>"}`}}},
		{Seq: 3, Payload: run.ToolCallCompleted{CallID: "c1", Success: true, Result: "weather",
			Created:    []run.VariableInfo{{Name: "weather", Type: "string"}},
			Resolution: &run.Resolution{Args: []run.Argument{{Param: "location", Ref: "city", Type: "string"}}}}},
	}
	for _, in := range run.History(events) {
		fmt.Printf("step %d: %s(%s=<<var:%s>>) -> %s (created: %v) because %q\n", in.Step, in.Action, in.Args[0].Param, in.Args[0].Ref, in.Return, in.ReturnCreated, in.Reason)
	}
	// Output:
	// step 1: get_weather(location=<<var:city>>) -> weather (created: true) because "Get the weather."
}

func ExampleGoType() {
	// Replay code must import the types a run touched: the log writes
	// them with import paths, where reflect's String has package names.
	t := reflect.TypeFor[map[string][]json.RawMessage]()
	fmt.Println(t.String())
	fmt.Println(run.GoType(t))
	for _, nt := range run.NamedTypes(map[string]bool{}, t) {
		fmt.Println(nt.Name, "is", nt.Underlying)
	}
	// Output:
	// map[string][]json.RawMessage
	// map[string][]encoding/json.RawMessage
	// encoding/json.RawMessage is []uint8
}

func ExampleUsage_Add() {
	first := run.Usage{InputTokens: 3329, OutputTokens: 53, CacheReadTokens: 3211, CacheWriteTokens: 115, Cost: 0.0022, System: "You are…"}
	second := run.Usage{InputTokens: 3400, OutputTokens: 40, CacheReadTokens: 3326, ReasoningTokens: 12, Cost: 0.0012}
	total := first.Add(second)
	fmt.Printf("%d in, %d from the cache, %d written, %d out, %d reasoning, $%.4f, system %q\n",
		total.InputTokens, total.CacheReadTokens, total.CacheWriteTokens, total.OutputTokens, total.ReasoningTokens, total.Cost, total.System)
	// Output:
	// 6729 in, 6537 from the cache, 115 written, 93 out, 12 reasoning, $0.0034, system ""
}
