package temporal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
)

// DefaultTaskQueue is the shared task queue when none is set.
const DefaultTaskQueue = "byref"

// Agent is an agent a worker runs.
type Agent struct {
	// Name is how Engine.Start names the agent.
	Name string
	// New builds the agent's runtime: its actions, model and starting
	// variables, recording to store (set agent.Options.Store to it).
	// NewWorker calls it once; the runtime is shared by every run the
	// worker hosts, each with its own state. A run restored on this worker
	// gets its variables from its log, not the starting ones.
	New func(store run.Store) (*agent.Agent, error)
	// Run is the template of every run's options: what cannot travel
	// through Temporal (Model, OnStatus) and defaults for what the starter
	// leaves unset.
	Run agent.RunOptions
	// Restore says how to rebuild a run's variables from its log when the
	// run moves to this worker: the Go types of its variables, and the
	// values the worker can supply itself (a database handle).
	Restore agent.RestoreOptions
}

// WorkerOptions configures a Worker. Store and Agents are required.
type WorkerOptions struct {
	// TaskQueue is the shared task queue the workflows and their first
	// activity run on; every worker and engine of a deployment uses the
	// same. Empty means DefaultTaskQueue.
	TaskQueue string
	// Store is where runs are recorded; the engine that starts runs reads
	// them from it.
	Store run.Store
	// Agents are the agents this worker runs, by name.
	Agents []Agent
	// Worker are the Temporal worker options of both task queues.
	Worker worker.Options
}

// Worker hosts runs: it polls the shared task queue for workflows and for
// runs to host, and its own task queue for the model calls and steps of
// the runs it hosts. Create it with NewWorker; it is safe for concurrent
// use.
type Worker struct {
	opts   WorkerOptions
	client client.Client
	queue  string
	agents map[string]*Agent
	rts    map[string]*agent.Agent // the agents' runtimes, by name
	ctx    context.Context         // the context hosted runs start with
	stop   context.CancelFunc

	mu      sync.Mutex
	runs    map[run.ID]*hosted
	workers []worker.Worker
}

// hosted is a run this worker hosts.
type hosted struct {
	rt *agent.Agent
	h  *agent.Handle

	mu   sync.Mutex
	last agent.Pause // the latest pause an activity returned

	forwarding atomic.Bool // its deltas are being published (see forward)
}

// pause returns the latest pause an activity returned.
func (hr *hosted) pause() agent.Pause {
	hr.mu.Lock()
	defer hr.mu.Unlock()
	return hr.last
}

// NewWorker returns a worker of the agents. c is the Temporal client; it
// may be nil for a worker only registered on a test environment
// (Register).
func NewWorker(c client.Client, opts WorkerOptions) (*Worker, error) {
	if opts.Store == nil {
		return nil, errors.New("temporal: WorkerOptions.Store is nil; give the store the engine reads runs from")
	}
	if len(opts.Agents) == 0 {
		return nil, errors.New("temporal: no agents; set WorkerOptions.Agents")
	}
	if opts.TaskQueue == "" {
		opts.TaskQueue = DefaultTaskQueue
	}
	w := &Worker{opts: opts, client: c, agents: map[string]*Agent{}, rts: map[string]*agent.Agent{}, runs: map[run.ID]*hosted{}}
	for i := range opts.Agents {
		a := &opts.Agents[i]
		if a.Name == "" || a.New == nil {
			return nil, fmt.Errorf("temporal: agent %d needs a Name and a New function", i)
		}
		if _, dup := w.agents[a.Name]; dup {
			return nil, fmt.Errorf("temporal: two agents are named %q", a.Name)
		}
		rt, err := a.New(opts.Store)
		if err != nil {
			return nil, fmt.Errorf("temporal: building agent %s: %w", a.Name, err)
		}
		w.agents[a.Name], w.rts[a.Name] = a, rt
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	w.queue = opts.TaskQueue + "/worker-" + hex.EncodeToString(b[:])
	w.ctx, w.stop = context.WithCancel(context.Background())
	return w, nil
}

// Queue returns the worker's own task queue, where the activities of the
// runs it hosts go.
func (w *Worker) Queue() string { return w.queue }

// Registry is where Register registers the workflow and the activities: a
// worker.Worker, or the SDK's testsuite.TestWorkflowEnvironment.
type Registry interface {
	RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions)
	RegisterActivityWithOptions(a any, options activity.RegisterOptions)
}

// Register registers RunWorkflow and the worker's activities on r. Start
// does it for the worker's own Temporal workers; tests register on the
// SDK's test environment.
func (w *Worker) Register(r Registry) {
	r.RegisterWorkflowWithOptions(RunWorkflow, workflow.RegisterOptions{Name: WorkflowName})
	for name, fn := range map[string]any{
		activityHost: w.host, activityModel: w.advanceActivity, activityStep: w.advanceActivity,
		activityResume: w.resume, activityExpire: w.expire, activityCancel: w.cancel,
		activityFollowUp: w.followUp, activityRelease: w.release, activityAbandon: w.abandon,
	} {
		r.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
}

// Start starts polling both task queues. It returns an error when the
// worker has no client or a queue cannot be polled.
func (w *Worker) Start() error {
	if w.client == nil {
		return errors.New("temporal: the worker has no client; give NewWorker one")
	}
	shared := worker.New(w.client, w.opts.TaskQueue, w.opts.Worker)
	shared.RegisterWorkflowWithOptions(RunWorkflow, workflow.RegisterOptions{Name: WorkflowName})
	shared.RegisterActivityWithOptions(w.host, activity.RegisterOptions{Name: activityHost})
	shared.RegisterActivityWithOptions(w.abandon, activity.RegisterOptions{Name: activityAbandon})
	own := worker.New(w.client, w.queue, w.opts.Worker)
	w.Register(own)
	for _, x := range []worker.Worker{own, shared} {
		if err := x.Start(); err != nil {
			w.Stop()
			return fmt.Errorf("temporal: starting the worker: %w", err)
		}
		w.mu.Lock()
		w.workers = append(w.workers, x)
		w.mu.Unlock()
	}
	return nil
}

// Stop stops polling. The runs it hosts are not cancelled: their
// workflows find the worker lost and host them on another worker, as after
// a crash. Call it as the process exits (a deploy).
func (w *Worker) Stop() {
	w.mu.Lock()
	workers := w.workers
	w.workers = nil
	w.mu.Unlock()
	for _, x := range workers {
		x.Stop()
	}
}

// Hosted returns the IDs of the runs this worker hosts, for tests and
// metrics.
func (w *Worker) Hosted() []run.ID {
	w.mu.Lock()
	defer w.mu.Unlock()
	ids := make([]run.ID, 0, len(w.runs))
	for id := range w.runs {
		ids = append(ids, id)
	}
	return ids
}
