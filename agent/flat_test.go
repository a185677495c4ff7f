package agent_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
)

// callCost is what one call costs on average over n calls: allocations
// and bytes allocated (both independent of the machine's speed and load),
// and the heap it leaves behind once collected.
type callCost struct {
	allocs, bytes, retained float64
}

// measureCalls makes a State holding vars variables and as many earlier
// results, then measures n more calls of the same action.
func measureCalls(t *testing.T, rt *agent.Agent, vars, n int) callCost {
	t.Helper()
	ctx := context.Background()
	step := agent.Step{Calls: []agent.ToolCall{{ID: "c", Name: "get_weather", Arguments: `{"location":"<<var:v0>>","unit":"c"}`}}}
	st, err := rt.NewState()
	if err != nil {
		t.Fatal(err)
	}
	for i := range vars {
		if err := st.Set(fmt.Sprintf("v%d", i), "Paris"); err != nil {
			t.Fatal(err)
		}
	}
	for range vars {
		st.Execute(ctx, step)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		if r := st.Execute(ctx, step); !r.Responses[0].Success {
			t.Fatal(r.Responses[0].Error)
		}
	}
	runtime.ReadMemStats(&after)
	c := callCost{
		allocs: float64(after.Mallocs-before.Mallocs) / float64(n),
		bytes:  float64(after.TotalAlloc-before.TotalAlloc) / float64(n),
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	c.retained = (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(n)
	runtime.KeepAlive(st)
	return c
}

// TestCallCostIsFlat: a call costs the same work whether its run holds 10
// variables and results or 10,000 of each. Work is counted in allocations
// and bytes allocated per call, which do not depend on the machine's load
// (the benchmark BenchmarkDispatchFlat gives the times).
func TestCallCostIsFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a run of 20,000 variables")
	}
	weather := action.MustNew(action.Spec{
		Name: "get_weather", Func: func(location, unit string) string { return unit + " in " + location },
		Params: []action.Param{{Name: "location"}, {Name: "unit", Enum: []any{"c", "f"}}},
	})
	rt, err := agent.New(agent.Options{Actions: action.MustSet(weather)})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	const n = 500
	small := measureCalls(t, rt, 10, n)
	big := measureCalls(t, rt, 10_000, n)
	t.Logf("per call at 10 variables: %.1f allocs, %.0f B allocated, %.0f B retained", small.allocs, small.bytes, small.retained)
	t.Logf("per call at 10,000 variables: %.1f allocs, %.0f B allocated, %.0f B retained", big.allocs, big.bytes, big.retained)
	if big.allocs > 1.5*small.allocs {
		t.Errorf("allocations per call grow with state: %.1f at 10 variables, %.1f at 10,000", small.allocs, big.allocs)
	}
	if big.bytes > 1.5*small.bytes {
		t.Errorf("bytes allocated per call grow with state: %.0f at 10 variables, %.0f at 10,000", small.bytes, big.bytes)
	}
}
