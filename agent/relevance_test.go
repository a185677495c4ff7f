package agent_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
)

// 200 registered actions: a few with real topics, the rest filler.
func manyActions() *action.Set {
	topics := []struct{ name, desc, param string }{
		{"convert_currency", "Convert an amount of money from one currency to another.", "amount"},
		{"send_email", "Send an email message to a recipient.", "recipient"},
		{"translate_text", "Translate text into another language.", "language"},
		{"book_flight", "Book a flight between two airports.", "airport"},
	}
	var list []*action.Action
	list = append(list, weatherAction,
		action.MustNew(action.Spec{Name: "new_thing", Description: "Make a crate.", Func: func(name string) *Thing { return &Thing{Name: name} }, Params: []action.Param{{Name: "name"}}}),
		action.MustNew(action.Spec{Name: "inspect", Description: "Look inside a box.", Func: func(t *Thing) string { return t.Name }, Params: []action.Param{{Name: "box"}}}),
	)
	for _, tp := range topics {
		list = append(list, action.MustNew(action.Spec{Name: tp.name, Description: tp.desc, Func: func(s string) string { return s }, Params: []action.Param{{Name: tp.param}}}))
	}
	for i := len(list); i < 200; i++ {
		list = append(list, action.MustNew(action.Spec{
			Name:        fmt.Sprintf("filler_%d", i),
			Description: fmt.Sprintf("Process record batch %d of the inventory ledger.", i),
			Func:        func(id int) int { return id }, Params: []action.Param{{Name: "record_id"}},
		}))
	}
	return action.MustSet(list...)
}

// Relevance selection chooses once per run, from the task, so that the
// tool list is the same at every request; it chooses again, with the
// actions whose references are in play first, only at a compaction.
func TestRelevanceSelectionWith200Actions(t *testing.T) {
	for _, compactAt := range []int{0, 2000} {
		// The first answer's text (5,000 tokens) passes 2,000.
		makeThing := llm.CallTool("new_thing", `{"name":"crate","return":null}`)
		makeThing.Text = strings.Repeat("word ", 4000)
		model := llm.NewScripted(makeThing, llm.CallTool("terminate", `{"success":true,"result":null}`))
		st := newAgent(t, model, agent.Options{Actions: manyActions()})
		if _, err := st.Run(context.Background(), agent.RunOptions{
			Task: "What is the weather forecast in Paris? Convert 10 euros to dollars.", ToolLimit: 3, Limits: agent.Limits{CompactAt: compactAt},
		}); err != nil {
			t.Fatal(err)
		}
		offered := func(i int) []string {
			var names []string
			for _, tool := range model.Requests()[i].Tools {
				names = append(names, tool.Name)
			}
			return names
		}
		first := offered(0)
		for _, want := range []string{"get_weather", "convert_currency", "terminate", "ask_user", "run_go"} {
			if !slices.Contains(first, want) {
				t.Errorf("step 1 offers %v, without %s", first, want)
			}
		}
		if n := len(first) - 3; n > 3 || slices.Contains(first, "inspect") {
			t.Errorf("step 1 offers %d actions, want at most 3 and not inspect (no *Thing yet): %v", n, first)
		}
		second := offered(1)
		if compactAt == 0 {
			if !slices.Equal(first, second) {
				t.Errorf("the tool list changed without a compaction:\n%v\n%v", first, second)
			}
			continue
		}
		// At a compaction, the action that takes the *Thing the run made
		// is offered whatever its score.
		if !slices.Contains(second, "inspect") {
			t.Errorf("after a compaction, step 2 offers %v, without inspect, whose reference is in play", second)
		}
	}
}

func BenchmarkRelevanceSelection(b *testing.B) {
	st, err := newState(agent.Options{Actions: manyActions()})
	if err != nil {
		b.Fatal(err)
	}
	tools := st.Tools()
	b.ReportAllocs()
	for b.Loop() {
		agent.SelectTools(st, tools, 10, "What is the weather forecast in Paris? Convert 10 euros to dollars.")
	}
}
