package temporal_test

import (
	"strconv"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	byreftemporal "github.com/byref/byref/temporal"
	"github.com/byref/byref/variable"
)

var noop = action.MustNew(action.Spec{Name: "noop", Func: func(x int) int { return x }, Params: []action.Param{{Name: "x"}}})

// noopModel calls noop steps times, then terminates.
func noopModel(steps int) func() llm.Model {
	return func() llm.Model {
		return llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
			if (len(req.Messages)-2)/2 >= steps {
				return llm.CallTool("terminate", `{"success":true,"result":null}`), nil
			}
			r := llm.CallTool("noop", `{"x":"<<var:n>>","return":"n"}`)
			r.ToolCalls[0].ID = "c" + strconv.Itoa(len(req.Messages))
			return r, nil
		})
	}
}

// noopAgent runs steps noop steps, then terminates.
func noopAgent(steps int) byreftemporal.Agent {
	return newAgent("noop", noopModel(steps), func() []variable.Spec { return []variable.Spec{{Name: "n", Value: 1}} }, noop)
}

// BenchmarkWorkflowStep: the workflow's overhead per step in the SDK's test
// environment (the workflow, its activities, their payloads and the
// snapshot fold; no network), for a run of 10 noop steps and a terminate.
// ns/step is the figure to read; on a real server, add its round trips.
func BenchmarkWorkflowStep(b *testing.B) {
	const steps = 10
	a := noopAgent(steps)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		e := newEnv(b, a)
		e.ExecuteWorkflow(byreftemporal.WorkflowName, byreftemporal.Input{Agent: "noop", Run: byreftemporal.RunSpec{Spec: run.Spec{Task: "loop", NonInteractive: true}, ID: "bench-" + strconv.Itoa(i)}})
		var o agent.Outcome
		if err := e.GetWorkflowResult(&o); err != nil || o.Status != run.StatusCompleted || o.Steps != steps+1 {
			b.Fatalf("%+v %v", o, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(steps+1)), "ns/step")
}
