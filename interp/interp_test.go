package interp

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

type Row struct {
	Name string
	N    int
}

type Doc struct {
	Title string
	Rows  []Row
}

func (d *Doc) Retitle(s string) { d.Title = s }

var appSymbols = Exports{"example.com/app/app": {
	"Row": reflect.ValueOf((*Row)(nil)),
	"Doc": reflect.ValueOf((*Doc)(nil)),
}}

func TestStateFlow(t *testing.T) {
	in, err := New(Options{Symbols: []Exports{appSymbols}})
	if err != nil {
		t.Fatal(err)
	}
	type check func(t *testing.T, vals map[string]reflect.Value, ptr *Doc)
	cases := []struct {
		name     string
		code     string
		created  []string
		assigned []string
		check    check
	}{
		{"assign existing", "n = 42", nil, []string{"n"}, func(t *testing.T, v map[string]reflect.Value, _ *Doc) {
			if v["n"].Interface() != 42 {
				t.Errorf("n = %v", v["n"])
			}
		}},
		{"op-assign", "n += 2", nil, []string{"n"}, func(t *testing.T, v map[string]reflect.Value, _ *Doc) {
			if v["n"].Interface() != 3 {
				t.Errorf("n = %v", v["n"])
			}
		}},
		{"mutate through pointer", `doc.Title = "new"`, nil, []string{"doc"}, func(t *testing.T, v map[string]reflect.Value, p *Doc) {
			if p.Title != "new" || v["doc"].Interface().(*Doc) != p {
				t.Errorf("doc = %+v", p)
			}
		}},
		{"pointer-receiver method", `doc.Retitle("m")`, nil, []string{"doc"}, func(t *testing.T, v map[string]reflect.Value, p *Doc) {
			if p.Title != "m" {
				t.Errorf("doc = %+v", p)
			}
		}},
		{"slice element", "rows[0].N = 9", nil, []string{"rows"}, func(t *testing.T, v map[string]reflect.Value, _ *Doc) {
			if v["rows"].Interface().([]Row)[0].N != 9 {
				t.Errorf("rows = %v", v["rows"])
			}
		}},
		{"append keeps the host type", `rows = append(rows, app.Row{Name: "b", N: 2})`, nil, []string{"rows"}, func(t *testing.T, v map[string]reflect.Value, _ *Doc) {
			r, ok := v["rows"].Interface().([]Row)
			if !ok || len(r) != 2 || r[1].Name != "b" {
				t.Errorf("rows = %#v", v["rows"].Interface())
			}
		}},
		{"map entry", `m["k"] = 7`, nil, []string{"m"}, func(t *testing.T, v map[string]reflect.Value, _ *Doc) {
			if v["m"].Interface().(map[string]int)["k"] != 7 {
				t.Errorf("m = %v", v["m"])
			}
		}},
		{"map delete", `delete(m, "a")`, nil, []string{"m"}, func(t *testing.T, v map[string]reflect.Value, _ *Doc) {
			if _, ok := v["m"].Interface().(map[string]int)["a"]; ok {
				t.Errorf("m = %v", v["m"])
			}
		}},
		{"struct field of a struct var", `d.Title = "t"`, nil, []string{"d"}, func(t *testing.T, v map[string]reflect.Value, _ *Doc) {
			if got := v["d"].Interface().(Doc); got.Title != "t" {
				t.Errorf("d = %+v", got)
			}
		}},
		{"new top-level var", "x := n * 10\nvar y = \"s\"", []string{"x", "y"}, nil, func(t *testing.T, v map[string]reflect.Value, _ *Doc) {
			if v["x"].Interface() != 10 || v["y"].Interface() != "s" {
				t.Errorf("x=%v y=%v", v["x"], v["y"])
			}
		}},
		{"new var of a host type", `r := app.Row{Name: "z"}` + "\nrs := []app.Row{r}", []string{"r", "rs"}, nil, func(t *testing.T, v map[string]reflect.Value, _ *Doc) {
			if v["r"].Type() != reflect.TypeOf(Row{}) || v["rs"].Type() != reflect.TypeOf([]Row{}) {
				t.Errorf("types %v %v", v["r"].Type(), v["rs"].Type())
			}
		}},
		{"shadowed block-local", "if true {\n\tn := 5\n\t_ = n\n}", nil, nil, func(t *testing.T, v map[string]reflect.Value, _ *Doc) {
			if v["n"].Interface() != 1 {
				t.Errorf("n = %v", v["n"])
			}
		}},
		{"var inside if and for", "if n > 0 { z := 1; _ = z }\nfor i := 0; i < 2; i++ { w := i; _ = w }", nil, nil, nil},
		{"func literal var is not created", "f := func() int { return 1 }\nk := f()", []string{"k"}, nil, nil},
		{"declarations", "type pair struct{ a, b int }\nfunc sum(p pair) int { return p.a + p.b }\ntotal := sum(pair{1, 2})", []string{"total"}, nil, func(t *testing.T, v map[string]reflect.Value, _ *Doc) {
			if v["total"].Interface() != 3 {
				t.Errorf("total = %v", v["total"])
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ptr := &Doc{Title: "old"}
			vars := []Var{
				{"n", reflect.ValueOf(1)},
				{"doc", reflect.ValueOf(ptr)},
				{"rows", reflect.ValueOf([]Row{{"a", 1}})},
				{"m", reflect.ValueOf(map[string]int{"a": 1})},
				{"d", reflect.ValueOf(Doc{Title: "d"})},
			}
			res, err := in.Eval(context.Background(), Input{Code: tc.code, Vars: vars})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Created, tc.created) {
				t.Errorf("Created = %v, want %v", res.Created, tc.created)
			}
			if !slices.Equal(res.Assigned, tc.assigned) {
				t.Errorf("Assigned = %v, want %v", res.Assigned, tc.assigned)
			}
			for _, v := range vars {
				if got := res.Values[v.Name]; !got.IsValid() || got.Type() != v.Value.Type() {
					t.Errorf("Values[%s] = %v, want type %v", v.Name, got, v.Value.Type())
				}
			}
			if tc.check != nil {
				tc.check(t, res.Values, ptr)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	in, _ := New(Options{})
	cases := []struct {
		code       string
		line, col  int
		source, in string
	}{
		{"x := 1\ny := (x +\n", 2, 10, "y := (x +", "expected"},
		{"import \"strings\"\n\nfmt.Println(strings.ToUpper(1))", 3, 29, "fmt.Println(strings.ToUpper(1))", ""},
		{"b := make([]int, 3); c := b + \"x\"", 1, 27, `b := make([]int, 3); c := b + "x"`, ""},
		{"n := 1\nn = \"s\"", 2, 5, `n = "s"`, ""},
		{"for i := 0; i < 2; i++ {\n\tj := i + \"x\"\n}", 2, 7, "\tj := i + \"x\"", ""},
		{"func f() int {\n\treturn \"s\"\n}\nf()", 2, 0, "\treturn \"s\"", ""},
	}
	for _, tc := range cases {
		t.Run(tc.code, func(t *testing.T) {
			_, err := in.Eval(context.Background(), Input{Code: tc.code})
			var ce *CompileError
			if !errors.As(err, &ce) || !errors.Is(err, ErrCompile) {
				t.Fatalf("err = %v (%T)", err, err)
			}
			if ce.Line != tc.line || (tc.col != 0 && ce.Column != tc.col) {
				t.Errorf("at %d:%d, want %d:%d (%v)", ce.Line, ce.Column, tc.line, tc.col, err)
			}
			if tc.source != "" && ce.Source != tc.source {
				t.Errorf("Source = %q, want %q", ce.Source, tc.source)
			}
			if !strings.Contains(err.Error(), tc.in) {
				t.Errorf("message %q lacks %q", err, tc.in)
			}
		})
	}
}

func TestPanicLines(t *testing.T) {
	in, _ := New(Options{})
	cases := []struct {
		code string
		line int
	}{
		{"a := []int{}\n_ = 1\nfmt.Println(a[5])", 3},
		{"x := 0\nfor i := 0; i < 3; i++ {\n\tif i == 2 {\n\t\tx = 10 / x\n\t}\n}", 4},
		{"func g() {\n\tpanic(\"boom\")\n}\ng()", 2},
		// Statements that cannot panic carry no line marker; the one that
		// panics still names its own line.
		{"a := 1\nb := a * 2\nc := []int{}\n_ = c[b]", 4},
		{"s := []int{1}\nfor i := 0; i < 3; i++ {\n\tj := i + 1\n\tk := j * 2\n\ts[0] = s[k]\n}", 5},
		{"var m map[string]int\nn := 1\nn++\nm[\"k\"] = n\nn = 2", 4},
		{"x := 0\ny := 5\ny /= x\nx = y", 3},
		{"type P struct{ N int }\nvar p *P\nn := 3\nn = p.N", 4},
	}
	for _, tc := range cases {
		_, err := in.Eval(context.Background(), Input{Code: tc.code})
		var pe *PanicError
		if !errors.As(err, &pe) {
			t.Fatalf("%q: err = %v", tc.code, err)
		}
		if pe.Line != tc.line {
			t.Errorf("%q: line %d, want %d (%v)", tc.code, pe.Line, tc.line, err)
		}
	}
}

func TestFuncsAndImports(t *testing.T) {
	in, _ := New(Options{Symbols: []Exports{appSymbols}})
	weather := func(location, unit string) (string, error) {
		if location == "" {
			return "", errors.New("no location")
		}
		return fmt.Sprintf("12°%s in %s", strings.ToUpper(unit), location), nil
	}
	res, err := in.Eval(context.Background(), Input{
		Code:  "import (\n\t\"strings\"\n\tapp \"example.com/app\"\n)\nw, err := get_weather(city, \"c\")\nfmt.Println(strings.TrimSpace(w), err)\nr := app.Row{Name: w}",
		Vars:  []Var{{"city", reflect.ValueOf("Paris")}},
		Funcs: map[string]reflect.Value{"get_weather": reflect.ValueOf(weather)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "12°C in Paris <nil>\n" || !slices.Equal(res.Created, []string{"w", "err", "r"}) {
		t.Fatalf("%+v", res)
	}
	// imports persist, and re-importing is fine
	for range 2 {
		if _, err := in.Eval(context.Background(), Input{Code: "import \"strings\"\nfmt.Println(strings.ToLower(\"A\"))"}); err != nil {
			t.Fatal(err)
		}
	}
	// an alias rebound to another package
	res, err = in.Eval(context.Background(), Input{Code: "import strings \"strconv\"\nfmt.Println(strings.Itoa(5))"})
	if err != nil || res.Stdout != "5\n" {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestRebuildKeepsState(t *testing.T) {
	in, _ := New(Options{RebuildEvery: 3})
	if _, err := in.Eval(context.Background(), Input{Code: "func double(x int) int { return 2 * x }"}); err != nil {
		t.Fatal(err)
	}
	n := reflect.ValueOf(1)
	for i := range 10 {
		res, err := in.Eval(context.Background(), Input{Code: "n = double(n)", Vars: []Var{{"n", n}}})
		if err != nil {
			t.Fatalf("eval %d: %v", i, err)
		}
		n = res.Values["n"]
	}
	if n.Int() != 1024 {
		t.Fatalf("n = %v", n)
	}
	if s := in.Stats(); s.Rebuilds < 3 {
		t.Fatalf("stats %+v", s)
	}
	// a redeclared function replaces the old one
	if _, err := in.Eval(context.Background(), Input{Code: "func double(x int) int { return 3 * x }"}); err != nil {
		t.Fatal(err)
	}
	res, err := in.Eval(context.Background(), Input{Code: "fmt.Println(double(2))"})
	if err != nil || res.Stdout != "6\n" {
		t.Fatalf("%+v %v", res, err)
	}
}

// TestNewValuesSeen: a variable handed in with a new value (stored into the
// interpreter's global without compiling an assignment) is what the next
// snippet, and a function an earlier snippet declared, read.
func TestNewValuesSeen(t *testing.T) {
	in, _ := New(Options{Symbols: []Exports{appSymbols}})
	vars := func(n int, title string, rows []Row, f func() int) []Var {
		return []Var{
			{"n", reflect.ValueOf(n)}, {"doc", reflect.ValueOf(&Doc{Title: title})},
			{"d", reflect.ValueOf(Doc{Title: title})}, {"rows", reflect.ValueOf(rows)},
			{"f", reflect.ValueOf(f)}, {"e", reflect.ValueOf(&e1).Elem()},
		}
	}
	code := "func show() string { return fmt.Sprint(n, doc.Title, d.Title, len(rows), f(), e) }"
	if _, err := in.Eval(context.Background(), Input{Code: code, Vars: vars(0, "t0", nil, func() int { return 0 })}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		title := fmt.Sprint("t", i)
		e1 = fmt.Errorf("e%d", i)
		res, err := in.Eval(context.Background(), Input{
			Code: "fmt.Println(show())\nfmt.Println(n, doc.Title, d.Title, len(rows), f(), e)",
			Vars: vars(i, title, make([]Row, i), func() int { return i }),
		})
		want := fmt.Sprint(i, title, title, i, i, e1) + "\n" + fmt.Sprintln(i, title, title, i, i, e1)
		if err != nil || res.Stdout != want {
			t.Fatalf("eval %d: %q, %v; want %q", i, res.Stdout, err, want)
		}
	}
}

var e1 error

func TestRetypedVariable(t *testing.T) {
	in, _ := New(Options{})
	for _, v := range []any{1, "s", []string{"a"}} {
		res, err := in.Eval(context.Background(), Input{Code: "fmt.Printf(\"%T\\n\", x)", Vars: []Var{{"x", reflect.ValueOf(v)}}})
		if err != nil || res.Stdout != fmt.Sprintf("%T\n", v) {
			t.Fatalf("%+v %v", res, err)
		}
	}
}

func TestOutputBounded(t *testing.T) {
	in, _ := New(Options{MaxOutput: 10})
	res, err := in.Eval(context.Background(), Input{Code: `fmt.Print(strings.Repeat("x", 100))`})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Stdout, "xxxxxxxxxx\n[output truncated: 90 more bytes dropped]") {
		t.Fatalf("%q", res.Stdout)
	}
}

func TestBadInput(t *testing.T) {
	in, _ := New(Options{})
	for _, vars := range [][]Var{
		{{"1x", reflect.ValueOf(1)}},
		{{"x", reflect.Value{}}},
		{{"x", reflect.ValueOf(1)}, {"x", reflect.ValueOf(2)}},
		{{"_byrefX", reflect.ValueOf(1)}},
	} {
		if _, err := in.Eval(context.Background(), Input{Code: "_ = 1", Vars: vars}); !errors.Is(err, ErrInput) {
			t.Errorf("%v: err = %v", vars, err)
		}
	}
}
