package run

import (
	"context"
	"encoding"
	"encoding/json"
	"reflect"
	goruntime "runtime"
	"strconv"
	"strings"
)

// GoAction is the Go identity of an action a run called, as replay code
// needs it to call the same function again without the action set: where
// the function lives, its exact signature and the defaults of its
// parameters. The runtime records it once per action and run, on the first
// [ToolCallCompleted] of that action (Action), or on the first
// [SnippetExecuted] whose code names it (Actions).
type GoAction struct {
	// Name is the action's name.
	Name string `json:"name"`
	// Func is the function's symbol as the Go runtime names it
	// (runtime.FuncForPC): "example.com/shop.Search" for a package-level
	// function, "example.com/shop.(*Store).Find-fm" for a method value,
	// "example.com/shop.New.func1" for a closure, "main.search" for a
	// function of package main. Whether replay code can call it by import
	// path (exported, package-level, importable) follows from it.
	Func string `json:"func"`
	// Type is the function's type in the form of [GoType]:
	// "func(context.Context, string) ([]example.com/shop.Item, error)".
	Type string `json:"type"`
	// Shown is the function's type as the model's prompt names types
	// (variable.TypeName: "func(context.Context, model2.User) error"),
	// when it differs from Type: it says which host package each name a
	// snippet writes (model2) is. Empty in logs written before it.
	Shown string `json:"shown,omitempty"`
	// Params are the names of the action's parameters, in the order of the
	// function's parameters after a leading context.
	Params []string `json:"params,omitempty"`
	// Fields is set for an action whose function takes its arguments as
	// one struct (action.Action.ArgsStruct): the field each parameter
	// fills, in parameter order.
	Fields []ArgField `json:"fields,omitempty"`
	// Defaults are the JSON defaults of the optional parameters that have
	// one, by parameter name; a parameter left out and not here takes the
	// zero value of its type.
	Defaults map[string]json.RawMessage `json:"defaults,omitempty"`
	// Types describes the named types the signature mentions that this
	// run's log has not described yet.
	Types []NamedType `json:"types,omitempty"`
}

// ArgField is the struct field a parameter of a struct-argument action
// fills.
type ArgField struct {
	// Field is the field's Go name, or its path for a field promoted from
	// an embedded struct ("Paging.Limit").
	Field string `json:"field"`
	// Type is the field's type in the form of [GoType].
	Type string `json:"type"`
}

// NamedType describes a named type a run touched, as replay code needs it
// to write its values as Go literals.
type NamedType struct {
	// Name is the type in the form of [GoType]: "example.com/shop.Item".
	Name string `json:"name"`
	// Underlying is its underlying type in the form of GoType, with only
	// the exported and embedded fields of a struct (the ones encoding/json
	// fills), and "interface" for an interface with methods.
	Underlying string `json:"underlying"`
	// Unmarshals reports that the type decodes its JSON itself
	// (json.Unmarshaler or encoding.TextUnmarshaler), so a value of it is
	// not written field by field.
	Unmarshals bool `json:"unmarshals,omitempty"`
}

// GoType writes t as Go syntax whose named types are qualified by their
// full import path instead of their package name: "[]example.com/shop.Item",
// "map[string]*example.com/shop.Order", "func(context.Context, int) error".
// Predeclared types keep their names (error, any for the empty interface);
// a named type's path is everything before the last dot that follows the
// last slash. A struct lists its exported and embedded fields with their
// json tags, the fields encoding/json reads; an interface with methods is
// "interface". It is how the log records types for replay code, which must
// import them; reflect's String has package names only. A nil t is "any".
func GoType(t reflect.Type) string {
	var b strings.Builder
	writeGoType(&b, t, false)
	return b.String()
}

var (
	emptyInterface  = reflect.TypeFor[any]()
	contextType     = reflect.TypeFor[context.Context]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func writeGoType(b *strings.Builder, t reflect.Type, underlying bool) {
	if t == nil || t == emptyInterface {
		b.WriteString("any")
		return
	}
	if t.Name() != "" && !underlying {
		if t.PkgPath() != "" {
			b.WriteString(t.PkgPath())
			b.WriteByte('.')
		}
		b.WriteString(t.Name())
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		b.WriteByte('*')
		writeGoType(b, t.Elem(), false)
	case reflect.Slice:
		b.WriteString("[]")
		writeGoType(b, t.Elem(), false)
	case reflect.Array:
		b.WriteString("[" + strconv.Itoa(t.Len()) + "]")
		writeGoType(b, t.Elem(), false)
	case reflect.Map:
		b.WriteString("map[")
		writeGoType(b, t.Key(), false)
		b.WriteByte(']')
		writeGoType(b, t.Elem(), false)
	case reflect.Chan:
		switch t.ChanDir() {
		case reflect.RecvDir:
			b.WriteString("<-chan ")
		case reflect.SendDir:
			b.WriteString("chan<- ")
		default:
			b.WriteString("chan ")
		}
		writeGoType(b, t.Elem(), false)
	case reflect.Func:
		b.WriteString("func(")
		for i := range t.NumIn() {
			if i > 0 {
				b.WriteString(", ")
			}
			if t.IsVariadic() && i == t.NumIn()-1 {
				b.WriteString("...")
				writeGoType(b, t.In(i).Elem(), false)
				continue
			}
			writeGoType(b, t.In(i), false)
		}
		b.WriteByte(')')
		switch t.NumOut() {
		case 0:
		case 1:
			b.WriteByte(' ')
			writeGoType(b, t.Out(0), false)
		default:
			b.WriteString(" (")
			for i := range t.NumOut() {
				if i > 0 {
					b.WriteString(", ")
				}
				writeGoType(b, t.Out(i), false)
			}
			b.WriteByte(')')
		}
	case reflect.Interface:
		if t.NumMethod() == 0 {
			b.WriteString("any")
		} else {
			b.WriteString("interface")
		}
	case reflect.Struct:
		b.WriteString("struct {")
		n := 0
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() && !f.Anonymous {
				continue // encoding/json ignores it; an embedded one promotes fields
			}
			if n > 0 {
				b.WriteByte(';')
			}
			n++
			b.WriteByte(' ')
			if !f.Anonymous {
				b.WriteString(f.Name + " ")
			}
			writeGoType(b, f.Type, false)
			if tag, ok := f.Tag.Lookup("json"); ok {
				b.WriteString(" " + strconv.Quote(`json:"`+tag+`"`))
			}
		}
		b.WriteString(" }")
	default: // basic kinds
		b.WriteString(t.Kind().String())
	}
}

// NamedTypes describes the named types t is built from (t itself, element,
// key, field, parameter and result types, transitively), skipping those
// seen already and adding the rest to seen. Predeclared types (error),
// context.Context and types of package unsafe are not described; at most 64 types are, to keep
// an event small.
func NamedTypes(seen map[string]bool, types ...reflect.Type) []NamedType {
	var out []NamedType
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		if t == nil || len(out) >= 64 {
			return
		}
		if t == contextType {
			return
		}
		if t.Name() != "" && t.PkgPath() != "" && t.PkgPath() != "unsafe" {
			name := GoType(t)
			if seen[name] {
				return
			}
			seen[name] = true
			var u strings.Builder
			writeGoType(&u, t, true)
			nt := NamedType{Name: name, Underlying: u.String()}
			if t.Kind() != reflect.Interface {
				pt := reflect.PointerTo(t)
				nt.Unmarshals = pt.Implements(jsonUnmarshaler) || pt.Implements(textUnmarshaler)
			}
			out = append(out, nt)
		}
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Func:
			if t.Name() != "" {
				return
			}
			for i := range t.NumIn() {
				walk(t.In(i))
			}
			for i := range t.NumOut() {
				walk(t.Out(i))
			}
		case reflect.Struct:
			for i := range t.NumField() {
				if f := t.Field(i); f.IsExported() {
					walk(f.Type)
				}
			}
		}
	}
	for _, t := range types {
		walk(t)
	}
	return out
}

// FuncSymbol is the symbol of the function fn as the Go runtime names it
// ([GoAction.Func]), or "" when fn is not a non-nil function.
func FuncSymbol(fn any) string {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return ""
	}
	f := goruntime.FuncForPC(v.Pointer())
	if f == nil {
		return ""
	}
	return f.Name()
}
