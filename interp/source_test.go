package interp

import (
	"context"
	"go/scanner"
	"go/token"
	"slices"
	"strings"
	"testing"

	yaegi "github.com/byref/byref/internal/yaegi/interp"
)

func TestExtractCode(t *testing.T) {
	text := "Let me compute it.\n\n```go\nx := 1\nfmt.Println(x)\n```\n\nand some shell:\n```sh\nls\n```\n~~~golang\ny := 2\n~~~\n```\nplain\n```\n"
	got := ExtractCode(text)
	want := []string{"x := 1\nfmt.Println(x)", "y := 2"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q", got)
	}
	if got := ExtractCode("no code here"); got != nil {
		t.Fatalf("got %q", got)
	}
	if got := ExtractCode("```go\nunterminated := 1\n"); !slices.Equal(got, []string{"unterminated := 1"}) {
		t.Fatalf("got %q", got)
	}
}

func TestNormalizeCode(t *testing.T) {
	cases := map[string]string{
		"x := 1\n\n":                  "x := 1",
		"```go\nx := 1\n```":          "x := 1",
		"```\nx := 1\n```":            "x := 1",
		"Here:\n```go\nx := 1\n```\n": "x := 1",
		"\nx := 1":                    "\nx := 1",
	}
	for in, want := range cases {
		if got := NormalizeCode(in); got != want {
			t.Errorf("NormalizeCode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitSource(t *testing.T) {
	code := "package main\nimport (\n\t\"fmt\"\n\ts \"strings\"\n)\nimport \"sort\"\nx := 1\ntype T struct{ A int }\nfunc (t T) M() int { return t.A }\nfunc f() T { return T{x} }\ny := f().M()\nfunc() { fmt.Println(y) }()"
	src, err := splitSource(code)
	if err != nil {
		t.Fatal(err)
	}
	if len(src.body) != len(code) {
		t.Fatal("body changed length")
	}
	var paths []string
	for _, im := range src.imports {
		paths = append(paths, im.Alias+"="+im.Path)
	}
	if !slices.Equal(paths, []string{"=fmt", "s=strings", "=sort"}) {
		t.Errorf("imports %v", paths)
	}
	var kinds []bool
	for _, sg := range src.segs {
		kinds = append(kinds, sg.decl)
	}
	// T and its method use nothing and go to the front; f uses x.
	if !slices.Equal(kinds, []bool{true, false, true, false}) {
		t.Errorf("segments %v", src.segs)
	}
}

func TestEditsColumn(t *testing.T) {
	var e edits
	e.add(5, "AAA")
	e.add(10, "BB")
	e.sort()
	// original line "0123456789xyz" (offsets 0..12), instrumented "01234AAA56789BBxyz"
	for _, c := range []struct{ newCol, want int }{{1, 1}, {5, 5}, {7, 6}, {9, 6}, {10, 7}, {16, 11}, {17, 12}} {
		if got := e.column(0, 13, c.newCol); got != c.want {
			t.Errorf("column(%d) = %d, want %d", c.newCol, got, c.want)
		}
	}
}

func TestSplit(t *testing.T) {
	code := "package main\nimport (\n\t\"fmt\"\n\ts \"strings\"\n\t_ \"sort\"\n)\nx := 1\ntype A int\ntype T struct{ A int }\nfunc (t T) M() int { return t.A }; y := T{x}.M()\nf := func(a int) int { return a }\nfunc g[E any](e E) E { return e }\nfmt.Println(s.ToUpper(\"a\"), f(y), g(2))"
	p := Split(code)
	if len(p.Body) != len(code) || strings.Count(p.Body, "\n") != strings.Count(code, "\n") {
		t.Fatal("body changed layout")
	}
	want := []Import{{"", "fmt"}, {"s", "strings"}, {"_", "sort"}}
	if !slices.Equal(p.Imports, want) {
		t.Errorf("imports %v", p.Imports)
	}
	var decls []string
	for _, d := range p.Decls {
		decls = append(decls, code[d.Start:d.End])
	}
	wantDecls := []string{"type A int", "type T struct{ A int }", "func (t T) M() int { return t.A }", "func g[E any](e E) E { return e }"}
	if !slices.Equal(decls, wantDecls) {
		t.Errorf("decls %q", decls)
	}
	if strings.Contains(p.Body[:strings.Index(code, "x :=")], "import") {
		t.Error("imports not blanked")
	}
}

// TestTypeDeclLastToken: a type declaration ending in a name (type A int)
// is kept whole.
func TestTypeDeclLastToken(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := in.Eval(context.Background(), Input{Code: "type Celsius float64\ntype Names []string\nvar c Celsius = 21.5\nfmt.Println(c, Names{\"a\"})"})
	if err != nil || res.Stdout != "21.5 [a]\n" {
		t.Fatalf("%q, %v", res.Stdout, err)
	}
}

// TestFirstToken: yaegi.FirstToken agrees with go/scanner on package, import and
// anything else, after white space, comments and a byte order mark.
func TestFirstToken(t *testing.T) {
	for _, code := range []string{
		"", "  \n\t", "// c", "/* open", "package p", "import \"fmt\"", "\uFEFFimport \"fmt\"",
		"// c\n/* d */ import \"fmt\"", "/* a\nb */\n\npackage main", "packages := 1", "imports",
		"x := 1", "_import := 2", "é := 1", "import\"fmt\"", "package;", "\"import\"", "1 + 2",
	} {
		var sc scanner.Scanner
		fset := token.NewFileSet()
		sc.Init(fset.AddFile("", -1, len(code)), []byte(code), nil, 0)
		_, want, _ := sc.Scan()
		if want != token.PACKAGE && want != token.IMPORT {
			want = token.IDENT
		}
		got := yaegi.FirstToken(code)
		if got != token.PACKAGE && got != token.IMPORT {
			got = token.IDENT
		}
		if got != want {
			t.Errorf("FirstToken(%q) = %v, want %v", code, got, want)
		}
	}
}
