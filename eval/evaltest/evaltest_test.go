package evaltest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/eval"
	"github.com/byref/byref/eval/evaltest"
	"github.com/byref/byref/llm"
)

func set() *eval.Set {
	double := action.MustNew(action.Spec{Name: "double", Description: "Double a number.", Func: func(n int) int { return 2 * n }, Params: []action.Param{{Name: "n"}}})
	return &eval.Set{Name: "double", Agent: agent.Options{Actions: action.MustSet(double), DisableSnippets: true}, Cases: []*eval.Case{
		{Name: "good", Task: "Double 21.", Expect: []eval.Expectation{eval.Equal(42)}},
		{Name: "known-bad", Task: "Double 21.", Expect: []eval.Expectation{eval.Equal(43)}, FailsOnPurpose: "shows a wrong expectation"},
		{Name: "bad", Task: "Double 21.", Expect: []eval.Expectation{eval.Equal(44)}},
	}}
}

func model() llm.Model {
	return llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		if len(req.Messages) <= 2 {
			return llm.CallTool("double", `{"n":21}`), nil
		}
		return llm.CallTool("terminate", `{"success":true,"result":"<<var:double_result>>"}`), nil
	})
}

// TestSubtests runs a set with a failing case in a child test process and
// checks that exactly that case's subtest fails, with its diff.
func TestSubtests(t *testing.T) {
	if os.Getenv("EVALTEST_CHILD") == "1" {
		evaltest.Run(t, set(), model())
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSubtests$", "-test.v")
	cmd.Env = append(os.Environ(), "EVALTEST_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the set with a failing case passed:\n%s", out)
	}
	for _, want := range []string{"--- PASS: TestSubtests/good", "--- PASS: TestSubtests/known-bad", "--- FAIL: TestSubtests/bad", "want 44, got 42"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

func TestPassing(t *testing.T) {
	s := set()
	s.Cases = s.Cases[:2]
	r := evaltest.Run(t, s, model())
	if !r.OK() {
		t.Fatal("not ok")
	}
}
