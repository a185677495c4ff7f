package interp

import (
	"fmt"
	"io"
	"reflect"

	"github.com/byref/byref/variable"
)

// Handles print as their previews. A handle (variable.IsHandle: a *sql.DB,
// an *os.File, a net.Conn, a type with a HandleIdentity method or
// registered with variable.RegisterHandle) previews as its type and a
// short identity because its insides hold what must not reach the model,
// the log or a client: a *sql.DB's connection string, password included.
// fmt prints unexported fields (%+v of *db writes the DSN), so the
// sandbox's fmt functions hand fmt each handle that it would print,
// wherever it is (an argument, a struct field, an element, a map key or
// value, behind an interface), as that preview instead, for every verb.
// The value behind a handle pointer (*db) is a handle too.
//
// The test is a type test done by the walk that checkPrint makes of the
// arguments anyway, kept per walk for the last types seen (and by package
// variable per type); only an argument that holds a handle is copied.

// printsAsHandle reports whether fmt prints values of type t as a handle's
// preview: t is a handle, or a named struct type whose pointer is one (the
// value *db gives).
func printsAsHandle(t reflect.Type) bool {
	if variable.IsHandle(t) {
		return true
	}
	return t.Kind() == reflect.Struct && t.Name() != "" && variable.IsHandle(reflect.PointerTo(t))
}

// mayBeHandle reports whether a value of kind k may have insides to hide:
// a number, a string or a bool (even of a handle type) is only itself.
func mayBeHandle(k reflect.Kind) bool {
	switch k {
	case reflect.Struct, reflect.Pointer, reflect.Slice, reflect.Map, reflect.Array:
		return true
	}
	return false
}

// handleMemo keeps printsAsHandle's answers for the last few types a walk
// saw: a row's fields alternate between a handful of types.
type handleMemo struct {
	types  [4]reflect.Type
	handle [4]bool
	next   int
}

// printsAsHandle is printsAsHandle(t), remembered.
func (m *handleMemo) printsAsHandle(t reflect.Type) bool {
	for i, mt := range m.types {
		if mt == t {
			return m.handle[i]
		}
	}
	h := printsAsHandle(t)
	m.types[m.next], m.handle[m.next] = t, h
	m.next = (m.next + 1) % len(m.types)
	return h
}

// handleText is a handle's preview standing for the handle in fmt's
// arguments. It prints itself for every verb, as %s would (width and the
// - flag kept). In a field fmt cannot call methods on (an unexported one)
// it prints as a string does.
type handleText string

// Format implements fmt.Formatter.
func (h handleText) Format(f fmt.State, _ rune) {
	w, ok := f.Width()
	switch {
	case !ok:
		io.WriteString(f, string(h))
	case f.Flag('-'):
		fmt.Fprintf(f, "%-*s", w, string(h))
	default:
		fmt.Fprintf(f, "%*s", w, string(h))
	}
}

// previewHandle returns the preview of v, a handle (printsAsHandle) that
// is not a nil pointer: variable's preview, or for the value behind a
// handle pointer its type.
func previewHandle(v reflect.Value) handleText {
	if variable.IsHandle(v.Type()) {
		return handleText(variable.Preview(v.Interface(), 0))
	}
	return handleText(variable.TypeName(v.Type()) + " handle")
}

// handleKey stands for a map key that holds a handle: a pointer, so that
// two keys of the same preview stay two entries. It formats its value.
type handleKey struct{ v any }

// Format implements fmt.Formatter.
func (k *handleKey) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, fmt.FormatString(f, verb), k.v)
}

// hideArgs replaces each of fmt's arguments that holds a handle by a copy
// that holds its preview instead (hideHandles). format is the Printf
// family's format ("" for the others): an argument only %T formats keeps
// its type, which is no secret.
func hideArgs(format string, a []any) {
	var typeOnly []bool
	if format != "" {
		typeOnly = make([]bool, len(a))
		other := make([]bool, len(a))
		for _, v := range scanVerbs(format) {
			if v.arg >= 0 && v.arg < len(a) {
				typeOnly[v.arg] = v.verb == 'T' && !other[v.arg]
				other[v.arg] = other[v.arg] || v.verb != 'T'
			}
		}
	}
	for i, x := range a {
		if typeOnly != nil && typeOnly[i] {
			continue
		}
		if m, ok := hideHandles(reflect.ValueOf(x), 0); ok {
			a[i] = m.Interface()
		}
	}
}

// withoutHandles returns x, or a copy of it whose handles are their
// previews, for a value handed to fmt outside the bounded functions' own
// arguments (a snippet Stringer's data). It walks x as they do first.
func withoutHandles(x any) any {
	if !checkPrint("fmt", false, fmtStops, x) {
		return x
	}
	if m, ok := hideHandles(reflect.ValueOf(x), 0); ok {
		return m.Interface()
	}
	return x
}

// panicText is the text of a snippet's panic value (PanicError.Value), as
// fmt.Sprint formats it through the sandbox's fmt: a handle prints as its preview,
// and a value beyond the print limits as the limit's message.
//
// It runs on the caller's goroutine, so it recovers from what may panic.
func panicText(v any) (s string) {
	defer func() {
		if r := recover(); r != nil {
			if p, ok := r.(printPanic); ok {
				s = p.msg
			} else {
				s = fmt.Sprintf("(a %T that cannot be printed: %v)", v, r)
			}
		}
	}()
	if rv, ok := v.(reflect.Value); ok && rv.IsValid() && rv.CanInterface() {
		v = rv.Interface() // as fmt takes it; the interpreter panics with one
	}
	a := []any{v}
	fmtArgs("panic", "", a)
	return fmt.Sprint(a...)
}

// hideHandles returns v, or a copy of v in which every handle fmt would
// print is its preview, and whether it made one. v is readable (not
// obtained through an unexported field); depth is fmt's, which follows a
// pointer at the top only. Containers that hold a handle become []any and
// map[K]any (map[any]any when a key holds one), and structs a struct type
// of the same fields (none embedded), so %v and %+v print as before but
// for the previews.
func hideHandles(v reflect.Value, depth int) (reflect.Value, bool) {
	if !v.IsValid() {
		return v, false
	}
	t := v.Type()
	if mayBeHandle(t.Kind()) && printsAsHandle(t) {
		if t.Kind() == reflect.Pointer && v.IsNil() {
			return v, false
		}
		return reflect.ValueOf(previewHandle(v)), true
	}
	for _, s := range fmtStops {
		if t.Implements(s) {
			return hideWrapped(v, depth)
		}
	}
	switch t.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		return hideHandles(v.Elem(), depth+1)
	case reflect.Pointer:
		if depth > 0 || v.IsNil() {
			return v, false // fmt prints the address
		}
		switch t.Elem().Kind() {
		case reflect.Array, reflect.Slice, reflect.Struct, reflect.Map:
		default:
			return v, false
		}
		m, ok := hideHandles(v.Elem(), depth+1)
		if !ok {
			return v, false
		}
		p := reflect.New(m.Type())
		p.Elem().Set(m)
		return p, true
	case reflect.Slice, reflect.Array:
		return hideElems(v, depth)
	case reflect.Map:
		return hideMap(v, depth)
	case reflect.Struct:
		return hideFields(v, depth)
	}
	return v, false
}

// hideElems is hideHandles of a slice or an array.
func hideElems(v reflect.Value, depth int) (reflect.Value, bool) {
	if !needsWalk(v.Type().Elem()) {
		return v, false
	}
	var out []any
	for i := range v.Len() {
		m, ok := hideHandles(v.Index(i), depth+1)
		if ok && out == nil {
			out = make([]any, v.Len())
			for j := range i {
				out[j] = v.Index(j).Interface()
			}
		}
		if out != nil {
			out[i] = m.Interface()
		}
	}
	if out == nil {
		return v, false
	}
	return reflect.ValueOf(out), true
}

// hideMap is hideHandles of a map.
func hideMap(v reflect.Value, depth int) (reflect.Value, bool) {
	type entry struct {
		k, e reflect.Value
		kh   bool
	}
	var entries []entry
	changed, keys := false, false
	for it := v.MapRange(); it.Next(); {
		k, kh := hideHandles(it.Key(), depth+1)
		e, eh := hideHandles(it.Value(), depth+1)
		changed, keys = changed || kh || eh, keys || kh
		entries = append(entries, entry{k, e, kh})
	}
	if !changed {
		return v, false
	}
	kt := v.Type().Key()
	if keys {
		kt = anyType
	}
	out := reflect.MakeMapWithSize(reflect.MapOf(kt, anyType), len(entries))
	for _, e := range entries {
		k := e.k
		if e.kh {
			k = reflect.ValueOf(&handleKey{k.Interface()})
		}
		out.SetMapIndex(k, anyOf(e.e))
	}
	return out, true
}

// anyOf returns v as a value of type any (the zero any for no value).
func anyOf(v reflect.Value) reflect.Value {
	a := reflect.New(anyType).Elem()
	if v.IsValid() {
		a.Set(v)
	}
	return a
}

// hideFields is hideHandles of a struct: a value of a struct type with the
// same fields, names and tags, none embedded (so that no method is
// promoted), the fields that hold a handle of their copy's type.
func hideFields(v reflect.Value, depth int) (reflect.Value, bool) {
	t := v.Type()
	if !v.CanAddr() {
		c := reflect.New(t).Elem()
		c.Set(v)
		v = c
	}
	var vals []reflect.Value
	for i := range t.NumField() {
		m, ok := hideHandles(readable(v.Field(i)), depth+1)
		if ok && vals == nil {
			vals = make([]reflect.Value, t.NumField())
			for j := range i {
				vals[j] = readable(v.Field(j))
			}
		}
		if vals != nil {
			vals[i] = m
		}
	}
	if vals == nil {
		return v, false
	}
	fields := make([]reflect.StructField, len(vals))
	for i, m := range vals {
		f := t.Field(i)
		fields[i] = reflect.StructField{Name: f.Name, PkgPath: f.PkgPath, Tag: f.Tag, Type: m.Type()}
	}
	out := reflect.New(reflect.StructOf(fields)).Elem()
	for i, m := range vals {
		readable(out.Field(i)).Set(m)
	}
	return out, true
}

// readable returns f, a field of an addressable struct, so that it can be
// read and set when unexported too: fmt prints unexported fields, so their
// copies must hold the same values.
func readable(f reflect.Value) reflect.Value {
	if f.CanInterface() {
		return f
	}
	return reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem()
}

// wrappedPeek is what peekWrapped finds in a value of a snippet's type with
// a String or an Error method.
type wrappedPeek int

const (
	noHandle wrappedPeek = iota
	holdsHandle
	// tangled: the value's data is beyond the print limits (a cycle fmt
	// never follows when it calls the method), so whether it holds a
	// handle is not known.
	tangled
)

// peekWrapped looks for a handle in the data of v when v is the
// interpreter's wrapper of a value of a snippet's type with a String or
// an Error method (the value, then the method): fmt calls the method for
// %v and %s but prints the data for %#v and %d, handles included.
func peekWrapped(v reflect.Value, depth int) (found wrappedPeek) {
	v, ok := wrapper(v)
	if !ok {
		return noHandle
	}
	c := &printCheck{what: "fmt", stopAt: fmtStops, maxDepth: maxPrintDepth}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(printPanic); !ok {
				panic(r)
			}
			found = tangled
		}
	}()
	c.walk(v.Field(0), depth+1)
	if c.handles {
		return holdsHandle
	}
	return noHandle
}

// wrapper returns v, or its dynamic value for an interface, when that is
// the interpreter's wrapper of a value of a snippet's type.
func wrapper(v reflect.Value) (reflect.Value, bool) {
	if v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	t := v.Type()
	return v, v.Kind() == reflect.Struct && t.NumField() == 2 && t.Field(0).Name == "IValue"
}

// hideWrapped is hideHandles of a value that formats itself: a wrapper
// (peekWrapped) whose data holds a handle becomes a stringProxy (an
// errorProxy for an error) that prints the data without it, or the
// method's text for every verb when the data is tangled.
func hideWrapped(v reflect.Value, depth int) (reflect.Value, bool) {
	found := peekWrapped(v, depth)
	if found == noHandle {
		return v, false
	}
	v, _ = wrapper(v)
	x := v.Interface()
	p := stringProxy{plain: found == tangled}
	if !p.plain {
		m, _ := hideHandles(v.Field(0), depth+1)
		p.value = anyOf(m).Interface()
	}
	if e, ok := x.(error); ok {
		p.string = e.Error
		return reflect.ValueOf(errorProxy{p, func() error { return e }}), true
	}
	p.string = x.(fmt.Stringer).String
	return reflect.ValueOf(p), true
}

// errorProxy is the stringProxy of an error, which it wraps (for %w,
// errors.Is and errors.As) behind a func: %#v of an error that wraps the
// proxy prints its fields, and a func prints as its address.
type errorProxy struct {
	stringProxy
	unwrap func() error
}

// Error implements error.
func (p errorProxy) Error() string { return p.string() }

// Unwrap returns the error p stands for.
func (p errorProxy) Unwrap() error { return p.unwrap() }
