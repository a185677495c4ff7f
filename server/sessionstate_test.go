package server_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/internal/sessiontest"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/sqlite"
	"github.com/byref/byref/server"
)

// chatServer serves the two-turn chat agent "chat" over store.
func chatServer(t *testing.T, store run.Store) client {
	t.Helper()
	opts := sessiontest.Agent()
	opts.Store = store
	rt, err := agent.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	_, ts := startServer(t, server.Options{Store: store, Agents: []server.Agent{{Name: "chat", Agent: rt}}})
	return client{t: t, base: ts.URL}
}

// say sends text to the chat agent in session and returns the answer.
func (c client) say(session, text string) string {
	c.t.Helper()
	var m map[string]any
	_ = json.Unmarshal([]byte(create("chat", text, "sync")), &m)
	m["session_id"] = session
	b, _ := json.Marshal(m)
	r := c.run("POST", "/runs", string(b), 200)
	if r.Status != "completed" {
		c.t.Fatalf("%q: %+v", text, r)
	}
	return r.text()
}

func TestSessionVariablesOverACP(t *testing.T) {
	const session = "5c1f7a4e-0d2b-4c6e-9a8f-1b2c3d4e5f60"
	path := filepath.Join(t.TempDir(), "runs.db")
	store, err := sqlite.Open(path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := chatServer(t, store)
	if out := c.say(session, "load the orders"); sessiontest.Failed(out) {
		t.Fatalf("turn 1: %s", out)
	}
	if out := c.say(session, "now only the late ones"); sessiontest.Failed(out) {
		t.Fatalf("turn 2 did not find orders: %s", out)
	}

	// GET /sessions/{id} names the state, which holds the variables.
	_, b := c.do("GET", "/sessions/"+session, "")
	var d struct{ State *string }
	if err := json.Unmarshal(b, &d); err != nil || d.State == nil || !strings.HasSuffix(*d.State, "/sessions/"+session+"/state") {
		t.Fatalf("session: %s", b)
	}
	status, b := c.do("GET", strings.TrimPrefix(*d.State, c.base), "")
	var state server.SessionState
	if err := json.Unmarshal(b, &state); status != 200 || err != nil {
		t.Fatalf("state: %d %s", status, b)
	}
	if v := state.Variables["orders"]; v.Type != "[]sessiontest.Order" || !strings.Contains(v.Preview, "{2, true}") {
		t.Errorf("state's orders: %+v (%s)", v, b)
	}
	if _, ok := state.Variables["db"]; !ok {
		t.Errorf("state has no db: %s", b)
	}
	if status, _ := c.do("GET", "/sessions/6c1f7a4e-0d2b-4c6e-9a8f-1b2c3d4e5f60/state", ""); status != 404 {
		t.Errorf("an unknown session's state: %d", status)
	}
	status, b = c.do("GET", "/ui/api/sessions/"+session, "")
	if status != 200 || !strings.Contains(string(b), `"orders":{"type":"[]sessiontest.Order"`) || !strings.Contains(string(b), `"text":"now only the late ones"`) {
		t.Errorf("ui session: %d %s", status, b)
	}

	// Another server process on the same store: orders come back from the
	// log, the live handle is named to the model as gone.
	c = chatServer(t, store)
	late, ping, _ := strings.Cut(c.say(session, "late and ping"), "\n")
	if sessiontest.Failed(late) || !strings.Contains(late, "{2, true}, {3, true}") {
		t.Errorf("after the restart, late_orders did not find orders: %s", late)
	}
	if !strings.Contains(ping, "needs a *sessiontest.DB variable") {
		t.Errorf("after the restart, ping_db found db: %s", ping)
	}
	runs, _, err := store.List(context.Background(), run.Query{Session: session, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	events, err := store.Read(context.Background(), runs[0].ID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if u, ok := e.Payload.(run.Usage); ok && u.System != "" && !strings.Contains(u.System, "Gone since an earlier turn (not usable):\n- db (*sessiontest.DB)") {
			t.Errorf("the model was not told db is gone:\n%s", u.System)
		}
	}
}

// The run inspector shows, beside a run, its session's variables: what
// the session's next run starts with.
func TestUISessionVariables(t *testing.T) {
	needChromium(t)
	const session = "7c1f7a4e-0d2b-4c6e-9a8f-1b2c3d4e5f60"
	c := chatServer(t, run.NewMemoryStore())
	c.say(session, "load the orders")
	var m map[string]any
	_ = json.Unmarshal([]byte(create("chat", "now only the late ones", "sync")), &m)
	m["session_id"] = session
	body, _ := json.Marshal(m)
	id := c.run("POST", "/runs", string(body), 200).RunID

	b := tab(t, c.base+"/ui#/runs/"+id)
	waitJS(t, b, "the session's variables", `document.querySelector('#session-vars li[data-session-var="late_orders_result"]')`)
	got := text(t, b, "#session")
	for _, want := range []string{"2 runs; its next run starts with these variables:", "orders []sessiontest.Order", "db *sessiontest.DB", "{2, true}, {3, true}"} {
		if !strings.Contains(got, want) {
			t.Errorf("the session panel does not say %q:\n%s", want, got)
		}
	}
	shot(t, b, "session")
}
