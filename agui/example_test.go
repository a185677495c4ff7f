package agui_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/agui"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/server"
)

// Serve a byref agent over AG-UI beside ACP, and read the events a front
// end gets for a run: the scripted model streams its text word by word.
func ExampleMount() {
	ag, _ := agent.New(agent.Options{Model: llm.NewScripted(llm.Text("Hello, AG-UI!"))})
	srv, _ := server.New(server.Options{Agents: []server.Agent{{
		Name: "echo", Description: "Says hello.", Agent: ag,
	}}})
	defer srv.Close()
	if _, err := agui.Mount(srv, agui.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	ts := httptest.NewServer(srv) // or srv.ListenAndServe(ctx, "127.0.0.1:8000")
	defer ts.Close()

	resp, err := http.Post(ts.URL+"/agui/echo", "application/json", strings.NewReader(
		`{"threadId":"t1","runId":"r1","messages":[{"id":"u1","role":"user","content":"Say hello"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	// How the text is cut into TEXT_MESSAGE_CONTENT events depends on
	// timing (a follower that falls behind gets pieces joined), so the
	// example prints the text whole at TEXT_MESSAGE_END.
	var text strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type, Delta string
			Outcome     *struct{ Type string }
		}
		_ = json.Unmarshal([]byte(data), &ev)
		switch {
		case ev.Type == "TEXT_MESSAGE_CONTENT":
			text.WriteString(ev.Delta)
		case ev.Type == "TEXT_MESSAGE_END":
			fmt.Printf("TEXT_MESSAGE_CONTENT… %q\n%s\n", text.String(), ev.Type)
		case ev.Outcome != nil:
			fmt.Println(ev.Type, ev.Outcome.Type)
		default:
			fmt.Println(ev.Type)
		}
	}
	// Output:
	// RUN_STARTED
	// STATE_SNAPSHOT
	// STEP_STARTED
	// TEXT_MESSAGE_START
	// TEXT_MESSAGE_CONTENT… "Hello, AG-UI!"
	// TEXT_MESSAGE_END
	// STEP_FINISHED
	// MESSAGES_SNAPSHOT
	// RUN_FINISHED success
}
