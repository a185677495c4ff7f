package eval_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/eval"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/variable"
)

// Ticket is a starting value the action changes in place.
type Ticket struct {
	ID   int
	Tags []string
	Open bool
}

// closeAll closes every ticket and tags it, in place.
func closeAll(tickets []*Ticket) int {
	for _, t := range tickets {
		t.Open = false
		t.Tags = append(t.Tags, "closed")
	}
	return len(tickets)
}

var closeAgent = agent.Options{DisableSnippets: true, Actions: action.MustSet(action.MustNew(action.Spec{
	Name: "close_all", Description: "Close every ticket.", Func: closeAll, Params: []action.Param{{Name: "tickets"}}}))}

// closeSet is a set made in Go whose one case starts from tickets given
// as Go values; dir is its Dir.
func closeSet(dir string) *eval.Set {
	return &eval.Set{Name: "close", Agent: closeAgent, Dir: dir, Cases: []*eval.Case{{
		Name: "close", Task: "Close every ticket.",
		Variables: []eval.Var{{Name: "tickets", Go: []*Ticket{{ID: 1, Tags: []string{"bug"}, Open: true}, {ID: 2, Open: true}}}},
		Expect:    []eval.Expectation{eval.Equal(2), eval.GotRef("close_all", "tickets", "tickets")},
	}}}
}

func allPassed(t *testing.T, what string, r *eval.Report) {
	t.Helper()
	for _, c := range r.Cases {
		for _, tr := range c.Trials {
			if !tr.Passed {
				t.Fatalf("%s: trial %d of %s: %s %+v", what, tr.Repetition, c.Name, tr.Error, tr.Failures)
			}
		}
	}
}

// TestTrialsAreIsolated: four trials at once of a case whose action
// changes its input in place each change a copy of their own (go test
// -race sees no race); the case keeps the values it started with, which
// Save writes; Run writes the recorded cassette into the Dir of a set made
// in Go and replays it from there; and the saved set, loaded, replays its
// own cassette.
func TestTrialsAreIsolated(t *testing.T) {
	dir := t.TempDir()
	set := closeSet(dir)
	model := steps(
		llm.CallTool("close_all", `{"tickets":"<<var:tickets>>"}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:close_all_result>>"}`),
	)
	ctx := context.Background()
	r, err := eval.Run(ctx, set, eval.Options{Model: model, Record: true, Repetitions: 4, Parallel: 4})
	if err != nil {
		t.Fatal(err)
	}
	allPassed(t, "recording", r)
	start := set.Cases[0].Variables[0].Go.([]*Ticket)
	if !start[0].Open || !reflect.DeepEqual(start[0].Tags, []string{"bug"}) || start[1].Tags != nil {
		t.Fatalf("the case's starting tickets were changed: %+v %+v", start[0], start[1])
	}
	if _, err := os.Stat(filepath.Join(dir, "cassettes", "close.json")); err != nil {
		t.Fatalf("Run did not write the cassette into Set.Dir: %v", err)
	}

	// A set made in Go with that Dir replays the cassette found there.
	r, err = eval.Run(ctx, closeSet(dir), eval.Options{Repetitions: 4, Parallel: 4})
	if err != nil {
		t.Fatal(err)
	}
	allPassed(t, "replaying from Set.Dir", r)

	if err := set.Save(dir); err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(filepath.Join(dir, "cases", "close.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(saved), "closed") || strings.Count(string(saved), `"Open": true`) != 2 {
		t.Fatalf("Save wrote other values than the case started with:\n%s", saved)
	}
	loaded, err := eval.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	loaded.Agent = closeAgent
	loaded.Types = map[string]reflect.Type{variable.TypeName(reflect.TypeFor[[]*Ticket]()): reflect.TypeFor[[]*Ticket]()}
	r, err = eval.Run(ctx, loaded, eval.Options{Repetitions: 4, Parallel: 4})
	if err != nil {
		t.Fatal(err)
	}
	allPassed(t, "replaying the saved set", r)
}

// withChan and withHidden hold what a trial cannot have a copy of.
type withChan struct{ Done chan int }

type withHidden struct {
	Name  string
	cache *[]string
}

// TestUncopyableValueIsRefused: Run refuses a Go starting value it cannot
// copy for each trial, naming the part and what to do.
func TestUncopyableValueIsRefused(t *testing.T) {
	for _, tt := range []struct {
		v    any
		want string
	}{
		{&withChan{Done: make(chan int)}, "(*tickets).Done is a chan int"},
		{[]withHidden{{Name: "a", cache: new([]string)}}, "tickets[0].cache is an unexported field of type *[]string"},
	} {
		set := closeSet("")
		set.Cases[0].Variables[0].Go = tt.v
		_, err := eval.Run(context.Background(), set, eval.Options{Model: steps()})
		if err == nil || !strings.Contains(err.Error(), "case close: "+tt.want) {
			t.Errorf("Run = %v, want an error naming %q", err, tt.want)
		}
	}
}
