package interp

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestGiveBackSnippetError: a later snippet sees the errors of its own
// types as those types wherever its variables hold them (at the top, in a
// slice, a struct field, a map, behind a pointer), on the same instance,
// after a forced rebuild and after a failed Eval (which rebuilds too); the
// host holds SnippetErrors again once each Eval ends.
func TestGiveBackSnippetError(t *testing.T) {
	for _, tc := range []struct {
		name  string
		every int
		fail  bool // a failed Eval between the two
	}{
		{"same instance", 100, false},
		{"rebuilt every Eval", 1, false},
		{"after a failed Eval", 100, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := New(Options{RebuildEvery: tc.every})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			book := map[string]error{}
			res, err := in.Eval(ctx, Input{
				Code: stockError + `type Late struct{ Days int }
func (l Late) Error() string { return fmt.Sprint("late by ", l.Days) }
type Order struct{ ID string; Err error }
var err error = &StockError{"PN-3"}
errs := []error{nil, &StockError{"BK-1"}, Late{2}}
o := Order{"o1", &StockError{"CH-2"}}
po := &Order{"o2", Late{5}}
type Wrap struct{ Err error }
func (w *Wrap) Error() string { return "wrap: " + w.Err.Error() }
var we error = &Wrap{&StockError{"IN-1"}}
book["x"] = &StockError{"MP-4"}
`,
				Vars: []Var{{Name: "book", Value: reflect.ValueOf(book)}},
			})
			if err != nil {
				t.Fatal(err)
			}
			if tc.fail {
				if _, err := in.Eval(ctx, Input{Code: `panic("boom")`}); err == nil {
					t.Fatal("the failing Eval succeeded")
				}
			}
			vars := []Var{{Name: "book", Value: reflect.ValueOf(book)}}
			for _, n := range []string{"err", "errs", "o", "po", "we"} {
				vars = append(vars, Var{Name: n, Value: res.Values[n]})
			}
			rebuilds := in.Stats().Rebuilds
			res2, err := in.Eval(ctx, Input{Code: `var se *StockError
var late Late
s1, ok1 := err.(*StockError)
_, ok2 := errs[1].(*StockError)
fmt.Println(ok1, s1.SKU, errors.As(err, &se), se.SKU)
fmt.Println(ok2, errors.As(errs[2], &late), late.Days)
fmt.Println(errors.As(o.Err, &se), se.SKU, errors.As(po.Err, &late), late.Days)
fmt.Println(errors.As(book["x"], &se), se.SKU, errs[1], o.Err)
s1.SKU = "PN-9"
fmt.Println(err)
_, ok3 := we.(*Wrap).Err.(*StockError)
fmt.Println(ok3, we)`, Vars: vars})
			if err != nil {
				t.Fatal(err)
			}
			want := "true PN-3 true PN-3\ntrue true 2\ntrue CH-2 true 5\ntrue MP-4 out of stock: BK-1 out of stock: CH-2\nout of stock: PN-9\ntrue wrap: out of stock: IN-1\n"
			if res2.Stdout != want {
				t.Errorf("stdout:\n%s\nwant:\n%s", res2.Stdout, want)
			}
			if tc.every == 1 || tc.fail {
				if in.Stats().Rebuilds == rebuilds {
					t.Errorf("no rebuild before the second snippet")
				}
			}
			// The host holds SnippetErrors again: nothing it holds calls
			// into the interpreter.
			var se *SnippetError
			for what, e := range map[string]error{
				"book[x]": book["x"],
				"errs[1]": res.Values["errs"].Interface().([]error)[1],
				"po.Err":  reflect.Indirect(res.Values["po"]).FieldByName("Err").Interface().(error),
			} {
				if !errors.As(e, &se) {
					t.Errorf("%s is a %T after the Eval, want a *SnippetError", what, e)
				}
			}
			if e := res.Values["err"].Interface().(error); !errors.As(e, &se) || e.Error() != "out of stock: PN-3" {
				t.Errorf("err is %T %q after the Eval", e, e)
			}
			if _, ok := res2.Values["err"]; ok && !strings.Contains(reflect.TypeOf(res2.Values["err"].Interface()).String(), "SnippetError") {
				t.Errorf("err read back is a %s", res2.Values["err"].Type())
			}
		})
	}
}

// BenchmarkEvalGiveBack: a warm snippet whose input variable holds a kept
// error of the snippet's type, given back as that type before it runs.
func BenchmarkEvalGiveBack(b *testing.B) {
	in, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	res, err := in.Eval(context.Background(), Input{Code: stockError + "var err error = &StockError{\"PN-3\"}"})
	if err != nil {
		b.Fatal(err)
	}
	input := Input{Code: "_, ok := err.(*StockError)", Vars: []Var{{Name: "err", Value: res.Values["err"]}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := in.Eval(context.Background(), input); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGiveBackRedeclared: a kept error whose type a later snippet declares
// anew with other fields is not a value of the new type, as in Go: it
// stays a SnippetError, with its message, and nothing is written to the
// snippet's stderr.
func TestGiveBackRedeclared(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := in.Eval(ctx, Input{Code: stockError + "var err error = &StockError{\"PN-3\"}"})
	if err != nil {
		t.Fatal(err)
	}
	vars := []Var{{Name: "err", Value: res.Values["err"]}}
	for _, code := range []string{
		"type StockError struct{ Code int }\nfunc (e *StockError) Error() string { return \"new\" }\n_, ok := err.(*StockError)\nfmt.Println(ok, err)",
		"_, ok := err.(*StockError)\nfmt.Println(ok, err)",
	} {
		res, err := in.Eval(ctx, Input{Code: code, Vars: vars})
		if err != nil || res.Stdout != "false out of stock: PN-3\n" || res.Stderr != "" {
			t.Errorf("%s:\nstdout %q stderr %q, %v; want false and the kept message, no stderr", code, res.Stdout, res.Stderr, err)
		}
	}
}

// TestGiveBackSameFields: kept errors of two declared types with the same
// fields come back each as its own type, on the same instance and after a
// rebuild.
func TestGiveBackSameFields(t *testing.T) {
	for _, every := range []int{100, 1} {
		in, err := New(Options{RebuildEvery: every})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		res, err := in.Eval(ctx, Input{Code: `type NotFound struct{ ID string }
func (e *NotFound) Error() string { return "not found: " + e.ID }
type Invalid struct{ ID string }
func (e *Invalid) Error() string { return "invalid: " + e.ID }
var a error = &Invalid{"x"}
var b error = &NotFound{"y"}`})
		if err != nil {
			t.Fatal(err)
		}
		var se *SnippetError
		if !errors.As(res.Values["a"].Interface().(error), &se) {
			t.Fatalf("a is kept as %T, want a *SnippetError", res.Values["a"].Interface())
		}
		res, err = in.Eval(ctx, Input{Code: `_, ok1 := a.(*Invalid)
_, ok2 := a.(*NotFound)
var nf *NotFound
fmt.Println(ok1, ok2, errors.As(b, &nf), nf.ID, errors.As(a, &nf))`,
			Vars: []Var{{Name: "a", Value: res.Values["a"]}, {Name: "b", Value: res.Values["b"]}}})
		if err != nil {
			t.Fatal(err)
		}
		if want := "true false true y false\n"; res.Stdout != want {
			t.Errorf("RebuildEvery %d: stdout %q, want %q", every, res.Stdout, want)
		}
	}
}

// TestGiveBackNoFields: kept errors of two declared struct types without
// fields come back each as its own type, also after a rebuild.
func TestGiveBackNoFields(t *testing.T) {
	for _, every := range []int{100, 1} {
		in, err := New(Options{RebuildEvery: every})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		res, err := in.Eval(ctx, Input{Code: `type ErrA struct{}
func (ErrA) Error() string { return "a" }
type ErrB struct{}
func (ErrB) Error() string { return "b" }
var a error = ErrA{}
var b error = ErrB{}`})
		if err != nil {
			t.Fatal(err)
		}
		res, err = in.Eval(ctx, Input{Code: `_, ok1 := a.(ErrA)
_, ok2 := a.(ErrB)
_, ok3 := b.(ErrB)
fmt.Println(ok1, ok2, ok3, errors.Is(b, ErrB{}), errors.Is(b, ErrA{}), a, b)`,
			Vars: []Var{{Name: "a", Value: res.Values["a"]}, {Name: "b", Value: res.Values["b"]}}})
		if err != nil {
			t.Fatal(err)
		}
		if want := "true false true true false a b\n"; res.Stdout != want {
			t.Errorf("RebuildEvery %d: stdout %q, want %q", every, res.Stdout, want)
		}
	}
}
