package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
	"github.com/byref/byref/variable"
)

// hookStore is a run.Store whose methods can be intercepted.
type hookStore struct {
	run.Store
	create func(ctx context.Context, e run.Event)
	append func(id run.ID, events []run.Event) error
	get    func(id run.ID)
	fail   error // returned by List, Read and Events when set
}

func (s *hookStore) Create(ctx context.Context, e run.Event) (run.Summary, bool, error) {
	if s.create != nil {
		s.create(ctx, e)
	}
	return s.Store.Create(ctx, e)
}

func (s *hookStore) Append(ctx context.Context, id run.ID, last int64, events ...run.Event) (int64, error) {
	if s.append != nil {
		if err := s.append(id, events); err != nil {
			return 0, err
		}
	}
	return s.Store.Append(ctx, id, last, events...)
}

func (s *hookStore) Get(ctx context.Context, id run.ID) (run.Summary, error) {
	if s.get != nil {
		s.get(id)
	}
	return s.Store.Get(ctx, id)
}

func (s *hookStore) List(ctx context.Context, q run.Query) ([]run.Summary, string, error) {
	if s.fail != nil {
		return nil, "", s.fail
	}
	return s.Store.List(ctx, q)
}

func (s *hookStore) Read(ctx context.Context, id run.ID, from int64, limit int) ([]run.Event, error) {
	if s.fail != nil {
		return nil, s.fail
	}
	return s.Store.Read(ctx, id, from, limit)
}

func (s *hookStore) Events(ctx context.Context, id run.ID, from int64) iter.Seq2[run.Event, error] {
	if s.fail != nil {
		return func(yield func(run.Event, error) bool) { yield(run.Event{}, s.fail) }
	}
	return s.Store.Events(ctx, id, from)
}

// request sends a request with the headers, and returns its status and body.
func request(t *testing.T, method, url, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// H2: every endpoint but /ping and the page's files refuses what a web
// page could send: a text/plain or form body (no CORS preflight), a
// request the browser marks cross-site, and, without a token, another Host
// (DNS rebinding).
func TestWebPagesCannotDriveTheServer(t *testing.T) {
	s, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	awaiting := c.run("POST", "/runs", create("awaiter", "Hi", "sync"), 200).RunID
	runs := func() int {
		list, _, err := s.Store().List(context.Background(), run.Query{})
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}
	before := runs()
	json := map[string]string{"Content-Type": "application/json"}
	for _, tc := range []struct {
		name, method, path, body string
		header                   map[string]string
		want                     int
	}{
		{"a text/plain run", "POST", "/runs", create("echo", "x", "sync"), map[string]string{"Content-Type": "text/plain"}, 415},
		{"a form run", "POST", "/runs", create("echo", "x", "sync"), map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415},
		{"a run without a Content-Type", "POST", "/runs", create("echo", "x", "sync"), map[string]string{"Content-Type": ""}, 415},
		{"a text/plain resume", "POST", "/runs/" + awaiting, resume("blue", "sync"), map[string]string{"Content-Type": "text/plain;charset=UTF-8"}, 415},
		{"a text/plain cancel", "POST", "/runs/" + awaiting + "/cancel", "", map[string]string{"Content-Type": "text/plain"}, 415},
		{"a cross-site run", "POST", "/runs", create("echo", "x", "sync"), map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, 403},
		{"a same-site run (another port)", "POST", "/runs", create("echo", "x", "sync"), map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "same-site"}, 403},
		{"a cross-site read", "GET", "/runs/" + awaiting, "", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"a cross-site agent list", "GET", "/agents", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"a rebound read", "GET", "/runs/" + awaiting, "", map[string]string{"Host": "attacker.example:8000"}, 403},
		{"a rebound resume", "POST", "/runs/" + awaiting, resume("blue", "sync"), map[string]string{"Host": "attacker.example", "Content-Type": "application/json"}, 403},
		{"a rebound session", "GET", "/sessions/0b6f3f5e-2f53-4a8e-9c1b-7d8a3f6e9a10", "", map[string]string{"Host": "attacker.example"}, 403},
		{"a rebound inspector list", "GET", "/ui/api/runs", "", map[string]string{"Host": "attacker.example"}, 403},
		// What stays open.
		{"a cross-site ping", "GET", "/ping", "", map[string]string{"Sec-Fetch-Site": "cross-site", "Host": "attacker.example"}, 200},
		{"the page, rebound", "GET", "/ui", "", map[string]string{"Host": "attacker.example"}, 200},
		{"a same-origin read", "GET", "/agents", "", map[string]string{"Sec-Fetch-Site": "same-origin", "Host": "localhost:8000"}, 200},
		{"a read on [::1]", "GET", "/agents", "", map[string]string{"Host": "[::1]:8000"}, 200},
		{"JSON with a charset", "POST", "/runs", create("echo", "x", "sync"), map[string]string{"Content-Type": "application/json; charset=utf-8"}, 200},
	} {
		if tc.header == nil {
			tc.header = json
		}
		if status, b := request(t, tc.method, ts.URL+tc.path, tc.body, tc.header); status != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, status, b, tc.want)
		}
	}
	if got := runs(); got != before+1 {
		t.Errorf("%d runs were started, want 1 (the JSON one)", got-before)
	}
	if sum, _ := s.Store().Get(context.Background(), run.ID(awaiting)); sum.Status != run.StatusAwaiting {
		t.Errorf("the awaiting run is %s", sum.Status)
	}
	// An ACP client's cancel: a POST without a body or a Content-Type.
	if status, b := request(t, "POST", ts.URL+"/runs/"+awaiting+"/cancel", "", nil); status != 202 {
		t.Errorf("a bodiless cancel: %d %s", status, b)
	}

	// Options.BaseURL names another accepted host; a token replaces the
	// Host check.
	_, ts = startServer(t, server.Options{BaseURL: "https://agents.example"})
	if status, b := request(t, "GET", ts.URL+"/agents", "", map[string]string{"Host": "agents.example"}); status != 200 {
		t.Errorf("the BaseURL's host: %d %s", status, b)
	}
	_, ts = startServer(t, server.Options{Token: "s3cret"})
	if status, b := request(t, "GET", ts.URL+"/agents", "", map[string]string{"Host": "agents.example", "Authorization": "Bearer s3cret"}); status != 200 {
		t.Errorf("another host with the token: %d %s", status, b)
	}
	if status, b := request(t, "POST", ts.URL+"/runs", create("echo", "x", "sync"), map[string]string{"Content-Type": "text/plain", "Authorization": "Bearer s3cret"}); status != 415 {
		t.Errorf("text/plain with the token: %d %s", status, b)
	}
}

// M1: Close waits for a run that is starting, and that run does not
// outlive it.
func TestCloseWaitsForStartingRuns(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	store := &blockingStore{Store: run.NewMemoryStore(), block: func() {
		once.Do(func() { close(entered) })
		<-release
	}}
	ag := server.Agent{Name: "blocker", Agent: must(agent.New(agent.Options{Model: slowModel{time.Minute}, Store: store, DisableSnippets: true}))}
	s, ts := startServer(t, server.Options{Store: store, Agents: []server.Agent{ag}})
	c := client{t: t, base: ts.URL}
	posted := make(chan int, 1)
	go func() {
		status, _ := c.do("POST", "/runs", create("blocker", "x", "async"))
		posted <- status
	}()
	<-entered
	closed := make(chan struct{})
	go func() {
		s.Close()
		close(closed)
	}()
	select {
	case <-closed:
		close(release)
		t.Fatal("Close returned while a run was starting")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return after the start went on")
	}
	list, _, err := s.Store().List(context.Background(), run.Query{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sum := range list {
		if !sum.Status.Terminal() {
			t.Errorf("run %s is %s after Close returned", sum.ID, sum.Status)
		}
	}
	if status := <-posted; status != 202 && status != 503 {
		t.Errorf("the POST answered %d, want 202 (a run Close cancelled) or 503", status)
	}
}

// M6: the inspector's event stream leaves variable values out, as its
// snapshot does.
func TestInspectorStreamHasNoValues(t *testing.T) {
	ag := server.Agent{Name: "keeper", Agent: must(agent.New(agent.Options{Model: echoModel, DisableSnippets: true,
		Variables: []variable.Spec{{Name: "city", Value: "Paris"}}}))}
	s, ts := startServer(t, server.Options{Agents: []server.Agent{ag}})
	c := client{t: t, base: ts.URL}
	id := c.run("POST", "/runs", create("keeper", "Hello!", "sync"), 200).RunID
	stored, err := s.Store().Read(context.Background(), run.ID(id), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, b := c.do("GET", "/ui/api/runs/"+id+"/events", "")
	vars := 0
	for line := range strings.SplitSeq(b2s(b), "\n") {
		data, ok := strings.CutPrefix(line, "data: {\"run\"")
		if !ok {
			continue
		}
		var e run.Event
		if err := json.Unmarshal([]byte(`{"run"`+data), &e); err != nil {
			t.Fatal(err)
		}
		if v, ok := e.Payload.(run.VariableCreated); ok {
			vars++
			if v.Value != nil || v.Variable.Name != "city" {
				t.Errorf("the stream shows a variable's value: %s", line)
			}
		}
	}
	if vars != 1 {
		t.Fatalf("%d VariableCreated events in the stream, want 1:\n%s", vars, b)
	}
	// The stored event keeps its value (the run could not be restored
	// otherwise).
	for _, e := range stored {
		if v, ok := e.Payload.(run.VariableCreated); ok && string(v.Value) != `"Paris"` {
			t.Errorf("the stored value is %s", v.Value)
		}
	}
	if again, _ := s.Store().Read(context.Background(), run.ID(id), 1, 0); fmt.Sprint(again) != fmt.Sprint(stored) {
		t.Error("streaming changed the stored events")
	}
}

func b2s(b []byte) string { return string(b) }

// L1: a resume that loses a race with the run's status (here: a cancel
// that moves it from awaiting while the answer is being recorded) is a
// conflict, 409, on both routes, not a server error.
func TestResumeLosingARaceIsAConflict(t *testing.T) {
	for _, route := range []string{"acp", "ui"} {
		t.Run(route, func(t *testing.T) {
			var mu sync.Mutex
			var blocked chan struct{}
			entered := make(chan struct{})
			gets := 0
			// The resume's first read; it then waits for the run's control
			// lock, which the cancel holds until its move is recorded.
			resumeGets := 1
			hs := &hookStore{Store: run.NewMemoryStore()}
			hs.append = func(id run.ID, events []run.Event) error {
				for _, e := range events {
					if sc, ok := e.Payload.(run.StatusChanged); ok && sc.To == run.StatusCancelling {
						ch := make(chan struct{})
						mu.Lock()
						blocked = ch
						mu.Unlock()
						close(entered)
						<-ch
					}
				}
				return nil
			}
			hs.get = func(id run.ID) {
				mu.Lock()
				defer mu.Unlock()
				if blocked == nil {
					return
				}
				if gets++; gets == resumeGets {
					// The handler calls Resume right after this read, which
					// claims the await and waits for the cancel to be
					// recorded.
					ch := blocked
					go func() {
						time.Sleep(100 * time.Millisecond)
						close(ch)
					}()
				}
			}
			s, ts := startServer(t, server.Options{Store: hs})
			c := client{t: t, base: ts.URL}
			id := c.startRun("awaiter", "Hi")
			waitStatus(t, s, id, run.StatusAwaiting)
			cancelled := make(chan int, 1)
			go func() {
				status, _ := c.do("POST", "/runs/"+id+"/cancel", "")
				cancelled <- status
			}()
			<-entered
			var status int
			var b []byte
			if route == "acp" {
				status, b = c.do("POST", "/runs/"+id, resume("blue", "sync"))
			} else {
				status, b = c.post("/ui/api/runs/"+id+"/resume", `{"answer":{"text":"blue"}}`)
			}
			if status != 409 || !strings.Contains(string(b), "server_error") {
				t.Fatalf("resume: %d %s, want 409", status, b)
			}
			if status := <-cancelled; status != 202 {
				t.Fatalf("cancel: %d", status)
			}
			// (Whether the run then ends canceled is the runtime's business,
			// not the server's.)
		})
	}
}

// L2: a session's history is its latest MaxHistoryRuns completed runs; a
// descriptor lists at most MaxHistoryURLs; a fetched message has its own
// size limit, not MaxBody.
func TestSessionHistoryIsBounded(t *testing.T) {
	ctx := context.Background()
	store := run.NewMemoryStore()
	const session = "0b6f3f5e-2f53-4a8e-9c1b-7d8a3f6e9a10"
	const old = server.MaxHistoryRuns + 5
	for i := range old {
		id := run.ID(fmt.Sprintf("7d0a1c1e-8c53-4bd6-a2f5-%012d", i))
		if _, _, err := store.Create(ctx, run.Event{RunID: id, Payload: run.RunCreated{Session: session, Tags: map[string]string{server.TagAgent: "counter"}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Append(ctx, id, 1,
			run.Event{Payload: run.StatusChanged{From: run.StatusCreated, To: run.StatusRunning}},
			run.Event{Payload: run.UserMessage{Text: "question " + strconv.Itoa(i)}},
			run.Event{Payload: run.AssistantMessage{Text: "answer " + strconv.Itoa(i)}},
			run.Event{Payload: run.StatusChanged{From: run.StatusRunning, To: run.StatusCompleted}}); err != nil {
			t.Fatal(err)
		}
	}
	// counter says how many history messages it got, and the first.
	counter := scriptedAgent(store, "counter", llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		i, _ := lastUser(req)
		var hist []string
		for _, m := range req.Messages[1:i] {
			if m.Role == llm.RoleUser || m.Role == llm.RoleAssistant {
				hist = append(hist, m.Text)
			}
		}
		first := ""
		if len(hist) > 0 {
			first = hist[0]
		}
		return llm.Text(fmt.Sprintf("%d messages, from %q", len(hist), first)), nil
	}), agent.RunOptions{})
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		size, _ := strconv.Atoi(r.URL.Query().Get("size"))
		b, _ := json.Marshal(map[string]any{"role": "user", "parts": []any{map[string]any{"content": strings.Repeat("x", size)}}})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}))
	defer remote.Close()
	_, ts := startServer(t, server.Options{Store: store, MaxBody: 32 << 10, HistoryClient: remote.Client(),
		Agents: append(testAgents(store), counter)})
	c := client{t: t, base: ts.URL}

	body := func(desc any) string {
		m := map[string]any{"agent_name": "counter", "input": []any{map[string]any{"parts": []any{map[string]any{"content": "go"}}}}}
		if desc != nil {
			m["session"] = desc
		} else {
			m["session_id"] = session
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	want := fmt.Sprintf("%d messages, from %q", 2*server.MaxHistoryRuns, "question "+strconv.Itoa(old-server.MaxHistoryRuns))
	if r := c.run("POST", "/runs", body(nil), 200); !strings.Contains(r.text(), want) {
		t.Fatalf("a new run of the session got %q, want %q", r.text(), want)
	}
	_, b := c.do("GET", "/sessions/"+session, "")
	var d struct{ History []string }
	if err := json.Unmarshal(b, &d); err != nil || len(d.History) != 2*server.MaxHistoryRuns {
		t.Fatalf("the session lists %d messages, want %d: %.300s", len(d.History), 2*server.MaxHistoryRuns, b)
	}

	urls := make([]string, server.MaxHistoryURLs+1)
	for i := range urls {
		urls[i] = remote.URL + "/m?size=1"
	}
	if status, b := c.do("POST", "/runs", body(map[string]any{"id": session, "history": urls})); status != 422 || !strings.Contains(string(b), "at most") {
		t.Fatalf("%d history URLs: %d %s, want 422", len(urls), status, b)
	}
	// A message larger than MaxBody (32 KiB here) is fine; one larger than
	// MaxHistoryResponse is refused as such.
	big := remote.URL + "/m?size=" + strconv.Itoa(128<<10)
	if r := c.run("POST", "/runs", body(map[string]any{"id": session, "history": []string{big}}), 200); !strings.Contains(r.text(), "1 messages") {
		t.Fatalf("a 128 KiB history message: %q", r.text())
	}
	huge := remote.URL + "/m?size=" + strconv.Itoa(server.MaxHistoryResponse+1)
	if status, b := c.do("POST", "/runs", body(map[string]any{"id": session, "history": []string{huge}})); status != 422 || !strings.Contains(string(b), "larger than") {
		t.Fatalf("a history message over MaxHistoryResponse: %d %.300s, want 422", status, b)
	}
}

// L3: a 500 says nothing of the store's error, which goes to the log.
func TestServerErrorsAreGeneric(t *testing.T) {
	const detail = "open /home/user/.local/share/byref/runs.db: SQL logic error near SELECT"
	hs := &hookStore{Store: run.NewMemoryStore()}
	var logs bytes.Buffer
	var logMu sync.Mutex
	s, ts := startServer(t, server.Options{Store: hs, Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &logMu}, nil))})
	c := client{t: t, base: ts.URL}
	id := c.run("POST", "/runs", create("echo", "x", "sync"), 200).RunID
	hs.fail = errors.New(detail)
	defer func() { hs.fail = nil }()
	for _, path := range []string{"/runs/" + id, "/runs/" + id + "/events", "/sessions/0b6f3f5e-2f53-4a8e-9c1b-7d8a3f6e9a10",
		"/ui/api/runs", "/ui/api/runs/" + id, "/ui/api/runs/" + id + "/events", "/ui/api/runs/" + id + "/replay"} {
		status, b := c.do("GET", path, "")
		if strings.Contains(string(b), "runs.db") || strings.Contains(string(b), "SQL") {
			t.Errorf("GET %s: %d shows the store's error: %s", path, status, b)
		}
		if status != 500 && !strings.HasSuffix(path, "/ui/api/runs/"+id+"/events") {
			t.Errorf("GET %s: %d %s, want 500", path, status, b)
		}
	}
	status, b := c.do("POST", "/runs", create("echo", "x", "sync"))
	if strings.Contains(string(b), "runs.db") {
		t.Errorf("POST /runs: %d shows the store's error: %s", status, b)
	}
	logMu.Lock()
	defer logMu.Unlock()
	if !strings.Contains(logs.String(), "runs.db") {
		t.Errorf("the log does not have the store's error:\n%s", logs.String())
	}
	_ = s
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// L4: the inspector refuses more than run.MaxQueryTags tag filters.
func TestUIAPITooManyTags(t *testing.T) {
	_, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	q := ""
	for i := range run.MaxQueryTags {
		q += fmt.Sprintf("&tag=k%d=v", i)
	}
	if status, b := c.do("GET", "/ui/api/runs?"+q[1:], ""); status != 200 {
		t.Fatalf("%d tags: %d %s", run.MaxQueryTags, status, b)
	}
	if status, b := c.do("GET", "/ui/api/runs?"+q[1:]+"&tag=one=more", ""); status != 422 || !strings.Contains(string(b), "at most 16") {
		t.Fatalf("%d tags: %d %s, want 422", run.MaxQueryTags+1, status, b)
	}
}

// L6: a run's life is its own: the request that started it ends, and the
// run goes on to its end; Close leaves a run that awaits awaiting, for the
// next process to restore.
func TestRunOutlivesItsRequest(t *testing.T) {
	s, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	id := c.run("POST", "/runs", create("slow_echo", "x", "async"), 202).RunID
	awaitStatus(t, s.Store(), id, run.StatusCompleted)
	hanging := c.run("POST", "/runs", create("awaiter", "x", "async"), 202).RunID
	awaitStatus(t, s.Store(), hanging, run.StatusAwaiting)
	s.Close()
	id = hanging
	sum, err := s.Store().Get(context.Background(), run.ID(id))
	if err != nil || sum.Status != run.StatusAwaiting {
		t.Fatalf("after Close the run is %s (%v), want awaiting", sum.Status, err)
	}
}

// blockingStore calls block before creating a run: a start that takes its
// time.
type blockingStore struct {
	run.Store
	block func()
}

func (b *blockingStore) Create(ctx context.Context, e run.Event) (run.Summary, bool, error) {
	b.block()
	return b.Store.Create(ctx, e)
}
