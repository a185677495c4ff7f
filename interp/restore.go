package interp

import (
	"reflect"
	"sort"

	"github.com/byref/byref/internal/yaegi/unsafe2"
)

// A failed snippet must leave every variable as it was. Values it replaces
// are never read back, but storage it shares with the caller (slice
// elements, map entries, what pointers point to) changes in place. So
// before a snippet runs, the storage reachable from each variable the
// static pass says it writes is saved, shallowly, location by location; on
// failure every saved location is written back, which restores the whole
// graph (pointer fields, slice headers and map references included) as
// it was.
//
// Some storage cannot be saved: channels and funcs (their state is not a
// value), storage reached through unexported fields (reflect cannot write
// it back), and graphs larger than maxSnapshot locations. A variable
// reaching such storage is reported in [Result.Unrestored] on failure, so
// the caller can say it may have changed.

// maxSnapshot bounds the slice elements, map entries and pointees saved
// for one Eval.
const maxSnapshot = 1 << 20

type savedLoc struct {
	kind  reflect.Kind
	orig  reflect.Value // the pointee (addressable), the slice, or the map
	saved reflect.Value
}

type snapshot struct {
	locs   []savedLoc
	seen   map[visitKey]bool
	budget int
	ok     bool // false: something reachable could not be saved
}

type visitKey struct {
	ptr uintptr
	typ reflect.Type
	n   int
}

// takeSnapshot saves the storage reachable from v and reports whether all
// of it could be saved.
func takeSnapshot(v reflect.Value, budget int) (*snapshot, bool) {
	s := &snapshot{seen: map[visitKey]bool{}, budget: budget, ok: true}
	s.walk(v, true)
	return s, s.ok
}

// walk saves what v refers to; v itself is a copy the caller owns unless
// it was reached through shared storage (then an enclosing location saved
// it). writable is false below unexported fields.
func (s *snapshot) walk(v reflect.Value, writable bool) {
	if !s.ok || !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Chan, reflect.Func, reflect.UnsafePointer:
		if !v.IsNil() {
			s.ok = false
		}
	case reflect.Interface:
		if !v.IsNil() {
			s.walk(v.Elem(), writable)
		}
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		k := visitKey{v.Pointer(), v.Type(), 0}
		if s.seen[k] {
			return
		}
		s.seen[k] = true
		if !writable || !s.spend(1) {
			s.ok = false
			return
		}
		e := v.Elem()
		saved := reflect.New(e.Type()).Elem()
		saved.Set(e)
		s.locs = append(s.locs, savedLoc{reflect.Pointer, e, saved})
		s.walk(e, writable)
	case reflect.Slice:
		if v.IsNil() || v.Len() == 0 {
			return
		}
		k := visitKey{v.Pointer(), v.Type(), v.Len()}
		if s.seen[k] {
			return
		}
		s.seen[k] = true
		if !writable || !s.spend(v.Len()) {
			s.ok = false
			return
		}
		saved := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(saved, v)
		s.locs = append(s.locs, savedLoc{reflect.Slice, v, saved})
		if needsWalk(v.Type().Elem()) {
			for i := range v.Len() {
				s.walk(v.Index(i), writable)
			}
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		k := visitKey{v.Pointer(), v.Type(), 0}
		if s.seen[k] {
			return
		}
		s.seen[k] = true
		if !writable || !s.spend(v.Len()+1) {
			s.ok = false
			return
		}
		saved := reflect.MakeMapWithSize(v.Type(), v.Len())
		walkVals := needsWalk(v.Type().Elem()) || needsWalk(v.Type().Key())
		it := v.MapRange()
		for it.Next() {
			saved.SetMapIndex(it.Key(), it.Value())
			if walkVals {
				s.walk(it.Key(), writable)
				s.walk(it.Value(), writable)
			}
		}
		s.locs = append(s.locs, savedLoc{reflect.Map, v, saved})
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !needsWalk(f.Type) {
				continue
			}
			switch {
			case f.IsExported():
				s.walk(v.Field(i), writable)
			case snippetStruct(t):
				// The interpreter reads and sets these fields itself.
				s.walk(unsafe2.Exported(v.Field(i)), writable)
			default:
				s.walk(v.Field(i), false)
			}
		}
	case reflect.Array:
		if needsWalk(v.Type().Elem()) {
			for i := range v.Len() {
				s.walk(v.Index(i), writable)
			}
		}
	}
}

func (s *snapshot) spend(n int) bool {
	s.budget -= n
	return s.budget >= 0
}

// needsWalk reports whether values of t can refer to shared storage.
func needsWalk(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return false
	case reflect.Array:
		return needsWalk(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if needsWalk(t.Field(i).Type) {
				return true
			}
		}
		return false
	}
	return true
}

// restore writes every saved location back, innermost last so that
// enclosing locations are restored before what they point to is.
func (s *snapshot) restore() {
	for _, l := range s.locs {
		switch l.kind {
		case reflect.Pointer:
			l.orig.Set(l.saved)
		case reflect.Slice:
			reflect.Copy(l.orig, l.saved)
		case reflect.Map:
			l.orig.Clear()
			it := l.saved.MapRange()
			for it.Next() {
				l.orig.SetMapIndex(it.Key(), it.Value())
			}
		}
	}
}

// snapshots saves the variables in names, returning the snapshots and the
// names whose storage could not all be saved.
func snapshots(vars []Var, names []string) (snaps []*snapshot, unsaved []string) {
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	budget := maxSnapshot
	for _, v := range vars {
		if !want[v.Name] || !needsWalk(v.Value.Type()) {
			continue
		}
		s, ok := takeSnapshot(v.Value, budget)
		budget = s.budget
		if !ok {
			unsaved = append(unsaved, v.Name)
		}
		snaps = append(snaps, s)
	}
	sort.Strings(unsaved)
	return snaps, unsaved
}

// snippetStruct reports whether t is a struct type the interpreter built for
// a snippet's type: unnamed, its unexported fields under the package path
// "main" (internal/yaegi's refType).
func snippetStruct(t reflect.Type) bool {
	if t.Name() != "" {
		return false
	}
	for i := range t.NumField() {
		if f := t.Field(i); !f.IsExported() && f.PkgPath != "main" {
			return false
		}
	}
	return true
}
