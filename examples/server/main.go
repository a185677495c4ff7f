// Command server serves a byref agent over the Agent Communication Protocol
// (ACP). The agent, "notes", keeps notes in a live Go value the model refers
// to by reference; adding a note needs a human's approval, which an ACP
// client gives by resuming the run, and it exports the notes as a CSV
// artifact. Runs are recorded in a SQLite file: stopping the server (Ctrl-C
// or SIGTERM) leaves awaiting runs awaiting, and they can be resumed after
// a restart. See README.md for a curl walk-through.
//
//	go run ./examples/server                       # scripted model, no API key
//	go run ./examples/server -model openai:gpt-4o-mini
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	_ "github.com/byref/byref/llm/providers"
	"github.com/byref/byref/run"
	"github.com/byref/byref/run/sqlite"
	"github.com/byref/byref/server"
	"github.com/byref/byref/variable"
)

// Notes is the host object the agent works on; the model never copies it.
type Notes struct {
	mu    sync.Mutex
	items []string
}

func (n *Notes) add(text string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.items = append(n.items, text)
	return len(n.items)
}

// csv returns the notes as a CSV artifact: ACP clients see it as a named
// part of the run's output.
func (n *Notes) csv() run.Artifact {
	n.mu.Lock()
	defer n.mu.Unlock()
	var b strings.Builder
	b.WriteString("n,note\n")
	for i, it := range n.items {
		fmt.Fprintf(&b, "%d,%q\n", i+1, it)
	}
	return run.Artifact{Name: "notes.csv", ContentType: "text/csv", Content: []byte(b.String())}
}

func (n *Notes) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return fmt.Sprintf("%d notes", len(n.items))
}

var actions = action.MustSet(
	action.MustNew(action.Spec{
		Name:        "export_notes",
		Description: "Export the notes as a CSV file, shown to the user.",
		Func:        func(notes *Notes) run.Artifact { return notes.csv() },
		Params:      []action.Param{{Name: "notes"}},
	}),
	action.MustNew(action.Spec{
		Name:          "add_note",
		Description:   "Add a note; returns how many notes there are.",
		Func:          func(notes *Notes, text string) int { return notes.add(text) },
		Params:        []action.Param{{Name: "notes"}, {Name: "text"}},
		NeedsApproval: true,
	}),
)

// scripted stands in for a model: it adds the task as a note and exports
// the notes, or, asked to "export", only exports them; then it reports.
var scripted = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	switch last.Role {
	case llm.RoleTool:
		switch {
		case strings.Contains(last.Text, `"success":false`):
			return llm.Text("I did not add the note."), nil
		case strings.Contains(last.Text, "export_notes_result"):
			return llm.Text("Here are your notes."), nil
		}
		return llm.CallTool("export_notes", `{"notes":"<<var:notes>>","return":null}`), nil
	}
	if strings.TrimSpace(last.Text) == "export" {
		return llm.CallTool("export_notes", `{"notes":"<<var:notes>>","return":null}`), nil
	}
	text, _ := jsonString(last.Text)
	return llm.CallTool("add_note", `{"notes":"<<var:notes>>","text":`+text+`,"return":null}`), nil
})

func jsonString(s string) (string, error) {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String(), nil
}

func main() {
	addr := flag.String("addr", server.DefaultAddr, "address to listen on; non-loopback addresses need -token")
	token := flag.String("token", os.Getenv("BYREF_TOKEN"), "bearer token clients must send")
	modelSpec := flag.String("model", "", `model as "provider:name"; empty for the scripted stand-in`)
	db := flag.String("db", "notes-runs.db", "the SQLite file runs are recorded in")
	flag.Parse()

	var model llm.Model = scripted
	if *modelSpec != "" {
		m, err := llm.Open(*modelSpec)
		if err != nil {
			log.Fatal(err)
		}
		model = m
	}
	store, err := sqlite.Open(*db, sqlite.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close() // after the server: Close flushes the log
	notes := &Notes{}   // shared by every run: the live value runs refer to

	ag, err := agent.New(agent.Options{
		Model: model, Actions: actions, Store: store,
		Variables: []variable.Spec{{Name: "notes", Value: notes, Description: "the user's notes"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	s, err := server.New(server.Options{
		Token:  *token,
		Store:  store,
		Logger: slog.Default(),
		Agents: []server.Agent{{
			Name:               "notes",
			Description:        "Keeps notes. Adding one needs your approval.",
			Agent:              ag,
			Run:                agent.RunOptions{Instructions: "Add what the user says as a note with add_note, then export the notes."},
			OutputContentTypes: []string{"text/plain", "application/json", "text/csv"},
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	// Runs a previous process left awaiting go on; runs it left in a step
	// (it crashed) are marked interrupted.
	restored, interrupted, err := s.Recover(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	if len(restored)+len(interrupted) > 0 {
		log.Printf("%d runs awaiting before the restart go on; %d interrupted runs are marked failed", len(restored), len(interrupted))
	}
	// SIGTERM too: what service managers and kill send.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("serving the agent \"notes\" over ACP at http://%s (inspector at http://%s/ui/, runs in %s)", ln.Addr(), ln.Addr(), *db)
	if err := s.Serve(ctx, ln); err != nil {
		log.Fatal(err)
	}
	log.Print("stopped; awaiting runs stay awaiting until the next start")
}
