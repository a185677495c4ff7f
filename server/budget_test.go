package server_test

import (
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/byref/byref/server"
)

// sessionBody is a run request that forwards a session descriptor with
// the given history URLs.
func sessionBody(agent, session string, urls []string) string {
	b, _ := json.Marshal(map[string]any{"agent_name": agent, "mode": "sync", "session": map[string]any{"id": session, "history": urls},
		"input": []any{map[string]any{"parts": []any{map[string]any{"content": "go"}}}}})
	return string(b)
}

// allocated returns the bytes allocated by f, an upper bound of what it
// grew the heap by.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHistoryByteBudget: a 40 KB request whose session descriptor names
// 500 times a 1 MiB resource is refused with 413 naming the limit, and
// costs the server less than 10 MB; one within the budget is served.
func TestHistoryByteBudget(t *testing.T) {
	_, ts := startServer(t, server.Options{MaxBody: 2 << 20})
	c := client{t: t, base: ts.URL}
	r := c.run("POST", "/runs", create("echo", strings.Repeat("x", 1<<20), "sync"), 200)
	res := ts.URL + "/resources/" + r.RunID + ".1"
	urls := make([]string, server.MaxHistoryURLs)
	for i := range urls {
		urls[i] = res
	}
	body := sessionBody("history_echo", r.SessionID, urls)
	if len(body) > 64<<10 {
		t.Fatalf("the request is %d bytes", len(body))
	}
	var status int
	var b []byte
	cost := allocated(func() { status, b = c.do("POST", "/runs", body) })
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "MaxHistoryBytes") {
		t.Fatalf("500 URLs of a 1 MiB resource: %d %.300s, want 413 naming MaxHistoryBytes", status, b)
	}
	t.Logf("a %d-byte request naming 500 MiB of history allocated %d bytes", len(body), cost)
	if cost > 10<<20 {
		t.Fatalf("a %d-byte request allocated %d bytes, over 10 MB", len(body), cost)
	}
	// One of them is within the budget.
	cost = allocated(func() { c.run("POST", "/runs", sessionBody("history_echo", r.SessionID, urls[:1]), 200) })
	t.Logf("a request naming 1 MiB of history allocated %d bytes", cost)
}

// TestHistoryInFlightBudget: a request that would take the server's
// budget of history expanded at once over its limit is refused with 413,
// Retry-After, and the limit's name.
func TestHistoryInFlightBudget(t *testing.T) {
	_, ts := startServer(t, server.Options{MaxHistoryInFlight: 1 << 10})
	c := client{t: t, base: ts.URL}
	r := c.run("POST", "/runs", create("echo", strings.Repeat("x", 2<<10), "sync"), 200)
	req, _ := http.NewRequest("POST", ts.URL+"/runs", strings.NewReader(sessionBody("history_echo", r.SessionID, []string{ts.URL + "/resources/" + r.RunID + ".1"})))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct{ Message string }
	_ = json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || resp.Header.Get("Retry-After") == "" || !strings.Contains(e.Message, "MaxHistoryInFlight") {
		t.Fatalf("%d Retry-After %q: %s", resp.StatusCode, resp.Header.Get("Retry-After"), e.Message)
	}
}
