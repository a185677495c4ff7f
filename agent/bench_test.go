package agent_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
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
	st, err := newState(agent.Options{
		Actions:   action.MustSet(a),
		Variables: []variable.Spec{{Name: "city", Value: "Paris"}, {Name: "days", Value: 3}},
	})
	if err != nil {
		b.Fatal(err)
	}
	step := agent.Step{Calls: []agent.ToolCall{{ID: "c", Name: "forecast", Arguments: `{"location":"<<var:city>>","days":3,"unit":"c","return":"days"}`}}}
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
func bigRuntime(b *testing.B, nvars int) *agent.State {
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
	st, err := newState(agent.Options{Actions: action.MustSet(actions...), Variables: specs})
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

// BenchmarkMatrixFullBuild: an Agent with 200 actions × 4 parameters and
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
		if _, err := newState(agent.Options{Actions: actions, Variables: specs}); err != nil {
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

// BenchmarkDispatch is one validated tool call through the public API, as
// a host dispatches a model's call: JSON arguments in, the tool message's
// text out, the result stored as a new variable. A fresh State (a new run)
// every DefaultMaxSteps calls, not timed.
func BenchmarkDispatch(b *testing.B) {
	forecast := action.MustNew(action.Spec{
		Name: "get_weather", Description: "Get the weather forecast.",
		Func: func(location, unit string, days int) []float64 {
			out := make([]float64, days)
			for i := range out {
				out[i] = 21 + float64(i)
			}
			return out
		},
		Params: []action.Param{{Name: "location"}, {Name: "unit", Enum: []any{"c", "f"}}, {Name: "days", Enum: []any{1, 2, 3, 4, 5, 6, 7}}},
	})
	benchDispatch(b, forecast)
}

// benchDispatch measures one call of a (a get_weather action) per op,
// from its JSON arguments to the tool message, through the public API:
// a fresh State every DefaultMaxSteps calls, as a run would have.
func benchDispatch(b *testing.B, a *action.Action) {
	b.Helper()
	rt, err := agent.New(agent.Options{Actions: action.MustSet(a)})
	if err != nil {
		b.Fatal(err)
	}
	st, _ := rt.NewState()
	step := agent.Step{Calls: []agent.ToolCall{{ID: "call-1", Name: "get_weather", Arguments: `{"location":"Paris","unit":"c","days":3}`}}}
	ctx := context.Background()
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		r := st.Execute(ctx, step)
		if !r.Responses[0].Success {
			b.Fatal(r.Responses[0].Error)
		}
		_ = r.Responses[0].Content()
		if n++; n == agent.DefaultMaxSteps {
			b.StopTimer()
			st, _ = rt.NewState()
			n = 0
			b.StartTimer()
		}
	}
}

// forecast is the result of the peers benchmark's tool
// (../shared/bench/peers): a struct holding a slice, whose preview is
// written field by field.
type forecast struct {
	Location string
	Unit     string
	Days     int
	Temps    []float64
}

// BenchmarkDispatchStruct is BenchmarkDispatch with the peers benchmark's
// workload: a struct result, and days bounded by Min and Max rather than
// an enum.
func BenchmarkDispatchStruct(b *testing.B) {
	temps := [7]float64{18.5, 19.0, 21.25, 20.0, 17.5, 16.0, 18.0}
	weather := action.MustNew(action.Spec{
		Name: "get_weather", Description: "Returns a daily temperature forecast for a location.",
		Func: func(location, unit string, days int) forecast {
			t := make([]float64, min(max(days, 0), len(temps)))
			copy(t, temps[:])
			return forecast{Location: location, Unit: unit, Days: days, Temps: t}
		},
		Params: []action.Param{{Name: "location", Description: "City name"}, {Name: "unit", Enum: []any{"c", "f"}}, {Name: "days", Min: 1, Max: 7}},
	})
	benchDispatch(b, weather)
}

// BenchmarkDispatchFlat measures that a call's cost does not grow with
// what its State holds: 10, 1,000 and 10,000 variables (and as many
// results of the same action before the timed calls), one call per op.
func BenchmarkDispatchFlat(b *testing.B) {
	weather := action.MustNew(action.Spec{
		Name: "get_weather", Func: func(location, unit string) string { return unit + " in " + location },
		Params: []action.Param{{Name: "location"}, {Name: "unit", Enum: []any{"c", "f"}}},
	})
	rt, err := agent.New(agent.Options{Actions: action.MustSet(weather)})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	step := agent.Step{Calls: []agent.ToolCall{{ID: "c", Name: "get_weather", Arguments: `{"location":"<<var:v0>>","unit":"c"}`}}}
	for _, n := range []int{10, 1_000, 10_000} {
		b.Run(fmt.Sprintf("vars=%d", n), func(b *testing.B) {
			st, _ := rt.NewState()
			for i := range n {
				if err := st.Set(fmt.Sprintf("v%d", i), "Paris"); err != nil {
					b.Fatal(err)
				}
			}
			for range n { // as many earlier results: weather … weather_n
				st.Execute(ctx, step)
			}
			b.ReportAllocs()
			for b.Loop() {
				if r := st.Execute(ctx, step); !r.Responses[0].Success {
					b.Fatal(r.Responses[0].Error)
				}
			}
		})
	}
}
