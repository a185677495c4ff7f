package agent_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/variable"
)

var sharedActions = action.MustSet(
	weatherAction,
	action.MustNew(action.Spec{
		Name: "move", Func: func(th *Thing, dx int) { th.X += dx },
		Params: []action.Param{{Name: "thing"}, {Name: "dx"}},
	}),
)

// Many goroutines, each with its own Agent over one shared action set.
func TestManyRuntimesShareOneActionSet(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := newState(agent.Options{Actions: sharedActions, Variables: []variable.Spec{
				{Name: "location", Value: fmt.Sprintf("city%d", g)},
				{Name: "thing", Value: &Thing{}},
			}})
			if err != nil {
				t.Error(err)
				return
			}
			for i := 0; i < 50; i++ {
				st.Tools()
				r := st.Execute(context.Background(), agent.Step{Calls: []agent.ToolCall{
					{ID: "1", Name: "get_weather", Arguments: `{"location":"<<var:location>>","unit":"c","return":null}`},
					{ID: "2", Name: "move", Arguments: `{"thing":"<<var:thing>>","dx":1}`},
				}})
				for _, resp := range r.Responses {
					if !resp.Success {
						t.Error(resp.Error)
						return
					}
				}
			}
			th, _ := agent.Value[*Thing](st, "thing")
			if th.X != 50 || len(st.Variables()) != 52 {
				t.Errorf("agent %d: X = %d, %d variables", g, th.X, len(st.Variables()))
			}
		}()
	}
	wg.Wait()
}

// One Agent is safe for concurrent use: steps are serialised, and
// variables can be read and set while steps run.
func TestOneRuntimeIsSafeForConcurrentUse(t *testing.T) {
	st, err := newState(agent.Options{Actions: sharedActions, Variables: []variable.Spec{
		{Name: "location", Value: "Paris"},
		{Name: "thing", Value: &Thing{}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	const workers, steps = 8, 40
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; i < steps; i++ {
				st.Execute(context.Background(), agent.Step{Calls: []agent.ToolCall{
					{ID: "m", Name: "move", Arguments: `{"thing":"<<var:thing>>","dx":1}`},
				}})
			}
		}()
		go func() {
			defer wg.Done()
			for i := 0; i < steps; i++ {
				st.Set(fmt.Sprintf("w%d", w), i)
				st.Tools()
				st.Variables()
				st.History()
			}
		}()
	}
	wg.Wait()
	th, _ := agent.Value[*Thing](st, "thing")
	if th.X != workers*steps || st.Steps() != workers*steps || len(st.History()) != workers*steps {
		t.Fatalf("X = %d, steps = %d, history = %d; want %d each", th.X, st.Steps(), len(st.History()), workers*steps)
	}
	v, _ := st.Variable("thing")
	if len(v.History) != 1+workers*steps {
		t.Fatalf("thing's history has %d entries, want %d", len(v.History), 1+workers*steps)
	}
}

// TestTurnEndsUntracked: when Wait returns, the run's turn is no longer
// going on in the agent, so a follow-up's new turn cannot be forgotten by
// the end of the turn before it (Close would then wait forever for a run
// it no longer stops, and the session would hold the old turn's values).
func TestTurnEndsUntracked(t *testing.T) {
	const turns = 50
	replies := make([]llm.Response, turns)
	for i := range replies {
		replies[i] = llm.Text(fmt.Sprint("turn ", i))
	}
	rt, err := agent.New(agent.Options{Model: llm.NewScripted(replies...)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := rt.Start(ctx, agent.RunOptions{Session: "s", Task: "turn 0"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range turns {
		if _, err := h.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		if agent.Live(rt, h.ID()) {
			t.Fatalf("turn %d: the run is still live in the agent after Wait returned", i)
		}
		if i < turns-1 {
			if err := h.FollowUp(ctx, fmt.Sprint("turn ", i+1)); err != nil {
				t.Fatal(err)
			}
		}
	}
	closeCtx, cancel := context.WithTimeout(ctx, time.Minute) // a hang guard, not a bound
	defer cancel()
	if err := rt.Close(closeCtx); err != nil {
		t.Fatal(err)
	}
}
