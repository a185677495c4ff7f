package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/byref/byref/run"
)

// TestDescribeProgress: what an action reports with agent.Progress is a
// line of byref run's output.
func TestDescribeProgress(t *testing.T) {
	got := describe(run.Event{Payload: run.Progress{CallID: "call_1", Message: "3 of 10 pages"}})
	if got != "  … 3 of 10 pages" {
		t.Fatalf("describe = %q", got)
	}
}

// TestPrintsTextAsItArrives: byref run prints the model's text as it is
// written, then ends the line when the message is logged, without
// printing it again; a message whose pieces were missed is printed whole.
func TestPrintsTextAsItArrives(t *testing.T) {
	var out strings.Builder
	p := &printer{out: &out}
	p.show(run.Event{Payload: run.Delta{Step: 1, What: run.DeltaText, Text: "Hello, "}})
	if got := out.String(); got != "model: Hello, " {
		t.Fatalf("after the first piece: %q", got)
	}
	p.show(run.Event{Payload: run.Delta{Step: 1, What: run.DeltaText, Text: "world."}})
	// The model call's usage is logged before its message, and shows as
	// nothing: the message is not printed again.
	p.show(run.Event{Payload: run.Usage{InputTokens: 10, OutputTokens: 3}})
	p.show(run.Event{Payload: run.AssistantMessage{Step: 1, Text: "Hello, world."}})
	p.show(run.Event{Payload: run.Delta{Step: 2, What: run.DeltaText, Text: "Par"}})
	p.show(run.Event{Payload: run.AssistantMessage{Step: 2, Text: "Partial, then whole."}})
	want := "model: Hello, world.\nmodel: Par\nmodel: Partial, then whole.\n"
	if got := out.String(); got != want {
		t.Fatalf("printed %q, want %q", got, want)
	}
}

// Every command that takes --model opens it with openModel, which takes
// "scripted", the built-in model, as demo does.
func TestOpenModelTakesScripted(t *testing.T) {
	m, err := openModel("scripted")
	if err != nil || m == nil {
		t.Fatalf("openModel(scripted) = %v, %v", m, err)
	}
	if _, err := openModel("scripted:nope"); err == nil || !strings.Contains(err.Error(), "scripted:approval") {
		t.Fatalf("openModel(scripted:nope): %v", err)
	}
}

// TestRunSession: byref run --session goes on with a session's
// conversation in a new process: the second run finds the variable the
// first made, from the database, and does not make it again.
func TestRunSession(t *testing.T) {
	db := filepath.Join(t.TempDir(), "runs.db")
	args := []string{"run", "--db", db, "--model", "scripted:session", "--approve", "none", "--session", "chat"}
	out, code := byref(t, "", append(args, "make the answer")...)
	if code != 0 || !strings.Contains(out, "session chat: 0 runs before this one, 0 variables") || !strings.Contains(out, "answer := 6 * 7") {
		t.Fatalf("turn 1: exit %d:\n%s", code, out)
	}
	out, code = byref(t, "", append(args, "what was the answer?")...)
	if code != 0 || !strings.Contains(out, "session chat: 1 run before this one, 1 variable") || strings.Contains(out, "answer := 6 * 7") || !strings.Contains(out, "42") {
		t.Fatalf("turn 2: exit %d:\n%s", code, out)
	}
}
