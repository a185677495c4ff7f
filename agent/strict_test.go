package agent_test

// Strict mode never breaks the request: a tool whose schema would break one
// of OpenAI's documented limits goes out without "strict", logged once at
// Warn with the reason, and the rest stay strict. Checked on the wire
// through byref's OpenAI client and openaitest's server.

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/internal/openaitest"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/variable"
)

// strictOnWire runs two runs of one agent over the wire and returns each
// tool's strict flag as the server saw it in the first request, and the log.
func strictOnWire(t *testing.T, actions *action.Set, vars []variable.Spec) (map[string]bool, string) {
	t.Helper()
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := openaitest.New(t, openaitest.Script(
		openaitest.Text("one"),
		openaitest.Text("two"),
	))
	m, err := llm.OpenWith("openai:gpt-4o-mini", llm.Config{BaseURL: srv.BaseURL(), APIKey: "k", HTTPClient: srv.Client(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	rt := newAgent(t, m, agent.Options{Actions: actions, Variables: vars, Logger: log})
	// Two runs of one agent: each builds its own schemas, and the agent
	// warns once per action.
	for range 2 {
		if o, err := rt.Run(context.Background(), agent.RunOptions{Task: "t"}); err != nil || !o.OK() {
			t.Fatalf("outcome %+v, %v", o, err)
		}
	}
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request")
	}
	strict := map[string]bool{}
	for _, tool := range reqs[0].Tools {
		strict[tool.Name] = tool.Strict
	}
	return strict, buf.String()
}

// Socket is a value that cannot be JSON (an unexported field), so parameters
// of its type take references only: their schemas list the compatible
// variables as an enum, which is what OpenAI's enum limits count.
type Socket struct{ fd int }

// vars returns n variables of value v's type, named with nameLen characters.
func vars(n, nameLen int, v func(i int) any) []variable.Spec {
	out := make([]variable.Spec, n)
	for i := range out {
		out[i] = variable.Spec{Name: fmt.Sprintf("v%0*d", max(nameLen-1, 4), i), Value: v(i)}
	}
	return out
}

func sockets(i int) any { return Socket{fd: i} }
func texts(i int) any   { return fmt.Sprint("s", i) }

// link has two reference-only parameters and an enum of its own.
var link = action.MustNew(action.Spec{
	Name: "link", Description: "Link two connections.", Func: func(a, b Socket, mode string) string { return mode },
	Params: []action.Param{{Name: "a"}, {Name: "b"}, {Name: "mode", Enum: []any{"copy", "move"}}},
})

// probe has one reference-only parameter.
var probe = action.MustNew(action.Spec{
	Name: "probe", Description: "Probe a connection.", Func: func(c Socket) int { return c.fd },
	Params: []action.Param{{Name: "c"}},
})

var noteAction = action.MustNew(action.Spec{
	Name: "note", Description: "Keep a note.", Func: func(text string) string { return text },
	Params: []action.Param{{Name: "text"}},
})

// Reference-only parameters take the reference pattern, not an enum of
// the compatible variables: a schema does not grow with the variables, so
// 1,000 of them, or 300 with 60-character names, break no limit of strict
// mode and change no byte of the tools.
func TestStrictWithManyVariables(t *testing.T) {
	for _, c := range []struct{ n, nameLen int }{{500, 5}, {1000, 5}, {300, 60}} {
		t.Run(fmt.Sprint(c.n, "x", c.nameLen), func(t *testing.T) {
			strict, log := strictOnWire(t, action.MustSet(link, probe, noteAction), vars(c.n, c.nameLen, sockets))
			if !strict["link"] || !strict["probe"] || !strict["note"] || !strict["terminate"] || log != "" {
				t.Errorf("strict %v, log %q; want every tool strict", strict, log)
			}
		})
	}
}

// String variables are offered through one reference pattern, not an
// enum: 1,000 of them break no limit.
func TestStrictWithManyStringVariables(t *testing.T) {
	strict, log := strictOnWire(t, action.MustSet(weatherAction, noteAction), vars(1000, 5, texts))
	if !strict["get_weather"] || !strict["note"] || !strict["terminate"] || log != "" {
		t.Errorf("strict %v, log %q", strict, log)
	}
}

type Link struct {
	URL   string `json:"url" jsonschema:"format=uri"`
	Email string `json:"email" jsonschema:"format=email"`
}

type Contact struct {
	Email string `json:"email" jsonschema:"format=email"`
	Seen  string `json:"seen" jsonschema:"format=date-time"`
}

func TestStrictWithFormatTags(t *testing.T) {
	save := action.MustNew(action.Spec{Name: "save_link", Description: "Save a link.", Func: func(l Link) string { return l.URL }, Params: []action.Param{{Name: "link", Whole: true}}})
	add := action.MustNew(action.Spec{Name: "add_contact", Description: "Add a contact.", Func: func(c Contact) string { return c.Email }, Params: []action.Param{{Name: "contact", Whole: true}}})
	strict, log := strictOnWire(t, action.MustSet(save, add), []variable.Spec{{Name: "city", Value: "Paris"}})
	if strict["save_link"] || !strict["add_contact"] {
		t.Errorf("strict %v; want save_link (format uri) non-strict, add_contact (email, date-time) strict", strict)
	}
	if !strings.Contains(log, `format \"uri\" is not supported`) && !strings.Contains(log, `format "uri" is not supported`) {
		t.Errorf("log %q does not give the reason", log)
	}
}
