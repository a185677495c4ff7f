// Package toolschema turns a tool described by a JSON Schema (an MCP
// server's tool, a front end's AG-UI tool) into the function and
// parameters of a byref action: one parameter per property of the input
// object when each can be one, else one parameter holding the whole
// arguments object.
package toolschema

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"reflect"
	"slices"
	"strings"

	"github.com/byref/byref/action"
)

// ArgsParam is the single parameter of a tool whose properties cannot each
// be a parameter.
const ArgsParam = "arguments"

var (
	ctxType    = reflect.TypeFor[context.Context]()
	rawType    = reflect.TypeFor[json.RawMessage]()
	stringType = reflect.TypeFor[string]()
	anyType    = reflect.TypeFor[any]()
	errType    = reflect.TypeFor[error]()
)

// Func returns the function of an action (for action.Spec.Func) whose
// parameters, also returned (for action.Spec.Params), are the input
// schema's properties, or ArgsParam: each of type any, so that it takes a
// raw value or a reference to any variable, whose value the tool gets as
// JSON. A call gives call the arguments
// object: a map of the properties given (a required, nullable one given
// as null), or the whole object. The action returns what call returns: as
// json.RawMessage when structured, else as a string.
func Func(input map[string]any, structured bool, call func(ctx context.Context, args any) ([]byte, error)) (any, []action.Param) {
	params, required, perProperty := splitProperties(input)
	if !perProperty {
		whole, _ := json.Marshal(input)
		params = []action.Param{{Name: ArgsParam, Description: "The arguments object of the tool.", Schema: whole}}
	}
	resultType := stringType
	if structured {
		resultType = rawType
	}
	// Parameters of type any: a raw JSON value or any variable's value (a
	// reference), given to the tool as its JSON.
	in := []reflect.Type{ctxType}
	for range params {
		in = append(in, anyType)
	}
	ft := reflect.FuncOf(in, []reflect.Type{resultType, errType}, false)
	fn := reflect.MakeFunc(ft, func(args []reflect.Value) []reflect.Value {
		ctx := args[0].Interface().(context.Context)
		arguments := map[string]json.RawMessage{}
		for i, p := range params {
			var raw json.RawMessage
			if v := args[i+1].Interface(); v != nil {
				b, err := json.Marshal(v)
				if err != nil {
					return []reflect.Value{reflect.Zero(ft.Out(0)), reflect.ValueOf(&err).Elem()}
				}
				raw = b
			}
			if len(raw) == 0 || string(raw) == "null" {
				if required[p.Name] {
					arguments[p.Name] = json.RawMessage("null") // required, but nullable
				}
				continue
			}
			arguments[p.Name] = raw
		}
		var callArgs any = arguments
		if !perProperty {
			callArgs = map[string]any{}
			if raw, ok := arguments[ArgsParam]; ok {
				callArgs = raw
			}
		}
		result, err := call(ctx, callArgs)
		var rv reflect.Value
		if structured {
			rv = reflect.ValueOf(json.RawMessage(result))
		} else {
			rv = reflect.ValueOf(string(result))
		}
		ev := reflect.Zero(errType)
		if err != nil {
			ev = reflect.ValueOf(&err).Elem()
		}
		return []reflect.Value{rv, ev}
	})
	return fn.Interface(), params
}

// splitProperties returns one parameter per property of an object schema
// and the required properties, or false when the schema's properties cannot
// be parameters. A parameter is optional when its property is not required
// or its schema admits null.
func splitProperties(s map[string]any) ([]action.Param, map[string]bool, bool) {
	if t, ok := s["type"]; ok && t != "object" {
		return nil, nil, false
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf", "not", "if", "patternProperties"} {
		if _, ok := s[k]; ok {
			return nil, nil, false
		}
	}
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if r, ok := r.(string); ok {
				required[r] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		if !token.IsIdentifier(n) || n == "return" {
			return nil, nil, false
		}
		names = append(names, n)
	}
	for r := range required {
		if _, ok := props[r]; !ok {
			return nil, nil, false // required but not described
		}
	}
	// Required first, each group in name order: a stable signature.
	slices.SortFunc(names, func(a, b string) int {
		if required[a] != required[b] {
			if required[a] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	defs := map[string]any{}
	for _, k := range []string{"$defs", "definitions"} {
		if d, ok := s[k].(map[string]any); ok {
			for n, v := range d {
				defs["#/"+k+"/"+n] = v
			}
		}
	}
	params := make([]action.Param, 0, len(names))
	for _, n := range names {
		ps, ok := inline(props[n], defs, 0)
		if !ok {
			return nil, nil, false
		}
		obj, isObj := ps.(map[string]any)
		if !isObj {
			obj = map[string]any{} // true: any value
			if b, ok := ps.(bool); ok && !b {
				return nil, nil, false
			}
		}
		desc, _ := obj["description"].(string)
		raw, err := json.Marshal(obj)
		if err != nil {
			return nil, nil, false
		}
		params = append(params, action.Param{Name: n, Description: desc, Optional: !required[n] || nullable(obj), Schema: raw})
	}
	return params, required, true
}

// nullable reports whether a schema plainly admits null: type "null" (or a
// list holding it), or an anyOf/oneOf branch that does.
func nullable(s map[string]any) bool {
	switch t := s["type"].(type) {
	case string:
		return t == "null"
	case []any:
		return slices.Contains(t, any("null"))
	}
	if _, typed := s["type"]; !typed && len(s) == 0 {
		return true // any value
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[k].([]any); ok {
			for _, a := range alts {
				if m, ok := a.(map[string]any); ok && nullable(m) {
					return true
				}
			}
		}
	}
	return false
}

// maxInline bounds the inlining of $refs (a recursive schema is cut there).
const maxInline = 8

// inline returns s with local $refs (#/$defs/X, #/definitions/X) replaced
// by their definitions; false when a $ref is not local.
func inline(s any, defs map[string]any, depth int) (any, bool) {
	switch v := s.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		if ref, ok := v["$ref"].(string); ok {
			def, found := defs[ref]
			if !found {
				return nil, false
			}
			if depth >= maxInline {
				return map[string]any{}, true // deeper levels of a recursive schema: any value
			}
			d, ok := inline(def, defs, depth+1)
			if !ok {
				return nil, false
			}
			if dm, isMap := d.(map[string]any); isMap {
				for k, x := range dm {
					out[k] = x
				}
			}
		}
		for k, x := range v {
			if k == "$ref" {
				continue
			}
			y, ok := inline(x, defs, depth)
			if !ok {
				return nil, false
			}
			out[k] = y
		}
		return out, true
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			y, ok := inline(x, defs, depth)
			if !ok {
				return nil, false
			}
			out[i] = y
		}
		return out, true
	}
	return s, true
}

// Object turns a tool's input schema as an SDK gives it (a map, or
// anything that marshals to a JSON object; nil for none) into a map.
func Object(v any) (map[string]any, error) {
	if v == nil {
		return map[string]any{"type": "object"}, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, errors.New("the schema is not a JSON object")
	}
	return m, nil
}

// Client returns an action whose execution belongs to the run's client
// (an AG-UI front end's tool): its arguments are validated against the
// tool's parameters (a JSON Schema; empty for any object) and may be
// references, as any action's; a call awaits the client's answer
// (action.InputRequired with Client set, its message from message, given
// the arguments as JSON), and the answer is the call's result: a JSON
// string as its text, other JSON as written.
func Client(name, description string, parameters json.RawMessage, message func(args []byte) string) (*action.Action, error) {
	var schema any
	if len(parameters) > 0 {
		if err := json.Unmarshal(parameters, &schema); err != nil {
			return nil, fmt.Errorf("tool %q: parameters is not JSON: %v", name, err)
		}
	}
	input, err := Object(schema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: parameters: %v", name, err)
	}
	fn, params := Func(input, false, func(ctx context.Context, args any) ([]byte, error) {
		if in, ok := action.Input(ctx); ok {
			var s string
			if json.Unmarshal(in, &s) == nil {
				return []byte(s), nil
			}
			return in, nil
		}
		b, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		return nil, &action.InputRequired{Message: message(b), Client: true}
	})
	if description == "" {
		description = "A tool of the user's application."
	}
	a, err := action.New(action.Spec{Name: name, Description: description, Func: fn, Params: params, Result: "what the user's application answered"})
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", name, err)
	}
	return a, nil
}
