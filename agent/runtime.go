package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// Defaults of Options.
const (
	DefaultCallTimeout = time.Minute
	DefaultMaxOutput   = 16 << 10
	DefaultMaxMessage  = 16 << 10
	DefaultCancelGrace = 10 * time.Second
)

// ErrClosed is returned by Start, Create and Restore on an agent that was
// closed, and is the cause of the cancellation its runs see.
var ErrClosed = errors.New("agent: the agent is closed")

// Agent is an agent: its actions, model, store, logger, tracer and
// options. It is built once by New, never changes afterwards, and is safe
// for concurrent use, like *sql.DB: many runs go on at once, each with its
// own State (variables, compatibility matrix, interpreter, history).
type Agent struct {
	opts    Options
	actions *action.Set
	// proto is a State with the built-in and the agent's actions and the
	// starting variables, checked once; every State is a copy of it.
	proto *State
	store run.Store

	mu     sync.Mutex // guards runs and closed
	runs   map[run.ID]*Handle
	closed bool
	wg     sync.WaitGroup // the goroutines of the runs' turns

	// nonStrict holds the names of the actions whose going out without
	// strict mode was logged.
	nonStrict sync.Map

	// sessions holds what starts a session's next run (sessionvars.go).
	sessions *sessions
}

// New returns an agent with the given actions, model and store, or an error
// naming the first bad action or starting variable. Options.Variables are
// checked here; every run starts with them.
func New(opts Options) (*Agent, error) {
	if opts.PreviewLimit <= 0 {
		opts.PreviewLimit = variable.DefaultPreviewLimit
	}
	if opts.CallTimeout == 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.CancelGrace == 0 {
		opts.CancelGrace = DefaultCancelGrace
	}
	if opts.MaxMessage <= 0 {
		opts.MaxMessage = DefaultMaxMessage
	}
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = DefaultMaxOutput
	}
	if opts.SessionCache == 0 {
		opts.SessionCache = DefaultSessionCache
	}
	actions := opts.Actions
	if actions == nil {
		actions = &action.Set{}
	}
	if _, ok := actions.Get(action.TerminateName); ok {
		return nil, &action.SpecError{Action: action.TerminateName, Err: errors.New("the name is taken by the built-in terminate action; rename the action")}
	}
	if _, ok := actions.Get(RunGoName); ok && !opts.DisableSnippets {
		return nil, &action.SpecError{Action: RunGoName, Err: errors.New("the name is taken by the built-in run_go action; rename the action")}
	}
	for _, name := range []string{action.AskUserName} {
		if _, ok := actions.Get(name); ok {
			return nil, &action.SpecError{Action: name, Err: errors.New("the name is taken by a built-in action; rename the action")}
		}
	}
	rt := &Agent{opts: opts, actions: actions, store: opts.Store}
	rt.sessions = newSessions(&rt.opts, actions)
	if rt.store == nil {
		rt.store = run.NewMemoryStore()
	}
	st := newState(&rt.opts, &rt.nonStrict, scope{m: newMatrix(), actions: actions})
	st.s.vars.PreviewLimit = opts.PreviewLimit
	for _, b := range builtinRows(!opts.DisableSnippets) {
		st.s.m.addAction(b.act, b.run, nil, st.s.typeOf)
	}
	for _, a := range actions.All() {
		st.s.m.addAction(a, nil, nil, st.s.typeOf)
	}
	// Variables come after the actions, so that a variable cannot take an
	// action's name (snippets see both as Go identifiers).
	if err := checkVariableNames(opts.Variables); err != nil {
		return nil, err
	}
	for _, spec := range opts.Variables {
		if err := st.s.define(spec, variable.HostStep, "host"); err != nil {
			return nil, err
		}
	}
	rt.proto = st
	return rt, nil
}

// NewState returns a fresh State on the agent's actions, with the agent's
// starting variables (Options.Variables) and then vars, for executing steps
// without a model ([State.Execute]): tests, tools served over MCP, replays.
// Runs make their own.
func (rt *Agent) NewState(vars ...variable.Spec) (*State, error) {
	st := rt.proto.clone()
	for _, spec := range vars {
		if err := st.s.define(spec, variable.HostStep, "host"); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// Actions returns the agent's actions (without the built-ins).
func (rt *Agent) Actions() *action.Set { return rt.actions }

// Store returns the store the agent's runs are recorded in: Options.Store,
// or the agent's own in-memory store.
func (rt *Agent) Store() run.Store { return rt.store }

// Close ends the agent: it starts no more runs, and every run that has not
// ended stops (its context is cancelled with the cause ErrClosed). A run
// that was awaiting stays awaiting in its log, to be restored after a
// restart ([Recover], [Agent.Restore]); a run that was running is marked
// failed with a reason that starts with "interrupted". Close waits for the
// runs' goroutines until ctx is done. Closing twice is harmless.
func (rt *Agent) Close(ctx context.Context) error {
	return rt.close(ctx, ErrClosed)
}

// ErrAbandoned is the cause the runs of an abandoned agent stop with
// (Agent.Abandon). It wraps ErrClosed.
var ErrAbandoned = fmt.Errorf("%w: its runs were left to another process", ErrClosed)

// Abandon is Close for a process that has lost its claim on its runs to
// another process, which takes them over from their logs (a server
// replica that lost its lease in the database): every run that has not
// ended stops, as Close stops it, but records nothing more, not even
// "interrupted": its log is left as it was, for the other process to go
// on from. Abandon waits for the runs' goroutines until ctx is done.
func (rt *Agent) Abandon(ctx context.Context) error {
	return rt.close(ctx, ErrAbandoned)
}

// close is Close and Abandon: it stops the runs with cause.
func (rt *Agent) close(ctx context.Context, cause error) error {
	rt.mu.Lock()
	rt.closed = true
	live := make([]*Handle, 0, len(rt.runs))
	for _, h := range rt.runs {
		live = append(live, h)
	}
	rt.mu.Unlock()
	for _, h := range live {
		h.stop(cause)
	}
	done := make(chan struct{})
	go func() {
		rt.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("agent: closing: runs still going: %w", context.Cause(ctx))
	}
}

// track registers a run whose turn is going on; it fails on a closed agent.
func (rt *Agent) track(h *Handle) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.closed {
		return ErrClosed
	}
	if rt.runs == nil {
		rt.runs = map[run.ID]*Handle{}
	}
	rt.runs[h.id] = h
	return nil
}

// untrack forgets a run whose turn ended, after holding the variables it
// leaves its session.
func (rt *Agent) untrack(h *Handle) {
	if h.opts.Session != "" && h.opts.Parent == nil {
		rt.sessions.keep(h.opts.Session, h.id, h.st.Variables())
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.runs[h.id] == h {
		delete(rt.runs, h.id)
	}
}

// live returns the run id if its turn is going on in this agent.
func (rt *Agent) live(id run.ID) (*Handle, bool) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	h, ok := rt.runs[id]
	return h, ok
}

// startSpan starts a span when the runtime has a tracer; end is never nil.
func (rt *Agent) startSpan(ctx context.Context, s Span) (context.Context, func(SpanEnd)) {
	return startSpan(ctx, rt.opts.Tracer, s)
}

// log returns the runtime's logger (New replaces a nil one with one that
// discards).
func (rt *Agent) log() *slog.Logger { return rt.opts.Logger }

// cost is what u cost at the agent's price of model (Options.Prices), or
// 0.
func (rt *Agent) cost(model string, u llm.Usage) float64 {
	if rt == nil {
		return 0
	}
	p, ok := rt.opts.Prices[model]
	if !ok {
		return 0
	}
	return p.Cost(u)
}
