package interp

import (
	"context"
	"testing"
)

// TestStatementsParsedOnce: a warm statement snippet adds exactly one file
// to the interpreter's FileSet, the analysis' parse of the snippet (as
// wrapped by stmtPrefix), which yaegi compiles as it is instead of parsing
// an instrumented copy again.
func TestStatementsParsedOnce(t *testing.T) {
	in, err := New(Options{Symbols: []Exports{appSymbols}})
	if err != nil {
		t.Fatal(err)
	}
	input := Input{Code: fiveLines, Vars: tenVars()}
	if _, err := in.Eval(context.Background(), input); err != nil {
		t.Fatal(err)
	}
	fset := in.inst.yi.FileSet()
	before := fset.Base()
	if _, err := in.Eval(context.Background(), input); err != nil {
		t.Fatal(err)
	}
	if in.inst.yi.FileSet() != fset {
		t.Fatal("the interpreter was rebuilt; the test needs a warm one")
	}
	// AddFile advances the base by the file's size plus one.
	want := len(stmtPrefix) + len(fiveLines) + len("\n}") + 1
	if got := fset.Base() - before; got != want {
		t.Errorf("FileSet grew by %d bytes for one Eval, want %d (one parse of the wrapped snippet)", got, want)
	}
}

// TestInstrumentedAST: the AST edits keep the snippet's behaviour: a
// top-level return inside a block, a multi-value declaration in a block,
// a range over an integer, make with a size, and a closure, in one
// statement segment, with a panic placed on its line afterwards.
func TestInstrumentedAST(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	code := `n := 0
for i := range 3 { n += i }
if true {
	v, ok := map[string]int{"a": 1}["a"]
	if ok { n += v }
}
s := make([]int, n)
f := func() int { return len(s) }
total := f()
if total > 100 {
	return
}
fmt.Println(total)`
	res, err := in.Eval(context.Background(), Input{Code: code})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "4\n" {
		t.Errorf("stdout %q, want 4", res.Stdout)
	}
	if got := res.Values["total"]; !got.IsValid() || got.Int() != 4 {
		t.Errorf("total = %v, want 4", got)
	}
	_, err = in.Eval(context.Background(), Input{Code: "xs := []int{1}\ni := 3\n\n_ = xs[i]"})
	pe, ok := err.(*PanicError)
	if !ok || pe.Line != 4 {
		t.Fatalf("err = %v (%T), want a panic on line 4", err, err)
	}
}
