package codegen_test

import (
	"fmt"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/codegen"
	"github.com/byref/byref/codegen/codegentest"
	"github.com/byref/byref/variable"
)

// BenchmarkGenerate50 generates the replay of a 50-step run: calls by
// import path, looked-up closures and methods, and snippets.
func BenchmarkGenerate50(b *testing.B) {
	rec, _ := bench50().record(b, "run_bench")
	if len(rec.Steps) != 51 {
		b.Fatalf("%d steps", len(rec.Steps))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := codegen.Generate(rec, codegen.Options{Main: true, ActionSet: codegentest.Actions}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFromEvents50 reads the recording of the same run from its log.
func BenchmarkFromEvents50(b *testing.B) {
	_, events := bench50().run(b, "run_bench")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := codegen.FromEvents(events); err != nil {
			b.Fatal(err)
		}
	}
}

// bench50 is a 50-step run: calls by import path, looked-up closures and
// methods, and snippets.
func bench50() *steps {
	run := &steps{vars: []variable.Spec{{Name: "city", Value: "Paris"}}}
	for i := range 50 {
		var step agent.Step
		switch i % 5 {
		case 0:
			step.Calls = []agent.ToolCall{{ID: fmt.Sprint("c", i), Name: "get_weather", Arguments: `{"location":"<<var:city>>","unit":"c"}`}}
		case 1:
			step.Calls = []agent.ToolCall{{ID: fmt.Sprint("c", i), Name: "describe", Arguments: `{"w":"<<var:weather>>"}`}}
		case 2:
			step.Calls = []agent.ToolCall{{ID: fmt.Sprint("c", i), Name: "count", Arguments: fmt.Sprintf(`{"n":%d}`, i)}}
		case 3:
			step.Calls = []agent.ToolCall{{ID: fmt.Sprint("c", i), Name: "list_items", Arguments: `{}`}}
		default:
			step.Snippets = []string{fmt.Sprintf("s%d := strings.ToUpper(city) + greet(\"x\")", i)}
		}
		step.Reason = fmt.Sprintf("Step %d of the benchmark.", i+1)
		run.steps = append(run.steps, step)
	}
	return run
}
