package agent_test

import (
	"testing"

	"github.com/byref/byref/agent"
)

func TestMutationThroughPointerIsReported(t *testing.T) {
	f := newFixture(t, agent.Options{})
	resp := call(f.st, "move", `{"thing":"<<var:thing>>","dx":2}`)
	if !resp.Success {
		t.Fatal(resp.Error)
	}
	if len(resp.Variables) != 1 || resp.Variables[0].Name != "thing" || resp.Variables[0].Change != "modified" {
		t.Fatalf("variables = %+v, want thing modified", resp.Variables)
	}
	v, _ := f.st.Variable("thing")
	if last := v.History.Last(); last.Kind != "modified" || last.By != "move" || last.Step != 1 {
		t.Fatalf("history = %+v", v.History)
	}
	if h := f.st.History(); h[0].Modified[0] != "thing" {
		t.Fatalf("instruction = %+v", h[0])
	}
}

func TestReadOnlyCallReportsNothing(t *testing.T) {
	f := newFixture(t, agent.Options{})
	resp := call(f.st, "describe", `{"thing":"<<var:thing>>"}`)
	if !resp.Success {
		t.Fatal(resp.Error)
	}
	for _, v := range resp.Variables {
		if v.Name == "thing" {
			t.Fatalf("a read-only call reported thing as %s", v.Change)
		}
	}
	v, _ := f.st.Variable("thing")
	if len(v.History) != 1 {
		t.Fatalf("thing's history grew: %+v", v.History)
	}
}
