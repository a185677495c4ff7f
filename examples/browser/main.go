// Browser shows a browser held as a variable. The model starts Chromium
// with browser_start, which returns a *browser.Browser: a live object that
// cannot be JSON, so the model sees only its preview (Browser at
// http://… "Title") and passes it to the other browser actions as
// <<var:browser_start_result>>. Here it looks an order up on a local shop
// page: it reads a snapshot of the page (its fields and buttons with short
// IDs), types the order number, clicks Look up, reads the status, closes the
// browser and terminates with what it read. The progress lines come from the
// run's event log.
//
// It runs on llm.NewScripted, a model that plays back what a real model would
// send, so it needs no API key and no network: the page is an httptest
// server on 127.0.0.1, and the browser may reach nothing else. It needs
// Chromium (Debian's chromium package; scripts/install-chromium.sh installs
// it): go run ./examples/browser.
package main

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/browser"
	"github.com/byref/byref/llm"
	runlog "github.com/byref/byref/run"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "browser:", err)
		os.Exit(1)
	}
}

// orders are the shop's orders, by number.
var orders = map[string]string{"1041": "delivered on 3 March", "1042": "shipped on 12 March, arriving Friday"}

// shop serves a search form and the order pages it leads to.
func shop() *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Order lookup</title><h1>Where is my order?</h1>
<form action="/order"><label for="n">Order number</label> <input id="n" name="n"> <button>Look up</button></form>`)
	})
	mux.HandleFunc("GET /order", func(w http.ResponseWriter, r *http.Request) {
		n := r.FormValue("n")
		status, ok := orders[n]
		if !ok {
			status = "unknown"
		}
		fmt.Fprintf(w, `<!doctype html><title>Order %s</title><h1>Order %s</h1><p>Status: <span id="status">%s</span></p>`,
			html.EscapeString(n), html.EscapeString(n), html.EscapeString(status))
	})
	return httptest.NewServer(mux)
}

func run(ctx context.Context, w io.Writer) error {
	if _, err := browser.FindChromium(browser.Options{}); err != nil {
		return err
	}
	site := shop()
	defer site.Close()

	// What a model would send. (llm.Open("openai:gpt-4o-mini") would ask a
	// real one.) It names the browser by the variable browser_start's
	// response told it, and the field and button by the snapshot's IDs.
	const web = `"browser": "<<var:browser_start_result>>"`
	model := llm.NewScripted(
		llm.CallTool("browser_start", `{"url": "`+site.URL+`/", "return": null}`),
		llm.CallTool("browser_snapshot", `{`+web+`, "return": null}`),
		llm.CallTool("browser_type_id", `{`+web+`, "id": "e1", "text": "1042", "return": null}`),
		llm.CallTool("browser_click_id", `{`+web+`, "id": "e2", "return": null}`),
		llm.CallTool("browser_text", `{`+web+`, "selector": "#status", "return": null}`),
		llm.CallTool("browser_close", `{`+web+`, "return": null}`),
		llm.CallTool("terminate", `{"success": true, "result": "<<var:browser_text_result>>"}`),
	)
	a, err := agent.New(agent.Options{
		// LocalOnly: every host but 127.0.0.1 and localhost resolves to
		// nothing.
		Actions: browser.NewActions(browser.Options{LocalOnly: true}),
		Model:   model,
	})
	if err != nil {
		return err
	}
	// Before any browser exists, the model is offered browser_start only.
	fresh, err := a.NewState()
	if err != nil {
		return err
	}
	var offered []string
	for _, t := range fresh.Tools() {
		if strings.HasPrefix(t.Name, "browser_") || strings.HasPrefix(t.Name, "computer_") {
			offered = append(offered, t.Name)
		}
	}
	fmt.Fprintf(w, "browser actions offered at first: %s\n", strings.Join(offered, ", "))

	h, err := a.Start(ctx, agent.RunOptions{Task: "What is the status of order 1042 on the shop at " + site.URL + "?", Name: "order-status"})
	if err != nil {
		return err
	}
	// The host owns what the run started: close any browser left open.
	defer func() {
		for _, v := range h.State().Variables() {
			if b, ok := v.Value.(*browser.Browser); ok {
				b.Close()
			}
		}
	}()
	for e, err := range h.Events(ctx, 1) {
		if err != nil {
			return err
		}
		if line := progress(e); line != "" {
			fmt.Fprintln(w, line)
		}
	}
	o, err := h.Wait(ctx)
	if err != nil {
		return err
	}
	if !o.OK() {
		return errors.New("the run ended without a result: " + o.Reason)
	}
	status, err := agent.ResultAs[string](o)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s after %d steps: order 1042 is %s\n", o.Status, o.Steps, status)
	return nil
}

// progress describes one event in a line; "" skips it.
func progress(e runlog.Event) string {
	switch d := e.Payload.(type) {
	case runlog.ToolCallScheduled:
		return fmt.Sprintf("→ %s %s", d.Call.Name, d.Call.Arguments)
	case runlog.ToolCallCompleted:
		if !d.Success {
			return "  failed: " + d.Error
		}
		var parts []string
		if d.Stdout != "" {
			parts = append(parts, "  printed:\n    "+strings.ReplaceAll(strings.TrimSpace(d.Stdout), "\n", "\n    "))
		}
		for _, v := range append(d.Created, d.Modified...) {
			parts = append(parts, fmt.Sprintf("  %s = %s", v.Name, v.Preview))
		}
		return strings.Join(parts, "\n")
	case runlog.Result:
		return "result " + string(d.Value)
	}
	return ""
}
