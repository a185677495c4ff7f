package server_test

import (
	"bufio"
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byref/byref/server"
)

// TestLoad starts 200 concurrent streamed runs on one server (the scripted
// echo agent) and checks that every stream ends with its terminal event. It
// logs throughput and latency percentiles; it asserts no times.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test skipped with -short")
	}
	const runs = 200
	_, ts := startServer(t, server.Options{})
	tr := &http.Transport{MaxIdleConnsPerHost: runs, MaxConnsPerHost: runs}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	var wg sync.WaitGroup
	lat := make([]time.Duration, runs)
	errs := make([]string, runs)
	start := time.Now()
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/runs", strings.NewReader(create("echo", "Hello!", "stream")))
			req.Header.Set("Content-Type", "application/json")
			resp, err := hc.Do(req)
			if err != nil {
				errs[i] = err.Error()
				return
			}
			defer resp.Body.Close()
			last := ""
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
					last = eventType([]byte(data))
				}
			}
			if last != "run.completed" {
				errs[i] = "stream ended with " + last
			}
			lat[i] = time.Since(t0)
		}()
	}
	wg.Wait()
	total := time.Since(start)
	for i, e := range errs {
		if e != "" {
			t.Errorf("run %d: %s", i, e)
		}
	}
	slices.Sort(lat)
	t.Logf("%d streamed runs in %v: %.0f runs/s; latency p50 %v, p99 %v, max %v",
		runs, total.Round(time.Millisecond), float64(runs)/total.Seconds(),
		lat[runs/2].Round(time.Microsecond), lat[runs*99/100].Round(time.Microsecond), lat[runs-1].Round(time.Microsecond))
}
