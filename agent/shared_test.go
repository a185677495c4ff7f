package agent_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// weatherByTurn is a stateless model: it looks up the weather of the
// variable city, then returns it. Any number of runs can share it.
var weatherByTurn = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	if last := req.Messages[len(req.Messages)-1]; last.Role == llm.RoleTool {
		return llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`), nil
	}
	return llm.CallTool("get_weather", `{"location":"<<var:city>>","unit":"c","return":null}`), nil
})

// 1,000 concurrent runs on one agent under -race, each with its own
// starting variable; none sees another's variables, every result lands in
// weather (never weather_2), and no goroutine outlives Close.
func TestAgentManyConcurrentRuns(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 100
	}
	before := runtime.NumGoroutine()
	store := run.NewMemoryStore()
	rt, err := agent.New(agent.Options{Actions: sharedActions, Model: weatherByTurn, Store: store, DisableSnippets: true})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			city := fmt.Sprintf("c%d", i)
			h, err := rt.Start(context.Background(), agent.RunOptions{Task: "t", Variables: []variable.Spec{{Name: "city", Value: city}}})
			if err != nil {
				t.Error(err)
				return
			}
			o, err := h.Wait(context.Background())
			if err != nil || o.Status != run.StatusCompleted || string(o.Result) != fmt.Sprintf(`"sunny, 21°C in %s"`, city) {
				t.Errorf("run %d: %+v, %v", i, o, err)
			}
			var names []string
			for _, v := range h.State().Variables() {
				names = append(names, v.Name)
			}
			if strings.Join(names, ",") != "city,weather" {
				t.Errorf("run %d has variables %v", i, names)
			}
		}()
	}
	wg.Wait()
	done, _, err := store.List(context.Background(), run.Query{Statuses: []run.Status{run.StatusCompleted}, Limit: run.MaxListLimit})
	if err != nil || len(done) != n {
		t.Fatalf("%d completed runs in the store, %v", len(done), err)
	}
	if err := rt.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before+2 {
		t.Fatalf("%d goroutines after Close, %d before", g, before)
	}
}

// Two runs in sequence on one agent: the second does not see the first's
// variables, and its result gets the plain name again.
func TestConcurrentRunsOwnTheirState(t *testing.T) {
	rt := newAgent(t, weatherByTurn, agent.Options{})
	for i := range 2 {
		h, err := rt.Start(context.Background(), agent.RunOptions{Task: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if o := wait(t, h); !o.OK() {
			t.Fatalf("run %d: %+v", i, o)
		}
		if vs := h.State().Variables(); len(vs) != 2 || vs[1].Name != "weather" || len(h.State().History()) != 2 {
			t.Fatalf("run %d: variables %v, history %d", i, vs, len(h.State().History()))
		}
	}
	// The agent's starting variables are every run's; a run's own are its.
	st, _ := rt.NewState(variable.Spec{Name: "extra", Value: 1})
	if len(st.Variables()) != 2 {
		t.Fatalf("a new state has %v", st.Variables())
	}
	if _, err := rt.NewState(variable.Spec{Name: "get_weather", Value: 1}); err == nil {
		t.Fatal("a run variable named like an action was accepted")
	}
}

// A run started from another run's variables (State.Specs) sees them.
func TestRunFromAnotherRunsVariables(t *testing.T) {
	rt := newAgent(t, weatherByTurn, agent.Options{})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t"})
	wait(t, h)
	model := llm.NewScripted(llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`))
	rt2 := newAgent(t, model, agent.Options{Variables: []variable.Spec{}})
	h2, err := rt2.Start(context.Background(), agent.RunOptions{Task: "again", Variables: h.State().Specs()})
	if err != nil {
		t.Fatal(err)
	}
	if o := wait(t, h2); string(o.Result) != `"sunny, 21°C in Paris"` {
		t.Fatalf("outcome = %+v", o)
	}
}

// The context given to Start bounds the start only: cancelling it does not
// cancel the run.
func TestStartContextBoundsTheStartOnly(t *testing.T) {
	gate := make(chan struct{})
	model := llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		<-gate
		return llm.Text("done"), nil
	})
	rt := newAgent(t, model, agent.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	h, err := rt.Start(ctx, agent.RunOptions{Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	close(gate)
	if o := wait(t, h); o.Status != run.StatusCompleted || string(o.Result) != `"done"` {
		t.Fatalf("outcome = %+v", o)
	}
}

// Close stops every run: an awaiting one stays awaiting in its log (to be
// restored), a running one is marked failed as interrupted; Start then
// refuses with ErrClosed.
func TestCloseStopsRuns(t *testing.T) {
	store := run.NewMemoryStore()
	entered := make(chan struct{}, 1)
	rt := newAgent(t, closeModel{entered}, agent.Options{Store: store})
	asking, _ := rt.Start(context.Background(), agent.RunOptions{Task: "ask"})
	waitFor(t, asking, 1)
	busy, _ := rt.Start(context.Background(), agent.RunOptions{Task: "work"})
	<-entered
	if err := rt.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s, _ := store.Get(context.Background(), asking.ID()); s.Status != run.StatusAwaiting {
		t.Fatalf("the awaiting run is %s after Close", s.Status)
	}
	if s, _ := store.Get(context.Background(), busy.ID()); s.Status != run.StatusFailed || !strings.HasPrefix(s.Reason, "interrupted") {
		t.Fatalf("the running run is %s (%s) after Close", s.Status, s.Reason)
	}
	if _, err := rt.Start(context.Background(), agent.RunOptions{Task: "t"}); !errors.Is(err, agent.ErrClosed) {
		t.Fatalf("Start after Close = %v", err)
	}
	// The awaiting run comes back on another agent, as after a restart.
	rt2 := newAgent(t, llm.NewScripted(llm.Text("ok")), agent.Options{Store: store})
	h, err := rt2.Restore(context.Background(), asking.ID(), agent.RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := h.Pending()
	resume(t, h, req.ID, run.Answer{Text: "x"})
	if o := wait(t, h); o.Status != run.StatusCompleted {
		t.Fatalf("restored run: %+v", o)
	}
}

// Abandon stops every run as Close does, but records nothing: the logs
// are left as they were, a running run's included, and another agent
// (another process, which took the runs over) goes on from them.
func TestAbandonRecordsNothing(t *testing.T) {
	ctx := context.Background()
	store := run.NewMemoryStore()
	entered := make(chan struct{}, 1)
	rt := newAgent(t, closeModel{entered}, agent.Options{Store: store})
	asking, _ := rt.Start(ctx, agent.RunOptions{Task: "ask"})
	waitFor(t, asking, 1)
	busy, _ := rt.Start(ctx, agent.RunOptions{Task: "work"})
	<-entered
	before := map[run.ID]int64{}
	for _, h := range []*agent.Handle{asking, busy} {
		s, _ := store.Get(ctx, h.ID())
		before[h.ID()] = s.LastSeq
	}
	if err := rt.Abandon(ctx); err != nil {
		t.Fatal(err)
	}
	for _, h := range []*agent.Handle{asking, busy} {
		if o := wait(t, h); !strings.Contains(o.Reason, "left to another process") {
			t.Fatalf("run %s ended with %+v", h.ID(), o)
		}
		if s, _ := store.Get(ctx, h.ID()); s.LastSeq != before[h.ID()] {
			t.Fatalf("run %s recorded events after Abandon: %+v", h.ID(), s)
		}
	}
	if _, err := rt.Start(ctx, agent.RunOptions{Task: "t"}); !errors.Is(err, agent.ErrClosed) {
		t.Fatalf("Start after Abandon = %v", err)
	}
	// The running run goes on on another agent.
	rt2 := newAgent(t, llm.NewScripted(llm.Text("ok")), agent.Options{Store: store})
	h, err := rt2.Restore(ctx, busy.ID(), agent.RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if o := wait(t, h); o.Status != run.StatusCompleted {
		t.Fatalf("the running run, restored: %+v", o)
	}
}

// closeModel asks the user when the task is "ask"; otherwise it blocks
// until its context is done, after saying so on entered.
type closeModel struct{ entered chan struct{} }

func (m closeModel) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	if req.Messages[1].Text == "ask" {
		return llm.CallTool("ask_user", `{"question":"?","return":null}`), nil
	}
	m.entered <- struct{}{}
	<-ctx.Done()
	return llm.Response{}, ctx.Err()
}
