package agent_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// bigImage is media larger than the bound on other values in the log.
type bigImage []byte

func (bigImage) MediaType() string { return "image/x-test" }

// TestMediaIsRecordedWithItsType checks that a run.Media value is recorded
// with its media type and its value, even past the bound on other values,
// and that other values past it are not.
func TestMediaIsRecordedWithItsType(t *testing.T) {
	big := bytes.Repeat([]byte{7}, 200<<10)
	actions := action.MustSet(
		action.MustNew(action.Spec{Name: "get_image", Func: func() bigImage { return big }}),
		action.MustNew(action.Spec{Name: "get_blob", Func: func() []byte { return big }}),
	)
	model := llm.NewScripted(llm.CallTool("get_image", `{"return":null}`), llm.CallTool("get_blob", `{"return":null}`), llm.Text("done"))
	rt, err := agent.New(agent.Options{Model: model, Actions: actions})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := rt.Start(context.Background(), agent.RunOptions{Task: "t"})
	wait(t, h)
	events, err := rt.Store().Read(context.Background(), h.ID(), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]run.VariableCreated{}
	for _, e := range events {
		if v, ok := e.Payload.(run.VariableCreated); ok {
			got[v.Variable.Name] = v
		}
	}
	if v := got["image"]; v.MediaType != "image/x-test" || len(v.Value) < len(big) {
		t.Errorf("image: media type %q, value of %d bytes", v.MediaType, len(v.Value))
	}
	if v := got["blob"]; v.MediaType != "" || v.Value != nil {
		t.Errorf("blob: media type %q, value of %d bytes; want neither", v.MediaType, len(v.Value))
	}
}
