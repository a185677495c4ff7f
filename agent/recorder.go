package agent

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/byref/byref/run"
)

// recorder appends a run's events to its store. It is the run's only
// writer: it keeps the last sequence number, the status and the phase, and
// serialises appends from the loop and from Cancel and Resume. The status
// hook is called after the lock is released, so a hook may call back into
// the run.
type recorder struct {
	mu     sync.Mutex
	store  run.Store
	id     run.ID
	last   int64
	status run.Status
	phase  run.Phase
	hook   func(run.StatusChanged)
	// tap, when set, gets every batch appended, as stored.
	tap func([]run.Event)
	// fold, when set, gets every batch appended, as stored, before tap:
	// the run's conversation applies it (conversation.fold).
	fold func([]run.Event)
	// stop, made on first use, is closed once the status stops the run
	// for good (stops); stopClosed says it is.
	stop       chan struct{}
	stopClosed bool
}

// stops reports whether status s stops the run for good: nothing it
// awaited will be resumed. A completed run is not stopped (a follow-up
// may go on with it).
func stops(s run.Status) bool {
	return s == run.StatusCancelling || s == run.StatusCanceled || s == run.StatusFailed
}

// stopped returns a channel closed once the run stops for good (stops):
// what the run's calls give as action.Ending's Done.
func (r *recorder) stopped() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stop == nil {
		r.stop = make(chan struct{})
		r.closeStopLocked()
	}
	return r.stop
}

// closeStopLocked closes stop if it is made, open, and the run has
// stopped; callers hold mu.
func (r *recorder) closeStopLocked() {
	if r.stop != nil && !r.stopClosed && stops(r.status) {
		close(r.stop)
		r.stopClosed = true
	}
}

// append writes payloads as one atomic batch. Appends survive the
// cancellation of ctx: a cancelled run must still record that it stopped.
func (r *recorder) append(ctx context.Context, payloads ...run.Payload) error {
	r.mu.Lock()
	changes, err := r.appendLocked(ctx, payloads...)
	r.unlockAndNotify(changes)
	return err
}

// appendLocked appends and returns the status changes it recorded, for
// the hook; callers hold mu.
func (r *recorder) appendLocked(ctx context.Context, payloads ...run.Payload) ([]run.StatusChanged, error) {
	if len(payloads) == 0 {
		return nil, nil
	}
	events := make([]run.Event, len(payloads))
	now := time.Now().UTC().Round(0)
	for i, p := range payloads {
		events[i] = run.Event{RunID: r.id, Time: now, Payload: p}
	}
	last, err := r.store.Append(context.WithoutCancel(ctx), r.id, r.last, events...)
	if err != nil {
		return nil, err
	}
	r.last = last
	if r.fold != nil || r.tap != nil {
		for i := range events {
			events[i].Seq = last - int64(len(events)-1-i)
		}
	}
	if r.fold != nil {
		r.fold(events)
	}
	if r.tap != nil {
		r.tap(events)
	}
	var changes []run.StatusChanged
	for _, p := range payloads {
		switch p := p.(type) {
		case run.StatusChanged:
			r.status = p.To
			changes = append(changes, p)
		case run.PhaseChanged:
			r.phase = p.To
		}
	}
	r.closeStopLocked()
	return changes, nil
}

// unlockAndNotify releases mu, then tells the hook of the changes, so that
// a hook may call back into the run (even change its status).
func (r *recorder) unlockAndNotify(changes []run.StatusChanged) {
	r.mu.Unlock()
	if r.hook == nil {
		return
	}
	for _, c := range changes {
		r.hook(c)
	}
}

// transition moves the run to status to, with payloads appended in the same
// batch before the status change. It refuses an illegal move with a
// *run.TransitionError, appending nothing.
func (r *recorder) transition(ctx context.Context, to run.Status, reason string, before ...run.Payload) error {
	r.mu.Lock()
	if err := run.Transition(r.status, to); err != nil {
		r.mu.Unlock()
		return err
	}
	changes, err := r.appendLocked(ctx, append(before, run.StatusChanged{From: r.status, To: to, Reason: reason})...)
	r.unlockAndNotify(changes)
	return err
}

// transitionFrom is transition that also requires the run to be in status
// from: a move decided on an older view of the run (a Resume, a follow-up)
// must not apply to a run that has moved on. after are appended after the
// status change, in the same batch: what begins a turn (its message) is
// never apart from the move that begins it.
func (r *recorder) transitionFrom(ctx context.Context, from, to run.Status, reason string, before []run.Payload, after ...run.Payload) error {
	r.mu.Lock()
	if r.status != from {
		status := r.status
		r.mu.Unlock()
		return &run.TransitionError{From: status, To: to}
	}
	if err := run.Transition(r.status, to); err != nil {
		r.mu.Unlock()
		return err
	}
	changes, err := r.appendLocked(ctx, append(append(before, run.StatusChanged{From: r.status, To: to, Reason: reason}), after...)...)
	r.unlockAndNotify(changes)
	return err
}

// setPhase records a phase change, if it is one.
func (r *recorder) setPhase(ctx context.Context, p run.Phase) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.phase == p || r.status != run.StatusRunning {
		return nil
	}
	_, err := r.appendLocked(ctx, run.PhaseChanged{From: r.phase, To: p})
	return err
}

// current returns the run's status.
func (r *recorder) current() run.Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

// currentPhase returns the run's phase.
func (r *recorder) currentPhase() run.Phase {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.phase
}

var errIllegal = run.ErrIllegalTransition

func isIllegal(err error) bool { return errors.Is(err, errIllegal) }

// appendPhased appends events, skipping phase changes that are not changes.
func (r *recorder) appendPhased(ctx context.Context, payloads ...run.Payload) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := payloads[:0:0]
	phase := r.phase
	for _, p := range payloads {
		if pc, ok := p.(run.PhaseChanged); ok {
			if pc.To == phase {
				continue
			}
			pc.From = phase
			phase = pc.To
			p = pc
		}
		kept = append(kept, p)
	}
	_, err := r.appendLocked(ctx, kept...)
	return err
}

// ended reports whether the run has reached a terminal status with every
// event before next read.
func (r *recorder) ended(next int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status.Terminal() && r.last < next
}
