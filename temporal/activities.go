package temporal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
)

// host is the activity byref.Host: it takes the run onto this worker,
// creating it or restoring it from its log, and returns the worker's own
// task queue and the run's first pause with the whole log.
func (w *Worker) host(ctx context.Context, in Input) (hostResult, error) {
	id := run.ID(in.Run.ID)
	ag, ok := w.agents[in.Agent]
	if !ok {
		return hostResult{}, temporal.NewNonRetryableApplicationError(fmt.Sprintf("temporal: this worker has no agent %q", in.Agent), errUnknownAgent, nil)
	}
	if hr := w.hosted(id); hr != nil {
		// Hosted already (the workflow counted this worker as lost, or
		// lost Host's answer): hand back where the run stands, without
		// letting it go on.
		return w.result(ctx, hr, hr.pause())
	}
	rt := w.rts[in.Agent]
	opts := in.Run.options(ag.Run)
	h, err := w.start(ctx, rt, id, opts, ag)
	if err != nil {
		return hostResult{}, err
	}
	hr := &hosted{rt: rt, h: h}
	w.forward(hr)
	p, err := advance(ctx, hr)
	if err != nil {
		return hostResult{}, err
	}
	w.mu.Lock()
	w.runs[id] = hr
	w.mu.Unlock()
	return w.result(ctx, hr, p)
}

// start creates the run on rt, or restores it from its log when the store
// has it, and begins it if it has not begun.
func (w *Worker) start(ctx context.Context, rt *agent.Agent, id run.ID, opts agent.RunOptions, ag *Agent) (*agent.Handle, error) {
	_, err := w.opts.Store.Get(ctx, id)
	switch {
	case err == nil:
		ro := ag.Restore
		ro.Model, ro.OnStatus, ro.History, ro.Driven = opts.Model, opts.OnStatus, opts.History, true
		h, err := rt.Restore(w.ctx, id, ro)
		if errors.Is(err, agent.ErrInterrupted) {
			return nil, temporal.NewNonRetryableApplicationError(interruptedReason(ctx, w.opts.Store, id, err), errInterrupted, err)
		}
		if err == nil && h.Status() == run.StatusCreated {
			err = h.Begin(w.ctx)
		}
		if err != nil {
			return nil, temporal.NewNonRetryableApplicationError(err.Error(), errStart, err)
		}
		return h, nil
	case errors.Is(err, run.ErrRunNotFound):
		h, err := rt.Create(ctx, opts)
		if err == nil {
			err = h.Begin(w.ctx)
		}
		if err != nil {
			typ := errStart
			if errors.Is(err, agent.ErrInvalidInput) {
				typ = errInvalidInput
			}
			return nil, temporal.NewNonRetryableApplicationError(err.Error(), typ, err)
		}
		return h, nil
	default:
		return nil, err
	}
}

// interruptedReason is the reason the run's log gives for its failure.
func interruptedReason(ctx context.Context, store run.Store, id run.ID, err error) string {
	if snap, serr := run.LoadSnapshot(ctx, store, id); serr == nil && snap.FailureReason != "" {
		return snap.FailureReason
	}
	return err.Error()
}

// result is Host's answer: the worker's queue, the pause with the whole
// log, and the options the workflow times the run by, as merged here.
func (w *Worker) result(ctx context.Context, hr *hosted, p agent.Pause) (hostResult, error) {
	events, err := w.opts.Store.Read(ctx, hr.h.ID(), 1, 0)
	if err != nil {
		return hostResult{}, err
	}
	p.Events = events
	opts := hr.h.Options()
	return hostResult{Queue: w.queue, Pause: p, AwaitTimeout: opts.AwaitTimeout, Interactive: !opts.NonInteractive}, nil
}

// hosted returns the run if this worker hosts it.
func (w *Worker) hosted(id run.ID) *hosted {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.runs[id]
}

// handle returns the run's handle, or the error that makes the workflow
// host it again.
func (w *Worker) handle(id run.ID) (*hosted, error) {
	hr := w.hosted(id)
	if hr == nil {
		return nil, notHosted(w.queue, id)
	}
	return hr, nil
}

func notHosted(queue string, id run.ID) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf("temporal: worker %s does not host run %s", queue, id), errNotHosted, nil)
}

// advanceActivity is the activity byref.Model and byref.Step: it lets the
// run make its model call, or run its step, up to the next pause.
func (w *Worker) advanceActivity(ctx context.Context, id run.ID) (agent.Pause, error) {
	hr, err := w.handle(id)
	if err != nil {
		return agent.Pause{}, err
	}
	return advance(ctx, hr)
}

// resume is the activity byref.Resume: it answers the pending await and
// advances to the next pause.
func (w *Worker) resume(ctx context.Context, id run.ID, awaitID string, answer run.Answer) (agent.Pause, error) {
	hr, err := w.handle(id)
	if err != nil {
		return agent.Pause{}, err
	}
	h := hr.h
	if err := h.Resume(ctx, awaitID, answer); err != nil {
		if errors.Is(err, agent.ErrAwaitMismatch) || errors.Is(err, agent.ErrNoAwait) {
			return agent.Pause{}, temporal.NewNonRetryableApplicationError(err.Error(), errMismatch, err)
		}
		// The answer could not be recorded: the run has been told and
		// ends; advance to that end.
	}
	return advance(ctx, hr)
}

// expire is the activity byref.Expire: the await timed out.
func (w *Worker) expire(ctx context.Context, id run.ID, awaitID string) (agent.Pause, error) {
	hr, err := w.handle(id)
	if err != nil {
		return agent.Pause{}, err
	}
	h := hr.h
	if err := h.Expire(ctx, awaitID); err != nil && !errors.Is(err, agent.ErrNoAwait) {
		return agent.Pause{}, err
	}
	return advance(ctx, hr)
}

// cancel is the activity byref.Cancel: it cancels the run, waits for its
// end and returns it with the whole log (a step that was cut short
// reported nothing).
func (w *Worker) cancel(ctx context.Context, id run.ID) (agent.Pause, error) {
	hr, err := w.handle(id)
	if err != nil {
		return agent.Pause{}, err
	}
	h := hr.h
	if err := h.Cancel(ctx); err != nil && !errors.Is(err, agent.ErrTerminal) {
		return agent.Pause{}, err
	}
	p, err := advance(ctx, hr)
	if err != nil {
		return agent.Pause{}, err
	}
	if p.Events, err = w.opts.Store.Read(ctx, id, 1, 0); err != nil {
		return agent.Pause{}, err
	}
	return p, nil
}

// followUp is the activity byref.FollowUp.
func (w *Worker) followUp(ctx context.Context, id run.ID, text string) (agent.Pause, error) {
	hr, err := w.handle(id)
	if err != nil {
		return agent.Pause{}, err
	}
	h := hr.h
	if err := h.FollowUp(w.ctx, text); err != nil {
		if errors.Is(err, agent.ErrNotFollowable) {
			return agent.Pause{}, temporal.NewNonRetryableApplicationError(err.Error(), errNotFollowable, err)
		}
		return agent.Pause{}, err
	}
	w.forward(hr)
	return advance(ctx, hr)
}

// abandon is the activity byref.Abandon, on the shared task queue: the
// workflow ends without a worker that could end the run (its workers were
// lost, or it was cancelled before one took it), so the run's log is ended
// here: canceled, or failed with reason. A run that has ended, or completed,
// is left as it is.
func (w *Worker) abandon(ctx context.Context, id run.ID, canceled bool, reason string) error {
	sum, err := w.opts.Store.Get(ctx, id)
	if errors.Is(err, run.ErrRunNotFound) {
		return nil // never recorded: nothing to end
	}
	if err != nil {
		return err
	}
	if sum.Status.Terminal() {
		return nil
	}
	var events []run.Event
	switch {
	case canceled && sum.Status != run.StatusCancelling:
		events = append(events, run.Event{Payload: run.StatusChanged{From: sum.Status, To: run.StatusCancelling, Reason: reason}},
			run.Event{Payload: run.StatusChanged{From: run.StatusCancelling, To: run.StatusCanceled, Reason: reason}})
	case canceled || sum.Status == run.StatusCancelling:
		events = append(events, run.Event{Payload: run.StatusChanged{From: sum.Status, To: run.StatusCanceled, Reason: reason}})
	default:
		events = append(events, run.Event{Payload: run.Error{Message: reason}}, run.Event{Payload: run.StatusChanged{From: sum.Status, To: run.StatusFailed, Reason: reason}})
	}
	_, err = w.opts.Store.Append(ctx, id, sum.LastSeq, events...)
	return err
}

// release is the activity byref.Release: the workflow ended, so the worker
// drops the run.
func (w *Worker) release(_ context.Context, id run.ID) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.runs, id)
	return nil
}

// advance advances the run, heartbeating while it waits when the activity
// has a heartbeat timeout, and keeps the pause it reaches. A worker that
// stops while the run advances answers that it no longer hosts it, so that
// the workflow hosts the run elsewhere.
func advance(ctx context.Context, hr *hosted) (agent.Pause, error) {
	p, err := heartbeating(ctx, hr.h)
	if err != nil {
		select {
		case <-activity.GetWorkerStopChannel(ctx):
			return agent.Pause{}, notHosted(activity.GetInfo(ctx).TaskQueue, hr.h.ID())
		default:
		}
		return agent.Pause{}, err
	}
	hr.mu.Lock()
	hr.last = p
	hr.last.Events = nil
	hr.mu.Unlock()
	return p, nil
}

// heartbeating is h.Advance, heartbeating while it waits.
func heartbeating(ctx context.Context, h *agent.Handle) (agent.Pause, error) {
	every := activity.GetInfo(ctx).HeartbeatTimeout / 3
	if every <= 0 {
		return h.Advance(ctx)
	}
	type result struct {
		p   agent.Pause
		err error
	}
	done := make(chan result, 1)
	go func() {
		p, err := h.Advance(ctx)
		done <- result{p, err}
	}()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case r := <-done:
			return r.p, r.err
		case <-t.C:
			activity.RecordHeartbeat(ctx)
		}
	}
}
