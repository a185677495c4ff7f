package variable

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// ErrNotFound is returned for a name that is not a variable of the set.
var ErrNotFound = errors.New("variable: not found")

// Set is the collection of variables of one run, in the order they were
// created. The zero Set is empty and ready to use, with DefaultPreviewLimit.
//
// A Set is not safe for concurrent use; the runtime that owns it serialises
// access.
type Set struct {
	// PreviewLimit bounds the previews recorded in histories; zero means
	// DefaultPreviewLimit.
	PreviewLimit int

	vars  map[string]*Variable
	order []string
	// next is, per base name, the suffix FreeName tries first: names are
	// found in constant time however many results share a base.
	next map[string]int
}

// Len returns the number of variables.
func (s *Set) Len() int { return len(s.order) }

// Names returns the variables' names in creation order.
func (s *Set) Names() []string { return slices.Clone(s.order) }

// Get returns a copy of the named variable.
func (s *Set) Get(name string) (Variable, bool) {
	v, ok := s.vars[name]
	if !ok {
		return Variable{}, false
	}
	c := *v
	c.History = slices.Clone(v.History)
	return c, true
}

// Head returns the named variable with only its latest change in History,
// without copying the rest: the cheap read for code that runs on every
// call. The History it returns shares the set's storage: do not modify it.
func (s *Set) Head(name string) (Variable, bool) {
	v, ok := s.vars[name]
	if !ok {
		return Variable{}, false
	}
	c := *v
	n := len(v.History)
	c.History = v.History[max(n-1, 0):n:n]
	return c, true
}

// Value returns the named variable's value and static type without copying
// its history.
func (s *Set) Value(name string) (any, reflect.Type, bool) {
	v, ok := s.vars[name]
	if !ok {
		return nil, nil, false
	}
	return v.Value, v.Type, true
}

// All returns copies of every variable in creation order.
func (s *Set) All() []Variable {
	out := make([]Variable, 0, len(s.order))
	for _, n := range s.order {
		v, _ := s.Get(n)
		out = append(out, v)
	}
	return out
}

// Define adds the variable described by spec, or replaces the variable of
// that name (its type, description and secret flag included). It reports
// whether the variable is new. step and by are recorded in the history.
func (s *Set) Define(spec Spec, step int, by string) (created bool, err error) {
	if err := ValidName(spec.Name); err != nil {
		return false, err
	}
	t, err := spec.resolveType()
	if err != nil {
		return false, err
	}
	if s.vars == nil {
		s.vars = make(map[string]*Variable)
	}
	v, exists := s.vars[spec.Name]
	kind := Assigned
	if !exists {
		// A new variable and its first change are one allocation: most
		// variables (a call's results) never change again.
		nv := new(newVariable)
		v = &nv.v
		v.Name, v.History = spec.Name, nv.first[:0:1]
		s.vars[spec.Name] = v
		s.order = append(s.order, spec.Name)
		kind = Created
	}
	v.Value, v.Type, v.Description, v.Secret, v.Tainted, v.RunOnly = spec.Value, t, spec.Description, spec.Secret, spec.Tainted, spec.RunOnly
	s.record(v, step, kind, by)
	return !exists, nil
}

// Assign gives an existing variable a new value of a type assignable to the
// variable's type; the variable keeps its type.
func (s *Set) Assign(name string, value any, step int, by string) error {
	v, ok := s.vars[name]
	if !ok {
		return fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	if value != nil && !reflect.TypeOf(value).AssignableTo(v.Type) {
		return fmt.Errorf("variable %q has type %s; a %s cannot be assigned to it", name, v.TypeName(), reflect.TypeOf(value))
	}
	if value == nil && !nilable(v.Type) {
		return fmt.Errorf("variable %q has type %s; nil cannot be assigned to it", name, v.TypeName())
	}
	v.Value = value
	s.record(v, step, Assigned, by)
	return nil
}

// Touch records that the named variable's value was changed in place (through
// a pointer, a slice or a map it holds).
func (s *Set) Touch(name string, step int, by string) error {
	v, ok := s.vars[name]
	if !ok {
		return fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	s.record(v, step, Modified, by)
	return nil
}

// Changes returns how many changes the named variable's history holds: a
// number that grows whenever the set records a change of it (0 for a name
// that is not a variable). Caches of what a value holds key on it.
func (s *Set) Changes(name string) int {
	if v, ok := s.vars[name]; ok {
		return len(v.History)
	}
	return 0
}

// Taint marks the named variable as derived from a secret (see
// Variable.Tainted). A secret stays secret. Its latest history entry's
// preview is redacted too.
func (s *Set) Taint(name string) error {
	v, ok := s.vars[name]
	if !ok {
		return fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	if v.Secret || v.Tainted {
		return nil
	}
	v.Tainted = true
	if n := len(v.History); n > 0 {
		v.History[n-1].Preview = v.Preview(s.PreviewLimit)
	}
	return nil
}

// Delete removes the named variable and reports whether it existed.
func (s *Set) Delete(name string) bool {
	if _, ok := s.vars[name]; !ok {
		return false
	}
	delete(s.vars, name)
	s.order = slices.DeleteFunc(s.order, func(n string) bool { return n == name })
	// A freed base_k is the first free name of its base again.
	if i := strings.LastIndexByte(name, '_'); i > 0 {
		if k, err := strconv.Atoi(name[i+1:]); err == nil && k >= 2 && s.next[name[:i]] > k {
			s.next[name[:i]] = k
		}
	}
	return true
}

// FreeName returns base if no variable has that name, else the first of
// base_2, base_3, … that is free. base must be a valid name.
func (s *Set) FreeName(base string) string {
	if _, taken := s.vars[base]; !taken {
		return base
	}
	i := max(s.next[base], 2)
	buf := make([]byte, 0, len(base)+8)
	for ; ; i++ {
		buf = strconv.AppendInt(append(append(buf[:0], base...), '_'), int64(i), 10)
		if _, taken := s.vars[string(buf)]; !taken { // no allocation for the lookup
			break
		}
	}
	if s.next == nil {
		s.next = make(map[string]int)
	}
	s.next[base] = i + 1
	return string(buf)
}

// newVariable is a variable with room for its first change.
type newVariable struct {
	v     Variable
	first [1]Change
}

func (s *Set) record(v *Variable, step int, kind ChangeKind, by string) {
	v.History = append(v.History, Change{
		Step:    step,
		Kind:    kind,
		By:      by,
		Type:    v.TypeName(),
		Preview: v.Preview(s.PreviewLimit),
	})
}

// nilable reports whether nil is a value of type t.
func nilable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface, reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return true
	}
	return false
}

// Clone returns a copy of the set: its own variables and histories, with
// the same values (a pointer value is shared by both sets).
func (s *Set) Clone() Set {
	c := Set{PreviewLimit: s.PreviewLimit, order: slices.Clone(s.order)}
	if s.next != nil {
		c.next = make(map[string]int, len(s.next))
		for k, v := range s.next {
			c.next[k] = v
		}
	}
	if s.vars != nil {
		c.vars = make(map[string]*Variable, len(s.vars))
		for n, v := range s.vars {
			cv := *v
			cv.History = slices.Clone(v.History)
			c.vars[n] = &cv
		}
	}
	return c
}
