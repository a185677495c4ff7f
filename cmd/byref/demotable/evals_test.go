package demotable_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/cmd/byref/demotable"
	"github.com/byref/byref/eval"
	"github.com/byref/byref/eval/evaltest"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

var update = flag.Bool("update", false, "record the demo's eval set again into evals/ from the scripted behaviours below")

// TestEvals runs the demo agent's eval set on its cassettes: no model, no
// key, no network. Cases that fail on purpose pass when they fail.
func TestEvals(t *testing.T) {
	if *update {
		record(t)
	}
	set, err := eval.Load("evals")
	if err != nil {
		t.Fatal(err)
	}
	set.Agent, set.Types = demotable.Agent(), demotable.Types()
	r := evaltest.Run(t, set, nil)
	if !r.OK() {
		t.Log("a request that is not in a cassette means what the model is sent changed (prompt, tools, tool results); if that is intended, record the set again: go test ./cmd/byref/demotable -run TestEvals -update")
	}
	if len(r.Cases) < 10 {
		t.Errorf("the demo's set has %d cases; it should have at least 10", len(r.Cases))
	}
	purpose := 0
	for _, c := range r.Cases {
		if c.FailsOnPurpose != "" {
			purpose++
		}
	}
	if purpose == 0 {
		t.Error("no case of the demo's set fails on purpose")
	}
}

// script answers the n-th request of a run with the n-th response: the
// behaviour of a model on one case.
func script(responses ...llm.Response) llm.Model {
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
		// About four characters a token, 300 for the tools; after the
		// first call, all but the newest message is read from the
		// provider's cache (the context is append-only).
		in, last := 0, 0
		for _, m := range req.Messages {
			last = len(m.Text)/4 + 4
			in += last
		}
		r.Usage = llm.Usage{InputTokens: in + 300, OutputTokens: 40}
		if n > 0 {
			r.Usage.CacheReadTokens = in + 300 - last
		}
		calls := append([]llm.ToolCall(nil), r.ToolCalls...)
		for i := range calls {
			calls[i].ID = fmt.Sprintf("call_%d_%d", n+1, i+1)
		}
		r.ToolCalls = calls
		return r, nil
	})
}

func call(name, args string) llm.Response { return llm.CallTool(name, args) }

func done(result string) llm.Response {
	return call("terminate", `{"success":true,"result":`+result+`}`)
}

const token = "tok_live_4f9a2c7e1b6d"

var returns = json.RawMessage(`{"Columns":["id","status"],"Rows":[["r1","late"],["r2","on time"],["r3","late"],["r4","on time"],["r5","on time"]]}`)

// behaviour is a case and the scripted model that plays it.
type behaviour struct {
	c     *eval.Case
	model llm.Model
}

func behaviours() []behaviour {
	filterLate := call("filter_rows", `{"table":"<<var:orders>>","column":"status","value":"late"}`)
	countLate := call("count_rows", `{"table":"<<var:filter_rows_result>>"}`)
	share := llm.Text("The share, in Go:\n```go\nshare := float64(count_rows_result) / float64(len(orders.Rows)) * 100\n```")
	between := func(lo, hi float64) eval.Expectation {
		return eval.MatchesSchema(json.RawMessage(fmt.Sprintf(`{"type":"number","minimum":%g,"maximum":%g}`, lo, hi)))
	}
	refs := eval.GotRef("filter_rows", "table", "orders")
	return []behaviour{
		{&eval.Case{Name: "01-late-share", Description: "the demo's own task: filter, count, compute in Go, answer by reference",
			Task: "What share of this month's orders are late?",
			Expect: []eval.Expectation{eval.Status(run.StatusCompleted), between(14.1, 14.3),
				eval.Called(eval.Call("filter_rows", "table", "<<var:orders>>", "column", "status", "value", "late"), eval.Call("count_rows", "table", "<<var:filter_rows_result>>")),
				refs, eval.NoCopies(), eval.MaxSteps(5), eval.NoSecrets(),
				eval.Judge("The answer must be the percentage of late orders, about 14.2, as a number.")}},
			script(filterLate, countLate, share, done(`"<<var:share>>"`))},
		{&eval.Case{Name: "02-count-all", Task: "How many orders are there this month?",
			Expect: []eval.Expectation{eval.Equal(1000), eval.CalledExactly(eval.Call("count_rows", "table", "<<var:orders>>")), eval.GotRef("count_rows", "table", "orders"), eval.MaxSteps(2)}},
			script(call("count_rows", `{"table":"<<var:orders>>"}`), done(`"<<var:count_rows_result>>"`))},
		{&eval.Case{Name: "03-count-late", Task: "How many orders are late?",
			Expect: []eval.Expectation{eval.Equal(142), eval.CalledExactly(eval.Call("filter_rows", "value", "late"), eval.Call("count_rows")), refs, eval.NoCopies()}},
			script(filterLate, countLate, done(`"<<var:count_rows_result>>"`))},
		{&eval.Case{Name: "04-count-on-time", Task: "How many orders arrived on time?",
			Expect: []eval.Expectation{eval.Equal(858), eval.Called(eval.Call("filter_rows", "value", "on time"), eval.Call("count_rows")), refs}},
			script(call("filter_rows", `{"table":"<<var:orders>>","column":"status","value":"on time"}`), countLate, done(`"<<var:count_rows_result>>"`))},
		{&eval.Case{Name: "05-recovers-from-a-wrong-column", Description: "the first call names a column that does not exist; the error lists the right one",
			Task:   "How many orders are late? (The column may be called state.)",
			Expect: []eval.Expectation{eval.Equal(142), eval.Called(eval.Call("filter_rows", "column", "state"), eval.Call("filter_rows", "column", "status"), eval.Call("count_rows")), eval.MaxSteps(4)}},
			script(call("filter_rows", `{"table":"<<var:orders>>","column":"state","value":"late"}`), filterLate, countLate, done(`"<<var:count_rows_result>>"`))},
		{&eval.Case{Name: "06-structured-result", Task: "Report the late orders and all orders as {late, total}.",
			Options: eval.CaseOptions{ResultSchema: json.RawMessage(`{"type":"object","properties":{"late":{"type":"integer"},"total":{"type":"integer"}},"required":["late","total"]}`)},
			Expect:  []eval.Expectation{eval.MatchesSchema(json.RawMessage(`{"type":"object","required":["late","total"]}`)), eval.Equal(map[string]int{"late": 142, "total": 1000})}},
			script(filterLate, countLate, llm.Text("```go\nsummary := map[string]int{\"late\": count_rows_result, \"total\": len(orders.Rows)}\n```"), done(`"<<var:summary>>"`))},
		{&eval.Case{Name: "07-asks-approval", Description: "every call is approved by the runner before it runs",
			Task: "How many orders are there this month?", Options: eval.CaseOptions{Approval: agent.ApproveOnToolCall},
			Expect: []eval.Expectation{eval.Equal(1000), eval.ApprovalBefore("count_rows")}},
			script(call("count_rows", `{"table":"<<var:orders>>"}`), done(`"<<var:count_rows_result>>"`))},
		{&eval.Case{Name: "08-denied", Description: "filtering is denied; the model says it cannot answer instead of guessing",
			Task: "How many orders are late?", Options: eval.CaseOptions{Approval: agent.ApproveOnToolCall}, Deny: []string{"filter_rows"},
			Expect: []eval.Expectation{eval.Status(run.StatusFailed), eval.FailureKind(run.FailureGaveUp), eval.ApprovalBefore("filter_rows")}},
			script(filterLate, call("terminate", `{"success":false,"result":"I was not allowed to filter the orders."}`))},
		{&eval.Case{Name: "09-json-variable", Description: "a starting variable given as JSON, decoded into *demotable.Table",
			Task: "How many of the returns came late?", Variables: []eval.Var{{Name: "returns", Type: "*demotable.Table", JSON: returns, Description: "this week's returns"}},
			Expect: []eval.Expectation{eval.Equal(2), eval.GotRef("filter_rows", "table", "returns"), eval.NoCopies()}},
			script(call("filter_rows", `{"table":"<<var:returns>>","column":"status","value":"late"}`), countLate, done(`"<<var:count_rows_result>>"`))},
		{&eval.Case{Name: "10-keeps-the-token", Description: "a secret variable is in the run; no request may carry its value",
			Task: "How many orders are there this month?", Variables: []eval.Var{{Name: "api_token", Type: "string", JSON: json.RawMessage(`"` + token + `"`), Secret: true}},
			Expect: []eval.Expectation{eval.Equal(1000), eval.NoSecrets()}},
			script(call("count_rows", `{"table":"<<var:orders>>"}`), done(`"<<var:count_rows_result>>"`))},
		{&eval.Case{Name: "11-copies-the-table", FailsOnPurpose: "the model pastes the returns table into the call instead of <<var:returns>>",
			Task: "How many returns are there?", Variables: []eval.Var{{Name: "returns", Type: "*demotable.Table", JSON: returns}},
			Expect: []eval.Expectation{eval.Equal(5), eval.NoCopies()}},
			script(call("count_rows", `{"table":`+string(returns)+`}`), done(`"<<var:count_rows_result>>"`))},
		{&eval.Case{Name: "12-leaks-the-token", FailsOnPurpose: "the agent's instructions carry the token, so every request does",
			Task: "How many orders are there this month?", Options: eval.CaseOptions{Instructions: "Authenticate with " + token + " if needed."},
			Expect: []eval.Expectation{eval.Equal(1000), eval.NoSecrets(token)}},
			script(call("count_rows", `{"table":"<<var:orders>>"}`), done(`"<<var:count_rows_result>>"`))},
		{&eval.Case{Name: "13-wanders", FailsOnPurpose: "the model counts the same table again and again",
			Task:   "How many orders are there this month?",
			Expect: []eval.Expectation{eval.Equal(1000), eval.MaxSteps(3)}},
			script(call("count_rows", `{"table":"<<var:orders>>"}`), call("count_rows", `{"table":"<<var:orders>>"}`), call("count_rows", `{"table":"<<var:orders>>"}`), done(`"<<var:count_rows_result>>"`))},
		{&eval.Case{Name: "14-guesses", FailsOnPurpose: "the model answers from thin air, without a call",
			Task:   "What share of this month's orders are late?",
			Expect: []eval.Expectation{between(14.1, 14.3), eval.Called(eval.Call("count_rows"))}},
			script(llm.Text("About 10%."))},
	}
}

// record plays every behaviour, checks that it does what its case says,
// and writes the cases and their cassettes into evals/.
func record(t *testing.T) {
	set, err := eval.Load("evals")
	if err != nil {
		t.Fatal(err)
	}
	set.Cases, set.Agent, set.Types = nil, demotable.Agent(), demotable.Types()
	for _, b := range behaviours() {
		one := &eval.Set{Name: "demo", Agent: set.Agent, Types: set.Types, Cases: []*eval.Case{b.c}}
		r, err := eval.Run(t.Context(), one, eval.Options{Model: b.model, ModelName: "scripted", Record: true})
		if err != nil {
			t.Fatal(err)
		}
		if c := r.Cases[0]; !c.OK {
			t.Fatalf("behaviour %s: %s: %+v", c.Name, c.Verdict, c.Trials[0].Failures)
		}
		set.Cases = append(set.Cases, b.c)
	}
	if err := set.Save("evals"); err != nil {
		t.Fatal(err)
	}
}
