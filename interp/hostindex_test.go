package interp

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func hostVars() []Var {
	return []Var{
		{"rows", reflect.ValueOf([]Row{{"a", 1}, {"b", 2}})},
		{"nums", reflect.ValueOf([]int{1, 2, 3})},
		{"m", reflect.ValueOf(map[string]int{"k": 5})},
		{"doc", reflect.ValueOf(&Doc{Title: "t", Rows: []Row{{"z", 9}}})},
		{"mm", reflect.ValueOf(map[string][]int{"a": {4, 5}})},
		{"ms", reflect.ValueOf(map[string]Row{"x": {"xn", 1}})},
		{"str", reflect.ValueOf("hey")},
		{"arr", reflect.ValueOf([3]int{7, 8, 9})},
	}
}

// TestHostIndexing: host variables behave like Go variables at top level
// in every position (yaegi v0.16.1 failed the first ones with "constant
// definition loop" or a nil-pointer panic; see internal/yaegi/README.md).
func TestHostIndexing(t *testing.T) {
	cases := []struct{ code, out string }{
		{"top := rows[0]\nfmt.Println(top)", "{a 1}\n"},
		{"a := nums[0]\nfmt.Println(a)", "1\n"},
		{"f := m[\"k\"]\nfmt.Println(f)", "5\n"},
		{"h := nums[len(nums)-1]\nfmt.Println(h)", "3\n"},
		{"first := rows[0].Name\nfmt.Println(first)", "a\n"},
		{"a := nums[1] + 0\nfmt.Println(a)", "2\n"},
		{"var k app.Row = rows[0]\nfmt.Println(k)", "{a 1}\n"},
		{"s := nums[1:]\nfmt.Println(s)", "[2 3]\n"},
		{"n := len(nums)\nfmt.Println(n)", "3\n"},
		{"r := doc.Rows[0]\nfmt.Println(r)", "{z 9}\n"},
		{"r := mm[\"a\"][1]\nfmt.Println(r)", "5\n"},
		{"r := ms[\"x\"].Name\nfmt.Println(r)", "xn\n"},
		{"l := []app.Row{rows[0], rows[1]}\nfmt.Println(l)", "[{a 1} {b 2}]\n"},
		{"c := *doc\nfmt.Println(c.Title)", "t\n"},
		{"c := rows[0]\nc.N++\nfmt.Println(c, rows[0])", "{a 2} {a 1}\n"},
		{"b := str[0]\nfmt.Println(b)", "104\n"},
		{"e := arr[1]\nfmt.Println(e)", "8\n"},
		{"v, ok := m[\"k\"]\nfmt.Println(v, ok)", "5 true\n"},
		{"v, ok := m[\"nope\"]\nfmt.Println(v, ok)", "0 false\n"},
		{"var v, ok = m[\"k\"]\nfmt.Println(v, ok)", "5 true\n"},
		{"m4 := map[string]int{\"k\": 3}\nv, ok := m4[\"k\"]\nfmt.Println(v, ok)", "3 true\n"},
		{"ch := make(chan int, 1)\nch <- 4\nr, ok := <-ch\nfmt.Println(r, ok)", "4 true\n"},
		{"doc.Retitle(rows[1].Name)\nfmt.Println(doc.Title)", "b\n"},
		{"n := doc.Rows[len(doc.Rows)-1].N * 2\nfmt.Println(n)", "18\n"},
		{"k := mm[\"a\"]\nk2 := k[0]\nfmt.Println(k2)", "4\n"},
	}
	in, err := New(Options{Symbols: []Exports{appSymbols}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		res, err := in.Eval(context.Background(), Input{Code: tc.code, Vars: hostVars()})
		if err != nil {
			t.Errorf("%q: %v", tc.code, err)
			continue
		}
		if res.Stdout != tc.out {
			t.Errorf("%q: stdout %q, want %q", tc.code, res.Stdout, tc.out)
		}
	}
}

// TestHostIndexingErrors: mistakes name their real cause and line, with no
// hint about spelling when the spelling is right.
func TestHostIndexingErrors(t *testing.T) {
	cases := []struct {
		code string
		line int
		msg  string
	}{
		{"fmt.Println(1)\nx := nope[0]\nfmt.Println(x)", 2, "undefined: nope"},
		{"x := rows[0].Nope\nfmt.Println(x)", 1, "rows[0].Nope undefined (type interp.Row has no field or method Nope)"},
	}
	in, err := New(Options{Symbols: []Exports{appSymbols}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		_, err := in.Eval(context.Background(), Input{Code: tc.code, Vars: hostVars()})
		var ce *CompileError
		if !errors.As(err, &ce) {
			t.Errorf("%q: %v, want a CompileError", tc.code, err)
			continue
		}
		if ce.Line != tc.line || !strings.Contains(ce.Msg, tc.msg) || strings.Contains(err.Error(), "loop") || strings.Contains(err.Error(), "spelling") {
			t.Errorf("%q: line %d %q, want line %d %q", tc.code, ce.Line, err, tc.line, tc.msg)
		}
	}
	_, err = in.Eval(context.Background(), Input{Code: "x := rows[5]\nfmt.Println(x)", Vars: hostVars()})
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Line != 1 || !strings.Contains(pe.Value, "out of range") {
		t.Errorf("rows[5]: %v, want a panic on line 1 naming the range", err)
	}
}

// TestVariableHidesPackage: a variable named like an allowed or host
// package is refused before the snippet runs (it would hide the package:
// "undefined method: Println").
func TestVariableHidesPackage(t *testing.T) {
	in, err := New(Options{Symbols: []Exports{appSymbols}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fmt", "strings", "app"} {
		_, err := in.Eval(context.Background(), Input{Code: "x := 1\n_ = x", Vars: []Var{{name, reflect.ValueOf(1)}}})
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "hide the package") {
			t.Errorf("variable %s: %v, want ErrInput naming the package", name, err)
		}
	}
}
