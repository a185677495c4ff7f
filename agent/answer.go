package agent

import (
	"context"
	"fmt"

	"github.com/byref/byref/run"
)

// A run that awaits (an approval, a question, input, an authorization) is
// answered in one of two ways. In the process, by Options.Answer, called
// as the await is recorded. Or by a caller: Run returns as soon as the run
// awaits what Answer does not answer, with the await in its Outcome, and
// Agent.Resume (or Handle.Resume) answers it. So Run never waits for an
// answer nobody was asked for (docs/decisions/2026-11-28-run-awaits.md).

// statusHook is the recorder's hook of a run: the host's OnStatus, then,
// on a move to awaiting, the answer of Options.Answer or the word to Run
// that the run awaits a caller.
func (h *Handle) statusHook(onStatus func(run.StatusChanged)) func(run.StatusChanged) {
	return func(s run.StatusChanged) {
		if onStatus != nil {
			onStatus(s)
		}
		if s.To != run.StatusAwaiting {
			return
		}
		req, ok := h.Pending()
		if !ok {
			return
		}
		if h.rt.opts.Answer == nil {
			h.leftToCaller()
			return
		}
		h.mu.Lock()
		done := h.done
		h.mu.Unlock()
		go h.answer(req, done)
	}
}

// answer has Options.Answer answer req, an await of the turn that closes
// done, and resumes the run with it; what it does not answer it leaves to
// the caller.
func (h *Handle) answer(req run.AwaitRequested, done <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-done:
			cancel()
		case <-ctx.Done():
		}
	}()
	a, ok := h.rt.opts.Answer(ctx, req)
	if !ok {
		h.leftToCaller()
		return
	}
	if err := h.Resume(ctx, req.ID, a); err != nil {
		h.rt.log().Warn("agent: Options.Answer's answer was refused; the await is left to Resume", "run", h.id, "await", req.ID, "err", err)
		h.leftToCaller()
	}
}

// leftToCaller tells a Run waiting on the run that it awaits an answer
// from its caller.
func (h *Handle) leftToCaller() {
	select {
	case h.awaited <- struct{}{}:
	default: // Run has yet to read the last word; Pending says the rest
	}
}

// settle waits until the run's turn ends or the run awaits its caller, and
// returns the outcome: an awaiting one names the await. When ctx is done
// first, the outcome has the run's ID and status, and the error says so.
func (h *Handle) settle(ctx context.Context) (Outcome, error) {
	h.mu.Lock()
	done := h.done
	h.mu.Unlock()
	for {
		select {
		case <-done:
			h.mu.Lock()
			defer h.mu.Unlock()
			return h.outcome, nil
		case <-h.awaited:
			req, ok := h.Pending()
			if !ok {
				continue // answered meanwhile
			}
			h.mu.Lock()
			o := Outcome{RunID: h.id, Status: run.StatusAwaiting, Await: &req, Steps: h.steps, Usage: h.usage}
			h.mu.Unlock()
			o.Cost = h.rt.cost(h.opts.ModelName, o.Usage)
			return o, nil
		case <-ctx.Done():
			status := h.Status()
			return Outcome{RunID: h.id, Status: status}, fmt.Errorf("agent: run %s is still %s: %w", h.id, status, context.Cause(ctx))
		}
	}
}

// Resume answers what the live run id awaits (awaitID as in
// Outcome.Await.ID; "" for whichever is pending), then waits as Run does:
// until the run ends or awaits again. It is the way on from an Outcome
// whose Status is awaiting; see Handle.Resume for the answer's kinds. A
// run brought back by Restore is not watched for its awaits: for it,
// Resume waits until the run ends, and its Handle's Events show what it
// awaits next.
func (rt *Agent) Resume(ctx context.Context, id run.ID, awaitID string, answer run.Answer) (Outcome, error) {
	h, ok := rt.live(id)
	if !ok {
		return Outcome{}, fmt.Errorf("%w: run %s is not going on in this agent (Restore a run of an earlier process)", ErrNoAwait, id)
	}
	if err := h.Resume(ctx, awaitID, answer); err != nil {
		return Outcome{RunID: id, Status: h.Status()}, err
	}
	return h.settle(ctx)
}
