package codegen_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/byref/byref/codegen"
	"github.com/byref/byref/run"
)

// TestStructArgumentCall: an action whose function takes its arguments as
// one struct (its parameters are the struct's fields) is called with that
// struct written as a literal of the recorded fields; a field left to its
// default without a recorded one is left out, a recorded default is
// written.
func TestStructArgumentCall(t *testing.T) {
	const pkg = "example.com/shop"
	rec := &codegen.Recording{
		Actions: map[string]run.GoAction{"search": {Name: "search", Func: pkg + ".Search",
			Type:     "func(context.Context, " + pkg + ".SearchArgs) ([]string, error)",
			Params:   []string{"query", "limit", "exact"},
			Fields:   []run.ArgField{{Field: "Query", Type: "string"}, {Field: "Limit", Type: "int"}, {Field: "Exact", Type: "bool"}},
			Defaults: map[string]json.RawMessage{"limit": json.RawMessage("5")}}},
		Types: map[string]run.NamedType{pkg + ".SearchArgs": {Name: pkg + ".SearchArgs",
			Underlying: `struct { Query string "json:\"query\""; Limit int "json:\"limit\""; Exact bool "json:\"exact\"" }`}},
		Variables: []codegen.Variable{{Name: "q", Type: "string", Start: true, Value: json.RawMessage(`"x"`)}},
		Steps: []codegen.Instruction{{Instruction: run.Instruction{Step: 1, Kind: codegen.KindCall, Action: "search", Return: "hits", ReturnCreated: true,
			Args: []run.Argument{{Param: "query", Ref: "q", Type: "string"}, {Param: "limit", Default: true}, {Param: "exact", Default: true}}}}},
	}
	src, err := codegen.Generate(rec, codegen.Options{Package: "replay"})
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if want := "hits, err := shop.Search(ctx, shop.SearchArgs{Query: q, Limit: 5})"; !strings.Contains(string(src), want) {
		t.Errorf("no %q in:\n%s", want, src)
	}
	// A field name from the log is code: it must be a Go identifier.
	id := rec.Actions["search"]
	id.Fields = []run.ArgField{{Field: "Query}; os.Exit(1); _ = T{X", Type: "string"}, {Field: "Limit", Type: "int"}, {Field: "Exact", Type: "bool"}}
	rec.Actions["search"] = id
	if src, err := codegen.Generate(rec, codegen.Options{Package: "replay"}); err == nil {
		t.Errorf("a field name that is no identifier was written:\n%s", src)
	}
}

// TestValuesFromJSON: recorded JSON is written as Go literals of the
// recorded types where the log vouches for one, and decoded from the JSON
// (replay.JSON) where it does not: a type that decodes itself, a type the
// log does not describe.
func TestValuesFromJSON(t *testing.T) {
	const pkg = "example.com/shop"
	rec := &codegen.Recording{
		Actions: map[string]run.GoAction{"f": {Name: "f", Func: pkg + ".F",
			Type:   "func(time.Time, map[string]any, " + pkg + ".Celsius, *int, []" + pkg + ".Opaque, map[int]bool, float32)",
			Params: []string{"at", "m", "c", "p", "o", "k", "x"}}},
		Types: map[string]run.NamedType{
			"time.Time":      {Name: "time.Time", Underlying: "struct { }", Unmarshals: true},
			pkg + ".Celsius": {Name: pkg + ".Celsius", Underlying: "float64"},
		},
		Steps: []codegen.Instruction{{Instruction: run.Instruction{Step: 1, Kind: codegen.KindCall, Action: "f", Args: []run.Argument{
			{Param: "at", Raw: json.RawMessage(`"2026-11-24T20:00:00Z"`)},
			{Param: "m", Raw: json.RawMessage(`{"b":[1,"x",null],"a":2.5}`)},
			{Param: "c", Raw: json.RawMessage(`21`)},
			{Param: "p", Raw: json.RawMessage(`7`)},
			{Param: "o", Raw: json.RawMessage(`[{"k":1}]`)},
			{Param: "k", Raw: json.RawMessage(`{"2":true,"10":false}`)},
			{Param: "x", Raw: json.RawMessage(`1e2`)},
		}}}},
	}
	src, err := codegen.Generate(rec, codegen.Options{Package: "replay"})
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	want := "shop.F(replay.JSON[time.Time](`\"2026-11-24T20:00:00Z\"`), " + `map[string]any{"a": 2.5, "b": []any{1.0, "x", nil}}, 21.0, replay.Ptr[int](7), replay.JSON[[]shop.Opaque](` + "`" + `[{"k":1}]` + "`" + `), map[int]bool{10: false, 2: true}, 1e2)`
	if !strings.Contains(string(src), want) {
		t.Errorf("no\n%s\nin\n%s", want, src)
	}
}

// TestOldLogNamesTheFix: a log written before the runtime recorded Go
// identities cannot be replayed, and the error says what to do.
func TestOldLogNamesTheFix(t *testing.T) {
	events := []run.Event{
		{RunID: "run_old", Seq: 1, Payload: run.ToolCallScheduled{Step: 1, Call: run.ToolCall{ID: "c1", Name: "list_items", Arguments: `{}`}}},
		{Seq: 2, Payload: run.ToolCallCompleted{CallID: "c1", Success: true, Resolution: &run.Resolution{}}},
	}
	rec, err := codegen.FromEvents(events)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := codegen.Generate(rec, codegen.Options{}); err == nil || !strings.Contains(err.Error(), `does not record the action's Go identity`) || !strings.Contains(err.Error(), "run it again") {
		t.Errorf("err = %v", err)
	}
	events[1].Payload = run.ToolCallCompleted{CallID: "c1", Success: true}
	if _, err := codegen.FromEvents(events); err == nil || !strings.Contains(err.Error(), "records no resolution") {
		t.Errorf("err = %v", err)
	}
}

// TestSetStart: a starting value the log lacks can be given, of the
// variable's recorded type; secrets, non-starting variables and other
// types are refused.
func TestSetStart(t *testing.T) {
	rec := &codegen.Recording{Variables: []codegen.Variable{
		{Name: "n", Type: "int", Start: true},
		{Name: "key", Type: "string", Start: true, Secret: true},
		{Name: "m", Type: "int"},
	}}
	if err := rec.SetStart("n", 3); err != nil || string(rec.Variables[0].Value) != "3" {
		t.Errorf("SetStart(n, 3): %v, value %s", err, rec.Variables[0].Value)
	}
	for _, c := range []struct {
		name  string
		value any
		want  string
	}{{"n", "3", "cannot be the starting value"}, {"key", "k", "secret"}, {"m", 1, "not a starting variable"}, {"x", 1, "no variable"}} {
		if err := rec.SetStart(c.name, c.value); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SetStart(%s, %v) = %v, want %q", c.name, c.value, err, c.want)
		}
	}
}

// TestLogIdentitiesValidated: a log's symbols, types and field names end
// up in code, so ones that are not Go names are refused, never written.
func TestLogIdentitiesValidated(t *testing.T) {
	for name, id := range map[string]run.GoAction{
		"symbol": {Name: "f", Func: "example.com/p.F();panic(1);_=x", Type: "func()"},
		"path":   {Name: "f", Func: `example.com/p"+x.F`, Type: "func()"},
		"type":   {Name: "f", Func: "example.com/p.F", Type: "func(example.com/p.T{}) int"},
		"field":  {Name: "f", Func: "example.com/p.F", Type: "func(struct { A();B int })"},
	} {
		rec := &codegen.Recording{Actions: map[string]run.GoAction{"f": id},
			Steps: []codegen.Instruction{{Instruction: run.Instruction{Step: 1, Kind: codegen.KindCall, Action: "f"}}}}
		if len(id.Type) > 10 && strings.Contains(id.Type, "(") && id.Type != "func()" {
			rec.Steps[0].Args = []run.Argument{{Param: "a", Raw: json.RawMessage(`{}`)}}
		}
		src, err := codegen.Generate(rec, codegen.Options{Package: "replay"})
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(src), "\n") {
			if code, _, _ := strings.Cut(line, "//"); strings.Contains(code, "panic(1)") || strings.Contains(code, `"+x`) || strings.Contains(code, "A()") {
				t.Errorf("%s: written into code: %q\n%s", name, line, src)
			}
		}
	}
	// Action names become identifiers, and symbols go into comments.
	rec := &codegen.Recording{Actions: map[string]run.GoAction{
		"f(); panic(1)": {Name: "f(); panic(1)", Func: "example.com/p.F", Type: "func()"},
		"g":             {Name: "g", Func: "example.com/p.G.func1\nfunc init() { panic(1) }", Type: "func()"},
	}, Steps: []codegen.Instruction{{Instruction: run.Instruction{Step: 1, Kind: codegen.KindCall, Action: "f(); panic(1)"}}}}
	if _, err := codegen.Generate(rec, codegen.Options{}); err == nil {
		t.Error("an action name that is no identifier was accepted")
	}
	rec.Steps[0].Action = "g"
	src, err := codegen.Generate(rec, codegen.Options{Main: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(src), "\n") {
		if strings.Contains(line, "panic(1)") && !strings.HasPrefix(strings.TrimSpace(line), "//") {
			t.Errorf("the symbol left its comment: %q", line)
		}
	}
}

// TestActionSetFunc: main fills the looked-up actions from the set of the
// function ActionSetFunc names, by import path or, beside the user's
// package main, by its bare name; a name that is no Go name is refused.
func TestActionSetFunc(t *testing.T) {
	rec := &codegen.Recording{
		Actions: map[string]run.GoAction{"greet": {Name: "greet", Func: "example.com/app.New.func1", Type: "func(string) string", Params: []string{"name"}}},
		Steps: []codegen.Instruction{{Instruction: run.Instruction{Step: 1, Kind: codegen.KindCall, Action: "greet", Return: "hello", ReturnCreated: true,
			Args: []run.Argument{{Param: "name", Raw: json.RawMessage(`"Ada"`)}}}}},
		Variables: []codegen.Variable{{Name: "hello", Type: "string"}},
	}
	for fn, want := range map[string]string{"example.com/app.Actions": "set := app.Actions()", "main.actions": "set := actions()"} {
		src, err := codegen.Generate(rec, codegen.Options{Main: true, ActionSetFunc: fn})
		if err != nil {
			t.Fatalf("%s: %v\n%s", fn, err, src)
		}
		if !strings.Contains(string(src), want) || !strings.Contains(string(src), `replay.Func[func(string) string](set, "greet")`) {
			t.Errorf("%s: no %q in\n%s", fn, want, src)
		}
	}
	if _, err := codegen.Generate(rec, codegen.Options{Main: true, ActionSetFunc: `app"; panic(1) //.F`}); err == nil {
		t.Error("an ActionSetFunc that is no Go name was written")
	}
}
