package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"reflect"
	"sync"
	"time"

	"github.com/invopop/jsonschema"
)

// ErrNotRepresentable is wrapped by the errors of Representable and For for
// types that cannot travel as JSON.
var ErrNotRepresentable = errors.New("schema: type is not JSON-representable")

var (
	timeType          = reflect.TypeFor[time.Time]()
	ipType            = reflect.TypeFor[net.IP]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[interface{ MarshalText() ([]byte, error) }]()
	schemaHookType    = reflect.TypeFor[interface{ JSONSchema() *jsonschema.Schema }]()
)

// DescribesItself reports whether t describes its own JSON Schema, with a
// JSONSchema method (invopop/jsonschema's hook).
func DescribesItself(t reflect.Type) bool { return t.Implements(schemaHookType) }

var representable sync.Map // reflect.Type -> error (nil when representable)

// Representable reports whether values of type t can be described by a JSON
// Schema and round-trip through encoding/json, so that a model can write
// them. It returns nil when they can, and otherwise an error wrapping
// ErrNotRepresentable that says why. Results are cached.
//
// Representable: booleans, integers, floats, strings, time.Time, the empty
// interface, pointers, slices and arrays of representable types, maps with
// string or integer keys and representable values, and structs whose fields
// are all exported and representable. A type with its own MarshalJSON is
// representable only when it also describes itself with a JSONSchema method
// (invopop/jsonschema's hook). Recursive types are not: they are passed by
// reference.
func Representable(t reflect.Type) error {
	if r, ok := representable.Load(t); ok {
		err, _ := r.(error)
		return err
	}
	err := checkRepresentable(t, map[reflect.Type]bool{})
	if err != nil {
		err = fmt.Errorf("%w: %s", ErrNotRepresentable, err.Error())
	}
	representable.Store(t, err)
	return err
}

func checkRepresentable(t reflect.Type, visiting map[reflect.Type]bool) error {
	if t == nil {
		return errors.New("a nil type")
	}
	if t == timeType || t == ipType || t == rawMessageType || t.Implements(schemaHookType) {
		// invopop/jsonschema describes these as they marshal.
		return nil
	}
	if k := t.Kind(); k != reflect.Pointer && k != reflect.Interface &&
		(t.Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(jsonMarshalerType) ||
			t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)) {
		return fmt.Errorf("%s marshals itself to JSON but has no JSONSchema method describing that", t)
	}
	if visiting[t] {
		return fmt.Errorf("%s is recursive", t)
	}
	visiting[t] = true
	defer delete(visiting, t)
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return nil
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return nil
		}
		return fmt.Errorf("interface %s has methods, so no JSON value can implement it", t)
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return checkRepresentable(t.Elem(), visiting)
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			return fmt.Errorf("map key type %s is not a string or an integer", t.Key())
		}
		return checkRepresentable(t.Elem(), visiting)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				return fmt.Errorf("%s has unexported field %s, which JSON cannot carry", t, f.Name)
			}
			if f.Tag.Get("json") == "-" {
				continue
			}
			if err := checkRepresentable(f.Type, visiting); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%s values (kind %s) cannot be written as JSON", t, t.Kind())
}

var raw sync.Map // reflect.Type -> json.RawMessage

// For returns the JSON Schema of a representable type, normalised for model
// providers as the package documentation describes. The result is cached and
// shared: do not modify it.
func For(t reflect.Type) (json.RawMessage, error) {
	if s, ok := raw.Load(t); ok {
		return s.(json.RawMessage), nil
	}
	if err := Representable(t); err != nil {
		return nil, err
	}
	r := jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, Anonymous: true}
	s := r.ReflectFromType(t)
	s.Version, s.ID = "", ""
	normalize(s)
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("schema: describing %s: %w", t, err)
	}
	if string(b) == "true" {
		// The empty interface: write the equivalent {} so that callers can
		// add keywords (a description, an enum) to an object.
		b = []byte("{}")
	}
	raw.Store(t, json.RawMessage(b))
	return b, nil
}

// normalize closes every object, requires every property and makes the ones
// that may be omitted nullable; it moves contentEncoding into the
// description, since providers do not accept it.
func normalize(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.ContentEncoding != "" {
		s.Description = joinDescription(s.Description, "("+s.ContentEncoding+"-encoded)")
		s.ContentEncoding = ""
	}
	if s.Properties != nil {
		required := map[string]bool{}
		for _, r := range s.Required {
			required[r] = true
		}
		s.Required = s.Required[:0]
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			normalize(p.Value)
			if !required[p.Key] {
				p.Value = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{p.Value, {Type: "null"}}}
			}
			s.Required = append(s.Required, p.Key)
		}
		if s.AdditionalProperties == nil {
			s.AdditionalProperties = jsonschema.FalseSchema
		}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties != jsonschema.FalseSchema && s.AdditionalProperties != jsonschema.TrueSchema {
		normalize(s.AdditionalProperties)
	}
	normalize(s.Items)
	for _, sub := range s.AnyOf {
		normalize(sub)
	}
}

func joinDescription(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}
