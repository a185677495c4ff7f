package eval

import (
	"fmt"
	"reflect"
	"time"

	"github.com/byref/byref/variable"
)

// Each trial starts from values of its own: an action that changes its
// input in place changes the trial's copy, never the case's value (which
// Save writes) nor another trial's. A starting value given as JSON is
// decoded afresh for each trial; one given in Go (Var.Go) is copied deep
// by deepCopy.

// deepCopy returns a copy of v that shares nothing a trial could change
// with v: pointers, slices, maps, arrays, interfaces and exported fields
// are copied all the way down (shared and cyclic pointers stay shared and
// cyclic within the copy). Funcs and handles (variable.IsHandle: a *sql.DB,
// a client, a file), which stand for something outside the value, are
// shared. A value it cannot copy is refused with why: a channel, an unsafe
// pointer, or an unexported field that holds a reference (it cannot be
// written through reflection).
// name names v in a refusal.
func deepCopy(v any, name string) (any, error) {
	if v == nil {
		return nil, nil
	}
	c := copier{seen: map[seenPtr]reflect.Value{}}
	out, err := c.copy(reflect.ValueOf(v), name)
	if err != nil {
		return nil, err
	}
	return out.Interface(), nil
}

// seenPtr identifies a pointer already copied.
type seenPtr struct {
	p uintptr
	t reflect.Type
}

type copier struct {
	seen map[seenPtr]reflect.Value
}

// immutable are types with unexported reference fields whose values are
// never changed in place.
var immutable = map[reflect.Type]bool{reflect.TypeFor[time.Time](): true, reflect.TypeFor[*time.Location](): true}

// copy copies v; path names it in a refusal ("tickets[0].Tags").
func (c *copier) copy(v reflect.Value, path string) (reflect.Value, error) {
	t := v.Type()
	if immutable[t] || variable.IsHandle(t) || !variable.NeedsFingerprint(t) && t.Kind() != reflect.Interface {
		return v, nil
	}
	switch t.Kind() {
	case reflect.Func:
		return v, nil
	case reflect.Chan, reflect.UnsafePointer:
		if v.IsNil() {
			return v, nil
		}
		return v, fmt.Errorf("%s is a %s, which a trial cannot have a copy of; make the channel in the action, or give the case a value without one", path, t)
	case reflect.Interface:
		if v.IsNil() {
			return v, nil
		}
		e, err := c.copy(v.Elem(), path)
		if err != nil {
			return v, err
		}
		out := reflect.New(t).Elem()
		out.Set(e)
		return out, nil
	case reflect.Pointer:
		if v.IsNil() {
			return v, nil
		}
		k := seenPtr{v.Pointer(), t}
		if p, ok := c.seen[k]; ok {
			return p, nil
		}
		p := reflect.New(t.Elem())
		c.seen[k] = p
		e, err := c.copy(v.Elem(), "(*"+path+")")
		if err != nil {
			return v, err
		}
		p.Elem().Set(e)
		return p, nil
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && v.IsNil() {
			return v, nil
		}
		out := reflect.New(t).Elem()
		if t.Kind() == reflect.Slice {
			out = reflect.MakeSlice(t, v.Len(), v.Cap())
		}
		for i := range v.Len() {
			e, err := c.copy(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return v, err
			}
			out.Index(i).Set(e)
		}
		return out, nil
	case reflect.Map:
		if v.IsNil() {
			return v, nil
		}
		out := reflect.MakeMapWithSize(t, v.Len())
		for it := v.MapRange(); it.Next(); {
			e, err := c.copy(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key()))
			if err != nil {
				return v, err
			}
			out.SetMapIndex(it.Key(), e)
		}
		return out, nil
	case reflect.Struct:
		out := reflect.New(t).Elem()
		out.Set(v) // the fields that hold no reference, unexported ones too
		for i := range t.NumField() {
			f := t.Field(i)
			if !variable.NeedsFingerprint(f.Type) || immutable[f.Type] || variable.IsHandle(f.Type) || f.Type.Kind() == reflect.Func {
				continue
			}
			if !f.IsExported() {
				return v, fmt.Errorf("%s.%s is an unexported field of type %s, which eval cannot copy for each trial; give the value as JSON (Var.JSON with Set.Types), or keep what the trials may share behind a handle (variable.RegisterHandle)", path, f.Name, f.Type)
			}
			e, err := c.copy(v.Field(i), path+"."+f.Name)
			if err != nil {
				return v, err
			}
			out.Field(i).Set(e)
		}
		return out, nil
	}
	return v, nil
}
