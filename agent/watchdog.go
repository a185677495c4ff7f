package agent

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// How a call is bounded.
//
// A run's steps run on a goroutine of their own, the step goroutine, which
// is kept from one step to the next (never one per call): every action runs
// on it, as a plain function call. The run's loop, which asked for the
// step, waits for it and is the watchdog of that step: one per run, not per
// call. When the call on
// the step goroutine passes its deadline (Options.CallTimeout, or the
// step's earlier deadline), or the step is cancelled and the call has not
// returned CancelGrace later, the watchdog abandons the step goroutine: it
// records why as the call's failed response, and the rest of the step goes
// on on a fresh step goroutine. The abandoned goroutine ends as soon as the
// action returns, and its late result is discarded: it changes nothing.
//
// A bare State (Agent.NewState) has no run, and its Execute runs the step
// on the caller's goroutine, with no handoff: on a loaded machine a handoff
// between goroutines costs more than the rest of a call. Only the action can
// give that goroutine back, so Execute returns when the action does; a
// result that comes after the call's deadline is discarded all the same,
// and the call fails with ErrCallTimeout.

// idleAfter is how long a step goroutine waits for the next step before it
// ends; the next step starts a new one.
const idleAfter = 100 * time.Millisecond

// stepper runs a State's steps on its step goroutine and watches their
// calls. Steps are serialised by the executor's lock, so one job at a time.
type stepper struct {
	mu      sync.Mutex // guards running and cur
	running bool       // a step goroutine is serving jobs
	// cur is the call running on the step goroutine, armed with its
	// deadline; nil between calls.
	cur *inflight

	jobs  chan *stepJob // the next job; buffered, sent under mu
	done  chan struct{} // a job finished; buffered
	timer *time.Timer   // the current call's deadline, for the watchdog
	idle  *time.Timer   // the step goroutine's idle time
	job   stepJob       // the one job (steps are serialised)
}

// stepJob is one step as its goroutines share it: the one that runs it and,
// after an abandoned call, the fresh one that goes on with it.
type stepJob struct {
	ex   *executor
	ctx  context.Context
	step Step
	g    gate
	n    int
	res  StepResult
	// next is the index of the next call to run.
	next int
	// watched is set for a run's step, which runs on the step goroutine
	// under the watchdog; a bare State's runs on its caller's goroutine.
	watched bool
}

// inflight is what the watchdog needs of the call on the step goroutine to
// abandon it: its deadline, and what its failed response is made of.
type inflight struct {
	deadline time.Time
	index    int // the call's index in its step
	resp     ToolResponse
	out      *callOutput // nil for an action that takes no context
	secret   bool
	step     int
	timeout  time.Duration
	ctx      context.Context // the step's
	callCtx  context.Context
	endCall  func(SpanEnd)
	gone     bool // abandoned: its late result is discarded
}

// run runs j on the step goroutine and watches it until it is done.
// Callers hold the executor's lock; this goroutine is the step's watchdog.
func (w *stepper) run(j *stepJob) {
	if w.jobs == nil { // the first watched step: a bare State has none
		w.jobs, w.done = make(chan *stepJob, 1), make(chan struct{}, 1)
		w.timer, w.idle = time.NewTimer(time.Hour), time.NewTimer(time.Hour)
		w.timer.Stop()
		w.idle.Stop()
	}
	w.mu.Lock()
	w.jobs <- j
	if !w.running {
		w.running = true
		go w.serve(nil)
	}
	w.mu.Unlock()

	done := j.ctx.Done()
	var grace <-chan time.Time
	for {
		select {
		case <-w.done:
			return
		case <-w.timer.C:
			w.expire(j, false)
		case <-done:
			done = nil
			g := j.ex.st.opts.CancelGrace
			switch {
			case j.ctx.Err() == context.DeadlineExceeded:
				// The step's own deadline: a call past it is abandoned
				// at once.
				w.expire(j, false)
			case g > 0:
				t := time.NewTimer(g)
				defer t.Stop()
				grace = t.C
			}
		case <-grace:
			grace = nil
			w.expire(j, true)
		}
	}
}

// serve is a step goroutine: it runs j (when not nil) and the jobs after
// it, until it is idle for idleAfter or abandoned.
func (w *stepper) serve(j *stepJob) {
	for {
		if j != nil {
			if !j.ex.runJob(j) {
				return // abandoned: a fresh goroutine goes on with j
			}
			w.done <- struct{}{}
		}
		if j = w.wait(); j == nil {
			return
		}
	}
}

// wait returns the next job, or nil when none came for idleAfter (the
// goroutine then ends).
func (w *stepper) wait() *stepJob {
	w.idle.Reset(idleAfter)
	select {
	case j := <-w.jobs:
		w.idle.Stop()
		return j
	case <-w.idle.C:
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case j := <-w.jobs: // it came as the timer fired
		return j
	default:
	}
	w.running = false
	return nil
}

// arm marks f as the call running on the step goroutine until disarm, and
// sets the watchdog's timer to its deadline.
func (w *stepper) arm(f *inflight, d time.Duration) {
	f.deadline = time.Now().Add(d)
	w.mu.Lock()
	w.cur = f
	w.mu.Unlock()
	w.timer.Reset(d)
}

// disarm ends f's watch once its action returned; it reports false when the
// watchdog abandoned f, whose result must then be discarded and whose
// goroutine must end.
func (w *stepper) disarm(f *inflight) bool {
	w.mu.Lock()
	if f.gone {
		// The timer is a fresh step goroutine's now.
		w.mu.Unlock()
		return false
	}
	w.cur = nil
	w.mu.Unlock()
	w.timer.Stop()
	return true
}

// expire abandons the call on the step goroutine when it is past its
// deadline, or at once when cancelled (its step was cancelled CancelGrace
// ago): the call fails with why, and a fresh step goroutine goes on with
// the rest of j.
func (w *stepper) expire(j *stepJob, cancelled bool) {
	w.mu.Lock()
	f := w.cur
	if f == nil || !cancelled && time.Now().Before(f.deadline) {
		w.mu.Unlock()
		return // between calls, or a fire meant for an earlier call
	}
	f.gone, w.cur = true, nil
	w.mu.Unlock()

	resp := j.ex.abandoned(f)
	f.endCall(SpanEnd{Err: resp.Err})
	j.res.Responses = append(j.res.Responses, resp)
	j.next = f.index + 1
	go w.serve(j)
}

// abandoned is the response of call f, which the watchdog abandoned: at
// its deadline, or CancelGrace after its step was cancelled.
func (ex *executor) abandoned(f *inflight) ToolResponse {
	resp := f.resp
	resp.Stdout, resp.Stderr = f.out.texts(f.secret)
	cause := ErrCallTimeout
	if f.ctx.Err() != nil && f.ctx.Err() != context.DeadlineExceeded {
		cause = context.Cause(f.ctx)
	}
	msg := abandonedWhy(resp.Name, f.ctx, f.callCtx, f.timeout)
	ex.st.log().Warn("call abandoned", "action", resp.Name, "call", resp.CallID, "step", f.step, "why", msg)
	return ex.failErr(resp, &ActionError{Action: resp.Name, CallID: resp.CallID, Step: f.step, Msg: msg, Err: cause})
}

func abandonedWhy(name string, step, call context.Context, timeout time.Duration) string {
	if err := step.Err(); err != nil && err != context.DeadlineExceeded {
		return fmt.Sprintf("the step was cancelled while %s ran (%v); its result, if any, is ignored", name, step.Err())
	}
	why := call.Err()
	if why == nil { // bounded by a timer: the action takes no context
		why = context.DeadlineExceeded
	}
	return fmt.Sprintf("%s did not return before its deadline (%v, after %v); it was abandoned and its result, if any, is ignored. Try smaller inputs, or another action", name, why, timeout)
}
