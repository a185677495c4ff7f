package action_test

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/byref/byref/action"
)

func newAction(t testing.TB, name string) *action.Action {
	t.Helper()
	a, err := action.New(action.Spec{Name: name, Func: func() {}})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestNewSet(t *testing.T) {
	a, b, c := newAction(t, "a"), newAction(t, "b"), newAction(t, "c")
	s, err := action.NewSet(b, a, c)
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 3 || !slices.Equal(s.Names(), []string{"b", "a", "c"}) {
		t.Errorf("Names = %v, want the order given", s.Names())
	}
	if got := s.All(); len(got) != 3 || got[0] != b || got[1] != a || got[2] != c {
		t.Errorf("All = %v", got)
	}
	if got, ok := s.Get("a"); !ok || got != a {
		t.Errorf("Get(a) = %v, %v", got, ok)
	}
	if _, ok := s.Get("z"); ok {
		t.Error("Get(z) found something")
	}
	// All and Names are copies.
	all := s.All()
	all[0] = nil
	names := s.Names()
	names[0] = "x"
	if s.All()[0] != b || s.Names()[0] != "b" {
		t.Error("changing All()/Names() changed the set")
	}
}

func TestNewSetErrors(t *testing.T) {
	a, a2 := newAction(t, "a"), newAction(t, "a")
	tests := []struct {
		name    string
		actions []*action.Action
		msg     string
	}{
		{"duplicate", []*action.Action{a, newAction(t, "b"), a2}, `action "a": two actions are named "a"; names must be unique in a set`},
		{"same action twice", []*action.Action{a, a}, `two actions are named "a"`},
		{"nil", []*action.Action{a, nil}, `action "#2": action 2 of 2 is nil`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := action.NewSet(tt.actions...)
			if err == nil || s != nil {
				t.Fatalf("NewSet = %v, %v", s, err)
			}
			if !errors.Is(err, action.ErrInvalidSpec) {
				t.Errorf("%v does not wrap ErrInvalidSpec", err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not say %q", err, tt.msg)
			}
		})
	}
}

func TestMustSetPanics(t *testing.T) {
	a := newAction(t, "a")
	defer func() {
		if err, ok := recover().(error); !ok || !errors.Is(err, action.ErrInvalidSpec) {
			t.Errorf("MustSet panicked with %v", err)
		}
	}()
	action.MustSet(a, a)
	t.Error("MustSet did not panic")
}

func TestZeroSet(t *testing.T) {
	var s action.Set
	if s.Len() != 0 || len(s.Names()) != 0 || len(s.All()) != 0 {
		t.Error("zero Set is not empty")
	}
	if _, ok := s.Get("a"); ok {
		t.Error("zero Set found a")
	}
	n, err := s.With(newAction(t, "a"))
	if err != nil || n.Len() != 1 || s.Len() != 0 {
		t.Errorf("With on the zero Set = %v, %v", n, err)
	}
	if s.Without("a").Len() != 0 {
		t.Error("Without on the zero Set")
	}
	empty, err := action.NewSet()
	if err != nil || empty.Len() != 0 {
		t.Errorf("NewSet() = %v, %v", empty, err)
	}
}

func TestSetWithAndWithoutCopy(t *testing.T) {
	a, b, c, d := newAction(t, "a"), newAction(t, "b"), newAction(t, "c"), newAction(t, "d")
	base := action.MustSet(a, b)

	withC, err := base.With(c)
	if err != nil {
		t.Fatal(err)
	}
	// Two sets grown from one base must not share a backing array.
	withD, err := base.With(d)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(base.Names(), []string{"a", "b"}) {
		t.Errorf("base changed: %v", base.Names())
	}
	if !slices.Equal(withC.Names(), []string{"a", "b", "c"}) {
		t.Errorf("withC = %v", withC.Names())
	}
	if !slices.Equal(withD.Names(), []string{"a", "b", "d"}) {
		t.Errorf("withD = %v", withD.Names())
	}
	if _, ok := base.Get("c"); ok {
		t.Error("base.Get(c) found the action added to a copy")
	}
	if _, ok := withD.Get("c"); ok {
		t.Error("withD.Get(c) found the action added to a sibling")
	}

	// A failed With leaves the set as it was.
	if _, err := withC.With(d, newAction(t, "a")); !errors.Is(err, action.ErrInvalidSpec) {
		t.Errorf("With(duplicate) = %v", err)
	}
	if !slices.Equal(withC.Names(), []string{"a", "b", "c"}) {
		t.Errorf("failed With changed the set: %v", withC.Names())
	}

	without := withC.Without("b", "missing")
	if !slices.Equal(without.Names(), []string{"a", "c"}) {
		t.Errorf("Without(b) = %v", without.Names())
	}
	if _, ok := without.Get("b"); ok {
		t.Error("Without(b).Get(b) found b")
	}
	if !slices.Equal(withC.Names(), []string{"a", "b", "c"}) {
		t.Errorf("Without changed the set: %v", withC.Names())
	}
	// A removed name can be added again.
	again, err := without.With(newAction(t, "b"))
	if err != nil || !slices.Equal(again.Names(), []string{"a", "c", "b"}) {
		t.Errorf("re-adding b = %v, %v", again, err)
	}
}

func TestSetConcurrentUse(t *testing.T) {
	s := action.MustSet(newAction(t, "a"), newAction(t, "b"))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				s.Get("a")
				s.Names()
				n, err := s.With(newAction(t, "x"))
				if err != nil || n.Len() != 3 {
					t.Errorf("goroutine %d: %v", i, err)
					return
				}
				s.Without("a")
			}
		}()
	}
	wg.Wait()
}

func TestNilSetIsEmpty(t *testing.T) {
	var s *action.Set
	if s.Len() != 0 || s.All() != nil || s.Names() != nil {
		t.Fatal("a nil set is not empty")
	}
	if _, ok := s.Get("x"); ok {
		t.Fatal("a nil set has an action")
	}
	if n, err := s.With(action.Terminate()); err != nil || n.Len() != 1 {
		t.Fatalf("With on a nil set = %v, %v", n, err)
	}
	if s.Without("x").Len() != 0 {
		t.Fatal("Without on a nil set")
	}
}
