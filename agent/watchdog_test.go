package agent_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// stubborn is an action that ignores its context: it returns when the test
// releases it, and tells the test when it started and when it returned.
type stubborn struct {
	started, returned, release chan struct{}
}

func newStubborn() *stubborn {
	return &stubborn{started: make(chan struct{}, 8), returned: make(chan struct{}, 8), release: make(chan struct{})}
}

func (s *stubborn) action(takesContext bool) *action.Action {
	if takesContext {
		return action.MustNew(action.Spec{Name: "stubborn", Description: "Ignore the context.", Func: func(ctx context.Context) string {
			s.started <- struct{}{}
			<-s.release
			s.returned <- struct{}{}
			return "too late"
		}})
	}
	return action.MustNew(action.Spec{Name: "stubborn", Description: "Take no context.", Func: func() string {
		s.started <- struct{}{}
		<-s.release
		s.returned <- struct{}{}
		return "too late"
	}})
}

// finished reports whether the action returned.
func (s *stubborn) finished() bool {
	select {
	case <-s.returned:
		return true
	default:
		return false
	}
}

// In a run, a call whose action ignores its context is refused at its
// deadline while the action still runs: the model gets the failure, the run
// goes on and completes, and the late result changes nothing.
func TestCallTimeoutBoundsAnActionThatIgnoresItsContext(t *testing.T) {
	for _, takesContext := range []bool{true, false} {
		noneLeft := leakCheck(t)
		s := newStubborn()
		const timeout = 200 * time.Millisecond
		model := llm.NewScripted(
			llm.CallTool("stubborn", `{}`),
			llm.CallTool("terminate", `{"success":true,"result":"done"}`),
		)
		rt := newAgent(t, model, agent.Options{Actions: action.MustSet(s.action(takesContext)), CallTimeout: timeout})
		start := time.Now()
		h, err := rt.Start(context.Background(), agent.RunOptions{Task: "t"})
		if err != nil {
			t.Fatal(err)
		}
		o, err := h.Wait(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		if s.finished() {
			t.Fatalf("takes context %v: the run waited for the action to return", takesContext)
		}
		if o.Status != run.StatusCompleted {
			t.Fatalf("takes context %v: outcome = %+v", takesContext, o)
		}
		if took < timeout {
			t.Errorf("takes context %v: the run went on after %v, before the call's deadline %v", takesContext, took, timeout)
		}
		snap, _ := h.Snapshot(context.Background())
		if len(snap.ToolCalls) == 0 || snap.ToolCalls[0].Success || !strings.Contains(snap.ToolCalls[0].Error, "did not return before its deadline") {
			t.Fatalf("takes context %v: the abandoned call's record: %+v", takesContext, snap.ToolCalls)
		}
		close(s.release)
		<-s.returned
		if _, ok := h.State().Variable("stubborn_result"); ok {
			t.Errorf("takes context %v: the late result was kept", takesContext)
		}
		noneLeft()
	}
}

// A bare State's Execute runs on the caller's goroutine and returns when
// the action does; a result later than the deadline is discarded, and the
// call fails with ErrCallTimeout.
func TestBareExecuteDiscardsALateResult(t *testing.T) {
	late := action.MustNew(action.Spec{Name: "late", Func: func() string {
		time.Sleep(300 * time.Millisecond)
		return "too late"
	}})
	st, err := newState(agent.Options{Actions: action.MustSet(late), CallTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	r := call(st, "late", `{}`)
	var ae *agent.ActionError
	if r.Success || !errors.Is(r.Err, agent.ErrCallTimeout) || !errors.As(r.Err, &ae) {
		t.Fatalf("resp = %+v", r)
	}
	if _, ok := st.Variable("late_result"); ok {
		t.Error("the late result was kept")
	}
}

// Cancelling a run whose action hangs reaches canceled once CancelGrace
// has passed, while the action still runs.
func TestCancelAbandonsAHangingAction(t *testing.T) {
	noneLeft := leakCheck(t)
	s := newStubborn()
	model := llm.NewScripted(llm.CallTool("stubborn", `{}`), llm.Text("never reached"))
	const grace = 100 * time.Millisecond
	rt := newAgent(t, model, agent.Options{Actions: action.MustSet(s.action(true)), CallTimeout: time.Hour, CancelGrace: grace})
	h, err := rt.Start(context.Background(), agent.RunOptions{Task: "t"})
	if err != nil {
		t.Fatal(err)
	}
	<-s.started
	start := time.Now()
	if err := h.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	o, err := h.Wait(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.finished() {
		t.Fatal("the cancelled run waited for the action to return")
	}
	if o.Status != run.StatusCanceled {
		t.Fatalf("outcome = %+v", o)
	}
	if took := time.Since(start); took < grace {
		t.Errorf("canceled after %v, before CancelGrace (%v) passed", took, grace)
	}
	close(s.release)
	<-s.returned
	noneLeft()
}

// runtimeGoroutines returns the stacks of the goroutines running code of
// package agent, by goroutine ID.
func runtimeGoroutines() map[string]string {
	buf := make([]byte, 4<<20)
	out := map[string]string{}
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if id, _, ok := strings.Cut(strings.TrimPrefix(g, "goroutine "), " "); ok && strings.Contains(g, "github.com/byref/byref/agent.") {
			out[id] = g
		}
	}
	return out
}

// leakCheck returns a check that fails when a goroutine of package agent
// that was not there when leakCheck was called is still running: abandoned
// step goroutines end when their action returns, and idle ones soon after.
func leakCheck(t *testing.T) func() {
	before := runtimeGoroutines()
	return func() {
		t.Helper()
		var left []string
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			left = left[:0]
			for id, g := range runtimeGoroutines() {
				if _, old := before[id]; !old {
					left = append(left, g)
				}
			}
			if len(left) == 0 {
				return
			}
		}
		t.Errorf("goroutines of the runtime are left:\n%s", strings.Join(left, "\n\n"))
	}
}
