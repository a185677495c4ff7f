package runtime

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"slices"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// DefaultSessionCache is the default of Options.SessionCache.
const DefaultSessionCache = 1024

// Session returns the session id as the fold of its runs' logs in the
// agent's store (run.LoadSession): its runs, messages and the variables
// they left. A run started with RunOptions.Session set to id begins with
// those variables (see "Sessions" in the package documentation).
func (rt *Runtime) Session(ctx context.Context, id run.SessionID) (run.Session, error) {
	return run.LoadSession(ctx, rt.store, id, "")
}

// HistoryOf returns a session's messages as the history of its next run
// (RunOptions.History): the users' messages and the runs' results, in
// order.
func HistoryOf(s run.Session) []llm.Message {
	out := make([]llm.Message, 0, len(s.Messages))
	for _, m := range s.Messages {
		if m.Role == "user" {
			out = append(out, llm.UserMessage(m.Text))
		} else {
			out = append(out, llm.Message{Role: llm.RoleAssistant, Text: m.Text})
		}
	}
	return out
}

// ForgetSession lets go of the values this agent holds for session id
// (the live values its ended runs left): a later run of the session gets
// back what the log and Options.Rebind can give. Runs still going keep
// theirs.
func (rt *Runtime) ForgetSession(id run.SessionID) {
	if rt.held != nil {
		rt.held.Remove(id)
	}
}

// sessionStart is what a new run of a session starts with: the variables
// its earlier runs left that came back, and a note for each that did not.
type sessionStart struct {
	specs []variable.Spec
	gone  []string // "name (type): why", for the system prompt
}

// startSession folds the session of a run being created and brings back
// the variables its earlier runs left: from the run or the held session
// that holds them in this process, from the log's JSON values, or from
// Options.Rebind. Variables the run is given (RunOptions.Variables) are
// the run's own, and so are those of the agent (Options.Variables) when
// nothing else brings them back.
func (rt *Runtime) startSession(ctx context.Context, opts RunOptions) (sessionStart, error) {
	if opts.Session == "" || opts.NoSessionVariables || opts.Parent != nil {
		return sessionStart{}, nil
	}
	sess, err := run.LoadSession(ctx, rt.store, opts.Session, opts.ID)
	if err != nil {
		return sessionStart{}, err
	}
	var out sessionStart
	for _, v := range sess.Variables {
		if slices.ContainsFunc(opts.Variables, func(s variable.Spec) bool { return s.Name == v.Name }) ||
			v.Name == inputVariable && len(opts.Input) > 0 {
			continue // the run's own
		}
		spec, why := rt.bringBack(ctx, opts.Session, v)
		if why == "" {
			out.specs = append(out.specs, spec)
			continue
		}
		if _, ok := rt.proto.s.vars.Head(v.Name); ok {
			continue // the agent's own starting variable stands in
		}
		rt.log().Warn("a session variable did not come back; set runtime.Options.Rebind to re-bind live values by name and type",
			"session", opts.Session, "variable", v.Name, "type", v.Type, "why", why)
		out.gone = append(out.gone, v.Name+" ("+v.Type+"): "+why)
	}
	return out, nil
}

// bringBack returns a session variable as a spec, or why it cannot come
// back.
func (rt *Runtime) bringBack(ctx context.Context, session run.SessionID, v run.SessionVariable) (variable.Spec, string) {
	if h, ok := rt.heldVariable(session, v); ok {
		return variable.Spec{Name: v.Name, Value: h.Value, Type: h.Type, Description: h.Description, Secret: h.Secret, Tainted: h.Tainted}, ""
	}
	t, known := rt.typeNamed(v.Type)
	if v.Value != nil && known {
		ptr := reflect.New(t)
		if err := json.Unmarshal(v.Value, ptr.Interface()); err == nil {
			return variable.Spec{Name: v.Name, Value: ptr.Elem().Interface(), Type: t, Secret: v.Secret, Tainted: v.Tainted}, ""
		}
	}
	if rt.opts.Rebind != nil {
		if val, ok := rt.opts.Rebind(ctx, v.Name, v.Type); ok {
			got := reflect.TypeOf(val)
			switch {
			case known && got != nil && got.AssignableTo(t):
				return variable.Spec{Name: v.Name, Value: val, Type: t, Secret: v.Secret, Tainted: v.Tainted}, ""
			case got != nil && variable.TypeName(got) == v.Type:
				return variable.Spec{Name: v.Name, Value: val, Secret: v.Secret, Tainted: v.Tainted}, ""
			}
			rt.log().Warn("runtime.Options.Rebind returned a value of another type", "session", session, "variable", v.Name, "want", v.Type, "got", variable.TypeName(got))
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

// withKnownTypes returns ro with the types the agent knows (typeNamed)
// before its own (which win over them), so that a restored run's JSON
// values get their types back as a session's do.
func (rt *Runtime) withKnownTypes(ro RestoreOptions) RestoreOptions {
	rt.typeNamed("")
	types := make([]reflect.Type, 0, len(rt.types)+len(ro.Types))
	for _, t := range rt.types {
		types = append(types, t)
	}
	ro.Types = append(types, ro.Types...)
	return ro
}

// typeNamed returns the Go type a variable's type name (variable.TypeName)
// names, among those the agent knows: the types Restore knows without
// being told, Options.Types, the types of its actions' parameters and
// results, and of its starting variables.
func (rt *Runtime) typeNamed(name string) (reflect.Type, bool) {
	rt.typesOnce.Do(func() {
		rt.types = map[string]reflect.Type{}
		add := func(t reflect.Type) {
			if t != nil {
				rt.types[variable.TypeName(t)] = t
			}
		}
		for _, t := range builtinTypes {
			add(t)
		}
		for _, a := range rt.actions.All() {
			for _, p := range a.Params() {
				add(p.Type)
			}
			add(a.Result())
		}
		for _, s := range rt.opts.Variables {
			if s.Type != nil {
				add(s.Type)
			} else {
				add(reflect.TypeOf(s.Value))
			}
		}
		for _, t := range rt.opts.Types {
			add(t)
		}
	})
	t, ok := rt.types[name]
	return t, ok
}

// heldVariable is a variable a session's run left in this process
// (Runtime.held), and the run.
type heldVariable struct {
	run run.ID
	v   variable.Variable
}

// keep holds the variables of a run whose turn ended under its session,
// but its run-only ones.
func (rt *Runtime) keep(h *Handle) {
	if rt.held == nil || h.opts.Session == "" || h.opts.Parent != nil {
		return
	}
	vars := h.st.Variables()
	rt.held.Update(h.opts.Session, func(old map[string]heldVariable, _ bool) map[string]heldVariable {
		m := maps.Clone(old)
		if m == nil {
			m = make(map[string]heldVariable, len(vars))
		}
		for _, v := range vars {
			if !v.RunOnly {
				m[v.Name] = heldVariable{run: h.id, v: v}
			}
		}
		return m
	})
}

// heldVariable returns the value this process holds of a session
// variable as the run that last set it left it: from that run while its
// turn goes on (it is untracked after keep), else from the held session.
func (rt *Runtime) heldVariable(session run.SessionID, sv run.SessionVariable) (variable.Variable, bool) {
	if h, ok := rt.live(sv.Run); ok {
		return h.st.Variable(sv.Name)
	}
	if rt.held == nil {
		return variable.Variable{}, false
	}
	m, _ := rt.held.Get(session)
	hv, ok := m[sv.Name]
	return hv.v, ok && hv.run == sv.Run
}
