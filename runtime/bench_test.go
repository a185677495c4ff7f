package runtime_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/runtime"
	"github.com/byref/byref/variable"
)

// BenchmarkExecuteCall: one call of a 3-parameter action with one reference,
// validation on.
func BenchmarkExecuteCall(b *testing.B) {
	a := action.MustNew(action.Spec{
		Name: "forecast",
		Func: func(location string, days int, unit string) int { return days },
		Params: []action.Param{
			{Name: "location"}, {Name: "days"}, {Name: "unit", Enum: []any{"c", "f"}},
		},
	})
	st, err := newState(runtime.Options{
		Actions:   action.MustSet(a),
		Variables: []variable.Spec{{Name: "city", Value: "Paris"}, {Name: "days", Value: 3}},
	})
	if err != nil {
		b.Fatal(err)
	}
	step := runtime.Step{Calls: []runtime.ToolCall{{ID: "c", Name: "forecast", Arguments: `{"location":"<<var:city>>","days":3,"unit":"c","return":"days"}`}}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := st.Execute(ctx, step); !r.Responses[0].Success {
			b.Fatal(r.Responses[0].Error)
		}
	}
}

// bigRuntime has 200 actions of 4 parameters over 10 types and nvars
// variables of those types.
func bigRuntime(b *testing.B, nvars int) *runtime.State {
	b.Helper()
	types := []reflect.Type{
		reflect.TypeFor[string](), reflect.TypeFor[int](), reflect.TypeFor[float64](), reflect.TypeFor[bool](),
		reflect.TypeFor[[]string](), reflect.TypeFor[*Thing](), reflect.TypeFor[map[string]int](),
		reflect.TypeFor[[]int](), reflect.TypeFor[fmt.Stringer](), reflect.TypeFor[any](),
	}
	var actions []*action.Action
	for i := 0; i < 200; i++ {
		in := make([]reflect.Type, 4)
		ps := make([]action.Param, 4)
		for j := range in {
			in[j] = types[(i+j)%len(types)]
			ps[j] = action.Param{Name: fmt.Sprintf("p%d", j), Description: "A parameter."}
		}
		out := []reflect.Type{types[i%len(types)]}
		fn := reflect.MakeFunc(reflect.FuncOf(in, out, false), func(args []reflect.Value) []reflect.Value {
			return []reflect.Value{reflect.Zero(out[0])}
		})
		actions = append(actions, action.MustNew(action.Spec{Name: fmt.Sprintf("act%d", i), Description: "An action.", Func: fn.Interface(), Params: ps}))
	}
	values := []any{"s", 1, 1.5, true, []string{}, &Thing{}, map[string]int{}, []int{}, named("x")}
	var specs []variable.Spec
	for i := 0; i < nvars; i++ {
		specs = append(specs, variable.Spec{Name: fmt.Sprintf("v%d", i), Value: values[i%len(values)]})
	}
	st, err := newState(runtime.Options{Actions: action.MustSet(actions...), Variables: specs})
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// BenchmarkMatrixUpdate: one variable changes type (one column) with 200
// actions × 4 parameters and 200 variables.
func BenchmarkMatrixUpdate(b *testing.B) {
	st := bigRuntime(b, 200)
	vals := []any{"s", 1}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if err := st.Set("v0", vals[i%2]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMatrixFullBuild: a Runtime with 200 actions × 4 parameters and
// 200 variables, from nothing.
func BenchmarkMatrixFullBuild(b *testing.B) {
	st := bigRuntime(b, 200)
	actions := st.Actions()
	var specs []variable.Spec
	for _, v := range st.Variables() {
		specs = append(specs, variable.Spec{Name: v.Name, Value: v.Value})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := newState(runtime.Options{Actions: actions, Variables: specs}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolsCold: every schema for 200 actions and 200 variables, after
// a change that touches every action.
func BenchmarkToolsCold(b *testing.B) {
	st := bigRuntime(b, 200)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		b.StopTimer()
		// A new variable of type any-compatible types touches every group.
		i++
		st.Set(fmt.Sprintf("extra%d", i%2), named("x"))
		st.Delete(fmt.Sprintf("extra%d", (i+1)%2))
		b.StartTimer()
		st.Tools()
	}
}

// BenchmarkToolsWarm: the same with nothing changed: no schema is rebuilt.
func BenchmarkToolsWarm(b *testing.B) {
	st := bigRuntime(b, 200)
	st.Tools()
	b.ReportAllocs()
	for b.Loop() {
		st.Tools()
	}
}
