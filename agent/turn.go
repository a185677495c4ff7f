package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/byref/byref/run"
)

// Cancel asks the run to stop: it moves to cancelling at once, its context
// (and so every running action and snippet) is cancelled, and it moves to
// canceled when they have returned. Cancelling a run that has ended returns
// an error wrapping ErrTerminal.
func (h *Handle) Cancel(ctx context.Context) error {
	h.mu.Lock()
	notBegun := !h.begun
	h.begun = true // a created run that is cancelled never begins
	h.mu.Unlock()
	if h.rec.current() == run.StatusCancelling {
		return nil // already on its way
	}
	err := h.rec.transition(ctx, run.StatusCancelling, "cancel requested")
	if err != nil {
		if isIllegal(err) {
			return fmt.Errorf("%w: run %s is %s", ErrTerminal, h.id, h.rec.current())
		}
		return err
	}
	if notBegun {
		err := h.rec.transition(ctx, run.StatusCanceled, "canceled before it began")
		h.end(Outcome{Status: run.StatusCanceled, Reason: "canceled before it began"})
		return err
	}
	h.mu.Lock()
	cancel := h.cancel
	h.mu.Unlock()
	if cancel != nil {
		cancel(errCanceled)
	}
	return nil
}

// FollowUp sends a message to a completed, interactive run: it moves back to
// running with its own variables and history, and Wait returns the new
// outcome. ctx bounds the call only, as with Start.
func (h *Handle) FollowUp(ctx context.Context, text string) error {
	if h.opts.NonInteractive {
		return fmt.Errorf("%w: run %s is non-interactive", ErrNotFollowable, h.id)
	}
	h.mu.Lock()
	select {
	case <-h.done:
	default:
		h.mu.Unlock()
		return fmt.Errorf("%w: run %s is still %s; wait for it first", ErrNotFollowable, h.id, h.rec.current())
	}
	if s := h.rec.current(); s != run.StatusCompleted {
		h.mu.Unlock()
		return fmt.Errorf("%w: run %s is %s, and only a completed run can be followed up", ErrNotFollowable, h.id, s)
	}
	h.done = make(chan struct{})
	sent, hostVars := h.conv.announce(clip(text, h.st.opts.MaxMessage))
	h.turnSteps, h.turnTokens = h.steps, h.usage.Total()
	h.mu.Unlock()
	if h.drive != nil {
		h.drive.reset()
	}
	msg := run.UserMessage{Text: text}
	if sent != text {
		msg.Sent = sent
	}
	// The message and the host variables it announces are recorded with
	// the move that begins the turn: a run restored after it has them.
	turn := append([]run.Payload{run.PhaseChanged{From: h.rec.currentPhase(), To: run.PhasePrompted}, msg}, hostVars...)
	if err := h.rec.transitionFrom(ctx, run.StatusCompleted, run.StatusRunning, "follow-up", nil, turn...); err != nil {
		h.end(Outcome{Status: h.rec.current(), Reason: err.Error()})
		return err
	}
	h.launch(ctx)
	return nil
}

// launch runs the loop of the current turn in its own goroutine.
func (h *Handle) launch(ctx context.Context) {
	h.launchWith(ctx, h.newLoop(0).run)
}

// launchWith runs body as the current turn in its own goroutine, with a
// context of its own: ctx's values are kept, its cancellation is not (a
// run's life is its own). Cancel and Close cancel it.
func (h *Handle) launchWith(ctx context.Context, body func(context.Context) Outcome) {
	loopCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	h.mu.Lock()
	h.cancel = cancel
	h.mu.Unlock()
	if err := h.rt.track(h); err != nil {
		cancel(err)
	}
	if h.rec.current() == run.StatusCancelling { // Cancel came before the loop could be told
		cancel(errCanceled)
	}
	loopCtx = context.WithValue(loopCtx, runInfoKey{}, &runInfo{id: h.id, tags: h.opts.Tags})
	loopCtx, endSpan := h.rt.startSpan(loopCtx, Span{Kind: SpanRun, Name: h.opts.Name, RunID: h.id, Tags: h.opts.Tags})
	log := h.rt.log().With("run", string(h.id))
	log.Info("run started", "name", h.opts.Name)
	h.rt.wg.Add(1)
	go func() {
		defer h.rt.wg.Done()
		defer cancel(nil)
		o := body(loopCtx)
		var err error
		if o.Status != run.StatusCompleted {
			err = errors.New(string(o.Status) + ": " + o.Reason)
		}
		endSpan(SpanEnd{Err: err, Status: o.Status})
		h.mu.Lock()
		steps := h.steps
		h.mu.Unlock()
		log.Info("run ended", "status", string(o.Status), "reason", o.Reason, "steps", steps)
		// Untracked first: when Wait returns, the run's variables are
		// its session's (held), and ForgetSession lets them go.
		h.rt.untrack(h)
		h.end(o)
	}()
}

// stop cancels the run's current turn with cause, as Close does.
func (h *Handle) stop(cause error) {
	h.mu.Lock()
	cancel := h.cancel
	h.mu.Unlock()
	if cancel != nil {
		cancel(cause)
	}
}
