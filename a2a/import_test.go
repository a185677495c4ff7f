package a2a_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// measure takes the remote agent's result by reference.
var measure = action.MustNew(action.Spec{
	Name: "measure", Description: "Measure a JSON value.",
	Func:   func(data json.RawMessage) string { return "measured " + string(data) },
	Params: []action.Param{{Name: "data"}},
})

// callerModel calls the imported action helper with the task, then
// measure on its result by reference, then says what measure said.
var callerModel = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	i, task := lastUser(req)
	var tools []string
	for _, m := range req.Messages[i+1:] {
		if m.Role == llm.RoleTool {
			tools = append(tools, m.Text)
		}
	}
	switch len(tools) {
	case 0:
		b, _ := json.Marshal(task)
		return llm.CallTool("helper", `{"task":`+string(b)+`,"return":null}`), nil
	case 1:
		if !strings.Contains(tools[0], `"success":true`) {
			return llm.Text("helper failed: " + tools[0]), nil
		}
		return llm.CallTool("measure", `{"data":"<<var:helper_result>>","return":null}`), nil
	}
	return llm.Text("done"), nil
})

// localRun starts a run of callerModel with the imported action.
func localRun(t *testing.T, remote *action.Action, task string) (*agent.Handle, run.Store) {
	t.Helper()
	store := run.NewMemoryStore()
	rt, err := agent.New(agent.Options{Model: callerModel, Store: store, Actions: action.MustSet(remote, measure), DisableSnippets: true})
	if err != nil {
		t.Fatal(err)
	}
	h, err := rt.Start(context.Background(), agent.RunOptions{Task: task})
	if err != nil {
		t.Fatal(err)
	}
	return h, store
}

// awaitOf waits for the run to await, and returns what it awaits.
func awaitOf(t *testing.T, h *agent.Handle) run.AwaitRequested {
	t.Helper()
	for e, err := range h.Events(context.Background(), 1) {
		if err != nil {
			t.Fatal(err)
		}
		if sc, ok := e.Payload.(run.StatusChanged); ok {
			if sc.To == run.StatusAwaiting {
				p, _ := h.Pending()
				return p
			}
			if sc.To.Terminal() {
				t.Fatalf("the run ended %s before awaiting: %s", sc.To, sc.Reason)
			}
		}
	}
	t.Fatal("no await")
	return run.AwaitRequested{}
}

// variableOf returns the JSON value of the run's variable.
func variableOf(t *testing.T, store run.Store, id run.ID, name string) string {
	t.Helper()
	snap, err := run.LoadSnapshot(context.Background(), store, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range snap.Variables {
		if v.Name == name {
			return string(v.Value) + " " + v.Preview
		}
	}
	t.Fatalf("no variable %s in %+v", name, snap.Variables)
	return ""
}

func TestImportFromByrefServer(t *testing.T) {
	_, ts := startA2A(t, server.Options{}, a2a.Options{})
	ctx := context.Background()
	remote, err := a2a.Import(ctx, ts.URL+"/a2a/awaiter", a2a.ImportOptions{Name: "helper"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(remote.Description(), "awaiter") {
		t.Fatalf("description %q", remote.Description())
	}
	h, store := localRun(t, remote, "talk to me")
	// The remote input-required is this run's await.
	aw := awaitOf(t, h)
	if aw.Await != run.AwaitInput || !strings.Contains(aw.Message, "What should I say?") {
		t.Fatalf("await = %+v", aw)
	}
	if err := h.Resume(ctx, aw.ID, run.Answer{Input: json.RawMessage(`"hi"`)}); err != nil {
		t.Fatal(err)
	}
	o, err := h.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != run.StatusCompleted {
		t.Fatalf("outcome %+v", o)
	}
	// The remote artifact is a variable, and measure took it by reference.
	if v := variableOf(t, store, h.ID(), "helper_result"); !strings.Contains(v, "You said") {
		t.Fatalf("helper_result = %s", v)
	}
	if v := variableOf(t, store, h.ID(), "measure_result"); !strings.Contains(v, "measured") || !strings.Contains(v, "You said") {
		t.Fatalf("measure_result = %s", v)
	}
	// The remote task's progress is in this run's log, as the call's,
	// before the call completed.
	events, err := store.Read(ctx, h.ID(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var progress []string
	callID := ""
	for _, e := range events {
		switch p := e.Payload.(type) {
		case run.Progress:
			if callID == "" {
				callID = p.CallID
			}
			progress = append(progress, p.Message)
		case run.ToolCallCompleted:
			if p.CallID == callID && len(progress) == 0 {
				t.Fatal("the call completed before any progress")
			}
		}
	}
	if len(progress) < 2 || !strings.Contains(strings.Join(progress, "\n"), "input-required") {
		t.Fatalf("progress in the run's log = %q", progress)
	}
}

// startedModel tells when its run has started, then blocks until the run
// is cancelled.
type startedModel struct{ started chan struct{} }

func (m startedModel) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	m.started <- struct{}{}
	<-ctx.Done()
	return llm.Response{}, ctx.Err()
}

func TestImportCancelPropagates(t *testing.T) {
	started := make(chan struct{}, 1)
	s, ts := startA2A(t, server.Options{Agents: []server.Agent{newAgent(run.NewMemoryStore(), "blocker", startedModel{started}, agent.RunOptions{})}}, a2a.Options{})
	ctx := context.Background()
	remote, err := a2a.Import(ctx, ts.URL+"/a2a/blocker", a2a.ImportOptions{Name: "helper"})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := localRun(t, remote, "block")
	<-started
	if err := h.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if o, _ := h.Wait(ctx); o.Status != run.StatusCanceled {
		t.Fatalf("local outcome %+v", o)
	}
	runs, _, err := s.Store().List(ctx, run.Query{Tags: map[string]string{server.TagAgent: "blocker"}})
	if err != nil || len(runs) != 1 {
		t.Fatalf("remote runs %v %v", runs, err)
	}
	if end := endOf(t, s, sdk.TaskID(runs[0].ID)); end != run.StatusCanceled {
		t.Fatalf("the remote task ended %s, want canceled", end)
	}
}

// TestImportFromJSServer imports an agent served by the official
// JavaScript SDK (testdata/server.mjs): input-required, the answer passed
// through, and its artifacts as the call's result.
func TestImportFromJSServer(t *testing.T) {
	prefix := installJSSDK(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("testdata", "server.mjs"))
	cmd.Env = append(os.Environ(), "A2A_PREFIX="+prefix)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() {
		t.Fatalf("the JavaScript server printed no URL: %v", sc.Err())
	}
	url := strings.TrimSpace(sc.Text())
	go func() {
		for sc.Scan() {
		}
	}()
	remote, err := a2a.Import(ctx, url, a2a.ImportOptions{Name: "helper"})
	if err != nil {
		t.Fatal(err)
	}
	h, store := localRun(t, remote, "ask me")
	aw := awaitOf(t, h)
	if aw.Await != run.AwaitInput || !strings.Contains(aw.Message, "Which city?") {
		t.Fatalf("await = %+v", aw)
	}
	if err := h.Resume(ctx, aw.ID, run.Answer{Input: json.RawMessage(`"Paris"`)}); err != nil {
		t.Fatal(err)
	}
	o, err := h.Wait(ctx)
	if err != nil || o.Status != run.StatusCompleted {
		t.Fatalf("outcome %+v %v", o, err)
	}
	if v := variableOf(t, store, h.ID(), "helper_result"); !strings.Contains(v, "Paris") || !strings.Contains(v, "celsius") {
		t.Fatalf("helper_result = %s", v)
	}
	if v := variableOf(t, store, h.ID(), "measure_result"); !strings.Contains(v, "Paris") {
		t.Fatalf("measure_result = %s", v)
	}
}
