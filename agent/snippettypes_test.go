package agent_test

import (
	"testing"
)

// TestSnippetErrorTypeOutlivesTheSnippet: an error of a type the snippet
// declares becomes a run variable whose preview is its message (the host
// never runs the snippet's Error method after the snippet), and a later
// snippet of the run gets its own type back.
func TestSnippetErrorTypeOutlivesTheSnippet(t *testing.T) {
	st := snippetRuntime(t)
	s := snippet(st, "type StockError struct{ SKU string }\nfunc (e *StockError) Error() string { return \"out of stock: \" + e.SKU }\nvar err error = &StockError{\"PN-3\"}")
	if !s.Success || len(s.Variables) != 1 {
		t.Fatalf("%+v", s)
	}
	if v := s.Variables[0]; v.Name != "err" || v.Type != "error" || v.Preview != "error: out of stock: PN-3" {
		t.Errorf("variable %+v, want err error with the message as preview", v)
	}
	s = snippet(st, "se, ok := err.(*StockError)\nfmt.Println(ok, se.SKU, err)")
	if !s.Success || s.Stdout != "true PN-3 out of stock: PN-3\n" {
		t.Errorf("the next snippet: %+v", s)
	}
}
