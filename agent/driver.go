package agent

import (
	"context"
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

// driver is the rendezvous between a driven run's loop and Advance. The
// loop posts a pause at each checkpoint (before a model call, before a
// step) and waits until Advance releases it; awaits and the end of a turn
// are posted without waiting. Checkpoints are numbered, so that a release
// meant for one can never let a later one through.
type driver struct {
	mu       sync.Mutex
	wake     wakeup      // woken at every change
	queued   *Pause      // posted and not yet taken; an ended pause stays
	queuedAt int         // the number of the queued checkpoint, or 0
	posted   int         // checkpoints posted so far
	taken    int         // the number of the last checkpoint taken
	released int         // checkpoints up to this number may go on
	events   []run.Event // recorded since the last pause was taken
}

func newDriver() *driver { return &driver{wake: wakeup{make(chan struct{})}} }

// wakeup is a channel closed and replaced at every change, which its
// holder's waiters select on; the driver's lock guards it.
type wakeup struct{ ch chan struct{} }

// changed wakes every waiter.
func (w *wakeup) changed() {
	close(w.ch)
	w.ch = make(chan struct{})
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
	d.wake.changed()
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
	d.wake.changed()
	for d.released < n {
		wake := d.wake.ch
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
		d.wake.changed()
	}
	for d.queued == nil {
		wake := d.wake.ch
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
