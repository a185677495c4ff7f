package peersbench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/variable"
	"github.com/invopop/jsonschema"
)

// byref (github.com/byref/byref) executes a model's tool calls through
// agent.State.Execute (a run's own state, made by the shared agent,
// agent.Agent): the call is checked (valid JSON, duplicate and unknown
// properties refused, every parameter required, enum, bounds and JSON type
// checked, references resolved), the Go function is called on the step's
// goroutine (a function without a context cannot be stopped; one with a
// context gets Options.CallTimeout, one minute by default), the result is
// stored as a new variable (get_weather → weather, weather_2, …) whose
// preview is written into the variable's history, and the call's record
// (its resolution) is folded into the State's step history, as a run logs
// it. What goes back to the model is ToolResponse.Content(): the
// variable's name, type and bounded preview, not the value itself (reference
// mode, byref's default and the README's).
//
// One dispatch here is exactly what a host does with a model's tool call:
// st.Execute(ctx, agent.Step{Calls: []agent.ToolCall{{ID, Name,
// Arguments}}}) and Responses[0].Content() as the tool result text.

// byrefWeather is GetWeather as a byref action. byref binds the properties of
// the arguments object to the Go function's parameters by position
// (Spec.Params), so a function of one struct would take {"a": {...}}; the
// flat {"location","unit","days"} object needs GetWeather wrapped in a
// function of three parameters that builds the Args and calls it.
//
// days in 1..7 is action.Param's Min and Max (checked on byref's scalar
// fast path, compiled when the action is built; the schema the model sees is
// {"maximum":7,"minimum":1,"type":"integer"}). byrefWeatherRangeType is the
// other way byref can say it: a named type with a JSONSchema method.
func byrefWeather() *action.Action {
	return action.MustNew(action.Spec{
		Name:        ToolName,
		Description: ToolDesc,
		Func: func(location, unit string, days int) Forecast {
			return GetWeather(Args{Location: location, Unit: unit, Days: days})
		},
		Params: []action.Param{
			{Name: "location", Description: "City name"},
			{Name: "unit", Enum: []any{"c", "f"}},
			{Name: "days", Min: 1, Max: 7},
		},
	})
}

// weekDays is an int that describes its own schema, {"type":"integer",
// "minimum":1,"maximum":7} (invopop/jsonschema's hook, which byref's schema
// package honours). A type with the hook leaves byref's scalar fast path:
// each value is checked by the compiled JSON Schema validator
// (santhosh-tekuri/jsonschema) and then decoded with encoding/json.
type weekDays int

func (weekDays) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "integer", Minimum: "1", Maximum: "7"}
}

func byrefWeatherRangeType() *action.Action {
	return action.MustNew(action.Spec{
		Name:        ToolName,
		Description: ToolDesc,
		Func: func(location, unit string, days weekDays) Forecast {
			return GetWeather(Args{Location: location, Unit: unit, Days: int(days)})
		},
		Params: []action.Param{
			{Name: "location", Description: "City name"},
			{Name: "unit", Enum: []any{"c", "f"}},
			{Name: "days"},
		},
	})
}

// byrefRunCalls is how many calls one State serves in the Byref and
// ByrefRef benchmarks before it is replaced by a fresh one (a new run),
// with the timer stopped: agent.DefaultMaxSteps, one default-length run
// of one call per step.
const byrefRunCalls = agent.DefaultMaxSteps

// byrefDispatcher runs calls on one State and, in benchmarks, replaces it
// by a fresh one every `every` calls with the timer stopped.
type byrefDispatcher struct {
	fresh    func() *agent.State
	rt       *agent.State
	b        *testing.B // nil outside benchmarks: no replacement
	every, n int
	rewrite  func(string) string // nil: arguments as given
	forget   bool                // delete the result variable after each call
}

func newByrefDispatcher(tb testing.TB, every int, fresh func() *agent.State) *byrefDispatcher {
	d := &byrefDispatcher{fresh: fresh, rt: fresh(), every: every}
	if b, ok := tb.(*testing.B); ok {
		d.b = b
	}
	return d
}

func (d *byrefDispatcher) dispatch(ctx context.Context, name, args string) (string, error) {
	if d.rewrite != nil {
		args = d.rewrite(args)
	}
	r := d.rt.Execute(ctx, agent.Step{Calls: []agent.ToolCall{{ID: "call-1", Name: name, Arguments: args}}})
	resp := r.Responses[0]
	if !resp.Success {
		return "", errors.New(resp.Error)
	}
	out := resp.Content()
	if d.forget {
		for _, v := range resp.Variables {
			d.rt.Delete(v.Name)
		}
	}
	if d.b != nil && d.every > 0 {
		if d.n++; d.n == d.every {
			d.n = 0
			d.b.StopTimer()
			d.rt = d.fresh()
			d.b.StartTimer()
		}
	}
	return out, nil
}

// byrefFresh returns a maker of States (one per run) of one shared agent.
func byrefFresh(tb testing.TB, a *action.Action, opts agent.Options) func() *agent.State {
	opts.Actions = action.MustSet(a)
	ag, err := agent.New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	return func() *agent.State {
		st, err := ag.NewState()
		if err != nil {
			tb.Fatal(err)
		}
		return st
	}
}

// setupByref: raw arguments, reference mode (byref's default), a fresh
// Agent every byrefRunCalls calls (not timed).
func setupByref(tb testing.TB) dispatchFunc {
	return newByrefDispatcher(tb, byrefRunCalls, byrefFresh(tb, byrefWeather(), agent.Options{})).dispatch
}

// byrefRefArgs is ArgsJSON with the location passed by reference to the
// string variable city = "Paris".
const byrefRefArgs = `{"location":"<<var:city>>","unit":"c","days":3}`

// byrefToRef rewrites the harness's arguments so that location is the
// reference: the benchmark's ArgsJSON by a constant swap (no cost in the
// loop), any other arguments (TestValidation's) by a string replacement.
func byrefToRef(args string) string {
	if args == ArgsJSON {
		return byrefRefArgs
	}
	return strings.Replace(args, `"location":"Paris"`, `"location":"<<var:city>>"`, 1)
}

// setupByrefRef: the same, with location = "<<var:city>>", a string
// variable "Paris" the runtime resolves (existence and type checked).
func setupByrefRef(tb testing.TB) dispatchFunc {
	d := newByrefDispatcher(tb, byrefRunCalls, byrefFresh(tb, byrefWeather(), agent.Options{
		Variables: []variable.Spec{{Name: "city", Value: "Paris"}},
	}))
	d.rewrite = byrefToRef
	return d.dispatch
}

// TestByrefResult checks what TestDispatch cannot: byref sends the model the
// result's variable (name, type, preview), and the value stored in that
// variable is want. It also checks that ByrefRef really passed a reference.
func TestByrefResult(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		vars []variable.Spec
		args string
		ref  string
	}{
		{"Byref", nil, ArgsJSON, ""},
		{"ByrefRef", []variable.Spec{{Name: "city", Value: "Paris"}}, byrefRefArgs, "city"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rt := byrefFresh(t, byrefWeather(), agent.Options{Variables: c.vars})()
			d := &byrefDispatcher{rt: rt}
			out, err := d.dispatch(ctx, ToolName, c.args)
			if err != nil {
				t.Fatal(err)
			}
			var content struct {
				Success   bool
				Variables []agent.VariableChange
			}
			if err := json.Unmarshal([]byte(out), &content); err != nil {
				t.Fatal(err)
			}
			if !content.Success || len(content.Variables) != 1 || content.Variables[0].Type != "peersbench.Forecast" || content.Variables[0].Change != "created" {
				t.Fatalf("content = %s", out)
			}
			got, err := agent.Value[Forecast](rt, content.Variables[0].Name)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("stored %+v, want %+v", got, want)
			}
			h := rt.History()
			if len(h) != 1 || h[0].Args[0].Ref != c.ref {
				t.Fatalf("history = %+v, want location by reference %q", h, c.ref)
			}
			t.Logf("sent to the model: %s", out)
		})
	}
	// The range-type variant refuses what the enum variant refuses.
	rt := byrefFresh(t, byrefWeatherRangeType(), agent.Options{})()
	d := &byrefDispatcher{rt: rt}
	for _, bad := range []string{
		`{"location":"Paris","unit":"k","days":3}`, `{"location":"Paris","unit":"c","days":9}`,
		`{"location":"Paris","unit":"c","days":0}`, `{"location":"Paris","unit":"c","days":"3"}`,
		`{"location":"Paris","unit":"c"}`,
	} {
		if _, err := d.dispatch(ctx, ToolName, bad); err == nil {
			t.Errorf("range type accepted %s", bad)
		}
	}
	if _, err := d.dispatch(ctx, ToolName, ArgsJSON); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkByrefState measures how what an Agent keeps changes the cost of
// a call (one op = one Byref dispatch, raw arguments):
//   - Reset1, Reset25, Reset1000: a fresh Agent every 1, 25, 1000 calls,
//     the replacement not timed (Reset25 is the Byref line of
//     BenchmarkDispatch);
//   - Growing: one Agent for the whole benchmark, as a naive host loop
//     would do (every call adds a variable and a history entry);
//   - ForgetEachCall: one Agent, and the host deletes the result variable
//     after each call (timed): the only public way to drop state; the step
//     history still grows;
//   - Plain25: Options.HideFromAI (plain mode: the result's JSON goes back
//     to the model, no references), fresh Agent every 25;
//   - RangeType25: days as weekDays (JSON Schema validator), fresh Agent
//     every 25.
func BenchmarkByrefState(b *testing.B) {
	ctx := context.Background()
	cases := []struct {
		name   string
		a      func() *action.Action
		opts   agent.Options
		every  int
		forget bool
	}{
		{"Reset1", byrefWeather, agent.Options{}, 1, false},
		{"Reset25", byrefWeather, agent.Options{}, 25, false},
		{"Reset1000", byrefWeather, agent.Options{}, 1000, false},
		{"Growing", byrefWeather, agent.Options{}, 0, false},
		{"ForgetEachCall", byrefWeather, agent.Options{}, 0, true},
		{"Plain25", byrefWeather, agent.Options{HideFromAI: true}, 25, false},
		{"RangeType25", byrefWeatherRangeType, agent.Options{}, 25, false},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			d := newByrefDispatcher(b, c.every, byrefFresh(b, c.a(), c.opts))
			d.forget = c.forget
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.dispatch(ctx, ToolName, ArgsJSON); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(d.rt.History())), "history-len")
		})
	}
	// UpstreamExecuteCall is byref's own BenchmarkExecuteCall
	// (agent/bench_test.go), copied verbatim, so that it runs in the same
	// process as the lines above: an int result assigned to an existing
	// variable ("return":"days", no new variable), one reference, and no
	// Content().
	b.Run("UpstreamExecuteCall", func(b *testing.B) {
		a := action.MustNew(action.Spec{
			Name: "forecast",
			Func: func(location string, days int, unit string) int { return days },
			Params: []action.Param{
				{Name: "location"}, {Name: "days"}, {Name: "unit", Enum: []any{"c", "f"}},
			},
		})
		ag, err := agent.New(agent.Options{
			Actions:   action.MustSet(a),
			Variables: []variable.Spec{{Name: "city", Value: "Paris"}, {Name: "days", Value: 3}},
		})
		if err != nil {
			b.Fatal(err)
		}
		rt, err := ag.NewState()
		if err != nil {
			b.Fatal(err)
		}
		step := agent.Step{Calls: []agent.ToolCall{{ID: "c", Name: "forecast", Arguments: `{"location":"<<var:city>>","days":3,"unit":"c","return":"days"}`}}}
		b.ReportAllocs()
		for b.Loop() {
			if r := rt.Execute(ctx, step); !r.Responses[0].Success {
				b.Fatal(r.Responses[0].Error)
			}
		}
	})
}

// TestByrefGrowth runs 100,000 calls on one Agent and reports, at
// checkpoints, the mean time, bytes and allocations of the last (up to) 1,000
// calls, the live heap after a GC, and the sizes of what the Agent keeps:
// first with the host deleting each result variable (the only state byref
// lets a host drop), then naive (nothing dropped). BYREF_GROWTH=1 to run (the
// naive part takes tens of minutes); BYREF_GROWTH_CALLS overrides 100000.
func TestByrefGrowth(t *testing.T) {
	if os.Getenv("BYREF_GROWTH") == "" {
		t.Skip("set BYREF_GROWTH=1 to run")
	}
	total := 100_000
	if s := os.Getenv("BYREF_GROWTH_CALLS"); s != "" {
		fmt.Sscan(s, &total)
	}
	var checkpoints []int
	for _, c := range []int{100, 1_000, 5_000, 10_000, 25_000, 50_000, 75_000} {
		if c < total {
			checkpoints = append(checkpoints, c)
		}
	}
	checkpoints = append(checkpoints, total)
	ctx := context.Background()
	live := func() (uint64, uint64) {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc, ms.HeapInuse
	}
	for _, c := range []struct {
		name   string
		forget bool
	}{{"forget-each-call", true}, {"naive", false}} {
		alloc0, inuse0 := live()
		rt := byrefFresh(t, byrefWeather(), agent.Options{})()
		d := &byrefDispatcher{rt: rt, forget: c.forget}
		t.Logf("%s: before: HeapAlloc %.1f MiB, HeapInuse %.1f MiB", c.name, mib(alloc0), mib(inuse0))
		start := time.Now()
		next := 0 // index of the next checkpoint
		var ws time.Time
		var wm0 runtime.MemStats
		for i := 1; i <= total; i++ {
			cp := checkpoints[next]
			w := min(1_000, cp)
			if i == cp-w+1 {
				runtime.ReadMemStats(&wm0)
				ws = time.Now()
			}
			if _, err := d.dispatch(ctx, ToolName, ArgsJSON); err != nil {
				t.Fatal(err)
			}
			if i == cp {
				per := time.Since(ws) / time.Duration(w)
				var wm1 runtime.MemStats
				runtime.ReadMemStats(&wm1)
				allocs := float64(wm1.Mallocs-wm0.Mallocs) / float64(w)
				bytes := float64(wm1.TotalAlloc-wm0.TotalAlloc) / float64(w)
				a, u := live()
				t.Logf("%s: after %6d calls (%7.1fs): last %4d calls %10v/call %9.0f B/call %7.0f allocs/call; HeapAlloc %6.1f MiB (%+5.0f B/call), HeapInuse %6.1f MiB; history %d, variables %d",
					c.name, i, time.Since(start).Seconds(), w, per, bytes, allocs,
					mib(a), (float64(a)-float64(alloc0))/float64(i), mib(u), len(rt.History()), len(rt.Variables()))
				next++
			}
		}
		runtime.KeepAlive(rt)
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
