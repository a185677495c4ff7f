package agent_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/variable"
)

func getWeather(location, unit string) string {
	return "sunny, 21°" + map[string]string{"c": "C", "f": "F"}[unit] + " in " + location
}

var weatherAction = action.MustNew(action.Spec{
	Name:        "get_weather",
	Description: "Get the weather for a given location.",
	Func:        getWeather,
	Params: []action.Param{
		{Name: "location", Description: "The location to get the weather for."},
		{Name: "unit", Description: "The unit of the weather.", Enum: []any{"c", "f"}},
	},
})

func weatherState(t testing.TB) *agent.State {
	t.Helper()
	rt, err := agent.New(agent.Options{
		Actions: action.MustSet(weatherAction),
		Variables: []variable.Spec{
			{Name: "language", Value: "French"},
			{Name: "location", Value: "Paris"},
			{Name: "country_of_origin", Value: "France"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return mustState(t, rt)
}

// mustState returns a fresh State of the agent rt.
func mustState(t testing.TB, rt *agent.Agent) *agent.State {
	t.Helper()
	st, err := rt.NewState()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Thing is a host object the model cannot serialise: it has unexported
// state, so it travels by reference only.
type Thing struct {
	Name  string
	X     int
	moves int
}

// Gadget is another ref-only type, which no variable holds in the tests.
type Gadget struct{ on bool }

// fixture is a runtime with actions that succeed, fail, panic and hang.
type fixture struct {
	rt      *agent.Agent
	st      *agent.State
	release chan struct{}
	timeout time.Duration // the agent's CallTimeout
}

func newFixture(t testing.TB, opts agent.Options) *fixture {
	t.Helper()
	f := &fixture{release: make(chan struct{})}
	t.Cleanup(func() { close(f.release) })
	set := action.MustSet(
		weatherAction,
		action.MustNew(action.Spec{
			Name: "move", Description: "Move a thing.",
			Func: func(th *Thing, dx int) error {
				if dx == 0 {
					return errors.New("dx must not be 0")
				}
				th.X += dx
				th.moves++
				return nil
			},
			Params: []action.Param{{Name: "thing"}, {Name: "dx"}},
		}),
		action.MustNew(action.Spec{
			Name: "describe", Description: "Describe a thing without changing it.",
			Func:   func(th *Thing) string { return fmt.Sprintf("%s at %d", th.Name, th.X) },
			Params: []action.Param{{Name: "thing"}},
		}),
		action.MustNew(action.Spec{
			Name: "new_thing", Description: "Make a thing.",
			Func:   func(name string) *Thing { return &Thing{Name: name} },
			Params: []action.Param{{Name: "name"}},
		}),
		action.MustNew(action.Spec{
			Name: "switch_on", Description: "Switch a gadget on.",
			Func:   func(g *Gadget) { g.on = true },
			Params: []action.Param{{Name: "gadget"}},
		}),
		action.MustNew(action.Spec{
			Name: "double", Description: "Double a number.",
			Func:   func(n int) int { return 2 * n },
			Params: []action.Param{{Name: "n"}},
		}),
		action.MustNew(action.Spec{
			Name: "boom", Description: "Panic.",
			Func: func() int { panic("kaboom") },
		}),
		action.MustNew(action.Spec{
			Name: "fails", Description: "Return an error.",
			Func: func(ctx context.Context) (string, error) {
				fmt.Fprintln(action.Stderr(ctx), "about to fail")
				return "", errors.New("the backend is down")
			},
		}),
		action.MustNew(action.Spec{
			Name: "hang", Description: "Ignore the context and block past the deadline.",
			Func: func(ctx context.Context) string {
				// A bare State's Execute waits for it, and discards
				// its late result.
				select {
				case <-f.release:
				case <-time.After(4 * f.timeout):
				}
				return "too late"
			},
		}),
		action.MustNew(action.Spec{
			Name: "shout", Description: "Print text.",
			Func: func(ctx context.Context, text string) {
				fmt.Fprint(action.Stdout(ctx), text)
			},
			Params: []action.Param{{Name: "text"}},
		}),
	)
	opts.Actions = set
	if opts.Variables == nil {
		opts.Variables = []variable.Spec{
			{Name: "language", Value: "French"},
			{Name: "location", Value: "Paris"},
			{Name: "n", Value: 3},
			{Name: "flag", Value: true},
			{Name: "thing", Value: &Thing{Name: "box"}},
			{Name: "api_key", Value: "sk-secret", Secret: true},
		}
	}
	if opts.CallTimeout == 0 {
		opts.CallTimeout = 100 * time.Millisecond
	}
	f.timeout = opts.CallTimeout
	rt, err := agent.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	f.rt, f.st = rt, mustState(t, rt)
	return f
}

// call executes one call in its own step.
func call(st *agent.State, name, args string) agent.ToolResponse {
	return st.Execute(context.Background(), agent.Step{Calls: []agent.ToolCall{{ID: "call_1", Name: name, Arguments: args}}}).Responses[0]
}

func optsDefault() agent.Options { return agent.Options{} }

// newState returns a fresh State of a new agent made from opts.
func newState(opts agent.Options) (*agent.State, error) {
	rt, err := agent.New(opts)
	if err != nil {
		return nil, err
	}
	return rt.NewState()
}

// runState runs opts on rt and returns the outcome and the run's State.
func runState(t testing.TB, rt *agent.Agent, opts agent.RunOptions) (agent.Outcome, *agent.State) {
	t.Helper()
	h, err := rt.Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	o, err := h.Wait(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return o, h.State()
}
