package interp

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	yaegi "github.com/byref/byref/internal/yaegi/interp"
)

// SnippetError is how the host holds an error value of a type a snippet
// declared (type E struct{...}; func (e *E) Error() string) once the Eval
// has ended: the text its Error method returned when the snippet ended, and
// the value's data. Its methods are the snippet's code, which the sandbox
// never runs after the Eval; so the variable holding it, and every error
// reached through created and written variables (slice and map elements,
// exported fields, pointers), gets a SnippetError in its place. A later
// snippet of the same Interpreter gets, wherever its variables hold a
// SnippetError (at the top, in elements, fields or pointees), a value of
// the snippet's type again, with the data of Value, so err.(*StockError)
// and errors.As work, also after the interpreter was rebuilt (every
// [Options.RebuildEvery] Evals and after a failed one). It stays a
// *SnippetError where a later snippet declared the type anew with other
// fields (in Go a different type; one declared anew with the same fields
// takes it back, unlike Go). Declared struct types with the same fields,
// or without fields, are told apart.
type SnippetError struct {
	// Message is what the value's Error method returned at the end of the
	// snippet.
	Message string
	// Value is the value without its methods: a pointer to or a copy of
	// the type's data, as a variable of a snippet-declared type holds it.
	Value any

	typ string // the snippet's type, as it writes it (*StockError); "" when unknown
}

// Error returns the kept message.
func (e *SnippetError) Error() string { return e.Message }

// MarshalJSON encodes Value, as encoding/json encodes the snippet's value
// (its exported fields).
func (e *SnippetError) MarshalJSON() ([]byte, error) { return json.Marshal(e.Value) }

// keepPanic is raised (on the snippet's goroutine) when an Error method
// called to keep a value panics.
type keepPanic struct {
	name  string
	value any
}

func (p keepPanic) Error() string {
	return fmt.Sprintf("the Error method of the value in %s panicked: %v (it runs once when the snippet ends, to keep the message after it; make it return a string for every value)", p.name, p.value)
}

// keeper finds, in the values an Eval read back, the values of snippet
// types behind host interfaces (yaegi's interface wrappers, whose method
// fields call interpreted code) and prepares their replacements. It runs
// in three steps: find (on the caller's goroutine, reading only), call
// (the Error methods, on the snippet's goroutine under its context, so
// the sandbox's time, output, depth and memory limits hold), and apply (on
// the caller's goroutine, after call succeeded). Nothing is changed
// before apply, so a keep that is stopped changes nothing.
type keeper struct {
	errs  []*SnippetError
	calls []keepCall
	sets  []func()         // replacements inside shared storage (slice and map elements, pointees)
	seen  map[seenKey]bool // pointers, maps and slices already walked
	// bad is set when a value of a snippet type is behind an interface
	// other than error (fmt.Stringer, sort.Interface): its methods cannot
	// be kept as text.
	bad  string
	name string // the variable being walked
	// names names the snippet types of kept errors' data (typeName).
	names typeNamer
}

type keepCall struct {
	name string        // the variable it was reached from
	fn   reflect.Value // the wrapper's WError: func() string
}

type seenKey struct {
	t reflect.Type
	p uintptr
	n int
}

// keepTypes caches mayHoldInterface per type.
var keepTypes sync.Map // reflect.Type -> bool

// mayHoldInterface reports whether a value of t can hold an interface
// value anywhere (fields, elements, pointees, map values).
func mayHoldInterface(t reflect.Type) bool {
	if v, ok := keepTypes.Load(t); ok {
		return v.(bool)
	}
	r := holdsInterface(t, map[reflect.Type]bool{})
	keepTypes.Store(t, r)
	return r
}

func holdsInterface(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsInterface(t.Elem(), seen)
	case reflect.Map:
		return holdsInterface(t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() && holdsInterface(f.Type, seen) {
				return true
			}
		}
	}
	return false
}

// wrapperMethods returns the method names of a yaegi interface wrapper
// type (a struct whose first field is IValue and whose other fields are
// funcs named W and the method), or false when t is not one.
func wrapperMethods(t reflect.Type) ([]string, bool) {
	if t.Kind() != reflect.Struct || t.NumField() < 2 || t.Field(0).Name != "IValue" || t.Field(0).Type.Kind() != reflect.Interface {
		return nil, false
	}
	names := make([]string, 0, t.NumField()-1)
	for i := 1; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Type.Kind() != reflect.Func || !strings.HasPrefix(f.Name, "W") {
			return nil, false
		}
		names = append(names, f.Name[1:])
	}
	return names, true
}

var snippetErrorType = reflect.TypeFor[*SnippetError]()

// walk returns v with every kept value replaced: a value of a value type
// that had to change is returned as a copy (changed is true); changes in
// shared storage are recorded in k.sets.
func (k *keeper) walk(v reflect.Value) (reflect.Value, bool) {
	if !v.IsValid() || !mayHoldInterface(v.Type()) {
		return v, false
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		e := v.Elem()
		var nv reflect.Value
		if held, ok := yaegi.HeldValue(e); ok {
			// A value of a snippet type with methods in an any: its data.
			inner, _ := k.walk(held)
			out := reflect.New(v.Type()).Elem()
			if inner.IsValid() {
				if !inner.Type().Implements(v.Type()) {
					if k.bad == "" {
						k.bad = fmt.Sprintf("%s holds a value of a type the snippet declared, behind the interface %s: its methods are the snippet's code, which cannot run after the snippet", k.name, v.Type())
					}
					return v, false
				}
				out.Set(inner)
			}
			return out, true
		}
		if methods, ok := wrapperMethods(e.Type()); ok {
			if len(methods) != 1 || methods[0] != "Error" || !snippetErrorType.Implements(v.Type()) || e.Field(1).IsNil() {
				if k.bad == "" {
					k.bad = fmt.Sprintf("%s holds a value of a type the snippet declared, behind the interface %s (methods %s): its methods are the snippet's code, which cannot run after the snippet", k.name, v.Type(), strings.Join(methods, ", "))
				}
				return v, false
			}
			se := &SnippetError{}
			if inner, _ := k.walk(e.Field(0)); inner.IsValid() && !(inner.Kind() == reflect.Interface && inner.IsNil()) {
				se.Value = inner.Interface()
				if se.Value != nil {
					se.typ = k.names.typeName(reflect.TypeOf(se.Value))
				}
			}
			k.errs = append(k.errs, se)
			k.calls = append(k.calls, keepCall{name: k.name, fn: e.Field(1)})
			nv = reflect.ValueOf(se)
		} else {
			inner, changed := k.walk(e)
			if !changed {
				return v, false
			}
			nv = inner
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(nv)
		return out, true
	case reflect.Pointer:
		if v.IsNil() || k.visited(v, 0) {
			return v, false
		}
		if nv, changed := k.walk(v.Elem()); changed && v.Elem().CanSet() {
			dst := v.Elem()
			k.sets = append(k.sets, func() { dst.Set(nv) })
		}
		return v, false
	case reflect.Slice:
		if v.IsNil() || k.visited(v, v.Len()) {
			return v, false
		}
		for i := range v.Len() {
			if nv, changed := k.walk(v.Index(i)); changed && v.Index(i).CanSet() {
				dst := v.Index(i)
				k.sets = append(k.sets, func() { dst.Set(nv) })
			}
		}
		return v, false
	case reflect.Map:
		if v.IsNil() || k.visited(v, 0) {
			return v, false
		}
		it := v.MapRange()
		for it.Next() {
			if nv, changed := k.walk(it.Value()); changed {
				m, key := v, it.Key()
				k.sets = append(k.sets, func() { m.SetMapIndex(key, nv) })
			}
		}
		return v, false
	case reflect.Array:
		var out reflect.Value
		for i := range v.Len() {
			if nv, changed := k.walk(v.Index(i)); changed {
				if !out.IsValid() {
					out = reflect.New(v.Type()).Elem()
					out.Set(v)
				}
				out.Index(i).Set(nv)
			}
		}
		return k.copied(v, out)
	case reflect.Struct:
		var out reflect.Value
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			if nv, changed := k.walk(v.Field(i)); changed {
				if !out.IsValid() {
					out = reflect.New(v.Type()).Elem()
					out.Set(v)
				}
				out.Field(i).Set(nv)
			}
		}
		return k.copied(v, out)
	}
	return v, false
}

// copied returns out when a value type had to be copied, else v.
func (k *keeper) copied(v, out reflect.Value) (reflect.Value, bool) {
	if out.IsValid() {
		return out, true
	}
	return v, false
}

// visited reports whether the storage of v was walked already, and marks
// it.
func (k *keeper) visited(v reflect.Value, n int) bool {
	key := seenKey{v.Type(), v.Pointer(), n}
	if k.seen[key] {
		return true
	}
	if k.seen == nil {
		k.seen = map[seenKey]bool{}
	}
	k.seen[key] = true
	return false
}

// call runs the Error methods and returns their texts. It runs on the
// snippet's goroutine; a panic is raised again as a keepPanic.
func (k *keeper) call(at *atomic.Int64) []string {
	texts := make([]string, len(k.calls))
	for i, c := range k.calls {
		at.Store(int64(i))
		func() {
			defer func() {
				if r := recover(); r != nil {
					panic(keepPanic{name: c.name, value: r})
				}
			}()
			texts[i] = c.fn.Call(nil)[0].String()
		}()
	}
	return texts
}

// keep replaces, in the values an Eval read back, the values of snippet
// types behind host interfaces (see [SnippetError]), calling their Error
// methods under ctx on the snippet's goroutine. A created variable that
// holds one behind another interface is left out, like one holding a
// func; a written input variable that does fails the Eval. It returns the
// created variables kept.
func (in *Interpreter) keep(ctx context.Context, inst *instance, values map[string]reflect.Value, created []string, writes []string, inputs map[string]bool, decls [][]string) ([]string, error) {
	if !anyHoldsInterface(values, created) && !anyHoldsInterface(values, writes) {
		return created, nil
	}
	k := keeper{names: typeNamer{in: in, inst: inst, current: decls}}
	var replaced map[string]reflect.Value
	visit := func(name string) (ok bool) {
		v, found := values[name]
		if !found || !mayHoldInterface(v.Type()) {
			return true
		}
		nErrs, nCalls, nSets := len(k.errs), len(k.calls), len(k.sets)
		k.name, k.bad = name, ""
		nv, changed := k.walk(v)
		if k.bad != "" {
			k.errs, k.calls, k.sets, k.seen = k.errs[:nErrs], k.calls[:nCalls], k.sets[:nSets], nil
			return false
		}
		if changed {
			if replaced == nil {
				replaced = map[string]reflect.Value{}
			}
			replaced[name] = nv
		}
		return true
	}
	kept, dropped := created, false // a copy only once one is left out
	for i, name := range created {
		switch ok := visit(name); {
		case !ok:
			if !dropped {
				kept, dropped = slices.Clone(created[:i]), true
			}
			delete(values, name)
		case dropped:
			kept = append(kept, name)
		}
	}
	for _, name := range writes {
		if inputs[name] && !visit(name) {
			return nil, &RefusedError{What: "a value of a type the snippet declared in the variable " + name, Why: k.bad + "; store a value of a host type instead (a string, a number, a struct of the host's types)"}
		}
	}
	if len(k.calls) > 0 {
		var texts []string
		var at atomic.Int64
		inst.g.keeping = func() {
			texts = k.call(&at)
		}
		if err := evalText(ctx, inst.yi, "_byref.Keep()"); err != nil {
			// keeping stays: a stopped call may still be reading it, and
			// the failed Eval discards the instance.
			return nil, keepError{err: err, name: k.calls[min(int(at.Load()), len(k.calls)-1)].name}
		}
		inst.g.keeping = nil
		for i, se := range k.errs {
			se.Message = texts[i]
		}
		snippetErrorsMade.Store(true)
	}
	for _, set := range k.sets {
		set()
	}
	for name, nv := range replaced {
		values[name] = nv
	}
	return kept, nil
}

// anyHoldsInterface reports whether the value of one of names can hold an
// interface value.
func anyHoldsInterface(values map[string]reflect.Value, names []string) bool {
	for _, name := range names {
		if v, ok := values[name]; ok && mayHoldInterface(v.Type()) {
			return true
		}
	}
	return false
}

// keepError is a failure while calling Error methods to keep values: the
// variable whose value's method ran.
type keepError struct {
	err  error
	name string
}

func (e keepError) Error() string { return e.err.Error() }
func (e keepError) Unwrap() error { return e.err }
