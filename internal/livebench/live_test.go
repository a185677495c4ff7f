package livebench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/agui"
	"github.com/byref/byref/llm"
	_ "github.com/byref/byref/llm/providers"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// generateOnly hides a model's Stream: the runtime then calls Generate.
type generateOnly struct{ llm.Model }

// rig is a server with one agent, "drip", on the provider, over ACP, A2A
// and AG-UI.
type rig struct {
	srv   *server.Server
	ts    *httptest.Server
	store *run.MemoryStore
	p     *provider
}

func newRig(tb testing.TB, stream bool) *rig {
	p := newProvider(tb)
	m, err := llm.OpenWith("openai:drip", llm.Config{APIKey: "k", BaseURL: p.srv.URL, Getenv: func(string) string { return "" }})
	if err != nil {
		tb.Fatal(err)
	}
	if !stream {
		m = generateOnly{m}
	}
	store := run.NewMemoryStore()
	rt, err := agent.New(agent.Options{Model: m, Store: store, DisableSnippets: true})
	if err != nil {
		tb.Fatal(err)
	}
	srv, err := server.New(server.Options{Store: store, Agents: []server.Agent{{Name: "drip", Description: "Talks at length.", Agent: rt}}})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := a2a.Mount(srv, a2a.Options{}); err != nil {
		tb.Fatal(err)
	}
	if _, err := agui.Mount(srv, agui.Options{}); err != nil {
		tb.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	tb.Cleanup(func() {
		ts.Close()
		srv.Close()
	})
	return &rig{srv: srv, ts: ts, store: store, p: p}
}

// firstDelta starts a run over the protocol, reads its stream until the
// first piece of text, and returns when it arrived and the run's ID.
func (r *rig) firstDelta(ctx context.Context, tb testing.TB, protocol string) (time.Time, run.ID) {
	switch protocol {
	case "a2a":
		card, err := a2a.ResolveCard(ctx, r.ts.URL+"/a2a/drip", a2a.ClientOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		c, err := a2aclient.NewFromCard(ctx, card)
		if err != nil {
			tb.Fatal(err)
		}
		defer c.Destroy()
		var id run.ID
		for ev, err := range c.SendStreamingMessage(ctx, &sdk.SendMessageRequest{Message: sdk.NewMessage(sdk.MessageRoleUser, sdk.NewTextPart("Talk."))}) {
			if err != nil {
				tb.Fatal(err)
			}
			switch e := ev.(type) {
			case *sdk.Task:
				id = run.ID(e.ID)
			case *sdk.TaskArtifactUpdateEvent:
				if e.Artifact.Name == a2a.ResultArtifact { // the first chunk of the answer
					return time.Now(), id
				}
			}
		}
		tb.Fatal("a2a: the stream ended without text")
	case "acp":
		body := `{"agent_name":"drip","mode":"stream","input":[{"role":"user","parts":[{"content":"Talk.","content_type":"text/plain"}]}]}`
		return r.sse(ctx, tb, "/runs", body, func(ev map[string]any) (string, bool) {
			if run, ok := ev["run"].(map[string]any); ok {
				return run["run_id"].(string), false
			}
			return "", ev["type"] == "message.part"
		})
	case "agui":
		body := `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"Talk."}]}`
		return r.sse(ctx, tb, "/agui/drip", body, func(ev map[string]any) (string, bool) {
			if md, ok := ev["metadata"].(map[string]any); ok {
				return md["byref.run"].(string), false
			}
			return "", ev["type"] == "TEXT_MESSAGE_CONTENT"
		})
	}
	tb.Fatalf("no protocol %s", protocol)
	return time.Time{}, ""
}

// sse posts body and reads server-sent events until done says the first
// delta came; done also picks the run's ID out of the events.
func (r *rig) sse(ctx context.Context, tb testing.TB, path, body string, done func(map[string]any) (string, bool)) (time.Time, run.ID) {
	req, _ := http.NewRequestWithContext(ctx, "POST", r.ts.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	var id run.ID
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			tb.Fatal(err)
		}
		got, first := done(ev)
		if got != "" && id == "" {
			id = run.ID(got)
		}
		if first {
			return time.Now(), id
		}
	}
	tb.Fatalf("%s: the stream ended without text", path)
	return time.Time{}, ""
}

// cancel cancels the run and waits for its end.
func (r *rig) cancel(tb testing.TB, id run.ID) {
	// (An AG-UI client that goes away cancels its run itself.)
	if c, err := r.srv.Control(context.Background(), id); err == nil && c != nil {
		_ = c.Cancel(context.Background())
	}
	for e, err := range r.store.Events(context.Background(), id, 1) {
		if err != nil {
			tb.Fatal(err)
		}
		if sc, ok := e.Payload.(run.StatusChanged); ok && sc.To.Terminal() {
			return
		}
	}
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// BenchmarkFirstDelta measures, per protocol, how long after the provider
// flushed its first delta an SSE client had it; each run is cancelled
// once it has. Run it with -benchtime 100x for the goal's 100 runs.
func BenchmarkFirstDelta(b *testing.B) {
	for _, protocol := range []string{"acp", "a2a", "agui"} {
		b.Run(protocol, func(b *testing.B) {
			b.ReportAllocs()
			r := newRig(b, true)
			var lat []time.Duration
			for b.Loop() {
				got, id := r.firstDelta(context.Background(), b, protocol)
				sent := <-r.p.first
				lat = append(lat, got.Sub(sent))
				b.StopTimer()
				r.cancel(b, id)
				b.StartTimer()
			}
			b.ReportMetric(float64(percentile(lat, 0.5).Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(percentile(lat, 0.99).Microseconds())/1000, "p99-ms")
		})
	}
}

// stalledDialer dials with a small receive buffer: a client that stops
// reading closes its window after a few kilobytes, as a stalled client
// on a real network does, rather than after the megabytes loopback
// buffers hold.
var stalledDialer = net.Dialer{Control: func(network, address string, c syscall.RawConn) error {
	var err error
	if cerr := c.Control(func(fd uintptr) {
		err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
	}); cerr != nil {
		return cerr
	}
	return err
}}

// loadRuns starts n runs of drip at once, stalled of them through an ACP
// stream whose client sends its request and never reads, and returns how
// long until every run completed.
func loadRuns(tb testing.TB, r *rig, n, stalled int) time.Duration {
	ctx := context.Background()
	ids := make([]run.ID, n)
	conns := make([]net.Conn, stalled)
	var starting sync.WaitGroup
	for i := range n {
		starting.Add(1)
		go func() {
			defer starting.Done()
			if i < stalled {
				ids[i], conns[i] = stalledStream(tb, r)
				return
			}
			id, err := r.srv.StartRun(ctx, "drip", server.StartRequest{Task: "Talk."})
			if err != nil {
				tb.Error(err)
				return
			}
			ids[i] = id
		}()
	}
	starting.Wait()
	var wg sync.WaitGroup
	for _, id := range ids {
		if id == "" {
			tb.FailNow()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for e, err := range r.store.Events(ctx, id, 1) {
				if err != nil {
					tb.Error(err)
					return
				}
				if sc, ok := e.Payload.(run.StatusChanged); ok && sc.To.Terminal() {
					if sc.To != run.StatusCompleted {
						tb.Errorf("run %s: %s (%s)", id, sc.To, sc.Reason)
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, c := range conns {
		if c != nil {
			c.Close()
		}
	}
	// The runs' time, from their logs: from the first start to the last
	// end (starting a run through a stream costs a round trip the runs do
	// not), and each run's own, the stalled clients' runs against the
	// others of the same batch, which share the machine's load.
	var first, last time.Time
	var sum [2]time.Duration
	var count [2]int
	for i, id := range ids {
		evs, err := r.store.Read(ctx, id, 1, 0)
		if err != nil || len(evs) == 0 {
			tb.Fatal(err)
		}
		begin, end := evs[0].Time, evs[len(evs)-1].Time
		if first.IsZero() || begin.Before(first) {
			first = begin
		}
		if end.After(last) {
			last = end
		}
		k := 0
		if i < stalled {
			k = 1
		}
		sum[k] += end.Sub(begin)
		count[k]++
	}
	if stalled > 0 && count[0] > 0 {
		lastRunRatio = (sum[1].Seconds() / float64(count[1])) / (sum[0].Seconds() / float64(count[0]))
	}
	return last.Sub(first)
}

// stalledStream starts a run through an ACP stream whose client reads
// the response's headers (for the run's ID), then nothing more.
func stalledStream(tb testing.TB, r *rig) (run.ID, net.Conn) {
	host := strings.TrimPrefix(r.ts.URL, "http://")
	conn, err := stalledDialer.Dial("tcp", host)
	if err != nil {
		tb.Error(err)
		return "", nil
	}
	body := `{"agent_name":"drip","mode":"stream","input":[{"role":"user","parts":[{"content":"Talk.","content_type":"text/plain"}]}]}`
	fmt.Fprintf(conn, "POST /runs HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", host, len(body), body)
	br := bufio.NewReaderSize(conn, 4096)
	var id run.ID
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			tb.Error(err)
			return "", conn
		}
		if v, ok := strings.CutPrefix(line, "Run-Id: "); ok {
			id = run.ID(strings.TrimSpace(v))
		}
		if line == "\r\n" {
			break
		}
	}
	if id == "" {
		tb.Error("the stream's response names no run")
	}
	return id, conn
}

// lastRunRatio is, for the last batch with stalled clients, the mean time
// of the runs with a stalled client over that of the others.
var lastRunRatio float64

// BenchmarkLoad runs 200 streaming runs at once without clients, then
// with 50 of them followed by stalled clients (alternately, twice, the
// faster of each kept), and reports the ratio of the times (ratio; and of
// the process's CPU time, cpu-ratio), the mean time of a run with a
// stalled client over that of the other runs of its batch
// (stalled-run-ratio), the goroutines left once all is closed, and the
// log's bytes per run with streaming over without (log-ratio). Run it
// with -benchtime 1x.
func BenchmarkLoad(b *testing.B) {
	const n, stalled = 200, 50
	before := runtime.NumGoroutine()
	for b.Loop() {
		func() {
			r := newRig(b, true)
			// Alternated, twice, keeping the faster of each: the machine's
			// other load moves a single measurement more than 10%.
			alone, with := time.Duration(1<<62), time.Duration(1<<62)
			var cpuAlone, cpuWith time.Duration
			for range 2 {
				c := cpuTime()
				alone = min(alone, loadRuns(b, r, n, 0))
				cpuAlone += cpuTime() - c
				c = cpuTime()
				with = min(with, loadRuns(b, r, n, stalled))
				cpuWith += cpuTime() - c
			}
			// The process's CPU time moves less with the machine's other
			// load than the wall clock does.
			b.ReportMetric(cpuWith.Seconds()/cpuAlone.Seconds(), "cpu-ratio")
			b.ReportMetric(lastRunRatio, "stalled-run-ratio")
			b.ReportMetric(alone.Seconds(), "s-no-clients")
			b.ReportMetric(with.Seconds(), "s-50-stalled")
			b.ReportMetric(with.Seconds()/alone.Seconds(), "ratio")
			streamed := logBytes(b, r.store)
			plain := newRig(b, false)
			loadRuns(b, plain, 10, 0)
			b.ReportMetric(float64(streamed)/float64(logBytes(b, plain.store)), "log-ratio")
			for _, r := range []*rig{r, plain} {
				r.ts.Close()
				r.srv.Close()
				r.p.srv.Close()
			}
		}()
	}
	// Every goroutine of the runs, the streams and the servers ends.
	var left int
	for range 200 {
		left = runtime.NumGoroutine() - before
		if left <= 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.ReportMetric(float64(max(left, 0)), "goroutines-left")
	if left > 0 {
		var stacks strings.Builder
		_ = pprof.Lookup("goroutine").WriteTo(&stacks, 1)
		b.Logf("goroutines left:\n%s", stacks.String())
	}
}

// cpuTime returns the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var u syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// logBytes returns the log's mean bytes per run.
func logBytes(tb testing.TB, store *run.MemoryStore) int {
	runs, _, err := store.List(context.Background(), run.Query{Limit: run.MaxListLimit})
	if err != nil {
		tb.Fatal(err)
	}
	total := 0
	for _, s := range runs {
		evs, err := store.Read(context.Background(), s.ID, 1, 0)
		if err != nil {
			tb.Fatal(err)
		}
		for _, e := range evs {
			b, _ := json.Marshal(e)
			total += len(b)
		}
	}
	return total / max(len(runs), 1)
}
