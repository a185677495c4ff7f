// Command agui serves a byref agent to front ends over AG-UI, on a
// scripted model (no API key, no network beyond 127.0.0.1), and walks
// through what a front end sees: the run's events, its variables as
// shared state (the secret one hidden), an approval as an interrupt, and
// the resumed run.
//
//	go run ./examples/agui
//
// With -serve it stays up for a front end built on @ag-ui/client (an
// HttpAgent whose url is http://127.0.0.1:8322/agui/weather):
//
//	go run ./examples/agui -serve 127.0.0.1:8322
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"strings"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/agui"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/server"
	"github.com/byref/byref/variable"
)

// weatherModel calls forecast (which needs approval) on the city
// variable, then says what it returned.
var weatherModel = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool {
			return llm.Text("Here is the forecast: " + m.Text), nil
		}
	}
	return llm.CallTool("forecast", `{"city":"<<var:city>>","return":null}`), nil
})

var actions = action.MustSet(action.MustNew(action.Spec{
	Name: "forecast", Description: "The forecast for a city.", NeedsApproval: true, Params: []action.Param{{Name: "city"}},
	Func: func(ctx context.Context, city string) string {
		_ = agent.Progress(ctx, "asking the weather service")
		return "sunny in " + city
	},
}))

// newServer returns the ACP server with the weather agent, AG-UI mounted.
func newServer() (*server.Server, error) {
	ag1, err := agent.New(agent.Options{Model: weatherModel, Actions: actions, DisableSnippets: true,
		Variables: []variable.Spec{{Name: "city", Value: "Lyon"}, {Name: "api_key", Value: "sk-not-for-front-ends", Secret: true}}})
	if err != nil {
		return nil, err
	}
	srv, err := server.New(server.Options{Agents: []server.Agent{{Name: "weather", Description: "Says the weather.", Agent: ag1}}})
	if err != nil {
		return nil, err
	}
	if _, err := agui.Mount(srv, agui.Options{}); err != nil {
		srv.Close()
		return nil, err
	}
	return srv, nil
}

// walk runs the agent as a front end would, printing what it sees.
func walk(out io.Writer) error {
	srv, err := newServer()
	if err != nil {
		return err
	}
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()

	in := `{"threadId":"thread-1","runId":"ui-run-1","messages":[{"id":"u1","role":"user","content":"Weather?"}]}`
	last, err := post(out, ts.URL+"/agui/weather", in)
	if err != nil {
		return err
	}
	var outcome struct {
		Interrupts []struct{ ID, Message string } `json:"interrupts"`
	}
	if err := json.Unmarshal(last["outcome"], &outcome); err != nil || len(outcome.Interrupts) != 1 {
		return fmt.Errorf("the run did not pause for the approval: %s (%v)", last["outcome"], err)
	}
	it := outcome.Interrupts[0]
	fmt.Fprintf(out, "the front end approves %s\n", it.ID[strings.Index(it.ID, "/")+1:])
	resume, _ := json.Marshal(map[string]any{"threadId": "thread-1", "runId": "ui-run-2", "messages": []any{},
		"resume": []any{map[string]any{"interruptId": it.ID, "status": "resolved", "payload": map[string]any{"decision": "approved"}}}})
	_, err = post(out, ts.URL+"/agui/weather", string(resume))
	return err
}

// post sends a RunAgentInput and prints the events of the stream, one
// line each; it returns the last.
func post(out io.Writer, url, body string) (map[string]json.RawMessage, error) {
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var last map[string]json.RawMessage
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		last = map[string]json.RawMessage{}
		if err := json.Unmarshal([]byte(data), &last); err != nil {
			return nil, err
		}
		var typ string
		_ = json.Unmarshal(last["type"], &typ)
		line := typ
		for _, k := range []string{"delta", "toolCallName", "content", "snapshot", "outcome"} {
			if v, ok := last[k]; ok {
				line += " " + k + "=" + string(v)
			}
		}
		if len(line) > 160 {
			line = line[:160] + "…"
		}
		fmt.Fprintln(out, line)
	}
	return last, sc.Err()
}

func main() {
	addr := flag.String("serve", "", "serve on this address (e.g. 127.0.0.1:8322) until Ctrl-C")
	flag.Parse()
	if *addr == "" {
		if err := walk(os.Stdout); err != nil {
			log.Fatal(err)
		}
		return
	}
	srv, err := newServer()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("AG-UI: POST http://%s/agui/weather\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := srv.Serve(ctx, ln); err != nil {
		log.Fatal(err)
	}
}
