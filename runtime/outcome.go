package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/schema"
)

// Outcome is how a run (or its latest turn, after a follow-up) ended.
type Outcome struct {
	// RunID is the run's ID.
	RunID run.ID
	// Status is completed, failed or canceled.
	Status run.Status
	// Result is the result's JSON: the literal null when the run completed
	// without one (it could not do its task, or hit a limit).
	Result json.RawMessage
	// Reason says why the run failed, was canceled, or has a null result.
	Reason string
	// ResultVariable names the variable the model gave as the result by
	// reference, or "".
	ResultVariable string
	// Redacted reports that the result is a secret or derived from one:
	// Result is null for everybody but the host, which reads the value in
	// Go from ResultVariable (variable.As, runtime.Value).
	Redacted bool
	// Steps is the number of model calls made.
	Steps int
	// Usage totals the tokens the model reported, with the parts of the
	// input its provider's prompt cache read and wrote.
	Usage llm.Usage
	// Cost is what Usage cost, in dollars, at the model's price in
	// Options.Prices; 0 when the model has none.
	Cost float64
}

// OK reports whether the run completed with a non-null result.
func (o Outcome) OK() bool {
	return o.Status == run.StatusCompleted && len(o.Result) > 0 && string(o.Result) != "null"
}

// ResultAs decodes an outcome's result into a T.
func ResultAs[T any](o Outcome) (T, error) {
	var v T
	if !o.OK() {
		return v, fmt.Errorf("runtime: run %s has no result (%s: %s)", o.RunID, o.Status, o.Reason)
	}
	if err := json.Unmarshal(o.Result, &v); err != nil {
		return v, fmt.Errorf("runtime: the result of run %s is not a %T: %w", o.RunID, v, err)
	}
	return v, nil
}

// ResultSchemaFor returns the JSON Schema of T, for RunOptions.ResultSchema
// (pair it with ResultAs). It panics if T cannot be JSON, a programmer's
// error.
func ResultSchemaFor[T any]() json.RawMessage {
	s, err := schema.For(reflect.TypeFor[T]())
	if err != nil {
		panic(fmt.Sprintf("runtime.ResultSchemaFor: %v", err))
	}
	return s
}

// stopped reports whether the run was cancelled, and records canceled.
func (h *Handle) stopped(ctx context.Context) (Outcome, bool) {
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
	if s := h.rec.current(); s == run.StatusAwaiting {
		return Outcome{Status: s, Reason: ErrClosed.Error()}
	}
	reason := "interrupted: the agent was closed"
	_ = h.rec.transition(ctx, run.StatusFailed, reason, run.Error{Message: reason, Failure: run.FailureInterrupted})
	return Outcome{Status: run.StatusFailed, Reason: reason}
}

// complete ends the turn as completed with result (nil for null).
func (h *Handle) complete(ctx context.Context, result json.RawMessage, reason string) Outcome {
	if result == nil {
		result = json.RawMessage("null")
	}
	err := h.rec.transition(ctx, run.StatusCompleted, reason,
		run.PhaseChanged{From: h.rec.currentPhase(), To: run.PhaseSynthesizing}, run.Result{Value: result})
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
