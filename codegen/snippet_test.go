package codegen

import (
	"strings"
	"testing"
)

// TestInlineTopLevelReturn: a top-level return becomes a break out of a
// switch holding the rest of the snippet; one in a function literal stays;
// declarations after it cannot be inlined.
func TestInlineTopLevelReturn(t *testing.T) {
	declared := func(name string) bool { return name == "old" }
	label := func() string { return "end" }
	p, err := parseSnippet("x := 1\nf := func() int { return 2 }\nif x > 0 {\n\treturn\n}\nold := f()\nx++", nil, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.inline(declared, label, noTypes)
	if err != nil {
		t.Fatal(err)
	}
	want := "x := 1\nf := func() int { return 2 }\nend:\nswitch {\ndefault:\nif x > 0 {\n\tbreak end\n}\nold = f()\nx++\n}"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	p, err = parseSnippet("return\nx++", nil, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := p.inline(declared, label, noTypes); err != nil || got != "end:\nswitch {\ndefault:\nbreak end\nx++\n}" {
		t.Errorf("bare return: %q, %v", got, err)
	}
	p, err = parseSnippet("if true {\n\treturn\n}\ny := 2", nil, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.inline(declared, label, noTypes); err == nil || !strings.Contains(err.Error(), "declares y after a top-level return") {
		t.Errorf("err = %v", err)
	}
	// With the recorded type, y is declared before the switch and
	// assigned in it.
	intY := func(n string) (string, bool) { return "int", n == "y" }
	p, err = parseSnippet("if true {\n\treturn\n}\ny := 2\nvar z int", nil, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.inline(declared, label, intY); err == nil || !strings.Contains(err.Error(), "declares z after a top-level return") {
		t.Errorf("z has no recorded type: %v", err)
	}
	p, err = parseSnippet("if true {\n\treturn\n}\ny := 2\nvar w = y", nil, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	intYW := func(n string) (string, bool) { return "int", n == "y" || n == "w" }
	want = "var y int\nvar w int\nend:\nswitch {\ndefault:\nif true {\n\tbreak end\n}\ny = 2\nw = y\n}"
	if got, err := p.inline(declared, label, intYW); err != nil || got != want {
		t.Errorf("got\n%s\nwant\n%s (%v)", got, want, err)
	}
}

// noTypes knows the type of no variable.
func noTypes(string) (string, bool) { return "", false }

// TestFuncValueForLocals: a func declaration that uses a snippet's
// variable stays in place as a func value (it may call itself); one that
// uses nothing local goes to file level.
func TestFuncValueForLocals(t *testing.T) {
	p, err := parseSnippet("rate := 2\nfunc scale(n int) int {\n\tif n > 100 {\n\t\treturn scale(n / 2)\n\t}\n\treturn n * rate\n}\nfunc id(n int) int { return n }\nx := scale(id(3))", nil, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.decls) != 1 || !strings.HasPrefix(p.decls[0], "func id") {
		t.Errorf("file-level declarations %q, want only id", p.decls)
	}
	if !strings.Contains(p.stmts, "var scale func(n int) int; scale = func(n int) int {") {
		t.Errorf("statements:\n%s", p.stmts)
	}
}

// unqualify drops the file's own package from the selectors that name
// it, and leaves a variable of that name, other packages and code that
// does not parse alone.
func TestUnqualify(t *testing.T) {
	for _, tt := range []struct{ prefix, src, want string }{
		{stmtPrefix, "x := []main.Ticket{main.Ticket{ID: 1}}", "x := []Ticket{Ticket{ID: 1}}"},
		{stmtPrefix, "var m map[string]*main.T\n_ = shop.Item{}", "var m map[string]*T\n_ = shop.Item{}"},
		{stmtPrefix, "main := struct{ X int }{}\n_ = main.X", "main := struct{ X int }{}\n_ = main.X"},
		{"package p\n", "func f(t main.T) main.T { return t }", "func f(t T) T { return t }"},
		{stmtPrefix, "x := main.(", "x := main.("},
	} {
		if got := unqualify(tt.prefix, tt.src, "main"); got != tt.want {
			t.Errorf("unqualify(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}
