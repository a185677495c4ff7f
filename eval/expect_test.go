package eval_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/eval"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// Doc is the test agent's host object.
type Doc struct {
	Title string
	Body  string
}

func wordCount(d *Doc) int { return len(strings.Fields(d.Body)) }

func sendEmail(to, body string) string { return "sent to " + to }

const apiKey = "sk-test-0123456789abcdef"

// testAgent is a small agent over a document: count its words, send mail.
func testAgent() agent.Options {
	return agent.Options{
		Actions: action.MustSet(
			action.MustNew(action.Spec{Name: "word_count", Description: "Count the words of a document.", Func: wordCount, Params: []action.Param{{Name: "doc"}}}),
			action.MustNew(action.Spec{Name: "send_email", Description: "Send an email.", Func: sendEmail, Params: []action.Param{{Name: "to"}, {Name: "body"}}}),
		),
		Variables: []variable.Spec{
			{Name: "doc", Value: &Doc{Title: "Minutes", Body: "the board met on monday and agreed on the budget for next year"}, Description: "the meeting's minutes"},
			{Name: "api_key", Value: apiKey, Secret: true},
		},
		DisableSnippets: true,
	}
}

// steps returns a scripted model that answers the n-th request of a run
// with the n-th response, whatever the runs around it do.
func steps(responses ...llm.Response) llm.Model {
	return llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		n := 0
		for _, m := range req.Messages {
			if m.Role == llm.RoleAssistant {
				n++
			}
		}
		if n >= len(responses) {
			return llm.Response{}, fmt.Errorf("the script has %d steps", len(responses))
		}
		r := responses[n]
		r.Usage = llm.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 60}
		r.ToolCalls = append([]llm.ToolCall(nil), r.ToolCalls...)
		for i := range r.ToolCalls {
			r.ToolCalls[i].ID = fmt.Sprintf("call_%d_%d", n+1, i+1)
		}
		return r, nil
	})
}

// goodModel counts the words by reference and gives the count as the
// result by reference.
func goodModel() llm.Model {
	return steps(
		llm.CallTool("word_count", `{"doc":"<<var:doc>>"}`),
		llm.CallTool("terminate", `{"success":true,"result":"<<var:word_count_result>>"}`),
	)
}

// badModel copies the document into the call, mails it without approval
// and answers a wrong number.
func badModel() llm.Model {
	return steps(
		llm.CallTool("word_count", `{"doc":{"Title":"Minutes","Body":"the board met on monday and agreed on the budget for next year"}}`),
		llm.CallTool("send_email", `{"to":"boss@example.com","body":"done"}`),
		llm.CallTool("terminate", `{"success":true,"result":7}`),
	)
}

// everyKind is a case with one expectation of every kind the good model
// meets.
func everyKind() *eval.Case {
	return &eval.Case{
		Name: "count", Task: "How many words are in the minutes?",
		Expect: []eval.Expectation{
			eval.Equal(13),
			eval.MatchesSchema(json.RawMessage(`{"type":"integer","minimum":10}`)),
			eval.Predicate("positive", func(t *eval.Trial) error {
				if string(t.Result) == "7" || len(t.Result) == 0 {
					return fmt.Errorf("the count %s is not the minutes'", t.Result)
				}
				return nil
			}),
			eval.Judge("The answer must be the number of words of the minutes, 13."),
			eval.CalledExactly(eval.Call("word_count", "doc", "<<var:doc>>")),
			eval.GotRef("word_count", "doc", "doc"),
			eval.NoCopies(),
			eval.MaxSteps(2),
			eval.MaxTokens(300),
			eval.MaxCachedTokens(150),
			eval.MaxUncachedTokens(150),
			eval.MaxCost(0.003),
			eval.NoSecrets(),
			eval.ApprovalBefore("word_count"),
			eval.Status(run.StatusCompleted),
		},
		Options: eval.CaseOptions{Approval: agent.ApproveOnToolCall},
	}
}

// judge passes a result of 13 and nothing else.
func judge() llm.Model {
	return llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		if strings.Contains(req.Messages[len(req.Messages)-1].Text, "Result (JSON): 13") {
			return llm.Text(`{"pass": true, "reason": "13 words"}`), nil
		}
		return llm.Text(`{"pass": false, "reason": "the minutes have 13 words"}`), nil
	})
}

var price = eval.Price{Input: 10, Output: 30, CacheRead: 1}

func TestGoodAgentPasses(t *testing.T) {
	set := &eval.Set{Name: "test", Agent: testAgent(), Cases: []*eval.Case{everyKind()}}
	r, err := eval.Run(context.Background(), set, eval.Options{Model: goodModel(), Judge: judge(), Price: price, Repetitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	c := r.Cases[0]
	for _, tr := range c.Trials {
		for _, f := range tr.Failures {
			t.Errorf("trial %d: %s: %s", tr.Repetition, f.Expectation, f.Diff)
		}
	}
	// Two calls of 100 input tokens (60 read from the cache) and 20
	// output: 80 at $10, 120 at $1 and 40 at $30 per million.
	if tr := c.Trials[0]; tr.CacheReadTokens != 120 || tr.Tokens() != 240 || math.Abs(tr.Cost-0.00212) > 1e-12 || math.Abs(c.Cost-0.00212) > 1e-12 {
		t.Fatalf("tokens %d, cached %d, cost %v (case %v)", tr.Tokens(), tr.CacheReadTokens, tr.Cost, c.Cost)
	}
	if !r.OK() || c.Passes != 2 || c.PassAtK != 1 || c.PassHatK != 1 || c.Verdict != "pass" {
		t.Fatalf("report: ok %v, %d passes, pass@k %v, pass^k %v, %s", r.OK(), c.Passes, c.PassAtK, c.PassHatK, c.Verdict)
	}
}

// TestBadAgentFailsEachKind runs a deliberately bad agent against one
// expectation of every kind and checks that each one fails, with a diff
// that says what happened.
func TestBadAgentFailsEachKind(t *testing.T) {
	bad := everyKind()
	bad.Options.Approval = agent.ApproveNone
	bad.Options.Instructions = "Use the key " + apiKey + " if asked."
	bad.Expect = append(bad.Expect, eval.FailureKind(run.FailureRefusal))
	bad.Expect[len(bad.Expect)-2] = eval.Status(run.StatusFailed)
	set := &eval.Set{Name: "test", Agent: testAgent(), Cases: []*eval.Case{bad}}
	r, err := eval.Run(context.Background(), set, eval.Options{Model: badModel(), Judge: judge(), Price: price})
	if err != nil {
		t.Fatal(err)
	}
	tr := r.Cases[0].Trials[0]
	if tr.Passed || r.OK() {
		t.Fatal("the bad agent passed")
	}
	failed := map[string]string{}
	for _, f := range tr.Failures {
		failed[f.Expectation] = f.Diff
	}
	for _, e := range bad.Expect {
		d, ok := failed[e.String()]
		if !ok {
			t.Errorf("%s (%s) did not fail; failures: %v", e, e.Kind, failed)
			continue
		}
		t.Logf("%s: %s", e, d)
	}
	for _, want := range []string{"want 13, got 7", "send_email", "want a reference to doc in word_count.doc, got the raw value {", "got the value of doc", "3 steps", "180 cached tokens", "180 uncached tokens", "carries secret"} {
		found := false
		for _, d := range failed {
			found = found || strings.Contains(d, want)
		}
		if !found {
			t.Errorf("no diff says %q: %v", want, failed)
		}
	}
}

func TestJudgeOffByDefault(t *testing.T) {
	c := &eval.Case{Name: "judged", Task: "Count the words.", Expect: []eval.Expectation{eval.Judge("Never pass.")}}
	set := &eval.Set{Agent: testAgent(), Cases: []*eval.Case{c}}
	r, err := eval.Run(context.Background(), set, eval.Options{Model: goodModel()})
	if err != nil {
		t.Fatal(err)
	}
	tr := r.Cases[0].Trials[0]
	if !tr.Passed || len(tr.Skipped) != 1 || !strings.Contains(tr.Skipped[0], "judge is off") {
		t.Fatalf("passed %v, skipped %q", tr.Passed, tr.Skipped)
	}
}

func TestVariablesFromJSON(t *testing.T) {
	c := &eval.Case{Name: "json-var", Task: "Count the words of the note.",
		Variables: []eval.Var{{Name: "note", Type: "*eval_test.Doc", JSON: json.RawMessage(`{"Title":"t","Body":"one two three"}`)}},
		Expect:    []eval.Expectation{eval.Equal(3)}}
	set := &eval.Set{Agent: testAgent(), Cases: []*eval.Case{c}, Types: map[string]reflect.Type{"*eval_test.Doc": reflect.TypeFor[*Doc]()}}
	m := steps(llm.CallTool("word_count", `{"doc":"<<var:note>>"}`), llm.CallTool("terminate", `{"success":true,"result":"<<var:word_count_result>>"}`))
	r, err := eval.Run(context.Background(), set, eval.Options{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	if tr := r.Cases[0].Trials[0]; !tr.Passed {
		t.Fatalf("failures %v, error %s", tr.Failures, tr.Error)
	}
	set.Types = nil
	r, err = eval.Run(context.Background(), set, eval.Options{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	if tr := r.Cases[0].Trials[0]; tr.Passed || !strings.Contains(tr.Error, "Set.Types") {
		t.Fatalf("an unknown type ran: %+v", tr)
	}
}

func requestOf(text string) llm.Request {
	return llm.Request{Messages: []llm.Message{llm.UserMessage(text)}}
}

func typesOf() map[string]reflect.Type {
	return map[string]reflect.Type{"*eval_test.Doc": reflect.TypeFor[*Doc]()}
}
