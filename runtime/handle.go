package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/schema"
)

// Handle is a started run: its ID, its outcome when it ends, its events, and
// the ways to cancel it or follow it up. It is safe for concurrent use.
type Handle struct {
	rt    *Runtime
	st    *State
	id    run.ID
	rec   *recorder
	model llm.Model
	opts  RunOptions

	mu       sync.Mutex
	done     chan struct{} // closed when the current turn ends
	outcome  Outcome
	cancel   context.CancelCauseFunc
	messages []llm.Message
	steps    int
	usage    llm.Usage
	result   *schema.Validator
	pending  *pendingAwait
	awaits   int
	begun    bool
	// turnSteps and turnTokens are the steps and tokens spent before the
	// current turn: limits apply per turn.
	turnSteps, turnTokens int
	fatal                 string // set when an await timed out and the run failed
	planOK                bool   // the plan was approved (ApproveOnStart)
	// drive is the rendezvous with Advance of a driven run; nil otherwise.
	drive *driver
	// ctx is the run's context layout: what request() keeps fixed between
	// compactions (context.go).
	ctx runContext
	// liveHub delivers deltas to followers; nil until the first (live.go).
	liveHub atomic.Pointer[hub]
	// snippets numbers the code blocks whose output is streamed.
	snippets atomic.Int64
}

// drivenBy makes the run driven when driven is set: it stops at every
// pause until Advance.
func (h *Handle) drivenBy(driven bool) {
	if !driven {
		return
	}
	h.drive = newDriver()
	h.rec.tap = h.drive.record
}

// ID returns the run's ID.
func (h *Handle) ID() run.ID { return h.id }

// State returns the run's own state: its variables, matrix, interpreter
// and history.
func (h *Handle) State() *State { return h.st }

// Wait blocks until the run's current turn ends or ctx is done.
func (h *Handle) Wait(ctx context.Context) (Outcome, error) {
	h.mu.Lock()
	done := h.done
	h.mu.Unlock()
	select {
	case <-done:
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.outcome, nil
	case <-ctx.Done():
		return Outcome{}, ctx.Err()
	}
}

// Snapshot folds the run's events into its current state.
func (h *Handle) Snapshot(ctx context.Context) (run.Snapshot, error) {
	return run.LoadSnapshot(ctx, h.rec.store, h.id)
}

// Status returns the run's current status.
func (h *Handle) Status() run.Status { return h.rec.current() }

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
	sent, hostVars := h.announceHostVariables(clip(text, h.st.opts.MaxMessage))
	h.messages = append(h.messages, llm.UserMessage(sent))
	h.turnSteps, h.turnTokens = h.steps, h.usage.Total()
	h.mu.Unlock()
	if h.drive != nil {
		h.drive.reset()
	}
	if err := h.rec.transitionFrom(ctx, run.StatusCompleted, run.StatusRunning, "follow-up"); err != nil {
		h.end(Outcome{Status: h.rec.current(), Reason: err.Error()})
		return err
	}
	msg := run.UserMessage{Text: text}
	if sent != text {
		msg.Sent = sent
	}
	if err := h.rec.append(ctx, append([]run.Payload{run.PhaseChanged{From: h.rec.currentPhase(), To: run.PhasePrompted}, msg}, hostVars...)...); err != nil {
		h.fail(ctx, "store: "+err.Error())
		return err
	}
	h.launch(ctx)
	return nil
}

// end publishes the outcome of the current turn.
func (h *Handle) end(o Outcome) {
	h.mu.Lock()
	defer h.mu.Unlock()
	o.RunID, o.Steps, o.Usage = h.id, h.steps, h.usage
	o.Cost = h.cost(h.usage)
	if o.Result == nil && o.Status == run.StatusCompleted {
		o.Result = json.RawMessage("null")
	}
	h.outcome = o
	close(h.done)
	if h.drive != nil {
		h.drive.post(Pause{Kind: PauseEnded, Outcome: &o})
	}
}

// launch runs the loop of the current turn in its own goroutine.
func (h *Handle) launch(ctx context.Context) {
	h.launchWith(ctx, h.loop)
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
		log.Info("run ended", "status", string(o.Status), "reason", o.Reason, "steps", h.stepCount())
		h.end(o)
		h.rt.untrack(h)
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

func (h *Handle) stepCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.steps
}

// Options returns the options the run was started (or restored) with.
func (h *Handle) Options() RunOptions { return h.opts }
