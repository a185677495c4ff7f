package agent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// Corpus is a host object: unexported state, so the model passes it by
// reference only.
type Corpus struct{ docs []string }

// FindArgs is an arguments struct, the ADK Go / Eino / Genkit way: one field
// a reference-only host object, one a raw or referenced string, two raw
// values with an enum and a range.
type FindArgs struct {
	In    *Corpus `json:"in" jsonschema:"description=The documents to search."`
	Query string  `json:"query" jsonschema:"description=Text to find."`
	Mode  string  `json:"mode" jsonschema:"enum=prefix,enum=substring"`
	Limit int     `json:"limit,omitempty" jsonschema:"minimum=1,maximum=5"`
}

func find(ctx context.Context, a FindArgs) ([]string, error) {
	if a.In == nil {
		return nil, errors.New("no corpus")
	}
	limit := a.Limit
	if limit == 0 {
		limit = 5
	}
	var out []string
	for _, d := range a.In.docs {
		if a.Mode == "prefix" && strings.HasPrefix(d, a.Query) || a.Mode == "substring" && strings.Contains(d, a.Query) {
			out = append(out, d)
		}
		if len(out) == limit {
			break
		}
	}
	fmt.Fprintf(action.Stdout(ctx), "%d found\n", len(out))
	return out, nil
}

var findAction = action.MustNew(action.Spec{Name: "find", Description: "Find documents.", Func: find, NeedsApproval: true})

// findFlat is find written the old way, one parameter per field.
var findFlat = action.MustNew(action.Spec{
	Name: "find", Description: "Find documents.",
	Func: func(ctx context.Context, in *Corpus, query, mode string, limit int) ([]string, error) {
		return find(ctx, FindArgs{In: in, Query: query, Mode: mode, Limit: limit})
	},
	Params: []action.Param{
		{Name: "in", Description: "The documents to search."},
		{Name: "query", Description: "Text to find."},
		{Name: "mode", Enum: []any{"prefix", "substring"}},
		{Name: "limit", Optional: true, Min: 1, Max: 5},
	},
})

func corpusVars() []variable.Spec {
	return []variable.Spec{
		{Name: "docs", Value: &Corpus{docs: []string{"go fmt", "go vet", "gopher", "rust"}}},
		{Name: "topic", Value: "go"},
	}
}

// A scripted model calls a struct action with a reference for one field
// (and a reference-only host object for another) and raw values for the
// rest; the call waits for approval, which sees the resolved references;
// the function gets the struct; the log records one resolution per field.
func TestStructActionEndToEnd(t *testing.T) {
	model := llm.NewScripted(
		llm.CallTool("find", `{"in":"<<var:docs>>","query":"<<var:topic>>","mode":"prefix","limit":2,"return":null}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:find_result>>"}`),
	)
	rt := newAgent(t, model, agent.Options{Actions: action.MustSet(findAction), Variables: corpusVars()})
	h, err := rt.Start(context.Background(), agent.RunOptions{Task: "find go docs"})
	if err != nil {
		t.Fatal(err)
	}
	req := waitFor(t, h, 1)
	if req.Call == nil || req.Call.Name != "find" || req.Call.References["query"].Variable != "topic" || req.Call.References["in"].Variable != "docs" {
		t.Fatalf("the approver sees %+v", req.Call)
	}
	resume(t, h, req.ID, run.Answer{Decision: run.Approved})
	if o := wait(t, h); string(o.Result) != `["go fmt","go vet"]` {
		t.Fatalf("outcome %+v", o)
	}
	var res *run.Resolution
	for _, e := range events(t, h) {
		if c, ok := e.Payload.(run.ToolCallCompleted); ok && c.Resolution != nil && res == nil {
			res = c.Resolution
		}
	}
	if res == nil {
		t.Fatal("no resolution in the log")
	}
	var parts []string
	for _, a := range res.Args {
		parts = append(parts, fmt.Sprintf("%s=%s%s(%s)", a.Param, a.Ref, a.Raw, a.Type))
	}
	got := strings.Join(parts, " ")
	want := `in=docs(*agent_test.Corpus) query=topic(string) mode="prefix"() limit=2()`
	if got != want {
		t.Errorf("resolution\n got %s\nwant %s", got, want)
	}
}

// The schema the model reads for a struct action is byte for byte the one
// of the same action written with one parameter per field.
func TestStructActionSchemaEqualsFlat(t *testing.T) {
	schemaOf := func(a *action.Action) []byte {
		st, err := newState(agent.Options{Actions: action.MustSet(a), Variables: corpusVars()})
		if err != nil {
			t.Fatal(err)
		}
		return st.Tools()[0].Parameters
	}
	structSchema, flatSchema := schemaOf(findAction), schemaOf(findFlat)
	if string(structSchema) != string(flatSchema) {
		t.Errorf("struct action schema (%d bytes)\n%s\nflat (%d bytes)\n%s", len(structSchema), structSchema, len(flatSchema), flatSchema)
	}
	golden(t, "find_struct.schema.json", indent(t, structSchema))
}

// Errors name the field (by its JSON name, the one the model sent), and the
// strict reference rule holds per field; a refused call changes nothing.
func TestStructActionErrorsNameFields(t *testing.T) {
	free := action.MustNew(action.Spec{Name: "find", Func: find}) // no approval
	st, err := newState(agent.Options{Actions: action.MustSet(free), Variables: corpusVars()})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, args, want string }{
		{"look-alike reference", `{"in":"<<var:docs>>","query":"<<VAR:topic>>","mode":"prefix","return":null}`,
			`parameter "query" of find: "<<VAR:topic>>" is not a reference`},
		{"out of range", `{"in":"<<var:docs>>","query":"go","mode":"prefix","limit":9,"return":null}`,
			`parameter "limit" of find: 9 is out of range, want 1 to 5`},
		{"not in the enum", `{"in":"<<var:docs>>","query":"go","mode":"exact","return":null}`,
			`parameter "mode" of find`},
		{"raw value for a reference-only field", `{"in":{"docs":[]},"query":"go","mode":"prefix","return":null}`,
			`parameter "in" of find takes a reference only`},
		{"missing field", `{"in":"<<var:docs>>","mode":"prefix","return":null}`,
			`find needs parameter "query"`},
		{"the Go name of a field", `{"in":"<<var:docs>>","Query":"go","query":"go","mode":"prefix","return":null}`,
			`find has no parameter "Query"; its parameters are: in, query, mode, limit`},
		{"wrong type of variable", `{"in":"<<var:topic>>","query":"go","mode":"prefix","return":null}`,
			`variable topic is a string, which cannot be passed as "in"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := len(st.Variables())
			resp := call(st, "find", c.args)
			if resp.Success || !strings.Contains(resp.Error, c.want) {
				t.Fatalf("success %v, error %q; want it to contain %q", resp.Success, resp.Error, c.want)
			}
			if n := len(st.Variables()); n != before {
				t.Errorf("%d variables after a refused call, want %d", n, before)
			}
		})
	}
	// And a good call, with the optional field left out, succeeds.
	resp := call(st, "find", `{"in":"<<var:docs>>","query":"go","mode":"substring","return":null}`)
	if !resp.Success || !strings.Contains(resp.Stdout, "3 found") {
		t.Fatalf("%+v", resp)
	}
}

// A snippet calls a struct action with one argument per field, in the
// order of the tool schema, with variables or Go values.
func TestStructActionFromSnippet(t *testing.T) {
	free := action.MustNew(action.Spec{Name: "find", Func: find})
	st, err := newState(agent.Options{Actions: action.MustSet(free), Variables: corpusVars()})
	if err != nil {
		t.Fatal(err)
	}
	s := snippet(st, "hits, err := find(docs, topic, \"prefix\", 1)\nif err != nil { panic(err) }\nfmt.Println(hits)")
	if !s.Success || !strings.Contains(s.Stdout, "[go fmt]") || !strings.Contains(s.Stdout, "1 found") {
		t.Fatalf("snippet = %+v", s)
	}
	if v, err := agent.Value[[]string](st, "hits"); err != nil || fmt.Sprint(v) != "[go fmt]" {
		t.Errorf("hits = %v (%v)", v, err)
	}
	// The struct form is refused by the compiler with the signature.
	s = snippet(st, `find(FindArgs{Query: "go"})`)
	if s.Success {
		t.Fatalf("snippet = %+v", s)
	}
}

// WeatherArgs is the peers benchmark's workload as an arguments struct,
// with the tags Eino and Genkit read.
type WeatherArgs struct {
	Location string `json:"location" jsonschema:"description=City name"`
	Unit     string `json:"unit" jsonschema:"enum=c,enum=f"`
	Days     int    `json:"days" jsonschema:"minimum=1,maximum=7"`
}

func forecastDays(days int) []float64 {
	out := make([]float64, days)
	for i := range out {
		out[i] = 21 + float64(i)
	}
	return out
}

// BenchmarkDispatchStructArgs is BenchmarkDispatch's call with the
// function taking a struct (struct) and, for comparison in one run, the
// same function with one parameter per field (flat).
func BenchmarkDispatchStructArgs(b *testing.B) {
	for _, c := range []struct {
		name string
		a    *action.Action
	}{
		{"struct", action.MustNew(action.Spec{Name: "get_weather", Func: func(a WeatherArgs) []float64 { return forecastDays(a.Days) }})},
		{"flat", action.MustNew(action.Spec{
			Name: "get_weather", Func: func(location, unit string, days int) []float64 { return forecastDays(days) },
			Params: []action.Param{{Name: "location", Description: "City name"}, {Name: "unit", Enum: []any{"c", "f"}}, {Name: "days", Min: 1, Max: 7}},
		})},
	} {
		b.Run(c.name, func(b *testing.B) { benchDispatch(b, c.a) })
	}
}
