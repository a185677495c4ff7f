package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/browser"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/sqlite"
	"github.com/byref/byref/server"
	"github.com/byref/byref/variable"
)

// TestBrowserScreenshotIsOutput runs the browser's own browser_screenshot
// action on Chromium in an agent that declares no Outputs: the screenshot
// is an image/png part of the run's output, and the manifest says so.
func TestBrowserScreenshotIsOutput(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<!doctype html><title>shot</title><h1>Hello from a page</h1>")
	}))
	defer page.Close()
	b := tab(t, page.URL)
	rt, err := agent.New(agent.Options{
		Model:     callsThen(`browser_screenshot {"browser":"<<var:page>>","return":null}`),
		Actions:   browser.Actions(),
		Variables: []variable.Spec{{Name: "page", Value: b}},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, ts := startServer(t, server.Options{Agents: []server.Agent{{Name: "browsing", Agent: rt}}})
	c := client{t: t, base: ts.URL}

	_, body := c.do("GET", "/agents/browsing", "")
	var m struct {
		Output []string `json:"output_content_types"`
	}
	if err := json.Unmarshal(body, &m); err != nil || strings.Join(m.Output, ",") != "text/plain,application/json,image/png" {
		t.Fatalf("manifest output types = %v (%v): %s", m.Output, err, body)
	}
	r := c.run("POST", "/runs", create("browsing", "Take a screenshot.", "sync"), 200)
	if r.Status != "completed" {
		t.Fatalf("run = %+v", r)
	}
	var shot []byte
	for _, msg := range r.Output {
		for _, p := range msg.Parts {
			if p.ContentType == "image/png" {
				if shot, err = base64.StdEncoding.DecodeString(p.Content); err != nil {
					t.Fatal(err)
				}
				if p.Name != "browser_screenshot_result" {
					t.Errorf("the part is named %q, want the variable's name", p.Name)
				}
			}
		}
	}
	if w, h, ok := browser.Screenshot(shot).Size(); !ok || w != 1280 || h != 800 {
		t.Fatalf("the output holds no 1280×800 PNG (%d bytes, %d×%d)", len(shot), w, h)
	}
}

// TestInputPartsAsVariables checks the variables input parts become, and
// that a run awaiting with them is restored after a restart with them.
func TestInputPartsAsVariables(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "runs.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var seen []string
	model := llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		if len(afterTask(req)) == 0 {
			return llm.CallTool("ask_user", `{"question":"Which one?"}`), nil
		}
		seen = append(seen, req.Messages[0].Text)
		return llm.Text("done"), nil
	})
	newAgent := func() server.Agent {
		rt, err := agent.New(agent.Options{Model: model, Store: store, Actions: action.MustSet(), Variables: []variable.Spec{{Name: "photo", Value: "the agent's own"}}})
		if err != nil {
			t.Fatal(err)
		}
		return server.Agent{Name: "inputs", Agent: rt, InputContentTypes: []string{"text/plain", "image/*", "application/json"}}
	}
	s, ts := startServer(t, server.Options{Store: store, Agents: []server.Agent{newAgent()}})
	c := client{t: t, base: ts.URL}
	body, _ := json.Marshal(map[string]any{"agent_name": "inputs", "mode": "sync", "input": []any{map[string]any{"parts": []any{
		map[string]any{"content": "Look.", "content_type": "text/plain"},
		map[string]any{"name": "photo.png", "content": base64.StdEncoding.EncodeToString(tinyPNG), "content_type": "image/png", "content_encoding": "base64"},
		map[string]any{"content": base64.StdEncoding.EncodeToString([]byte("GIF89a")), "content_type": "image/gif", "content_encoding": "base64"},
		map[string]any{"name": "2026 orders.json", "content": `{"n":1}`, "content_type": "application/json"},
	}}}})
	r := c.run("POST", "/runs", string(body), 200)
	if r.Status != "awaiting" {
		t.Fatalf("run = %+v", r)
	}
	want := map[string]run.Artifact{
		"photo_2":           {Name: "photo.png", ContentType: "image/png", Content: tinyPNG},
		"input":             {ContentType: "image/gif", Content: []byte("GIF89a")},
		"input_2026_orders": {Name: "2026 orders.json", ContentType: "application/json", Content: []byte(`{"n":1}`)},
	}
	events, err := store.Read(ctx, run.ID(r.RunID), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	snap := run.Fold(events)
	for name, a := range want {
		v, ok := snap.Variable(name)
		if !ok {
			t.Fatalf("no variable %s in %+v", name, snap.Variables)
		}
		var got run.Artifact
		if err := json.Unmarshal(v.Value, &got); err != nil || got.Name != a.Name || got.ContentType != a.ContentType || string(got.Content) != string(a.Content) {
			t.Errorf("%s = %+v (%v), want %+v", name, got, err, a)
		}
		if v.Type != "run.Artifact" || !strings.Contains(v.Preview, a.ContentType) || strings.Contains(v.Preview, "GIF89a") {
			t.Errorf("%s: type %s, preview %q", name, v.Type, v.Preview)
		}
	}
	if v, _ := snap.Variable("photo"); string(v.Value) != `"the agent's own"` {
		t.Errorf("an input part replaced the agent's variable photo: %s", v.Value)
	}
	// The process stops; another restores the awaiting run with its
	// input variables, from the log alone.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, ts2 := startServer(t, server.Options{Store: store, Agents: []server.Agent{newAgent()}})
	if restored, _, err := s2.Recover(ctx); err != nil || len(restored) != 1 {
		t.Fatalf("Recover = %v, %v", restored, err)
	}
	c2 := client{t: t, base: ts2.URL}
	if r := c2.run("POST", "/runs/"+r.RunID, resume("this one", "sync"), 200); r.Status != "completed" {
		t.Fatalf("after the restart: %+v", r)
	}
	if len(seen) != 1 || !strings.Contains(seen[0], "photo_2") || !strings.Contains(seen[0], fmt.Sprintf("photo.png (image/png, %d bytes)", len(tinyPNG))) {
		t.Fatalf("the model did not see the restored input variables: %q", seen)
	}
}
