package eval

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// defaultMinCopy is the size of JSON from which a value copied into an
// argument counts, when the expectation sets none.
const defaultMinCopy = 16

// copied is one argument that carries a variable's value.
type copied struct {
	step           int
	action, param  string
	variable, size string
}

// checkNoCopies finds the raw arguments that equal, as JSON, the value a
// variable of a compatible type held when the call was scheduled: the
// model copied data it could have passed by reference. Secret and tainted
// variables have no value in the log; NoSecrets covers them.
func checkNoCopies(k *checker, e Expectation) string {
	min := e.MinSize
	if min <= 0 {
		min = defaultMinCopy
	}
	found := findCopies(k.t.events, min, func(action, param string) reflect.Type {
		if k.set.Agent.Actions == nil {
			return nil
		}
		a, ok := k.set.Agent.Actions.Get(action)
		if !ok {
			return nil
		}
		if i := a.ParamIndex(param); i >= 0 {
			return a.Param(i).Type
		}
		return nil
	})
	if len(found) == 0 {
		return ""
	}
	var out []string
	for _, c := range found {
		out = append(out, fmt.Sprintf("step %d: %s.%s got the value of %s (%s of JSON) instead of <<var:%s>>", c.step, c.action, c.param, c.variable, c.size, c.variable))
	}
	return strings.Join(out, "; ")
}

// findCopies walks a log; paramType returns a parameter's Go type, or nil
// when it is not known (any variable then counts).
func findCopies(events []run.Event, min int, paramType func(action, param string) reflect.Type) []copied {
	type value struct{ typ, json string }
	vars := map[string]value{}
	var order []string
	at := map[string]map[string]value{} // call ID -> the variables when it was scheduled
	actions := map[string]string{}
	steps := map[string]int{}
	set := func(v run.VariableInfo, raw json.RawMessage) {
		if _, ok := vars[v.Name]; !ok {
			order = append(order, v.Name)
		}
		if len(raw) == 0 {
			delete(vars, v.Name)
			return
		}
		vars[v.Name] = value{v.Type, canonical(raw)}
	}
	var out []copied
	for _, e := range events {
		switch p := e.Payload.(type) {
		case run.VariableCreated:
			set(p.Variable, p.Value)
		case run.VariableModified:
			set(p.Variable, p.Value)
		case run.ToolCallScheduled:
			snap := make(map[string]value, len(vars))
			for n, v := range vars {
				snap[n] = v
			}
			at[p.Call.ID], actions[p.Call.ID], steps[p.Call.ID] = snap, p.Call.Name, p.Step
		case run.ToolCallCompleted:
			if p.Resolution == nil {
				continue
			}
			snap := at[p.CallID]
			for _, a := range p.Resolution.Args {
				if a.Ref != "" || a.Default || len(a.Raw) < min {
					continue
				}
				raw := canonical(a.Raw)
				if len(raw) < min {
					continue
				}
				pt := paramType(actions[p.CallID], a.Param)
				for _, name := range order {
					v, ok := snap[name]
					if !ok || v.json != raw {
						continue
					}
					if pt != nil && pt.Kind() != reflect.Interface && variable.TypeName(pt) != v.typ {
						continue
					}
					out = append(out, copied{step: steps[p.CallID], action: actions[p.CallID], param: a.Param, variable: name, size: fmt.Sprintf("%d bytes", len(raw))})
					break
				}
			}
		}
	}
	return out
}
