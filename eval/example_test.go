package eval_test

import (
	"context"
	"fmt"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/eval"
	"github.com/byref/byref/llm"
)

// An agent that doubles numbers, checked on its result and on how it got
// there, then replayed from the cassette recorded on the first run.
func Example() {
	double := action.MustNew(action.Spec{Name: "double", Description: "Double a number.", Func: func(n int) int { return 2 * n }, Params: []action.Param{{Name: "n"}}})
	set := &eval.Set{Name: "double", Agent: agent.Options{Actions: action.MustSet(double), DisableSnippets: true},
		Cases: []*eval.Case{{Name: "21", Task: "Double 21.", Expect: []eval.Expectation{
			eval.Equal(42), eval.CalledExactly(eval.Call("double", "n", 21)), eval.MaxSteps(2),
		}}}}
	model := llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		if len(req.Messages) == 2 {
			return llm.Response{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "double", Arguments: `{"n":21}`}}}, nil
		}
		return llm.Response{ToolCalls: []llm.ToolCall{{ID: "c2", Name: "terminate", Arguments: `{"success":true,"result":"<<var:double_result>>"}`}}}, nil
	})
	r, _ := eval.Run(context.Background(), set, eval.Options{Model: model, Record: true})
	fmt.Println("on the model:", r.Cases[0].Verdict, "- exchanges recorded:", len(set.Cases[0].Cassette.Exchanges))

	r, _ = eval.Run(context.Background(), set, eval.Options{Repetitions: 5})
	c := r.Cases[0]
	fmt.Printf("on the cassette: %s, %d/%d, pass^5 %.1f\n", c.Verdict, c.Passes, len(c.Trials), c.PassHatK)
	// Output:
	// on the model: pass - exchanges recorded: 2
	// on the cassette: pass, 5/5, pass^5 1.0
}
