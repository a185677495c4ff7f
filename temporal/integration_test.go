package temporal_test

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/internal/pgtest"
	"github.com/byref/byref/internal/temporaltest"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/postgres"
	"github.com/byref/byref/run/sqlite"
	"github.com/byref/byref/server"
	byreftemporal "github.com/byref/byref/temporal"
	"github.com/byref/byref/variable"
)

// workerEnv, set to "hostport|database|task queue|directory", makes the
// test binary a worker process that runs until it is killed.
const workerEnv = "BYREF_TEMPORAL_WORKER"

func TestMain(m *testing.M) {
	if cfg := os.Getenv(workerEnv); cfg != "" {
		workerMain(strings.Split(cfg, "|"))
		return
	}
	os.Exit(pgtest.Main(m))
}

// timing makes a lost worker noticed within seconds.
var timing = byreftemporal.Timing{Heartbeat: 2 * time.Second, ScheduleToStart: 5 * time.Second}

// workerMain is a worker process: it prints "ready", then "calling" at
// every call of get_weather and "blocking" when the first call of its
// directory blocks (until the process is killed).
func workerMain(cfg []string) {
	hostPort, db, queue, dir := cfg[0], cfg[1], cfg[2], cfg[3]
	store, err := openStore(db)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	c, err := client.Dial(client.Options{HostPort: hostPort, Logger: temporaltest.Quiet()})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	slowWeather := action.MustNew(action.Spec{
		Name: "get_weather", Description: "Get the weather for a location.",
		Params: []action.Param{{Name: "location"}, {Name: "unit", Enum: []any{"c", "f"}}},
		Func: func(ctx context.Context, location, unit string) (string, error) {
			fmt.Println("calling")
			f, err := os.OpenFile(filepath.Join(dir, "blocked"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
			if err == nil { // the first call of all blocks: its worker is killed
				f.Close()
				fmt.Println("blocking")
				<-ctx.Done()
				return "", ctx.Err()
			}
			return getWeather(location, unit), nil
		},
	})
	newAgent := func(name string, vars func() []variable.Spec, act *action.Action) byreftemporal.Agent {
		return byreftemporal.Agent{Name: name, New: func(store run.Store) (*agent.Agent, error) {
			return agent.New(agent.Options{Store: store, Model: weatherModel(), Variables: vars(), Actions: action.MustSet(act)})
		}}
	}
	live := func() []variable.Spec {
		return append(city(), variable.Spec{Name: "counter", Value: &Counter{n: make(chan int)}})
	}
	w, err := byreftemporal.NewWorker(c, byreftemporal.WorkerOptions{Store: store, TaskQueue: queue, Agents: []byreftemporal.Agent{
		newAgent("weather", city, slowWeather),
		newAgent("live", live, slowWeather),
		newAgent("quick", city, weatherAction),
		{Name: "streaming", New: func(store run.Store) (*agent.Agent, error) {
			return agent.New(agent.Options{Store: store, Model: slowStream{weatherModel()}, Variables: city(), Actions: action.MustSet(weatherAction)})
		}},
		noopAgent(10),
	}})
	if err == nil {
		err = w.Start()
	}
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("ready")
	select {}
}

// workerProc is a worker process and the lines it prints.
type workerProc struct {
	cmd   *exec.Cmd
	lines chan string
}

func startWorker(t *testing.T, hostPort, db, queue, dir string) *workerProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), workerEnv+"="+strings.Join([]string{hostPort, db, queue, dir}, "|"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	w := &workerProc{cmd: cmd, lines: make(chan string, 64)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
		close(w.lines)
	}()
	if line := w.next(t); line != "ready" {
		t.Fatalf("worker: %s", line)
	}
	return w
}

// next returns the worker's next line.
func (w *workerProc) next(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-w.lines:
		if !ok {
			t.Fatal("the worker exited")
		}
		return l
	case <-time.After(2 * time.Minute): // a hang guard, not a bound
		t.Fatal("the worker printed nothing")
	}
	return ""
}

// blocked returns the index of the worker whose call blocked.
func blocked(t *testing.T, ws ...*workerProc) int {
	t.Helper()
	found := make(chan int, len(ws))
	for i, w := range ws {
		go func() {
			for l := range w.lines {
				if l == "blocking" {
					found <- i
					return
				}
			}
		}()
	}
	select {
	case i := <-found:
		return i
	case <-time.After(2 * time.Minute): // a hang guard
		t.Fatal("no worker's call blocked")
	}
	return -1
}

type cluster struct {
	hostPort string
	client   client.Client
	db       string // a SQLite file, or a PostgreSQL database's URL
	store    run.Store
}

// openStore opens the store of db: the PostgreSQL database of a
// postgres:// URL, else a SQLite file, shared by processes that poll it.
func openStore(db string) (run.Store, error) {
	if strings.HasPrefix(db, "postgres://") {
		return postgres.Open(context.Background(), db, postgres.Options{})
	}
	return sqlite.Open(db, sqlite.Options{Poll: 50 * time.Millisecond})
}

// TestIntegrationPostgres runs runs on a real Temporal dev server with
// worker processes, as on separate hosts, sharing a PostgreSQL database:
// a run whose worker is killed goes on on the other, and a server streams
// the deltas of a run a worker hosts.
func TestIntegrationPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server and worker processes")
	}
	db := pgtest.Start(t).Database(t)
	hostPort, c := temporaltest.DevServer(t)
	store, err := postgres.Open(context.Background(), db, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	cl := &cluster{hostPort: hostPort, client: c, db: db, store: store}
	t.Run("the run finishes on the other worker", func(t *testing.T) {
		o := cl.killMidRun(t, "weather", "q-pg-finish")
		if !o.OK() || string(o.Result) != `"sunny, 21°C in Paris"` {
			t.Fatalf("outcome = %+v", o)
		}
	})
	t.Run("the ACP server serves runs on Temporal", func(t *testing.T) {
		cl.acp(t)
	})
	t.Run("a worker's deltas reach another process", func(t *testing.T) {
		cl.deltas(t, store)
	})
}

// slowStream streams each tool call of its model's answers in ten pieces
// 30 ms apart, as a provider streams a call over time. (A delta is
// published beside the run, and one that reaches a follower after the
// event that completes its message is dropped, as the log holds the
// message: an answer streamed at once may have no deltas to show.)
type slowStream struct{ *llm.Scripted }

func (m slowStream) Stream(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
	resp, err := m.Generate(ctx, req)
	if err != nil {
		return resp, err
	}
	for _, c := range resp.ToolCalls {
		args, n := c.Arguments, 10
		for i := range n {
			piece := args[i*len(args)/n : (i+1)*len(args)/n]
			chunk := llm.ToolCall{Arguments: piece}
			if i == 0 {
				chunk.ID, chunk.Name = c.ID, c.Name
			}
			if err := fn(llm.Chunk{ToolCall: &chunk}); err != nil {
				return llm.Response{}, err
			}
			time.Sleep(30 * time.Millisecond)
		}
	}
	return resp, nil
}

// deltas follows a run a worker hosts from this process: once the run
// awaits an approval, the deltas of the model's next answer (its call of
// terminate, streamed over time) come between the run's events.
func (cl *cluster) deltas(t *testing.T, store *postgres.Store) {
	startWorker(t, cl.hostPort, cl.db, "q-pg-deltas", t.TempDir())
	e, err := byreftemporal.NewEngine(cl.client, byreftemporal.EngineOptions{Store: store, TaskQueue: "q-pg-deltas", Timing: timing})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a hang guard
	defer cancel()
	r, err := e.Start(ctx, "streaming", agent.RunOptions{Task: "What is the weather?", Approval: agent.ApproveOnToolCall})
	if err != nil {
		t.Fatal(err)
	}
	for ev, err := range store.Events(ctx, r.ID(), 1) { // until it awaits
		if err != nil {
			t.Fatal(err)
		}
		if sc, ok := ev.Payload.(run.StatusChanged); ok && sc.To == run.StatusAwaiting {
			break
		}
	}
	calls := make(chan string, 100)
	go func() {
		defer close(calls)
		for ev, err := range store.Live(ctx, r.ID(), 1) {
			if err != nil {
				return
			}
			if d, ok := ev.Payload.(run.Delta); ok && d.What == run.DeltaToolCall {
				// Only a call's first piece names it; a follower that
				// joins as the stream begins may hear only later ones.
				calls <- cmp.Or(d.Name, "(a piece of a call)")
			}
			if ev.Seq == 1 {
				calls <- "" // the follower has joined
			}
		}
	}()
	<-calls
	await, ok := r.Pending()
	if !ok {
		t.Fatal("the run awaits nothing")
	}
	if err := r.Resume(ctx, await.ID, run.Answer{Decision: run.Approved}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for name := range calls {
		got = append(got, name)
	}
	if len(got) < 2 || slices.ContainsFunc(got[1:], func(n string) bool { return n != "terminate" && n != "(a piece of a call)" }) {
		t.Fatalf("streamed the calls %q, want pieces of terminate's", got)
	}
}

// TestIntegration runs runs on a real Temporal dev server with worker
// processes sharing one SQLite file.
func TestIntegration(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server and worker processes")
	}
	hostPort, c := temporaltest.DevServer(t)
	db := filepath.Join(t.TempDir(), "runs.db")
	store, err := sqlite.Open(db, sqlite.Options{Poll: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	cl := &cluster{hostPort: hostPort, client: c, db: db, store: store}

	t.Run("the run finishes on the other worker", func(t *testing.T) {
		o := cl.killMidRun(t, "weather", "q-finish")
		if !o.OK() || string(o.Result) != `"sunny, 21°C in Paris"` {
			t.Fatalf("outcome = %+v", o)
		}
	})
	t.Run("a run holding a live variable is interrupted", func(t *testing.T) {
		o := cl.killMidRun(t, "live", "q-live")
		if o.Status != run.StatusFailed || !strings.HasPrefix(o.Reason, "interrupted") || !strings.Contains(o.Reason, "counter") {
			t.Fatalf("outcome = %+v, want failed as interrupted, naming counter", o)
		}
	})
	t.Run("the ACP server serves runs on Temporal", func(t *testing.T) {
		cl.acp(t)
	})
	t.Run("A2A serves runs on Temporal", func(t *testing.T) {
		cl.a2aOnTemporal(t)
	})
	t.Run("time per step", func(t *testing.T) {
		cl.timePerStep(t)
	})
}

// timePerStep logs how long a step takes on the dev server (a model call
// and a step activity, and their round trips), for the notes; it bounds
// nothing.
func (cl *cluster) timePerStep(t *testing.T) {
	startWorker(t, cl.hostPort, cl.db, "q-time", t.TempDir())
	e, err := byreftemporal.NewEngine(cl.client, byreftemporal.EngineOptions{Store: cl.store, TaskQueue: "q-time", Timing: timing})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a hang guard
	defer cancel()
	const runs = 5
	var total time.Duration
	steps := 0
	for range runs {
		start := time.Now()
		r, err := e.Start(ctx, "noop", agent.RunOptions{Task: "loop", NonInteractive: true})
		if err != nil {
			t.Fatal(err)
		}
		o, err := r.Wait(ctx)
		if err != nil || o.Status != run.StatusCompleted {
			t.Fatalf("%+v %v", o, err)
		}
		total += time.Since(start)
		steps += 11
	}
	t.Logf("%d runs of 11 steps on the dev server: %v per step", runs, total/time.Duration(steps))
}

// killMidRun starts a run of agent on two workers, kills the one whose
// call blocks, and returns how the run ended.
func (cl *cluster) killMidRun(t *testing.T, agentName, queue string) agent.Outcome {
	dir := t.TempDir()
	a := startWorker(t, cl.hostPort, cl.db, queue, dir)
	b := startWorker(t, cl.hostPort, cl.db, queue, dir)
	e, err := byreftemporal.NewEngine(cl.client, byreftemporal.EngineOptions{Store: cl.store, TaskQueue: queue, Timing: timing})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a hang guard
	defer cancel()
	r, err := e.Start(ctx, agentName, agent.RunOptions{Task: "What is the weather?", NonInteractive: true})
	if err != nil {
		t.Fatal(err)
	}
	ws := []*workerProc{a, b}
	i := blocked(t, ws...)
	if err := ws[i].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	o, err := r.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := run.LoadSnapshot(ctx, cl.store, r.ID()); s.Status != o.Status {
		t.Fatalf("the log says %s, the outcome %s", s.Status, o.Status)
	}
	return o
}

// acp serves an agent on Temporal through the ACP server: a run awaits an
// approval, is resumed over HTTP and completes on a worker.
func (cl *cluster) acp(t *testing.T) {
	startWorker(t, cl.hostPort, cl.db, "q-acp", t.TempDir())
	e, err := byreftemporal.NewEngine(cl.client, byreftemporal.EngineOptions{Store: cl.store, TaskQueue: "q-acp", Timing: timing})
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(server.Options{Store: cl.store, Engine: e, Agents: []server.Agent{
		{Name: "quick", Description: "The weather, with approval.", Run: agent.RunOptions{Approval: agent.ApproveOnToolCall}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })

	r := post(t, ts.URL+"/runs", map[string]any{
		"agent_name": "quick", "mode": "sync",
		"input": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"content": "What is the weather?", "content_type": "text/plain"}}}},
	})
	if r["status"] != "awaiting" || r["await_request"] == nil {
		t.Fatalf("created run: %v", r)
	}
	id := r["run_id"].(string)
	r = post(t, ts.URL+"/runs/"+id, map[string]any{
		"mode":         "sync",
		"await_resume": map[string]any{"type": "message", "message": map[string]any{"parts": []any{map[string]any{"content": "approve"}}}},
	})
	if r["status"] != "completed" || !strings.Contains(fmt.Sprint(r["output"]), "sunny") {
		t.Fatalf("resumed run: %v", r)
	}
}

func post(t *testing.T, url string, body any) map[string]any {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d %s", url, resp.StatusCode, out)
	}
	return m
}
