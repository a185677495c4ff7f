package interp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

const stockError = `type StockError struct {
	SKU string
}
func (e *StockError) Error() string { return "out of stock: " + e.SKU }
`

// TestKeepSnippetError: an error of a snippet type outlives its Eval as a
// SnippetError, whose Error, %v and JSON are what compiled Go gives, with
// no interpreted code run after the Eval; a later snippet of the same
// interpreter gets its own type back.
func TestKeepSnippetError(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	stock := map[string]error{}
	code := stockError + `var err error = &StockError{"PN-3"}
errs := []error{nil, &StockError{"BK-1"}}
type Holder struct{ Err error }
h := Holder{&StockError{"CH-2"}}
stock["PN-3"] = err
`
	res, err := in.Eval(context.Background(), Input{Code: code, Vars: []Var{{Name: "stock", Value: reflect.ValueOf(stock)}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Created, " "); got != "err errs h" {
		t.Fatalf("created %q, want err errs h", got)
	}
	e, _ := res.Values["err"].Interface().(error)
	var se *SnippetError
	if !errors.As(e, &se) {
		t.Fatalf("err is a %T, want a *SnippetError", e)
	}
	for what, got := range map[string]string{
		"err.Error()": e.Error(),
		"%+v":         fmt.Sprintf("%+v", e),
		"json":        mustJSON(t, e),
		"errs":        fmt.Sprint(res.Values["errs"].Interface()),
		"errs json":   mustJSON(t, res.Values["errs"].Interface()),
		"h":           fmt.Sprintf("%+v", res.Values["h"].Interface()),
		"h json":      mustJSON(t, res.Values["h"].Interface()),
		"stock":       fmt.Sprint(stock["PN-3"]),
	} {
		want := map[string]string{
			"err.Error()": "out of stock: PN-3",
			"%+v":         "out of stock: PN-3",
			"json":        `{"SKU":"PN-3"}`,
			"errs":        "[<nil> out of stock: BK-1]",
			"errs json":   `[null,{"SKU":"BK-1"}]`,
			"h":           "{Err:out of stock: CH-2}",
			"h json":      `{"Err":{"SKU":"CH-2"}}`,
			"stock":       "out of stock: PN-3",
		}[what]
		if got != want {
			t.Errorf("%s = %q, want %q", what, got, want)
		}
	}

	// The next snippet gets err as its own type.
	res, err = in.Eval(context.Background(), Input{
		Code: "se, ok := err.(*StockError)\nvar target *StockError\nfmt.Println(ok, se.SKU, errors.As(err, &target), err)",
		Vars: []Var{{Name: "err", Value: res.Values["err"]}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "true PN-3 true out of stock: PN-3\n" {
		t.Errorf("the next snippet printed %q", res.Stdout)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal(%T): %v", v, err)
	}
	return string(b)
}

// TestKeepHeldValues: a value of a snippet type with methods in an any
// reaches the host as its data, not as the interpreter's node, and a
// later snippet can still assert its type.
func TestKeepHeldValues(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := in.Eval(context.Background(), Input{Code: "type Row struct{ N int }\nfunc (r Row) String() string { return \"row\" }\nxs := []any{Row{2}, 3}\nvar y any = &Row{4}"})
	if err != nil {
		t.Fatal(err)
	}
	if got := mustJSON(t, res.Values["xs"].Interface()) + " " + mustJSON(t, res.Values["y"].Interface()); got != `[{"N":2},3] {"N":4}` {
		t.Errorf("json: %s", got)
	}
	if got := fmt.Sprintf("%+v", res.Values["xs"].Interface()); got != "[{N:2} 3]" {
		t.Errorf("%%+v: %s", got)
	}
	res, err = in.Eval(context.Background(), Input{Code: "r, ok := xs[0].(Row)\nfmt.Println(r.N, ok)", Vars: []Var{{Name: "xs", Value: res.Values["xs"]}}})
	if err != nil || res.Stdout != "2 true\n" {
		t.Errorf("the next snippet: %q, %v", res.Stdout, err)
	}
}

// TestKeepBadErrorMethod: an Error method that never returns or panics
// when the snippet ends fails the Eval with an error naming the variable;
// the input variables are as they were, and the interpreter keeps working.
func TestKeepBadErrorMethod(t *testing.T) {
	in, err := New(Options{Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, method string
		sentinel     error
		want         string
	}{
		{"loops", "for {\n\t}", ErrTimeout, "in the Error method of the value in bad"},
		{"panics", `panic("boom")`, ErrPanic, "the Error method of the value in bad panicked: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			counts := map[string]int{"a": 1}
			vars := []Var{{Name: "counts", Value: reflect.ValueOf(counts)}}
			code := "type E struct{ N int }\nfunc (e E) Error() string {\n\t" + tc.method + "\n}\ncounts[\"a\"] = 2\nvar bad error = E{1}\nfmt.Println(\"ran\")"
			res, err := in.Eval(context.Background(), Input{Code: code, Vars: vars})
			if !errors.Is(err, tc.sentinel) || !strings.Contains(fmt.Sprint(err), tc.want) {
				t.Fatalf("err = %v, want %v containing %q", err, tc.sentinel, tc.want)
			}
			if testing.Verbose() {
				t.Log(err)
			}
			if res.Stdout != "ran\n" {
				t.Errorf("stdout %q, want the snippet's", res.Stdout)
			}
			if counts["a"] != 1 {
				t.Errorf("counts[a] = %d after the failed Eval, want 1", counts["a"])
			}
			res, err = in.Eval(context.Background(), Input{Code: "counts[\"a\"]++\nfmt.Println(counts)", Vars: vars})
			if err != nil || res.Stdout != "map[a:2]\n" {
				t.Errorf("the next Eval: %q, %v", res.Stdout, err)
			}
		})
	}
}

// TestKeepOtherInterfaces: a snippet type behind an interface other than
// error cannot be kept as text: a created variable is left out, a written
// input variable refuses the snippet.
func TestKeepOtherInterfaces(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	decl := "type T struct{ S string }\nfunc (t T) String() string { return \"t:\" + t.S }\n"
	res, err := in.Eval(context.Background(), Input{Code: decl + "var s fmt.Stringer = T{\"a\"}\nn := 1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Created, " "); got != "n" {
		t.Errorf("created %q, want only n", got)
	}
	if _, ok := res.Values["s"]; ok {
		t.Errorf("s is in Values")
	}
	var host fmt.Stringer = time.Second
	_, err = in.Eval(context.Background(), Input{Code: "host = T{\"b\"}", Vars: []Var{{Name: "host", Value: reflect.ValueOf(&host).Elem()}}})
	if !errors.Is(err, ErrRefused) || !strings.Contains(fmt.Sprint(err), "variable host") {
		t.Errorf("err = %v, want ErrRefused naming host", err)
	}
}

// BenchmarkEvalKeptError: a warm snippet that creates an error, of a host
// type (nothing to keep) and of its own type (Error called through
// _byref.Keep at the end).
func BenchmarkEvalKeptError(b *testing.B) {
	for _, bc := range []struct{ name, code string }{
		{"host", `err := fmt.Errorf("out of stock: %s", "PN-3")`},
		{"snippet", "var err error = &StockError{\"PN-3\"}"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			in, err := New(Options{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := in.Eval(context.Background(), Input{Code: stockError}); err != nil {
				b.Fatal(err)
			}
			input := Input{Code: bc.code}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := in.Eval(context.Background(), input); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
