package variable

import (
	"fmt"
	"reflect"
)

// Spec describes a variable to add to a run: what the host hands in.
type Spec struct {
	// Name is a Go identifier, unique in the run (see ValidName).
	Name string
	// Value is the variable's value.
	Value any
	// Type is the variable's static type. Zero means reflect.TypeOf(Value);
	// set it for an interface-typed variable or a nil Value.
	Type reflect.Type
	// Description tells the model what the variable holds. Optional.
	Description string
	// Secret variables can be passed by reference but their previews are
	// redacted wherever the model or a log could see them.
	Secret bool
	// Tainted marks a value derived from a secret (see the package
	// documentation). The runtime sets it; a host hands in secrets with
	// Secret.
	Tainted bool
	// RunOnly keeps the variable to its run: a later run of the same
	// session does not start with it, as it starts with the variables
	// its earlier runs left (a request's credentials, a per-turn handle).
	RunOnly bool
}

// Variable is one named, typed value of a run, with the history of the steps
// that set it. Variables returned by a Set or an Agent are copies: changing
// one changes nothing in the run.
type Variable struct {
	// Name is the variable's Go identifier.
	Name string
	// Value is the variable's value.
	Value any
	// Type is the variable's static type (Value's dynamic type, unless the
	// variable was declared with an interface type).
	Type reflect.Type
	// Description tells the model what the variable holds.
	Description string
	// Secret variables are usable by reference; their previews are
	// redacted.
	Secret bool
	// Tainted variables hold values derived from a secret: the result of
	// an action that was given a secret or tainted value, or a variable a
	// snippet set after reading one. They are handled like secrets.
	Tainted bool
	// RunOnly variables stay with their run (see Spec.RunOnly).
	RunOnly bool
	// History lists the changes of the variable, oldest first.
	History History
}

// anyType is the type of a variable whose value is nil and whose type was
// not given.
var anyType = reflect.TypeFor[any]()

// resolveType returns the static type of a spec.
func (s Spec) resolveType() (reflect.Type, error) {
	if s.Type == nil {
		if s.Value == nil {
			return anyType, nil
		}
		return reflect.TypeOf(s.Value), nil
	}
	if s.Value != nil && !reflect.TypeOf(s.Value).AssignableTo(s.Type) {
		return nil, fmt.Errorf("variable %q: a value of type %s is not assignable to the declared type %s", s.Name, reflect.TypeOf(s.Value), s.Type)
	}
	if s.Value == nil && !nilable(s.Type) {
		return nil, fmt.Errorf("variable %q: nil is not a value of the declared type %s; give a value or leave Type zero", s.Name, s.Type)
	}
	return s.Type, nil
}

// Preview returns the bounded representation of the variable the model sees:
// at most limit characters (DefaultPreviewLimit when limit <= 0), or a
// redaction for a secret.
func (v Variable) Preview(limit int) string {
	if v.Secret {
		return Redacted(v.Type)
	}
	if v.Tainted {
		return RedactedDerived(v.Type)
	}
	return Preview(v.Value, limit)
}

// Sensitive reports whether the variable is secret or tainted: whether its
// value must be kept from the model and the log.
func (v Variable) Sensitive() bool { return v.Secret || v.Tainted }

// TypeName is the Go type of the variable as the model and generated code
// see it, e.g. "*browser.Browser" or "[]main.Row".
func (v Variable) TypeName() string {
	return TypeName(v.Type)
}

// Redacted is the preview of a secret variable of type t.
func Redacted(t reflect.Type) string {
	return "<secret " + TypeName(t) + ">"
}

// RedactedDerived is the preview of a tainted variable of type t: a value
// derived from a secret.
func RedactedDerived(t reflect.Type) string {
	return "<" + TypeName(t) + " derived from a secret>"
}

// As returns the variable's value as a T, or an error naming both types.
// A nil value converts to the zero T when T is an interface, pointer, map,
// slice, func or channel type.
func As[T any](v Variable) (T, error) {
	if t, ok := v.Value.(T); ok {
		return t, nil
	}
	var zero T
	if v.Value == nil {
		switch reflect.TypeFor[T]().Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
			return zero, nil
		}
	}
	return zero, fmt.Errorf("variable %q holds %s, not %s", v.Name, v.TypeName(), TypeName(reflect.TypeFor[T]()))
}
