package agent_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/variable"
)

// Conn stands for a live handle: its channel cannot be copied.
type Conn struct {
	Ch   chan int
	Sent int
}

// TestSnippetAllOrNothing: a failing snippet leaves every variable as it
// was; what cannot be put back is told to the model and recorded.
func TestSnippetAllOrNothing(t *testing.T) {
	ag, err := agent.New(agent.Options{Variables: []variable.Spec{
		{Name: "nums", Value: []int{3, 1, 2}},
		{Name: "conn", Value: &Conn{Ch: make(chan int, 1)}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := ag.NewState()
	if err != nil {
		t.Fatal(err)
	}
	exec := func(code string) agent.SnippetResponse {
		return rt.Execute(context.Background(), agent.Step{Snippets: []string{code}}).Snippets[0]
	}
	value := func(name string) any {
		v, _ := rt.Variable(name)
		return v.Value
	}

	resp := exec("nums[0] = 99\npanic(\"boom\")")
	if resp.Success || strings.Contains(resp.Error, "may have changed") {
		t.Errorf("restored write: %+v", resp)
	}
	if got := value("nums").([]int); !slices.Equal(got, []int{3, 1, 2}) {
		t.Errorf("nums = %v after a failed snippet", got)
	}

	resp = exec("conn.Sent = 7\nconn.Ch <- 1\npanic(\"boom\")")
	if resp.Success || !strings.Contains(resp.Error, "may have changed conn") {
		t.Errorf("live handle: %+v", resp)
	}
	v, _ := rt.Variable("conn")
	if last := v.History[len(v.History)-1]; last.Kind != variable.Modified {
		t.Errorf("conn's history ends with %+v, want a modification", last)
	}
	h := rt.History()
	if got := h[len(h)-1].Modified; !slices.Equal(got, []string{"conn"}) {
		t.Errorf("the instruction records %v as modified, want [conn]", got)
	}
}
