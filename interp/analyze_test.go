package interp

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestAnalyze(t *testing.T) {
	vars := map[string]reflect.Type{
		"n": reflect.TypeOf(0), "s": reflect.TypeOf([]int{}), "m": reflect.TypeOf(map[string]int{}),
		"doc": reflect.TypeOf(&Doc{}), "d": reflect.TypeOf(Doc{}),
	}
	cases := []struct {
		code                   string
		reads, writes, creates []string
	}{
		{"x := n + 1", []string{"n"}, nil, []string{"x"}},
		{"n = 2", nil, []string{"n"}, nil},
		{"n += 2", []string{"n"}, []string{"n"}, nil},
		{"n++", []string{"n"}, []string{"n"}, nil},
		{"s[0] = 1", []string{"s"}, []string{"s"}, nil},
		{`m["a"] = 1`, []string{"m"}, []string{"m"}, nil},
		{`doc.Title = "x"`, []string{"doc"}, []string{"doc"}, nil},
		{`d.Rows[0].N++`, []string{"d"}, []string{"d"}, nil},
		{"p := &n\n*p = 3", []string{"n"}, []string{"n"}, []string{"p"}},
		{`delete(m, "a")`, []string{"m"}, []string{"m"}, nil},
		{`doc.Retitle("x")`, []string{"doc"}, []string{"doc"}, nil},
		{`d.Retitle("x")`, []string{"d"}, []string{"d"}, nil},
		{"for _, n = range s {}", []string{"s"}, []string{"n"}, nil},
		{"if true { n := 1; n++ }", nil, nil, nil},
		{"for i := range s { y := i; _ = y }", []string{"s"}, nil, nil},
		{"f := func(n int) int { return n }\nz := f(1)", nil, nil, []string{"f", "z"}},
		{"n := 5\nfmt.Println(n)", []string{"n"}, []string{"n"}, nil},
		{"var a, b = 1, n", []string{"n"}, nil, []string{"a", "b"}},
		{"func g() int { return n }\nx := g()", []string{"n"}, nil, []string{"x"}},
		{"v := Doc{Title: \"t\"}", nil, nil, []string{"v"}},
	}
	for _, tc := range cases {
		acc, err := Analyze(tc.code, vars)
		if err != nil {
			t.Errorf("%q: %v", tc.code, err)
			continue
		}
		if !slices.Equal(acc.Reads, tc.reads) || !slices.Equal(acc.Writes, tc.writes) || !slices.Equal(acc.Creates, tc.creates) {
			t.Errorf("%q: reads %v writes %v creates %v; want %v %v %v", tc.code, acc.Reads, acc.Writes, acc.Creates, tc.reads, tc.writes, tc.creates)
		}
	}
}

func TestAnalyzeImports(t *testing.T) {
	acc, err := Analyze("import \"strings\"\nx := strconv.Itoa(len(strings.Fields(\"a b\")))", nil)
	if err != nil || !slices.Equal(acc.Imports, []string{"strings", "strconv"}) {
		t.Fatalf("%+v %v", acc, err)
	}
}

func TestAnalyzeRefusals(t *testing.T) {
	for _, code := range []string{"go f()", `import "os/exec"`, "os.Exit(1)", "x := os.Args", "func main() {}", "var a [1<<40]int"} {
		if _, err := Analyze(code, nil); !errors.Is(err, ErrRefused) {
			t.Errorf("%q: err = %v", code, err)
		}
	}
	if _, err := Analyze("x := (", nil); !errors.Is(err, ErrCompile) {
		t.Errorf("syntax error not reported")
	}
}

// TestStrayClosingBrace: a closing brace that matches nothing at top level
// would end the statements early and turn the rest into file-level
// declarations (an init that runs in replay code). Eval and Analyze refuse
// it as a compile error instead of running part of it.
func TestStrayClosingBrace(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		code string
		line int
	}{
		{"defer func() { recover() }()\npanic(\"done\")\n}\nfunc init() { println(\"PWNED\") }\nfunc _() (json.RawMessage, Variables, error) {", 3},
		{"x := 1\n}\nfunc init() { println(x) }\nfunc _() {", 2},
		{"func f() {}\n}\nfunc init() {}\nfunc _() {\nf()", 2},
		{"x := 1 }; var y = 2; func _() {", 1},
	}
	for _, tc := range cases {
		_, err := in.Eval(context.Background(), Input{Code: tc.code})
		var ce *CompileError
		if !errors.As(err, &ce) || !strings.Contains(ce.Msg, "closing brace") || ce.Line != tc.line {
			t.Errorf("Eval(%q): err = %v, want a CompileError about a stray closing brace on line %d", tc.code, err, tc.line)
		}
		if _, err := Analyze(tc.code, nil); !errors.Is(err, ErrCompile) {
			t.Errorf("Analyze(%q): err = %v, want ErrCompile", tc.code, err)
		}
	}
	// Balanced braces, nested blocks and a literal "}" in a string still run.
	res, err := in.Eval(context.Background(), Input{Code: "s := \"}\"\nif len(s) == 1 {\n\tfor i := 0; i < 1; i++ { s += \"{\" }\n}\nfmt.Println(s)"})
	if err != nil || res.Stdout != "}{\n" {
		t.Errorf("balanced snippet: %q %v", res.Stdout, err)
	}
}

// TestMayPanic: the statements that get no line marker are those that
// cannot panic; everything else keeps one.
func TestMayPanic(t *testing.T) {
	cases := []struct {
		stmt string
		may  bool
	}{
		{"x := a + b*2 - 1", false},
		{"x = y", false},
		{"n++", false},
		{"var xs []int", false},
		{"s := \"a\" + t", false},
		{"xs := []int{1, 2}", false},
		{"ok := a < b && !c", false},
		{"break", false},
		{"x := f()", true},
		{"x := xs[0]", true},
		{"x := xs[1:]", true},
		{"x := p.N", true},
		{"x := *p", true},
		{"x := v.(int)", true},
		{"x := <-ch", true},
		{"x := a / b", true},
		{"x := a % b", true},
		{"x := a << b", true},
		{"x /= b", true},
		{"eq := a == b", true},
		{"f := func() {}", true},
		{"m := map[any]int{k: 1}", true},
		{"if a > b { x = 1 }", true},
		{"for i := 0; i < n; i++ {}", true},
		{"ch <- 1", true},
		{"return", true},
	}
	for _, tc := range cases {
		f, err := parser.ParseFile(token.NewFileSet(), "", "package p; func _() {"+tc.stmt+"}", 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.stmt, err)
		}
		st := f.Decls[0].(*ast.FuncDecl).Body.List[0]
		if got := mayPanic(st); got != tc.may {
			t.Errorf("mayPanic(%s) = %v, want %v", tc.stmt, got, tc.may)
		}
	}
}

// TestAnalyzeManyNames: reads and writes stay unique and in order of first
// appearance past the length from which addList keeps a map.
func TestAnalyzeManyNames(t *testing.T) {
	vars := map[string]reflect.Type{}
	var code strings.Builder
	var want []string
	for i := range 2*seenMin + 5 {
		name := fmt.Sprintf("v%d", i)
		vars[name] = reflect.TypeOf(0)
		want = append(want, name)
		fmt.Fprintf(&code, "%s = %s + v0 + v%d\n", name, name, i/2)
	}
	acc, err := Analyze(code.String(), vars)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(acc.Reads, want) || !slices.Equal(acc.Writes, want) {
		t.Errorf("reads %v\nwrites %v\nwant %v", acc.Reads, acc.Writes, want)
	}
}
