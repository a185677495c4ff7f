package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/internal/leaktest"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// TestSnippetPrintsHandlePreview: a snippet that prints a *sql.DB run
// variable opened on a connection string with a password (%#v of the
// pointer, %+v of the value behind it) shows the model the handle's
// preview; the password is in no request to the model and no stored
// event.
func TestSnippetPrintsHandlePreview(t *testing.T) {
	code, _ := json.Marshal(map[string]string{"code": `fmt.Printf("C %#v\n", db)
x := fmt.Sprintf("%+v", *db)
fmt.Println(x)`})
	model := llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		if last := req.Messages[len(req.Messages)-1]; last.Role == llm.RoleTool {
			return llm.CallTool("terminate", `{"success":true,"result":"printed"}`), nil
		}
		return llm.CallTool("run_go", string(code)), nil
	})
	store := run.NewMemoryStore()
	rt, err := agent.New(agent.Options{Model: model, Store: store,
		Variables: []variable.Spec{{Name: "db", Value: leaktest.OpenDB(t), Description: "the ticket database"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	o, err := rt.Run(context.Background(), agent.RunOptions{Task: "print the database"})
	if err != nil || o.Status != run.StatusCompleted {
		t.Fatalf("run = %+v, %v", o, err)
	}

	leaktest.CheckModel(t, model)
	reqs := model.Requests()
	var result string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == llm.RoleTool {
			result = m.Text
		}
	}
	if !strings.Contains(result, "C *sql.DB handle (driver *sqlite.Driver)") || !strings.Contains(result, "sql.DB handle") {
		t.Errorf("the tool result does not show the handle's preview: %s", result)
	}
	events, err := store.Read(context.Background(), o.RunID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	printed := false
	for _, e := range events {
		b, _ := json.Marshal(e)
		if leaktest.Leaks(string(b)) {
			t.Errorf("stored event %d holds the secret: %s", e.Seq, b)
		}
		if done, ok := e.Payload.(run.ToolCallCompleted); ok && strings.Contains(done.Stdout, "C *sql.DB handle") {
			printed = true
		}
	}
	if !printed {
		t.Error("no stored tool call holds the snippet's output")
	}
}
