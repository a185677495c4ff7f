package interp

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"

	yaegi "github.com/byref/byref/internal/yaegi/interp"
)

// Giving kept errors back. A *SnippetError the host holds (in a variable, a
// slice or map element, a field, a pointee) is, for a later snippet, the
// value of the snippet's type it was kept from: before the snippet's code
// runs, each one is replaced by a value of that type as the current yaegi
// instance declares it, built by interpreted code
// (`_byref.Back(i).(*StockError)` passed to a host func taking an error), so
// its methods are the instance's own. This holds across rebuilds of the
// instance: the declarations of earlier snippets are replayed first. When
// the snippet ends, every slot that still holds such a value gets its
// SnippetError back (written variables are kept again, as any error of a
// snippet type is).
//
// A SnippetError whose type is no longer declared, or declared anew with
// other fields (in Go a different type), stays a *SnippetError, as does one
// whose type could not be told apart from another declared type when it
// was kept. One declared anew with the
// same name and fields takes it back (Go would not: yaegi gives both the
// same reflect type).

// snippetErrorsMade is set once any Eval of the process kept a
// SnippetError: until then no Eval looks for one in its variables.
var snippetErrorsMade atomic.Bool

// backState is what the sandbox's Of, Back and Put read and fill while
// the give-back code runs.
type backState struct {
	types []string // type expressions, as the snippet writes them (*StockError)
	of    [][]int  // per type, the indices of its items
	data  []any    // per item, SnippetError.Value
	out   []reflect.Value
}

// backItem is one *SnippetError found in a slot that can be set.
type backItem struct {
	se   *SnippetError
	slot func() reflect.Value // the slot's current value
	set  func(reflect.Value)
}

// backFinder walks the variables' values for SnippetErrors to give back.
type backFinder struct {
	items []backItem
	seen  map[seenKey]bool
	found bool // a SnippetError to give back was seen, settable or not
}

func (f *backFinder) visited(v reflect.Value, n int) bool {
	key := seenKey{v.Type(), v.Pointer(), n}
	if f.seen[key] {
		return true
	}
	if f.seen == nil {
		f.seen = map[seenKey]bool{}
	}
	f.seen[key] = true
	return false
}

// walk finds the SnippetErrors in v, which is settable where its storage
// can be written (a global, a slice element, a pointee).
func (f *backFinder) walk(v reflect.Value) {
	if !v.IsValid() || !mayHoldInterface(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		if e.Type() == snippetErrorType {
			se := snippetErrorIn(e)
			f.found = f.found || se != nil
			if se != nil && v.CanSet() {
				f.items = append(f.items, backItem{se: se, slot: func() reflect.Value { return v }, set: v.Set})
				f.walkData(se)
			}
			return
		}
		if k := e.Kind(); k == reflect.Pointer || k == reflect.Slice || k == reflect.Map {
			f.walk(e) // shared storage; a value in an interface cannot be set
		}
	case reflect.Pointer:
		if !v.IsNil() && !f.visited(v, 0) {
			f.walk(v.Elem())
		}
	case reflect.Slice:
		if !v.IsNil() && !f.visited(v, v.Len()) {
			for i := range v.Len() {
				f.walk(v.Index(i))
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			f.walk(v.Index(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.walk(v.Field(i))
			}
		}
	case reflect.Map:
		if v.IsNil() || f.visited(v, 0) {
			return
		}
		iface := v.Type().Elem().Kind() == reflect.Interface
		it := v.MapRange()
		for it.Next() {
			ev := it.Value()
			if iface {
				if ev.IsNil() {
					continue
				}
				if se := snippetErrorIn(ev.Elem()); se != nil {
					f.found = true
					m, key := v, it.Key()
					f.items = append(f.items, backItem{se: se, slot: func() reflect.Value { return m.MapIndex(key) }, set: func(nv reflect.Value) { m.SetMapIndex(key, nv) }})
					f.walkData(se)
					continue
				}
				ev = ev.Elem()
			}
			if k := ev.Kind(); k == reflect.Pointer || k == reflect.Slice || k == reflect.Map {
				f.walk(ev)
			}
		}
	}
}

// walkData walks the data of a kept error held by a pointer (an error
// field of the snippet's error type: type Wrap struct{ Err error }).
func (f *backFinder) walkData(se *SnippetError) {
	if d := reflect.ValueOf(se.Value); d.Kind() == reflect.Pointer {
		f.walk(d)
	}
}

// snippetErrorIn returns the *SnippetError e is, when it is one that can
// be given back (its type was named when it was kept).
func snippetErrorIn(e reflect.Value) *SnippetError {
	if e.Type() != snippetErrorType || e.IsNil() || !e.CanInterface() {
		return nil
	}
	se := e.Interface().(*SnippetError)
	if se.typ == "" || se.Value == nil {
		return nil
	}
	return se
}

// giveBack replaces the SnippetErrors reachable from the globals of the
// input variables by values of their snippet types. It returns the names
// of the variables it changed something under, and an undo that puts the
// SnippetError back in every slot that still holds the value given (run it
// when the Eval ends, after the values were read back and kept).
func (in *Interpreter) giveBack(ctx context.Context, inst *instance, vars []Var) (changed map[string]bool, undo func(), err error) {
	var f backFinder
	var owner []string
	for _, v := range vars {
		if !mayHoldInterface(v.Value.Type()) {
			continue
		}
		g, ok := inst.yi.Global(v.Name)
		if !ok || !g.IsValid() {
			continue
		}
		n := len(f.items)
		f.walk(g)
		for range len(f.items) - n {
			owner = append(owner, v.Name)
		}
	}
	st := &backState{out: make([]reflect.Value, len(f.items)), data: make([]any, len(f.items))}
	typeIndex := map[string]int{}
	current := map[string]reflect.Type{} // type expression -> its values' type in this instance
	for i, it := range f.items {
		want, seen := current[it.se.typ]
		if !seen {
			name, ptr := strings.CutPrefix(it.se.typ, "*")
			if rt, ok := inst.yi.GlobalType(name); ok {
				want = rt
				if ptr {
					want = reflect.PointerTo(rt)
				}
			}
			current[it.se.typ] = want
		}
		if want == nil || reflect.TypeOf(it.se.Value) != want {
			// The type is no longer declared, or was declared anew
			// with other fields: in Go a value of the old type is not
			// one of the new, so it stays as kept.
			continue
		}
		t, ok := typeIndex[it.se.typ]
		if !ok {
			t = len(st.types)
			typeIndex[it.se.typ] = t
			st.types = append(st.types, it.se.typ)
			st.of = append(st.of, nil)
		}
		st.of[t] = append(st.of[t], i)
		st.data[i] = it.se.Value
	}
	if len(st.types) == 0 {
		return nil, func() {}, nil
	}
	inst.g.back = st
	defer func() { inst.g.back = nil }()
	for t, typ := range st.types {
		src := fmt.Sprintf("for _, i := range _byref.Of(%d) { v := _byref.Back(i).(%s); _byref.Put(i, v) }", t, typ)
		// The items' types were checked above; an error other than a
		// stop leaves them as kept (their out stays unset).
		if err := evalText(ctx, inst.yi, src); err != nil && ctx.Err() != nil {
			return nil, nil, err
		}
	}
	var undos []func()
	for i, it := range f.items {
		nv := st.out[i]
		if cur := it.slot(); !nv.IsValid() || !cur.IsValid() || !nv.Type().AssignableTo(cur.Type()) {
			continue
		}
		it.set(nv)
		if changed == nil {
			changed = map[string]bool{}
		}
		changed[owner[i]] = true
		se, slot, set := it.se, it.slot, it.set
		undos = append(undos, func() {
			if cur := slot(); cur.IsValid() && cur.Kind() == reflect.Interface && !cur.IsNil() && givenBack(cur.Elem(), se) {
				set(reflect.ValueOf(se))
			}
		})
	}
	return changed, func() {
		for _, u := range undos {
			u()
		}
	}, nil
}

// givenBack reports whether w is the interpreter's wrapper holding the data
// of se (as given back), not a value the snippet stored in its place.
func givenBack(w reflect.Value, se *SnippetError) bool {
	if _, ok := wrapperMethods(w.Type()); !ok {
		return false
	}
	d := w.Field(0)
	for d.Kind() == reflect.Interface && !d.IsNil() {
		d = d.Elem()
	}
	if held, ok := yaegi.HeldValue(d); ok {
		d = held
	}
	sv := reflect.ValueOf(se.Value)
	if !d.IsValid() || d.Type() != sv.Type() {
		return false
	}
	if d.Kind() == reflect.Pointer {
		return d.Pointer() == sv.Pointer()
	}
	return true
}

// typeNamer names the snippet type of a kept error's data among the
// types the snippets declared (the earlier ones and the current one's).
type typeNamer struct {
	in      *Interpreter
	inst    *instance
	current [][]string
	m       map[reflect.Type]string
}

// typeName returns the type expression (T or *T) whose values have the
// reflect type rt: "" when no declared type or more than one does.
func (tn *typeNamer) typeName(rt reflect.Type) string {
	if tn.m == nil {
		tn.m = map[reflect.Type]string{}
		for _, d := range tn.in.decls {
			tn.add(d.names)
		}
		for _, names := range tn.current {
			tn.add(names)
		}
	}
	return tn.m[rt]
}

func (tn *typeNamer) add(names []string) {
	for _, n := range names {
		if strings.Contains(n, ".") {
			continue // a method
		}
		t, ok := tn.inst.yi.GlobalType(n)
		if !ok || t == nil {
			continue
		}
		for _, c := range [2]struct {
			t    reflect.Type
			name string
		}{{t, n}, {reflect.PointerTo(t), "*" + n}} {
			if old, dup := tn.m[c.t]; dup && old != c.name {
				tn.m[c.t] = "" // two declared types with one reflect type
			} else {
				tn.m[c.t] = c.name
			}
		}
	}
}

// backOf returns the indices of the items of type t (_byref.Of).
func (g *guard) backOf(t int) []int { return g.back.of[t] }

// backData returns item i's data (_byref.Back).
func (g *guard) backData(i int) any { return g.back.data[i] }

// backPut receives item i as a value of its snippet type (_byref.Put).
func (g *guard) backPut(i int, e error) { g.back.out[i] = reflect.ValueOf(&e).Elem() }

// holdSnippetErrors reports whether the values of vars reach a
// SnippetError to give back (once any was made in the process).
func holdSnippetErrors(vars []Var) bool {
	if !snippetErrorsMade.Load() {
		return false
	}
	var f backFinder
	for _, v := range vars {
		if mayHoldInterface(v.Value.Type()) {
			f.walk(v.Value)
			if f.found {
				return true
			}
		}
	}
	return false
}
