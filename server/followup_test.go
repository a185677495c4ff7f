package server_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// TestFollowUpAsSoonAsCompleted: a follow-up sent as soon as the log says
// a run completed is taken, though the server's watcher has not yet seen
// the turn end (here the host's OnStatus holds the run's goroutine at
// the move to completed): the follow-up waits for it instead of being
// told the run cannot take one.
func TestFollowUpAsSoonAsCompleted(t *testing.T) {
	store := run.NewMemoryStore()
	model := llm.NewScripted(llm.Text("first"), llm.Text("second"))
	rt, err := agent.New(agent.Options{Model: model, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	completed, release := make(chan struct{}, 2), make(chan struct{})
	hold := func(s run.StatusChanged) {
		if s.To == run.StatusCompleted {
			completed <- struct{}{}
			<-release
		}
	}
	_, ts := startServer(t, server.Options{Store: store, Agents: []server.Agent{{Name: "echo", Agent: rt, Run: agent.RunOptions{OnStatus: hold}}}})
	var once sync.Once
	let := func() { once.Do(func() { close(release) }) }
	t.Cleanup(let) // before the server's Close, which waits for the run
	c := client{t: t, base: ts.URL}
	r := c.run("POST", "/runs", create("echo", "first", "async"), 202)
	<-completed // recorded: a GET says completed
	if got := c.run("GET", "/runs/"+r.RunID, "", 200); got.Status != "completed" {
		t.Fatalf("the run is %s, want completed", got.Status)
	}
	type reply struct {
		status int
		body   []byte
	}
	replied := make(chan reply, 1)
	go func() {
		status, body := c.do("POST", "/ui/api/runs/"+r.RunID+"/follow-up", `{"text":"second"}`)
		replied <- reply{status, body}
	}()
	select {
	case got := <-replied:
		t.Fatalf("the follow-up was answered before the run's turn had ended: %d %s", got.status, got.body)
	case <-time.After(100 * time.Millisecond): // it waits (no bound on how fast)
	}
	let()
	if got := <-replied; got.status != http.StatusAccepted {
		t.Fatalf("follow-up: %d %s", got.status, got.body)
	}
	if got := c.waitStatus(r.RunID, "completed"); !strings.Contains(got.text(), "second") {
		t.Fatalf("after the follow-up: %+v", got)
	}
}
