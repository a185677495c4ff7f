package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/sqlite"
	"github.com/byref/byref/runtime"
	"github.com/byref/byref/server"
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
	return server.Agent{Name: "asker", Runtime: must(runtime.New(runtime.Options{Model: askThenAnswer(), Store: store}))}
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
	if _, _, err := store.Create(ctx, run.Event{RunID: orphan, Data: run.RunCreated{Name: "orphan", Tags: map[string]string{server.TagAgent: "asker"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Append(ctx, orphan, 1, run.Event{Data: run.StatusChanged{From: run.StatusCreated, To: run.StatusRunning}}); err != nil {
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
