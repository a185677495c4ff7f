package agui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/byref/byref/run"
	"github.com/byref/byref/schema"
	vars "github.com/byref/byref/variable"
)

// stateKey is a key of the state a client may send: the variable it
// becomes, of the field's Go type, and the validator of its JSON schema.
type stateKey struct {
	t reflect.Type
	v *schema.Validator
}

// stateKeys reads an agent's declared state type (Options.State): a
// struct whose JSON fields are the keys a client may send.
func stateKeys(agent string, t reflect.Type) (map[string]stateKey, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("agui: Options.State[%q] is %s; declare a struct type whose JSON fields are the state keys a client may send", agent, t)
	}
	keys := map[string]stateKey{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name == "variables" {
			return nil, fmt.Errorf("agui: Options.State[%q]: field %s takes the key \"variables\", which is the server's own state; rename it", agent, f.Name)
		}
		if err := vars.ValidName(name); err != nil {
			return nil, fmt.Errorf("agui: Options.State[%q]: field %s's key %q cannot name a variable: %w", agent, f.Name, name, err)
		}
		raw, err := schema.For(f.Type)
		if err != nil {
			return nil, fmt.Errorf("agui: Options.State[%q]: field %s: %w", agent, f.Name, err)
		}
		v, err := schema.Compile(raw)
		if err != nil {
			return nil, fmt.Errorf("agui: Options.State[%q]: field %s: %w", agent, f.Name, err)
		}
		keys[name] = stateKey{t: f.Type, v: v}
	}
	return keys, nil
}

// stateVariables returns the variables the state of a RunAgentInput sets:
// one per key the agent declares, typed by its field. The key "variables"
// is the state this server sent (STATE_SNAPSHOT), which clients send back:
// it is read from the session, not from the client, and ignored here. Any
// other key, or a value its schema refuses, is an error that names the
// keys the agent declares.
func stateVariables(agent string, declared map[string]stateKey, state json.RawMessage) ([]vars.Spec, error) {
	state = bytes.TrimSpace(state)
	if len(state) == 0 || string(state) == "null" {
		return nil, nil
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(state, &keys); err != nil {
		return nil, fmt.Errorf("state is not a JSON object: %v", err)
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		if k != "variables" {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	var specs []vars.Spec
	for _, k := range names {
		key, ok := declared[k]
		if !ok {
			return nil, fmt.Errorf("state key %q is not one agent %s declares (%s); send only those, or declare it in agui.Options.State", k, agent, declaredKeys(declared))
		}
		if err := key.v.Validate(keys[k]); err != nil {
			return nil, fmt.Errorf("state key %q: %w", k, err)
		}
		ptr := reflect.New(key.t)
		if err := json.Unmarshal(keys[k], ptr.Interface()); err != nil {
			return nil, fmt.Errorf("state key %q is not a %s: %v", k, vars.TypeName(key.t), err)
		}
		specs = append(specs, vars.Spec{Name: k, Value: ptr.Elem().Interface(), Type: key.t, Description: "set by the client's state"})
	}
	return specs, nil
}

// declaredKeys lists declared keys with their types, for an error.
func declaredKeys(declared map[string]stateKey) string {
	if len(declared) == 0 {
		return "none"
	}
	var out []string
	for k, key := range declared {
		out = append(out, k+" ("+vars.TypeName(key.t)+")")
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// starting reports an event that a run's log holds before the run begins:
// its creation and its starting variables (the session's among them). The
// STATE_SNAPSHOT that opens a stream comes after them, so that it is the
// thread's state.
func starting(e run.Event) bool {
	switch d := e.Payload.(type) {
	case run.RunCreated:
		return true
	case run.VariableCreated:
		return d.Step == 0
	}
	return false
}
