package temporal

import (
	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
)

// forward publishes the live deltas of a run this worker hosts through
// the store, when the store carries deltas between processes
// (run.LiveStore, as run/postgres does), so that a server following the
// run in another process streams the model's text as it is written, as
// for a run in its own process. It follows the run's turn from the log's
// last event to the turn's end (or the worker's stop), and returns once
// it follows, so that no delta of the step about to run is missed; a
// follow-up starts it again. Following costs a read of the log per
// appended batch. It publishes beside the run, not in its step: a delta
// published after the event that completes its message reaches followers
// too late and is dropped there (the event holds the message).
func (w *Worker) forward(hr *hosted) {
	ls, ok := w.opts.Store.(run.LiveStore)
	if !ok || !hr.forwarding.CompareAndSwap(false, true) {
		return
	}
	sum, err := w.opts.Store.Get(w.ctx, hr.h.ID())
	if err != nil {
		hr.forwarding.Store(false)
		return
	}
	following := make(chan struct{})
	go func(h *agent.Handle) {
		defer hr.forwarding.Store(false)
		first := true
		defer func() {
			if first {
				close(following)
			}
		}()
		// From the last event, which comes first: the subscription to the
		// deltas is made by then.
		for e, err := range h.Events(w.ctx, sum.LastSeq) {
			if first {
				first = false
				close(following)
			}
			if err != nil {
				return
			}
			if d, ok := e.Payload.(run.Delta); ok {
				ls.PublishDelta(h.ID(), d)
			}
		}
	}(hr.h)
	<-following
}
