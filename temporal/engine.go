package temporal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
)

// EngineOptions configures an Engine. Store is required.
type EngineOptions struct {
	// TaskQueue is the shared task queue of the workers. Empty means
	// DefaultTaskQueue.
	TaskQueue string
	// Store is the store the workers record runs into.
	Store run.Store
	// Timing bounds every run's activities and waits.
	Timing Timing
	// StartTimeout bounds how long Start waits for a worker to record the
	// new run. Zero means DefaultStartTimeout.
	StartTimeout time.Duration
}

// DefaultStartTimeout is how long Start waits for a worker by default.
const DefaultStartTimeout = time.Minute

// Engine starts runs as Temporal workflows and controls them by ID. Its
// Start and Control make it a server.Engine, so the ACP server can serve
// runs that execute on Temporal workers. It is safe for concurrent use.
type Engine struct {
	client client.Client
	opts   EngineOptions
}

// NewEngine returns an engine on the Temporal client c.
func NewEngine(c client.Client, opts EngineOptions) (*Engine, error) {
	if c == nil {
		return nil, errors.New("temporal: NewEngine needs a Temporal client")
	}
	if opts.Store == nil {
		return nil, errors.New("temporal: EngineOptions.Store is nil; give the store the workers record runs into")
	}
	if opts.TaskQueue == "" {
		opts.TaskQueue = DefaultTaskQueue
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	return &Engine{client: c, opts: opts}, nil
}

// Start starts a run of the named agent as a workflow whose ID is the run's
// ID and waits until a worker has recorded it, so that it can be read
// from the store at once. opts must not set what cannot travel to a worker
// (see SpecOf). Starting a run whose ID is already running returns that
// run. An input the agent refuses returns an error wrapping
// agent.ErrInvalidInput.
func (e *Engine) Start(ctx context.Context, agentName string, opts agent.RunOptions) (agent.Controller, error) {
	spec, err := SpecOf(opts)
	if err != nil {
		return nil, err
	}
	if spec.ID == "" {
		spec.ID = string(run.NewID())
	}
	id := run.ID(spec.ID)
	// A workflow task that a lost worker took goes to another after the
	// heartbeat, as the run's activities do.
	wr, err := e.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: spec.ID, TaskQueue: e.opts.TaskQueue,
		WorkflowTaskTimeout: e.opts.Timing.withDefaults().Heartbeat},
		WorkflowName, Input{Agent: agentName, Run: spec, Timing: e.opts.Timing})
	if err != nil {
		return nil, fmt.Errorf("temporal: starting run %s: %w", id, err)
	}
	ended := make(chan error, 1)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { ended <- wr.Get(wctx, nil) }()
	deadline := time.NewTimer(e.opts.StartTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := e.opts.Store.Get(ctx, id); err == nil {
			return e.control(id), nil
		} else if !errors.Is(err, run.ErrRunNotFound) {
			return nil, err
		}
		select {
		case err := <-ended:
			if _, gerr := e.opts.Store.Get(ctx, id); gerr == nil {
				return e.control(id), nil // it ended at once, recorded
			}
			if isType(err, errInvalidInput) {
				return nil, fmt.Errorf("%w: %s", agent.ErrInvalidInput, appMessage(err))
			}
			if err == nil {
				err = errors.New("the workflow ended without recording the run")
			}
			return nil, fmt.Errorf("temporal: run %s did not start: %s", id, appMessage(err))
		case <-deadline.C:
			return nil, fmt.Errorf("temporal: no worker recorded run %s within %v; are workers of agent %q polling task queue %q?", id, e.opts.StartTimeout, agentName, e.opts.TaskQueue)
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

// appMessage is the message of the application error in err, or err's.
func appMessage(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Message()
	}
	return err.Error()
}

// Control returns the controller of a run, started by any engine of the
// deployment; an error wrapping run.ErrRunNotFound when the store does not
// have it.
func (e *Engine) Control(ctx context.Context, id run.ID) (agent.Controller, error) {
	if _, err := e.opts.Store.Get(ctx, id); err != nil {
		return nil, err
	}
	return e.control(id), nil
}

func (e *Engine) control(id run.ID) *Run { return &Run{e: e, id: id} }

// Snapshot returns the run's snapshot from its workflow (the query
// QuerySnapshot): the state the workflow has folded from its activities'
// events. It needs a worker to answer; LoadSnapshot over the store does not.
func (e *Engine) Snapshot(ctx context.Context, id run.ID) (run.Snapshot, error) {
	v, err := e.client.QueryWorkflow(ctx, string(id), "", QuerySnapshot)
	if err != nil {
		return run.Snapshot{}, fmt.Errorf("temporal: querying run %s: %w", id, err)
	}
	var s run.Snapshot
	if err := v.Get(&s); err != nil {
		return run.Snapshot{}, err
	}
	return s, nil
}

// Run controls one run on Temporal: it signals and cancels the run's
// workflow, and reads the run's state from the store. It implements
// agent.Controller.
type Run struct {
	e  *Engine
	id run.ID
}

var _ agent.Controller = (*Run)(nil)

// ID returns the run's ID.
func (r *Run) ID() run.ID { return r.id }

// snapshot loads the run's state from the store.
func (r *Run) snapshot(ctx context.Context) (run.Snapshot, error) {
	return run.LoadSnapshot(ctx, r.e.opts.Store, r.id)
}

// Status returns the run's status as recorded; "" when it cannot be read.
func (r *Run) Status() run.Status {
	s, err := r.e.opts.Store.Get(context.Background(), r.id)
	if err != nil {
		return ""
	}
	return s.Status
}

// Pending returns what the run awaits, as recorded.
func (r *Run) Pending() (run.AwaitRequested, bool) {
	s, err := r.snapshot(context.Background())
	if err != nil || s.Status != run.StatusAwaiting || s.Await == nil {
		return run.AwaitRequested{}, false
	}
	return *s.Await, true
}

// Wait blocks until the run's current turn ends (it is completed, failed or
// canceled in the store) or ctx is done.
func (r *Run) Wait(ctx context.Context) (agent.Outcome, error) {
	s, err := r.snapshot(ctx)
	if err != nil {
		return agent.Outcome{}, err
	}
	if !s.Status.Terminal() {
		for e, err := range r.e.opts.Store.Events(ctx, r.id, s.LastSeq+1) {
			if err != nil {
				return agent.Outcome{}, err
			}
			if sc, ok := e.Payload.(run.StatusChanged); ok && sc.To.Terminal() {
				break
			}
		}
		if err := ctx.Err(); err != nil {
			return agent.Outcome{}, err
		}
		if s, err = r.snapshot(ctx); err != nil {
			return agent.Outcome{}, err
		}
	}
	return outcomeOf(s), nil
}

// outcomeOf is the outcome a snapshot of an ended turn records.
func outcomeOf(s run.Snapshot) agent.Outcome {
	o := agent.Outcome{RunID: s.RunID, Status: s.Status, Result: s.Result, Steps: s.Step}
	o.Usage.InputTokens, o.Usage.OutputTokens = int(s.Usage.InputTokens), int(s.Usage.OutputTokens)
	switch s.Status {
	case run.StatusCompleted:
		if len(o.Result) == 0 {
			o.Result = []byte("null")
		}
	case run.StatusFailed:
		o.Reason = s.FailureReason
	case run.StatusCanceled:
		o.Reason = "canceled"
	}
	return o
}

// Resume answers what the run awaits. The answer is checked against the
// recorded await first (errors wrap agent.ErrNoAwait or
// agent.ErrAwaitMismatch), then sent as the signal SignalAnswer; the run
// records it when its worker has taken it.
func (r *Run) Resume(ctx context.Context, awaitID string, answer run.Answer) error {
	s, err := r.snapshot(ctx)
	if err != nil {
		return err
	}
	if s.Status != run.StatusAwaiting || s.Await == nil {
		return fmt.Errorf("%w: run %s is %s", agent.ErrNoAwait, r.id, s.Status)
	}
	p := s.Await
	if awaitID != "" && awaitID != p.ID {
		return fmt.Errorf("%w: run %s awaits %s %s (%s), not %s", agent.ErrAwaitMismatch, r.id, p.Await, p.ID, p.Message, awaitID)
	}
	if err := p.Check(answer); err != nil {
		return fmt.Errorf("%w: run %s awaits %s %s: %v", agent.ErrAwaitMismatch, r.id, p.Await, p.ID, err)
	}
	if err := r.e.client.SignalWorkflow(ctx, string(r.id), "", SignalAnswer, Answer{AwaitID: p.ID, Answer: answer}); err != nil {
		return fmt.Errorf("temporal: answering run %s: %w", r.id, err)
	}
	return r.waitFor(ctx, s.LastSeq+1, func(sc run.StatusChanged) bool { return sc.From == run.StatusAwaiting })
}

// waitFor waits, up to EngineOptions.StartTimeout, until the run records a
// status change that done accepts from sequence number from on, or ends:
// Resume, Cancel and FollowUp return once the run has recorded what they
// asked, as they do in process.
func (r *Run) waitFor(ctx context.Context, from int64, done func(run.StatusChanged) bool) error {
	wctx, cancel := context.WithTimeout(ctx, r.e.opts.StartTimeout)
	defer cancel()
	for e, err := range r.e.opts.Store.Events(wctx, r.id, from) {
		if err != nil {
			return err
		}
		if sc, ok := e.Payload.(run.StatusChanged); ok && done(sc) {
			return nil
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if wctx.Err() != nil {
		return fmt.Errorf("temporal: run %s did not record the request within %v; is its worker up?", r.id, r.e.opts.StartTimeout)
	}
	return nil // the run ended
}

// Cancel cancels the run's workflow, which cancels the run on its worker.
// It returns an error wrapping agent.ErrTerminal for a run that has
// ended.
func (r *Run) Cancel(ctx context.Context) error {
	s, err := r.e.opts.Store.Get(ctx, r.id)
	if err != nil {
		return err
	}
	if s.Status.Terminal() {
		return fmt.Errorf("%w: run %s is %s", agent.ErrTerminal, r.id, s.Status)
	}
	if err := r.e.client.CancelWorkflow(ctx, string(r.id), ""); err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return fmt.Errorf("%w: the workflow of run %s has ended", agent.ErrTerminal, r.id)
		}
		return fmt.Errorf("temporal: cancelling run %s: %w", r.id, err)
	}
	return r.waitFor(ctx, s.LastSeq+1, func(sc run.StatusChanged) bool {
		return sc.To == run.StatusCancelling || sc.To.Terminal()
	})
}

// FollowUp sends a follow-up to a completed, interactive run whose
// workflow still waits for one (see Timing.FollowUpWindow).
func (r *Run) FollowUp(ctx context.Context, text string) error {
	s, err := r.snapshot(ctx)
	if err != nil {
		return err
	}
	if s.Options.NonInteractive {
		return fmt.Errorf("%w: run %s is non-interactive", agent.ErrNotFollowable, r.id)
	}
	if s.Status != run.StatusCompleted {
		return fmt.Errorf("%w: run %s is %s, and only a completed run can be followed up", agent.ErrNotFollowable, r.id, s.Status)
	}
	if err := r.e.client.SignalWorkflow(ctx, string(r.id), "", SignalFollowUp, text); err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return fmt.Errorf("%w: the workflow of run %s has ended (its follow-up window passed)", agent.ErrNotFollowable, r.id)
		}
		return fmt.Errorf("temporal: following up run %s: %w", r.id, err)
	}
	return r.waitFor(ctx, s.LastSeq+1, func(sc run.StatusChanged) bool { return sc.From == run.StatusCompleted })
}
