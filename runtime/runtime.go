package runtime

import (
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/interp"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// Defaults of Options.
const (
	DefaultCallTimeout = time.Minute
	DefaultMaxOutput   = 16 << 10
	DefaultCancelGrace = 10 * time.Second
)

// Options configures a Runtime. The zero value is valid: no actions but the
// built-in terminate, no variables, reference mode.
type Options struct {
	// Actions the model may call. Nil means none besides the built-ins.
	// The set is shared, never modified.
	Actions *action.Set
	// Variables are the starting variables, recorded at step 0.
	Variables []variable.Spec
	// HideFromAI switches to plain mode: ordinary JSON schemas with no
	// references, actions with reference-only parameters left out, and tool
	// responses that carry result values instead of variable names.
	HideFromAI bool
	// PreviewLimit bounds every preview the model sees, in characters. Zero
	// means variable.DefaultPreviewLimit.
	PreviewLimit int
	// CallTimeout bounds each call when the step's context has no earlier
	// deadline. Zero means DefaultCallTimeout; negative means no bound.
	CallTimeout time.Duration
	// CancelGrace is how long a cancelled step waits for a running action
	// to return before abandoning it. Zero means DefaultCancelGrace;
	// negative means not at all.
	CancelGrace time.Duration
	// MaxOutput bounds what one call may write to each of its stdout and
	// stderr, in bytes; the rest is dropped with a note. Zero means
	// DefaultMaxOutput.
	MaxOutput int
	// Snippets configures the Go interpreter that runs the model's code
	// (its limits and the host packages snippets may import). The
	// interpreter is created on the first snippet.
	Snippets interp.Options
	// DisableSnippets turns Go snippets off: no run_go action, and code
	// blocks in the model's text are ignored.
	DisableSnippets bool

	// Model is the model runs use unless RunOptions.Model overrides it.
	Model llm.Model
	// Store records runs. Nil means an in-memory store of the runtime's
	// own; use run/sqlite for runs that survive the process.
	Store run.Store

	// Logger receives the runtime's logs: runs starting and ending at
	// Info, model and store faults at Warn, steps and failed calls at
	// Debug. Nil means no logs.
	Logger *slog.Logger
	// Tracer observes runs, model calls, steps, tool calls and snippets
	// (package otel adapts OpenTelemetry). Nil means none.
	Tracer Tracer
}

// ErrUnknownVariable is returned for a name that is not a variable.
var ErrUnknownVariable = errors.New("runtime: unknown variable")

// Runtime holds one run's variables and actions; see the package
// documentation.
type Runtime struct {
	opts Options

	execMu sync.Mutex // serialises steps

	mu      sync.Mutex // guards everything below
	vars    variable.Set
	actions *action.Set
	m       *matrix
	step    int
	history []Instruction
	in      *interp.Interpreter
	secrets map[string]bool
	// attached is the allow-list of the current run; nil means all.
	attached map[string]bool
	// resultSchema is the current run's result schema, for terminate.
	resultSchema []byte
	// askable reports that the current run can ask its user (ask_user).
	askable bool
	// inputOwned reports that the variable input holds a run's input
	// (not a variable of the host's).
	inputOwned bool

	// index scores actions for relevance selection; indexOf is the action
	// set it was built from.
	index   *lexicalIndex
	indexOf *action.Set

	runMu    sync.Mutex // guards runs, active and memStore
	runs     map[run.ID]*Handle
	active   *Handle
	memStore run.Store

	schemaBuilds int // counts tool schema builds, for tests
}

// New returns a Runtime with the given actions and starting variables, or
// an error naming the first bad variable.
func New(opts Options) (*Runtime, error) {
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
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = DefaultMaxOutput
	}
	actions := opts.Actions
	if actions == nil {
		actions = &action.Set{}
	}
	rt := &Runtime{opts: opts, m: newMatrix()}
	rt.vars.PreviewLimit = opts.PreviewLimit
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
	rt.m.addAction(action.Terminate(), true, rt.vars.Names(), rt.typeOf)
	rt.m.addAction(action.AskUser(), true, rt.vars.Names(), rt.typeOf)
	if !opts.DisableSnippets {
		rt.m.addAction(runGo, true, rt.vars.Names(), rt.typeOf)
	}
	rt.actions = actions
	for _, a := range actions.All() {
		rt.m.addAction(a, false, rt.vars.Names(), rt.typeOf)
	}
	// Variables come after the actions, so that a variable cannot take an
	// action's name (snippets see both as Go identifiers).
	if err := checkVariableNames(opts.Variables); err != nil {
		return nil, err
	}
	for _, spec := range opts.Variables {
		if err := rt.define(spec, variable.HostStep, "host"); err != nil {
			return nil, err
		}
	}
	return rt, nil
}

// typeOf returns a variable's type; callers hold mu.
func (rt *Runtime) typeOf(name string) reflect.Type {
	_, t, _ := rt.vars.Value(name)
	return t
}

// Set creates or replaces the variable name with value, typed as the
// value's dynamic type (use SetVar for an interface type, a description or
// a secret).
func (rt *Runtime) Set(name string, value any) error {
	return rt.SetVar(variable.Spec{Name: name, Value: value})
}

// SetVar creates or replaces a variable. Replacing one with a value of
// another type updates the compatibility matrix.
func (rt *Runtime) SetVar(spec variable.Spec) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.define(spec, rt.step, "host")
}

// define creates or replaces a variable and keeps the matrix up to date;
// callers hold mu.
func (rt *Runtime) define(spec variable.Spec, step int, by string) error {
	if _, isAction := rt.m.byName[spec.Name]; isAction {
		return fmt.Errorf("%w: %q is the name of an action, and snippets see both as Go identifiers; choose another name", variable.ErrInvalidName, spec.Name)
	}
	if p, ok := rt.hostPackage(spec.Name); ok {
		return fmt.Errorf("%w: %q is the name of the package %s that snippets import, which a variable would hide; choose another name", variable.ErrInvalidName, spec.Name, p)
	}
	_, oldType, existed := rt.vars.Value(spec.Name)
	if _, err := rt.vars.Define(spec, step, by); err != nil {
		return err
	}
	_, t, _ := rt.vars.Value(spec.Name)
	if spec.Secret {
		if rt.secrets == nil {
			rt.secrets = map[string]bool{}
		}
		rt.secrets[spec.Name] = true
	} else {
		delete(rt.secrets, spec.Name)
	}
	if !existed || oldType != t {
		if existed {
			rt.m.removeVar(spec.Name)
		}
		rt.m.addVar(spec.Name, t)
	}
	return nil
}

// Delete removes a variable and reports whether it existed.
func (rt *Runtime) Delete(name string) bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if !rt.vars.Delete(name) {
		return false
	}
	delete(rt.secrets, name)
	rt.m.removeVar(name)
	return true
}

// Variable returns a copy of the named variable, history included.
func (rt *Runtime) Variable(name string) (variable.Variable, bool) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.vars.Get(name)
}

// Variables returns copies of all variables in creation order.
func (rt *Runtime) Variables() []variable.Variable {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.vars.All()
}

// Value returns the value of the named variable as a T, or an error naming
// the variable's actual type.
func Value[T any](rt *Runtime, name string) (T, error) {
	v, ok := rt.Variable(name)
	if !ok {
		var zero T
		return zero, fmt.Errorf("%w: %q", ErrUnknownVariable, name)
	}
	return variable.As[T](v)
}

// Actions returns the runtime's current action set (without the built-ins).
func (rt *Runtime) Actions() *action.Set {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.actions
}

// AddActions adds actions to the runtime; it fails, changing nothing, when a
// name is taken.
func (rt *Runtime) AddActions(actions ...*action.Action) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	for _, a := range actions {
		if a == nil {
			continue
		}
		if r, ok := rt.m.byName[a.Name()]; ok && r.builtin {
			return &action.SpecError{Action: a.Name(), Err: errors.New("the name is taken by a built-in action; rename the action")}
		}
		if _, _, isVar := rt.vars.Value(a.Name()); isVar {
			return &action.SpecError{Action: a.Name(), Err: fmt.Errorf("%q is the name of a variable, and snippets see both as Go identifiers; rename the action or the variable", a.Name())}
		}
	}
	set, err := rt.actions.With(actions...)
	if err != nil {
		return err
	}
	rt.actions = set
	names := rt.vars.Names()
	for _, a := range actions {
		rt.m.addAction(a, false, names, rt.typeOf)
	}
	return nil
}

// RemoveActions removes the named actions; built-ins cannot be removed.
func (rt *Runtime) RemoveActions(names ...string) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.actions = rt.actions.Without(names...)
	for _, n := range names {
		if r, ok := rt.m.byName[n]; ok && !r.builtin {
			rt.m.removeAction(n)
		}
	}
}

// Steps returns the number of steps executed so far.
func (rt *Runtime) Steps() int {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.step
}

// hasSecrets reports whether any variable is secret.
func (rt *Runtime) hasSecrets() bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return len(rt.secrets) > 0
}

// store returns the store runs are recorded in.
func (rt *Runtime) store() run.Store {
	if rt.opts.Store != nil {
		return rt.opts.Store
	}
	if rt.memStore == nil {
		rt.memStore = run.NewMemoryStore()
	}
	return rt.memStore
}

// attach sets the current run's allow-list and result schema; callers hold
// mu.
func (rt *Runtime) attach(names []string, resultSchema []byte, askable bool) {
	rt.askable = askable
	rt.attached = nil
	if len(names) > 0 {
		rt.attached = make(map[string]bool, len(names))
		for _, n := range names {
			rt.attached[n] = true
		}
	}
	rt.resultSchema = resultSchema
	if r, ok := rt.m.byName[action.TerminateName]; ok {
		r.tool.built, r.strictKnown = false, false
	}
}

// isAttached reports whether the named action may be called in the current
// run; callers hold mu. Built-ins are always attached.
func (rt *Runtime) isAttached(name string) bool {
	if name == action.AskUserName {
		return rt.askable
	}
	if rt.attached == nil || rt.attached[name] {
		return true
	}
	r, ok := rt.m.byName[name]
	return ok && r.builtin
}

// attachedNames lists the actions the current run may call; callers hold mu.
func (rt *Runtime) attachedNames() []string {
	var names []string
	for _, r := range rt.m.rows {
		if rt.isAttached(r.act.Name()) {
			names = append(names, r.act.Name())
		}
	}
	return slices.Clip(names)
}
