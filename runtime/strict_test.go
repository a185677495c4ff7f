package runtime_test

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
	"github.com/byref/byref/internal/openaitest"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/runtime"
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
	m, err := llm.OpenWith("openai:gpt-4o-mini", llm.Options{BaseURL: srv.BaseURL(), APIKey: "k", HTTPClient: srv.Client(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	rt := newAgent(t, m, runtime.Options{Actions: actions, Variables: vars, Logger: log})
	// Two runs of one agent: each builds its own schemas, and the agent
	// warns once per action.
	for range 2 {
		if o, err := rt.Run(context.Background(), runtime.RunOptions{Task: "t"}); err != nil || !o.OK() {
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

// link has two reference-only parameters and an enum of its own: with n
// Socket variables its schema holds 2n+2 enum values (1,002 at 500).
var link = action.MustNew(action.Spec{
	Name: "link", Description: "Link two connections.", Func: func(a, b Socket, mode string) string { return mode },
	Params: []action.Param{{Name: "a"}, {Name: "b"}, {Name: "mode", Enum: []any{"copy", "move"}}},
})

// probe has one reference-only parameter: n enum values.
var probe = action.MustNew(action.Spec{
	Name: "probe", Description: "Probe a connection.", Func: func(c Socket) int { return c.fd },
	Params: []action.Param{{Name: "c"}},
})

var noteAction = action.MustNew(action.Spec{
	Name: "note", Description: "Keep a note.", Func: func(text string) string { return text },
	Params: []action.Param{{Name: "text"}},
})

func TestStrictWithManyVariables(t *testing.T) {
	for _, n := range []int{500, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			strict, log := strictOnWire(t, action.MustSet(link, probe, noteAction), vars(n, 5, sockets))
			if strict["link"] {
				t.Errorf("link went out strict with %d enum values", 2*n+2)
			}
			// probe's n values are within the limit of 1,000.
			if !strict["probe"] || !strict["note"] || !strict["terminate"] {
				t.Errorf("strict %v: one breaking tool must not take the others with it", strict)
			}
			if got := strings.Count(log, "level=WARN"); got != 1 || !strings.Contains(log, "action=link") || !strings.Contains(log, fmt.Sprintf("%d enum values in all", 2*n+2)) {
				t.Errorf("%d warnings, want 1 naming link and the limit:\n%s", got, log)
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

// 300 Socket variables with 60-character names: 300 references of 68
// characters, 20,400 characters in one enum, above the 15,000 allowed past
// 250 values.
func TestStrictWithLongNames(t *testing.T) {
	strict, log := strictOnWire(t, action.MustSet(probe, noteAction), vars(300, 60, sockets))
	if strict["probe"] || !strict["note"] || !strict["terminate"] {
		t.Errorf("strict %v; want probe non-strict, the rest strict", strict)
	}
	if !strings.Contains(log, "characters; above 250 values the limit is 15000") {
		t.Errorf("log %q does not give the reason", log)
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
