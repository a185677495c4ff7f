package codegen_test

import (
	"context"
	"strings"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/codegen"
	"github.com/byref/byref/codegen/codegentest"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// A compaction of the run's context is a comment of the replay code, at the
// step that followed it.
func TestCompactionNoted(t *testing.T) {
	ctx := context.Background()
	store := run.NewMemoryStore()
	big := strings.Repeat("word ", 400)
	step := 0
	ag, err := agent.New(agent.Options{Actions: codegentest.Actions(), Store: store,
		Variables: []variable.Spec{{Name: "city", Value: "Paris"}},
		Model: llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
			if step++; step == 6 {
				return llm.CallTool("terminate", `{"success":true,"result":"<<var:weather>>"}`), nil
			}
			r := llm.CallTool("get_weather", `{"location":"<<var:city>>"}`)
			r.Text = big
			return r, nil
		})})
	if err != nil {
		t.Fatal(err)
	}
	out, err := ag.Run(ctx, agent.RunOptions{Task: "Weather.", Limits: agent.Limits{ContextWindow: 2000}})
	if err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	events, _ := store.Read(ctx, out.RunID, 1, 0)
	rec, err := codegen.FromEvents(events)
	if err != nil {
		t.Fatal(err)
	}
	src, err := codegen.Generate(rec, codegen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "// The model's context was compacted after step") {
		t.Fatalf("no note of the compaction in:\n%s", src)
	}
}
