package temporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	byreftemporal "github.com/byref/byref/temporal"
	"github.com/byref/byref/variable"
)

func getWeather(location, unit string) string {
	return "sunny, 21°" + strings.ToUpper(unit) + " in " + location
}

var weatherAction = action.MustNew(action.Spec{
	Name: "get_weather", Description: "Get the weather for a location.", Func: getWeather,
	Params: []action.Param{{Name: "location"}, {Name: "unit", Enum: []any{"c", "f"}}},
})

// weatherModel looks up the weather, then terminates with it: a function of
// the conversation, so that a run restored elsewhere goes on where it was.
func weatherModel() *llm.Scripted {
	return llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role == llm.RoleUser && strings.Contains(last.Text, "fahrenheit"):
			return llm.Text("still sunny"), nil
		case last.Role == llm.RoleUser:
			return llm.CallTool("get_weather", `{"location":"<<var:city>>","unit":"c","return":null}`), nil
		case last.ToolName == "ask_user":
			return llm.CallTool("terminate", `{"success":true,"result":`+string(mustJSON(last.Text))+`}`), nil
		default:
			return llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`), nil
		}
	})
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// agent is an agent on model with the weather action and more.
func newAgent(name string, model func() llm.Model, vars func() []variable.Spec, more ...*action.Action) byreftemporal.Agent {
	return byreftemporal.Agent{
		Name: name,
		New: func(store run.Store) (*agent.Agent, error) {
			var vs []variable.Spec
			if vars != nil {
				vs = vars()
			}
			return agent.New(agent.Options{
				Store: store, Model: model(), Variables: vs,
				Actions: action.MustSet(append([]*action.Action{weatherAction}, more...)...),
			})
		},
	}
}

func city() []variable.Spec { return []variable.Spec{{Name: "city", Value: "Paris"}} }

func weatherAgent() byreftemporal.Agent {
	return newAgent("weather", func() llm.Model { return weatherModel() }, city)
}

type env struct {
	*testsuite.TestWorkflowEnvironment
	worker *byreftemporal.Worker
	store  run.Store
}

func newEnv(t testing.TB, agents ...byreftemporal.Agent) *env {
	t.Helper()
	return newEnvOn(t, run.NewMemoryStore(), agents...)
}

// newEnvOn is newEnv with the worker on store.
func newEnvOn(t testing.TB, store run.Store, agents ...byreftemporal.Agent) *env {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	e := &env{TestWorkflowEnvironment: s.NewTestWorkflowEnvironment(), store: store}
	w, err := byreftemporal.NewWorker(nil, byreftemporal.WorkerOptions{Store: e.store, Agents: agents})
	if err != nil {
		t.Fatal(err)
	}
	e.worker = w
	w.Register(e)
	return e
}

// execute runs the workflow of one run to its end and returns its outcome.
func (e *env) execute(t *testing.T, agentName string, spec byreftemporal.RunSpec) agent.Outcome {
	t.Helper()
	e.ExecuteWorkflow(byreftemporal.WorkflowName, byreftemporal.Input{Agent: agentName, Run: spec})
	if !e.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := e.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	var o agent.Outcome
	if err := e.GetWorkflowResult(&o); err != nil {
		t.Fatal(err)
	}
	return o
}

func (e *env) snapshot(t *testing.T, id string) run.Snapshot {
	t.Helper()
	s, err := run.LoadSnapshot(context.Background(), e.store, run.ID(id))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// answerLater answers the run's pending await once the workflow waits.
func (e *env) answerLater(t *testing.T, id string, a run.Answer) {
	e.RegisterDelayedCallback(func() {
		s := e.snapshot(t, id)
		if s.Await == nil {
			t.Errorf("run %s is %s, awaiting nothing", id, s.Status)
			return
		}
		e.SignalWorkflow(byreftemporal.SignalAnswer, byreftemporal.Answer{AwaitID: s.Await.ID, Answer: a})
	}, time.Minute)
}

func TestWorkflowCompletesARun(t *testing.T) {
	e := newEnv(t, weatherAgent())
	o := e.execute(t, "weather", byreftemporal.RunSpec{Spec: run.Spec{Task: "What is the weather?", NonInteractive: true}, ID: "run-1"})
	if !o.OK() || string(o.Result) != `"sunny, 21°C in Paris"` {
		t.Fatalf("outcome = %+v", o)
	}
	s := e.snapshot(t, "run-1")
	if s.Status != run.StatusCompleted || s.Step != 2 {
		t.Fatalf("the log says %s at step %d", s.Status, s.Step)
	}
	// The query's snapshot is folded from the activities' events: it is
	// the store's.
	v, err := e.QueryWorkflow(byreftemporal.QuerySnapshot)
	if err != nil {
		t.Fatal(err)
	}
	var q run.Snapshot
	if err := v.Get(&q); err != nil {
		t.Fatal(err)
	}
	if q.LastSeq != s.LastSeq || q.Status != s.Status || string(q.Result) != string(s.Result) || len(q.Variables) != len(s.Variables) {
		t.Fatalf("query snapshot (seq %d, %s, %s) differs from the store's (seq %d, %s, %s)", q.LastSeq, q.Status, q.Result, s.LastSeq, s.Status, s.Result)
	}
	if ids := e.worker.Hosted(); len(ids) != 0 {
		t.Fatalf("the worker still hosts %v after the workflow ended", ids)
	}
}

func TestWorkflowApprovalBySignal(t *testing.T) {
	e := newEnv(t, weatherAgent())
	e.answerLater(t, "run-a", run.Answer{Decision: run.Approved})
	o := e.execute(t, "weather", byreftemporal.RunSpec{Spec: run.Spec{Task: "weather?", NonInteractive: true, Approval: agent.ApproveOnToolCall}, ID: "run-a"})
	if !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
	var asked, resolved int
	events, _ := e.store.Read(context.Background(), "run-a", 1, 0)
	for _, ev := range events {
		switch ev.Payload.(type) {
		case run.AwaitRequested:
			asked++
		case run.AwaitResolved:
			resolved++
		}
	}
	if asked != 1 || resolved != 1 {
		t.Fatalf("awaits asked %d, resolved %d; want 1 and 1", asked, resolved)
	}
}

func TestWorkflowQuestionAndAnswer(t *testing.T) {
	model := func() llm.Model {
		return llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
			last := req.Messages[len(req.Messages)-1]
			if last.ToolName == "ask_user" {
				return llm.CallTool("terminate", `{"success":true,"result":`+string(mustJSON(last.Text))+`}`), nil
			}
			return llm.CallTool("ask_user", `{"question":"Which city?","return":null}`), nil
		})
	}
	e := newEnv(t, newAgent("asker", model, nil))
	e.answerLater(t, "run-q", run.Answer{Text: "Rome"})
	o := e.execute(t, "asker", byreftemporal.RunSpec{Spec: run.Spec{Task: "ask me"}, ID: "run-q"})
	if !o.OK() || !strings.Contains(string(o.Result), "Rome") {
		t.Fatalf("outcome = %+v", o)
	}
}

func TestWorkflowAwaitTimeoutIsATimer(t *testing.T) {
	e := newEnv(t, weatherAgent())
	o := e.execute(t, "weather", byreftemporal.RunSpec{Spec: run.Spec{Task: "weather?", Approval: agent.ApproveOnToolCall, AwaitTimeout: time.Hour}, ID: "run-t"})
	if o.Status != run.StatusFailed || o.Reason != "the approval await_1 was not answered within 1h0m0s" {
		t.Fatalf("outcome = %+v", o)
	}
	if s := e.snapshot(t, "run-t"); s.Status != run.StatusFailed {
		t.Fatalf("the log says %s", s.Status)
	}
}

func TestWorkflowCancelWhileAStepRuns(t *testing.T) {
	started := make(chan struct{})
	var sawCancel atomic.Bool
	slow := action.MustNew(action.Spec{
		Name: "slow", Description: "Takes its time.",
		Func: func(ctx context.Context) error {
			close(started)
			<-ctx.Done()
			sawCancel.Store(true)
			return ctx.Err()
		},
	})
	model := func() llm.Model { return llm.NewScripted(llm.CallTool("slow", `{}`)) }
	e := newEnv(t, newAgent("slow", model, nil, slow))
	go func() {
		<-started
		e.CancelWorkflow()
	}()
	e.ExecuteWorkflow(byreftemporal.WorkflowName, byreftemporal.Input{Agent: "slow", Run: byreftemporal.RunSpec{Spec: run.Spec{Task: "go"}, ID: "run-c"}})
	if err := e.GetWorkflowError(); !temporal.IsCanceledError(err) {
		t.Fatalf("workflow error = %v, want canceled", err)
	}
	if !sawCancel.Load() {
		t.Fatal("the running action's context was not cancelled")
	}
	if s := e.snapshot(t, "run-c"); s.Status != run.StatusCanceled {
		t.Fatalf("the log says %s, want canceled", s.Status)
	}
}

func TestWorkflowChildRun(t *testing.T) {
	// The researcher has no store of its own: its runs are recorded beside
	// their parent's.
	researcher, err := agent.New(agent.Options{Model: llm.NewScripted(llm.CallTool("terminate", `{"success":true,"result":"42"}`))})
	if err != nil {
		t.Fatal(err)
	}
	child, err := agent.AsAction(agent.Child{
		Name: "researcher", Description: "Finds things out.", Agent: researcher,
		Run: agent.RunOptions{NonInteractive: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	model := func() llm.Model {
		return llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
			last := req.Messages[len(req.Messages)-1]
			if last.ToolName == "researcher" {
				return llm.CallTool("terminate", `{"success":true,"result":"found"}`), nil
			}
			return llm.CallTool("researcher", `{"task":"find the answer","return":null}`), nil
		})
	}
	e := newEnv(t, newAgent("lead", model, nil, child))
	o := e.execute(t, "lead", byreftemporal.RunSpec{Spec: run.Spec{Task: "delegate", NonInteractive: true}, ID: "run-p"})
	if !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
	parent := e.snapshot(t, "run-p")
	if len(parent.ChildRuns) != 1 {
		t.Fatalf("the parent's log has %d children", len(parent.ChildRuns))
	}
	c := e.snapshot(t, string(parent.ChildRuns[0].ID))
	if c.ParentRun != "run-p" || c.Status != run.StatusCompleted || string(c.Result) != `"42"` {
		t.Fatalf("child: parent %q, %s, result %s", c.ParentRun, c.Status, c.Result)
	}
}

func TestWorkflowFollowUp(t *testing.T) {
	e := newEnv(t, weatherAgent())
	e.RegisterDelayedCallback(func() {
		if s := e.snapshot(t, "run-f"); s.Status != run.StatusCompleted {
			t.Errorf("before the follow-up the run is %s", s.Status)
		}
		e.SignalWorkflow(byreftemporal.SignalFollowUp, "and in fahrenheit?")
	}, time.Minute)
	o := e.execute(t, "weather", byreftemporal.RunSpec{Spec: run.Spec{Task: "weather?"}, ID: "run-f"})
	if string(o.Result) != `"still sunny"` {
		t.Fatalf("the workflow ended with %+v, want the follow-up's outcome", o)
	}
	s := e.snapshot(t, "run-f")
	users := 0
	events, _ := e.store.Read(context.Background(), "run-f", 1, 0)
	for _, ev := range events {
		if _, ok := ev.Payload.(run.UserMessage); ok {
			users++
		}
	}
	if s.Status != run.StatusCompleted || users != 2 {
		t.Fatalf("log: %s with %d user messages", s.Status, users)
	}
}

// TestWorkflowFollowUpWindowEnds: an interactive run's workflow ends when
// no follow-up comes within the window (a workflow timer).
func TestWorkflowFollowUpWindowEnds(t *testing.T) {
	e := newEnv(t, weatherAgent())
	e.ExecuteWorkflow(byreftemporal.WorkflowName, byreftemporal.Input{Agent: "weather", Run: byreftemporal.RunSpec{Spec: run.Spec{Task: "weather?"}, ID: "run-w"}, Timing: byreftemporal.Timing{FollowUpWindow: time.Hour}})
	if !e.IsWorkflowCompleted() || e.GetWorkflowError() != nil {
		t.Fatalf("completed %v, error %v", e.IsWorkflowCompleted(), e.GetWorkflowError())
	}
}

// TestWorkflowHostsALostRunAgain: when the worker that hosts a run loses it,
// the workflow hosts it again from its log, and it finishes.
func TestWorkflowHostsALostRunAgain(t *testing.T) {
	var w *byreftemporal.Worker
	var once atomic.Bool
	forget := action.MustNew(action.Spec{
		Name: "get_weather", Description: "Get the weather.", Params: []action.Param{{Name: "location"}, {Name: "unit"}},
		Func: func(location, unit string) string {
			if once.CompareAndSwap(false, true) {
				w.Forget("run-l")
			}
			return getWeather(location, unit)
		},
	})
	a := byreftemporal.Agent{Name: "weather", New: func(store run.Store) (*agent.Agent, error) {
		return agent.New(agent.Options{Store: store, Model: weatherModel(), Variables: city(), Actions: action.MustSet(forget)})
	}}
	e := newEnv(t, a)
	w = e.worker
	o := e.execute(t, "weather", byreftemporal.RunSpec{Spec: run.Spec{Task: "weather?", NonInteractive: true}, ID: "run-l"})
	if !o.OK() || string(o.Result) != `"sunny, 21°C in Paris"` {
		t.Fatalf("outcome = %+v", o)
	}
}

// TestWorkflowAnswerOfALostRunIsKept: an answer that reaches a run whose
// worker was lost while it awaited goes to the run hosted again from its
// log, rather than being dropped while its sender waits for the run to go
// on.
func TestWorkflowAnswerOfALostRunIsKept(t *testing.T) {
	e := newEnv(t, weatherAgent())
	e.RegisterDelayedCallback(func() {
		s := e.snapshot(t, "run-al")
		if s.Await == nil {
			t.Errorf("run-al is %s, awaiting nothing", s.Status)
			return
		}
		e.worker.Forget("run-al") // its worker dies as it awaits
		e.SignalWorkflow(byreftemporal.SignalAnswer, byreftemporal.Answer{AwaitID: s.Await.ID, Answer: run.Answer{Decision: run.Approved}})
	}, time.Minute)
	o := e.execute(t, "weather", byreftemporal.RunSpec{Spec: run.Spec{Task: "weather?", NonInteractive: true, Approval: agent.ApproveOnToolCall}, ID: "run-al"})
	if !o.OK() || string(o.Result) != `"sunny, 21°C in Paris"` {
		t.Fatalf("outcome = %+v", o)
	}
}

// Counter is a live host object: it is not JSON, so it cannot come back
// from a log.
type Counter struct{ n chan int }

// TestWorkflowLostRunWithLiveVariableIsInterrupted: a run that held a
// variable its log cannot rebuild fails as interrupted, naming it.
func TestWorkflowLostRunWithLiveVariableIsInterrupted(t *testing.T) {
	var w *byreftemporal.Worker
	bump := action.MustNew(action.Spec{
		Name: "get_weather", Description: "Get the weather.", Params: []action.Param{{Name: "location"}, {Name: "unit"}},
		Func: func(location, unit string) string {
			w.Forget("run-i")
			return getWeather(location, unit)
		},
	})
	vars := func() []variable.Spec {
		return append(city(), variable.Spec{Name: "counter", Value: &Counter{n: make(chan int)}})
	}
	a := byreftemporal.Agent{Name: "weather", New: func(store run.Store) (*agent.Agent, error) {
		return agent.New(agent.Options{Store: store, Model: weatherModel(), Variables: vars(), Actions: action.MustSet(bump)})
	}}
	e := newEnv(t, a)
	w = e.worker
	o := e.execute(t, "weather", byreftemporal.RunSpec{Spec: run.Spec{Task: "weather?", NonInteractive: true}, ID: "run-i"})
	if o.Status != run.StatusFailed || !strings.HasPrefix(o.Reason, "interrupted") || !strings.Contains(o.Reason, "counter") {
		t.Fatalf("outcome = %+v, want failed as interrupted naming counter", o)
	}
	if s := e.snapshot(t, "run-i"); s.Status != run.StatusFailed || !strings.HasPrefix(s.FailureReason, "interrupted") {
		t.Fatalf("the log says %s: %s", s.Status, s.FailureReason)
	}
}

func TestWorkflowUnknownAgent(t *testing.T) {
	e := newEnv(t, weatherAgent())
	e.ExecuteWorkflow(byreftemporal.WorkflowName, byreftemporal.Input{Agent: "nobody", Run: byreftemporal.RunSpec{Spec: run.Spec{Task: "t"}, ID: "run-u"}})
	err := e.GetWorkflowError()
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || !strings.Contains(app.Error(), `no agent "nobody"`) {
		t.Fatalf("workflow error = %v", err)
	}
}

// TestWorkflowGivingUpEndsTheLog: a run lost more often than Timing.MaxHosts
// allows fails, and its log says so, so that nobody waits for it.
func TestWorkflowGivingUpEndsTheLog(t *testing.T) {
	var w *byreftemporal.Worker
	forgetful := func() llm.Model {
		inner := weatherModel()
		return llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
			w.Forget("run-g") // at every model call: its worker is always lost
			return inner.Generate(context.Background(), req)
		})
	}
	e := newEnv(t, newAgent("weather", forgetful, city))
	w = e.worker
	e.ExecuteWorkflow(byreftemporal.WorkflowName, byreftemporal.Input{Agent: "weather", Run: byreftemporal.RunSpec{Spec: run.Spec{Task: "weather?", NonInteractive: true}, ID: "run-g"}, Timing: byreftemporal.Timing{MaxHosts: 2}})
	if err := e.GetWorkflowError(); err == nil || !strings.Contains(err.Error(), "hosted 2 times") {
		t.Fatalf("workflow error = %v", err)
	}
	if s := e.snapshot(t, "run-g"); s.Status != run.StatusFailed || !strings.Contains(s.FailureReason, "hosted 2 times") {
		t.Fatalf("the log says %s: %s", s.Status, s.FailureReason)
	}
}
