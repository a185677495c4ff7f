package runtime

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
// run owns its State ([Handle.State]); [Runtime.NewState] makes one for
// executing steps without a model. Nothing in a State is shared with
// another run, except the values of variables given to both (a pointer
// given as a starting variable to two runs is the same pointer).
//
// A State is safe for concurrent use. Steps execute one at a time:
// concurrent Execute calls are serialised. Variables may be read and set
// while a step runs; a call's result is committed after the call returns.
type State struct {
	opts *Options // the agent's, never modified
	// nonStrict is the agent's (Runtime.nonStrict): the actions whose
	// going out without strict mode was logged.
	nonStrict *sync.Map

	execMu sync.Mutex // serialises steps
	// steps runs the steps on their goroutine and watches their calls
	// (watchdog.go); made by the first step, guarded by execMu.
	steps *stepper

	mu      sync.Mutex // guards everything below
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
	// resultSchema is the run's result schema, for terminate.
	resultSchema []byte
	// askable reports that the run can ask its user (ask_user).
	askable bool

	// index scores actions for relevance selection; indexOf is the action
	// set it was built from.
	index   *lexicalIndex
	indexOf *action.Set

	schemaBuilds int // counts tool schema builds, for tests

	// change1 is room for the first variable a step's one call changes,
	// allocated with the step's result (oneCall); guarded by mu.
	change1 []VariableChange
	// described and describedActions hold the named types and the actions
	// whose Go identity the run's log holds already (identity.go).
	described, describedActions map[string]bool
}

// clone returns a copy of a State that has executed nothing: the same
// actions and variables, its own matrix and history.
func (st *State) clone() *State {
	st.mu.Lock()
	defer st.mu.Unlock()
	c := &State{opts: st.opts, nonStrict: st.nonStrict, actions: st.actions, m: st.m.clone(), vars: st.vars.Clone(), step: st.step}
	if st.secrets != nil {
		c.secrets = maps.Clone(st.secrets)
	}
	return c
}

// typeOf returns a variable's type; callers hold mu.
func (st *State) typeOf(name string) reflect.Type {
	_, t, _ := st.vars.Value(name)
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
	return st.define(spec, st.step, "host")
}

// define creates or replaces a variable and keeps the matrix up to date;
// callers hold mu.
func (st *State) define(spec variable.Spec, step int, by string) error {
	if _, isAction := st.m.byName[spec.Name]; isAction {
		return fmt.Errorf("%w: %q is the name of an action, and snippets see both as Go identifiers; choose another name", variable.ErrInvalidName, spec.Name)
	}
	_, oldType, existed := st.vars.Value(spec.Name)
	return st.store(spec, step, by, oldType, existed)
}

// defineNew creates a variable whose name freeName returned (neither a
// variable nor an action) and whose spec has its Type: a call's new
// result; callers hold mu.
func (st *State) defineNew(spec variable.Spec, step int, by string) error {
	return st.store(spec, step, by, nil, false)
}

// store is define once the name is known not to be an action's, and what
// the variable was before (existed, of type oldType); callers hold mu.
func (st *State) store(spec variable.Spec, step int, by string, oldType reflect.Type, existed bool) error {
	if p, ok := hostPackage(st.opts, spec.Name); ok {
		return fmt.Errorf("%w: %q is the name of the package %s that snippets import, which a variable would hide; choose another name", variable.ErrInvalidName, spec.Name, p)
	}
	if _, err := st.vars.Define(spec, step, by); err != nil {
		return err
	}
	t := spec.Type // Define keeps a given type
	if t == nil {
		_, t, _ = st.vars.Value(spec.Name)
	}
	if spec.Secret || spec.Tainted {
		if st.secrets == nil {
			st.secrets = map[string]bool{}
		}
		st.secrets[spec.Name] = true
	} else {
		delete(st.secrets, spec.Name)
	}
	if !existed || oldType != t {
		if existed {
			st.m.removeVar(spec.Name, oldType)
		}
		st.m.addVar(spec.Name, t)
	}
	return nil
}

// Delete removes a variable and reports whether it existed.
func (st *State) Delete(name string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	_, t, ok := st.vars.Value(name)
	if !ok {
		return false
	}
	st.vars.Delete(name)
	delete(st.secrets, name)
	st.m.removeVar(name, t)
	return true
}

// Variable returns a copy of the named variable, history included.
func (st *State) Variable(name string) (variable.Variable, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.vars.Get(name)
}

// Variables returns copies of all variables in creation order.
func (st *State) Variables() []variable.Variable {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.vars.All()
}

// Specs returns the current variables as specs (name, value, type,
// description, secret, tainted and run-only flags): give them to RunOptions.Variables to start a
// run from this run's variables. Values are not copied: a pointer is
// shared by both runs.
func (st *State) Specs() []variable.Spec {
	st.mu.Lock()
	defer st.mu.Unlock()
	names := st.vars.Names()
	out := make([]variable.Spec, 0, len(names))
	for _, n := range names {
		v, _ := st.vars.Head(n)
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
	return st.actions
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
		if r, ok := st.m.byName[a.Name()]; ok && r.builtin != nil {
			return &action.SpecError{Action: a.Name(), Err: errors.New("the name is taken by a built-in action; rename the action")}
		}
		if _, _, isVar := st.vars.Value(a.Name()); isVar {
			return &action.SpecError{Action: a.Name(), Err: fmt.Errorf("%q is the name of a variable, and snippets see both as Go identifiers; rename the action or the variable", a.Name())}
		}
	}
	set, err := st.actions.With(actions...)
	if err != nil {
		return err
	}
	st.actions = set
	names := st.vars.Names()
	for _, a := range actions {
		st.m.addAction(a, nil, names, st.typeOf)
	}
	return nil
}

// RemoveActions removes the named actions from this State; built-ins
// cannot be removed.
func (st *State) RemoveActions(names ...string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.actions = st.actions.Without(names...)
	for _, n := range names {
		if r, ok := st.m.byName[n]; ok && r.builtin == nil {
			st.m.removeAction(n)
		}
	}
}

// Steps returns the number of steps executed so far.
func (st *State) Steps() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.step
}

// hasSecrets reports whether any variable is secret.
func (st *State) hasSecrets() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.secrets) > 0
}

// attach sets the run's allow-list and result schema; callers hold mu.
func (st *State) attach(names []string, resultSchema []byte, askable bool) {
	st.askable = askable
	st.attached = nil
	if len(names) > 0 {
		st.attached = make(map[string]bool, len(names))
		for _, n := range names {
			st.attached[n] = true
		}
	}
	st.resultSchema = resultSchema
	if r, ok := st.m.byName[action.TerminateName]; ok {
		r.tool.built, r.strictKnown = false, false
	}
}

// isAttached reports whether the named action may be called in the run;
// callers hold mu. Built-ins are always attached.
func (st *State) isAttached(name string) bool {
	if name == action.AskUserName {
		return st.askable
	}
	if st.attached == nil || st.attached[name] {
		return true
	}
	r, ok := st.m.byName[name]
	return ok && r.builtin != nil
}

// attachedNames lists the actions the run may call; callers hold mu.
func (st *State) attachedNames() []string {
	var names []string
	for _, r := range st.m.rows {
		if st.isAttached(r.act.Name()) {
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
	// its store, which may fail); callers hold execMu, not mu.
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
// variable nor an action; callers hold mu.
func (st *State) freeName(base string) string {
	for {
		n := st.vars.FreeName(base)
		if _, isAction := st.m.byName[n]; !isAction {
			return n
		}
		base = n + "_result"
	}
}
