package interp

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestTopLevelReturn: a return in a snippet's top-level code ends the
// snippet successfully, like returning from main; what ran before it is
// kept, what follows it never ran.
func TestTopLevelReturn(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		code    string
		out     string
		n       int            // the run variable n afterwards (1 before)
		values  map[string]any // created variables read back
		created []string
	}{
		{"bare", "x := 2\nfmt.Println(x)\nreturn\ny := 3\nfmt.Println(y)", "2\n", 1, map[string]any{"x": 2}, []string{"x"}},
		{"last statement", "x := 2\nreturn", "", 1, map[string]any{"x": 2}, []string{"x"}},
		{"in if", "_, err := strconv.Atoi(\"x\")\nif err != nil {\n\tfmt.Println(\"bad:\", err != nil)\n\treturn\n}\nn = 5\nv := 4", "bad: true\n", 1, map[string]any{}, []string{"err"}},
		{"if not taken", "_, err := strconv.Atoi(\"7\")\nif err != nil {\n\treturn\n}\nn = 5\nv := 4", "", 5, map[string]any{"v": 4}, []string{"err", "v"}},
		{"in for", "total := 0\nfor i := 0; ; i++ {\n\tif i == 3 {\n\t\treturn\n\t}\n\ttotal += i\n\tn = i\n}\nafter := 1", "", 2, map[string]any{"total": 3}, []string{"total"}},
		{"in switch", "switch n {\ncase 1:\n\tfmt.Println(\"one\")\n\treturn\n}\nfmt.Println(\"not reached\")", "one\n", 1, nil, nil},
		{"one line", "if true { fmt.Println(\"a\"); return }; fmt.Println(\"b\")", "a\n", 1, nil, nil},
		{"in a wrapped multi-define", "a := 1\nif true {\n\tp, err := strconv.Atoi(\"x\")\n\tif err != nil {\n\t\tfmt.Println(\"stop\", p)\n\t\treturn\n\t}\n}\nb := 2", "stop 0\n", 1, map[string]any{"a": 1}, []string{"a"}},
		{"in a wrapped loop", "for _, w := range []string{\"1\", \"2\", \"x\", \"4\"} {\n\tv, err := strconv.Atoi(w)\n\tif err != nil {\n\t\treturn\n\t}\n\tn += v\n}\nn = 100", "", 4, nil, nil},
		{"input assigned before, redeclared after", "n = 7\nif n > 0 {\n\treturn\n}\nn := 9\nz := 3", "", 7, map[string]any{}, nil},
		{"func literal returns normally", "f := func(k int) int {\n\tif k > 2 {\n\t\treturn k * 10\n\t}\n\treturn k\n}\nfmt.Println(f(1), f(3))\nn = f(5)", "1 30\n", 50, nil, nil},
		{"func literal in a wrapped statement", "if true {\n\tq, err := func() (int, error) { return 6, nil }()\n\tn = q\n\t_ = err\n}", "", 6, nil, nil},
		{"declaration before, declaration after", "func twice(k int) int { return 2 * k }\nx := twice(4)\nreturn\nfunc thrice(k int) int { return 3 * k }\ny := thrice(2)", "", 1, map[string]any{"x": 8}, []string{"x"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := in.Eval(context.Background(), Input{Code: tc.code, Vars: []Var{{"n", reflect.ValueOf(1)}}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Stdout != tc.out || res.Stderr != "" {
				t.Errorf("stdout %q stderr %q, want %q", res.Stdout, res.Stderr, tc.out)
			}
			if got := res.Values["n"].Interface(); got != tc.n {
				t.Errorf("n = %v, want %d", got, tc.n)
			}
			for k, want := range tc.values {
				if v, ok := res.Values[k]; !ok || v.Interface() != want {
					t.Errorf("%s = %v, want %v", k, v, want)
				}
			}
			for k := range res.Values {
				if _, ok := tc.values[k]; !ok && k != "n" && !slices.Contains(tc.created, k) {
					t.Errorf("%s read back although it was declared after the return", k)
				}
			}
			if !slices.Equal(res.Created, tc.created) {
				t.Errorf("created %v, want %v", res.Created, tc.created)
			}
		})
	}
	// A declaration before the return persists, one after it never ran.
	res, err := in.Eval(context.Background(), Input{Code: "fmt.Println(twice(5))"})
	if err != nil || res.Stdout != "10\n" {
		t.Fatalf("twice: %q, %v", res.Stdout, err)
	}
	if st := in.Stats(); st.Rebuilds != 1 {
		t.Errorf("rebuilds %d: a return should not cost a rebuild", st.Rebuilds)
	}
	if _, err := in.Eval(context.Background(), Input{Code: "fmt.Println(thrice(5))"}); !errors.Is(err, ErrCompile) {
		t.Fatalf("thrice: %v, want a compile error", err)
	}
}

func TestTopLevelReturnValues(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range []string{"x := 1\nif x > 0 {\n\treturn x\n}", "return errors.New(\"no\")"} {
		_, err := in.Eval(context.Background(), Input{Code: code})
		var ce *CompileError
		if !errors.As(err, &ce) || !strings.Contains(ce.Msg, "top-level return takes no values") {
			t.Fatalf("%q: %v, want the top-level return compile error", code, err)
		}
		if _, aerr := Analyze(code, nil); aerr == nil || aerr.Error() != err.Error() {
			t.Errorf("Analyze: %v, Eval: %v", aerr, err)
		}
	}
	_, err = in.Eval(context.Background(), Input{Code: "x := 1\nif x > 0 {\n\treturn x\n}"})
	var ce *CompileError
	if errors.As(err, &ce) && (ce.Line != 3 || ce.Column != 2 || ce.Source != "\treturn x") {
		t.Errorf("position %d:%d %q", ce.Line, ce.Column, ce.Source)
	}
	// A function's return with values is ordinary Go.
	res, err := in.Eval(context.Background(), Input{Code: "func f() int { return 4 }\nfmt.Println(f())"})
	if err != nil || res.Stdout != "4\n" {
		t.Fatalf("%q, %v", res.Stdout, err)
	}
}

// TestTopLevelReturnPanicLine: a panic after instrumentation of a return
// still names the right line.
func TestTopLevelReturnPanicLine(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = in.Eval(context.Background(), Input{Code: "x := []int{}\nif len(x) > 0 {\n\treturn\n}\nfmt.Println(x[2])"})
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Line != 5 {
		t.Fatalf("err = %v, want a panic on line 5", err)
	}
}
