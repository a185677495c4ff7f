package browser_test

// End-to-end runs through the agent loop: a scripted model drives browsers
// held in variables, against local httptest pages.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/browser"
	"github.com/byref/byref/interp"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// shop is a small site: a login form that posts to the server, a table, and
// three pages linked in a row.
type shop struct {
	*httptest.Server
	mu     sync.Mutex
	logins []string // "user:password" of every POST /login
}

const shopPassword = "s3cr3t-Tr0ub4dor"

func newShop(t testing.TB) *shop {
	t.Helper()
	s := &shop{}
	mux := http.NewServeMux()
	page := func(path, body string) {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		})
	}
	page("/login", `<!doctype html><title>Log in</title>
<form method="post" action="/login">
<label for="user">User</label> <input id="user" name="user">
<label for="password">Password</label> <input id="password" name="password" type="password">
<button type="submit">Log in</button>
</form>`)
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		user, pw := r.PostFormValue("user"), r.PostFormValue("password")
		s.mu.Lock()
		s.logins = append(s.logins, user+":"+pw)
		s.mu.Unlock()
		if pw != shopPassword {
			http.Redirect(w, r, "/login?failed=1", http.StatusSeeOther)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "session", Value: user, Path: "/"})
		http.Redirect(w, r, "/account", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /account", func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie("session")
		if err != nil {
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Account</title><h1 id="welcome">Welcome back, %s</h1><p>Balance: 42.00</p>`, c.Value)
	})
	page("/prices", `<!doctype html><title>Prices</title>
<table id="prices"><thead><tr><th>Item</th><th>Price</th><th>Stock</th></tr></thead>
<tbody><tr><td>Apple</td><td>1.20</td><td>14</td></tr><tr><td>Pear</td><td>0.80</td><td>0</td></tr><tr><td>Quince</td><td>2.75</td><td>3</td></tr></tbody></table>`)
	for i := 1; i <= 3; i++ {
		next := ""
		if i < 3 {
			next = fmt.Sprintf(`<a id="next" href="/p%d">Go to page %d</a>`, i+1, i+1)
		}
		page(fmt.Sprintf("/p%d", i), fmt.Sprintf(`<!doctype html><title>Page %d</title><h1>Page %d</h1>%s`, i, i, next))
	}
	page("/errors", `<!doctype html><title>Errors</title><h1>Errors</h1>`)
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// Row is a row of the prices table, a host type that snippets build.
type Row struct {
	Item  string
	Price float64
	Stock int
}

// rowSymbols lets snippets name Row as shop.Row.
var rowSymbols = interp.Exports{"example.com/shop/shop": {"Row": reflect.ValueOf((*Row)(nil))}}

// agent returns a runtime with every browser action, the browser symbols
// for snippets and the given variables, on model.
func newAgent(t testing.TB, model llm.Model, vars ...variable.Spec) *agent.Agent {
	t.Helper()
	rt, err := agent.New(agent.Options{
		Actions:     browser.NewActions(testOptions()),
		Model:       model,
		Variables:   vars,
		Snippets:    interp.Options{Symbols: []interp.Exports{browser.Symbols, rowSymbols}},
		CallTimeout: 15 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// runTask runs task on rt and returns its outcome and its state; the
// browsers the run started are closed when the test ends.
func runTask(t testing.TB, rt *agent.Agent, task string) (agent.Outcome, *agent.State) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	h, err := rt.Start(ctx, agent.RunOptions{Task: task})
	if err != nil {
		t.Fatal(err)
	}
	st := h.State()
	t.Cleanup(func() {
		for _, v := range st.Variables() {
			if b, ok := v.Value.(*browser.Browser); ok && b != nil {
				b.Close()
			}
		}
	})
	o, err := h.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return o, st
}

// toolResults returns the tool results and snippet results the model was
// sent, in order.
func toolResults(model *llm.Scripted) []string {
	reqs := model.Requests()
	if len(reqs) == 0 {
		return nil
	}
	var out []string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == llm.RoleTool || strings.HasPrefix(m.Text, "Results of your Go code") {
			out = append(out, m.Text)
		}
	}
	return out
}

func offered(req llm.Request) []string {
	var names []string
	for _, tool := range req.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// A login form is filled and submitted with the password held in a secret
// variable. The server gets the password; the model never sees it, in any
// message, tool schema or tool result of any request.
func TestAgentLoginWithSecret(t *testing.T) {
	needChromiumT(t)
	s := newShop(t)
	model := llm.NewScripted(
		llm.CallTool("browser_start", `{"url": "`+s.URL+`/login", "return": null}`),
		llm.CallTool("browser_snapshot", `{"browser": "<<var:browser_start_result>>", "return": null}`),
		llm.CallTool("browser_type_id", `{"browser": "<<var:browser_start_result>>", "id": "e1", "text": "ann", "return": null}`),
		llm.CallTool("browser_type", `{"browser": "<<var:browser_start_result>>", "selector": "#password", "text": "<<var:password>>", "return": null}`),
		llm.CallTool("browser_snapshot", `{"browser": "<<var:browser_start_result>>", "return": "browser_snapshot_result"}`),
		llm.CallTool("browser_click", `{"browser": "<<var:browser_start_result>>", "selector": "button[type=submit]", "return": null}`),
		llm.CallTool("browser_wait", `{"browser": "<<var:browser_start_result>>", "selector": "#welcome", "timeout_seconds": 5, "return": null}`),
		llm.CallTool("browser_text", `{"browser": "<<var:browser_start_result>>", "selector": "#welcome", "return": null}`),
		llm.CallTool("terminate", `{"success": true, "result": "<<var:browser_text_result>>"}`),
	)
	rt := newAgent(t, model, variable.Spec{Name: "password", Value: shopPassword, Secret: true, Description: "The shop password of ann."})
	o, st := runTask(t, rt, "Log in to the shop as ann and tell me the greeting.")
	// The browser was given the secret, so what it reads afterwards is
	// tainted: the result stays with the host, which reads it in Go.
	if o.Status != run.StatusCompleted || !o.Redacted || o.ResultVariable != "browser_text_result" {
		t.Fatalf("outcome = %+v (%s)\nresults: %s", o, o.Result, strings.Join(toolResults(model), "\n"))
	}
	if greeting, err := agent.Value[string](st, o.ResultVariable); err != nil || greeting != "Welcome back, ann" {
		t.Fatalf("the host reads %q, %v", greeting, err)
	}
	if got := s.logins; !slices.Equal(got, []string{"ann:" + shopPassword}) {
		t.Errorf("the server got logins %q", got)
	}
	results := toolResults(model)
	if !strings.Contains(results[1], `textbox \"User\"`) || !strings.Contains(results[4], `derived from a secret`) {
		t.Errorf("the snapshots before and after typing the secret: %s\n%s", results[1], results[4])
	}
	for i, req := range model.Requests() {
		raw, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(raw), shopPassword) {
			t.Errorf("request %d sent the secret to the model: %s", i, raw)
		}
	}
	b, err := agent.Value[*browser.Browser](st, "browser_start_result")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(b.URL(), "/account") || b.Title() != "Account" {
		t.Errorf("the browser is at %s %q", b.URL(), b.Title())
	}
}

// A page that reads back what was typed, transformed (a prompt injection
// would ask for exactly this), shows the model nothing of the secret: the
// browser is tainted once the secret is typed into it, and so is all it
// reads.
func TestAgentSecretReadBack(t *testing.T) {
	needChromiumT(t)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /echo", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Echo</title><input id="f" oninput="document.getElementById('out').textContent = btoa(this.value.split('').reverse().join('')) + ' ' + this.value.toUpperCase()"><p id="out"></p>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	model := llm.NewScripted(
		llm.CallTool("browser_goto", `{"browser": "<<var:web>>", "url": "`+srv.URL+`/echo", "return": null}`),
		llm.CallTool("browser_type", `{"browser": "<<var:web>>", "selector": "#f", "text": "<<var:password>>", "return": null}`),
		llm.CallTool("browser_text", `{"browser": "<<var:web>>", "selector": "#out", "return": null}`),
		llm.CallTool("browser_eval", `{"browser": "<<var:web>>", "js": "document.getElementById('f').value.split('').reverse().join('')", "return": null}`),
		llm.CallTool("browser_snapshot", `{"browser": "<<var:web>>", "return": null}`),
		llm.Response{Text: "```go\nfmt.Println(browser_text_result)\n```"},
		llm.CallTool("terminate", `{"success": true, "result": "<<var:browser_text_result>>"}`),
	)
	rt := newAgent(t, model, variable.Spec{Name: "web", Value: sharedTab(t)},
		variable.Spec{Name: "password", Value: shopPassword, Secret: true})
	o, st := runTask(t, rt, "Type the password and read it back.")
	if o.Status != run.StatusCompleted || !o.Redacted {
		t.Fatalf("outcome = %+v\nresults: %s", o, strings.Join(toolResults(model), "\n"))
	}
	read, _ := agent.Value[string](st, "browser_text_result")
	if !strings.Contains(read, strings.ToUpper(shopPassword)) {
		t.Fatalf("the page did not echo the secret (%q): the test proves nothing", read)
	}
	reversed := []rune(shopPassword)
	slices.Reverse(reversed)
	for i, req := range model.Requests() {
		raw, _ := json.Marshal(req)
		for _, form := range []string{shopPassword, strings.ToUpper(shopPassword), string(reversed), base64.StdEncoding.EncodeToString([]byte(string(reversed)))[:12]} {
			if strings.Contains(string(raw), form) {
				t.Errorf("request %d shows %q", i+1, form)
			}
		}
	}
}

// The model follows links across three pages and goes back.
func TestAgentNavigation(t *testing.T) {
	needChromiumT(t)
	s := newShop(t)
	model := llm.NewScripted(
		llm.CallTool("browser_goto", `{"browser": "<<var:web>>", "url": "`+s.URL+`/p1", "return": null}`),
		llm.CallTool("browser_click", `{"browser": "<<var:web>>", "selector": "#next", "return": null}`),
		llm.CallTool("browser_snapshot", `{"browser": "<<var:web>>", "return": null}`),
		llm.CallTool("browser_click_id", `{"browser": "<<var:web>>", "id": "e1", "return": null}`),
		llm.CallTool("browser_text", `{"browser": "<<var:web>>", "selector": "h1", "return": null}`),
		llm.CallTool("browser_back", `{"browser": "<<var:web>>", "return": null}`),
		llm.CallTool("browser_text", `{"browser": "<<var:web>>", "selector": "h1", "return": null}`),
		llm.Response{Text: "```go\nfmt.Println(web.URL(), web.Title(), browser_text_result, browser_text_result_2)\n```"},
		llm.CallTool("terminate", `{"success": true, "result": "<<var:browser_text_result_2>>"}`),
	)
	rt := newAgent(t, model, variable.Spec{Name: "web", Value: sharedTab(t)})
	o, _ := runTask(t, rt, "Walk to the last page, then go back one page.")
	results := toolResults(model)
	if o.Status != run.StatusCompleted || string(o.Result) != `"Page 2"` {
		t.Fatalf("outcome = %+v (%s)\nresults: %s", o, o.Result, strings.Join(results, "\n"))
	}
	wants := []string{
		`"preview":"Browser tab at ` + s.URL + `/p1 \"Page 1\""`,
		`"preview":"Browser tab at ` + s.URL + `/p2 \"Page 2\""`,
		`e1 link \"Go to page 3\"`,
		`"preview":"Browser tab at ` + s.URL + `/p3 \"Page 3\""`,
		`"name":"browser_text_result","type":"string","preview":"Page 3"`,
		`"preview":"Browser tab at ` + s.URL + `/p2 \"Page 2\""`,
		`"name":"browser_text_result_2","type":"string","preview":"Page 2"`,
		s.URL + `/p2 Page 2 Page 3 Page 2`,
	}
	if len(results) != len(wants) {
		t.Fatalf("%d results, want %d:\n%s", len(results), len(wants), strings.Join(results, "\n"))
	}
	for i, want := range wants {
		if !strings.Contains(results[i], want) {
			t.Errorf("result %d = %s\nwant it to contain %s", i, results[i], want)
		}
	}
}

// A snippet drives the browser through its methods and scrapes a table into
// a typed []Row, which stays a variable of the host type.
func TestAgentScrapeTableIntoRows(t *testing.T) {
	needChromiumT(t)
	s := newShop(t)
	snippet := "```go\n" + `import "strconv"

first, err := web.Text(ctx, "th")
if err != nil {
	panic(err)
}
cells, err := web.Eval(ctx, "[...document.querySelectorAll('#prices tbody tr')].map(r => [...r.cells].map(c => c.innerText))")
if err != nil {
	panic(err)
}
var rows []shop.Row
for _, c := range cells.([]any) {
	cs := c.([]any)
	// yaegi v0.16.1 loses "x, err := f()" in a block of top-level code
	// (see the report of issue 7): declare first, then assign.
	var price float64
	var stock int
	if price, err = strconv.ParseFloat(cs[1].(string), 64); err != nil {
		panic(err)
	}
	if stock, err = strconv.Atoi(cs[2].(string)); err != nil {
		panic(err)
	}
	rows = append(rows, shop.Row{Item: cs[0].(string), Price: price, Stock: stock})
}
var snap *browser.Snapshot
snap, err = web.Snapshot(ctx)
if err != nil {
	panic(err)
}
fmt.Println(first, len(rows), rows[2].Item, snap.Title)
` + "```"
	model := llm.NewScripted(
		llm.CallTool("browser_goto", `{"browser": "<<var:web>>", "url": "`+s.URL+`/prices", "return": null}`),
		llm.Response{Text: "I will read the table in Go.\n" + snippet},
		llm.CallTool("terminate", `{"success": true, "result": "<<var:rows>>"}`),
	)
	rt := newAgent(t, model, variable.Spec{Name: "web", Value: sharedTab(t)})
	o, st := runTask(t, rt, "Read the price table.")
	results := toolResults(model)
	if o.Status != run.StatusCompleted {
		t.Fatalf("outcome = %+v\nresults: %s", o, strings.Join(results, "\n"))
	}
	want := []Row{{"Apple", 1.2, 14}, {"Pear", 0.8, 0}, {"Quince", 2.75, 3}}
	rows, err := agent.Value[[]Row](st, "rows")
	if err != nil || !slices.Equal(rows, want) {
		t.Errorf("rows = %#v, %v", rows, err)
	}
	var got []Row
	if err := json.Unmarshal(o.Result, &got); err != nil || !slices.Equal(got, want) {
		t.Errorf("result = %s, %v", o.Result, err)
	}
	if !strings.Contains(results[1], `Item 3 Quince Prices`) || !strings.Contains(results[1], `"name":"rows","type":"[]browser_test.Row"`) {
		t.Errorf("snippet result = %s", results[1])
	}
}

// A screenshot is returned as a variable; the model sees its preview, never
// its bytes.
func TestAgentScreenshotVariable(t *testing.T) {
	needChromiumT(t)
	s := newShop(t)
	model := llm.NewScripted(
		llm.CallTool("browser_goto", `{"browser": "<<var:web>>", "url": "`+s.URL+`/prices", "return": null}`),
		llm.CallTool("browser_screenshot", `{"browser": "<<var:web>>", "return": null}`),
		llm.CallTool("computer_screenshot", `{"browser": "<<var:web>>", "return": null}`),
		llm.CallTool("terminate", `{"success": true, "result": "done"}`),
	)
	rt := newAgent(t, model, variable.Spec{Name: "web", Value: sharedTab(t)})
	o, st := runTask(t, rt, "Take a screenshot of the prices.")
	results := toolResults(model)
	if !o.OK() {
		t.Fatalf("outcome = %+v\nresults: %s", o, strings.Join(results, "\n"))
	}
	for i, name := range []string{"browser_screenshot_result", "computer_screenshot_result"} {
		shot, err := agent.Value[browser.Screenshot](st, name)
		if err != nil {
			t.Fatal(err)
		}
		if w, h, ok := shot.Size(); !ok || w != 1280 || h != 800 {
			t.Errorf("%s: %d×%d %v", name, w, h, ok)
		}
		want := `"name":"` + name + `","type":"browser.Screenshot","preview":"PNG 1280×800"`
		if r := results[i+1]; !strings.Contains(r, want) || len(r) > 300 {
			t.Errorf("result %d = %s\nwant it short, with %s", i+1, r, want)
		}
	}
}

// A JavaScript exception fails that call with the exception's message; the
// run goes on.
func TestAgentJavaScriptException(t *testing.T) {
	needChromiumT(t)
	s := newShop(t)
	model := llm.NewScripted(
		llm.CallTool("browser_goto", `{"browser": "<<var:web>>", "url": "`+s.URL+`/errors", "return": null}`),
		llm.CallTool("browser_eval", `{"browser": "<<var:web>>", "js": "document.querySelector('#missing').click()", "return": null}`),
		llm.CallTool("browser_eval", `{"browser": "<<var:web>>", "js": "(() => { throw new RangeError('quota exceeded: 7') })()", "return": null}`),
		llm.CallTool("browser_eval", `{"browser": "<<var:web>>", "js": "Promise.reject(new Error('rejected later'))", "return": null}`),
		llm.CallTool("browser_eval", `{"browser": "<<var:web>>", "js": "document.title", "return": null}`),
		llm.CallTool("terminate", `{"success": true, "result": "<<var:browser_eval_result>>"}`),
	)
	rt := newAgent(t, model, variable.Spec{Name: "web", Value: sharedTab(t)})
	o, _ := runTask(t, rt, "Try some scripts.")
	results := toolResults(model)
	if o.Status != run.StatusCompleted || string(o.Result) != `"Errors"` {
		t.Fatalf("outcome = %+v (%s)\nresults: %s", o, o.Result, strings.Join(results, "\n"))
	}
	for i, want := range []string{"TypeError", "RangeError: quota exceeded: 7", "rejected later"} {
		r := results[i+1]
		if !strings.Contains(r, `"success":false`) || !strings.Contains(r, want) {
			t.Errorf("result %d = %s\nwant a failure with %q", i+1, r, want)
		}
	}
}

// A selector that never appears fails that call within the step's deadline,
// with a message naming the selector; the run goes on with the same browser.
func TestAgentSelectorNeverAppears(t *testing.T) {
	needChromiumT(t)
	s := newShop(t)
	model := llm.NewScripted(
		llm.CallTool("browser_goto", `{"browser": "<<var:web>>", "url": "`+s.URL+`/p1", "return": null}`),
		llm.CallTool("browser_wait", `{"browser": "<<var:web>>", "selector": "#never", "timeout_seconds": 0.5, "return": null}`),
		llm.CallTool("browser_click", `{"browser": "<<var:web>>", "selector": ".also-never", "return": null}`),
		llm.CallTool("browser_text", `{"browser": "<<var:web>>", "selector": "h1", "return": null}`),
		llm.CallTool("terminate", `{"success": true, "result": "<<var:browser_text_result>>"}`),
	)
	rt, err := agent.New(agent.Options{
		Actions:     browser.NewActions(testOptions()),
		Model:       model,
		Variables:   []variable.Spec{{Name: "web", Value: sharedTab(t)}},
		CallTimeout: 1500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	o, _ := runTask(t, rt, "Wait for things that never come.")
	results := toolResults(model)
	if o.Status != run.StatusCompleted || string(o.Result) != `"Page 1"` {
		t.Fatalf("outcome = %+v (%s)\nresults: %s", o, o.Result, strings.Join(results, "\n"))
	}
	for i, sel := range []string{"#never", ".also-never"} {
		r := results[i+1]
		if !strings.Contains(r, `"success":false`) || !strings.Contains(r, sel) || !strings.Contains(r, "timed out") {
			t.Errorf("result %d = %s\nwant a timeout naming %s", i+1, r, sel)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the run took %v", d)
	}
}

// With the browser actions and no browser variable, the model is offered
// every browser action from the first request on (a run's tool list does
// not change, so that a prompt cache keeps it); a browser action called
// before a browser exists fails with a message that says how to get one;
// once browser_start made one, the same actions work.
func TestAgentAvailability(t *testing.T) {
	needChromiumT(t)
	s := newShop(t)
	model := llm.NewScripted(
		llm.CallTool("browser_goto", `{"browser": "<<var:web>>", "url": "`+s.URL+`/p1", "return": null}`),
		llm.CallTool("browser_start", `{"url": "`+s.URL+`/p1", "return": null}`),
		llm.CallTool("browser_close", `{"browser": "<<var:browser_start_result>>", "return": null}`),
		llm.CallTool("terminate", `{"success": true, "result": "ok"}`),
	)
	rt := newAgent(t, model)
	o, st := runTask(t, rt, "Open page 1.")
	results := toolResults(model)
	if !o.OK() {
		t.Fatalf("outcome = %+v\nresults: %s", o, strings.Join(results, "\n"))
	}
	reqs := model.Requests()
	first := offered(reqs[0])
	if !slices.Contains(first, "browser_start") {
		t.Errorf("browser_start is not offered: %v", first)
	}
	if !strings.Contains(results[0], `"success":false`) || !strings.Contains(results[0], "browser_start") {
		t.Errorf("calling browser_goto without a browser: %s", results[0])
	}
	after := offered(reqs[2])
	for _, a := range browser.NewActions(testOptions()).All() {
		if !slices.Contains(after, a.Name()) {
			t.Errorf("%s is not offered once a browser exists: %v", a.Name(), after)
		}
	}
	if !slices.Equal(first, after) {
		t.Errorf("the tool list changed during the run:\n%v\n%v", first, after)
	}
	b, err := agent.Value[*browser.Browser](st, "browser_start_result")
	if err != nil || !b.Closed() {
		t.Errorf("the browser the run started: %v, %v", b, err)
	}
}
