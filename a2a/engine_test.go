package a2a_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/sqlite"
	"github.com/byref/byref/server"
)

// engine is a server.Engine that runs runs in this process, reached by
// the servers only through the seam (their agents have no New function),
// as temporal.Engine is.
type engine struct {
	agents map[string]*agent.Agent

	mu   sync.Mutex
	runs map[run.ID]*agent.Handle
}

func (e *engine) Start(ctx context.Context, agentName string, opts agent.RunOptions) (agent.Controller, error) {
	h, err := e.agents[agentName].Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.runs[h.ID()] = h
	e.mu.Unlock()
	return h, nil
}

func (e *engine) Control(ctx context.Context, id run.ID) (agent.Controller, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if h, ok := e.runs[id]; ok {
		return h, nil
	}
	return nil, fmt.Errorf("engine: run %s: %w", id, run.ErrRunNotFound)
}

// TestOnAnEngineAndADurableStore serves A2A from two servers sharing an
// engine and a SQLite store, as two processes would: a task started on one
// is answered, read and followed on the other.
func TestOnAnEngineAndADurableStore(t *testing.T) {
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "runs.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	e := &engine{agents: map[string]*agent.Agent{}, runs: map[run.ID]*agent.Handle{}}
	var served []server.Agent
	for _, a := range testAgents(store) {
		e.agents[a.Name] = a.Agent
		a.Agent = nil
		served = append(served, a)
	}
	skills := a2a.Options{}
	_, one := startA2A(t, server.Options{Agents: served, Store: store, Engine: e}, skills)
	_, two := startA2A(t, server.Options{Agents: served, Store: store, Engine: e}, skills)

	card, err := a2a.ResolveCard(context.Background(), one.URL+"/a2a/awaiter", a2a.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(card.Skills) != 1 || card.Skills[0].ID != "awaiter" {
		t.Fatalf("an agent run by an engine has the skills %+v, want one for itself", card.Skills)
	}
	res, err := clientFor(t, one.URL, "awaiter").SendMessage(context.Background(), userMessage("over there"))
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*sdk.Task)
	if task.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("state %s", task.Status.State)
	}
	other := clientFor(t, two.URL, "awaiter")
	res, err = other.SendMessage(context.Background(), &sdk.SendMessageRequest{Message: sdk.NewMessageForTask(sdk.MessageRoleUser, task, sdk.NewTextPart("hi"))})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.(*sdk.Task); got.Status.State != sdk.TaskStateCompleted || !strings.Contains(got.Status.Message.Parts[0].Text(), "hi") {
		t.Fatalf("answered on the other server: %+v", got.Status)
	}
	got, err := other.GetTask(context.Background(), &sdk.GetTaskRequest{ID: task.ID})
	if err != nil || got.Status.State != sdk.TaskStateCompleted {
		t.Fatalf("GetTask on the other server: %+v %v", got, err)
	}
}
