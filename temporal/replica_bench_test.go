package temporal_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/internal/pgtest"
	"github.com/byref/byref/internal/temporaltest"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/postgres"
	"github.com/byref/byref/server"
	byreftemporal "github.com/byref/byref/temporal"
)

// firstDelta is a model that streams its answer, the run's first
// message, in two pieces, the first 100 ms after the call (a provider's
// time to its first token), the second 50 ms later, and tells when it
// hands the first piece on. A client that starts the run follows it
// before the message begins, so it gets the message's deltas from the
// first (each says where it begins in its message: run.Delta.Offset).
type firstDelta struct {
	sent chan time.Time
}

func (m firstDelta) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	return m.Stream(ctx, req, func(llm.Chunk) error { return nil })
}

func (m firstDelta) Stream(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
	task := ""
	for _, msg := range req.Messages {
		if msg.Role == llm.RoleUser {
			task = msg.Text
			break
		}
	}
	if err := sleep(ctx, 100*time.Millisecond); err != nil {
		return llm.Response{}, err
	}
	m.sent <- time.Now()
	if err := fn(llm.Chunk{Text: task + " "}); err != nil {
		return llm.Response{}, err
	}
	// The rest comes later, as a provider's does: a delta that reaches a
	// follower after the message it belongs to is recorded is dropped.
	if err := sleep(ctx, 50*time.Millisecond); err != nil {
		return llm.Response{}, err
	}
	if err := fn(llm.Chunk{Text: "done"}); err != nil {
		return llm.Response{}, err
	}
	return llm.Text(task + " done"), nil
}

// sleep waits d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// BenchmarkFirstDeltaOnAnotherReplica measures how long after a worker's
// model hands on its provider's first delta a client streaming the run
// from a byref server (a replica: another process as far as the database
// knows, with its own pool and listener) gets it over ACP's server-sent
// events: the worker's publication, PostgreSQL's notification, the
// server's follower, the projection and the HTTP stream. first-delta-p50-ms
// is the figure of the acceptance (at most 20 ms); each iteration is a
// run started through the server on the Temporal dev server, whose first
// message is the streamed answer.
func BenchmarkFirstDeltaOnAnotherReplica(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := pgtest.Start(b).Database(b)
	_, c := temporaltest.DevServer(b)
	open := func() *postgres.Store {
		s, err := postgres.Open(ctx, db, postgres.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	model := firstDelta{sent: make(chan time.Time, 1)}
	w, err := byreftemporal.NewWorker(c, byreftemporal.WorkerOptions{Store: open(), TaskQueue: "q-first-delta", Agents: []byreftemporal.Agent{{
		Name: "first",
		New: func(store run.Store) (*agent.Agent, error) {
			return agent.New(agent.Options{Store: store, Model: model})
		},
	}}})
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(w.Stop)
	replica := open()
	e, err := byreftemporal.NewEngine(c, byreftemporal.EngineOptions{Store: replica, TaskQueue: "q-first-delta"})
	if err != nil {
		b.Fatal(err)
	}
	s, err := server.New(server.Options{Store: replica, Engine: e, Agents: []server.Agent{
		{Name: "first", Run: agent.RunOptions{Approval: agent.ApproveNone}},
	}})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(s)
	b.Cleanup(func() { ts.Close(); s.Close() })

	lat := make([]time.Duration, 0, 64)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		task := "token" + strconv.Itoa(i)
		body, _ := json.Marshal(map[string]any{"agent_name": "first", "mode": "stream",
			"input": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"content_type": "text/plain", "content": task}}}}})
		resp, err := http.Post(ts.URL+"/runs", "application/json", strings.NewReader(string(body)))
		if err != nil {
			b.Fatal(err)
		}
		got, err := firstPart(resp, task+" ")
		resp.Body.Close()
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, got.Sub(<-model.sent))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "first-delta-p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "first-delta-p99-ms")
}

// firstPart reads an ACP stream until a message.part whose content is
// want, and returns when it came.
func firstPart(resp *http.Response, want string) (time.Time, error) {
	sc := bufio.NewScanner(resp.Body)
	var seen []string
	for sc.Scan() {
		seen = append(seen, sc.Text())
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		at := time.Now()
		var ev struct {
			Type string `json:"type"`
			Part *struct {
				Content string `json:"content"`
			} `json:"part"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			return at, err
		}
		if ev.Type == "message.part" && ev.Part != nil && ev.Part.Content == want {
			return at, nil
		}
	}
	if err := sc.Err(); err != nil {
		return time.Time{}, err
	}
	return time.Time{}, errors.New("the stream ended without the delta:\n" + strings.Join(seen, "\n"))
}
