package agui_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/byref/byref/run"
)

// post sends a RunAgentInput to an agent and returns the status and the
// events of the stream.
func post(t *testing.T, url, body string) (int, []map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var ev map[string]any
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				t.Fatalf("%v: %s", err, data)
			}
			out = append(out, ev)
		}
	}
	return resp.StatusCode, out
}

func input(text string) string {
	b, _ := json.Marshal(map[string]any{"threadId": "t1", "runId": "r1", "messages": []any{map[string]any{"id": "u1", "role": "user", "content": text}}})
	return string(b)
}

func types(evs []map[string]any) string {
	var b []string
	for _, e := range evs {
		b = append(b, e["type"].(string))
	}
	return strings.Join(b, " ")
}

func TestProgressIsAnActivity(t *testing.T) {
	_, ts := startAGUI(t)
	status, evs := post(t, ts.URL+"/agui/weather", input("Weather?"))
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	found := false
	for _, e := range evs {
		if e["type"] == "ACTIVITY_SNAPSHOT" {
			found = e["content"].(map[string]any)["message"] == "asking the weather service"
		}
	}
	if !found {
		t.Fatalf("no progress activity in %s: %v", types(evs), evs)
	}
}

// TestBadInput: a request the endpoint cannot serve gets a 4xx whose text
// names the fix, and starts nothing.
func TestBadInput(t *testing.T) {
	s, ts := startAGUI(t)
	for _, c := range []struct {
		name, agent, body string
		status            int
		want              string
	}{
		{"not json", "echo", `{`, 400, "not a RunAgentInput"},
		{"no thread", "echo", `{"runId":"r","messages":[]}`, 400, "threadId must be"},
		{"no task", "echo", `{"threadId":"t","runId":"r","messages":[{"id":"a","role":"assistant","content":"hi"}]}`, 400, "no user message"},
		{"foreign interrupt", "echo", `{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"nope","status":"resolved"}]}`, 400, "not one this server sent"},
		{"unknown run", "echo", `{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"01a2/x","status":"resolved"}]}`, 404, "no run"},
		{"two entries", "echo", `{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"a/b","status":"resolved"},{"interruptId":"a/c","status":"resolved"}]}`, 400, "one answer at a time"},
	} {
		resp, err := http.Post(ts.URL+"/agui/"+c.agent, "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			b.WriteString(sc.Text())
		}
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(b.String(), c.want) {
			t.Errorf("%s: %d %q, want %d and %q", c.name, resp.StatusCode, b.String(), c.status, c.want)
		}
	}
	runs, _, err := s.Store().List(t.Context(), run.Query{})
	if err != nil || len(runs) != 0 {
		t.Errorf("bad input started %d runs (%v)", len(runs), err)
	}
}

// TestBadAnswer: a payload that does not answer the interrupt is refused,
// and the run still awaits.
func TestBadAnswer(t *testing.T) {
	_, ts := startAGUI(t)
	_, evs := post(t, ts.URL+"/agui/approver", input("Shout"))
	fin := evs[len(evs)-1]
	it := fin["outcome"].(map[string]any)["interrupts"].([]any)[0].(map[string]any)
	body, _ := json.Marshal(map[string]any{"threadId": "t1", "runId": "r2", "messages": []any{},
		"resume": []any{map[string]any{"interruptId": it["id"], "status": "resolved", "payload": map[string]any{"decision": "maybe"}}}})
	status, _ := post(t, ts.URL+"/agui/approver", string(body))
	if status != 400 {
		t.Fatalf("status %d, want 400", status)
	}
	body, _ = json.Marshal(map[string]any{"threadId": "t1", "runId": "r3", "messages": []any{},
		"resume": []any{map[string]any{"interruptId": it["id"], "status": "resolved", "payload": "approve"}}})
	status, evs = post(t, ts.URL+"/agui/approver", string(body))
	if status != 200 || evs[len(evs)-1]["outcome"].(map[string]any)["type"] != "success" {
		t.Fatalf("after a good answer: %d %s", status, types(evs))
	}
}
