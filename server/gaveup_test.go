package server_test

import (
	"strings"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// A run whose model gave up is failed over ACP: server_error (the only
// code ACP's clients accept for it), the kind gave_up in the error's data,
// and the model's reason in its message.
func TestGaveUp(t *testing.T) {
	quitter := scriptedAgent(nil, "quitter", llm.NewScripted(llm.CallTool("terminate", `{"success":false,"result":"no data for that year"}`)), agent.RunOptions{})
	_, ts := startServer(t, server.Options{Agents: []server.Agent{quitter}})
	c := client{t: t, base: ts.URL}
	r := c.run("POST", "/runs", create("quitter", "Hi", "sync"), 200)
	if r.Status != "failed" || r.Error == nil || r.Error.Code != "server_error" || r.Error.Data == nil ||
		r.Error.Data.Kind != string(run.FailureGaveUp) || !strings.Contains(r.Error.Message, "no data for that year") {
		t.Fatalf("run: %+v, error %+v", r, r.Error)
	}
}
