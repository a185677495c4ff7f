package runtime

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/interp"
	"github.com/byref/byref/run"
)

// Pending returns what the run awaits, if anything.
func (h *Handle) Pending() (run.AwaitRequested, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pending == nil {
		return run.AwaitRequested{}, false
	}
	return h.pending.req, true
}

// Resume answers what the run awaits. awaitID names the await (as in
// run.AwaitRequested.ID); "" means whichever is pending. The answer must fit
// the await's kind: a Decision for an approval or an authorization, Text
// for a question, Input (JSON) for input. A mismatch returns an error
// wrapping ErrAwaitMismatch that says what is pending; ErrNoAwait when the
// run awaits nothing.
func (h *Handle) Resume(ctx context.Context, awaitID string, answer run.Answer) error {
	h.mu.Lock()
	p := h.pending
	if p == nil {
		h.mu.Unlock()
		return fmt.Errorf("%w: run %s is %s", ErrNoAwait, h.id, h.rec.current())
	}
	if awaitID != "" && awaitID != p.req.ID {
		h.mu.Unlock()
		return fmt.Errorf("%w: run %s awaits %s %s (%s), not %s", ErrAwaitMismatch, h.id, p.req.Await, p.req.ID, p.req.Message, awaitID)
	}
	if err := p.req.Check(answer); err != nil {
		h.mu.Unlock()
		return fmt.Errorf("%w: run %s awaits %s %s: %v", ErrAwaitMismatch, h.id, p.req.Await, p.req.ID, err)
	}
	h.pending = nil // claimed: the loop now waits for this Resume's word
	h.mu.Unlock()
	<-p.ready // closed right after the store answers, whatever it says
	if err := h.rec.transitionFrom(ctx, run.StatusAwaiting, run.StatusRunning, "", run.AwaitResolved{ID: p.req.ID, Answer: answer}); err != nil {
		p.answer <- resumed{err: err}
		return fmt.Errorf("runtime: the answer to %s could not be recorded: %w", p.req.ID, err)
	}
	p.answer <- resumed{answer: answer}
	return nil
}

// awaitAnswer records req, moves the run to awaiting and blocks until
// Resume answers, the await times out (the run fails) or ctx is done.
func (h *Handle) awaitAnswer(ctx context.Context, req run.AwaitRequested) (run.Answer, error) {
	h.mu.Lock()
	h.awaits++
	req.ID = "await_" + strconv.Itoa(h.awaits)
	h.mu.Unlock()
	if h.opts.AwaitTimeout > 0 {
		req.Deadline = time.Now().Add(h.opts.AwaitTimeout).UTC()
	}
	p := newPendingAwait(req, false)
	h.mu.Lock()
	h.pending = p
	h.mu.Unlock()
	err := h.rec.transition(ctx, run.StatusAwaiting, "", req)
	close(p.ready)
	if err != nil {
		h.clearPending(p)
		return run.Answer{}, err
	}
	if h.drive != nil {
		h.drive.post(Pause{Kind: PauseAwait, Await: &req})
	}
	return h.waitAnswer(ctx, p)
}

// waitAnswer blocks until the pending await p is answered, times out (the
// run fails) or ctx is done.
func (h *Handle) waitAnswer(ctx context.Context, p *pendingAwait) (run.Answer, error) {
	req := p.req
	var timeout <-chan time.Time
	if !req.Deadline.IsZero() && h.drive == nil { // a driven run's engine keeps time
		t := time.NewTimer(time.Until(req.Deadline))
		defer t.Stop()
		timeout = t.C
	}
	select {
	case r := <-p.answer:
		return r.answer, r.err
	case <-timeout:
		if !h.clearPending(p) {
			r := <-p.answer // Resume won the race
			return r.answer, r.err
		}
		reason := fmt.Sprintf("the %s %s was not answered by %s", req.Await, req.ID, req.Deadline.Format(time.RFC3339))
		if h.opts.AwaitTimeout > 0 {
			reason = fmt.Sprintf("the %s %s was not answered within %v", req.Await, req.ID, h.opts.AwaitTimeout)
		}
		h.setFatal(reason)
		_ = h.rec.transition(ctx, run.StatusFailed, reason, run.Error{Message: reason, Failure: run.FailureTimeout})
		return run.Answer{}, errors.New(reason)
	case <-ctx.Done():
		if !h.clearPending(p) {
			r := <-p.answer
			return r.answer, r.err
		}
		return run.Answer{}, context.Cause(ctx)
	}
}

// clearPending removes p if it is still pending and reports whether it was.
func (h *Handle) clearPending(p *pendingAwait) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pending != p {
		return false
	}
	h.pending = nil
	return true
}

func (h *Handle) setFatal(reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fatal = reason
}

func (h *Handle) fatalReason() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.fatal
}

// approveCall implements gate.
func (h *Handle) approveCall(ctx context.Context, c *ToolCall, refs func() map[string]run.VariableRef, needsApproval bool) string {
	if h.opts.Approval != ApproveOnToolCall && !needsApproval {
		return ""
	}
	call := withRefs(*c, refs())
	a, err := h.awaitAnswer(ctx, run.AwaitRequested{
		Await:   run.AwaitApproval,
		Message: strings.TrimSuffix(fmt.Sprintf("Approve the call of %s with %s?\n%s", c.Name, c.Arguments, call.DescribeReferences()), "\n"),
		Call:    call,
	})
	if err != nil {
		return "not run: " + err.Error()
	}
	if a.Decision == run.Denied {
		return denied(a.Reason)
	}
	if a.Arguments != "" {
		c.Arguments = a.Arguments
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
func (h *Handle) approveSnippet(ctx context.Context, code string, access interp.Access, guarded []string) string {
	if h.opts.Approval != ApproveOnToolCall && len(guarded) == 0 {
		return ""
	}
	msg := "Approve running this Go snippet?"
	if len(guarded) > 0 {
		msg = "Approve running this Go snippet? It calls " + strings.Join(guarded, ", ") + ", which needs approval."
	}
	a, err := h.awaitAnswer(ctx, run.AwaitRequested{
		Await:   run.AwaitApproval,
		Message: msg,
		Snippet: &run.Snippet{Code: code, Reads: access.Reads, Writes: access.Writes},
	})
	if err != nil {
		return "not run: " + err.Error()
	}
	if a.Decision == run.Denied {
		return denied(a.Reason)
	}
	return ""
}

// human implements gate.
func (h *Handle) human(ctx context.Context, c ToolCall, refs func() map[string]run.VariableRef, need error) (context.Context, string) {
	call := withRefs(c, refs())
	var auth *action.AuthorizationRequired
	if errors.As(need, &auth) {
		a, err := h.awaitAnswer(ctx, run.AwaitRequested{Await: run.AwaitAuthorization, Message: auth.Message, Link: auth.Link, Call: call})
		if err != nil {
			return nil, "not run: " + err.Error()
		}
		if a.Decision == run.Denied {
			return nil, "the user did not authorize " + c.Name + ": " + a.Reason
		}
		return ctx, ""
	}
	var in *action.InputRequired
	if errors.As(need, &in) {
		a, err := h.awaitAnswer(ctx, run.AwaitRequested{Await: run.AwaitInput, Message: in.Message, Call: call, Client: in.Client})
		if err != nil {
			return nil, "not run: " + err.Error()
		}
		return action.WithInput(ctx, a.Input), ""
	}
	return nil, need.Error()
}

// ask implements gate.
func (h *Handle) ask(ctx context.Context, c ToolCall, question string) (string, string) {
	a, err := h.awaitAnswer(ctx, run.AwaitRequested{Await: run.AwaitQuestion, Message: question})
	if err != nil {
		return "", "no answer: " + err.Error()
	}
	return a.Text, ""
}

// owner implements gate: a run's loop asks for its steps itself.
func (h *Handle) owner() *Handle { return h }
