package eval_test

import (
	"context"
	"strings"
	"testing"

	"github.com/byref/byref/eval"
	"github.com/byref/byref/llm"
)

// TestNoCopies: a copied value counts when it is big enough and its
// variable's type fits the parameter; a short value that happens to equal
// a variable does not.
func TestNoCopies(t *testing.T) {
	for _, c := range []struct {
		name, to string
		copied   bool
	}{
		{"a reference", `"<<var:doc>>"`, false},
		{"the document pasted", `{"Body":"the board met on monday and agreed on the budget for next year","Title":"Minutes"}`, true},
		{"another document", `{"Body":"something else entirely, and long enough","Title":"Minutes"}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := steps(llm.CallTool("word_count", `{"doc":`+c.to+`}`), llm.CallTool("terminate", `{"success":true,"result":"<<var:word_count_result>>"}`))
			set := &eval.Set{Agent: testAgent(), Cases: []*eval.Case{{Name: "c", Task: "Count.", Expect: []eval.Expectation{eval.NoCopies()}}}}
			r, err := eval.Run(context.Background(), set, eval.Options{Model: m})
			if err != nil {
				t.Fatal(err)
			}
			tr := r.Cases[0].Trials[0]
			if tr.Passed == c.copied {
				t.Fatalf("passed %v: %+v", tr.Passed, tr.Failures)
			}
			if c.copied && !strings.Contains(tr.Failures[0].Diff, "word_count.doc got the value of doc") {
				t.Fatalf("diff: %s", tr.Failures[0].Diff)
			}
		})
	}

	// A send_email body equal to a short variable is not a copy worth a
	// reference.
	m := steps(llm.CallTool("send_email", `{"to":"a@b.c","body":"Minutes"}`), llm.CallTool("terminate", `{"success":true,"result":1}`))
	set := &eval.Set{Agent: testAgent(), Cases: []*eval.Case{{Name: "c", Task: "Mail.", Variables: []eval.Var{{Name: "title", Go: "Minutes"}}, Expect: []eval.Expectation{eval.NoCopies()}}}}
	r, err := eval.Run(context.Background(), set, eval.Options{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Cases[0].Trials[0].Passed {
		t.Fatalf("%+v", r.Cases[0].Trials[0].Failures)
	}
}
