package agent

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"sync"

	"github.com/byref/byref/action"
	"github.com/byref/byref/internal/lru"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// DefaultSessionCache is the default of Options.SessionCache.
const DefaultSessionCache = 1024

// sessions is what an agent keeps to start the runs of sessions with the
// variables their earlier runs left: the values this process holds, and
// the Go types JSON values are read back into. It is safe for concurrent
// use.
type sessions struct {
	opts    *Options
	actions *action.Set
	log     *slog.Logger
	// held are the variables the runs of each session left in this
	// process when their turn ended, by name, for the most recently used
	// Options.SessionCache sessions (nil when it is negative); a map in
	// it is never changed, keep puts a new one.
	held *lru.Cache[run.SessionID, map[string]heldVariable]
	// types are the Go types the agent knows, by variable.TypeName,
	// built once (knownTypes).
	typesOnce sync.Once
	types     map[string]reflect.Type
}

// heldVariable is a variable a session's run left in this process, and
// the run.
type heldVariable struct {
	run run.ID
	v   variable.Variable
}

func newSessions(opts *Options, actions *action.Set) *sessions {
	ss := &sessions{opts: opts, actions: actions, log: opts.Logger}
	if opts.SessionCache > 0 {
		ss.held = lru.New[run.SessionID, map[string]heldVariable](opts.SessionCache)
	}
	return ss
}

// builtinTypes are the types a variable's JSON value is read back into
// without being named: by Restore, and for a session's next run.
var builtinTypes = []reflect.Type{
	reflect.TypeFor[string](), reflect.TypeFor[bool](), reflect.TypeFor[int](), reflect.TypeFor[int64](),
	reflect.TypeFor[float64](), reflect.TypeFor[[]string](), reflect.TypeFor[[]int](), reflect.TypeFor[[]float64](),
	reflect.TypeFor[[]any](), reflect.TypeFor[map[string]any](), reflect.TypeFor[map[string]string](),
	reflect.TypeFor[any](), reflect.TypeFor[json.RawMessage](),
	reflect.TypeFor[run.Artifact](), reflect.TypeFor[*run.Artifact](), reflect.TypeFor[[]run.Artifact](),
}

// sessionStart is what a new run of a session starts with: the variables
// its earlier runs left that came back, and a note for each that did not.
type sessionStart struct {
	specs []variable.Spec
	gone  []string // "name (type): why", for the system prompt
}

// liveVariable returns a variable of a run whose turn goes on in this
// process, and whether there is one.
type liveVariable func(id run.ID, name string) (variable.Variable, bool)

// start folds the session of a run being created (opts) from store and
// brings back the variables its earlier runs left: from the run that set
// them while its turn goes on (live), from the held session, from the
// log's JSON value, or from Options.Rebind. The run's own variables (own
// names them) are not brought back, and the agent's (Options.Variables)
// stand in for one that does not come back.
func (ss *sessions) start(ctx context.Context, store run.Store, opts RunOptions, own []string, live liveVariable) (sessionStart, error) {
	if opts.Session == "" || opts.NoSessionVariables || opts.Parent != nil {
		return sessionStart{}, nil
	}
	sess, err := run.LoadSession(ctx, store, opts.Session, opts.ID)
	if err != nil {
		return sessionStart{}, err
	}
	var out sessionStart
	for _, v := range sess.Variables {
		if slices.Contains(own, v.Name) {
			continue
		}
		spec, why := ss.bringBack(ctx, opts.Session, v, live)
		if why == "" {
			out.specs = append(out.specs, spec)
			continue
		}
		if slices.ContainsFunc(ss.opts.Variables, func(s variable.Spec) bool { return s.Name == v.Name }) {
			continue // the agent's own starting variable stands in
		}
		ss.log.Warn("a session variable did not come back; set agent.Options.Rebind to re-bind live values by name and type",
			"session", opts.Session, "variable", v.Name, "type", v.Type, "why", why)
		out.gone = append(out.gone, v.Name+" ("+v.Type+"): "+why)
	}
	return out, nil
}

// bringBack returns a session variable as a spec, or why it cannot come
// back.
func (ss *sessions) bringBack(ctx context.Context, session run.SessionID, v run.SessionVariable, live liveVariable) (variable.Spec, string) {
	if h, ok := ss.heldVariable(session, v, live); ok {
		return variable.Spec{Name: v.Name, Value: h.Value, Type: h.Type, Description: h.Description, Secret: h.Secret, Tainted: h.Tainted}, ""
	}
	t, known := ss.typeNamed(v.Type)
	if v.Value != nil && known {
		ptr := reflect.New(t)
		if err := json.Unmarshal(v.Value, ptr.Interface()); err == nil {
			return variable.Spec{Name: v.Name, Value: ptr.Elem().Interface(), Type: t, Secret: v.Secret, Tainted: v.Tainted}, ""
		}
	}
	if ss.opts.Rebind != nil {
		if val, ok := ss.opts.Rebind(ctx, v.Name, v.Type); ok {
			got := reflect.TypeOf(val)
			switch {
			case known && got != nil && got.AssignableTo(t):
				return variable.Spec{Name: v.Name, Value: val, Type: t, Secret: v.Secret, Tainted: v.Tainted}, ""
			case got != nil && variable.TypeName(got) == v.Type:
				return variable.Spec{Name: v.Name, Value: val, Secret: v.Secret, Tainted: v.Tainted}, ""
			}
			ss.log.Warn("agent.Options.Rebind returned a value of another type", "session", session, "variable", v.Name, "want", v.Type, "got", variable.TypeName(got))
		}
	}
	switch {
	case v.Secret || v.Tainted:
		return variable.Spec{}, "a secret's value is never written down, and the process that held it let it go"
	case v.Value == nil:
		return variable.Spec{}, "a live value (or one too large to write down), and the process that held it let it go"
	}
	return variable.Spec{}, "its type is not one this agent can rebuild from JSON"
}

// knownTypes returns the Go types the agent knows (typeNamed), but the
// built-in ones.
func (ss *sessions) knownTypes() []reflect.Type {
	ss.typeNamed("")
	types := make([]reflect.Type, 0, len(ss.types))
	for _, t := range ss.types {
		types = append(types, t)
	}
	return types
}

// typeNamed returns the Go type a variable's type name (variable.TypeName)
// names, among those the agent knows: builtinTypes, the types of its
// actions' parameters and results and of its starting variables, and
// Options.Types.
func (ss *sessions) typeNamed(name string) (reflect.Type, bool) {
	ss.typesOnce.Do(func() {
		ss.types = map[string]reflect.Type{}
		add := func(t reflect.Type) {
			if t != nil {
				ss.types[variable.TypeName(t)] = t
			}
		}
		for _, t := range builtinTypes {
			add(t)
		}
		for _, a := range ss.actions.All() {
			for _, p := range a.Params() {
				add(p.Type)
			}
			add(a.Result())
		}
		for _, s := range ss.opts.Variables {
			if s.Type != nil {
				add(s.Type)
			} else {
				add(reflect.TypeOf(s.Value))
			}
		}
		for _, t := range ss.opts.Types {
			add(t)
		}
	})
	t, ok := ss.types[name]
	return t, ok
}

// keep holds the variables a run of session left when its turn ended,
// but its run-only ones.
func (ss *sessions) keep(session run.SessionID, id run.ID, vars []variable.Variable) {
	if ss.held == nil || session == "" {
		return
	}
	ss.held.Update(session, func(old map[string]heldVariable, _ bool) map[string]heldVariable {
		m := maps.Clone(old)
		if m == nil {
			m = make(map[string]heldVariable, len(vars))
		}
		for _, v := range vars {
			if !v.RunOnly {
				m[v.Name] = heldVariable{run: id, v: v}
			}
		}
		return m
	})
}

// heldVariable returns the value this process holds of a session
// variable as the run that last set it left it: from that run while its
// turn goes on (live; a run is untracked after keep), else from the held
// session.
func (ss *sessions) heldVariable(session run.SessionID, sv run.SessionVariable, live liveVariable) (variable.Variable, bool) {
	if v, ok := live(sv.Run, sv.Name); ok {
		return v, true
	}
	if ss.held == nil {
		return variable.Variable{}, false
	}
	m, _ := ss.held.Get(session)
	hv, ok := m[sv.Name]
	return hv.v, ok && hv.run == sv.Run
}

// forget drops a session's held variables.
func (ss *sessions) forget(id run.SessionID) {
	if ss.held != nil {
		ss.held.Remove(id)
	}
}
