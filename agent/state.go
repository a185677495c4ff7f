package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"sync"

	"github.com/byref/byref/action"
	"github.com/byref/byref/interp"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// State is the state of one run: its variables, the compatibility matrix
// between them and the actions, its Go interpreter and its step history. A
// run owns its State ([Handle.State]); [Agent.NewState] makes one for
// executing steps without a model. Nothing in a State is shared with
// another run, except the values of variables given to both (a pointer
// given as a starting variable to two runs is the same pointer).
//
// A State is safe for concurrent use. Steps execute one at a time:
// concurrent Execute calls are serialised. Variables may be read and set
// while a step runs; a call's result is committed after the call returns.
type State struct {
	opts *Options // the agent's, never modified
	// nonStrict is the agent's (Agent.nonStrict): the actions whose
	// going out without strict mode was logged.
	nonStrict *sync.Map

	exec executor // runs the steps

	mu sync.Mutex
	s  scope // guarded by mu
}

// schemas writes a State's tool schemas, each rebuilt only when what it
// depends on changed; it is its scope's, under the State's lock.
type schemas struct {
	opts      *Options  // the agent's, never modified
	nonStrict *sync.Map // the agent's (Agent.nonStrict)
	// resultSchema is the run's result schema, for terminate.
	resultSchema []byte
	builds       int // counts tool schema builds, for tests
}

// scope is what a State's lock guards: its variables, actions and
// matrix, step count, log, interpreter, secrets, tool schemas and the
// identities its log describes.
// Its methods are the State's work under that lock: nothing reaches a
// scope but through a State that holds its lock.
type scope struct {
	opts *Options // the agent's, never modified

	vars    variable.Set
	actions *action.Set
	m       *matrix
	step    int
	// record is the State's own log (history.go), which History reads and
	// a step with no gate is recorded in: the fold of a bare State's
	// steps, or where the run that holds the State keeps its log (its
	// store and ID, not the run).
	record stepLog
	in     *interp.Interpreter
	// secrets holds the names of the sensitive variables: secret or
	// tainted (see taint.go).
	secrets   map[string]bool
	redaction *redaction
	// attached is the allow-list of the run; nil means all.
	attached map[string]bool
	// askable reports that the run can ask its user (ask_user).
	askable bool

	// index scores actions for relevance selection; indexOf is the action
	// set it was built from.
	index   *lexicalIndex
	indexOf *action.Set

	schemas schemas // writes the tool schemas (tools.go)

	// change1 is room for the first variable a step's one call changes,
	// allocated with the step's result (oneCall).
	change1 []VariableChange
	// ids are the Go described the run's log holds already.
	ids described
}

// described hold the named types and the actions whose Go identity a
// run's log holds already (identity.go), so that each is described once;
// they are their scope's, under the State's lock.
type described struct {
	types, actions map[string]bool
}

// newState is a State of the agent's options (opts, nonStrict) over sc,
// with its executor.
func newState(opts *Options, nonStrict *sync.Map, sc scope) *State {
	st := &State{opts: opts, nonStrict: nonStrict, s: sc}
	st.s.opts, st.s.schemas = opts, schemas{opts: opts, nonStrict: nonStrict}
	st.exec.st = st
	return st
}

// clone returns a copy of a State that has executed nothing: the same
// actions and variables, its own matrix and history.
func (st *State) clone() *State {
	st.mu.Lock()
	defer st.mu.Unlock()
	c := newState(st.opts, st.nonStrict, scope{actions: st.s.actions, m: st.s.m.clone(), vars: st.s.vars.Clone(), step: st.s.step})
	if st.s.secrets != nil {
		c.s.secrets = maps.Clone(st.s.secrets)
	}
	return c
}

// typeOf returns a variable's type.
func (sc *scope) typeOf(name string) reflect.Type {
	_, t, _ := sc.vars.Value(name)
	return t
}

// Set creates or replaces the variable name with value, typed as the
// value's dynamic type (use SetVar for an interface type, a description or
// a secret).
func (st *State) Set(name string, value any) error {
	return st.SetVar(variable.Spec{Name: name, Value: value})
}

// SetVar creates or replaces a variable. Replacing one with a value of
// another type updates the compatibility matrix.
func (st *State) SetVar(spec variable.Spec) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.s.define(spec, st.s.step, "host")
}

// define creates or replaces a variable and keeps the matrix up to date.
func (sc *scope) define(spec variable.Spec, step int, by string) error {
	if _, isAction := sc.m.byName[spec.Name]; isAction {
		return fmt.Errorf("%w: %q is the name of an action, and snippets see both as Go identifiers; choose another name", variable.ErrInvalidName, spec.Name)
	}
	_, oldType, existed := sc.vars.Value(spec.Name)
	return sc.store(spec, step, by, oldType, existed)
}

// defineNew creates a variable whose name freeName returned (neither a
// variable nor an action) and whose spec has its Type: a call's new
// result.
func (sc *scope) defineNew(spec variable.Spec, step int, by string) error {
	return sc.store(spec, step, by, nil, false)
}

// store is define once the name is known not to be an action's, and what
// the variable was before (existed, of type oldType).
func (sc *scope) store(spec variable.Spec, step int, by string, oldType reflect.Type, existed bool) error {
	if p, ok := hostPackage(sc.opts, spec.Name); ok {
		return fmt.Errorf("%w: %q is the name of the package %s that snippets import, which a variable would hide; choose another name", variable.ErrInvalidName, spec.Name, p)
	}
	if _, err := sc.vars.Define(spec, step, by); err != nil {
		return err
	}
	t := spec.Type // Define keeps a given type
	if t == nil {
		_, t, _ = sc.vars.Value(spec.Name)
	}
	if spec.Secret || spec.Tainted {
		if sc.secrets == nil {
			sc.secrets = map[string]bool{}
		}
		sc.secrets[spec.Name] = true
	} else {
		delete(sc.secrets, spec.Name)
	}
	if !existed || oldType != t {
		if existed {
			sc.m.removeVar(spec.Name, oldType)
		}
		sc.m.addVar(spec.Name, t)
	}
	return nil
}

// Delete removes a variable and reports whether it existed.
func (st *State) Delete(name string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	_, t, ok := st.s.vars.Value(name)
	if !ok {
		return false
	}
	st.s.vars.Delete(name)
	delete(st.s.secrets, name)
	st.s.m.removeVar(name, t)
	return true
}

// Variable returns a copy of the named variable, history included.
func (st *State) Variable(name string) (variable.Variable, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.s.vars.Get(name)
}

// Variables returns copies of all variables in creation order.
func (st *State) Variables() []variable.Variable {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.s.vars.All()
}

// Specs returns the current variables as specs (name, value, type,
// description, secret, tainted and run-only flags): give them to RunOptions.Variables to start a
// run from this run's variables. Values are not copied: a pointer is
// shared by both runs.
func (st *State) Specs() []variable.Spec {
	st.mu.Lock()
	defer st.mu.Unlock()
	names := st.s.vars.Names()
	out := make([]variable.Spec, 0, len(names))
	for _, n := range names {
		v, _ := st.s.vars.Head(n)
		out = append(out, variable.Spec{Name: n, Value: v.Value, Type: v.Type, Description: v.Description, Secret: v.Secret, Tainted: v.Tainted, RunOnly: v.RunOnly})
	}
	return out
}

// Value returns the value of the named variable as a T, or an error naming
// the variable's actual type.
func Value[T any](st *State, name string) (T, error) {
	v, ok := st.Variable(name)
	if !ok {
		var zero T
		return zero, fmt.Errorf("%w: %q", ErrUnknownVariable, name)
	}
	return variable.As[T](v)
}

// Actions returns the State's current action set (without the built-ins).
func (st *State) Actions() *action.Set {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.s.actions
}

// AddActions adds actions to this State only (not to the agent, nor to its
// other runs); it fails, changing nothing, when a name is taken.
func (st *State) AddActions(actions ...*action.Action) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, a := range actions {
		if a == nil {
			continue
		}
		if r, ok := st.s.m.byName[a.Name()]; ok && r.builtin != nil {
			return &action.SpecError{Action: a.Name(), Err: errors.New("the name is taken by a built-in action; rename the action")}
		}
		if _, _, isVar := st.s.vars.Value(a.Name()); isVar {
			return &action.SpecError{Action: a.Name(), Err: fmt.Errorf("%q is the name of a variable, and snippets see both as Go identifiers; rename the action or the variable", a.Name())}
		}
	}
	set, err := st.s.actions.With(actions...)
	if err != nil {
		return err
	}
	st.s.actions = set
	names := st.s.vars.Names()
	for _, a := range actions {
		st.s.m.addAction(a, nil, names, st.s.typeOf)
	}
	return nil
}

// RemoveActions removes the named actions from this State; built-ins
// cannot be removed.
func (st *State) RemoveActions(names ...string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.s.actions = st.s.actions.Without(names...)
	for _, n := range names {
		if r, ok := st.s.m.byName[n]; ok && r.builtin == nil {
			st.s.m.removeAction(n)
		}
	}
}

// Steps returns the number of steps executed so far.
func (st *State) Steps() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.s.step
}

// hasSecrets reports whether any variable is secret.
func (st *State) hasSecrets() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.s.secrets) > 0
}

// attach sets the run's allow-list and result schema.
func (sc *scope) attach(names []string, resultSchema []byte, askable bool) {
	sc.askable = askable
	sc.attached = nil
	if len(names) > 0 {
		sc.attached = make(map[string]bool, len(names))
		for _, n := range names {
			sc.attached[n] = true
		}
	}
	sc.schemas.resultSchema = resultSchema
	if r, ok := sc.m.byName[action.TerminateName]; ok {
		r.tool.built, r.strictKnown = false, false
	}
}

// isAttached reports whether the named action may be called in the run.
// Built-ins are always attached.
func (sc *scope) isAttached(name string) bool {
	if name == action.AskUserName {
		return sc.askable
	}
	if sc.attached == nil || sc.attached[name] {
		return true
	}
	r, ok := sc.m.byName[name]
	return ok && r.builtin != nil
}

// attachedNames lists the actions the run may call.
func (sc *scope) attachedNames() []string {
	var names []string
	for _, r := range sc.m.rows {
		if sc.isAttached(r.act.Name()) {
			names = append(names, r.act.Name())
		}
	}
	return slices.Clip(names)
}

// startSpan starts a span on the agent's tracer.
func (st *State) startSpan(ctx context.Context, s Span) (context.Context, func(SpanEnd)) {
	return startSpan(ctx, st.opts.Tracer, s)
}

// log returns the agent's logger.
func (st *State) log() *slog.Logger { return st.opts.Logger }

// stepLog is where a State's steps are recorded and its history is read
// back from: one interface, whether or not the State has a run.
type stepLog interface {
	// step records step n, which ran step and gave res (for a run, in
	// its store, which may fail); callers hold the executor's lock, not the State's.
	step(ctx context.Context, n int, step Step, res StepResult) error
	// history folds the log into the instructions executed, in order.
	history(ctx context.Context) ([]run.Instruction, error)
}

// redaction caches the Redactor of a run's sensitive texts, with the count
// of changes of each sensitive variable it was built from.
type redaction struct {
	texts   map[string]string
	changes map[string]int
	r       *variable.Redactor
}

// freeName returns base, or base_2, base_3…, whichever names neither a
// variable nor an action.
func (sc *scope) freeName(base string) string {
	for {
		n := sc.vars.FreeName(base)
		if _, isAction := sc.m.byName[n]; !isAction {
			return n
		}
		base = n + "_result"
	}
}
