package action

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"

	"github.com/byref/byref/schema"
)

// Decode checks the JSON text of a raw value for parameter i against the
// parameter's schema and decodes it into the parameter's type. Errors wrap
// schema.ErrInvalid and say what was expected.
//
// Scalars (booleans, numbers, strings, and named types of them) take a fast
// path that checks exactly what their schema says (the JSON type, integer
// range, the enum) without the general validator; other types are validated
// against their compiled schema, then decoded with encoding/json.
func (a *Action) Decode(i int, raw json.RawMessage) (reflect.Value, error) {
	v := reflect.New(a.params[i].Type).Elem()
	if err := a.DecodeTo(v, i, raw); err != nil {
		return reflect.Value{}, err
	}
	return v, nil
}

// DecodeTo is Decode into dst, a settable value of parameter i's type: a
// caller that decodes every argument of a call can hold them all in one
// allocation. After an error, dst holds its old value or the zero value.
func (a *Action) DecodeTo(dst reflect.Value, i int, raw json.RawMessage) error {
	p := &a.params[i]
	if p.Raw == nil {
		return fmt.Errorf("%w: %s takes a reference only", schema.ErrInvalid, p.Name)
	}
	if !a.fast[i] {
		return a.decodeChecked(dst, i, raw)
	}
	if ok, err := decodeScalar(dst, raw); ok {
		if err == nil && len(p.Enum) > 0 && !inEnum(dst, a.enums[i]) {
			err = fmt.Errorf("%w: %s is not one of %s", schema.ErrInvalid, raw, enumText(p.Enum))
		}
		if b := &a.bounds[i]; err == nil && b.any {
			err = b.check(dst)
		}
		if err != nil {
			dst.SetZero()
		}
		return err
	}
	return a.decodeChecked(dst, i, raw)
}

// decodeChecked validates raw against parameter i's compiled schema, then
// decodes it into dst with encoding/json (and so the type's own
// UnmarshalJSON).
func (a *Action) decodeChecked(dst reflect.Value, i int, raw json.RawMessage) error {
	if err := a.ValidateRaw(i, raw); err != nil {
		return err
	}
	ptr := reflect.New(dst.Type())
	if err := json.Unmarshal(raw, ptr.Interface()); err != nil {
		return fmt.Errorf("%w: %v", schema.ErrInvalid, err)
	}
	dst.Set(ptr.Elem())
	return nil
}

// jsonKind names the JSON type of a valid JSON text by its first byte.
func jsonKind(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[interface{ UnmarshalText([]byte) error }]()
)

// fastPath reports whether values of parameter p can skip the general
// validator: a plain scalar kind whose schema is the one reflected from
// its kind (no Param.Schema, no JSONSchema hook) and that decodes itself
// no differently from encoding/json's default.
func fastPath(p Param, t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
	default:
		return false
	}
	if p.Schema != nil {
		return false
	}
	for _, u := range []reflect.Type{t, reflect.PointerTo(t)} {
		if u.Implements(jsonUnmarshalerType) || u.Implements(textUnmarshalerType) || schema.DescribesItself(u) {
			return false
		}
	}
	return true
}

// decodeScalar decodes raw into v, a settable scalar; ok is false when v
// is not a scalar.
func decodeScalar(v reflect.Value, raw []byte) (ok bool, err error) {
	t := v.Type()
	mismatch := func(want string) (bool, error) {
		return true, fmt.Errorf("%w: got %s, want %s", schema.ErrInvalid, jsonKind(raw), want)
	}
	switch t.Kind() {
	case reflect.String:
		if len(raw) < 2 || raw[0] != '"' {
			return mismatch("a string")
		}
		if bytes.IndexByte(raw, '\\') < 0 {
			v.SetString(string(raw[1 : len(raw)-1]))
			return true, nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return true, fmt.Errorf("%w: %v", schema.ErrInvalid, err)
		}
		v.SetString(s)
		return true, nil
	case reflect.Bool:
		switch string(raw) {
		case "true":
			v.SetBool(true)
		case "false":
			v.SetBool(false)
		default:
			return mismatch("a boolean")
		}
		return true, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, perr := strconv.ParseInt(string(raw), 10, t.Bits())
		if perr != nil {
			return numberError(raw, "an integer", t, perr)
		}
		v.SetInt(n)
		return true, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, perr := strconv.ParseUint(string(raw), 10, t.Bits())
		if perr != nil {
			return numberError(raw, "a non-negative integer", t, perr)
		}
		v.SetUint(n)
		return true, nil
	case reflect.Float32, reflect.Float64:
		if jsonKind(raw) != "a number" {
			return mismatch("a number")
		}
		f, perr := strconv.ParseFloat(string(raw), t.Bits())
		if perr != nil {
			return numberError(raw, "a number", t, perr)
		}
		v.SetFloat(f)
		return true, nil
	}
	return false, nil
}

func numberError(raw []byte, want string, t reflect.Type, err error) (bool, error) {
	if jsonKind(raw) != "a number" {
		return true, fmt.Errorf("%w: got %s, want %s", schema.ErrInvalid, jsonKind(raw), want)
	}
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return true, fmt.Errorf("%w: %s is out of range for %s", schema.ErrInvalid, raw, t)
	}
	return true, fmt.Errorf("%w: %s is not %s", schema.ErrInvalid, raw, want)
}

// inEnum reports whether the scalar v equals one of the enum values.
func inEnum(v reflect.Value, enum []reflect.Value) bool {
	for _, e := range enum {
		switch v.Kind() {
		case reflect.String:
			if v.String() == e.String() {
				return true
			}
		case reflect.Bool:
			if v.Bool() == e.Bool() {
				return true
			}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if v.Int() == e.Int() {
				return true
			}
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if v.Uint() == e.Uint() {
				return true
			}
		case reflect.Float32, reflect.Float64:
			if v.Float() == e.Float() {
				return true
			}
		}
	}
	return false
}

func enumText(values []any) string {
	b, _ := json.Marshal(values)
	return string(b)
}
