package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/browser"
	"github.com/byref/byref/internal/pgtest"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
	"github.com/byref/byref/variable"
)

// The run inspector's tests: its JSON API over HTTP, and the page in a
// real headless Chromium (package browser) against an httptest server on
// 127.0.0.1. Each browser test saves screenshots in t.ArtifactDir(): run
// with -artifacts -outputdir DIR to keep them.

// uiProfiles is the parent of the test browsers' profile directories;
// TestMain fails the run when one is left.
var uiProfiles string

func TestMain(m *testing.M) {
	var err error
	uiProfiles, err = os.MkdirTemp("", "byref-server-ui-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := pgtest.Main(m) // stops the PostgreSQL server of the tests that started one
	if sharedBrowser.b != nil {
		_ = sharedBrowser.b.Close()
	}
	if entries, _ := os.ReadDir(uiProfiles); len(entries) > 0 {
		fmt.Fprintf(os.Stderr, "server: leak check failed: %d browser profile directories left in %s\n", len(entries), uiProfiles)
		code = 1
	}
	os.RemoveAll(uiProfiles)
	os.Exit(code)
}

// gatedModel calls note in its first step, then waits for its gate (or
// its context) before it answers "Released.".
type gatedModel struct{ gate chan struct{} }

func (m gatedModel) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	for _, msg := range afterTask(req) {
		if msg.Role == llm.RoleAssistant {
			select {
			case <-m.gate:
				return llm.Text("Released."), nil
			case <-ctx.Done():
				return llm.Response{}, ctx.Err()
			}
		}
	}
	r := llm.CallTool("note", `{"return":null}`)
	r.Text = "Taking a note first."
	return r, nil
}

// uiAgents are the test agents, with gated (which waits for gate) and
// hanger (whose model answers after a minute, or when cancelled).
func uiAgents(gate chan struct{}) []server.Agent {
	agents := testAgents(nil)
	store := agents[0].Agent.Store()
	return append(agents,
		scriptedAgent(store, "gated", gatedModel{gate}, agent.RunOptions{}),
		scriptedAgent(store, "hanger", slowModel{time.Minute}, agent.RunOptions{}),
	)
}

// startRun starts a run of the agent in async mode and returns its ID.
func (c client) startRun(agentName, text string) string {
	c.t.Helper()
	return c.run("POST", "/runs", create(agentName, text, "async"), 202).RunID
}

// waitStatus waits until the run has the status.
func waitStatus(t testing.TB, s *server.Server, id string, want run.Status) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		sum, err := s.Store().Get(context.Background(), run.ID(id))
		if err == nil && sum.Status == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s is %s (%v), want %s", id, sum.Status, err, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ---- The API.

func TestUIAPIListFilters(t *testing.T) {
	_, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	c.run("POST", "/runs", create("echo", "one", "sync"), 200)
	c.run("POST", "/runs", create("awaiter", "two", "sync"), 200)
	c.run("POST", "/runs", create("failer", "three", "sync"), 200)

	list := func(query string) []run.Summary {
		t.Helper()
		status, b := c.do("GET", "/ui/api/runs"+query, "")
		if status != 200 {
			t.Fatalf("GET /ui/api/runs%s: %d %s", query, status, b)
		}
		var l struct {
			Runs []run.Summary
			Next string
		}
		if err := json.Unmarshal(b, &l); err != nil {
			t.Fatal(err)
		}
		return l.Runs
	}
	if got := list(""); len(got) != 3 {
		t.Fatalf("all runs: %d, want 3", len(got))
	}
	if got := list("?status=awaiting"); len(got) != 1 || got[0].Tags[server.TagAgent] != "awaiter" {
		t.Fatalf("awaiting runs: %+v", got)
	}
	if got := list("?status=completed,failed"); len(got) != 2 {
		t.Fatalf("completed or failed runs: %+v", got)
	}
	if got := list("?tag=acp.agent%3Decho"); len(got) != 1 || got[0].Status != run.StatusCompleted {
		t.Fatalf("echo runs: %+v", got)
	}
	if got := list("?tag=acp.agent%3Decho&status=failed"); len(got) != 0 {
		t.Fatalf("failed echo runs: %+v", got)
	}
	if got := list("?limit=2"); len(got) != 2 {
		t.Fatalf("a page of 2: %d", len(got))
	}
	for _, bad := range []string{"?status=done", "?tag=novalue", "?limit=0", "?cursor=nonsense"} {
		if status, b := c.do("GET", "/ui/api/runs"+bad, ""); status != 422 || !strings.Contains(string(b), `"invalid_input"`) {
			t.Errorf("GET /ui/api/runs%s: %d %s, want 422", bad, status, b)
		}
	}
}

func TestUIAPIRunEventsAndReplay(t *testing.T) {
	_, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	id := c.run("POST", "/runs", create("echo", "Hello!", "sync"), 200).RunID

	// The sync response can come before the server's watcher has seen the
	// turn end and made the run followable: wait for it.
	var status int
	var b []byte
	var v struct {
		Snapshot run.Snapshot
		Can      struct {
			Resume, Cancel bool
			FollowUp       bool `json:"follow_up"`
		}
	}
	for range 500 { // a hang guard: the watcher takes microseconds
		status, b = c.do("GET", "/ui/api/runs/"+id, "")
		if status != 200 || json.Unmarshal(b, &v) != nil {
			t.Fatalf("GET run: %d %s", status, b)
		}
		if v.Can.FollowUp {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if v.Snapshot.Status != run.StatusCompleted || v.Snapshot.LastAssistantMessage != "Hello!" || v.Can.Resume || v.Can.Cancel || !v.Can.FollowUp {
		t.Fatalf("view: %s", b)
	}

	// The stream: every event from 1 as "id: N" and "data: {run.Event}",
	// then "event: end"; ?from= starts later.
	read := func(query string) (ids []int64, types []string, ended bool) {
		resp, err := http.Get(ts.URL + "/ui/api/runs/" + id + "/events" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
			t.Fatalf("content type %q", ct)
		}
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "data: {\"run\""):
				var e run.Event
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &e); err != nil {
					t.Fatalf("event %s: %v", line, err)
				}
				ids = append(ids, e.Seq)
				types = append(types, string(e.Type()))
			case line == "event: end":
				ended = true
			}
		}
		return ids, types, ended
	}
	ids, types, ended := read("")
	if !ended || len(ids) < 5 || ids[0] != 1 || types[0] != "run_created" {
		t.Fatalf("stream: ended %v, ids %v, types %v", ended, ids, types)
	}
	for i := range ids {
		if ids[i] != int64(i+1) {
			t.Fatalf("ids %v have a gap", ids)
		}
	}
	if later, _, ended := read("?from=3"); !ended || len(later) != len(ids)-2 || later[0] != 3 {
		t.Fatalf("from 3: %v", later)
	}
	if status, b := c.do("GET", "/ui/api/runs/"+id+"/events?from=zero", ""); status != 422 {
		t.Fatalf("from=zero: %d %s", status, b)
	}

	status, b = c.do("GET", "/ui/api/runs/"+id+"/replay", "")
	if status != 200 || !strings.Contains(string(b), "package main") || !strings.Contains(string(b), "func main()") {
		t.Fatalf("replay: %d %s", status, b)
	}
	resp, err := http.Get(ts.URL + "/ui/api/runs/" + id + "/replay?download=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := `attachment; filename=replay_` + strings.ReplaceAll(id, "-", "_") + `.go`
	if cd := resp.Header.Get("Content-Disposition"); cd != want {
		t.Fatalf("Content-Disposition %q, want %q", cd, want)
	}

	for _, path := range []string{"/ui/api/runs/" + strings.Repeat("0", 8) + "-0000-4000-8000-000000000000", "/ui/api/runs/nope/events"} {
		if status, b := c.do("GET", path, ""); status != 404 {
			t.Errorf("GET %s: %d %s, want 404", path, status, b)
		}
	}
	if status, b := c.do("GET", "/ui/api/runs/bad%20id", ""); status != 422 {
		t.Errorf("a bad ID: %d %s, want 422", status, b)
	}
}

// post sends a JSON body to an inspector endpoint.
func (c client) post(path, body string) (int, []byte) {
	c.t.Helper()
	req, _ := http.NewRequest("POST", c.base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = bufio.NewReader(resp.Body).WriteTo(&b)
	return resp.StatusCode, []byte(b.String())
}

func TestUIAPIActions(t *testing.T) {
	s, ts := startServer(t, server.Options{Agents: uiAgents(make(chan struct{}))})
	c := client{t: t, base: ts.URL}

	// Approval: a text answer does not fit; denying with a reason does.
	ap := c.run("POST", "/runs", create("approver", "hi", "sync"), 200).RunID
	if status, b := c.post("/ui/api/runs/"+ap+"/resume", `{"answer":{"text":"blue"}}`); status != 422 || !strings.Contains(string(b), "decision") {
		t.Fatalf("a text answer to an approval: %d %s", status, b)
	}
	if status, b := c.post("/ui/api/runs/"+ap+"/resume", `{"await_id":"other","answer":{"decision":"approved"}}`); status != 422 {
		t.Fatalf("another await's ID: %d %s", status, b)
	}
	if status, b := c.post("/ui/api/runs/"+ap+"/resume", `{"answer":{"decision":"approved","arguments":"{\"text\":\"edited\",\"return\":null}"}}`); status != 202 {
		t.Fatalf("approve with edited arguments: %d %s", status, b)
	}
	waitStatus(t, s, ap, run.StatusCompleted)
	if snap, _ := run.LoadSnapshot(context.Background(), s.Store(), run.ID(ap)); !strings.Contains(snap.LastAssistantMessage, "EDITED!") {
		t.Fatalf("after edited arguments: %q", snap.LastAssistantMessage)
	}
	if status, b := c.post("/ui/api/runs/"+ap+"/resume", `{"answer":{"decision":"approved"}}`); status != 409 {
		t.Fatalf("resume a completed run: %d %s", status, b)
	}
	if status, b := c.post("/ui/api/runs/"+ap+"/cancel", `{}`); status != 409 {
		t.Fatalf("cancel a completed run: %d %s", status, b)
	}

	// Follow-up: only a completed run, with text.
	if status, b := c.post("/ui/api/runs/"+ap+"/follow-up", `{"text":""}`); status != 422 {
		t.Fatalf("an empty follow-up: %d %s", status, b)
	}
	if status, b := c.post("/ui/api/runs/"+ap+"/follow-up", `{"text":"again"}`); status != 202 {
		t.Fatalf("follow-up: %d %s", status, b)
	}
	// The approver calls shout again, which awaits approval again.
	waitStatus(t, s, ap, run.StatusAwaiting)
	if status, b := c.post("/ui/api/runs/"+ap+"/follow-up", `{"text":"again"}`); status != 409 {
		t.Fatalf("follow-up of an awaiting run: %d %s", status, b)
	}
	if status, b := c.post("/ui/api/runs/"+ap+"/resume", `{"answer":{"decision":"denied","reason":"too loud"}}`); status != 202 {
		t.Fatalf("deny: %d %s", status, b)
	}
	waitStatus(t, s, ap, run.StatusCompleted)

	// Cancel a running run, twice.
	hang := c.startRun("hanger", "wait")
	waitStatus(t, s, hang, run.StatusRunning)
	for range 2 {
		if status, b := c.post("/ui/api/runs/"+hang+"/cancel", `{}`); status != 202 {
			t.Fatalf("cancel: %d %s", status, b)
		}
	}
	waitStatus(t, s, hang, run.StatusCanceled)

	// Guards: JSON only, not cross-site.
	req, _ := http.NewRequest("POST", ts.URL+"/ui/api/runs/"+hang+"/cancel", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "text/plain")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 415 {
		t.Fatalf("a text/plain POST: %v %v", resp.Status, err)
	}
	req, _ = http.NewRequest("GET", ts.URL+"/ui/api/runs", nil)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 403 {
		t.Fatalf("a cross-site GET: %v %v", resp.Status, err)
	}
	req, _ = http.NewRequest("GET", ts.URL+"/ui/api/runs", nil)
	req.Host = "attacker.example"
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 403 {
		t.Fatalf("a GET for another host without a token (DNS rebinding): %v %v", resp.Status, err)
	}
}

func TestUIAPIToken(t *testing.T) {
	_, ts := startServer(t, server.Options{Token: "s3cret"})
	get := func(path, token string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	// The page's files hold no data: served without the token, with a
	// strict Content-Security-Policy.
	for _, p := range []string{"/ui", "/ui/", "/ui/app.js", "/ui/app.css"} {
		resp := get(p, "")
		if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "script-src 'self'") {
			t.Errorf("GET %s: %s %q", p, resp.Status, resp.Header.Get("Content-Security-Policy"))
		}
	}
	if ct := get("/ui/app.js", "").Header.Get("Content-Type"); ct != "text/javascript; charset=utf-8" {
		t.Errorf("app.js is %q", ct)
	}
	for _, p := range []string{"/ui/api/runs", "/ui/other", "/ui/api/runs/x/events", "/runs/x"} {
		if resp := get(p, ""); resp.StatusCode != 401 {
			t.Errorf("GET %s without the token: %s, want 401", p, resp.Status)
		}
		if resp := get(p+"?token=s3cret", ""); resp.StatusCode != 401 {
			t.Errorf("GET %s with the token in the URL: %s, want 401", p, resp.Status)
		}
	}
	if resp := get("/ui/api/runs", "s3cret"); resp.StatusCode != 200 {
		t.Errorf("GET /ui/api/runs with the token: %s", resp.Status)
	}
}

// ---- The page, in Chromium.

var sharedBrowser struct {
	once sync.Once
	b    *browser.Browser
	err  error
}

// browserOpts are the options of every test browser: only 127.0.0.1 is
// reachable, profiles go where TestMain checks them.
func browserOpts() browser.Options {
	return browser.Options{LocalOnly: true, Timeout: 15 * time.Second, TempDir: uiProfiles}
}

// needChromium skips the test when Chromium is missing, or fails it in CI.
func needChromium(t testing.TB) {
	t.Helper()
	if _, err := browser.FindChromium(browserOpts()); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err) // the error names the install command

	}
}

// tab opens the URL in a new tab of the shared 1280×800 browser.
func tab(t *testing.T, url string) *browser.Browser {
	t.Helper()
	needChromium(t)
	sharedBrowser.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		sharedBrowser.b, sharedBrowser.err = browser.Start(ctx, browserOpts())
	})
	if sharedBrowser.err != nil {
		t.Fatal(sharedBrowser.err)
	}
	b, err := sharedBrowser.b.NewTab(ctxT(t), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitJS waits until the JavaScript expression is true in the page.
func waitJS(t *testing.T, b *browser.Browser, what, js string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, err := b.Eval(ctxT(t), "!!("+js+")")
		if err == nil && v == true {
			return
		}
		if time.Now().After(deadline) {
			body, _ := b.Text(ctxT(t), "body")
			shot(t, b, "timeout")
			t.Fatalf("waiting for %s (%s): %v; the page says:\n%s", what, js, err, body)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// text returns the text of the first element matching the selector.
func text(t *testing.T, b *browser.Browser, sel string) string {
	t.Helper()
	s, err := b.Text(ctxT(t), sel)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func click(t *testing.T, b *browser.Browser, sel string) {
	t.Helper()
	if err := b.Click(ctxT(t), sel); err != nil {
		t.Fatal(err)
	}
}

func typeIn(t *testing.T, b *browser.Browser, sel, s string) {
	t.Helper()
	if err := b.Type(ctxT(t), sel, s); err != nil {
		t.Fatal(err)
	}
}

// shot saves a screenshot of the page as NAME.png in the test's artifact
// directory.
func shot(t *testing.T, b *browser.Browser, name string) {
	t.Helper()
	png, err := b.Screenshot(ctxT(t))
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(t.ArtifactDir(), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Error(err)
		return
	}
	t.Logf("screenshot: %s", path)
}

// statusIs is the JavaScript condition that the open run shows the status.
func statusIs(st string) string {
	return fmt.Sprintf(`document.querySelector('#run-status [data-status="%s"]')`, st)
}

// eventWith is the condition that an event of the type whose text holds s
// is in the timeline.
func eventWith(typ, s string) string {
	return fmt.Sprintf(`[...document.querySelectorAll('#events li[data-type="%s"]')].some(li => li.innerText.includes(%q))`, typ, s)
}

func TestUIListsRuns(t *testing.T) {
	_, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	c.run("POST", "/runs", create("echo", "one", "sync"), 200)
	c.run("POST", "/runs", create("awaiter", "two", "sync"), 200)
	c.run("POST", "/runs", create("failer", "three", "sync"), 200)

	b := tab(t, ts.URL+"/ui")
	rows := `document.querySelectorAll('#runs tbody tr')`
	waitJS(t, b, "three runs", rows+`.length === 3`)
	list := text(t, b, "#runs")
	for _, want := range []string{"✓ completed", "‖ awaiting", "✗ failed", "acp.agent=echo", "acp.agent=awaiter"} {
		if !strings.Contains(list, want) {
			t.Errorf("the list lacks %q:\n%s", want, list)
		}
	}
	// Ages are relative: "just now", or a few seconds when Chromium was
	// slow to start on a loaded machine.
	if !strings.Contains(list, "just now") && !regexp.MustCompile(`\b\d+ s ago\b`).MatchString(list) {
		t.Errorf("the list shows no recent age:\n%s", list)
	}
	shot(t, b, "list-1280")

	// A run started after the page loaded appears.
	c.run("POST", "/runs", create("echo", "four", "sync"), 200)
	waitJS(t, b, "the new run", rows+`.length === 4`)

	// Filter by status, then by tag.
	if _, err := b.Eval(ctxT(t), `(() => { const s = document.querySelector('#f-status'); s.value = 'awaiting'; s.dispatchEvent(new Event('change')); })()`); err != nil {
		t.Fatal(err)
	}
	waitJS(t, b, "only the awaiting run", rows+`.length === 1 && document.querySelector('#runs tbody tr').dataset.status === 'awaiting'`)
	click(t, b, "#f-clear")
	waitJS(t, b, "every run again", rows+`.length === 4`)
	typeIn(t, b, "#f-tag", "acp.agent=echo")
	click(t, b, "#f-apply")
	waitJS(t, b, "the echo runs", rows+`.length === 2 && [...`+rows+`].every(r => r.innerText.includes('acp.agent=echo'))`)
	shot(t, b, "list-filtered")
	typeIn(t, b, "#f-tag", "acp.agent=nobody")
	click(t, b, "#f-apply")
	waitJS(t, b, "no run", rows+`.length === 0 && document.querySelector('#list-msg').innerText.includes('No run matches')`)
}

func TestUILiveEvents(t *testing.T) {
	gate := make(chan struct{})
	s, ts := startServer(t, server.Options{Agents: uiAgents(gate)})
	c := client{t: t, base: ts.URL}
	id := c.startRun("gated", "Take a note, then wait.")

	b := tab(t, ts.URL+"/ui#/runs/"+id)
	waitJS(t, b, "the note call, done", eventWith("tool_call_scheduled", "Tool call note")+` && `+eventWith("tool_call_scheduled", "✓ succeeded in"))
	waitJS(t, b, "the running status", statusIs("running"))
	if got := text(t, b, "#events"); !strings.Contains(got, "Take a note, then wait.") || !strings.Contains(got, "Taking a note first.") {
		t.Fatalf("the timeline lacks the task or the message:\n%s", got)
	}
	shot(t, b, "live-running")
	if _, err := b.Eval(ctxT(t), `window.notReloaded = true`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	close(gate)
	waitStatus(t, s, id, run.StatusCompleted)
	waitJS(t, b, "the last message", eventWith("assistant_message", "Released."))
	waitJS(t, b, "the completed status and the result", statusIs("completed")+` && document.querySelector('#result-value').innerText === 'Released.'`)
	t.Logf("the last events appeared %v after the run was released", time.Since(start).Round(time.Millisecond))
	if v, _ := b.Eval(ctxT(t), `window.notReloaded === true && document.querySelector('#result-value').innerText`); v != "Released." {
		t.Fatalf("the result shown live, without a reload: %v", v)
	}
	waitJS(t, b, "the cancel button gone", `document.querySelector('#cancel').hidden`)
	shot(t, b, "live-completed")
}

func TestUIApprove(t *testing.T) {
	s, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}

	t.Run("approve", func(t *testing.T) {
		id := c.startRun("approver", "hi")
		b := tab(t, ts.URL+"/ui#/runs/"+id)
		waitJS(t, b, "the approval form", `document.querySelector('#approve') && document.querySelector('#await-args').value.includes('"text": "hi"')`)
		if got := text(t, b, "#await"); !strings.Contains(got, "Approve this tool call?") || !strings.Contains(got, "shout") {
			t.Fatalf("the await panel:\n%s", got)
		}
		waitJS(t, b, "the awaiting status", statusIs("awaiting"))
		shot(t, b, "approve-pending")
		click(t, b, "#approve")
		waitStatus(t, s, id, run.StatusCompleted)
		waitJS(t, b, "the completed status", statusIs("completed"))
		waitJS(t, b, "the result", `document.querySelector('#result-value').innerText.includes('HI!')`)
		waitJS(t, b, "the answer in the timeline", eventWith("await_resolved", "approved"))
		if v, _ := b.Eval(ctxT(t), `document.querySelector('#await').hidden`); v != true {
			t.Fatal("the await panel is still shown")
		}
		if _, err := b.Eval(ctxT(t), `document.querySelector('#vars details').open = true`); err != nil {
			t.Fatal(err)
		}
		if got := text(t, b, "#vars"); !strings.Contains(got, "shout_result") || !strings.Contains(got, "created by call shout (step 1)") {
			t.Fatalf("the variables:\n%s", got)
		}
		shot(t, b, "approve-completed")
	})
	t.Run("edit", func(t *testing.T) {
		id := c.startRun("approver", "hi")
		b := tab(t, ts.URL+"/ui#/runs/"+id)
		waitJS(t, b, "the approval form", `document.querySelector('#await-args')`)
		typeIn(t, b, "#await-args", `{"text": "edited", "return": null}`)
		click(t, b, "#approve")
		waitJS(t, b, "the result", `document.querySelector('#result-value').innerText.includes('EDITED!')`)
		waitJS(t, b, "the edited arguments in the timeline", eventWith("await_resolved", `approved, with the arguments {"text":"edited","return":null}`))
		shot(t, b, "approve-edited")
	})
	t.Run("deny", func(t *testing.T) {
		id := c.startRun("approver", "hi")
		b := tab(t, ts.URL+"/ui#/runs/"+id)
		waitJS(t, b, "the approval form", `document.querySelector('#deny-reason')`)
		typeIn(t, b, "#deny-reason", "too loud")
		click(t, b, "#deny")
		waitStatus(t, s, id, run.StatusCompleted)
		waitJS(t, b, "the denial in the timeline", eventWith("await_resolved", "denied: too loud"))
		waitJS(t, b, "the failed call", eventWith("tool_call_scheduled", "✗ failed"))
		shot(t, b, "deny")
	})
	t.Run("bad-arguments", func(t *testing.T) {
		id := c.startRun("approver", "hi")
		b := tab(t, ts.URL+"/ui#/runs/"+id)
		waitJS(t, b, "the approval form", `document.querySelector('#await-args')`)
		typeIn(t, b, "#await-args", `{"text": `)
		click(t, b, "#approve")
		waitJS(t, b, "the error", `document.querySelector('#notice').innerText.includes('not JSON')`)
		if sum, _ := s.Store().Get(context.Background(), run.ID(id)); sum.Status != run.StatusAwaiting {
			t.Fatalf("the run is %s after bad arguments", sum.Status)
		}
	})
}

func TestUIQuestion(t *testing.T) {
	s, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	id := c.startRun("awaiter", "Hi")
	b := tab(t, ts.URL+"/ui#/runs/"+id)
	waitJS(t, b, "the question", `document.querySelector('#question') && document.querySelector('#question').innerText === 'What should I say?'`)
	typeIn(t, b, "#answer-text", "blue")
	shot(t, b, "question")
	click(t, b, "#answer-send")
	waitStatus(t, s, id, run.StatusCompleted)
	waitJS(t, b, "the answer's effect", eventWith("assistant_message", "You said")+` && `+eventWith("assistant_message", "blue"))
	waitJS(t, b, "the completed status", statusIs("completed"))
	shot(t, b, "question-answered")
}

func TestUICancel(t *testing.T) {
	s, ts := startServer(t, server.Options{Agents: uiAgents(make(chan struct{}))})
	c := client{t: t, base: ts.URL}
	id := c.startRun("hanger", "Wait a minute.")
	b := tab(t, ts.URL+"/ui#/runs/"+id)
	waitJS(t, b, "the running status", statusIs("running"))
	click(t, b, "#cancel")
	waitJS(t, b, "the confirmation", `!document.querySelector('#cancel-confirm').hidden`)
	shot(t, b, "cancel-confirm")
	click(t, b, "#cancel-confirm")
	waitStatus(t, s, id, run.StatusCanceled)
	waitJS(t, b, "the canceled status", statusIs("canceled"))
	waitJS(t, b, "the cancel button gone", `document.querySelector('#cancel').hidden`)
	shot(t, b, "cancelled")
}

func TestUIFollowUpAndReplay(t *testing.T) {
	s, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	id := c.run("POST", "/runs", create("echo", "Hello!", "sync"), 200).RunID
	b := tab(t, ts.URL+"/ui#/runs/"+id)
	waitJS(t, b, "the follow-up form", `!document.querySelector('#followup').hidden`)
	typeIn(t, b, "#followup-text", "Once more!")
	click(t, b, "#followup-send")
	waitJS(t, b, "the second answer", eventWith("assistant_message", "Once more!"))
	waitStatus(t, s, id, run.StatusCompleted)
	waitJS(t, b, "the completed status", statusIs("completed"))

	click(t, b, "#replay-show")
	waitJS(t, b, "the replay code", `document.querySelector('#replay-code').innerText.includes('package main')`)
	shot(t, b, "replay")
}

func TestUIToken(t *testing.T) {
	s, ts := startServer(t, server.Options{Token: "s3cret"})
	c := client{t: t, base: ts.URL, token: "s3cret"}
	id := c.startRun("approver", "hi")

	b := tab(t, ts.URL+"/ui#/runs/"+id)
	waitJS(t, b, "the token form", `!document.querySelector('#auth').hidden`)
	typeIn(t, b, "#token", "wrong")
	click(t, b, "#auth-submit")
	waitJS(t, b, "the refusal", `document.querySelector('#auth-error').innerText.includes('refused')`)
	shot(t, b, "token-refused")
	typeIn(t, b, "#token", "s3cret")
	click(t, b, "#auth-submit")
	waitJS(t, b, "the list", `document.querySelectorAll('#runs tbody tr').length === 1`)
	waitJS(t, b, "the approval form", `document.querySelector('#approve')`)
	click(t, b, "#approve")
	waitStatus(t, s, id, run.StatusCompleted)
	waitJS(t, b, "the completed status, streamed with the token", statusIs("completed")+` && `+eventWith("assistant_message", "HI!"))
	if v, _ := b.Eval(ctxT(t), `sessionStorage.getItem('byref.inspector.token') + ' ' + location.href`); v != "s3cret "+ts.URL+"/ui#/runs/"+id {
		t.Fatalf("token and URL: %v", v)
	}
	shot(t, b, "token-completed")
}

func TestUINarrow(t *testing.T) {
	needChromium(t)
	s, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	c.run("POST", "/runs", create("echo", "one", "sync"), 200)
	id := c.startRun("approver", "hi")
	waitStatus(t, s, id, run.StatusAwaiting)

	opts := browserOpts()
	opts.Width, opts.Height = 420, 800
	b, err := browser.Start(ctxT(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Goto(ctxT(t), ts.URL+"/ui"); err != nil {
		t.Fatal(err)
	}
	waitJS(t, b, "two runs as cards", `document.querySelectorAll('#runs tbody tr').length === 2 && getComputedStyle(document.querySelector('#runs tr')).display === 'block'`)
	if v, _ := b.Eval(ctxT(t), `document.documentElement.scrollWidth`); v != float64(420) {
		t.Errorf("the list is %v pixels wide in a 420-pixel window", v)
	}
	shot(t, b, "list-420")
	click(t, b, `#runs tbody tr[data-status="awaiting"] a`)
	waitJS(t, b, "the run alone", `document.querySelector('#approve') && getComputedStyle(document.querySelector('#list')).display === 'none'`)
	if v, _ := b.Eval(ctxT(t), `document.documentElement.scrollWidth`); v != float64(420) {
		t.Errorf("the run is %v pixels wide in a 420-pixel window", v)
	}
	shot(t, b, "run-420")
	click(t, b, `.back a`)
	waitJS(t, b, "the list again", `getComputedStyle(document.querySelector('#list')).display !== 'none'`)
}

func TestUISecretRedacted(t *testing.T) {
	const secret = "sk-very-secret-value"
	ag := server.Agent{Name: "keeper", Agent: must(agent.New(agent.Options{Model: echoModel, DisableSnippets: true,
		Variables: []variable.Spec{{Name: "api_key", Value: secret, Secret: true}, {Name: "city", Value: "Paris"}}}))}
	_, ts := startServer(t, server.Options{Agents: []server.Agent{ag}})
	c := client{t: t, base: ts.URL}
	id := c.run("POST", "/runs", create("keeper", "Hello!", "sync"), 200).RunID
	for _, path := range []string{"/ui/api/runs/" + id, "/ui/api/runs/" + id + "/events"} {
		if _, b := c.do("GET", path, ""); strings.Contains(string(b), secret) || !strings.Contains(string(b), "api_key") {
			t.Fatalf("GET %s shows the secret, or not the variable: %s", path, b)
		}
	}

	b := tab(t, ts.URL+"/ui#/runs/"+id)
	waitJS(t, b, "both variables", `document.querySelectorAll('#vars > li').length === 2`)
	if _, err := b.Eval(ctxT(t), `document.querySelectorAll('#vars details').forEach(d => d.open = true)`); err != nil {
		t.Fatal(err)
	}
	vars := text(t, b, "#vars")
	if !strings.Contains(vars, "api_key string secret, redacted") || !strings.Contains(vars, "Paris") || !strings.Contains(vars, "start: starting value — string: <secret string>") {
		t.Fatalf("the variables:\n%s", vars)
	}
	if page := text(t, b, "body"); strings.Contains(page, secret) {
		t.Fatalf("the page shows the secret:\n%s", page)
	}
	shot(t, b, "variables")
}

// A run the model refused shows why in the inspector: the failure kind and
// what the model said.
func TestUIRefusal(t *testing.T) {
	_, ts := startServer(t, server.Options{})
	c := client{t: t, base: ts.URL}
	r := c.run("POST", "/runs", create("refuser", "Hi", "sync"), 200)
	b := tab(t, ts.URL+"/ui#/runs/"+r.RunID)
	waitJS(t, b, "the failed status", statusIs("failed"))
	waitJS(t, b, "the failure kind and the refusal", `document.querySelector('#run-facts').innerText.includes('Failure kind') && document.querySelector('#run-facts').innerText.includes("I won't do that.")`)
	facts := text(t, b, "#run-facts")
	if !strings.Contains(facts, "refusal") {
		t.Errorf("facts:\n%s", facts)
	}
	shot(t, b, "refusal")
}

// writerModel streams its answers with pauses: in its first step, text,
// then a call of slow_work whose arguments stop halfway until gates[0];
// in its second, half a sentence, then the rest after gates[2]. (gates[1]
// releases slow_work.)
type writerModel struct{ gates [3]chan struct{} }

func (m writerModel) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	return m.Stream(ctx, req, func(llm.Chunk) error { return nil })
}

func (m writerModel) Stream(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
	wait := func(g chan struct{}) error {
		select {
		case <-g:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if len(afterTask(req)) == 0 {
		_ = fn(llm.Chunk{Text: "Calling the worker. "})
		_ = fn(llm.Chunk{ToolCall: &llm.ToolCall{ID: "call_w", Name: "slow_work"}})
		_ = fn(llm.Chunk{ToolCall: &llm.ToolCall{Arguments: `{"ret`}})
		if err := wait(m.gates[0]); err != nil {
			return llm.Response{}, err
		}
		_ = fn(llm.Chunk{ToolCall: &llm.ToolCall{Arguments: `urn":null}`}})
		return llm.Response{Text: "Calling the worker. ", ToolCalls: []llm.ToolCall{{ID: "call_w", Name: "slow_work", Arguments: `{"return":null}`}}, StopReason: llm.StopToolCalls}, nil
	}
	_ = fn(llm.Chunk{Text: "All done, "})
	if err := wait(m.gates[2]); err != nil {
		return llm.Response{}, err
	}
	_ = fn(llm.Chunk{Text: "thanks."})
	return llm.Text("All done, thanks."), nil
}

// TestUILiveText: the inspector shows the model's text as it is written,
// a call's arguments as they form, and an action's progress while it
// runs; each live entry gives way to the logged event.
func TestUILiveText(t *testing.T) {
	m := writerModel{[3]chan struct{}{make(chan struct{}), make(chan struct{}), make(chan struct{})}}
	slow := action.MustNew(action.Spec{Name: "slow_work", Description: "Work slowly.", Func: func(ctx context.Context) error {
		_ = agent.Progress(ctx, "halfway through the work")
		select {
		case <-m.gates[1]:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}})
	store := run.NewMemoryStore()
	rt, err := agent.New(agent.Options{Model: m, Store: store, Actions: action.MustSet(slow), DisableSnippets: true})
	if err != nil {
		t.Fatal(err)
	}
	s, ts := startServer(t, server.Options{Store: store, Agents: []server.Agent{{Name: "writer", Description: "Writes slowly.", Agent: rt}}})
	c := client{t: t, base: ts.URL}
	id := c.startRun("writer", "Work, then say so.")

	b := tab(t, ts.URL+"/ui#/runs/"+id)
	live := func(what, s string) string {
		return fmt.Sprintf(`[...document.querySelectorAll('#events li[data-type="delta"]')].some(li => li.innerText.includes(%q) && li.innerText.includes(%q))`, what, s)
	}
	waitJS(t, b, "the text as it is written", live("Assistant (writing…)", "Calling the worker."))
	waitJS(t, b, "the call's arguments as they form", live("Tool call slow_work (forming…)", `{"ret`))
	shot(t, b, "live-writing")
	close(m.gates[0])
	waitJS(t, b, "the call, scheduled, in place of its live entries", eventWith("tool_call_scheduled", "Tool call slow_work")+
		` && !document.querySelector('#events li[data-type="delta"]')`)
	waitJS(t, b, "the progress on the running call", eventWith("tool_call_scheduled", "halfway through the work"))
	shot(t, b, "live-progress")
	close(m.gates[1])
	waitJS(t, b, "the second answer's first half", live("Assistant (writing…)", "All done,"))
	if v, _ := b.Eval(ctxT(t), `[...document.querySelectorAll('#events li[data-type="delta"]')].some(li => li.innerText.includes('thanks.'))`); v == true {
		t.Fatal("the live text shows what the model has not written yet")
	}
	close(m.gates[2])
	waitStatus(t, s, id, run.StatusCompleted)
	waitJS(t, b, "the whole message, and no live entry", eventWith("assistant_message", "All done, thanks.")+` && !document.querySelector('#events li[data-type="delta"]')`)
	shot(t, b, "live-done")
}

// The inspector shows what the provider's prompt cache read and wrote, the
// reasoning tokens and the cost the provider reported, in the run's facts
// and in each usage event.
func TestUICacheUsage(t *testing.T) {
	model := llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		r := llm.Text("done")
		r.Usage = llm.Usage{InputTokens: 1000, OutputTokens: 7, CacheReadTokens: 900, CacheWriteTokens: 60, ReasoningTokens: 5, Cost: 0.00219855}
		return r, nil
	})
	ag := server.Agent{Name: "cached", Agent: must(agent.New(agent.Options{Model: model, DisableSnippets: true}))}
	_, ts := startServer(t, server.Options{Agents: []server.Agent{ag}})
	c := client{t: t, base: ts.URL}
	id := c.run("POST", "/runs", create("cached", "Hello!", "sync"), 200).RunID
	b := tab(t, ts.URL+"/ui#/runs/"+id)
	const want = "1000 in (900 read from the prompt cache, 60 written), 7 out (5 reasoning), $0.00219855 reported by the provider"
	waitJS(t, b, "the cache in the facts", `document.querySelector('#run-facts').innerText.includes('`+want+`')`)
	waitJS(t, b, "the cache in the usage event", `[...document.querySelectorAll('li[data-type=usage]')].some(li => li.innerText.includes('`+want+`'))`)
}
