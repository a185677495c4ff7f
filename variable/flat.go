package variable

import (
	"reflect"
	"strconv"
)

// A flat struct is a struct (or a pointer to one) whose fields are all
// numbers, booleans, strings or slices of numbers or booleans, none of
// them with methods: the usual result of an action (a forecast, a count
// and a list of values). Its preview is written by a plan made once per
// type, field after field, instead of by the general walk (value), which
// asks every value whether it describes itself, measures what it wrote
// and counts characters. The plan gives up, leaving the preview to the
// walk, as soon as a value is one the walk would write otherwise (a long
// or escaped string, a list that may not fit whole) or the preview comes
// near its limit; so what it writes is what the walk writes
// (TestFlatMatchesWalk holds it to that).

// flatField is one field of a flat struct's plan.
type flatField struct {
	// index is the field's index in its struct; prefix is written before
	// the value: "Name: ", after ", " for the fields after the first.
	index  int
	prefix string
	kind   reflect.Kind
	// elem is the kind of a slice's elements.
	elem reflect.Kind
}

// planOf returns the plan of struct type t, and false when t is not
// flat.
func planOf(t reflect.Type) ([]flatField, bool) {
	if t.NumMethod() > 0 {
		return nil, false
	}
	plan := make([]flatField, 0, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			// Never shown.
			continue
		}
		ft := f.Type
		if ft.NumMethod() > 0 {
			return nil, false
		}
		ff := flatField{index: i, prefix: f.Name + ": ", kind: ft.Kind()}
		if len(plan) > 0 {
			ff.prefix = ", " + ff.prefix
		}
		switch {
		case ff.kind == reflect.String, plainScalar(ft):
		case ff.kind == reflect.Slice && ft.Elem().Kind() != reflect.Uint8 && plainScalar(ft.Elem()):
			ff.elem = ft.Elem().Kind()
		default:
			return nil, false
		}
		plan = append(plan, ff)
	}
	return plan, true
}

// flat writes v by its type's plan and reports true, or writes nothing
// and reports false when v is not a flat struct or its preview is not
// one the plan writes as the walk would.
func (p *previewer) flat(v reflect.Value) bool {
	// Only a registered type without methods can be a handle here.
	if handlesRegistered.Load() && v.IsValid() && isHandle(v.Type()) {
		return false
	}
	amp := false
	if v.Kind() == reflect.Pointer {
		if v.IsNil() || v.Type().NumMethod() > 0 {
			return false
		}
		v, amp = v.Elem(), true
	}
	if v.Kind() != reflect.Struct || handlesRegistered.Load() && isHandle(v.Type()) {
		return false
	}
	info := infoOf(v.Type())
	if !info.hasPlan {
		return false
	}
	// Every piece written is ASCII but the names, so that, while the
	// preview stays shorter than its limit in bytes, it is in
	// characters too: the walk would neither cut it nor end it in "…".
	if amp {
		p.b = append(p.b, '&')
	}
	p.b = append(append(p.b, info.name...), '{')
	for _, f := range info.plan {
		p.b = append(p.b, f.prefix...)
		if !p.flatValue(v.Field(f.index), f) || len(p.b) >= p.limit {
			p.b = p.b[:0]
			return false
		}
	}
	p.b = append(p.b, '}')
	if len(p.b) >= p.limit {
		p.b = p.b[:0]
		return false
	}
	return true
}

// flatValue writes field v of a flat struct as the walk would (inside a
// value: quoted strings, lists whole) and reports true, or false when
// the walk would write it otherwise.
func (p *previewer) flatValue(v reflect.Value, f flatField) bool {
	switch f.kind {
	case reflect.String:
		// quoted's common short word.
		s := v.String()
		if len(s)+2 > 60 || !plainASCII(s) {
			return false
		}
		p.b = append(append(append(p.b, '"'), s...), '"')
		return true
	case reflect.Slice:
		if v.IsNil() {
			p.b = append(p.b, "nil"...)
			return true
		}
		// whole's numbers or booleans with room to spare.
		n := v.Len()
		if len(p.b)+n*maxScalar+4 > p.limit {
			return false
		}
		p.b = append(p.b, '[')
		for i := range n {
			if i > 0 {
				p.b = append(p.b, ", "...)
			}
			p.scalar(v.Index(i), f.elem)
		}
		p.b = append(p.b, ']')
		return true
	}
	p.scalar(v, f.kind)
	return true
}

// scalar writes a boolean, an integer or a float of kind k; value writes
// those kinds with it too.
func (p *previewer) scalar(v reflect.Value, k reflect.Kind) {
	switch k {
	case reflect.Bool:
		p.b = strconv.AppendBool(p.b, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.b = strconv.AppendInt(p.b, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.b = strconv.AppendUint(p.b, v.Uint(), 10)
	case reflect.Float64:
		if b, ok := appendShortFloat(p.b, v.Float()); ok {
			p.b = b
			return
		}
		p.b = strconv.AppendFloat(p.b, v.Float(), 'g', -1, 64)
	case reflect.Float32:
		p.b = strconv.AppendFloat(p.b, v.Float(), 'g', -1, 32)
	}
}
