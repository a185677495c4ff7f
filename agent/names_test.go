package agent_test

import (
	"errors"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/interp"
	"github.com/byref/byref/variable"
)

// TestDuplicateVariables: two starting variables with one name are refused
// at construction, naming both.
func TestDuplicateVariables(t *testing.T) {
	_, err := agent.New(agent.Options{Variables: []variable.Spec{
		{Name: "rows", Value: []int{1}},
		{Name: "other", Value: 1},
		{Name: "rows", Value: "text"},
	}})
	if !errors.Is(err, variable.ErrInvalidName) {
		t.Fatalf("err = %v, want ErrInvalidName", err)
	}
	for _, want := range []string{"Options.Variables[0] ([]int)", "Options.Variables[2] (string)", `"rows"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %s", err, want)
		}
	}
}

// TestVariableNamesClash: a variable may not take the name of an allowed
// package, a host package of the snippets, a built-in action or an action.
func TestVariableNamesClash(t *testing.T) {
	type Shop struct{}
	opts := agent.Options{Snippets: interp.Options{Symbols: []interp.Exports{{"example.com/shop/shop": {"Shop": reflect.ValueOf((*Shop)(nil))}}}}}
	for _, name := range []string{"fmt", "strings", "time", "sort", "shop", "run_go", "terminate", "ask_user"} {
		o := opts
		o.Variables = []variable.Spec{{Name: name, Value: 1}}
		_, err := agent.New(o)
		if !errors.Is(err, variable.ErrInvalidName) {
			t.Errorf("a variable named %s: err = %v, want ErrInvalidName", name, err)
		}
	}
}

// TestSnippetPackagesAgree: variable refuses exactly the package names of
// interp's allow-list.
func TestSnippetPackagesAgree(t *testing.T) {
	names := map[string]bool{}
	for _, p := range interp.AllowedPackages {
		name := path.Base(p)
		if p == "math/rand/v2" {
			name = "rand"
		}
		names[name] = true
		if !variable.IsSnippetPackage(name) {
			t.Errorf("variable accepts %s, the name of the allowed package %s", name, p)
		}
	}
	for _, name := range []string{"fmt", "json", "sha512"} {
		if !names[name] {
			t.Errorf("%s is not an allowed package name", name)
		}
	}
}
