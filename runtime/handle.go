package runtime

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/schema"
)

// Handle is a started run: its ID, its outcome when it ends, its events, and
// the ways to cancel it or follow it up. It is safe for concurrent use.
type Handle struct {
	rt    *Runtime
	st    *State
	id    run.ID
	rec   *recorder
	model llm.Model
	opts  RunOptions

	mu       sync.Mutex
	done     chan struct{} // closed when the current turn ends
	awaited  chan struct{} // a word that the run awaits its caller (answer.go)
	outcome  Outcome
	cancel   context.CancelCauseFunc
	messages []llm.Message
	steps    int
	usage    llm.Usage
	result   *schema.Validator
	pending  *pendingAwait
	awaits   int
	begun    bool
	// turnSteps and turnTokens are the steps and tokens spent before the
	// current turn: limits apply per turn.
	turnSteps, turnTokens int
	fatal                 string // set when an await timed out and the run failed
	planOK                bool   // the plan was approved (ApproveOnStart)
	// drive is the rendezvous with Advance of a driven run; nil otherwise.
	drive *driver
	// ctx is the run's context layout: what request() keeps fixed between
	// compactions (context.go).
	ctx runContext
	// liveHub delivers deltas to followers; nil until the first (hub.go).
	liveHub atomic.Pointer[hub]
	// snippets numbers the code blocks whose output is streamed.
	snippets atomic.Int64
}

// drivenBy makes the run driven when driven is set: it stops at every
// pause until Advance.
func (h *Handle) drivenBy(driven bool) {
	if !driven {
		return
	}
	h.drive = newDriver()
	h.rec.tap = h.drive.record
}

// ID returns the run's ID.
func (h *Handle) ID() run.ID { return h.id }

// State returns the run's own state: its variables, matrix, interpreter
// and history.
func (h *Handle) State() *State { return h.st }

// Wait blocks until the run's current turn ends or ctx is done.
func (h *Handle) Wait(ctx context.Context) (Outcome, error) {
	h.mu.Lock()
	done := h.done
	h.mu.Unlock()
	select {
	case <-done:
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.outcome, nil
	case <-ctx.Done():
		return Outcome{}, ctx.Err()
	}
}

// Snapshot folds the run's events into its current state.
func (h *Handle) Snapshot(ctx context.Context) (run.Snapshot, error) {
	return run.LoadSnapshot(ctx, h.rec.store, h.id)
}

// Status returns the run's current status.
func (h *Handle) Status() run.Status { return h.rec.current() }

func (h *Handle) stepCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.steps
}

// Options returns the options the run was started (or restored) with.
func (h *Handle) Options() RunOptions { return h.opts }

// runContext is what a run keeps fixed from one request to the next, so
// that every request begins with the previous one byte for byte (tools,
// system prompt, then messages) and a provider's prompt cache serves it.
// Only a compaction changes it.
type runContext struct {
	// starting names the run's starting variables, which the system
	// prompt lists; later variables are announced where they are made.
	starting []string
	// tools is the run's tool list, built at its first request and again
	// only after a compaction; nil until then.
	tools []llm.Tool
	// only names the tools the last compaction chose (nil: choose from
	// the task), so that a restored run offers the same ones.
	only []string
	// announced names the variables the host defined between turns that
	// a follow-up message announced already.
	announced map[string]bool
	// cacheKey is the request's llm.Request.CacheKey: derived from what
	// the run's requests begin with (the tools and the system prompt), so
	// that the runs of one agent, which begin alike, share it.
	cacheKey string
}
