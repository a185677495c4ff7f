package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/sqlite"
	"github.com/byref/byref/server"
	"github.com/byref/byref/variable"
)

// askThenAnswer asks a question, then returns the answer as its result.
func askThenAnswer() llm.Model {
	return llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == llm.RoleTool && last.ToolName == "ask_user" {
			return llm.CallTool("terminate", `{"success":true,"result":"<<var:ask_user_result>>"}`), nil
		}
		return llm.CallTool("ask_user", `{"question":"Which city?","return":null}`), nil
	})
}

func asker(store run.Store) server.Agent {
	return server.Agent{Name: "asker", Agent: must(agent.New(agent.Options{Model: askThenAnswer(), Store: store}))}
}

// A server restarted on the same SQLite file resumes the runs that were
// awaiting, and marks the ones that were running interrupted.
func TestRecoverAfterRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "runs.db")
	store, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := server.New(server.Options{Store: store, Agents: []server.Agent{asker(store)}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(first)
	resp, err := http.Post(srv.URL+"/runs", "application/json", strings.NewReader(`{"agent_name":"asker","input":[{"role":"user","parts":[{"content":"weather"}]}],"mode":"sync"}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		RunID  string `json:"run_id"`
		Status string `json:"status"`
	}
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if created.Status != "awaiting" {
		t.Fatalf("the run is %s, want awaiting", created.Status)
	}
	// A run left running by the dead process.
	orphan := run.ID("run_orphan")
	if _, _, err := store.Create(ctx, run.Event{RunID: orphan, Payload: run.RunCreated{Name: "orphan", Tags: map[string]string{server.TagAgent: "asker"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Append(ctx, orphan, 1, run.Event{Payload: run.StatusChanged{From: run.StatusCreated, To: run.StatusRunning}}); err != nil {
		t.Fatal(err)
	}
	// The process "dies": its server stops serving; its run's goroutine is
	// left behind, as a dead process's would be gone.
	srv.Close()

	store2, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store2.Close()
	second, err := server.New(server.Options{Store: store2, Agents: []server.Agent{asker(store2)}})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	restored, interrupted, err := second.Recover(ctx)
	if err != nil || len(restored) != 1 || string(restored[0]) != created.RunID || len(interrupted) != 1 || interrupted[0] != orphan {
		t.Fatalf("Recover = %v, %v, %v", restored, interrupted, err)
	}
	srv2 := httptest.NewServer(second)
	defer srv2.Close()
	resp, err = http.Post(srv2.URL+"/runs/"+created.RunID, "application/json", strings.NewReader(`{"await_resume":{"type":"message","message":{"role":"user","parts":[{"content":"Oslo"}]}},"mode":"sync"}`))
	if err != nil {
		t.Fatal(err)
	}
	var done struct {
		Status string `json:"status"`
		Output []struct {
			Parts []struct {
				Content string `json:"content"`
			} `json:"parts"`
		} `json:"output"`
	}
	json.NewDecoder(resp.Body).Decode(&done)
	resp.Body.Close()
	if done.Status != "completed" || len(done.Output) == 0 || !strings.Contains(done.Output[len(done.Output)-1].Parts[0].Content, "Oslo") {
		t.Fatalf("after the restart the run ended %+v", done)
	}
	if s, _ := store2.Get(ctx, orphan); s.Status != run.StatusFailed || !strings.HasPrefix(s.Reason, "interrupted") {
		t.Fatalf("the orphan is %s (%s)", s.Status, s.Reason)
	}
}

// liveThing is a host value a run's log cannot hold.
type liveThing struct{ conn chan int }

// Close leaves an awaiting run awaiting in the store, and a server started
// next on it restores the run, with the live values of the agent.
func TestCloseThenRestoreWithLiveValues(t *testing.T) {
	ctx := context.Background()
	store := run.NewMemoryStore()
	live := &liveThing{conn: make(chan int)}
	newAgent := func() server.Agent {
		return server.Agent{Name: "asker", Agent: must(agent.New(agent.Options{Model: askThenAnswer(), Store: store,
			Variables: []variable.Spec{{Name: "thing", Value: live}}}))}
	}
	s, err := server.New(server.Options{Store: store, Agents: []server.Agent{newAgent()}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	c := client{t: t, base: ts.URL}
	r := c.run("POST", "/runs", `{"agent_name":"asker","input":[{"parts":[{"content":"weather"}]}]}`, 200)
	if r.Status != "awaiting" {
		t.Fatalf("the run is %s, want awaiting", r.Status)
	}
	ts.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if sum, _ := store.Get(ctx, run.ID(r.RunID)); sum.Status != run.StatusAwaiting {
		t.Fatalf("after Close the run is %s (%s), want awaiting", sum.Status, sum.Reason)
	}

	second, err := server.New(server.Options{Store: store, Agents: []server.Agent{newAgent()}})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if restored, interrupted, err := second.Recover(ctx); err != nil || len(restored) != 1 || len(interrupted) != 0 {
		t.Fatalf("Recover = %v, %v, %v", restored, interrupted, err)
	}
	ts2 := httptest.NewServer(second)
	defer ts2.Close()
	c = client{t: t, base: ts2.URL}
	if r := c.run("POST", "/runs/"+r.RunID, resume("Oslo", "sync"), 200); r.Status != "completed" || !strings.Contains(r.text(), "Oslo") {
		t.Fatalf("resumed after the restart: %+v", r)
	}

	// A run whose agent is gone cannot be restored: Recover marks it
	// failed as interrupted, in the store.
	s3, err := server.New(server.Options{Store: store, Agents: []server.Agent{newAgent()}})
	if err != nil {
		t.Fatal(err)
	}
	ts3 := httptest.NewServer(s3)
	r = client{t: t, base: ts3.URL}.run("POST", "/runs", `{"agent_name":"asker","input":[{"parts":[{"content":"weather"}]}]}`, 200)
	ts3.Close()
	s3.Close()
	other := newAgent()
	other.Name = "other"
	fourth, err := server.New(server.Options{Store: store, Agents: []server.Agent{other}})
	if err != nil {
		t.Fatal(err)
	}
	defer fourth.Close()
	if _, interrupted, err := fourth.Recover(ctx); err != nil || len(interrupted) != 1 || string(interrupted[0]) != r.RunID {
		t.Fatalf("Recover without the agent = %v, %v", interrupted, err)
	}
	if sum, _ := store.Get(ctx, run.ID(r.RunID)); sum.Status != run.StatusFailed || !strings.HasPrefix(sum.Reason, "interrupted") {
		t.Fatalf("the run Recover could not restore is %s (%s), want failed as interrupted", sum.Status, sum.Reason)
	}
}
