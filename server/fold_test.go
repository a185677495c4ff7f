package server_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// acpFold is what a client holds after applying ACP events as the
// protocol defines: the run of the latest run event, and the messages
// written (message.created opens one, message.part adds a part to it,
// message.completed gives it whole).
type acpFold struct {
	run      json.RawMessage
	messages []json.RawMessage
	created  []json.RawMessage // the message.created events, as sent
	open     []string          // the text of the parts of the open message
}

func (f *acpFold) apply(t *testing.T, evs []json.RawMessage) {
	t.Helper()
	for _, e := range evs {
		var ev struct {
			Type    string
			Run     json.RawMessage
			Message json.RawMessage
			Part    struct{ Content string }
		}
		if err := json.Unmarshal(e, &ev); err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasPrefix(ev.Type, "run."):
			f.run = ev.Run
		case ev.Type == "message.created":
			f.created = append(f.created, ev.Message)
			f.open = []string{}
		case ev.Type == "message.part":
			if f.open == nil {
				t.Fatalf("message.part outside a message: %s", e)
			}
			f.open = append(f.open, ev.Part.Content)
		case ev.Type == "message.completed":
			var m struct{ Parts []struct{ Content string } }
			_ = json.Unmarshal(ev.Message, &m)
			var whole []string
			for _, p := range m.Parts {
				whole = append(whole, p.Content)
			}
			if f.open == nil || strings.Join(f.open, "") != strings.Join(whole, "") {
				t.Fatalf("message.completed %s after parts %q", ev.Message, f.open)
			}
			f.messages = append(f.messages, ev.Message)
			f.open = nil
		}
	}
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

// A run's streams, applied as ACP defines, give exactly what a later read
// returns: the run of GET /runs/{id}, its output, and the same fold of GET
// /runs/{id}/events, whose message.created events are those streamed (one
// created_at per message): for streamed text, calls with streamed text, an
// await and its answer, and a failure.
func TestStreamFoldsToRunAndEvents(t *testing.T) {
	store := run.NewMemoryStore()
	agents := append(testAgents(store),
		scriptedAgent(store, "stream_worker", llm.Chunked(callsThen("work"), 3, time.Millisecond), agent.RunOptions{}),
		scriptedAgent(store, "stream_awaiter", llm.Chunked(awaiterModel, 3, time.Millisecond), agent.RunOptions{}))
	_, ts := startServer(t, server.Options{Store: store, Agents: agents})
	c := client{t: t, base: ts.URL}
	for _, tc := range []struct {
		name, agent, answer, status string
	}{
		{"streamed text", "streamer", "", "completed"},
		{"calls and streamed text", "stream_worker", "", "completed"},
		{"await and answer", "stream_awaiter", "Ann", "completed"},
		{"failure", "failer", "", "failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.t = t
			var stream acpFold
			first := c.sse("POST", "/runs", create(tc.agent, "Hello, streaming world!", "stream"))
			stream.apply(t, first)
			var r acpRun
			if err := json.Unmarshal(stream.run, &r); err != nil {
				t.Fatal(err)
			}
			if tc.answer != "" {
				if r.Status != "awaiting" {
					t.Fatalf("status %s, want awaiting", r.Status)
				}
				stream.apply(t, c.sse("POST", "/runs/"+r.RunID, resume(tc.answer, "stream")))
			}
			_, got := c.do("GET", "/runs/"+r.RunID, "")
			if !jsonEqual(stream.run, got) {
				t.Fatalf("the stream's run is\n%s\nGET /runs/{id} is\n%s", stream.run, got)
			}
			var read struct {
				Status string
				Output []json.RawMessage
			}
			_ = json.Unmarshal(got, &read)
			if read.Status != tc.status {
				t.Fatalf("status %s, want %s", read.Status, tc.status)
			}
			if !slices.EqualFunc(stream.messages, read.Output, jsonEqual) {
				t.Fatalf("the stream's messages are\n%s\nthe run's output is\n%s", stream.messages, read.Output)
			}
			_, b := c.do("GET", "/runs/"+r.RunID+"/events", "")
			var list struct{ Events []json.RawMessage }
			if err := json.Unmarshal(b, &list); err != nil {
				t.Fatal(err)
			}
			var back acpFold
			back.apply(t, list.Events)
			if !jsonEqual(back.run, got) || !slices.EqualFunc(back.messages, stream.messages, jsonEqual) {
				t.Fatalf("GET /runs/{id}/events folds to\n%s\n%s\nthe stream to\n%s\n%s", back.run, back.messages, stream.run, stream.messages)
			}
			if !slices.EqualFunc(back.created, stream.created, jsonEqual) {
				t.Fatalf("message.created read back\n%s\nstreamed\n%s", back.created, stream.created)
			}
		})
	}
}
