package agent

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/byref/byref/action"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// What replay code needs of a run, recorded in its log (run.GoAction,
// run.NamedType, VariableCreated.GoType): each action's Go identity on its
// first completed call, and each named type once, where it is first met.

// actionIdentities caches each action's Go identity (its symbol and type
// strings), which does not change: the runtime computes it once per
// process, not per run.
var actionIdentities sync.Map // *action.Action -> run.GoAction (without Types)

// identityOf returns a's Go identity without its types.
func identityOf(a *action.Action) run.GoAction {
	if id, ok := actionIdentities.Load(a); ok {
		return id.(run.GoAction)
	}
	id := run.GoAction{Name: a.Name(), Func: run.FuncSymbol(a.Func()), Type: run.GoType(reflect.TypeOf(a.Func()))}
	if shown := variable.TypeName(reflect.TypeOf(a.Func())); shown != id.Type {
		id.Shown = shown
	}
	for _, p := range a.Params() {
		id.Params = append(id.Params, p.Name)
		if a.ArgsStruct() != nil {
			id.Fields = append(id.Fields, run.ArgField{Field: p.Field, Type: run.GoType(p.Type)})
		}
		if p.DefaultJSON != "" && p.Default != nil {
			if id.Defaults == nil {
				id.Defaults = map[string]json.RawMessage{}
			}
			id.Defaults[p.Name] = json.RawMessage(p.DefaultJSON)
		}
	}
	actionIdentities.Store(a, id)
	return id
}

// action returns the Go identity of the named action for the
// first completed call of it in this State, with the named types the log
// has not described yet; nil for later calls and for built-ins.
func (ids *described) action(m *matrix, name string) *run.GoAction {
	r, ok := m.byName[name]
	if !ok || r.builtin != nil || ids.actions[name] {
		return nil
	}
	if ids.types == nil {
		ids.types, ids.actions = map[string]bool{}, map[string]bool{}
	}
	ids.actions[name] = true
	id := identityOf(r.act)
	types := []reflect.Type{reflect.TypeOf(r.act.Func())}
	for _, p := range r.act.Params() {
		types = append(types, p.Type)
	}
	id.Types = run.NamedTypes(ids.types, types...)
	return &id
}

// goTypeOf returns t in the log's qualified form when it differs from the
// type name the model sees, and the named types it is built from that the
// log has not described yet.
func (ids *described) goTypeOf(t reflect.Type, shown string) (string, []run.NamedType) {
	if t == nil {
		return "", nil
	}
	gt := goType(t)
	if gt == shown {
		gt = ""
	}
	if ids.types == nil {
		ids.types, ids.actions = map[string]bool{}, map[string]bool{}
	}
	if all, ok := namedIn(t); ok && allIn(all, ids.types) {
		// Every named type t is built from is described already (the
		// common case from a run's second variable of a type on): no walk.
		return gt, nil
	}
	return gt, run.NamedTypes(ids.types, t)
}

// namedTypes caches, per type, the names of all the named types
// run.NamedTypes describes for it when none is described yet.
var namedTypes sync.Map // reflect.Type -> []string

// namedIn returns the names of all the named types t is built from; ok is
// false when run.NamedTypes would cut the list short, so that it is not
// the whole set.
func namedIn(t reflect.Type) (names []string, ok bool) {
	if v, found := namedTypes.Load(t); found {
		names = v.([]string)
	} else {
		for _, nt := range run.NamedTypes(map[string]bool{}, t) {
			names = append(names, nt.Name)
		}
		namedTypes.Store(t, names)
	}
	return names, len(names) < maxNamedTypes
}

// maxNamedTypes is the most run.NamedTypes returns from one call.
const maxNamedTypes = 64

func allIn(names []string, set map[string]bool) bool {
	for _, n := range names {
		if !set[n] {
			return false
		}
	}
	return true
}

// goTypes caches run.GoType: a variable's type is written on every event
// that records it.
var goTypes sync.Map // reflect.Type -> string

func goType(t reflect.Type) string {
	if s, ok := goTypes.Load(t); ok {
		return s.(string)
	}
	s := run.GoType(t)
	goTypes.Store(t, s)
	return s
}

// snippet returns the Go described of the actions a snippet's
// code names (as a word) that the log does not hold yet: a snippet calls
// actions as Go functions, and its replay calls them too.
func (ids *described) snippet(m *matrix, code string) []run.GoAction {
	var names []string
	for name, r := range m.byName {
		if r.builtin == nil && !ids.actions[name] && namesWord(code, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var out []run.GoAction
	for _, name := range names {
		if id := ids.action(m, name); id != nil {
			out = append(out, *id)
		}
	}
	return out
}

// namesWord reports whether code holds name as a whole identifier.
func namesWord(code, name string) bool {
	for i := 0; ; {
		j := strings.Index(code[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		if (j == 0 || !identByte(code[j-1])) && (end == len(code) || !identByte(code[end])) {
			return true
		}
		i = j + 1
	}
}

func identByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// seed marks the actions and named types a restored run's log
// describes already, so that they are not recorded again.
func (ids *described) seed(events []run.Event) {
	if ids.types == nil {
		ids.types, ids.actions = map[string]bool{}, map[string]bool{}
	}
	action := func(id run.GoAction) {
		ids.actions[id.Name] = true
		for _, nt := range id.Types {
			ids.types[nt.Name] = true
		}
	}
	for _, e := range events {
		switch p := e.Payload.(type) {
		case run.ToolCallCompleted:
			if p.Action != nil {
				action(*p.Action)
			}
		case run.SnippetExecuted:
			for _, id := range p.Actions {
				action(id)
			}
		case run.VariableCreated:
			for _, nt := range p.Types {
				ids.types[nt.Name] = true
			}
		case run.VariableModified:
			for _, nt := range p.Types {
				ids.types[nt.Name] = true
			}
		}
	}
}
