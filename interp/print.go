package interp

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"reflect"
	"slices"

	yaegi "github.com/byref/byref/internal/yaegi/interp"
)

// fmt and encoding/json (and xml) recurse in host code over the values a
// snippet gives them, outside the sandbox's call-depth counter: a cyclic
// value (a := []any{nil}; a[0] = a) or a very deep one overflowed the Go
// stack, which kills the process. The sandbox's versions of their printing
// and marshalling functions first walk their arguments, as the real
// function would, and panic with ErrPrintLimit on a cycle, on nesting
// deeper than maxPrintDepth, or on more than maxPrintItems elements.
// The walk does not enter a handle (printhandles.go): fmt prints its
// preview, and encoding/json and xml see only its exported fields, for
// which a *sql.DB's internal cycles are no concern.

const (
	// maxPrintDepth bounds the nesting of a printed or marshalled value.
	maxPrintDepth = 1000
	// maxPrintItems bounds the elements, fields and entries visited.
	maxPrintItems = 1 << 22
)

// printPanic is the panic value of a refused print or marshal.
type printPanic struct{ msg string }

func (p printPanic) Error() string { return p.msg }

var (
	stringerType  = reflect.TypeFor[fmt.Stringer]()
	errorType     = reflect.TypeFor[error]()
	formatterType = reflect.TypeFor[fmt.Formatter]()
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	xmlMarshaler  = reflect.TypeFor[xml.Marshaler]()
)

// printCheck walks the values a printing function is about to traverse.
type printCheck struct {
	what     string
	deref    bool // follow pointers at any depth (json, xml); fmt only at the top
	stopAt   []reflect.Type
	items    int
	onPath   map[visitKey]bool
	maxDepth int
	// handles is set when a handle was seen.
	handles bool
	memo    handleMemo
}

// checkPrint walks args and reports whether they hold a handle
// (printsAsHandle) where the walk goes.
func checkPrint(what string, deref bool, stopAt []reflect.Type, args ...any) (handles bool) {
	var c *printCheck
	for _, a := range args {
		switch a.(type) {
		case nil, string, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
			float32, float64, complex64, complex128:
			continue // the common case: nothing to walk
		}
		if c == nil {
			c = &printCheck{what: what, deref: deref, stopAt: stopAt, maxDepth: maxPrintDepth}
		}
		c.walk(reflect.ValueOf(a), 0)
	}
	return c != nil && c.handles
}

func (c *printCheck) fail(why string) {
	panic(printPanic{fmt.Sprintf("%s: the value %s; print or encode a part of it", c.what, why)})
}

func (c *printCheck) walk(v reflect.Value, depth int) {
	if !v.IsValid() {
		return
	}
	if depth > c.maxDepth {
		c.fail(fmt.Sprintf("is nested more than %d levels deep", c.maxDepth))
	}
	c.items++
	if c.items > maxPrintItems {
		c.fail(fmt.Sprintf("has more than %d elements", maxPrintItems))
	}
	if mayBeHandle(v.Kind()) && c.memo.printsAsHandle(v.Type()) {
		c.handles = true
		return
	}
	for _, t := range c.stopAt {
		if v.Type().Implements(t) {
			if !c.handles && !c.deref {
				// fmt prints the data of a snippet's Stringer for %#v
				// and %d.
				c.handles = peekWrapped(v, depth) != noHandle
			}
			return // the value prints itself
		}
	}
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			c.walk(v.Elem(), depth+1)
		}
	case reflect.Pointer:
		if v.IsNil() || (!c.deref && depth > 0) {
			return
		}
		c.enter(visitKey{v.Pointer(), v.Type(), 0}, func() { c.walk(v.Elem(), depth+1) })
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		if !needsWalk(v.Type().Elem()) {
			c.items += v.Len()
			if c.items > maxPrintItems {
				c.fail(fmt.Sprintf("has more than %d elements", maxPrintItems))
			}
			return
		}
		c.enter(visitKey{v.Pointer(), v.Type(), v.Len()}, func() {
			for i := range v.Len() {
				c.walk(v.Index(i), depth+1)
			}
		})
	case reflect.Array:
		if !needsWalk(v.Type().Elem()) {
			c.items += v.Len()
			return
		}
		for i := range v.Len() {
			c.walk(v.Index(i), depth+1)
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		c.enter(visitKey{v.Pointer(), v.Type(), 0}, func() {
			it := v.MapRange()
			for it.Next() {
				c.walk(it.Key(), depth+1)
				c.walk(it.Value(), depth+1)
			}
		})
	case reflect.Struct:
		for i := range v.NumField() {
			c.walk(v.Field(i), depth+1)
		}
	}
}

// enter walks into shared storage, refusing a cycle (storage already on
// the path from the argument).
func (c *printCheck) enter(k visitKey, walk func()) {
	if c.onPath == nil {
		c.onPath = map[visitKey]bool{}
	}
	if c.onPath[k] {
		c.fail("contains itself (a cycle)")
	}
	c.onPath[k] = true
	walk()
	delete(c.onPath, k)
}

var fmtStops = []reflect.Type{stringerType, errorType, formatterType}
var jsonStops = []reflect.Type{jsonMarshaler}
var xmlStops = []reflect.Type{xmlMarshaler}

// fmtArgs checks fmt's arguments a (checkPrint) and makes them print as
// compiled Go's would, but for handles, which print as their previews
// (hideArgs): format is the Printf family's, "" for the others.
func fmtArgs(what, format string, a []any) {
	if checkPrint(what, false, fmtStops, a...) {
		hideArgs(format, a)
	}
	errs := what != "fmt.Errorf"
	for i, x := range a {
		if p, ok := stringerProxy(x, errs); ok {
			a[i] = p
		} else if xs, ok := x.([]any); ok {
			// The elements of a slice of such values (the interpreter
			// hands them over as a []any of wrappers), in a copy.
			var ys []any
			for j, e := range xs {
				if p, ok := stringerProxy(e, errs); ok {
					if ys == nil {
						ys = slices.Clone(xs)
						a[i] = ys
					}
					ys[j] = p
				}
			}
		} else if v := reflect.ValueOf(x); v.Kind() == reflect.Map && v.Type().Elem() == anyType {
			// The values of a map of such values (a map[K]any of
			// wrappers), in a copy.
			a[i] = proxyMapValues(v, errs)
		}
	}
}

var anyType = reflect.TypeFor[any]()

// proxyMapValues returns m, or a copy of m whose values that are
// interpreted Stringers are their proxies.
func proxyMapValues(m reflect.Value, errs bool) any {
	var out reflect.Value
	for it := m.MapRange(); it.Next(); {
		if _, ok := stringerProxy(it.Value().Interface(), errs); ok {
			out = reflect.MakeMapWithSize(m.Type(), m.Len())
			break
		}
	}
	if !out.IsValid() {
		return m.Interface()
	}
	for it := m.MapRange(); it.Next(); {
		v := it.Value()
		if p, ok := stringerProxy(v.Interface(), errs); ok {
			v = reflect.ValueOf(p)
		}
		out.SetMapIndex(it.Key(), v)
	}
	return out.Interface()
}

// stringProxy formats a value of a snippet's type with a String (or an
// Error) method as fmt formats a compiled one: through the method for %v, %s, %q, %x and %X,
// as the value itself for the other verbs (%d of a named integer type with
// a String method prints the integer). The interpreter hands such a value
// to fmt in a wrapper struct (the value, then the method), which fmt
// printed field by field for the other verbs.
type stringProxy struct {
	value  any
	string func() string
	// plain: the method formats the value for every verb (its data is
	// beyond the print limits and holds a handle).
	plain bool
}

// Format implements fmt.Formatter.
func (p stringProxy) Format(f fmt.State, verb rune) {
	switch {
	case p.plain:
		fmt.Fprintf(f, fmt.FormatString(f, 's'), p.string())
	case verb == 'v' && f.Flag('#'), verb != 'v' && verb != 's' && verb != 'q' && verb != 'x' && verb != 'X':
		fmt.Fprintf(f, fmt.FormatString(f, verb), withoutHandles(p.value))
	default:
		fmt.Fprintf(f, fmt.FormatString(f, verb), p.string())
	}
}

// String implements fmt.Stringer.
func (p stringProxy) String() string { return p.string() }

// stringerProxy returns the proxy of x when x is the interpreter's wrapper
// of a value with a String method only or, when errs, with an Error
// method only (fmt.Errorf keeps its error operands as they are, for %w).
func stringerProxy(x any, errs bool) (stringProxy, bool) {
	v := reflect.ValueOf(x)
	if !v.IsValid() || v.Kind() != reflect.Struct || v.NumField() != 2 {
		return stringProxy{}, false
	}
	t := v.Type()
	if t.Field(0).Name != "IValue" {
		return stringProxy{}, false
	}
	if _, isFmt := x.(fmt.Formatter); isFmt {
		return stringProxy{}, false
	}
	switch t.Field(1).Name {
	case "WString":
		if _, isErr := x.(error); isErr || !t.Implements(stringerType) {
			return stringProxy{}, false
		}
		return stringProxy{value: v.Field(0).Interface(), string: x.(fmt.Stringer).String}, true
	case "WError":
		if e, isErr := x.(error); errs && isErr {
			return stringProxy{value: v.Field(0).Interface(), string: e.Error}, true
		}
	}
	return stringProxy{}, false
}

// The bounded functions, by package and name. They are package-level
// values so that yaegi's MapTypes (which lets interpreted Stringers reach
// fmt) can key on them once per process.
var boundedFmt = map[string]any{
	"Sprint":   func(a ...any) string { fmtArgs("fmt.Sprint", "", a); return fmt.Sprint(a...) },
	"Sprintln": func(a ...any) string { fmtArgs("fmt.Sprintln", "", a); return fmt.Sprintln(a...) },
	"Sprintf": func(format string, a ...any) string {
		format, a = typeNames(format, a)
		fmtArgs("fmt.Sprintf", format, a)
		return fmt.Sprintf(format, a...)
	},
	"Fprint": func(w io.Writer, a ...any) (int, error) { fmtArgs("fmt.Fprint", "", a); return fmt.Fprint(w, a...) },
	"Fprintln": func(w io.Writer, a ...any) (int, error) {
		fmtArgs("fmt.Fprintln", "", a)
		return fmt.Fprintln(w, a...)
	},
	"Fprintf": func(w io.Writer, format string, a ...any) (int, error) {
		format, a = typeNames(format, a)
		fmtArgs("fmt.Fprintf", format, a)
		return fmt.Fprintf(w, format, a...)
	},
	"Errorf": func(format string, a ...any) error {
		format, a = typeNames(format, a)
		fmtArgs("fmt.Errorf", format, a)
		return fmt.Errorf(format, a...)
	},
	"Append": func(b []byte, a ...any) []byte { fmtArgs("fmt.Append", "", a); return fmt.Append(b, a...) },
	"Appendln": func(b []byte, a ...any) []byte {
		fmtArgs("fmt.Appendln", "", a)
		return fmt.Appendln(b, a...)
	},
	"Appendf": func(b []byte, format string, a ...any) []byte {
		format, a = typeNames(format, a)
		fmtArgs("fmt.Appendf", format, a)
		return fmt.Appendf(b, format, a...)
	},
}

// fmtOriginals are the real functions the bounded ones stand for, whose
// MapTypes entries they take.
var fmtOriginals = map[string]any{
	"Sprint": fmt.Sprint, "Sprintln": fmt.Sprintln, "Sprintf": fmt.Sprintf,
	"Fprint": fmt.Fprint, "Fprintln": fmt.Fprintln, "Fprintf": fmt.Fprintf,
	"Errorf": fmt.Errorf, "Append": fmt.Append, "Appendln": fmt.Appendln, "Appendf": fmt.Appendf,
}

var boundedJSON = map[string]any{
	"Marshal": func(v any) ([]byte, error) {
		checkPrint("json.Marshal", true, jsonStops, v)
		return json.Marshal(v)
	},
	"MarshalIndent": func(v any, prefix, indent string) ([]byte, error) {
		checkPrint("json.MarshalIndent", true, jsonStops, v)
		return json.MarshalIndent(v, prefix, indent)
	},
	"NewEncoder": func(w io.Writer) *safeEncoder { return &safeEncoder{json.NewEncoder(w)} },
	"Encoder":    (*safeEncoder)(nil),
}

var jsonOriginals = map[string]any{"Marshal": json.Marshal, "MarshalIndent": json.MarshalIndent}

var boundedXML = map[string]any{
	"Marshal": func(v any) ([]byte, error) {
		checkPrint("xml.Marshal", true, xmlStops, v)
		return xml.Marshal(v)
	},
	"MarshalIndent": func(v any, prefix, indent string) ([]byte, error) {
		checkPrint("xml.MarshalIndent", true, xmlStops, v)
		return xml.MarshalIndent(v, prefix, indent)
	},
}

var xmlOriginals = map[string]any{"Marshal": xml.Marshal, "MarshalIndent": xml.MarshalIndent}

// safeEncoder stands for json.Encoder in snippets, so that Encode checks
// its value first.
type safeEncoder struct{ e *json.Encoder }

// Encode checks v, then writes its JSON encoding (see json.Encoder.Encode).
func (s *safeEncoder) Encode(v any) error {
	checkPrint("json.Encoder.Encode", true, jsonStops, v)
	return s.e.Encode(v)
}

// SetIndent sets the indentation (see json.Encoder.SetIndent).
func (s *safeEncoder) SetIndent(prefix, indent string) { s.e.SetIndent(prefix, indent) }

// SetEscapeHTML sets HTML escaping (see json.Encoder.SetEscapeHTML).
func (s *safeEncoder) SetEscapeHTML(on bool) { s.e.SetEscapeHTML(on) }

// boundPrinting replaces the printing functions in the process-wide table
// and keys their MapTypes entries; called once from loadStd.
func boundPrinting(table map[string]map[string]reflect.Value, mapTypes map[reflect.Value][]reflect.Type) {
	for _, p := range []struct {
		key       string
		bounded   map[string]any
		originals map[string]any
	}{
		{"fmt/fmt", boundedFmt, fmtOriginals},
		{"encoding/json/json", boundedJSON, jsonOriginals},
		{"encoding/xml/xml", boundedXML, xmlOriginals},
	} {
		syms, ok := table[p.key]
		if !ok {
			continue
		}
		syms = override(syms, nil)
		for name, f := range p.bounded {
			v := reflect.ValueOf(f)
			syms[name] = v
			if orig, ok := p.originals[name]; ok {
				if mt, ok := mapTypes[reflect.ValueOf(orig)]; ok {
					mapTypes[v] = mt
				}
			}
			if formatsTypes[p.key+"."+name] {
				// yaegi hands these their arguments' type names for %T
				// (typeNames).
				mapTypes[v] = append(slices.Clone(mapTypes[v]), yaegi.TypeNameMarker)
			}
		}
		table[p.key] = syms
	}
}
