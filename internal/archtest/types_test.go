package archtest

import (
	"reflect"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/schema"
)

// TestOneOfEachType: what crosses from the model to the runtime and into
// the log is one Go type, named in each package that needs the name by an
// alias, never a second struct converted field by field.
func TestOneOfEachType(t *testing.T) {
	same := []struct {
		what  string
		types []reflect.Type
	}{
		{"tool call", []reflect.Type{reflect.TypeFor[run.ToolCall](), reflect.TypeFor[llm.ToolCall](), reflect.TypeFor[agent.ToolCall]()}},
		{"tool", []reflect.Type{reflect.TypeFor[run.Tool](), reflect.TypeFor[llm.Tool](), reflect.TypeFor[schema.Tool]()}},
		{"thinking block", []reflect.Type{reflect.TypeFor[run.Thinking](), reflect.TypeFor[llm.Thinking]()}},
		{"run's limits", []reflect.Type{reflect.TypeFor[run.Limits](), reflect.TypeFor[agent.Limits]()}},
		{"approval strategy", []reflect.Type{reflect.TypeFor[run.Approval](), reflect.TypeFor[agent.Approval]()}},
		{"retry policy", []reflect.Type{reflect.TypeFor[run.RetryPolicy](), reflect.TypeFor[llm.RetryPolicy]()}},
	}
	for _, s := range same {
		for _, typ := range s.types[1:] {
			if typ != s.types[0] {
				t.Errorf("the %s is %v and %v; declare it once (in package run) and alias it", s.what, s.types[0], typ)
			}
		}
	}
}
