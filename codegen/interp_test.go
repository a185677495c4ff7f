package codegen_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/byref/byref/codegen"
	"github.com/byref/byref/interp"
)

// The snippets-only run uses allowed packages only, so its replay also runs
// in the interpreter, from the starting values, to the same final values.
func TestSnippetRunsInInterp(t *testing.T) {
	rec, want, _ := recordSnippetsOnly(t)
	code, err := codegen.GenerateSnippet(rec)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "snippets_only.snippet.golden", []byte(code))
	in, err := interp.New(interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := in.Eval(context.Background(), interp.Input{Code: code, Vars: []interp.Var{
		{Name: "numbers", Value: reflect.ValueOf([]int{3, 1, 2})},
		{Name: "title", Value: reflect.ValueOf("scores")},
	}})
	if err != nil {
		t.Fatalf("%v\n%s", err, code)
	}
	for name, w := range want {
		v, ok := res.Values[name]
		if !ok {
			t.Errorf("the interpreter has no final value of %s", name)
			continue
		}
		got, err := json.Marshal(v.Interface())
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(t, got, w) {
			t.Errorf("%s = %s, want %s", name, got, w)
		}
	}
}

// Snippets ending early with a top-level return replay in the interpreter
// too: the rest of each sits in a switch that the return breaks out of.
func TestEarlyReturnRunsInInterp(t *testing.T) {
	rec, want, _ := recordEarlyReturn(t)
	code, err := codegen.GenerateSnippet(rec)
	if err != nil {
		t.Fatal(err)
	}
	in, err := interp.New(interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := in.Eval(context.Background(), interp.Input{Code: code, Vars: []interp.Var{
		{Name: "text", Value: reflect.ValueOf("12x")},
	}})
	if err != nil {
		t.Fatalf("%v\n%s", err, code)
	}
	for name, w := range want {
		got, err := json.Marshal(res.Values[name].Interface())
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(t, got, w) {
			t.Errorf("%s = %s, want %s", name, got, w)
		}
	}
}
