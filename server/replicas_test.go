package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/internal/pgtest"
	"github.com/byref/byref/internal/replicatest"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// askThenStream asks the user a question, calls note, then streams its
// text in pieces of 3 bytes, each once gate lets it, and ends its message
// once gate lets it. (A follower sees the
// deltas of the messages after the one being written when it joined: the
// note makes the streamed message one of those for a stream that joins
// as the run is resumed.)
type askThenStream struct {
	text string
	gate chan struct{}
}

func (m askThenStream) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	return m.Stream(ctx, req, func(llm.Chunk) error { return nil })
}

func (m askThenStream) Stream(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
	tools := 0
	for _, msg := range afterTask(req) {
		if msg.Role == llm.RoleTool {
			tools++
		}
	}
	switch tools {
	case 0:
		return llm.CallTool(action.AskUserName, `{"question":"Ready?"}`), nil
	case 1:
		return llm.CallTool("note", `{"return":null}`), nil
	}
	for i := 0; i < len(m.text); i += 3 {
		select {
		case <-m.gate:
		case <-ctx.Done():
			return llm.Response{}, ctx.Err()
		}
		if err := fn(llm.Chunk{Text: m.text[i:min(i+3, len(m.text))]}); err != nil {
			return llm.Response{}, err
		}
	}
	// The message is logged once its last piece was seen: a piece that
	// reaches a follower after the message's event is dropped there.
	select {
	case <-m.gate:
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	}
	return llm.Text(m.text), nil
}

// replicaAgents are the agents of the replicas' tests; stream streams
// with its gate.
func replicaAgents(stream askThenStream) func(run.Store) []server.Agent {
	return func(store run.Store) []server.Agent {
		return []server.Agent{
			scriptedAgent(store, "awaiter", awaiterModel, agent.RunOptions{}),
			scriptedAgent(store, "echo", echoModel, agent.RunOptions{}),
			scriptedAgent(store, "stream", stream, agent.RunOptions{}),
		}
	}
}

// replicas starts n replicas on a new database and returns their clients.
func replicas(t *testing.T, n int, agents func(run.Store) []server.Agent) ([]*replicatest.Replica, []client) {
	url := pgtest.Start(t).Database(t)
	var rs []*replicatest.Replica
	var cs []client
	for range n {
		r := replicatest.Start(t, url, server.Options{}, agents)
		ts := httptest.NewServer(r.Server)
		t.Cleanup(ts.Close)
		rs, cs = append(rs, r), append(cs, client{t: t, base: ts.URL})
	}
	return rs, cs
}

// waitStatus polls GET /runs/{id} until the run is status; a hang guard
// fails the test after a minute.
func (c client) waitStatus(id, status string) acpRun {
	c.t.Helper()
	r, ok := c.reaches(id, status)
	if !ok {
		c.t.Fatalf("run %s is %s, never %s", id, r.Status, status)
	}
	return r
}

// reaches polls GET /runs/{id} until the run is status, and reports
// whether it got there within a minute (a hang guard).
func (c client) reaches(id, status string) (acpRun, bool) {
	c.t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		r := c.run("GET", "/runs/"+id, "", 200)
		if r.Status == status {
			return r, true
		}
		if time.Now().After(deadline) {
			return r, false
		}
	}
}

// Any replica answers any run over ACP and the inspector: a run that one
// replica runs is read, resumed (its answer forwarded to its owner),
// cancelled and followed up through the others, and a stream through
// another replica carries the run's live text.
func TestReplicasAnswerAnyRun(t *testing.T) {
	stream := askThenStream{text: "Hello from another replica!", gate: make(chan struct{}, 64)}
	rs, cs := replicas(t, 3, replicaAgents(stream))
	a, b, c := cs[0], cs[1], cs[2]
	ctx := context.Background()

	// In Go: the controller another replica gives of a run.
	id, err := rs[0].Server.StartRun(ctx, "awaiter", server.StartRequest{Task: "Hi"})
	if err != nil {
		t.Fatal(err)
	}
	a.waitStatus(string(id), "awaiting")
	ctl, err := rs[1].Server.Control(ctx, id)
	if err != nil || ctl == nil {
		t.Fatalf("Control on another replica: %v, %v", ctl, err)
	}
	p, ok := ctl.Pending()
	if !ok || ctl.Status() != run.StatusAwaiting {
		t.Fatalf("the controller of another replica: %s, %v", ctl.Status(), ok)
	}
	if err := ctl.Resume(ctx, p.ID, run.Answer{Text: "x"}); err != nil {
		t.Fatal(err)
	}
	if o, err := ctl.Wait(ctx); err != nil || o.Status != run.StatusCompleted || ctl.Status() != run.StatusCompleted {
		t.Fatalf("Wait through another replica: %+v, %v", o, err)
	}
	if err := ctl.Resume(ctx, p.ID, run.Answer{Text: "x"}); !errors.Is(err, agent.ErrTerminal) && !errors.Is(err, agent.ErrNoAwait) {
		t.Fatalf("a second resume through another replica: %v, want ErrTerminal or ErrNoAwait", err)
	}

	// Read and resumed through another replica.
	r := a.run("POST", "/runs", create("awaiter", "Hi", "sync"), 200)
	if r.Status != "awaiting" {
		t.Fatalf("run: %+v", r)
	}
	if got := b.run("GET", "/runs/"+r.RunID, "", 200); got.Status != "awaiting" || got.AwaitRequest == nil {
		t.Fatalf("on another replica: %+v", got)
	}
	var view struct {
		Can struct{ Resume, Cancel bool }
	}
	if _, body := c.do("GET", "/ui/api/runs/"+r.RunID, ""); json.Unmarshal(body, &view) != nil || !view.Can.Resume || !view.Can.Cancel {
		t.Fatalf("the inspector of another replica: %s", body)
	}
	if got := b.run("POST", "/runs/"+r.RunID, resume("blue", "sync"), 200); got.Status != "completed" || !strings.Contains(got.text(), "blue") {
		t.Fatalf("resumed through another replica: %+v", got)
	}
	c.run("POST", "/runs/"+r.RunID, resume("again", "sync"), 403)

	// Answered in the inspector of another replica.
	r = a.run("POST", "/runs", create("awaiter", "Hi", "sync"), 200)
	snap, err := rs[0].Store.Get(ctx, run.ID(r.RunID))
	if err != nil {
		t.Fatal(err)
	}
	ctl, err = rs[2].Server.Control(ctx, snap.ID)
	if err != nil {
		t.Fatal(err)
	}
	p, _ = ctl.Pending()
	body, _ := json.Marshal(map[string]any{"await_id": p.ID, "answer": run.Answer{Text: "green"}})
	if status, got := c.do("POST", "/ui/api/runs/"+r.RunID+"/resume", string(body)); status != http.StatusAccepted {
		t.Fatalf("resumed in the inspector of another replica: %d %s", status, got)
	}
	if got := b.waitStatus(r.RunID, "completed"); !strings.Contains(got.text(), "green") {
		t.Fatalf("after the inspector's answer: %+v", got)
	}

	// Cancelled through another replica.
	r = a.run("POST", "/runs", create("awaiter", "Hi", "sync"), 200)
	if got := c.run("POST", "/runs/"+r.RunID+"/cancel", "", 202); got.Status != "cancelling" {
		t.Fatalf("cancelled through another replica: %+v", got)
	}
	a.waitStatus(r.RunID, "cancelled")
	// Ended, it is no replica's: a replica's leases are the runs it holds.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		owner, err := rs[0].Replica.Owner(ctx, run.ID(r.RunID))
		if err != nil {
			t.Fatal(err)
		}
		if owner == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cancelled run is still owned by %s", owner)
		}
	}

	// Followed up through another replica (its owner holds it).
	r = a.run("POST", "/runs", create("echo", "first", "sync"), 200)
	if status, body := b.do("POST", "/ui/api/runs/"+r.RunID+"/follow-up", `{"text":"second"}`); status != http.StatusAccepted {
		t.Fatalf("a follow-up through another replica: %d %s", status, body)
	}
	if got := c.waitStatus(r.RunID, "completed"); !strings.Contains(got.text(), "second") {
		t.Fatalf("after the follow-up: %+v", got)
	}

	// Streamed through another replica: each piece of text reaches the
	// client there before the model writes the next.
	r = a.run("POST", "/runs", create("stream", "Talk.", "sync"), 200)
	if r.Status != "awaiting" {
		t.Fatalf("run: %+v", r)
	}
	resp, err := http.Post(b.base+"/runs/"+r.RunID, "application/json", strings.NewReader(resume("go", "stream")))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	types, parts, completed := readStream(resp.Body, func(typ string) {
		if typ == "run.in-progress" || typ == "message.part" {
			stream.gate <- struct{}{} // the stream is live: the next piece
		}
	})
	if parts != stream.text || !strings.Contains(completed, stream.text) || types[len(types)-1] != "run.completed" {
		t.Fatalf("streamed through another replica: %v\nparts %q, completed %q", types, parts, completed)
	}
}

// relayModel notes once, then, on the replica that starts the run, hangs
// in its second call (its process is about to die), and on the others
// answers at once.
type relayModel struct {
	hang    bool
	calling chan struct{} // told when a hanging call begins
}

func (m relayModel) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	if len(afterTask(req)) == 0 {
		return llm.CallTool("note", `{"return":null}`), nil
	}
	if m.hang {
		m.calling <- struct{}{}
		<-ctx.Done()
		return llm.Response{}, ctx.Err()
	}
	return llm.Text("finished on another replica"), nil
}

// When a replica dies (its database sessions end without a word), another
// takes its runs over: a run it was running goes on from its last
// recorded step there, one it left awaiting can be resumed there, and one
// it had not begun begins there; the
// logs say so, and nothing of the dead replica is recorded after its
// death. The dead replica learns it lost its lease: it abandons its runs
// and Serve returns ErrLeaseLost.
func TestReplicaTakesOverADeadOne(t *testing.T) {
	url := pgtest.Start(t).Database(t)
	calling := make(chan struct{}, 1)
	agents := func(hang bool) func(run.Store) []server.Agent {
		return func(store run.Store) []server.Agent {
			return []server.Agent{
				scriptedAgent(store, "awaiter", awaiterModel, agent.RunOptions{}),
				scriptedAgent(store, "relay", relayModel{hang: hang, calling: calling}, agent.RunOptions{}),
			}
		}
	}
	dying := replicatest.Start(t, url, server.Options{}, agents(true))
	heir := replicatest.Start(t, url, server.Options{}, agents(false))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- dying.Server.Serve(context.Background(), ln) }()
	a := client{t: t, base: "http://" + ln.Addr().String()}
	ts := httptest.NewServer(heir.Server)
	t.Cleanup(ts.Close)
	b := client{t: t, base: ts.URL}

	awaiting := a.run("POST", "/runs", create("awaiter", "Hi", "sync"), 200)
	running := a.run("POST", "/runs", create("relay", "Go", "async"), 202)
	<-calling // in its second model call
	// A run the dying replica created and did not begin.
	ctx := context.Background()
	rt, err := agent.New(agent.Options{Model: awaiterModel, Store: dying.Store})
	if err != nil {
		t.Fatal(err)
	}
	unbegun, err := rt.Create(ctx, agent.RunOptions{Task: "Hi", Tags: map[string]string{server.TagAgent: "awaiter"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dying.Replica.Own(ctx, unbegun.ID()); err != nil {
		t.Fatal(err)
	}

	killed := time.Now()
	dying.Kill(t)
	got := b.waitStatus(running.RunID, "completed")
	// For the notes; it bounds nothing.
	t.Logf("the run went on %v after its replica died", time.Since(killed).Round(time.Millisecond))
	if !strings.Contains(got.text(), "finished on another replica") {
		t.Fatalf("the run taken over: %+v", got)
	}
	if err := <-served; !errors.Is(err, server.ErrLeaseLost) {
		t.Fatalf("Serve of the dead replica returned %v, want ErrLeaseLost", err)
	}
	if got := b.run("POST", "/runs/"+awaiting.RunID, resume("blue", "sync"), 200); got.Status != "completed" || !strings.Contains(got.text(), "blue") {
		t.Fatalf("resumed on the replica that took it over: %+v", got)
	}
	if got := b.waitStatus(string(unbegun.ID()), "awaiting"); got.AwaitRequest == nil {
		t.Fatalf("the run that had not begun, taken over: %+v", got)
	}
	for _, id := range []string{awaiting.RunID, running.RunID, string(unbegun.ID())} {
		events, err := heir.Store.Read(ctx, run.ID(id), 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		takenOver := 0
		for _, e := range events {
			switch p := e.Payload.(type) {
			case run.Progress:
				if strings.Contains(p.Message, "taken over by replica "+heir.Replica.ID()) && strings.Contains(p.Message, dying.Replica.ID()) {
					takenOver++
				}
			case run.Error:
				t.Errorf("run %s recorded an error: %s", id, p.Message)
			}
		}
		if takenOver != 1 {
			t.Errorf("run %s records its takeover %d times, want once", id, takenOver)
		}
	}
}

// gatedStream calls note once ready is closed, then streams each piece
// it is sent, until pieces is closed.
type gatedStream struct {
	ready  chan struct{}
	pieces chan string
}

func (m gatedStream) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	return m.Stream(ctx, req, func(llm.Chunk) error { return nil })
}

func (m gatedStream) Stream(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
	if len(afterTask(req)) == 0 {
		<-m.ready
		return llm.CallTool("note", `{"return":null}`), nil
	}
	for p := range m.pieces {
		if err := fn(llm.Chunk{Text: p}); err != nil {
			return llm.Response{}, err
		}
	}
	return llm.Text("done"), nil
}

// BenchmarkDeltaAcrossReplicas measures from a model's delta on the
// replica that runs the run to Follow yielding it on another replica: the
// hub, the owner's notification, the other's listener and follower.
func BenchmarkDeltaAcrossReplicas(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url := pgtest.Start(b).Database(b)
	m := gatedStream{ready: make(chan struct{}), pieces: make(chan string)}
	agents := func(store run.Store) []server.Agent {
		return []server.Agent{scriptedAgent(store, "stream", m, agent.RunOptions{})}
	}
	owner := replicatest.Start(b, url, server.Options{}, agents)
	other := replicatest.Start(b, url, server.Options{}, agents)
	id, err := owner.Server.StartRun(ctx, "stream", server.StartRequest{Task: "Talk."})
	if err != nil {
		b.Fatal(err)
	}
	seen := make(chan string, 1)
	go func() {
		for e, err := range other.Server.Follow(ctx, id, 1) {
			if err != nil {
				return
			}
			if d, ok := e.Payload.(run.Delta); ok {
				seen <- d.Text
			} else if e.Seq == 1 {
				close(m.ready) // following: the run goes on
			}
		}
	}()
	lat := make([]time.Duration, 0, 1024)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		piece := strconv.Itoa(i)
		start := time.Now()
		m.pieces <- piece
		if got := <-seen; got != piece {
			b.Fatalf("followed %q, want %q", got, piece)
		}
		lat = append(lat, time.Since(start))
	}
	close(m.pieces)
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// gatedNote notes once, then answers once release is closed (or its
// context is done), after saying on calling that it was called.
type gatedNote struct {
	calling chan struct{}
	release chan struct{}
}

func (m gatedNote) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	if len(afterTask(req)) == 0 {
		return llm.CallTool("note", `{"return":null}`), nil
	}
	m.calling <- struct{}{}
	select {
	case <-m.release:
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	}
	return llm.Text("done"), nil
}

// Runs spread over three replicas all complete when one of them dies in
// the middle, and none records a step twice: each has its note and its
// answer, once each.
func TestReplicasLoseNoRun(t *testing.T) {
	const runs = 60
	m := gatedNote{calling: make(chan struct{}, runs*2), release: make(chan struct{})}
	agents := func(store run.Store) []server.Agent {
		return []server.Agent{scriptedAgent(store, "gated", m, agent.RunOptions{})}
	}
	rs, cs := replicas(t, 3, agents)
	var ids []string
	for i := range runs {
		ids = append(ids, cs[i%3].run("POST", "/runs", create("gated", "Go", "async"), 202).RunID)
	}
	for range runs {
		<-m.calling // every run is in its second model call
	}
	rs[0].Kill(t)
	close(m.release)
	ctx := context.Background()
	takenOver := 0
	for i, id := range ids {
		_, done := cs[1+i%2].reaches(id, "completed")
		events, err := rs[1].Store.Read(ctx, run.ID(id), 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !done {
			var log []string
			for _, e := range events {
				log = append(log, fmt.Sprintf("%d %s %+v", e.Seq, e.Type(), e.Payload))
			}
			t.Fatalf("run %d (%s, started through replica %d) never completed; its log:\n%s", i, id, i%3, strings.Join(log, "\n"))
		}
		count := map[run.EventType]int{}
		for _, e := range events {
			count[e.Type()]++
		}
		if count[run.EventToolCallScheduled] != 1 || count[run.EventAssistantMessage] != 1 || count[run.EventResult] != 1 {
			t.Errorf("run %s records its steps more than once, or not: %v", id, count)
		}
		takenOver += count[run.EventProgress]
	}
	if takenOver != runs/3 {
		t.Errorf("%d runs were taken over, want the dead replica's %d", takenOver, runs/3)
	}
}
