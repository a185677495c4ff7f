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
		Steps: []codegen.Instruction{{Step: 1, Kind: codegen.KindCall, Action: "search", Return: "hits", ReturnCreated: true,
			Args: []run.Argument{{Param: "query", Ref: "q", Type: "string"}, {Param: "limit", Default: true}, {Param: "exact", Default: true}}}},
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
