package agui_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/byref/byref/agui"
	"github.com/byref/byref/internal/sessiontest"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
)

// ChatState is the state a client of the chat agent may send.
type ChatState struct {
	Limit int `json:"limit"`
}

// startChat serves the two-turn chat agent "chat" over AG-UI, with
// ChatState declared.
func startChat(t testing.TB) *httptest.Server {
	t.Helper()
	store := run.NewMemoryStore()
	s, err := server.New(server.Options{Store: store, Agents: []server.Agent{chatAgent(store)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := agui.Mount(s, agui.Options{State: map[string]reflect.Type{"chat": reflect.TypeFor[ChatState]()}}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		ts.Close()
		s.Close()
	})
	return ts
}

// chatInput is a RunAgentInput on thread "chat-1" with the messages'
// texts (user, assistant, user, …) and state.
func chatInput(state any, texts ...string) string {
	var msgs []any
	for i, text := range texts {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, map[string]any{"id": "m" + itoa(i), "role": role, "content": text})
	}
	b, _ := json.Marshal(map[string]any{"threadId": "chat-1", "runId": "r" + itoa(len(texts)), "messages": msgs, "state": state})
	return string(b)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// snapshotVariables returns the variables of a stream's STATE_SNAPSHOT.
func snapshotVariables(t *testing.T, evs []map[string]any) map[string]any {
	t.Helper()
	for _, e := range evs {
		if e["type"] == "STATE_SNAPSHOT" {
			return e["snapshot"].(map[string]any)["variables"].(map[string]any)
		}
	}
	t.Fatalf("no STATE_SNAPSHOT in %s", types(evs))
	return nil
}

// said returns the text the run's messages said.
func said(evs []map[string]any) string {
	var b strings.Builder
	for _, e := range evs {
		if e["type"] == "TEXT_MESSAGE_CONTENT" {
			b.WriteString(e["delta"].(string))
		}
	}
	return b.String()
}

// TestThreadKeepsVariables: the second run of a thread starts with the
// variables the first left, which its STATE_SNAPSHOT shows, and the state
// the client sends becomes variables of the declared types.
func TestThreadKeepsVariables(t *testing.T) {
	ts := startChat(t)
	status, evs := post(t, ts.URL+"/agui/chat", chatInput(map[string]any{"limit": 2}, "load the orders"))
	if status != 200 || sessiontest.Failed(said(evs)) {
		t.Fatalf("turn 1: %d %s", status, said(evs))
	}
	if v := snapshotVariables(t, evs); len(v) != 1 || v["limit"].(map[string]any)["type"] != "int" {
		t.Errorf("turn 1's snapshot: %v", v)
	}
	// The client sends back the state it holds, as @ag-ui/client does.
	echoed := map[string]any{"variables": map[string]any{"orders": map[string]any{"type": "[]sessiontest.Order", "preview": "…"}}}
	status, evs = post(t, ts.URL+"/agui/chat", chatInput(echoed, "load the orders", said(evs), "now only the late ones"))
	if status != 200 || sessiontest.Failed(said(evs)) || !strings.Contains(said(evs), "{2, true}, {3, true}") {
		t.Fatalf("turn 2 did not find orders: %d %s", status, said(evs))
	}
	v := snapshotVariables(t, evs)
	for _, name := range []string{"orders", "db", "limit"} {
		if _, ok := v[name]; !ok {
			t.Errorf("turn 2's STATE_SNAPSHOT has no %s: %v", name, v)
		}
	}
	if types(evs)[:len("RUN_STARTED STATE_SNAPSHOT")] != "RUN_STARTED STATE_SNAPSHOT" {
		t.Errorf("events: %s", types(evs))
	}
}

// TestUndeclaredState: state the agent does not declare, or of another
// type, is refused with the declared keys.
func TestUndeclaredState(t *testing.T) {
	ts := startChat(t)
	for _, c := range []struct {
		state any
		want  string
	}{
		{map[string]any{"color": "red"}, `state key "color" is not one agent chat declares (limit (int))`},
		{map[string]any{"limit": "two"}, `state key "limit"`},
		{[]int{1}, "state is not a JSON object"},
	} {
		resp, err := http.Post(ts.URL+"/agui/chat", "application/json", strings.NewReader(chatInput(c.state, "load the orders")))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(body), c.want) {
			t.Errorf("state %v: %d %q, want 400 and %q", c.state, resp.StatusCode, body, c.want)
		}
	}
}
