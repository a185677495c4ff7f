package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// waitFor waits for the nth await (1-based) of the run.
func waitFor(t *testing.T, h *agent.Handle, n int) run.AwaitRequested {
	t.Helper()
	seen := 0
	for e, err := range h.Events(context.Background(), 1) {
		if err != nil {
			t.Fatal(err)
		}
		if req, ok := e.Payload.(run.AwaitRequested); ok {
			seen++
			if seen == n {
				return req
			}
		}
	}
	t.Fatalf("the run ended after %d awaits (status %s)", seen, h.Status())
	return run.AwaitRequested{}
}

func wait(t *testing.T, h *agent.Handle) agent.Outcome {
	t.Helper()
	o, err := h.Wait(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func resume(t *testing.T, h *agent.Handle, id string, a run.Answer) {
	t.Helper()
	if err := h.Resume(context.Background(), id, a); err != nil {
		t.Fatal(err)
	}
}

var weatherThenDone = []llm.Response{
	llm.CallTool("get_weather", `{"location":"<<var:city>>","unit":"c","return":null}`),
	llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`),
}

func TestApprovalNoneAsksNothing(t *testing.T) {
	rt := newAgent(t, llm.NewScripted(weatherThenDone...), agent.Options{})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t", Approval: agent.ApproveNone})
	o := wait(t, h)
	for _, e := range events(t, h) {
		if e.Type() == run.EventAwaitRequested {
			t.Fatal("approval none awaited")
		}
	}
	if !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
}

func TestApprovalOnToolCall(t *testing.T) {
	model := llm.NewScripted(
		llm.CallTool("get_weather", `{"location":"<<var:city>>","unit":"c","return":null}`),
		llm.CallTool("get_weather", `{"location":"<<var:city>>","unit":"f","return":null}`),
		llm.CallTool("get_weather", `{"location":"Rome","unit":"c","return":null}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`),
	)
	rt := newAgent(t, model, agent.Options{})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t", Approval: agent.ApproveOnToolCall})

	// 1: approve. The approver sees the call with its reference resolved.
	req := waitFor(t, h, 1)
	if req.Await != run.AwaitApproval || req.Call == nil || req.Call.References["location"].Variable != "city" || req.Call.References["location"].Preview != `Paris` {
		t.Fatalf("await = %+v", req)
	}
	resume(t, h, req.ID, run.Answer{Decision: run.Approved})
	// 2: deny with a reason; the model is told and goes on.
	req = waitFor(t, h, 2)
	resume(t, h, req.ID, run.Answer{Decision: run.Denied, Reason: "we use Celsius"})
	// 3: approve with edited arguments.
	req = waitFor(t, h, 3)
	resume(t, h, req.ID, run.Answer{Decision: run.Approved, Arguments: `{"location":"Milan","unit":"c","return":null}`})
	o := wait(t, h)
	if string(o.Result) != `"sunny, 21°C in Paris"` {
		t.Fatalf("outcome = %+v", o)
	}
	if w, _ := agent.Value[string](h.State(), "weather_2"); w != "sunny, 21°C in Milan" {
		t.Fatalf("the edited call ran with %q", w)
	}
	denied := model.Requests()[2].Messages
	if m := denied[len(denied)-1]; !strings.Contains(m.Text, "the user denied this call: we use Celsius") {
		t.Fatalf("the model was not told of the denial: %q", m.Text)
	}
	h2 := h.State().History()
	if h2[1].OK() || !strings.Contains(h2[1].Err, "denied") {
		t.Fatalf("the denied call must be recorded as failed: %+v", h2[1])
	}
}

func TestApprovalOnToolCallCoversSnippets(t *testing.T) {
	model := llm.NewScripted(
		llm.Text("```go\nloud := city + \"!\"\n```"),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:loud>>"}`),
	)
	rt := newAgent(t, model, agent.Options{})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t", Approval: agent.ApproveOnToolCall})
	req := waitFor(t, h, 1)
	if req.Snippet == nil || !strings.Contains(req.Snippet.Code, "loud :=") || strings.Join(req.Snippet.Reads, ",") != "city" {
		t.Fatalf("await = %+v", req)
	}
	resume(t, h, "", run.Answer{Decision: run.Approved})
	if o := wait(t, h); string(o.Result) != `"Paris!"` {
		t.Fatalf("outcome = %+v", o)
	}
}

func TestApprovalOnStart(t *testing.T) {
	plan := llm.Response{Text: "Plan: look up the weather, then report it.", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "get_weather", Arguments: `{"location":"<<var:city>>","unit":"c","return":null}`}}}
	model := llm.NewScripted(plan, plan, weatherThenDone[1])
	rt := newAgent(t, model, agent.Options{})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t", Approval: agent.ApproveOnStart})
	req := waitFor(t, h, 1)
	if !strings.Contains(req.Message, "look up the weather") || !strings.Contains(req.Message, "get_weather") {
		t.Fatalf("plan await = %+v", req)
	}
	if len(h.State().History()) != 0 {
		t.Fatal("something ran before the plan was approved")
	}
	resume(t, h, req.ID, run.Answer{Decision: run.Denied, Reason: "say it in Fahrenheit"})
	req = waitFor(t, h, 2)
	resume(t, h, req.ID, run.Answer{Decision: run.Approved})
	o := wait(t, h)
	if !o.OK() {
		t.Fatalf("outcome = %+v", o)
	}
	msgs := model.Requests()[1].Messages
	if m := msgs[len(msgs)-1]; !strings.Contains(m.Text, "rejected the plan: say it in Fahrenheit") {
		t.Fatalf("the model was not told: %q", m.Text)
	}
	// Only the first step needed approval.
	n := 0
	for _, e := range events(t, h) {
		if e.Type() == run.EventAwaitRequested {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d awaits, want 2", n)
	}
}

func TestActionNeedsApprovalWhateverTheStrategy(t *testing.T) {
	pay := action.MustNew(action.Spec{Name: "pay", Func: func(amount int) string { return "paid" }, Params: []action.Param{{Name: "amount"}}, NeedsApproval: true})
	model := llm.NewScripted(llm.CallTool("pay", `{"amount":10,"return":null}`), llm.CallTool("terminate", `{"success":true,"result":"<<var:pay_result>>"}`))
	rt := newAgent(t, model, agent.Options{Actions: action.MustSet(pay)})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t"})
	req := waitFor(t, h, 1)
	if req.Call == nil || req.Call.Name != "pay" {
		t.Fatalf("await = %+v", req)
	}
	resume(t, h, req.ID, run.Answer{Decision: run.Approved})
	if o := wait(t, h); string(o.Result) != `"paid"` {
		t.Fatalf("outcome = %+v", o)
	}
}

func TestAskUser(t *testing.T) {
	model := llm.NewScripted(
		llm.CallTool("ask_user", `{"question":"Which city?","return":null}`),
		llm.CallTool("get_weather", `{"location":"<<var:ask_user_result>>","unit":"c","return":null}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`),
	)
	rt := newAgent(t, model, agent.Options{})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "weather somewhere"})
	req := waitFor(t, h, 1)
	if req.Await != run.AwaitQuestion || req.Message != "Which city?" {
		t.Fatalf("await = %+v", req)
	}
	if h.Status() != run.StatusAwaiting {
		t.Fatalf("status = %s", h.Status())
	}
	resume(t, h, req.ID, run.Answer{Text: "Oslo"})
	if o := wait(t, h); string(o.Result) != `"sunny, 21°C in Oslo"` {
		t.Fatalf("outcome = %+v", o)
	}
}

func TestAuthorizationAwaitRetriesTheCall(t *testing.T) {
	calls := 0
	mail := action.MustNew(action.Spec{Name: "read_mail", Func: func() (string, error) {
		calls++
		if calls == 1 {
			return "", &action.AuthorizationRequired{Link: "https://auth.example/consent", Message: "Allow byref to read your mail"}
		}
		return "3 new messages", nil
	}})
	model := llm.NewScripted(llm.CallTool("read_mail", `{"return":null}`), llm.CallTool("terminate", `{"success":true,"result":"<<var:mail>>"}`))
	rt := newAgent(t, model, agent.Options{Actions: action.MustSet(mail)})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t"})
	req := waitFor(t, h, 1)
	if req.Await != run.AwaitAuthorization || req.Link != "https://auth.example/consent" || req.Call.Name != "read_mail" {
		t.Fatalf("await = %+v", req)
	}
	resume(t, h, req.ID, run.Answer{Decision: run.Approved})
	if o := wait(t, h); string(o.Result) != `"3 new messages"` || calls != 2 {
		t.Fatalf("outcome = %+v after %d calls", o, calls)
	}
}

func TestInputAwait(t *testing.T) {
	review := action.MustNew(action.Spec{Name: "review", Func: func(ctx context.Context) (string, error) {
		in, ok := action.Input(ctx)
		if !ok {
			return "", &action.InputRequired{Message: "the reviewer's verdict"}
		}
		var v struct{ Verdict string }
		json.Unmarshal(in, &v)
		return v.Verdict, nil
	}})
	model := llm.NewScripted(llm.CallTool("review", `{"return":null}`), llm.CallTool("terminate", `{"success":true,"result":"<<var:review_result>>"}`))
	rt := newAgent(t, model, agent.Options{Actions: action.MustSet(review)})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t"})
	req := waitFor(t, h, 1)
	if req.Await != run.AwaitInput || req.Message != "the reviewer's verdict" {
		t.Fatalf("await = %+v", req)
	}
	resume(t, h, req.ID, run.Answer{Input: json.RawMessage(`{"Verdict":"ship it"}`)})
	if o := wait(t, h); string(o.Result) != `"ship it"` {
		t.Fatalf("outcome = %+v", o)
	}
}

func TestAwaitTimeoutFailsTheRun(t *testing.T) {
	model := llm.NewScripted(llm.CallTool("ask_user", `{"question":"?","return":null}`))
	rt := newAgent(t, model, agent.Options{})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t", AwaitTimeout: 20 * time.Millisecond})
	o := wait(t, h)
	if o.Status != run.StatusFailed || !strings.Contains(o.Reason, "was not answered within 20ms") {
		t.Fatalf("outcome = %+v", o)
	}
	if s := run.Fold(events(t, h)); s.Status != run.StatusFailed || s.Await != nil || !strings.Contains(s.FailureReason, "not answered") {
		t.Fatalf("snapshot = %+v", s)
	}
	if err := h.Resume(context.Background(), "", run.Answer{Text: "late"}); !errors.Is(err, agent.ErrNoAwait) {
		t.Fatalf("late resume: %v", err)
	}
}

func TestResumeMismatch(t *testing.T) {
	model := llm.NewScripted(llm.CallTool("ask_user", `{"question":"Which city?","return":null}`), llm.CallTool("terminate", `{"success":true,"result":null}`))
	rt := newAgent(t, model, agent.Options{})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t"})
	req := waitFor(t, h, 1)
	for _, c := range []struct {
		id   string
		a    run.Answer
		want string
	}{
		{"await_99", run.Answer{Text: "Oslo"}, "awaits question " + req.ID + " (Which city?), not await_99"},
		{req.ID, run.Answer{Decision: run.Approved}, "a question needs the answer's text"},
		{"", run.Answer{}, "a question needs the answer's text"},
	} {
		err := h.Resume(context.Background(), c.id, c.a)
		if !errors.Is(err, agent.ErrAwaitMismatch) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Resume(%q, %+v) = %v; want %q", c.id, c.a, err, c.want)
		}
	}
	if h.Status() != run.StatusAwaiting {
		t.Fatalf("a refused resume changed the status to %s", h.Status())
	}
	resume(t, h, req.ID, run.Answer{Text: "Oslo"})
	wait(t, h)
	if err := h.Resume(context.Background(), req.ID, run.Answer{Text: "again"}); !errors.Is(err, agent.ErrNoAwait) {
		t.Fatalf("resume after the end: %v", err)
	}
}

func TestCancelFromEveryNonTerminalStatus(t *testing.T) {
	ctx := context.Background()
	t.Run("created", func(t *testing.T) {
		rt := newAgent(t, llm.NewScripted(weatherThenDone...), agent.Options{})
		h, err := rt.Create(ctx, agent.RunOptions{Task: "t"})
		if err != nil || h.Status() != run.StatusCreated {
			t.Fatalf("created: %v %s", err, h.Status())
		}
		if err := h.Cancel(ctx); err != nil {
			t.Fatal(err)
		}
		if o := wait(t, h); o.Status != run.StatusCanceled {
			t.Fatalf("outcome = %+v", o)
		}
		if err := h.Begin(ctx); err == nil {
			t.Fatal("a canceled run began")
		}
	})
	t.Run("running", func(t *testing.T) {
		started := make(chan struct{})
		block := action.MustNew(action.Spec{Name: "block", Func: func(ctx context.Context) error { close(started); <-ctx.Done(); return ctx.Err() }})
		rt := newAgent(t, llm.NewScripted(llm.CallTool("block", `{}`)), agent.Options{Actions: action.MustSet(block)})
		h, _ := rt.Start(ctx, agent.RunOptions{Task: "t"})
		<-started
		h.Cancel(ctx)
		if o := wait(t, h); o.Status != run.StatusCanceled {
			t.Fatalf("outcome = %+v", o)
		}
	})
	t.Run("awaiting", func(t *testing.T) {
		rt := newAgent(t, llm.NewScripted(llm.CallTool("ask_user", `{"question":"?","return":null}`)), agent.Options{})
		h, _ := rt.Start(ctx, agent.RunOptions{Task: "t"})
		waitFor(t, h, 1)
		if err := h.Cancel(ctx); err != nil {
			t.Fatal(err)
		}
		if o := wait(t, h); o.Status != run.StatusCanceled {
			t.Fatalf("outcome = %+v", o)
		}
		if _, ok := h.Pending(); ok {
			t.Fatal("a canceled run still awaits")
		}
	})
	t.Run("cancelling", func(t *testing.T) {
		started := make(chan struct{})
		release := make(chan struct{})
		stubborn := action.MustNew(action.Spec{Name: "stubborn", Func: func(ctx context.Context) { close(started); <-release }})
		rt := newAgent(t, llm.NewScripted(llm.CallTool("stubborn", `{}`)), agent.Options{Actions: action.MustSet(stubborn), CallTimeout: -1})
		h, _ := rt.Start(ctx, agent.RunOptions{Task: "t"})
		<-started
		h.Cancel(ctx)
		if h.Status() != run.StatusCancelling {
			t.Fatalf("status = %s", h.Status())
		}
		if err := h.Cancel(ctx); err != nil {
			t.Fatalf("cancelling a cancelling run: %v", err)
		}
		close(release)
		if o := wait(t, h); o.Status != run.StatusCanceled {
			t.Fatalf("outcome = %+v", o)
		}
	})
	t.Run("terminal", func(t *testing.T) {
		rt := newAgent(t, llm.NewScripted(weatherThenDone...), agent.Options{})
		h, _ := rt.Start(ctx, agent.RunOptions{Task: "t"})
		wait(t, h)
		if err := h.Cancel(ctx); !errors.Is(err, agent.ErrTerminal) {
			t.Fatalf("err = %v", err)
		}
	})
}

// failingStore fails every append after the first n.
type failingStore struct {
	run.Store
	mu   sync.Mutex
	left int
}

func (s *failingStore) Append(ctx context.Context, id run.ID, last int64, events ...run.Event) (int64, error) {
	s.mu.Lock()
	s.left--
	fail := s.left < 0
	s.mu.Unlock()
	if fail {
		return 0, errors.New("disk full")
	}
	return s.Store.Append(ctx, id, last, events...)
}

// A Resume whose answer cannot be recorded returns the error and the run
// does not hang: it ends (failed, as the store is broken).
func TestResumeThatCannotBeRecordedDoesNotHang(t *testing.T) {
	store := &failingStore{Store: run.NewMemoryStore(), left: 1 << 30}
	model := llm.NewScripted(llm.CallTool("ask_user", `{"question":"?","return":null}`), llm.CallTool("terminate", `{"success":true,"result":null}`))
	rt := newAgent(t, model, agent.Options{Store: store})
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t"})
	req := waitFor(t, h, 1)
	store.mu.Lock()
	store.left = 0
	store.mu.Unlock()
	if err := h.Resume(context.Background(), req.ID, run.Answer{Text: "x"}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Resume = %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := h.Wait(ctx); err != nil {
		t.Fatalf("the run hangs after a failed resume: %v", err)
	}
}

// The status hook runs with no lock held: it may call back into the run.
func TestStatusHookMayCallBackIntoTheRun(t *testing.T) {
	model := llm.NewScripted(llm.CallTool("ask_user", `{"question":"?","return":null}`))
	rt := newAgent(t, model, agent.Options{})
	var h *agent.Handle
	var mu sync.Mutex
	var seen []string
	created, _ := rt.Create(context.Background(), agent.RunOptions{
		Task: "t",
		OnStatus: func(c run.StatusChanged) {
			mu.Lock()
			hh := h
			mu.Unlock()
			if hh == nil {
				return
			}
			_, pending := hh.Pending()
			st := hh.Status()
			mu.Lock()
			seen = append(seen, fmt.Sprintf("%s/%v", st, pending))
			mu.Unlock()
			if c.To == run.StatusAwaiting {
				hh.Cancel(context.Background()) // a hook may even change the status
			}
		},
	})
	mu.Lock()
	h = created
	mu.Unlock()
	if err := created.Begin(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	hh := h
	mu.Unlock()
	o := wait(t, hh)
	if o.Status != run.StatusCanceled {
		t.Fatalf("outcome = %+v", o)
	}
}

// A Resume that loses to a Cancel is refused, and the run ends canceled,
// not stuck in cancelling.
func TestResumeAfterCancelEndsCanceled(t *testing.T) {
	for i := 0; i < 20; i++ {
		model := llm.NewScriptedFunc(func(llm.Request) (llm.Response, error) {
			return llm.CallTool("ask_user", `{"question":"?","return":null}`), nil
		})
		rt := newAgent(t, model, agent.Options{})
		h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t"})
		req := waitFor(t, h, 1)
		done := make(chan error, 1)
		go func() { done <- h.Resume(context.Background(), req.ID, run.Answer{Text: "x"}) }()
		h.Cancel(context.Background())
		<-done
		o := wait(t, h)
		if o.Status != run.StatusCanceled || h.Status() != run.StatusCanceled {
			t.Fatalf("try %d: outcome %+v, status %s", i, o, h.Status())
		}
	}
}
