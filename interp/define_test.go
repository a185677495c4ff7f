package interp

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestBlockMultiDefine: a declaration of several variables from one
// multi-value expression inside a block of top-level code (yaegi v0.16.1
// loses the variables there: "undefined: p"; see wrapMultiDefines).
func TestBlockMultiDefine(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := func(k string) (string, error) {
		if k == "" {
			return "", errors.New("empty key")
		}
		return "<" + k + ">", nil
	}
	cases := []struct {
		name     string
		code     string
		out      string
		n        int // the run variable n afterwards (1 before)
		created  []string
		assigned []string
	}{
		{"if", "if true {\n\tp, q := fmt.Println(1)\n\tfmt.Println(p, q)\n}", "1\n2 <nil>\n", 1, nil, nil},
		{"else", "if false {\n} else {\n\tp, q := fmt.Println(1)\n\tfmt.Println(p, q)\n}", "1\n2 <nil>\n", 1, nil, nil},
		{"bare block", "{\n\tp, q := fmt.Println(1)\n\tfmt.Println(p, q)\n}", "1\n2 <nil>\n", 1, nil, nil},
		{"one line", `if true { p, err := strconv.Atoi("5"); fmt.Println(p, err) }`, "5 <nil>\n", 1, nil, nil},
		{"for", "for i := 0; i < 2; i++ {\n\tp, err := strconv.ParseFloat(s, 64)\n\tfmt.Println(i, p, err)\n}", "0 2.5 <nil>\n1 2.5 <nil>\n", 1, nil, nil},
		{"range over a host func", "for _, k := range []string{\"h1\", \"\"} {\n\ttxt, err := text(k)\n\tif err != nil {\n\t\tfmt.Println(\"error:\", err)\n\t\tcontinue\n\t}\n\tfmt.Println(txt)\n}", "<h1>\nerror: empty key\n", 1, nil, nil},
		{"switch", "switch n {\ncase 1:\n\tp, err := strconv.Atoi(\"7\")\n\tfmt.Println(p, err)\ndefault:\n}", "7 <nil>\n", 1, nil, nil},
		{"type switch", "var x any = s\nswitch v := x.(type) {\ncase string:\n\tf, err := strconv.ParseFloat(v, 64)\n\tfmt.Println(f, err)\n}", "2.5 <nil>\n", 1, []string{"x"}, nil},
		{"select", "ch := make(chan int, 1)\nch <- 4\nselect {\ncase v, ok := <-ch:\n\tw, err := strconv.Atoi(\"5\")\n\tfmt.Println(v, ok, w, err)\n}", "4 true 5 <nil>\n", 1, nil, nil},
		{"comma-ok forms", "m := map[string]int{\"a\": 1}\nvar x any = 2\nch := make(chan int, 1)\nch <- 3\nif true {\n\tv, ok := m[\"a\"]\n\ti, isInt := x.(int)\n\tr, open := <-ch\n\tfmt.Println(v, ok, i, isInt, r, open)\n}", "1 true 2 true 3 true\n", 1, []string{"m", "x"}, nil},
		{"var in a block", "if true {\n\tvar p, err = strconv.Atoi(\"8\")\n\tfmt.Println(p, err)\n}", "8 <nil>\n", 1, nil, nil},
		{"if init in a block", "if true {\n\tif p, err := strconv.Atoi(\"9\"); err == nil {\n\t\tfmt.Println(p)\n\t}\n}", "9\n", 1, nil, nil},
		{"top-level if init", "if p, err := strconv.Atoi(\"9\"); err == nil {\n\tfmt.Println(p)\n}", "9\n", 1, nil, nil},
		{"nested blocks", "for i := 0; i < 2; i++ {\n\tif i == 1 {\n\t\t{\n\t\t\tp, err := strconv.Atoi(\"6\")\n\t\t\tfmt.Println(p, err)\n\t\t}\n\t}\n}", "6 <nil>\n", 1, nil, nil},
		{"labeled continue", "outer:\nfor i := 0; i < 3; i++ {\n\tfor {\n\t\tv, err := strconv.Atoi(\"1\")\n\t\tif err == nil && i == 1 {\n\t\t\tcontinue outer\n\t\t}\n\t\tfmt.Println(i, v)\n\t\tbreak\n\t}\n}", "0 1\n2 1\n", 1, nil, nil},
		{"redeclaration in the same block", "if true {\n\ta, err := strconv.Atoi(\"1\")\n\tb, err := strconv.Atoi(\"x\")\n\tfmt.Println(a, b, err != nil)\n}", "1 0 true\n", 1, nil, nil},
		{"redeclared top-level err", "_, err := strconv.Atoi(\"x\")\nif true {\n\tp, err := strconv.Atoi(\"2\")\n\tfmt.Println(p, err)\n}\nfmt.Println(err != nil)", "2 <nil>\ntrue\n", 1, []string{"err"}, nil},
		{"shadowed run variable", "if true {\n\tn, err := strconv.Atoi(\"7\")\n\tfmt.Println(n, err)\n}\nfmt.Println(n)", "7 <nil>\n1\n", 1, nil, nil},
		{"shadowed created variable", "x := 5\nfor i := 0; i < 1; i++ {\n\tx, err := strconv.Atoi(\"7\")\n\tfmt.Println(x, err)\n}\nfmt.Println(x)", "7 <nil>\n5\n", 1, []string{"x"}, nil},
		{"run variable assigned from a block", "if true {\n\tv, err := strconv.Atoi(\"3\")\n\tn = v\n\t_ = err\n}", "", 3, nil, []string{"n"}},
		{"created variable assigned from a block", "total := 0\nfor _, w := range []string{\"1\", \"2\"} {\n\tv, err := strconv.Atoi(w)\n\tif err == nil {\n\t\ttotal += v\n\t}\n}\nfmt.Println(total)", "3\n", 1, []string{"total"}, nil},
		{"function literal", "f := func() int {\n\tif true {\n\t\tp, _ := strconv.Atoi(\"4\")\n\t\treturn p\n\t}\n\treturn 0\n}\nfmt.Println(f())", "4\n", 1, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := in.Eval(context.Background(), Input{
				Code:  tc.code,
				Vars:  []Var{{"n", reflect.ValueOf(1)}, {"s", reflect.ValueOf("2.5")}},
				Funcs: map[string]reflect.Value{"text": reflect.ValueOf(text)},
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Stdout != tc.out {
				t.Errorf("stdout %q, want %q", res.Stdout, tc.out)
			}
			if got := res.Values["n"].Interface(); got != tc.n {
				t.Errorf("n = %v, want %d", got, tc.n)
			}
			if got := res.Values["s"].Interface(); got != "2.5" {
				t.Errorf("s = %v", got)
			}
			if !slices.Equal(res.Created, tc.created) {
				t.Errorf("Created = %v, want %v", res.Created, tc.created)
			}
			if !slices.Equal(res.Assigned, tc.assigned) {
				t.Errorf("Assigned = %v, want %v", res.Assigned, tc.assigned)
			}
			for name := range res.Values {
				if strings.Contains(name, "_byref") {
					t.Errorf("internal name %s in Values", name)
				}
			}
		})
	}
}

// TestBlockMultiDefineErrors: errors in a rewritten statement keep snippet
// positions (the compiler's: an assignment mismatch is at the call).
func TestBlockMultiDefineErrors(t *testing.T) {
	in, _ := New(Options{})
	cases := []struct {
		name      string
		code      string
		line, col int
		msg       string
	}{
		{"too many variables", "if true {\n\tp, q, r := strconv.Atoi(\"1\")\n\tfmt.Println(p, q, r)\n}", 2, 13, "assignment mismatch: 3 variables but strconv.Atoi returns 2 values"},
		{"too few variables", "for {\n\tp, q := fmt.Sprint(1)\n\tfmt.Println(p, q)\n}", 2, 0, ""},
		{"one line", `if true { p, q, r := strconv.Atoi("1"); _, _, _ = p, q, r }`, 1, 22, "assignment mismatch"},
		{"later line", "if true {\n\tp, err := strconv.Atoi(\"1\")\n\tp = \"s\"\n\t_ = err\n}", 3, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := in.Eval(context.Background(), Input{Code: tc.code})
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v (%T)", err, err)
			}
			if ce.Line != tc.line || (tc.col != 0 && ce.Column != tc.col) {
				t.Errorf("at %d:%d, want %d:%d (%v)", ce.Line, ce.Column, tc.line, tc.col, err)
			}
			if want := strings.Split(tc.code, "\n")[tc.line-1]; ce.Source != want {
				t.Errorf("Source = %q, want %q", ce.Source, want)
			}
			if !strings.Contains(ce.Msg, tc.msg) || strings.Contains(err.Error(), "_byref") {
				t.Errorf("message %q, want %q", ce.Msg, tc.msg)
			}
		})
	}
	// a panic in a rewritten statement names its line
	_, err := in.Eval(context.Background(), Input{Code: "x := []int{}\nif true {\n\tp, err := strconv.Atoi(\"3\")\n\t_ = err\n\tfmt.Println(x[p])\n}"})
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Line != 5 {
		t.Fatalf("err = %v, want a panic on line 5", err)
	}
	// an endless rewritten loop still ends at the deadline
	short, _ := New(Options{Timeout: 200 * time.Millisecond})
	_, err = short.Eval(context.Background(), Input{Code: "for {\n\tv, err := strconv.Atoi(\"1\")\n\t_, _ = v, err\n}"})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
}

// TestSwitchAndSelect: case clauses of top-level switch and select statements
// are not statements; line markers go into their bodies.
func TestSwitchAndSelect(t *testing.T) {
	in, _ := New(Options{})
	for _, tc := range []struct{ code, out string }{
		{"x := 2\nswitch x {\ncase 1:\n\tfmt.Println(\"one\")\ncase 2:\n\tfmt.Println(\"two\")\n\tfallthrough\ndefault:\n\tfmt.Println(\"more\")\n}", "two\nmore\n"},
		{"var v any = 1.5\nswitch v.(type) {\ncase float64:\n\tfmt.Println(\"float\")\n}", "float\n"},
		{"ch := make(chan int, 1)\nch <- 1\nselect {\ncase v := <-ch:\n\tfmt.Println(v)\ndefault:\n}", "1\n"},
	} {
		res, err := in.Eval(context.Background(), Input{Code: tc.code})
		if err != nil || res.Stdout != tc.out {
			t.Errorf("%q: %q, %v; want %q", tc.code, res.Stdout, err, tc.out)
		}
	}
	_, err := in.Eval(context.Background(), Input{Code: "x := []int{}\nswitch len(x) {\ncase 0:\n\tfmt.Println(x[1])\n}"})
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Line != 4 {
		t.Fatalf("err = %v, want a panic on line 4", err)
	}
}
