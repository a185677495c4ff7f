package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/byref/byref/run"
)

// PauseKind says where a driven run stopped (see RunOptions.Driven).
type PauseKind string

// The places a driven run stops at.
const (
	// PauseModel: the run is about to call the model; Advance makes the
	// call and records its answer.
	PauseModel PauseKind = "model"
	// PauseStep: the model answered with a step; Advance executes it.
	PauseStep PauseKind = "step"
	// PauseAwait: the run awaits Pause.Await; Resume answers it (or Expire
	// or Cancel ends it), then Advance goes on.
	PauseAwait PauseKind = "await"
	// PauseEnded: the turn ended with Pause.Outcome. Advance returns it
	// again until FollowUp starts another turn.
	PauseEnded PauseKind = "ended"
)

// Pause is where a driven run stopped, with the events it recorded since
// the previous pause.
type Pause struct {
	// Kind is where the run stopped.
	Kind PauseKind `json:"kind"`
	// Await is what the run awaits, for PauseAwait.
	Await *run.AwaitRequested `json:"await,omitempty"`
	// Outcome is how the turn ended, for PauseEnded.
	Outcome *Outcome `json:"outcome,omitempty"`
	// Events are the events the run recorded since the previous pause, in
	// order, as stored.
	Events []run.Event `json:"events,omitempty"`
}

// ErrNotDriven is returned by Advance for a run whose RunOptions.Driven is
// false.
var ErrNotDriven = errors.New("runtime: the run is not driven; set RunOptions.Driven to step it with Advance")

// driver is the rendezvous between a driven run's loop and Advance. The
// loop posts a pause at each checkpoint (before a model call, before a
// step) and waits until Advance releases it; awaits and the end of a turn
// are posted without waiting. Checkpoints are numbered, so that a release
// meant for one can never let a later one through.
type driver struct {
	mu       sync.Mutex
	wake     chan struct{} // closed and replaced at every change
	queued   *Pause        // posted and not yet taken; an ended pause stays
	queuedAt int           // the number of the queued checkpoint, or 0
	posted   int           // checkpoints posted so far
	taken    int           // the number of the last checkpoint taken
	released int           // checkpoints up to this number may go on
	events   []run.Event   // recorded since the last pause was taken
}

func newDriver() *driver { return &driver{wake: make(chan struct{})} }

// changed wakes every waiter; callers hold mu.
func (d *driver) changed() {
	close(d.wake)
	d.wake = make(chan struct{})
}

// record keeps events for the next pause taken.
func (d *driver) record(events []run.Event) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.events = append(d.events, events...)
}

// post queues a pause that does not wait (an await, the end of a turn).
func (d *driver) post(p Pause) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.queued, d.queuedAt = &p, 0
	d.changed()
}

// reset drops a queued end of turn, when a follow-up starts another.
func (d *driver) reset() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.queued != nil && d.queued.Kind == PauseEnded {
		d.queued = nil
	}
}

// checkpoint posts a pause of kind and waits until Advance releases it or
// ctx is done.
func (d *driver) checkpoint(ctx context.Context, kind PauseKind) error {
	d.mu.Lock()
	d.posted++
	n := d.posted
	d.queued, d.queuedAt = &Pause{Kind: kind}, n
	d.changed()
	for d.released < n {
		wake := d.wake
		d.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
		d.mu.Lock()
	}
	d.mu.Unlock()
	return nil
}

// advance releases the checkpoint last taken and returns the next pause.
func (d *driver) advance(ctx context.Context) (Pause, error) {
	d.mu.Lock()
	if d.taken > d.released {
		d.released = d.taken
		d.changed()
	}
	for d.queued == nil {
		wake := d.wake
		d.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return Pause{}, ctx.Err()
		}
		d.mu.Lock()
	}
	defer d.mu.Unlock()
	p := *d.queued
	if p.Kind != PauseEnded {
		d.queued = nil
	}
	if d.queuedAt > 0 {
		d.taken = d.queuedAt
	}
	p.Events, d.events = d.events, nil
	return p, nil
}

// checkpoint stops a driven run before a model call or a step until
// Advance lets it go on; it returns at once for a run that is not driven.
func (h *Handle) checkpoint(ctx context.Context, kind PauseKind) error {
	if h.drive == nil {
		return nil
	}
	return h.drive.checkpoint(ctx, kind)
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
	h.mu.Lock()
	p := h.pending
	if p == nil || (awaitID != "" && awaitID != p.req.ID) {
		h.mu.Unlock()
		return fmt.Errorf("%w: run %s has no pending await %q", ErrNoAwait, h.id, awaitID)
	}
	h.pending = nil
	h.mu.Unlock()
	<-p.ready
	reason := fmt.Sprintf("the %s %s was not answered in time", p.req.Await, p.req.ID)
	if h.opts.AwaitTimeout > 0 {
		reason = fmt.Sprintf("the %s %s was not answered within %v", p.req.Await, p.req.ID, h.opts.AwaitTimeout)
	}
	h.setFatal(reason)
	err := h.rec.transition(ctx, run.StatusFailed, reason, run.Error{Message: reason})
	p.answer <- resumed{err: errors.New(reason)}
	return err
}
