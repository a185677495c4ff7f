package agent

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/interp"
	"github.com/byref/byref/run"
)

// awaits is what a run awaits from a person, and the gate its steps ask
// through (approvals, authorizations, input, questions): the await
// pending, how many were asked, whether the plan was approved, and why
// the run failed when an await was not answered in time. Its lock guards
// those fields alone; Resume, Expire and the run's loop meet here.
type awaits struct {
	rec      *recorder
	drive    *driver       // nil unless the run is driven
	strategy Approval      // the run's approval strategy
	timeout  time.Duration // RunOptions.AwaitTimeout

	mu      sync.Mutex
	pending *pendingAwait
	count   int
	fatal   string // set when an await timed out and the run failed
	planOK  bool   // the plan was approved (ApproveOnStart)
}

// newAwaits is the awaits of a run recorded by rec, driven by drive (nil
// if not), with the approval strategy and await timeout of opts.
func newAwaits(rec *recorder, drive *driver, opts *RunOptions) *awaits {
	return &awaits{rec: rec, drive: drive, strategy: opts.Approval, timeout: opts.AwaitTimeout,
		planOK: opts.Approval != ApproveOnStart}
}

// ask records req, moves the run to awaiting and blocks until Resume
// answers, the await times out (the run fails) or ctx is done.
func (a *awaits) ask(ctx context.Context, req run.AwaitRequested) (run.Answer, error) {
	if a.timeout > 0 {
		req.Deadline = time.Now().Add(a.timeout).UTC()
	}
	a.mu.Lock()
	a.count++
	req.ID = "await_" + strconv.Itoa(a.count)
	p := newPendingAwait(req, false)
	a.pending = p
	a.mu.Unlock()
	err := a.rec.transition(ctx, run.StatusAwaiting, "", req)
	close(p.ready)
	if err != nil {
		a.clear(p)
		return run.Answer{}, err
	}
	if a.drive != nil {
		a.drive.post(Pause{Kind: PauseAwait, Await: &req})
	}
	return a.wait(ctx, p)
}

// restore makes p, an await read from the run's log, the pending one.
func (a *awaits) restore(p *pendingAwait) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pending = p
}

// wait blocks until the pending await p is answered, times out (the run
// fails) or ctx is done.
func (a *awaits) wait(ctx context.Context, p *pendingAwait) (run.Answer, error) {
	req := p.req
	var timeout <-chan time.Time
	if !req.Deadline.IsZero() && a.drive == nil { // a driven run's engine keeps time
		t := time.NewTimer(time.Until(req.Deadline))
		defer t.Stop()
		timeout = t.C
	}
	select {
	case r := <-p.answer:
		return r.answer, r.err
	case <-timeout:
		if !a.clear(p) {
			r := <-p.answer // Resume won the race
			return r.answer, r.err
		}
		reason := fmt.Sprintf("the %s %s was not answered by %s", req.Await, req.ID, req.Deadline.Format(time.RFC3339))
		if a.timeout > 0 {
			reason = fmt.Sprintf("the %s %s was not answered within %v", req.Await, req.ID, a.timeout)
		}
		a.setFatal(reason)
		_ = a.rec.transition(ctx, run.StatusFailed, reason, run.Error{Message: reason, Failure: run.FailureTimeout})
		return run.Answer{}, errors.New(reason)
	case <-ctx.Done():
		if !a.clear(p) {
			r := <-p.answer
			return r.answer, r.err
		}
		return run.Answer{}, context.Cause(ctx)
	}
}

// clear removes p if it is still pending and reports whether it was.
func (a *awaits) clear(p *pendingAwait) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pending != p {
		return false
	}
	a.pending = nil
	return true
}

// claim takes the pending await whose ID is id ("" for whichever), or nil.
func (a *awaits) claim(id string) *pendingAwait {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.pending
	if p == nil || (id != "" && id != p.req.ID) {
		return nil
	}
	a.pending = nil
	return p
}

func (a *awaits) setFatal(reason string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.fatal = reason
}

// fatalReason is why an await failed the run, or "".
func (a *awaits) fatalReason() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.fatal
}

// planApproved reports whether the run's plan was approved (or needs no
// approval).
func (a *awaits) planApproved() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.planOK
}

// approvePlan records that the run's plan was approved.
func (a *awaits) approvePlan() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.planOK = true
}

// approveCall implements gate.
func (a *awaits) approveCall(ctx context.Context, c *ToolCall, refs func() map[string]run.VariableRef, needsApproval bool) string {
	if a.strategy != ApproveOnToolCall && !needsApproval {
		return ""
	}
	call := withRefs(*c, refs())
	ans, err := a.ask(ctx, run.AwaitRequested{
		Await:   run.AwaitApproval,
		Message: strings.TrimSuffix(fmt.Sprintf("Approve the call of %s with %s?\n%s", c.Name, c.Arguments, call.DescribeReferences()), "\n"),
		Call:    call,
	})
	if err != nil {
		return "not run: " + err.Error()
	}
	if ans.Decision == run.Denied {
		return denied(ans.Reason)
	}
	if ans.Arguments != "" {
		c.Arguments = ans.Arguments
	}
	return ""
}

func denied(reason string) string {
	if reason == "" {
		reason = "no reason given"
	}
	return "the user denied this call: " + reason + ". Do not retry it as is; change your approach or ask the user."
}

// approveSnippet implements gate.
func (a *awaits) approveSnippet(ctx context.Context, code string, access interp.Access, guarded []string) string {
	if a.strategy != ApproveOnToolCall && len(guarded) == 0 {
		return ""
	}
	msg := "Approve running this Go snippet?"
	if len(guarded) > 0 {
		msg = "Approve running this Go snippet? It calls " + strings.Join(guarded, ", ") + ", which needs approval."
	}
	ans, err := a.ask(ctx, run.AwaitRequested{
		Await:   run.AwaitApproval,
		Message: msg,
		Snippet: &run.Snippet{Code: code, Reads: access.Reads, Writes: access.Writes},
	})
	if err != nil {
		return "not run: " + err.Error()
	}
	if ans.Decision == run.Denied {
		return denied(ans.Reason)
	}
	return ""
}

// human implements gate.
func (a *awaits) human(ctx context.Context, c ToolCall, refs func() map[string]run.VariableRef, need error) (context.Context, string) {
	call := withRefs(c, refs())
	var auth *action.AuthorizationRequired
	if errors.As(need, &auth) {
		ans, err := a.ask(ctx, run.AwaitRequested{Await: run.AwaitAuthorization, Message: auth.Message, Link: auth.Link, Call: call})
		if err != nil {
			return nil, "not run: " + err.Error()
		}
		if ans.Decision == run.Denied {
			return nil, "the user did not authorize " + c.Name + ": " + ans.Reason
		}
		return ctx, ""
	}
	var in *action.InputRequired
	if errors.As(need, &in) {
		ans, err := a.ask(ctx, run.AwaitRequested{Await: run.AwaitInput, Message: in.Message, Call: call, Client: in.Client})
		if err != nil {
			return nil, "not run: " + err.Error()
		}
		return action.WithInput(ctx, ans.Input), ""
	}
	return nil, need.Error()
}

// question implements gate.
func (a *awaits) question(ctx context.Context, c ToolCall, question string) (string, string) {
	ans, err := a.ask(ctx, run.AwaitRequested{Await: run.AwaitQuestion, Message: question})
	if err != nil {
		return "", "no answer: " + err.Error()
	}
	return ans.Text, ""
}
