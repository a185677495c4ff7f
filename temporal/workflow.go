package temporal

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
)

// Names of the workflow, its activities, signals and query.
const (
	// WorkflowName is the workflow type of a run.
	WorkflowName = "byref.Run"
	// SignalAnswer answers what a run awaits; its value is an Answer.
	SignalAnswer = "byref.answer"
	// SignalFollowUp sends a follow-up to a completed run; its value is the
	// text.
	SignalFollowUp = "byref.follow_up"
	// QuerySnapshot returns the run's run.Snapshot, folded from the events
	// the workflow's activities reported.
	QuerySnapshot = "byref.snapshot"

	activityHost     = "byref.Host"
	activityModel    = "byref.Model"
	activityStep     = "byref.Step"
	activityResume   = "byref.Resume"
	activityExpire   = "byref.Expire"
	activityCancel   = "byref.Cancel"
	activityFollowUp = "byref.FollowUp"
	activityRelease  = "byref.Release"
	activityAbandon  = "byref.Abandon"
)

// Error types of the activities' application errors.
const (
	errInterrupted   = "interrupted"
	errInvalidInput  = "invalid_input"
	errUnknownAgent  = "unknown_agent"
	errNotHosted     = "not_hosted"
	errMismatch      = "await_mismatch"
	errNotFollowable = "not_followable"
	errStart         = "start"
)

// Input is the workflow's input: which agent runs, with what options, and
// the workflow's timing.
type Input struct {
	// Agent names the worker's Agent that runs the run.
	Agent string `json:"agent"`
	// Run is the run's options.
	Run RunSpec `json:"run"`
	// Timing bounds the workflow's activities and waits.
	Timing Timing `json:"timing"`
}

// Timing bounds a run's activities and waits; the zero value means the
// defaults.
type Timing struct {
	// Heartbeat is how long a worker may go silent in a model call or a
	// step before the workflow counts it as lost and hosts the run
	// elsewhere, and how long a worker may hold one of the workflow's
	// tasks before another takes it (Temporal's workflow task timeout).
	// Zero means DefaultHeartbeat.
	Heartbeat time.Duration `json:"heartbeat,omitempty"`
	// ScheduleToStart is how long an activity may wait for the run's
	// worker to take it before the worker counts as lost. Zero means
	// DefaultScheduleToStart.
	ScheduleToStart time.Duration `json:"schedule_to_start,omitempty"`
	// FollowUpWindow is how long a completed, interactive run waits for a
	// follow-up before its workflow ends. Zero means DefaultFollowUpWindow.
	FollowUpWindow time.Duration `json:"follow_up_window,omitempty"`
	// MaxHosts bounds how often a run is hosted (its first host included)
	// before it fails. Zero means DefaultMaxHosts.
	MaxHosts int `json:"max_hosts,omitempty"`
}

// Defaults of Timing.
const (
	DefaultHeartbeat       = 10 * time.Second
	DefaultScheduleToStart = 30 * time.Second
	DefaultFollowUpWindow  = 24 * time.Hour
	DefaultMaxHosts        = 5
)

func (t Timing) withDefaults() Timing {
	if t.Heartbeat <= 0 {
		t.Heartbeat = DefaultHeartbeat
	}
	if t.ScheduleToStart <= 0 {
		t.ScheduleToStart = DefaultScheduleToStart
	}
	if t.FollowUpWindow <= 0 {
		t.FollowUpWindow = DefaultFollowUpWindow
	}
	if t.MaxHosts <= 0 {
		t.MaxHosts = DefaultMaxHosts
	}
	return t
}

// Answer is the value of SignalAnswer.
type Answer struct {
	// AwaitID names the await; "" means whichever is pending.
	AwaitID string `json:"await_id,omitempty"`
	// Answer is the answer.
	Answer run.Answer `json:"answer"`
}

// hostResult is what byref.Host returns: the worker's own task queue and
// the run's first pause, whose events are the run's whole log.
type hostResult struct {
	Queue string      `json:"queue"`
	Pause agent.Pause `json:"pause"`
	// AwaitTimeout and Interactive are the run's, merged on the worker
	// from the input and the agent's template.
	AwaitTimeout time.Duration `json:"await_timeout,omitempty"`
	Interactive  bool          `json:"interactive,omitempty"`
}

// flow is the state of one run's workflow. Everything in it comes from the
// input, activity results and signals: replaying the workflow rebuilds it
// exactly.
type flow struct {
	in     Input
	timing Timing
	id     run.ID
	queue  string // the task queue of the worker hosting the run
	hosts  int
	// awaitTimeout and interactive are the run's, as its worker merged
	// them.
	awaitTimeout time.Duration
	interactive  bool
	snap         run.Snapshot
	log          log.Logger
}

// RunWorkflow is the workflow of one run: it hosts the run on a worker,
// then asks that worker for one model call or one step at a time, waits for
// answers and follow-ups as signals, keeps await timeouts as timers, and
// hosts the run again elsewhere when its worker is lost. It returns the
// outcome of the run's last turn; a run cancelled through the workflow
// ends it canceled.
func RunWorkflow(ctx workflow.Context, in Input) (agent.Outcome, error) {
	wf := &flow{in: in, timing: in.Timing.withDefaults(), id: run.ID(in.Run.ID), log: workflow.GetLogger(ctx)}
	if wf.id == "" {
		wf.id = run.ID(workflow.GetInfo(ctx).WorkflowExecution.ID)
		wf.in.Run.ID = string(wf.id)
	}
	if err := workflow.SetQueryHandler(ctx, QuerySnapshot, func() (run.Snapshot, error) {
		return wf.snap.Clone(), nil
	}); err != nil {
		return agent.Outcome{}, err
	}
	answers := workflow.GetSignalChannel(ctx, SignalAnswer)
	followUps := workflow.GetSignalChannel(ctx, SignalFollowUp)

	p, err := wf.host(ctx)
	for {
		if err != nil {
			if ctx.Err() != nil {
				return wf.cancel(ctx)
			}
			return wf.failed(ctx, err)
		}
		switch p.Kind {
		case agent.PauseModel:
			p, err = wf.call(ctx, activityModel)
		case agent.PauseStep:
			p, err = wf.call(ctx, activityStep)
		case agent.PauseAwait:
			p, err = wf.await(ctx, answers, *p.Await)
		case agent.PauseEnded:
			o := *p.Outcome
			if o.Status != run.StatusCompleted || !wf.interactive {
				wf.release(ctx)
				return o, nil
			}
			var more bool
			p, more, err = wf.idle(ctx, followUps)
			if err == nil && !more {
				wf.release(ctx)
				return o, nil
			}
		default:
			err = fmt.Errorf("temporal: run %s stopped at an unknown pause %q", wf.id, p.Kind)
		}
	}
}

// options are the activity options of a run's activities on its worker.
func (wf *flow) options(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:              wf.queue,
		ScheduleToStartTimeout: wf.timing.ScheduleToStart,
		StartToCloseTimeout:    365 * 24 * time.Hour, // a step may run long; the heartbeat finds a lost worker
		HeartbeatTimeout:       wf.timing.Heartbeat,
		RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 1}, // a lost worker is retried by hosting again
	})
}

// host has a worker (any) take the run: create it, or restore it from its
// log. The pause it returns carries the whole log.
func (wf *flow) host(ctx workflow.Context) (agent.Pause, error) {
	for {
		wf.hosts++
		if wf.hosts > wf.timing.MaxHosts {
			return agent.Pause{}, fmt.Errorf("temporal: run %s was hosted %d times and lost each time; giving up", wf.id, wf.timing.MaxHosts)
		}
		actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			// The shared task queue, the workflow's own: any worker.
			ScheduleToStartTimeout: 365 * 24 * time.Hour, // wait for a worker to come
			StartToCloseTimeout:    wf.timing.ScheduleToStart + wf.timing.Heartbeat,
			RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 1},
		})
		var r hostResult
		err := workflow.ExecuteActivity(actx, activityHost, wf.in).Get(ctx, &r)
		if err != nil {
			if ctx.Err() == nil && lost(err) {
				wf.log.Warn("hosting the run failed; trying again", "run", wf.id, "err", err)
				continue
			}
			return agent.Pause{}, err
		}
		wf.queue, wf.awaitTimeout, wf.interactive = r.Queue, r.AwaitTimeout, r.Interactive
		wf.snap = run.Fold(r.Pause.Events)
		r.Pause.Events = nil
		wf.log.Info("run hosted", "run", wf.id, "queue", wf.queue, "hosts", wf.hosts)
		return r.Pause, nil
	}
}

// call runs one activity of the run on its worker and returns the next
// pause; when the worker is lost, it hosts the run again and returns the
// restored run's first pause.
func (wf *flow) call(ctx workflow.Context, name string, args ...any) (agent.Pause, error) {
	var p agent.Pause
	err := workflow.ExecuteActivity(wf.options(ctx), name, append([]any{wf.id}, args...)...).Get(ctx, &p)
	if err != nil {
		if ctx.Err() == nil && lost(err) {
			wf.log.Warn("the run's worker is lost; hosting it again", "run", wf.id, "activity", name, "err", err)
			return wf.host(ctx)
		}
		return agent.Pause{}, err
	}
	for _, e := range p.Events {
		wf.snap.Apply(e)
	}
	p.Events = nil
	return p, nil
}

// await waits for the answer to req, its timeout or the cancellation of the
// run.
func (wf *flow) await(ctx workflow.Context, answers workflow.ReceiveChannel, req run.AwaitRequested) (agent.Pause, error) {
	tctx, stopTimer := workflow.WithCancel(ctx)
	defer stopTimer()
	var timer workflow.Future
	if d := wf.awaitTimeout; d > 0 {
		timer = workflow.NewTimer(tctx, d)
	}
	for {
		var a Answer
		got, expired := false, false
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(answers, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, &a); got = true })
		if timer != nil {
			sel.AddFuture(timer, func(f workflow.Future) { expired = f.Get(ctx, nil) == nil })
		}
		sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
		sel.Select(ctx)
		switch {
		case ctx.Err() != nil:
			return agent.Pause{}, ctx.Err()
		case expired:
			return wf.call(ctx, activityExpire, req.ID)
		case !got:
			continue
		case a.AwaitID != "" && a.AwaitID != req.ID:
			wf.log.Warn("an answer to another await was dropped", "run", wf.id, "pending", req.ID, "answered", a.AwaitID)
			continue
		}
		p, err := wf.resume(ctx, req, a.Answer)
		if isType(err, errMismatch) {
			wf.log.Warn("the run refused an answer", "run", wf.id, "await", req.ID, "err", err)
			continue
		}
		return p, err
	}
}

// resume answers req on the run's worker. When the worker is lost before
// the run records the answer, the run, hosted again from its log, still
// awaits req: the answer goes to it there, rather than being dropped while
// its sender waits for the run to go on.
func (wf *flow) resume(ctx workflow.Context, req run.AwaitRequested, answer run.Answer) (agent.Pause, error) {
	for {
		hosts := wf.hosts
		p, err := wf.call(ctx, activityResume, req.ID, answer)
		again := err == nil && wf.hosts > hosts && p.Kind == agent.PauseAwait && p.Await != nil && p.Await.ID == req.ID
		if !again || workflow.GetVersion(ctx, versionResumeRehosted, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
			return p, err
		}
		wf.log.Warn("the run's worker was lost before it recorded the answer; answering it on its new worker", "run", wf.id, "await", req.ID)
	}
}

// versionResumeRehosted marks the workflow code that answers an await
// again on the worker that hosts the run after its worker was lost (see
// resume); histories from before it replay as they ran.
const versionResumeRehosted = "resume-rehosted"

// idle waits for a follow-up of a completed run. more is false when the
// follow-up window passed.
func (wf *flow) idle(ctx workflow.Context, followUps workflow.ReceiveChannel) (p agent.Pause, more bool, err error) {
	tctx, stopTimer := workflow.WithCancel(ctx)
	defer stopTimer()
	timer := workflow.NewTimer(tctx, wf.timing.FollowUpWindow)
	for {
		var text string
		got, passed := false, false
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(followUps, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, &text); got = true })
		sel.AddFuture(timer, func(f workflow.Future) { passed = f.Get(ctx, nil) == nil })
		sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
		sel.Select(ctx)
		switch {
		case ctx.Err() != nil:
			return agent.Pause{}, false, ctx.Err()
		case passed:
			return agent.Pause{}, false, nil
		case !got:
			continue
		}
		p, err := wf.call(ctx, activityFollowUp, text)
		if isType(err, errNotFollowable) {
			wf.log.Warn("the run refused a follow-up", "run", wf.id, "err", err)
			continue
		}
		return p, true, err
	}
}

// cancel cancels the run on its worker after the workflow was cancelled,
// and ends the workflow canceled.
func (wf *flow) cancel(ctx workflow.Context) (agent.Outcome, error) {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	if wf.queue == "" {
		// Cancelled before a worker took the run: end its log here.
		wf.abandon(dctx, true, "canceled before a worker took it")
	} else {
		var p agent.Pause
		err := workflow.ExecuteActivity(wf.options(dctx), activityCancel, wf.id).Get(dctx, &p)
		if err != nil && lost(err) {
			// The worker is gone too: host the run again, only to
			// cancel it.
			if _, err = wf.host(dctx); err == nil {
				err = workflow.ExecuteActivity(wf.options(dctx), activityCancel, wf.id).Get(dctx, &p)
			}
		}
		if err != nil {
			wf.log.Warn("cancelling the run on its worker failed", "run", wf.id, "err", err)
		} else {
			wf.snap = run.Fold(p.Events)
		}
		wf.release(dctx)
	}
	return agent.Outcome{RunID: wf.id, Status: run.StatusCanceled, Reason: "canceled"}, temporal.NewCanceledError()
}

// failed ends the workflow after an error it cannot go past. An
// interrupted run (its variables could not be restored) was marked failed
// in its log by the worker: the workflow completes with that outcome.
func (wf *flow) failed(ctx workflow.Context, err error) (agent.Outcome, error) {
	wf.release(ctx)
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == errInterrupted {
		return agent.Outcome{RunID: wf.id, Status: run.StatusFailed, Reason: app.Message()}, nil
	}
	// No worker ended the run: end its log, so that nobody waits for it.
	reason := "the run's workflow failed: " + err.Error()
	if errors.As(err, &app) {
		reason = "the run's workflow failed: " + app.Message()
	}
	wf.abandon(ctx, false, reason)
	return agent.Outcome{RunID: wf.id, Status: run.StatusFailed, Reason: reason}, err
}

// abandon ends the run's log from the shared task queue (activity
// byref.Abandon), when no worker that holds it can.
func (wf *flow) abandon(ctx workflow.Context, canceled bool, reason string) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: wf.timing.ScheduleToStart,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	})
	if err := workflow.ExecuteActivity(actx, activityAbandon, wf.id, canceled, reason).Get(ctx, nil); err != nil {
		wf.log.Warn("ending the run's log failed", "run", wf.id, "err", err)
	}
}

// release lets the worker drop the run's Agent; a lost worker has
// already.
func (wf *flow) release(ctx workflow.Context) {
	if wf.queue == "" {
		return
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:              wf.queue,
		ScheduleToStartTimeout: wf.timing.ScheduleToStart,
		StartToCloseTimeout:    wf.timing.Heartbeat,
		RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	if err := workflow.ExecuteActivity(actx, activityRelease, wf.id).Get(ctx, nil); err != nil {
		wf.log.Warn("releasing the run on its worker failed", "run", wf.id, "err", err)
	}
}

// lost reports whether err means the run's worker is gone: an activity
// that timed out, or a worker that does not host the run.
func lost(err error) bool {
	var timeout *temporal.TimeoutError
	return errors.As(err, &timeout) || isType(err, errNotHosted)
}

// isType reports whether err is an application error of type typ.
func isType(err error, typ string) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == typ
}
