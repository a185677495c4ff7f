package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

type acpRun struct {
	RunID        string `json:"run_id"`
	AgentName    string `json:"agent_name"`
	SessionID    string `json:"session_id"`
	Status       string `json:"status"`
	AwaitRequest *struct {
		Type    string `json:"type"`
		Message struct {
			Parts []struct {
				Name        string `json:"name"`
				ContentType string `json:"content_type"`
				Content     string `json:"content"`
			} `json:"parts"`
		} `json:"message"`
	} `json:"await_request"`
	Output []struct {
		Role  string `json:"role"`
		Parts []struct {
			Name        string `json:"name"`
			ContentType string `json:"content_type"`
			Content     string `json:"content"`
		} `json:"parts"`
	} `json:"output"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Data    *struct {
			Kind    string `json:"kind"`
			Refusal string `json:"refusal"`
		} `json:"data"`
	} `json:"error"`
	CreatedAt  string  `json:"created_at"`
	FinishedAt *string `json:"finished_at"`
}

func (r acpRun) text() string {
	var b strings.Builder
	for _, m := range r.Output {
		for _, p := range m.Parts {
			b.WriteString(p.Content + "\n")
		}
	}
	return b.String()
}

type client struct {
	t     testing.TB
	base  string
	token string
}

func (c client) do(method, path, body string) (int, []byte) {
	c.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp.StatusCode, b
}

func (c client) run(method, path, body string, want int) acpRun {
	c.t.Helper()
	status, b := c.do(method, path, body)
	if status != want {
		c.t.Fatalf("%s %s: status %d, want %d: %s", method, path, status, want, b)
	}
	var r acpRun
	if err := json.Unmarshal(b, &r); err != nil {
		c.t.Fatalf("%s %s: %v: %s", method, path, err, b)
	}
	return r
}

func create(agentName, text, mode string) string {
	b, _ := json.Marshal(map[string]any{
		"agent_name": agentName, "mode": mode,
		"input": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"content": text, "content_type": "text/plain"}}}},
	})
	return string(b)
}

func resume(text, mode string) string {
	b, _ := json.Marshal(map[string]any{
		"mode":         mode,
		"await_resume": map[string]any{"type": "message", "message": map[string]any{"parts": []any{map[string]any{"content": text}}}},
	})
	return string(b)
}

// sse reads a stream's events.
func (c client) sse(method, path, body string) []json.RawMessage {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		c.t.Fatalf("content type %q: %s", ct, b)
	}
	var out []json.RawMessage
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, json.RawMessage(data))
		}
	}
	return out
}

// streamRunID returns the ID of the run a stream's events are about, or
// "".
func streamRunID(stream []json.RawMessage) string {
	id := ""
	for _, e := range stream {
		var v struct {
			Run struct {
				RunID string `json:"run_id"`
			} `json:"run"`
		}
		if json.Unmarshal(e, &v) == nil && v.Run.RunID != "" {
			id = v.Run.RunID
		}
	}
	return id
}

func eventType(e json.RawMessage) string {
	var v struct{ Type string }
	_ = json.Unmarshal(e, &v)
	return v.Type
}

func TestSyncEcho(t *testing.T) {
	_, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	r := c.run("POST", "/runs", create("echo", "Hello!", "sync"), 200)
	if r.Status != "completed" || len(r.Output) != 1 || r.Output[0].Parts[0].Content != "Hello!" || r.Output[0].Role != "agent/echo" {
		t.Fatalf("run: %+v", r)
	}
	if !strings.HasSuffix(r.CreatedAt, "Z") || r.FinishedAt == nil || r.SessionID == "" {
		t.Fatalf("times or session: %+v", r)
	}
}

// TestEventsEqualStream: the events of a run whose model does not stream
// are the same streamed and read back. (A streaming model's text also
// reaches the stream as it is written: see TestStreamedText.)
func TestEventsEqualStream(t *testing.T) {
	_, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	evs := c.sse("POST", "/runs", create("whole_echo", "Hello!", "stream"))
	var types []string
	for _, e := range evs {
		types = append(types, eventType(e))
	}
	want := "run.created run.in-progress message.created message.part message.completed run.completed"
	if strings.Join(types, " ") != want {
		t.Fatalf("events %v, want %s", types, want)
	}
	var first struct{ Run acpRun }
	_ = json.Unmarshal(evs[0], &first)
	_, b := c.do("GET", "/runs/"+first.Run.RunID+"/events", "")
	var list struct{ Events []json.RawMessage }
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(list.Events)
	streamed, _ := json.Marshal(evs)
	if string(got) != string(streamed) {
		t.Fatalf("events differ from the stream:\n%s\n%s", got, streamed)
	}
}

// TestProgressReachesTheStream: what an action reports with
// agent.Progress is a generic event of the run's ACP stream, and of GET
// /runs/{id}/events.
func TestProgressReachesTheStream(t *testing.T) {
	_, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	evs := c.sse("POST", "/runs", create("worker", "Work.", "stream"))
	found := false
	for _, e := range evs {
		var g struct {
			Type    string
			Generic struct {
				Type string
				Data struct {
					CallID  string `json:"call_id"`
					Message string
				}
			}
		}
		_ = json.Unmarshal(e, &g)
		if g.Type == "generic" && g.Generic.Type == "progress" {
			found = g.Generic.Data.Message == "half way there" && g.Generic.Data.CallID != ""
		}
	}
	if !found {
		t.Fatalf("no progress event in the stream: %s", evs)
	}
}

// lockstepModel streams its text in pieces of 3 bytes, each once next
// says the piece before reached the client.
type lockstepModel struct {
	text string
	next chan struct{}
}

func (m lockstepModel) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	return llm.Text(m.text), nil
}

func (m lockstepModel) Stream(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
	for i := 0; i < len(m.text); i += 3 {
		if i > 0 {
			select {
			case <-m.next:
			case <-ctx.Done():
				return llm.Response{}, ctx.Err()
			}
		}
		if err := fn(llm.Chunk{Text: m.text[i:min(i+3, len(m.text))]}); err != nil {
			return llm.Response{}, err
		}
	}
	return llm.Text(m.text), nil
}

// TestStreamedText: a streaming model's text reaches an ACP stream as it
// is written (the model writes each piece only once the client has the
// one before), as the parts of a message (message.part, as ACP allows for
// streamed parts), then message.completed with the whole message.
func TestStreamedText(t *testing.T) {
	const text = "Hello, streaming world!"
	m := lockstepModel{text: text, next: make(chan struct{}, len(text))}
	store := run.NewMemoryStore()
	_, ts := startServer(t, server.Options{Store: store, Agents: []server.Agent{scriptedAgent(store, "lockstep", m, agent.RunOptions{})}})
	resp, err := http.Post(ts.URL+"/runs", "application/json", strings.NewReader(create("lockstep", "Talk.", "stream")))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	types, parts, completed := readStream(resp.Body, func(typ string) {
		if typ == "message.part" {
			m.next <- struct{}{}
		}
	})
	got := strings.Join(types, " ")
	want := "run.created run.in-progress message.created " + strings.Repeat("message.part ", (len(text)+2)/3) + "message.completed run.completed"
	if got != want || parts != text || completed != text {
		t.Fatalf("events %s\nwant   %s\nparts %q, completed %q", got, want, parts, completed)
	}
}

// readStream reads an ACP stream to its end: the types of its events, the
// text of its message parts, and that of its completed messages. each,
// when not nil, is called with each event's type before the next is read.
func readStream(body io.Reader, each func(typ string)) (types []string, parts, completed string) {
	var p, c strings.Builder
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type    string
			Part    struct{ Content string }
			Message struct{ Parts []struct{ Content string } }
		}
		_ = json.Unmarshal([]byte(data), &ev)
		types = append(types, ev.Type)
		switch ev.Type {
		case "message.part":
			p.WriteString(ev.Part.Content)
		case "message.completed":
			c.WriteString(ev.Message.Parts[0].Content)
		}
		if each != nil {
			each(ev.Type)
		}
	}
	return types, p.String(), c.String()
}

func TestQuestionAwaitAndResume(t *testing.T) {
	_, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	r := c.run("POST", "/runs", create("awaiter", "Hi", "sync"), 200)
	if r.Status != "awaiting" || r.AwaitRequest == nil || r.AwaitRequest.Message.Parts[0].Content != "What should I say?" {
		t.Fatalf("run: %+v", r)
	}
	if p := r.AwaitRequest.Message.Parts[1]; p.Name != "await.json" || !strings.Contains(p.Content, `"kind":"question"`) {
		t.Fatalf("await part: %+v", p)
	}
	evs := c.sse("POST", "/runs/"+r.RunID, resume("blue", "stream"))
	if eventType(evs[0]) != "run.in-progress" || eventType(evs[len(evs)-1]) != "run.completed" {
		t.Fatalf("resume stream: %s", evs)
	}
	r = c.run("GET", "/runs/"+r.RunID, "", 200)
	if r.Status != "completed" || !strings.Contains(r.text(), "blue") || r.AwaitRequest != nil {
		t.Fatalf("run: %+v", r)
	}
	c.run("POST", "/runs/"+r.RunID, resume("again", "sync"), 403)
}

func TestApproval(t *testing.T) {
	_, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	for _, tc := range []struct{ answer, want string }{
		{"approve", "HI THERE!"},
		{"deny: too loud", "too loud"},
		{`{"text":"edited","return":null}`, "EDITED!"},
	} {
		r := c.run("POST", "/runs", create("approver", "hi there", "sync"), 200)
		if r.Status != "awaiting" || !strings.HasPrefix(r.AwaitRequest.Message.Parts[0].Content, "Approve the call shout(") {
			t.Fatalf("run: %+v", r)
		}
		r = c.run("POST", "/runs/"+r.RunID, resume(tc.answer, "sync"), 200)
		if r.Status != "completed" || !strings.Contains(r.text(), tc.want) {
			t.Fatalf("%s: run %+v, want %q in the output", tc.answer, r, tc.want)
		}
	}
	r := c.run("POST", "/runs", create("approver", "hi", "sync"), 200)
	status, b := c.do("POST", "/runs/"+r.RunID, resume("maybe", "sync"))
	if status != 422 || !strings.Contains(string(b), "approve") {
		t.Fatalf("bad decision: %d %s", status, b)
	}
	c.run("POST", "/runs/"+r.RunID+"/cancel", "", 202)
}

func TestFailure(t *testing.T) {
	_, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	r := c.run("POST", "/runs", create("failer", "Hi", "sync"), 200)
	if r.Status != "failed" || r.Error == nil || r.Error.Code != "server_error" || !strings.Contains(r.Error.Message, "Wrong question buddy!") {
		t.Fatalf("run: %+v", r)
	}
}

// A run the model refused fails with ACP's server_error (the clients accept
// no other code), the typed reason in the error's data, and the same reason
// in the inspector's snapshot.
func TestRefusal(t *testing.T) {
	_, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	r := c.run("POST", "/runs", create("refuser", "Hi", "sync"), 200)
	if r.Status != "failed" || r.Error == nil || r.Error.Code != "server_error" || r.Error.Data == nil ||
		r.Error.Data.Kind != "refusal" || r.Error.Data.Refusal != "I won't do that." || !strings.Contains(r.Error.Message, "refused") {
		t.Fatalf("run: %+v, error %+v", r, r.Error)
	}
	status, b := c.do("GET", "/ui/api/runs/"+r.RunID, "")
	var v struct{ Snapshot run.Snapshot }
	if status != 200 || json.Unmarshal(b, &v) != nil || v.Snapshot.FailureKind != run.FailureRefusal || v.Snapshot.Refusal != "I won't do that." {
		t.Fatalf("inspector view: %d %s", status, b)
	}
}

func TestErrors(t *testing.T) {
	_, ts := startServer(t, server.Options{MaxBody: 1 << 10})
	c := client{t: t, base: ts.URL}
	const unknown = "/runs/7d0a1c1e-8c53-4bd6-a2f5-3c2b7a1e0b11"
	for _, tc := range []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"POST", "/runs", "{bad json", 422, "invalid_input"},
		{"POST", "/runs", "", 422, "invalid_input"},
		{"POST", "/runs", `{"agent_name":"echo"}`, 422, "invalid_input"},
		{"POST", "/runs", `{"agent_name":"echo","input":[]}`, 422, "invalid_input"},
		{"POST", "/runs", create("echo", "x", "fast"), 422, "invalid_input"},
		{"POST", "/runs", create("nobody", "x", "sync"), 404, "not_found"},
		{"POST", "/runs", create("echo", strings.Repeat("x", 2<<10), "sync"), 413, "invalid_input"},
		{"POST", "/runs", `{"agent_name":"echo","input":[{"parts":[{"content_type":"image/png","content":"AA==","content_encoding":"base64"}]}]}`, 422, "invalid_input"},
		{"POST", "/runs", `{"agent_name":"echo","session_id":"not-a-uuid","input":[{"parts":[{"content":"x"}]}]}`, 422, "invalid_input"},
		{"GET", unknown, "", 404, "not_found"},
		{"GET", unknown + "/events", "", 404, "not_found"},
		{"POST", unknown + "/cancel", "", 404, "not_found"},
		{"POST", unknown, resume("x", "sync"), 404, "not_found"},
		{"GET", "/runs/123", "", 422, "invalid_input"},
		{"GET", "/agents/nobody", "", 404, "not_found"},
		{"GET", "/sessions/7d0a1c1e-8c53-4bd6-a2f5-3c2b7a1e0b11", "", 404, "not_found"},
		{"GET", "/resources/nothing", "", 404, "not_found"},
		{"GET", "/nowhere", "", 404, "not_found"},
		{"DELETE", "/runs", "", 405, "invalid_input"},
	} {
		status, b := c.do(tc.method, tc.path, tc.body)
		var e struct{ Code, Message string }
		if err := json.Unmarshal(b, &e); err != nil || status != tc.status || e.Code != tc.code || e.Message == "" {
			t.Errorf("%s %s %.40s: %d %s; want %d %s", tc.method, tc.path, tc.body, status, b, tc.status, tc.code)
		}
	}
	r := c.run("POST", "/runs", create("echo", "x", "sync"), 200)
	c.run("POST", "/runs/"+r.RunID+"/cancel", "", 409)
	c.run("POST", "/runs/"+r.RunID, resume("x", "sync"), 403)
}

func TestToken(t *testing.T) {
	_, ts := startServer(t, server.Options{Token: "s3cret"})
	if status, _ := (client{t: t, base: ts.URL}).do("GET", "/ping", ""); status != 200 {
		t.Fatalf("ping: %d", status)
	}
	if status, b := (client{t: t, base: ts.URL}).do("GET", "/agents", ""); status != 401 || !strings.Contains(string(b), "server_error") {
		t.Fatalf("no token: %d %s", status, b)
	}
	if status, _ := (client{t: t, base: ts.URL, token: "wrong"}).do("GET", "/agents", ""); status != 401 {
		t.Fatalf("wrong token: %d", status)
	}
	if status, b := (client{t: t, base: ts.URL, token: "s3cret"}).do("GET", "/agents", ""); status != 200 {
		t.Fatalf("token: %d %s", status, b)
	}
}

func TestListenRefusesOpenAddressWithoutToken(t *testing.T) {
	s, err := server.New(server.Options{Agents: testAgents(nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		if err := s.ListenAndServe(context.Background(), addr); !errors.Is(err, server.ErrNeedsToken) {
			t.Errorf("%s: %v, want ErrNeedsToken", addr, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ListenAndServe(ctx, "127.0.0.1:0") }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A client that never reads its stream, and one that goes away, leave the
// run going.
func TestSlowAndVanishedClients(t *testing.T) {
	_, ts := startServer(t, server.Options{WriteTimeout: time.Second})
	c := client{t: t, base: ts.URL}
	addr := strings.TrimPrefix(ts.URL, "http://")
	var ids []string
	for _, vanish := range []bool{false, true} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		body := create("slow_echo", "Hello!", "stream")
		_, _ = io.WriteString(conn, "POST /runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "+itoa(len(body))+"\r\n\r\n"+body)
		// Read the headers only, for the run's ID.
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, resp.Header.Get("Run-ID"))
		if vanish {
			conn.Close()
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, id := range ids {
		for {
			r := c.run("GET", "/runs/"+id, "", 200)
			if r.Status == "completed" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("run %s is %s", id, r.Status)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestSessions(t *testing.T) {
	_, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	const session = "0b6f3f5e-2f53-4a8e-9c1b-7d8a3f6e9a10"
	withSession := func(body string) string {
		var m map[string]any
		_ = json.Unmarshal([]byte(body), &m)
		m["session_id"] = session
		b, _ := json.Marshal(m)
		return string(b)
	}
	if r := c.run("POST", "/runs", withSession(create("history_echo", "one", "sync")), 200); len(r.Output) != 1 || r.SessionID != session {
		t.Fatalf("first: %+v", r)
	}
	r := c.run("POST", "/runs", withSession(create("history_echo", "two", "sync")), 200)
	if len(r.Output) != 3 || r.text() != "one\none\ntwo\n" {
		t.Fatalf("second: %q %+v", r.text(), r)
	}
	_, b := c.do("GET", "/sessions/"+session, "")
	var d struct {
		ID      string
		History []string
	}
	if err := json.Unmarshal(b, &d); err != nil || d.ID != session || len(d.History) != 6 {
		t.Fatalf("session: %s", b)
	}
	status, b := c.do("GET", strings.TrimPrefix(d.History[5], ts.URL), "")
	if status != 200 || !strings.Contains(string(b), `"content":"two"`) {
		t.Fatalf("resource: %d %s", status, b)
	}
	// A forwarded descriptor is the history.
	desc, _ := json.Marshal(map[string]any{
		"agent_name": "history_echo",
		"input":      []any{map[string]any{"parts": []any{map[string]any{"content": "three"}}}},
		"session":    map[string]any{"id": session, "history": d.History[:2], "state": nil},
	})
	if r := c.run("POST", "/runs", string(desc), 200); r.text() != "one\none\nthree\n" {
		t.Fatalf("descriptor: %q", r.text())
	}
	desc, _ = json.Marshal(map[string]any{
		"agent_name": "history_echo",
		"input":      []any{map[string]any{"parts": []any{map[string]any{"content": "four"}}}},
		"session":    map[string]any{"id": session, "history": []string{"http://example.invalid/resources/x"}},
	})
	if status, b := c.do("POST", "/runs", string(desc)); status != 422 || !strings.Contains(string(b), "HistoryClient") {
		t.Fatalf("remote history: %d %s", status, b)
	}
}

func TestCancel(t *testing.T) {
	_, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	for _, agentName := range []string{"slow_echo", "awaiter"} {
		r := c.run("POST", "/runs", create(agentName, "Hi", "async"), 202)
		if r.Status != "created" {
			t.Fatalf("async: %+v", r)
		}
		if agentName == "awaiter" {
			for r.Status != "awaiting" {
				time.Sleep(10 * time.Millisecond)
				r = c.run("GET", "/runs/"+r.RunID, "", 200)
			}
		}
		if r = c.run("POST", "/runs/"+r.RunID+"/cancel", "", 202); r.Status != "cancelling" {
			t.Fatalf("%s cancel: %+v", agentName, r)
		}
		deadline := time.Now().Add(2 * time.Second)
		for r.Status != "cancelled" && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			r = c.run("GET", "/runs/"+r.RunID, "", 200)
		}
		if r.Status != "cancelled" || r.FinishedAt == nil {
			t.Fatalf("%s: %+v", agentName, r)
		}
	}
}
