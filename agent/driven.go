package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/byref/byref/run"
)

// ErrNotDriven is returned by Advance for a run whose RunOptions.Driven is
// false.
var ErrNotDriven = errors.New("agent: the run is not driven; set RunOptions.Driven to step it with Advance")

// checkpoint stops the loop of a driven run before a model call or a step
// until Advance lets it go on; it returns at once for a run that is not
// driven.
func (l *loop) checkpoint(ctx context.Context, kind PauseKind) error {
	if l.h.drive == nil {
		return nil
	}
	return l.h.drive.checkpoint(ctx, kind)
}

// Advance lets a driven run (RunOptions.Driven) go on from where it stopped
// to the next pause, and returns that pause with the events recorded on
// the way. The first Advance after Begin returns the first pause, before
// the first model call. At a PauseAwait, answer with Resume (or end it
// with Expire or Cancel) before advancing: Advance then waits for what
// follows the answer. At PauseEnded it returns the same pause until
// FollowUp starts another turn. Cancelling ctx stops the waiting, not the
// run.
//
// An engine that runs the loop elsewhere uses it to make each model call
// and each step a unit of work of its own (package temporal makes each an
// activity). Only one goroutine should advance a run at a time.
func (h *Handle) Advance(ctx context.Context) (Pause, error) {
	if h.drive == nil {
		return Pause{}, ErrNotDriven
	}
	return h.drive.advance(ctx)
}

// Expire fails the run because the await awaitID ("" for whichever is
// pending) was not answered in time, as RunOptions.AwaitTimeout does in
// this process. A driven run keeps no timer of its own: the engine that
// drives it keeps time and calls Expire. It returns an error wrapping
// ErrNoAwait when that await is not pending.
func (h *Handle) Expire(ctx context.Context, awaitID string) error {
	p := h.awaits.claim(awaitID)
	if p == nil {
		return fmt.Errorf("%w: run %s has no pending await %q", ErrNoAwait, h.id, awaitID)
	}
	<-p.ready
	reason := fmt.Sprintf("the %s %s was not answered in time", p.req.Await, p.req.ID)
	if h.opts.AwaitTimeout > 0 {
		reason = fmt.Sprintf("the %s %s was not answered within %v", p.req.Await, p.req.ID, h.opts.AwaitTimeout)
	}
	h.awaits.setFatal(reason)
	err := h.rec.transition(ctx, run.StatusFailed, reason, run.Error{Message: reason})
	p.answer <- resumed{err: errors.New(reason)}
	return err
}
