package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// localEngine is a server.Engine that runs runs in this process, but that
// the server reaches only through the seam: the server's agents have no
// New function, and a second server sharing the engine knows nothing of
// the runs the first started but what Control returns.
type localEngine struct {
	store  run.Store
	agents map[string]*agent.Agent

	mu       sync.Mutex
	runs     map[run.ID]*agent.Handle
	controls int // Control calls that found the run
}

// newLocalEngine returns an engine running the agents on the store, and
// the agents as a server with the engine offers them: without New. The
// engine's runs outlive the servers; the test's cleanup cancels them.
func newLocalEngine(t testing.TB, store run.Store, agents []server.Agent) (*localEngine, []server.Agent) {
	e := &localEngine{store: store, agents: map[string]*agent.Agent{}, runs: map[run.ID]*agent.Handle{}}
	var served []server.Agent
	for _, a := range agents {
		e.agents[a.Name] = a.Agent
		e.store = a.Agent.Store() // the agents record into one store
		a.Agent = nil
		served = append(served, a)
	}
	t.Cleanup(func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, h := range e.runs {
			_ = h.Cancel(context.Background())
			_, _ = h.Wait(context.Background())
		}
	})
	return e, served
}

func (e *localEngine) Start(ctx context.Context, agentName string, opts agent.RunOptions) (agent.Controller, error) {
	rt, ok := e.agents[agentName]
	if !ok {
		return nil, fmt.Errorf("local engine: no agent %q", agentName)
	}
	// ctx bounds the start only: the run outlives it.
	h, err := rt.Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.runs[h.ID()] = h
	e.mu.Unlock()
	return h, nil
}

func (e *localEngine) Control(ctx context.Context, id run.ID) (agent.Controller, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	h, ok := e.runs[id]
	if !ok {
		return nil, fmt.Errorf("local engine: run %s: %w", id, run.ErrRunNotFound)
	}
	e.controls++
	return h, nil
}

// waitTurn waits for the end of the run's current turn: a sync response
// comes once the store has the run completed, which can be just before
// the run's turn has ended (and a follow-up would find it still going).
func (e *localEngine) waitTurn(t testing.TB, id string) {
	t.Helper()
	e.mu.Lock()
	h := e.runs[run.ID(id)]
	e.mu.Unlock()
	if h == nil {
		t.Fatalf("the engine has no run %s", id)
	}
	if _, err := h.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (e *localEngine) controlCalls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.controls
}

// awaitStatus waits until the run has the status.
func awaitStatus(t testing.TB, store run.Store, id string, want run.Status) {
	t.Helper()
	for {
		sum, err := store.Get(context.Background(), run.ID(id))
		if err != nil {
			t.Fatalf("run %s: %v", id, err)
		}
		if sum.Status == want {
			return
		}
		if sum.Status.Final() {
			t.Fatalf("run %s is %s (%s), want %s", id, sum.Status, sum.Reason, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// uiCanOf reads what the inspector says can be done with the run.
func uiCanOf(c client, id string) (can struct {
	Resume, Cancel bool
	FollowUp       bool `json:"follow_up"`
	Why            string
}) {
	c.t.Helper()
	status, b := c.do("GET", "/ui/api/runs/"+id, "")
	var v struct{ Can json.RawMessage }
	if status != 200 || json.Unmarshal(b, &v) != nil || json.Unmarshal(v.Can, &can) != nil {
		c.t.Fatalf("GET /ui/api/runs/%s: %d %s", id, status, b)
	}
	return can
}

// engineServer serves the agents of an engine, sharing its store.
func engineServer(t testing.TB, e *localEngine, agents []server.Agent) (*server.Server, client) {
	t.Helper()
	s, ts := startServer(t, server.Options{Store: e.store, Engine: e, Agents: agents})
	return s, client{t: t, base: ts.URL}
}

// Runs started through an engine complete, await and resume, cancel and
// take follow-ups through the ACP and inspector endpoints, as runs in the
// server's process do.
func TestEngineRuns(t *testing.T) {
	e, agents := newLocalEngine(t, run.NewMemoryStore(), uiAgents(make(chan struct{})))
	s, c := engineServer(t, e, agents)

	// A run completes.
	r := c.run("POST", "/runs", create("echo", "Hello!", "sync"), 200)
	if r.Status != "completed" || len(r.Output) != 1 || r.Output[0].Parts[0].Content != "Hello!" {
		t.Fatalf("echo: %+v", r)
	}
	evs := c.sse("POST", "/runs", create("echo", "Streamed", "stream"))
	if len(evs) == 0 || eventType(evs[0]) != "run.created" || eventType(evs[len(evs)-1]) != "run.completed" {
		t.Fatalf("stream: %s", evs)
	}

	// An approval is awaited, and resumed.
	ap := c.run("POST", "/runs", create("approver", "hi there", "sync"), 200)
	if ap.Status != "awaiting" || ap.AwaitRequest == nil || !strings.HasPrefix(ap.AwaitRequest.Message.Parts[0].Content, "Approve the call shout(") {
		t.Fatalf("approver: %+v", ap)
	}
	if can := uiCanOf(c, ap.RunID); !can.Resume || !can.Cancel {
		t.Fatalf("awaiting run: can %+v", can)
	}
	r = c.run("POST", "/runs/"+ap.RunID, resume("approve", "sync"), 200)
	if r.Status != "completed" || !strings.Contains(r.text(), "HI THERE!") {
		t.Fatalf("approved: %+v", r)
	}
	// And through the inspector.
	ap2 := c.run("POST", "/runs", create("approver", "quiet", "sync"), 200).RunID
	if status, b := c.post("/ui/api/runs/"+ap2+"/resume", `{"answer":{"decision":"denied","reason":"too loud"}}`); status != 202 {
		t.Fatalf("inspector deny: %d %s", status, b)
	}
	awaitStatus(t, s.Store(), ap2, run.StatusCompleted)

	// A running run is cancelled, and an awaiting one through the
	// inspector.
	hang := c.startRun("hanger", "wait")
	awaitStatus(t, s.Store(), hang, run.StatusRunning)
	if r := c.run("POST", "/runs/"+hang+"/cancel", "", 202); r.Status != "cancelling" {
		t.Fatalf("cancel: %+v", r)
	}
	awaitStatus(t, s.Store(), hang, run.StatusCanceled)
	asking := c.run("POST", "/runs", create("awaiter", "Hi", "sync"), 200).RunID
	if status, b := c.post("/ui/api/runs/"+asking+"/cancel", `{}`); status != 202 {
		t.Fatalf("inspector cancel: %d %s", status, b)
	}
	awaitStatus(t, s.Store(), asking, run.StatusCanceled)

	// A completed run takes a follow-up.
	id := c.run("POST", "/runs", create("echo", "first", "sync"), 200).RunID
	if can := uiCanOf(c, id); !can.FollowUp || can.Resume || can.Cancel {
		t.Fatalf("completed run: can %+v", can)
	}
	e.waitTurn(t, id)
	if status, b := c.post("/ui/api/runs/"+id+"/follow-up", `{"text":"again"}`); status != 202 {
		t.Fatalf("follow-up: %d %s", status, b)
	}
	awaitStatus(t, s.Store(), id, run.StatusCompleted)
	if snap, err := run.LoadSnapshot(context.Background(), s.Store(), run.ID(id)); err != nil || snap.LastAssistantMessage != "again" {
		t.Fatalf("after the follow-up: %q %v", snap.LastAssistantMessage, err)
	}
}

// A run server A started is answered, cancelled and followed up through
// server B, which shares the store and the engine but has never held the
// run: B asks the engine (Engine.Control).
func TestEngineRunsAcrossServers(t *testing.T) {
	e, agents := newLocalEngine(t, run.NewMemoryStore(), uiAgents(make(chan struct{})))
	_, a := engineServer(t, e, agents)
	sb, b := engineServer(t, e, agents)

	// Resume through B, over ACP and through the inspector.
	ap := a.run("POST", "/runs", create("approver", "hi there", "sync"), 200).RunID
	before := e.controlCalls()
	if can := uiCanOf(b, ap); !can.Resume || !can.Cancel {
		t.Fatalf("B's view of A's awaiting run: can %+v", can)
	}
	r := b.run("POST", "/runs/"+ap, resume("approve", "sync"), 200)
	if r.Status != "completed" || !strings.Contains(r.text(), "HI THERE!") {
		t.Fatalf("resumed through B: %+v", r)
	}
	if e.controlCalls() <= before {
		t.Fatal("B resumed the run without asking the engine")
	}
	ask := a.run("POST", "/runs", create("awaiter", "Hi", "sync"), 200).RunID
	if status, body := b.post("/ui/api/runs/"+ask+"/resume", `{"answer":{"text":"blue"}}`); status != 202 {
		t.Fatalf("inspector resume through B: %d %s", status, body)
	}
	awaitStatus(t, sb.Store(), ask, run.StatusCompleted)

	// Cancel through B.
	hang := a.startRun("hanger", "wait")
	awaitStatus(t, sb.Store(), hang, run.StatusRunning)
	if r := b.run("POST", "/runs/"+hang+"/cancel", "", 202); r.Status != "cancelling" {
		t.Fatalf("cancel through B: %+v", r)
	}
	awaitStatus(t, sb.Store(), hang, run.StatusCanceled)

	// Follow up through B.
	id := a.run("POST", "/runs", create("echo", "first", "sync"), 200).RunID
	if can := uiCanOf(b, id); !can.FollowUp {
		t.Fatalf("B's view of A's completed run: can %+v", can)
	}
	e.waitTurn(t, id)
	if status, body := b.post("/ui/api/runs/"+id+"/follow-up", `{"text":"from B"}`); status != 202 {
		t.Fatalf("follow-up through B: %d %s", status, body)
	}
	awaitStatus(t, sb.Store(), id, run.StatusCompleted)
	if snap, _ := run.LoadSnapshot(context.Background(), sb.Store(), run.ID(id)); snap.LastAssistantMessage != "from B" {
		t.Fatalf("after the follow-up through B: %q", snap.LastAssistantMessage)
	}

	// A run in the store the engine does not know cannot be acted on.
	ctx := context.Background()
	orphan := run.ID("run_orphan")
	if _, _, err := sb.Store().Create(ctx, run.Event{RunID: orphan, Payload: run.RunCreated{Name: "orphan", Tags: map[string]string{server.TagAgent: "echo"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := sb.Store().Append(ctx, orphan, 1, run.Event{Payload: run.StatusChanged{From: run.StatusCreated, To: run.StatusRunning}}); err != nil {
		t.Fatal(err)
	}
	if status, body := b.post("/ui/api/runs/"+string(orphan)+"/cancel", `{}`); status != 409 || !strings.Contains(string(body), "engine") {
		t.Fatalf("cancel a run the engine does not know: %d %s", status, body)
	}
	if can := uiCanOf(b, string(orphan)); can.Cancel || !strings.Contains(can.Why, "engine") {
		t.Fatalf("a run the engine does not know: can %+v", can)
	}
}

// Close leaves the engine's runs going, and returns though a watched run
// awaits; another server then answers the run.
func TestEngineCloseLeavesRuns(t *testing.T) {
	e, agents := newLocalEngine(t, run.NewMemoryStore(), testAgents(nil))
	s, a := engineServer(t, e, agents)
	_, b := engineServer(t, e, agents)
	ask := a.run("POST", "/runs", create("awaiter", "Hi", "sync"), 200).RunID
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if sum, err := s.Store().Get(context.Background(), run.ID(ask)); err != nil || sum.Status != run.StatusAwaiting {
		t.Fatalf("after Close the run is %s (%v), want awaiting", sum.Status, err)
	}
	if status, body := a.do("POST", "/runs", create("echo", "x", "sync")); status != 503 {
		t.Fatalf("a run after Close: %d %s", status, body)
	}
	r := b.run("POST", "/runs/"+ask, resume("blue", "sync"), 200)
	if r.Status != "completed" || !strings.Contains(r.text(), "blue") {
		t.Fatalf("answered through another server: %+v", r)
	}
}

// With an engine, an agent needs no New function; without one, it does.
// Every other check of the agents stays.
func TestEngineAgentsNeedNoNew(t *testing.T) {
	e, _ := newLocalEngine(t, run.NewMemoryStore(), nil)
	noNew := []server.Agent{{Name: "remote"}}
	s, err := server.New(server.Options{Agents: noNew, Engine: e})
	if err != nil {
		t.Fatalf("an agent without New, with an engine: %v", err)
	}
	s.Close()
	if _, err := server.New(server.Options{Agents: noNew}); err == nil || !strings.Contains(err.Error(), "set Agent.Agent") {
		t.Fatalf("an agent without New, without an engine: %v", err)
	}
	if _, err := server.New(server.Options{Agents: []server.Agent{{Name: "bad name"}}, Engine: e}); err == nil {
		t.Fatal("a bad agent name with an engine was accepted")
	}
	if _, err := server.New(server.Options{Agents: []server.Agent{{Name: "twice"}, {Name: "twice"}}, Engine: e}); err == nil {
		t.Fatal("two agents of one name with an engine were accepted")
	}
}

// Recover refuses to run with an engine, and changes nothing.
func TestEngineRecoverRefuses(t *testing.T) {
	e, agents := newLocalEngine(t, run.NewMemoryStore(), testAgents(nil))
	s, c := engineServer(t, e, agents)
	ask := c.run("POST", "/runs", create("awaiter", "Hi", "sync"), 200).RunID
	restored, interrupted, err := s.Recover(context.Background())
	if err == nil || !strings.Contains(err.Error(), "engine recovers its own runs") || restored != nil || interrupted != nil {
		t.Fatalf("Recover = %v, %v, %v; want an error", restored, interrupted, err)
	}
	if sum, err := s.Store().Get(context.Background(), run.ID(ask)); err != nil || sum.Status != run.StatusAwaiting {
		t.Fatalf("after Recover the run is %s (%v), want awaiting", sum.Status, err)
	}
	if r := c.run("POST", "/runs/"+ask, resume("blue", "sync"), 200); r.Status != "completed" {
		t.Fatalf("resumed after Recover: %+v", r)
	}
}

// An engine's run is started from its spec, which holds no variables: an
// input part that would become one is refused, saying why.
func TestEngineRefusesAttachments(t *testing.T) {
	e, agents := newLocalEngine(t, run.NewMemoryStore(), uiAgents(make(chan struct{})))
	for i := range agents {
		agents[i].InputContentTypes = []string{"text/plain", "image/png"}
	}
	_, c := engineServer(t, e, agents)
	body, _ := json.Marshal(map[string]any{"agent_name": "echo", "mode": "sync", "input": []any{map[string]any{"parts": []any{
		map[string]any{"content": "Look.", "content_type": "text/plain"},
		map[string]any{"content": "AA==", "content_type": "image/png", "content_encoding": "base64"},
	}}}})
	status, b := c.do("POST", "/runs", string(body))
	if status != 422 || !strings.Contains(string(b), "invalid_input") || !strings.Contains(string(b), "takes text input only") {
		t.Fatalf("status %d: %s", status, b)
	}
}
