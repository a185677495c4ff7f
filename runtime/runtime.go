package runtime

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/variable"
)

// Defaults of Options.
const (
	DefaultCallTimeout = time.Minute
	DefaultMaxOutput   = 16 << 10
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
	// MaxOutput bounds what one call may write to each of its stdout and
	// stderr, in bytes; the rest is dropped with a note. Zero means
	// DefaultMaxOutput.
	MaxOutput int
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
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = DefaultMaxOutput
	}
	actions := opts.Actions
	if actions == nil {
		actions = &action.Set{}
	}
	rt := &Runtime{opts: opts, m: newMatrix()}
	rt.vars.PreviewLimit = opts.PreviewLimit
	for _, spec := range opts.Variables {
		if _, err := rt.vars.Define(spec, variable.HostStep, "host"); err != nil {
			return nil, err
		}
		_, t, _ := rt.vars.Value(spec.Name)
		rt.m.removeVar(spec.Name)
		rt.m.addVar(spec.Name, t)
	}
	if _, ok := actions.Get(action.TerminateName); ok {
		return nil, &action.SpecError{Action: action.TerminateName, Err: errors.New("the name is taken by the built-in terminate action; rename the action")}
	}
	rt.m.addAction(action.Terminate(), true, rt.vars.Names(), rt.typeOf)
	rt.actions = actions
	for _, a := range actions.All() {
		rt.m.addAction(a, false, rt.vars.Names(), rt.typeOf)
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
	_, oldType, existed := rt.vars.Value(spec.Name)
	if _, err := rt.vars.Define(spec, step, by); err != nil {
		return err
	}
	_, t, _ := rt.vars.Value(spec.Name)
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
		if a != nil && a.Name() == action.TerminateName {
			return &action.SpecError{Action: a.Name(), Err: errors.New("the name is taken by the built-in terminate action")}
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
