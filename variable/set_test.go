package variable_test

import (
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/byref/byref/variable"
)

func mustDefine(t *testing.T, s *variable.Set, spec variable.Spec, step int, by string) {
	t.Helper()
	if _, err := s.Define(spec, step, by); err != nil {
		t.Fatalf("Define(%s): %v", spec.Name, err)
	}
}

func TestZeroSet(t *testing.T) {
	var s variable.Set
	if s.Len() != 0 || len(s.Names()) != 0 || len(s.All()) != 0 {
		t.Errorf("zero Set is not empty")
	}
	if _, ok := s.Get("x"); ok {
		t.Errorf("Get on the zero Set found x")
	}
	if _, _, ok := s.Value("x"); ok {
		t.Errorf("Value on the zero Set found x")
	}
	if s.Delete("x") {
		t.Errorf("Delete on the zero Set reported x")
	}
	if err := s.Touch("x", 1, "a"); !errors.Is(err, variable.ErrNotFound) {
		t.Errorf("Touch on the zero Set = %v, want ErrNotFound", err)
	}
	if err := s.Assign("x", 1, 1, "a"); !errors.Is(err, variable.ErrNotFound) {
		t.Errorf("Assign on the zero Set = %v, want ErrNotFound", err)
	}
	if got := s.FreeName("x"); got != "x" {
		t.Errorf("FreeName = %q", got)
	}
}

func TestSetDefine(t *testing.T) {
	var s variable.Set
	created, err := s.Define(variable.Spec{Name: "page", Value: "<html>", Description: "the page"}, variable.HostStep, "host")
	if err != nil || !created {
		t.Fatalf("Define = %v, %v; want true, nil", created, err)
	}
	v, ok := s.Get("page")
	if !ok {
		t.Fatal("Get(page) not found")
	}
	if v.Name != "page" || v.Value != "<html>" || v.Type != reflect.TypeFor[string]() || v.Description != "the page" || v.Secret {
		t.Errorf("Get(page) = %+v", v)
	}
	want := variable.History{{Step: 0, Kind: variable.Created, By: "host", Type: "string", Preview: `<html>`}}
	if !reflect.DeepEqual(v.History, want) {
		t.Errorf("History = %+v, want %+v", v.History, want)
	}

	// Redefining replaces type, description and secret flag and records an
	// assignment.
	created, err = s.Define(variable.Spec{Name: "page", Value: 42, Secret: true}, 2, "fetch")
	if err != nil || created {
		t.Fatalf("redefine = %v, %v; want false, nil", created, err)
	}
	v, _ = s.Get("page")
	if v.Type != reflect.TypeFor[int]() || v.Description != "" || !v.Secret {
		t.Errorf("after redefine: %+v", v)
	}
	if last := v.History.Last(); last != (variable.Change{Step: 2, Kind: variable.Assigned, By: "fetch", Type: "int", Preview: "<secret int>"}) {
		t.Errorf("last change = %+v", last)
	}
	if len(v.History) != 2 || s.Len() != 1 {
		t.Errorf("history %d entries, %d variables", len(v.History), s.Len())
	}
}

func TestSetDefineErrors(t *testing.T) {
	var s variable.Set
	tests := []struct {
		name string
		spec variable.Spec
		is   error
		msg  string
	}{
		{"bad name", variable.Spec{Name: "func", Value: 1}, variable.ErrInvalidName, "keyword"},
		{"empty name", variable.Spec{Value: 1}, variable.ErrInvalidName, "empty"},
		{"value not assignable", variable.Spec{Name: "r", Value: 1, Type: reflect.TypeFor[io.Reader]()}, nil, "not assignable to the declared type io.Reader"},
		{"wrong declared type", variable.Spec{Name: "n", Value: "1", Type: reflect.TypeFor[int]()}, nil, "not assignable"},
		{"nil for an int", variable.Spec{Name: "n", Type: reflect.TypeFor[int]()}, nil, "nil is not a value of the declared type int"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Define(tt.spec, 1, "x")
			if err == nil {
				t.Fatal("Define succeeded")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not mention %q", err, tt.msg)
			}
		})
	}
	if s.Len() != 0 {
		t.Errorf("failed Defines left %d variables", s.Len())
	}
}

func TestSetDefineDeclaredType(t *testing.T) {
	var s variable.Set
	readerType := reflect.TypeFor[io.Reader]()
	// An interface-typed variable with a nil value.
	mustDefine(t, &s, variable.Spec{Name: "in", Type: readerType}, 0, "host")
	v, _ := s.Get("in")
	if v.Type != readerType || v.Value != nil || v.TypeName() != "io.Reader" {
		t.Errorf("Get(in) = %+v", v)
	}
	if v.History.Last().Preview != "nil" || v.History.Last().Type != "io.Reader" {
		t.Errorf("history = %+v", v.History)
	}
	// A value of a type implementing it keeps the declared type.
	mustDefine(t, &s, variable.Spec{Name: "in2", Type: readerType, Value: strings.NewReader("x")}, 0, "host")
	if _, typ, _ := s.Value("in2"); typ != readerType {
		t.Errorf("type = %v, want io.Reader", typ)
	}
	// A nil value without a type is an any.
	mustDefine(t, &s, variable.Spec{Name: "nothing"}, 0, "host")
	if _, typ, _ := s.Value("nothing"); typ != reflect.TypeFor[any]() {
		t.Errorf("type of nil = %v, want any", typ)
	}
	// A nil pointer with its type.
	mustDefine(t, &s, variable.Spec{Name: "p", Type: reflect.TypeFor[*point]()}, 0, "host")
}

func TestSetAssign(t *testing.T) {
	var s variable.Set
	mustDefine(t, &s, variable.Spec{Name: "n", Value: 1}, 0, "host")
	if err := s.Assign("n", 2, 3, "add"); err != nil {
		t.Fatal(err)
	}
	v, _ := s.Get("n")
	if v.Value != 2 || v.History.Last() != (variable.Change{Step: 3, Kind: variable.Assigned, By: "add", Type: "int", Preview: "2"}) {
		t.Errorf("after Assign: %+v", v)
	}
	err := s.Assign("n", "two", 4, "add")
	if err == nil || !strings.Contains(err.Error(), `variable "n" has type int; a string cannot be assigned to it`) {
		t.Errorf("Assign(string to int) = %v", err)
	}
	if err := s.Assign("n", nil, 4, "add"); err == nil || !strings.Contains(err.Error(), "nil cannot be assigned") {
		t.Errorf("Assign(nil to int) = %v", err)
	}
	if v, _ := s.Get("n"); v.Value != 2 || len(v.History) != 2 {
		t.Errorf("failed Assigns changed the variable: %+v", v)
	}
	if err := s.Assign("missing", 1, 4, "add"); !errors.Is(err, variable.ErrNotFound) {
		t.Errorf("Assign(missing) = %v", err)
	}

	// An interface variable takes any implementation and nil, and keeps
	// its type.
	mustDefine(t, &s, variable.Spec{Name: "err", Type: reflect.TypeFor[error]()}, 0, "host")
	if err := s.Assign("err", errors.New("x"), 1, "a"); err != nil {
		t.Fatal(err)
	}
	if err := s.Assign("err", nil, 2, "a"); err != nil {
		t.Fatal(err)
	}
	if err := s.Assign("err", 3, 2, "a"); err == nil {
		t.Error("Assign(int to error) succeeded")
	}
	if _, typ, _ := s.Value("err"); typ != reflect.TypeFor[error]() {
		t.Errorf("type changed to %v", typ)
	}
}

func TestSetTouch(t *testing.T) {
	var s variable.Set
	p := &point{1, 2}
	mustDefine(t, &s, variable.Spec{Name: "p", Value: p}, 0, "host")
	p.X = 10
	if err := s.Touch("p", 5, "move"); err != nil {
		t.Fatal(err)
	}
	v, _ := s.Get("p")
	if v.History.Last() != (variable.Change{Step: 5, Kind: variable.Modified, By: "move", Type: "*variable_test.point", Preview: "&point{X: 10, Y: 2}"}) {
		t.Errorf("last change = %+v", v.History.Last())
	}
}

func TestSetDeleteAndNames(t *testing.T) {
	var s variable.Set
	for _, n := range []string{"c", "a", "b"} {
		mustDefine(t, &s, variable.Spec{Name: n, Value: n}, 0, "host")
	}
	if got := s.Names(); !slices.Equal(got, []string{"c", "a", "b"}) {
		t.Errorf("Names = %v, want creation order", got)
	}
	// Redefining keeps the position.
	mustDefine(t, &s, variable.Spec{Name: "c", Value: 1}, 1, "x")
	if got := s.Names(); !slices.Equal(got, []string{"c", "a", "b"}) {
		t.Errorf("Names after redefine = %v", got)
	}
	if !s.Delete("a") || s.Delete("a") {
		t.Error("Delete(a) twice did not report true then false")
	}
	if got := s.Names(); !slices.Equal(got, []string{"c", "b"}) || s.Len() != 2 {
		t.Errorf("Names after Delete = %v", got)
	}
	if _, ok := s.Get("a"); ok {
		t.Error("deleted variable still found")
	}
	// A re-created variable goes to the end, with a fresh history.
	mustDefine(t, &s, variable.Spec{Name: "a", Value: 1}, 2, "x")
	if got := s.Names(); !slices.Equal(got, []string{"c", "b", "a"}) {
		t.Errorf("Names after re-create = %v", got)
	}
	if v, _ := s.Get("a"); len(v.History) != 1 || v.History[0].Kind != variable.Created {
		t.Errorf("re-created history = %+v", v.History)
	}
	var names []string
	for _, v := range s.All() {
		names = append(names, v.Name)
	}
	if !slices.Equal(names, s.Names()) {
		t.Errorf("All order %v != Names %v", names, s.Names())
	}
	// Names is a copy.
	n := s.Names()
	n[0] = "zzz"
	if s.Names()[0] != "c" {
		t.Error("changing the result of Names changed the set")
	}
}

func TestSetFreeName(t *testing.T) {
	var s variable.Set
	if got := s.FreeName("page"); got != "page" {
		t.Errorf("FreeName = %q", got)
	}
	mustDefine(t, &s, variable.Spec{Name: "page", Value: 1}, 0, "host")
	mustDefine(t, &s, variable.Spec{Name: "page_2", Value: 1}, 0, "host")
	if got := s.FreeName("page"); got != "page_3" {
		t.Errorf("FreeName = %q, want page_3", got)
	}
	mustDefine(t, &s, variable.Spec{Name: s.FreeName("page"), Value: 1}, 0, "host")
	s.Delete("page_2")
	if got := s.FreeName("page"); got != "page_2" {
		t.Errorf("FreeName after delete = %q, want page_2", got)
	}
}

func TestSetGetReturnsCopies(t *testing.T) {
	var s variable.Set
	mustDefine(t, &s, variable.Spec{Name: "x", Value: 1, Description: "d"}, 0, "host")
	if err := s.Assign("x", 2, 1, "a"); err != nil {
		t.Fatal(err)
	}
	v, _ := s.Get("x")
	v.Value, v.Description, v.Secret = 99, "changed", true
	v.History[0].Preview = "tampered"
	v.History[1].By = "tampered"
	v.History = append(v.History, variable.Change{By: "appended"})
	all := s.All()
	all[0].History[0].By = "tampered too"

	got, _ := s.Get("x")
	if got.Value != 2 || got.Description != "d" || got.Secret {
		t.Errorf("changing a copy changed the set: %+v", got)
	}
	want := variable.History{
		{Step: 0, Kind: variable.Created, By: "host", Type: "int", Preview: "1"},
		{Step: 1, Kind: variable.Assigned, By: "a", Type: "int", Preview: "2"},
	}
	if !reflect.DeepEqual(got.History, want) {
		t.Errorf("history = %+v, want %+v", got.History, want)
	}
	// Appending to the set after appending to a copy must not clobber.
	if err := s.Touch("x", 2, "b"); err != nil {
		t.Fatal(err)
	}
	if v.History[2].By != "appended" {
		t.Errorf("Touch overwrote the copy's history: %+v", v.History)
	}
}

func TestSetSecretHistory(t *testing.T) {
	s := variable.Set{PreviewLimit: 10}
	mustDefine(t, &s, variable.Spec{Name: "key", Value: "hunter2hunter2", Secret: true}, 0, "host")
	mustDefine(t, &s, variable.Spec{Name: "long", Value: strings.Repeat("x", 100)}, 0, "host")
	for _, v := range s.All() {
		for _, c := range v.History {
			if strings.Contains(c.Preview, "hunter2") {
				t.Errorf("%s: history shows the secret: %q", v.Name, c.Preview)
			}
		}
	}
	if v, _ := s.Get("long"); len([]rune(v.History.Last().Preview)) > 10 {
		t.Errorf("PreviewLimit ignored: %q", v.History.Last().Preview)
	}
}

func TestSetHeadHasOnlyTheLatestChange(t *testing.T) {
	var s variable.Set
	s.Define(variable.Spec{Name: "n", Value: 1}, 0, "host")
	s.Assign("n", 2, 1, "double")
	s.Assign("n", 4, 2, "double")
	v, ok := s.Head("n")
	if !ok || v.Value != 4 || len(v.History) != 1 || v.History[0].Step != 2 {
		t.Fatalf("Head = %+v, %v", v, ok)
	}
	v.History = append(v.History, variable.Change{Step: 99})
	if full, _ := s.Get("n"); len(full.History) != 3 {
		t.Fatalf("appending to Head's history changed the set: %+v", full.History)
	}
	if _, ok := s.Head("missing"); ok {
		t.Fatal("Head of a missing variable")
	}
}
