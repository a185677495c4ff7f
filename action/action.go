package action

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"go/types"
	"reflect"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/byref/byref/schema"
)

// Spec defines an action. Only Name, Func and, when Func takes parameters,
// Params are required.
type Spec struct {
	// Name is what the model calls the action. It must be a Go identifier
	// (snippets call actions as functions) of at most 64 characters.
	Name string
	// Description tells the model what the action does.
	Description string
	// Func is the Go function. Its signature is
	//
	//	func([ctx context.Context,] p1 T1, …, pn Tn) [R | error | (R, error)]
	//
	// or, taking the arguments as the fields of one struct,
	//
	//	func([ctx context.Context,] args S) [R | error | (R, error)]
	//
	// Variadic functions are refused. When the one parameter is a struct S
	// (not one that decodes or describes itself, like time.Time), each of
	// its fields is a parameter, named and described by its tags: see
	// "Struct arguments" in the package documentation.
	Func any
	// Params names and describes Func's parameters, in order, not counting
	// a leading context.Context. For a function of one struct, Params is
	// optional: each entry names a field by its JSON name and adds to or
	// overrides what the field's tags say (any order, any subset); an entry
	// naming no field is an error. A single entry with Whole set takes the
	// struct as one parameter instead.
	Params []Param
	// Result describes what the function returns, for the model. Optional.
	Result string
	// NeedsApproval makes every call of the action wait for a human's
	// approval, whatever the run's approval strategy.
	NeedsApproval bool
	// Declassifies declares that the action's result, and the variables it
	// changes in place, are safe to show to the model even when the action
	// was given a secret or a value derived from one: a login that types a
	// password into a browser and returns a session ID, a check that
	// returns a bool. Without it, the result of a call that received a
	// secret is tainted and hidden like the secret, and so is every
	// variable passed by reference that the action could change through a
	// pointer (a browser it typed the secret into): see package variable.
	// Its output and errors stay hidden either way.
	Declassifies bool
}

// Param declares one parameter of an action.
type Param struct {
	// Name is the parameter's name: a Go identifier, not "return".
	Name string
	// Description tells the model what to pass.
	Description string
	// Optional parameters may be omitted or null; the function then gets
	// Default, or the zero value of the parameter's type when Default is
	// nil. A non-nil Default makes the parameter optional.
	Optional bool
	// Default is the value used when an optional parameter is not given. It
	// must be assignable or convertible to the parameter's type.
	Default any
	// Enum restricts raw values to this list. Each must be convertible to
	// the parameter's type. A parameter with an enum takes raw values only.
	Enum []any
	// Min and Max bound a number parameter's raw values, inclusive; nil
	// means no bound. Each must be a Go number (1, 7, 0.5).
	Min, Max any
	// MinLength and MaxLength bound a string parameter's raw values, in
	// characters (Unicode code points); zero means no bound. OpenAI's strict
	// mode has no such keywords: a tool that uses them is sent non-strict.
	MinLength, MaxLength int
	// Pattern is a regular expression a string parameter's raw values must
	// match somewhere (as JSON Schema's pattern; anchor it with ^…$ to
	// match the whole). It must be valid in Go's regexp syntax.
	Pattern string
	// RefOnly makes the parameter accept variable references only, even if
	// its type is JSON-representable.
	RefOnly bool
	// RawOnly makes the parameter accept raw values only, never a reference.
	RawOnly bool
	// Schema, when set, is the JSON Schema of raw values instead of the one
	// reflected from the parameter's type: for actions whose schema comes
	// from elsewhere (an MCP tool's input schema). The type must be able to
	// hold any value the schema allows: json.RawMessage or any.
	Schema json.RawMessage
	// Whole, on the only entry of Params of a function whose one parameter
	// is a struct, takes the struct as one parameter named Name (a JSON
	// object, or a reference to a variable of the struct's type) instead of
	// one parameter per field.
	Whole bool
}

// Parameter is a declared parameter with what New worked out about it.
type Parameter struct {
	Param
	// Type is the Go type of the parameter.
	Type reflect.Type
	// Raw is the JSON Schema of a raw value, with the enum if any; nil when
	// the parameter takes references only. Shared: do not modify.
	Raw json.RawMessage
	// Why says why the parameter takes references only ("" when it does
	// not): the type is not JSON-representable, or RefOnly was set.
	Why string
	// DefaultJSON is Default as JSON text, for optional parameters.
	DefaultJSON string
	// Field is the Go name of the struct field this parameter fills, for
	// an action whose function takes its arguments as a struct
	// ([Action.ArgsStruct]); "" for ordinary parameters. A field promoted
	// from an embedded struct is named by its path ("Paging.Limit").
	Field string
}

// Refs reports whether the parameter accepts variable references.
func (p *Parameter) Refs() bool { return !p.RawOnly && len(p.Enum) == 0 }

// Action is a Go function the model can call. It is immutable and safe for
// concurrent use.
type Action struct {
	name, description, result string
	needsApproval             bool
	declassifies              bool
	fn                        reflect.Value
	params                    []Parameter
	defaults                  []reflect.Value
	enums                     [][]reflect.Value // enum values converted to each parameter's type
	bounds                    []bounds          // Min, Max, lengths and pattern, checked on the fast path
	fast                      []bool            // parameters decoded by the scalar fast path
	validators                []lazyValidator
	hasCtx, hasErr            bool
	resultType                reflect.Type
	argsStruct                reflect.Type // the struct Call builds from the arguments, or nil
	fieldIndex                [][]int      // each parameter's field in argsStruct
}

type lazyValidator struct {
	once sync.Once
	v    *schema.Validator
	err  error
}

var (
	contextType = reflect.TypeFor[context.Context]()
	errorType   = reflect.TypeFor[error]()
)

// New builds an action from spec, or says what is wrong with the definition
// in an error wrapping ErrInvalidSpec.
func New(spec Spec) (*Action, error) {
	a, err := build(spec)
	if err != nil {
		return nil, &SpecError{Action: spec.Name, Err: err}
	}
	return a, nil
}

// MustNew is like New but panics on an invalid definition. Use it for
// package-level actions, where a bad definition is a programmer's error.
func MustNew(spec Spec) *Action {
	a, err := New(spec)
	if err != nil {
		panic(err)
	}
	return a
}

func build(spec Spec) (*Action, error) {
	if err := checkName(spec.Name); err != nil {
		return nil, err
	}
	if spec.Func == nil {
		return nil, errors.New("Spec.Func is nil; give the Go function to call")
	}
	fn := reflect.ValueOf(spec.Func)
	ft := fn.Type()
	if ft.Kind() != reflect.Func {
		return nil, fmt.Errorf("Spec.Func is a %s, not a function", ft)
	}
	if ft.IsVariadic() {
		return nil, fmt.Errorf("variadic functions are not supported (%s); take a slice instead", ft)
	}
	a := &Action{name: spec.Name, description: spec.Description, result: spec.Result, needsApproval: spec.NeedsApproval, declassifies: spec.Declassifies, fn: fn}
	first := 0
	if ft.NumIn() > 0 && ft.In(0) == contextType {
		a.hasCtx, first = true, 1
	}
	for i := first; i < ft.NumIn(); i++ {
		if ft.In(i) == contextType {
			return nil, fmt.Errorf("context.Context must be the first parameter, not parameter %d", i+1)
		}
	}
	if err := checkWhole(ft, first, spec.Params); err != nil {
		return nil, err
	}
	params, types := spec.Params, make([]reflect.Type, 0, len(spec.Params))
	var paths []string // the Go field of each parameter, for a struct
	if st := argsStruct(ft, first, spec.Params); st != nil {
		fields, err := structFields(st, spec.Params)
		if err != nil {
			return nil, err
		}
		a.argsStruct = st
		params = make([]Param, len(fields))
		for i, f := range fields {
			params[i] = f.param
			types = append(types, f.typ)
			a.fieldIndex = append(a.fieldIndex, f.index)
			paths = append(paths, f.path)
		}
	} else {
		if n := ft.NumIn() - first; n != len(spec.Params) {
			return nil, fmt.Errorf("the function takes %d parameters (not counting a leading context) but Spec.Params declares %d; declare one Param per parameter, in order", n, len(spec.Params))
		}
		for i := range spec.Params {
			types = append(types, ft.In(first+i))
		}
	}
	switch ft.NumOut() {
	case 0:
	case 1:
		if ft.Out(0) == errorType {
			a.hasErr = true
		} else {
			a.resultType = ft.Out(0)
		}
	case 2:
		if ft.Out(1) != errorType {
			return nil, fmt.Errorf("a function with two results must return (value, error), not %s", ft)
		}
		a.resultType, a.hasErr = ft.Out(0), true
	default:
		return nil, fmt.Errorf("the function returns %d values; return one value, an error, or (value, error)", ft.NumOut())
	}
	seen := map[string]bool{}
	checkName := checkParamName
	if paths != nil {
		checkName = checkFieldName
	}
	for i, p := range params {
		if err := checkName(p.Name); err != nil {
			return nil, fmt.Errorf("parameter %d: %w", i+1, err)
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("two parameters are named %q", p.Name)
		}
		seen[p.Name] = true
		param, def, err := buildParam(p, types[i])
		if err != nil {
			return nil, fmt.Errorf("parameter %q: %w", p.Name, err)
		}
		if paths != nil {
			param.Field = paths[i]
		}
		a.params = append(a.params, param)
		a.defaults = append(a.defaults, def)
		a.enums = append(a.enums, enumValues(p.Enum, param.Type))
		b, err := buildBounds(p, param.Type)
		if err != nil {
			return nil, fmt.Errorf("parameter %q: %w", p.Name, err)
		}
		a.bounds = append(a.bounds, b)
		a.fast = append(a.fast, fastPath(p, param.Type))
	}
	a.validators = make([]lazyValidator, len(a.params))
	return a, nil
}

func buildParam(p Param, t reflect.Type) (Parameter, reflect.Value, error) {
	out := Parameter{Param: p, Type: t}
	if p.RefOnly && p.RawOnly {
		return out, reflect.Value{}, errors.New("RefOnly and RawOnly are both set")
	}
	if p.RefOnly && len(p.Enum) > 0 {
		return out, reflect.Value{}, errors.New("an enum parameter takes raw values, so it cannot be RefOnly")
	}
	raw, err := schema.For(t)
	if p.Schema != nil {
		if err != nil {
			return out, reflect.Value{}, fmt.Errorf("type %s cannot hold JSON values (%v), so it cannot take Param.Schema; use json.RawMessage", t, err)
		}
		var obj map[string]any
		if json.Unmarshal(p.Schema, &obj) != nil {
			return out, reflect.Value{}, errors.New("Param.Schema is not a JSON object")
		}
		raw = p.Schema
	}
	switch {
	case p.RefOnly:
		out.Why = "declared by reference only"
	case err != nil:
		if p.RawOnly || len(p.Enum) > 0 {
			return out, reflect.Value{}, fmt.Errorf("type %s takes references only (%v), so it cannot be RawOnly or have an enum", t, err)
		}
		out.Why = err.Error()
	default:
		out.Raw = raw
	}
	if out.Raw != nil {
		// A schema's own description joins the parameter's, so that the
		// tool schema carries one.
		if rest, desc := splitDescription(out.Raw); desc != "" {
			out.Raw = rest
			if out.Description == "" {
				out.Description = desc
			} else if !strings.Contains(out.Description, desc) {
				out.Description += " (" + desc + ")"
			}
		}
	}
	if len(p.Enum) > 0 {
		withEnum, err := addEnum(out.Raw, p.Enum, t)
		if err != nil {
			return out, reflect.Value{}, err
		}
		out.Raw = withEnum
	}
	if out.Raw != nil && (p.Min != nil || p.Max != nil || p.MinLength > 0 || p.MaxLength > 0 || p.Pattern != "") {
		withBounds, err := addBounds(out.Raw, p)
		if err != nil {
			return out, reflect.Value{}, err
		}
		out.Raw = withBounds
	}
	var def reflect.Value
	if p.Default != nil {
		out.Optional = true
		dv := reflect.ValueOf(p.Default)
		switch {
		case dv.Type().AssignableTo(t):
		case dv.Type().ConvertibleTo(t) && losslessConversion(dv, t):
			dv = dv.Convert(t)
		default:
			return out, reflect.Value{}, fmt.Errorf("the default %v (%s) is not assignable to %s", p.Default, dv.Type(), t)
		}
		def = reflect.New(t).Elem()
		def.Set(dv)
		if b, err := json.Marshal(p.Default); err == nil {
			out.DefaultJSON = string(b)
		}
	}
	if out.Optional && !def.IsValid() {
		def = reflect.Zero(t)
	}
	return out, def, nil
}

// losslessConversion reports whether converting v to t keeps its value: a
// string to a string type, or a number to a number type that holds it
// exactly (an int default for a float64 parameter, not 1.5 for an int).
func losslessConversion(v reflect.Value, t reflect.Type) bool {
	if v.Kind() == reflect.String || t.Kind() == reflect.String {
		return v.Kind() == t.Kind()
	}
	a, ok := numberText(v)
	if !ok {
		return true // not a number: a conversion between composite types
	}
	b, ok := numberText(v.Convert(t))
	return ok && a == b
}

// numberText formats an integer or a float exactly, or reports false.
func numberText(v reflect.Value) (string, bool) {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(v.Uint(), 10), true
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'f', -1, v.Type().Bits()), true
	}
	return "", false
}

// splitDescription returns the object schema raw without its top-level
// description, and that description ("" and raw unchanged when it has
// none).
func splitDescription(raw json.RawMessage) (json.RawMessage, string) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return raw, ""
	}
	d, ok := obj["description"]
	if !ok {
		return raw, ""
	}
	var desc string
	if json.Unmarshal(d, &desc) != nil {
		return raw, ""
	}
	delete(obj, "description")
	rest, err := json.Marshal(obj)
	if err != nil {
		return raw, ""
	}
	return rest, desc
}

// addEnum returns raw with an enum of values checked against t.
func addEnum(raw json.RawMessage, values []any, t reflect.Type) (json.RawMessage, error) {
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	for _, v := range values {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("enum value %v: %w", v, err)
		}
		if err := json.Unmarshal(b, reflect.New(t).Interface()); err != nil {
			return nil, fmt.Errorf("enum value %v is not a %s", v, t)
		}
	}
	s["enum"] = values
	return json.Marshal(s)
}

// enumValues converts enum values (already checked by addEnum) to t.
func enumValues(values []any, t reflect.Type) []reflect.Value {
	var out []reflect.Value
	for _, v := range values {
		ptr := reflect.New(t)
		b, _ := json.Marshal(v)
		if json.Unmarshal(b, ptr.Interface()) == nil {
			out = append(out, ptr.Elem())
		}
	}
	return out
}

func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("Spec.Name is empty")
	case len(name) > 64:
		return errors.New("the name is longer than 64 characters, which providers refuse")
	case !token.IsIdentifier(name) || token.IsKeyword(name):
		return errors.New("the name must be a Go identifier (letters, digits and _), so snippets can call it")
	case types.Universe.Lookup(name) != nil:
		return fmt.Errorf("%q is a predeclared Go identifier, which a snippet could not call; choose another name", name)
	}
	return nil
}

func checkParamName(name string) error {
	switch {
	case name == schema.ReturnProperty:
		return errors.New(`"return" is reserved for naming the variable that receives the result; rename the parameter`)
	case name == "":
		return errors.New("the name is empty")
	case !token.IsIdentifier(name):
		return fmt.Errorf("the name %q must be a Go identifier (letters, digits and _)", name)
	}
	return nil
}

// Name returns the action's name.
func (a *Action) Name() string { return a.name }

// Description returns the action's description.
func (a *Action) Description() string { return a.description }

// ResultDescription returns the description of the action's result.
func (a *Action) ResultDescription() string { return a.result }

// NeedsApproval reports whether every call needs a human's approval.
func (a *Action) NeedsApproval() bool { return a.needsApproval }

// Declassifies reports whether the action's result may be shown even when
// the call was given secrets (Spec.Declassifies).
func (a *Action) Declassifies() bool { return a.declassifies }

// Result returns the type of the action's result, or nil when it returns
// nothing but possibly an error.
func (a *Action) Result() reflect.Type { return a.resultType }

// TakesContext reports whether the function's first parameter is a
// context.Context.
func (a *Action) TakesContext() bool { return a.hasCtx }

// ReturnsError reports whether the function's last result is an error.
func (a *Action) ReturnsError() bool { return a.hasErr }

// Func returns the Go function the action calls.
func (a *Action) Func() any { return a.fn.Interface() }

// ArgsStruct returns the struct type whose fields are the action's
// parameters, when its function takes its arguments as one struct, or nil.
// Call builds that struct from one value per parameter; Func still has the
// struct's signature.
func (a *Action) ArgsStruct() reflect.Type { return a.argsStruct }

// NumParams returns the number of declared parameters.
func (a *Action) NumParams() int { return len(a.params) }

// Param returns the i-th declared parameter.
func (a *Action) Param(i int) Parameter { return a.params[i] }

// ParamIndex returns the index of the named parameter, or -1.
func (a *Action) ParamIndex(name string) int {
	for i := range a.params {
		if a.params[i].Name == name {
			return i
		}
	}
	return -1
}

// Params returns a copy of the declared parameters.
func (a *Action) Params() []Parameter {
	return append([]Parameter(nil), a.params...)
}

// Default returns the value an omitted optional parameter takes.
func (a *Action) Default(i int) reflect.Value { return a.defaults[i] }

// ValidateRaw checks the JSON text of a raw value of parameter i against its
// schema. The error wraps schema.ErrInvalid.
func (a *Action) ValidateRaw(i int, raw json.RawMessage) error {
	p := &a.params[i]
	if p.Raw == nil {
		return fmt.Errorf("%s takes a reference only", p.Name)
	}
	lv := &a.validators[i]
	lv.once.Do(func() { lv.v, lv.err = schema.Compile(p.Raw) })
	if lv.err != nil {
		return lv.err
	}
	return lv.v.Validate(raw)
}

// Call calls the function with ctx (when it takes one) and args, which must
// match the declared parameters' types: one value per parameter, also when
// the function takes a struct (Call then builds the struct, one field per
// value). A panic in the function is returned as a *PanicError.
func (a *Action) Call(ctx context.Context, args []reflect.Value) (result reflect.Value, err error) {
	in := args
	if a.argsStruct != nil {
		s := reflect.New(a.argsStruct).Elem()
		for i, idx := range a.fieldIndex {
			if len(idx) == 1 {
				s.Field(idx[0]).Set(args[i])
			} else {
				s.FieldByIndex(idx).Set(args[i])
			}
		}
		in = []reflect.Value{s}
	}
	if a.hasCtx {
		in = append([]reflect.Value{reflect.ValueOf(&ctx).Elem()}, in...)
	}
	defer func() {
		if r := recover(); r != nil {
			result, err = reflect.Value{}, &PanicError{Action: a.name, Value: r, Stack: string(debug.Stack())}
		}
	}()
	out := a.fn.Call(in)
	if a.hasErr {
		if e := out[len(out)-1]; !e.IsNil() {
			return reflect.Value{}, e.Interface().(error)
		}
	}
	if a.resultType != nil {
		return out[0], nil
	}
	return reflect.Value{}, nil
}
