package agui_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// withTools is a RunAgentInput of the task and the front end's tools.
func withTools(t *testing.T, thread, task string, tools any, more ...map[string]any) string {
	t.Helper()
	msgs := []any{map[string]any{"id": "u1", "role": "user", "content": task}}
	for _, m := range more {
		msgs = append(msgs, m)
	}
	b, err := json.Marshal(map[string]any{"threadId": thread, "runId": "r1", "messages": msgs, "tools": tools})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Front-end tools that cannot be actions of the run are refused before
// it starts, each with what to fix; a tool message that answers no call
// awaiting the front end is refused too.
func TestClientToolsBadInput(t *testing.T) {
	_, ts := startAGUI(t)
	for _, tc := range []struct {
		name, body, want string
		status           int
	}{
		{"a name the agent's actions take", withTools(t, "t1", "Hi", []any{map[string]any{"name": "forecast", "description": "mine"}}), "rename the client's tool", 400},
		{"parameters not an object", withTools(t, "t1", "Hi", []any{map[string]any{"name": "book", "description": "d", "parameters": []int{1}}}), "parameters", 400},
		{"a name that is not an identifier", withTools(t, "t1", "Hi", []any{map[string]any{"name": "book-it", "description": "d"}}), "book-it", 400},
		{"a tool message nobody awaits", withTools(t, "t9", "Hi", nil, map[string]any{"id": "t1", "role": "tool", "toolCallId": "call_x", "content": "done"}), "awaits the result of tool call call_x", 409},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := postRaw(t, ts.URL+"/agui/echo", tc.body)
			if status != tc.status || !strings.Contains(body, tc.want) {
				t.Fatalf("status %d, body %q; want %d and %q", status, body, tc.status, tc.want)
			}
		})
	}
}

// postRaw sends a body to an endpoint and returns the status and the
// response's text.
func postRaw(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
