package agent_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

type idBox struct {
	Name string `json:"name"`
	N    int    `json:"n"`
}

// IDFill is a package-level action of this test.
func IDFill(ctx context.Context, b idBox, n int) (idBox, error) {
	b.N += n
	return b, nil
}

// TestGoIdentityIsRecorded: the log records each action's Go identity on
// its first completed call only (and on the first snippet that names an
// action no call has used), each named type once, and a variable's
// qualified type only when it differs from the type the model sees.
func TestGoIdentityIsRecorded(t *testing.T) {
	suffix := "!"
	actions := action.MustSet(
		action.MustNew(action.Spec{Name: "fill", Func: IDFill, Params: []action.Param{{Name: "b"}, {Name: "n", Default: 1}}}),
		action.MustNew(action.Spec{Name: "shout", Func: func(s string) string { return s + suffix }, Params: []action.Param{{Name: "s"}}}),
	)
	store := run.NewMemoryStore()
	rt, err := agent.New(agent.Options{Actions: actions, Store: store, CallTimeout: -1,
		Variables: []variable.Spec{{Name: "box", Value: idBox{Name: "a"}}, {Name: "word", Value: "hi"}},
		Model: llm.NewScripted(
			llm.Response{ToolCalls: []llm.ToolCall{
				{ID: "c1", Name: "fill", Arguments: `{"b":"<<var:box>>","n":2}`},
				{ID: "c2", Name: "fill", Arguments: `{"b":"<<var:fill_result>>"}`},
			}},
			llm.Response{Text: "```go\nloud := shout(word)\n```"},
			llm.CallTool("terminate", `{"success":true,"result":"<<var:loud>>"}`),
		)})
	if err != nil {
		t.Fatal(err)
	}
	o, err := rt.Run(context.Background(), agent.RunOptions{Task: "t"})
	if err != nil || o.Status != run.StatusCompleted {
		t.Fatalf("%+v %v", o, err)
	}
	events, err := store.Read(context.Background(), o.RunID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	const box = "github.com/byref/byref/agent_test.idBox"
	var ids []run.GoAction
	described := map[string]int{}
	goTypes := map[string]string{}
	for _, e := range events {
		switch p := e.Payload.(type) {
		case run.ToolCallCompleted:
			if p.Action != nil {
				ids = append(ids, *p.Action)
				for _, nt := range p.Action.Types {
					described[nt.Name]++
				}
			}
		case run.SnippetExecuted:
			ids = append(ids, p.Actions...)
		case run.VariableCreated:
			goTypes[p.Variable.Name] = p.GoType
			for _, nt := range p.Types {
				described[nt.Name]++
			}
		}
	}
	if len(ids) != 2 || ids[0].Name != "fill" || ids[1].Name != "shout" {
		t.Fatalf("identities = %+v, want fill on its first call and shout on the snippet", ids)
	}
	fill := ids[0]
	if fill.Func != "github.com/byref/byref/agent_test.IDFill" || fill.Type != "func(context.Context, "+box+", int) ("+box+", error)" ||
		len(fill.Params) != 2 || string(fill.Defaults["n"]) != "1" {
		t.Errorf("fill's identity = %+v", fill)
	}
	if ids[1].Func != "github.com/byref/byref/agent_test.TestGoIdentityIsRecorded.func1" || ids[1].Type != "func(string) string" {
		t.Errorf("shout's identity = %+v", ids[1])
	}
	if described[box] != 1 || len(described) != 1 {
		t.Errorf("named types described %v, want %s once", described, box)
	}
	if goTypes["box"] != box || goTypes["fill_result"] != box || goTypes["word"] != "" || goTypes["loud"] != "" {
		t.Errorf("GoType of the variables = %v", goTypes)
	}
}

// TestGoIdentityOnceAcrossRestore: a run restored after a restart does not
// record again the identities its log holds.
func TestGoIdentityOnceAcrossRestore(t *testing.T) {
	ctx := context.Background()
	store := run.NewMemoryStore()
	actions := action.MustSet(
		action.MustNew(action.Spec{Name: "fill", Func: IDFill, Params: []action.Param{{Name: "b"}, {Name: "n", Default: 1}}}),
		action.MustNew(action.Spec{Name: "guarded", Func: func() string { return "ok" }, NeedsApproval: true}),
	)
	ag := func(model llm.Model) *agent.Agent {
		rt, err := agent.New(agent.Options{Actions: actions, Store: store, Model: model, CallTimeout: -1,
			Variables: []variable.Spec{{Name: "box", Value: idBox{Name: "a"}}}})
		if err != nil {
			t.Fatal(err)
		}
		return rt
	}
	rt := ag(llm.NewScripted(llm.CallTool("fill", `{"b":"<<var:box>>"}`), llm.CallTool("guarded", `{}`)))
	h := startRun(t, rt, agent.RunOptions{Task: "fill, then wait"})
	waitAwait(t, h)
	if err := rt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	rt2 := ag(llm.NewScripted(llm.CallTool("fill", `{"b":"<<var:box>>"}`), llm.CallTool("terminate", `{"success":true,"result":null}`)))
	h2, err := rt2.Restore(ctx, h.ID(), agent.RestoreOptions{Types: []reflect.Type{reflect.TypeFor[idBox]()}})
	if err != nil {
		t.Fatal(err)
	}
	p := waitAwait(t, h2)
	if err := h2.Resume(ctx, p.ID, run.Answer{Decision: run.Approved}); err != nil {
		t.Fatal(err)
	}
	if o, err := h2.Wait(ctx); err != nil || o.Status != run.StatusCompleted {
		t.Fatalf("restored run: %+v %v", o, err)
	}
	events, err := store.Read(ctx, h.ID(), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, e := range events {
		if p, ok := e.Payload.(run.ToolCallCompleted); ok && p.Action != nil {
			count[p.Action.Name]++
		}
	}
	if count["fill"] != 1 || count["guarded"] != 1 {
		t.Errorf("identities recorded %v, want fill and guarded once each", count)
	}
}
