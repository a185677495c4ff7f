package interp

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/codegen/codegentest/shop"
)

// TestTypeCheckRefuses: what go build rejects is rejected before anything
// runs, with go/types' message at the snippet's own line and column, and
// no variable is created.
func TestTypeCheckRefuses(t *testing.T) {
	cases := []struct {
		code      string
		line, col int
		msg       string
	}{
		{"x := 1 +\nfmt.Println(x)", 2, 13, "undefined: x"},
		{"q := 1\nq := 2", 2, 3, "no new variables on left side of :="},
		{"fmt.Println(y)\ny := 2", 1, 13, "undefined: y"},
		{"var a = b + 1\nb := 2", 1, 9, "undefined: b"},
		{"var a = b\nvar b = a\nfmt.Println(a)", 1, 9, "undefined: b"},
		{"var a = b\nx := 1\nvar b = x\nfmt.Println(a)", 1, 9, "undefined: b"},
		{"var a = f()\nfmt.Println(a)\nx := 1\nfunc f() int { return y }\nvar y = x", 1, 9, "undefined: f"},
		{"n := len(orders)\nn = \"many\"", 2, 5, `cannot use "many" (untyped string constant) as int value in assignment`},
		{"if count > 1 {\n\tunused := 3\n}", 2, 2, "declared and not used: unused"},
		{"s := strings.ToUpper(count)", 1, 22, "cannot use count (variable of type int) as string value in argument to strings.ToUpper"},
		{"func half(x int) int { return x / 2 }\nh := half(\"4\")", 2, 11, `cannot use "4" (untyped string constant) as int value in argument to half`},
		{"o := orders[0]\no.Nope()", 2, 3, "o.Nope undefined"},
		{"w, err := get_weather(3)\nfmt.Println(w, err)", 1, 23, "cannot use 3 (untyped int constant) as string value in argument to get_weather"},
		{"var m map[string]int = prices", 1, 24, "cannot use prices (variable of type map[string]float64) as map[string]int value in variable declaration"},
		{"for i := range 3 {\n\ti = \"x\"\n}", 2, 6, "cannot use \"x\""},
	}
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sent []string
	for _, tc := range cases {
		t.Run(tc.code, func(t *testing.T) {
			res, err := in.Eval(context.Background(), Input{Code: tc.code, Vars: shopVars(), Funcs: shopFuncs(&sent)})
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v (%T), want a CompileError; stdout %q", err, err, res.Stdout)
			}
			if ce.Line != tc.line || ce.Column != tc.col || !strings.Contains(ce.Msg, tc.msg) {
				t.Errorf("got %d:%d %q, want %d:%d %q", ce.Line, ce.Column, ce.Msg, tc.line, tc.col, tc.msg)
			}
			if res.Stdout != "" || len(res.Created) > 0 {
				t.Errorf("ran: stdout %q, created %v", res.Stdout, res.Created)
			}
		})
	}
}

// TestTypeCheckAccepts: the shapes a snippet may take pass the check:
// top-level variables seen by the snippet's funcs, a run variable
// redeclared with :=, declarations of earlier snippets, imports under
// another name, generics, the built-ins of the Go byref is built with.
func TestTypeCheckAccepts(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct{ code, out string }{
		{"total := 0\nfunc add(n int) { total += n }\nadd(2)\nadd(3)\nfmt.Println(total)", "5\n"},
		{"count := count * 2\nfmt.Println(count)", "6\n"},
		{"func double(x int) int { return x * 2 }", ""},
		{"fmt.Println(double(21))", "42\n"},
		{"import str \"strings\"\nfmt.Println(str.ToUpper(\"go\"))", "GO\n"},
		{"func Map[T, U any](xs []T, f func(T) U) []U {\n\tvar out []U\n\tfor _, x := range xs {\n\t\tout = append(out, f(x))\n\t}\n\treturn out\n}\nfmt.Println(Map(nums[:2], func(n int) string { return fmt.Sprint(n) }))", "[7 3]\n"},
		{"v, err := strconv.Atoi(\"7\")\nw, err := strconv.Atoi(\"8\")\nfmt.Println(v+w, err)", "15 <nil>\n"},
		{"const k = 3\nfunc useK() int { return k }\nfmt.Println(useK(), clear)", ""},
	}
	var sent []string
	for i, s := range steps {
		res, err := in.Eval(context.Background(), Input{Code: s.code, Vars: shopVars(), Funcs: shopFuncs(&sent)})
		if i == len(steps)-1 {
			// clear is a built-in: using it as a value is Go's error
			if err == nil || !strings.Contains(err.Error(), "clear (built-in) must be called") {
				t.Errorf("built-in as a value: %v", err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", s.code, err)
			continue
		}
		if res.Stdout != s.out {
			t.Errorf("%q: stdout %q, want %q", s.code, res.Stdout, s.out)
		}
	}
}

// TestTypeOfHost: host types become go/types types with their fields and
// exported methods, pointer receivers included, and standard types are the
// allowed packages' own.
func TestTypeOfHost(t *testing.T) {
	tc := newTypeChecker()
	typ := tc.typeOf(reflect.TypeFor[[]shop.Order]())
	if got := typ.String(); got != "[]github.com/byref/byref/codegen/codegentest/shop.Order" {
		t.Errorf("[]Order = %s", got)
	}
	rep := tc.typeOf(reflect.TypeFor[*shop.Report]())
	if !strings.Contains(rep.String(), "Report") {
		t.Errorf("*Report = %s", rep)
	}
	if tm := tc.typeOf(reflect.TypeFor[shop.Customer]()); !strings.Contains(tm.Underlying().String(), "Since time.Time") {
		t.Errorf("Customer = %s", tm.Underlying())
	}
}

// TestFirstSnippet logs how long the first snippet of a process takes,
// New included: the allowed packages' symbols and types are loaded then.
// Run it alone for a fresh process: go test -run TestFirstSnippet -v ./interp/
// (no bound is asserted: wall-clock times vary with the machine).
func TestFirstSnippet(t *testing.T) {
	start := time.Now()
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	created := time.Since(start)
	res, err := in.Eval(context.Background(), Input{Code: "w := strings.Fields(text)\nfmt.Println(len(w), strings.ToUpper(w[0]))", Vars: []Var{{Name: "text", Value: reflect.ValueOf("the quick brown fox")}}})
	if err != nil || res.Stdout != "4 THE\n" {
		t.Fatalf("%q %v", res.Stdout, err)
	}
	t.Logf("first snippet: %v (New %v)", time.Since(start), created)
}

// TestTypeCheckCarriedTypes: a variable of a snippet's own type, created by
// one snippet and handed back by the caller, has that type in the next
// snippet's check (its reflect type has lost the name), so it can be
// assigned to and from the type.
func TestTypeCheckCarriedTypes(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := in.Eval(context.Background(), Input{Code: "type pair struct {\n\tname string\n\tN    int\n}\nps := []pair{{\"a\", 1}}"})
	if err != nil {
		t.Fatal(err)
	}
	vars := []Var{{Name: "ps", Value: res.Values["ps"]}}
	for _, code := range []string{
		"var q pair = ps[0]\nfmt.Println(q.N)",
		"ps = append(ps, pair{\"b\", 2})\nfmt.Println(len(ps))",
	} {
		res, err := in.Eval(context.Background(), Input{Code: code, Vars: vars})
		if err != nil {
			t.Errorf("%q: %v", code, err)
			continue
		}
		vars = []Var{{Name: "ps", Value: res.Values["ps"]}}
	}
	_, err = in.Eval(context.Background(), Input{Code: "var s string = ps[0]", Vars: vars})
	if err == nil || !strings.Contains(err.Error(), "cannot use ps[0] (variable of struct type pair) as string value") {
		t.Errorf("a wrong use of the carried type: %v", err)
	}
}

// TestDuplicateImport: a snippet importing one name twice does not
// compile, as a Go file would not (a later snippet may import it again).
func TestDuplicateImport(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range []string{"import (\n\t\"time\"\n\t\"time\"\n)\nvar t time.Time\n_ = t", "import (\n\t\"math/rand\"\n\t\"math/rand/v2\"\n)\n_ = rand.Int"} {
		_, err := in.Eval(context.Background(), Input{Code: code})
		var ce *CompileError
		if !errors.As(err, &ce) || ce.Line != 3 || ce.Column != 2 || !strings.HasSuffix(ce.Msg, " redeclared in this block") {
			t.Errorf("%q: %v", code, err)
		}
	}
	if _, err := in.Eval(context.Background(), Input{Code: "import \"time\"\nfmt.Println(time.Second)"}); err != nil {
		t.Error(err)
	}
	if _, err := in.Eval(context.Background(), Input{Code: "import \"time\"\nfmt.Println(time.Minute)"}); err != nil {
		t.Error(err)
	}
}
