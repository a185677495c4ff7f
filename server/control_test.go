package server_test

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// TestResumeAndCancelAreLinearizable races a resume and a cancel of one
// awaiting run, 200 times: exactly one wins, and the other is answered
// 409 with the run's status; the run ends as the winner says.
func TestResumeAndCancelAreLinearizable(t *testing.T) {
	s, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	wins := map[string]int{}
	for i := range 200 {
		id := c.startRun("awaiter", "Hi")
		waitStatus(t, s, id, run.StatusAwaiting)
		var wg sync.WaitGroup
		var rs, cs int
		var rb, cb []byte
		wg.Add(2)
		go func() { defer wg.Done(); rs, rb = c.do("POST", "/runs/"+id, resume("blue", "sync")) }()
		go func() { defer wg.Done(); cs, cb = c.do("POST", "/runs/"+id+"/cancel", "") }()
		wg.Wait()
		resumed, cancelled := rs == 200, cs == 202
		switch {
		case resumed && cancelled:
			t.Fatalf("race %d: both won: resume %d %s; cancel %d %s", i, rs, rb, cs, cb)
		case resumed:
			wins["resume"]++
			conflict(t, i, "cancel", cs, cb)
			if end := waitEnd(t, s, id); end != run.StatusCompleted {
				t.Fatalf("race %d: the resume won but the run ended %s", i, end)
			}
		case cancelled:
			wins["cancel"]++
			conflict(t, i, "resume", rs, rb)
			if end := waitEnd(t, s, id); end != run.StatusCanceled {
				t.Fatalf("race %d: the cancel won but the run ended %s", i, end)
			}
		default:
			t.Fatalf("race %d: neither won: resume %d %s; cancel %d %s", i, rs, rb, cs, cb)
		}
	}
	t.Logf("200 races: %v", wins)
}

// conflict fails unless the loser got 409 with the run's status.
func conflict(t *testing.T, i int, who string, status int, body []byte) {
	t.Helper()
	var e struct {
		Code string
		Data struct{ Status string }
	}
	if err := json.Unmarshal(body, &e); err != nil || status != 409 || e.Data.Status == "" {
		t.Fatalf("race %d: the %s lost with %d %s, want 409 with the run's status", i, who, status, body)
	}
}

// waitEnd waits for the run's terminal status.
func waitEnd(t *testing.T, s *server.Server, id string) run.Status {
	t.Helper()
	for e, err := range s.Store().Events(t.Context(), run.ID(id), 1) {
		if err != nil {
			t.Fatal(err)
		}
		if sc, ok := e.Payload.(run.StatusChanged); ok && sc.To.Terminal() {
			return sc.To
		}
	}
	t.Fatal("the log ended before the run")
	return ""
}
