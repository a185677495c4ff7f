// Command server serves a byref agent over the Agent Communication Protocol
// (ACP). The agent, "notes", keeps notes in a live Go value the model refers
// to by reference; adding a note needs a human's approval, which an ACP
// client gives by resuming the run. See README.md for a curl walk-through.
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
	"os"
	"os/signal"
	"strings"
	"sync"

	"github.com/byref/byref/action"
	"github.com/byref/byref/llm"
	_ "github.com/byref/byref/llm/providers"
	"github.com/byref/byref/runtime"
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

func (n *Notes) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return fmt.Sprintf("%d notes", len(n.items))
}

var actions = action.MustSet(
	action.MustNew(action.Spec{
		Name:          "add_note",
		Description:   "Add a note; returns how many notes there are.",
		Func:          func(notes *Notes, text string) int { return notes.add(text) },
		Params:        []action.Param{{Name: "notes"}, {Name: "text"}},
		NeedsApproval: true,
	}),
)

// scripted stands in for a model: it adds the task as a note, then reports.
var scripted = llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	switch last.Role {
	case llm.RoleTool:
		if strings.Contains(last.Text, `"success":false`) {
			return llm.Text("I did not add the note."), nil
		}
		return llm.Text("Noted."), nil
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
	flag.Parse()

	var model llm.Model = scripted
	if *modelSpec != "" {
		m, err := llm.Open(*modelSpec)
		if err != nil {
			log.Fatal(err)
		}
		model = m
	}
	notes := &Notes{} // shared by every run: the live value runs refer to

	agent, err := runtime.New(runtime.Options{
		Model: model, Actions: actions,
		Variables: []variable.Spec{{Name: "notes", Value: notes, Description: "the user's notes"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	s, err := server.New(server.Options{
		Token:  *token,
		Logger: slog.Default(),
		Agents: []server.Agent{{
			Name:        "notes",
			Description: "Keeps notes. Adding one needs your approval.",
			Runtime:     agent,
			Run:         runtime.RunOptions{Instructions: "Add what the user says as a note with add_note."},
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	log.Printf("serving the agent \"notes\" over ACP at http://%s", *addr)
	if err := s.ListenAndServe(ctx, *addr); err != nil {
		log.Fatal(err)
	}
}
