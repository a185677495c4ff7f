package action

import (
	"fmt"
	"slices"
)

// Set is an immutable collection of actions with unique names. It is safe
// for concurrent use and meant to be shared: build it once, give it to every
// agent. The zero Set, and a nil *Set, are empty.
type Set struct {
	list   []*Action
	byName map[string]*Action
}

// NewSet returns a set of the given actions, or an error wrapping
// ErrInvalidSpec when two share a name or one is nil.
func NewSet(actions ...*Action) (*Set, error) {
	return (&Set{}).With(actions...)
}

// MustSet is like NewSet but panics on error; for package-level sets.
func MustSet(actions ...*Action) *Set {
	s, err := NewSet(actions...)
	if err != nil {
		panic(err)
	}
	return s
}

// With returns a new set holding s's actions followed by the given ones; s
// is unchanged.
func (s *Set) With(actions ...*Action) (*Set, error) {
	if s == nil {
		s = &Set{}
	}
	n := &Set{list: slices.Clip(s.list), byName: make(map[string]*Action, len(s.list)+len(actions))}
	for _, a := range s.list {
		n.byName[a.name] = a
	}
	for i, a := range actions {
		if a == nil {
			return nil, &SpecError{Action: fmt.Sprintf("#%d", i+1), Err: fmt.Errorf("action %d of %d is nil", i+1, len(actions))}
		}
		if _, dup := n.byName[a.name]; dup {
			return nil, &SpecError{Action: a.name, Err: fmt.Errorf("two actions are named %q; names must be unique in a set", a.name)}
		}
		n.byName[a.name] = a
		n.list = append(n.list, a)
	}
	return n, nil
}

// Without returns a new set without the named actions; s is unchanged.
func (s *Set) Without(names ...string) *Set {
	if s == nil {
		return &Set{}
	}
	n := &Set{byName: make(map[string]*Action, len(s.list))}
	for _, a := range s.list {
		if !slices.Contains(names, a.name) {
			n.list = append(n.list, a)
			n.byName[a.name] = a
		}
	}
	return n
}

// Get returns the named action.
func (s *Set) Get(name string) (*Action, bool) {
	if s == nil {
		return nil, false
	}
	a, ok := s.byName[name]
	return a, ok
}

// Len returns the number of actions.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.list)
}

// All returns the actions in the order they were added.
func (s *Set) All() []*Action {
	if s == nil {
		return nil
	}
	return slices.Clone(s.list)
}

// Names returns the actions' names in the order they were added.
func (s *Set) Names() []string {
	if s == nil {
		return nil
	}
	names := make([]string, len(s.list))
	for i, a := range s.list {
		names[i] = a.name
	}
	return names
}
