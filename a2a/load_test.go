package a2a_test

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/byref/byref/a2a"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// TestLoad streams 200 concurrent tasks (the scripted echo agent) through
// the Go SDK's client and checks that every stream ends completed with its
// artifact, and that every run is in the store, completed. It logs
// throughput and latency percentiles; it asserts no times.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test skipped with -short")
	}
	const tasks = 200
	s, ts := startA2A(t, server.Options{}, a2a.Options{})
	tr := &http.Transport{MaxIdleConnsPerHost: tasks, MaxConnsPerHost: tasks}
	defer tr.CloseIdleConnections()
	c, _, err := a2a.NewClient(context.Background(), ts.URL+"/a2a/echo", a2a.ClientOptions{HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Destroy()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var wg sync.WaitGroup
	lat := make([]time.Duration, tasks)
	errs := make([]string, tasks)
	ids := make([]sdk.TaskID, tasks)
	start := time.Now()
	for i := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			var state sdk.TaskState
			artifact := false
			for ev, err := range c.SendStreamingMessage(ctx, userMessage("Hello!")) {
				if err != nil {
					errs[i] = err.Error()
					return
				}
				switch e := ev.(type) {
				case *sdk.Task:
					ids[i] = e.ID
				case *sdk.TaskStatusUpdateEvent:
					state = e.Status.State
				case *sdk.TaskArtifactUpdateEvent:
					artifact = true
				}
			}
			if state != sdk.TaskStateCompleted || !artifact {
				errs[i] = "stream ended " + string(state) + " without its artifact"
			}
			lat[i] = time.Since(t0)
		}()
	}
	wg.Wait()
	total := time.Since(start)
	for i, e := range errs {
		if e != "" {
			t.Errorf("task %d: %s", i, e)
		}
	}
	for _, id := range ids {
		if sum, err := s.Store().Get(context.Background(), run.ID(id)); err != nil || sum.Status != run.StatusCompleted {
			t.Errorf("task %s: run %+v, %v", id, sum, err)
		}
	}
	slices.Sort(lat)
	t.Logf("%d streamed tasks in %v: %.0f tasks/s; latency p50 %v, p99 %v, max %v",
		tasks, total.Round(time.Millisecond), float64(tasks)/total.Seconds(),
		lat[tasks/2].Round(time.Microsecond), lat[tasks*99/100].Round(time.Microsecond), lat[tasks-1].Round(time.Microsecond))
}

// BenchmarkSendMessage is one blocking SendMessage to the echo agent over
// loopback HTTP through the Go SDK's client: a run started, recorded,
// projected and answered.
func BenchmarkSendMessage(b *testing.B) {
	_, ts := startA2A(b, server.Options{}, a2a.Options{})
	c := clientFor(b, ts.URL, "echo")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.SendMessage(ctx, userMessage("Hello!")); err != nil {
			b.Fatal(err)
		}
	}
}
