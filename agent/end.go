package agent

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/byref/byref/run"
)

// stopped reports whether the run was cancelled, and records canceled.
func (h *Handle) stopped(ctx context.Context) (Outcome, bool) {
	if errors.Is(context.Cause(ctx), ErrAbandoned) {
		return h.abandoned(), true
	}
	// A run is stopped once cancelled, even if the loop runs ahead of the
	// cancellation of its context.
	if ctx.Err() == nil && h.rec.current() != run.StatusCancelling {
		return Outcome{}, false
	}
	if errors.Is(context.Cause(ctx), ErrClosed) && h.rec.current() != run.StatusCancelling {
		return h.closed(ctx), true
	}
	reason := "canceled"
	if c := context.Cause(ctx); c != nil && !errors.Is(c, errCanceled) {
		reason = c.Error()
	}
	if h.rec.current() != run.StatusCancelling {
		_ = h.rec.transition(ctx, run.StatusCancelling, reason)
	}
	if err := h.rec.transition(ctx, run.StatusCanceled, reason); err != nil {
		return Outcome{Status: h.rec.current(), Reason: err.Error()}, true
	}
	return Outcome{Status: run.StatusCanceled, Reason: reason}, true
}

// closed ends the turn of a run whose agent was closed: an awaiting run
// stays awaiting in its log (Restore brings it back after a restart); any
// other is marked failed as interrupted.
func (h *Handle) closed(ctx context.Context) Outcome {
	if errors.Is(context.Cause(ctx), ErrAbandoned) {
		return h.abandoned()
	}
	if s := h.rec.current(); s == run.StatusAwaiting {
		return Outcome{Status: s, Reason: ErrClosed.Error()}
	}
	reason := "interrupted: the agent was closed"
	_ = h.rec.transition(ctx, run.StatusFailed, reason, run.Error{Message: reason, Failure: run.FailureInterrupted})
	return Outcome{Status: run.StatusFailed, Reason: reason}
}

// abandoned ends the turn of a run whose agent was abandoned
// (Agent.Abandon), recording nothing.
func (h *Handle) abandoned() Outcome {
	return Outcome{Status: h.rec.current(), Reason: ErrAbandoned.Error()}
}

// complete ends the turn as completed with result (nil for null),
// recording before first in the same batch.
func (h *Handle) complete(ctx context.Context, result json.RawMessage, reason string, before ...run.Payload) Outcome {
	if result == nil {
		result = json.RawMessage("null")
	}
	err := h.rec.transition(ctx, run.StatusCompleted, reason,
		append(before, run.PhaseChanged{From: h.rec.currentPhase(), To: run.PhaseSynthesizing}, run.Result{Value: result})...)
	if err != nil {
		if isIllegal(err) { // cancelled meanwhile
			if o, stop := h.stopped(ctx); stop {
				return o
			}
		}
		return h.storeFault(ctx, err)
	}
	return Outcome{Status: run.StatusCompleted, Result: result, Reason: reason}
}

// fail ends the run as failed.
func (h *Handle) fail(ctx context.Context, reason string) Outcome {
	return h.failWith(ctx, run.Error{Message: reason}, reason)
}

// failWith ends the run as failed, recording e before the status change.
func (h *Handle) failWith(ctx context.Context, e run.Error, reason string) Outcome {
	if err := h.rec.transition(ctx, run.StatusFailed, reason, e); err != nil && isIllegal(err) {
		if o, stop := h.stopped(ctx); stop {
			return o
		}
	}
	return Outcome{Status: run.StatusFailed, Reason: reason}
}

// failAs ends the run as failed, with the kind of failure.
func (h *Handle) failAs(ctx context.Context, kind run.FailureKind, reason string) Outcome {
	if err := h.rec.transition(ctx, run.StatusFailed, reason, run.Error{Message: reason, Failure: kind}); err != nil && isIllegal(err) {
		if o, stop := h.stopped(ctx); stop {
			return o
		}
	}
	return Outcome{Status: run.StatusFailed, Reason: reason}
}

// storeFault ends the run on a store error: failed if the store still takes
// the status change.
func (h *Handle) storeFault(ctx context.Context, err error) Outcome {
	if o, stop := h.stopped(ctx); stop {
		return o
	}
	reason := "store: " + err.Error()
	_ = h.rec.transition(ctx, run.StatusFailed, reason)
	return Outcome{Status: run.StatusFailed, Reason: reason}
}

// end publishes the outcome of the current turn.
func (h *Handle) end(o Outcome) {
	h.mu.Lock()
	defer h.mu.Unlock()
	o.RunID, o.Steps, o.Usage = h.id, h.steps, h.usage
	o.Cost = h.rt.cost(h.opts.ModelName, h.usage)
	if o.Result == nil && o.Status == run.StatusCompleted {
		o.Result = json.RawMessage("null")
	}
	h.outcome = o
	close(h.done)
	if h.drive != nil {
		h.drive.post(Pause{Kind: PauseEnded, Outcome: &o})
	}
}
