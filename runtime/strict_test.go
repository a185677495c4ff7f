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

func stringVars(n, nameLen int) []variable.Spec {
	vars := make([]variable.Spec, n)
	for i := range vars {
		name := fmt.Sprintf("v%0*d", max(nameLen-1, 4), i)
		vars[i] = variable.Spec{Name: name, Value: "x"}
	}
	return vars
}

var noteAction = action.MustNew(action.Spec{
	Name: "note", Description: "Keep a note.", Func: func(text string) string { return text },
	Params: []action.Param{{Name: "text"}},
})

func TestStrictWithManyVariables(t *testing.T) {
	for _, n := range []int{500, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			// get_weather's unit has two enum values of its own; with n
			// string variables its location and unit offer n references
			// each.
			strict, log := strictOnWire(t, action.MustSet(weatherAction, noteAction), stringVars(n, 5))
			if strict["get_weather"] {
				t.Error("get_weather went out strict with more than 1,000 enum values")
			}
			if !strict["terminate"] {
				t.Error("terminate lost strict mode: one breaking tool must not take the others with it")
			}
			// note offers n references for its text and n for its
			// result: strict at 500 (1,000 values), not at 1,000.
			breaking := 1
			if n == 1000 {
				breaking = 2
			}
			if strict["note"] != (n == 500) {
				t.Errorf("note strict = %v with %d variables", strict["note"], n)
			}
			if got := strings.Count(log, "level=WARN"); got != breaking || !strings.Contains(log, "action=get_weather") || !strings.Contains(log, "enum values in all") {
				t.Errorf("%d warnings, want %d, each naming its action and the limit:\n%s", got, breaking, log)
			}
		})
	}
}

func TestStrictWithFewVariablesStaysStrict(t *testing.T) {
	strict, log := strictOnWire(t, action.MustSet(weatherAction), stringVars(10, 5))
	if !strict["get_weather"] || !strict["terminate"] || log != "" {
		t.Errorf("strict %v, log %q", strict, log)
	}
}

// 300 variables of 60-character names: 300 references of 68 characters,
// 20,400 characters in one enum, above the 15,000 allowed past 250 values.
func TestStrictWithLongNames(t *testing.T) {
	strict, log := strictOnWire(t, action.MustSet(noteAction), stringVars(300, 60))
	// terminate and ask_user offer the same references; run_go none.
	if strict["note"] || strict["terminate"] || !strict["run_go"] {
		t.Errorf("strict %v; want note and terminate non-strict, run_go strict", strict)
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
	save := action.MustNew(action.Spec{Name: "save_link", Description: "Save a link.", Func: func(l Link) string { return l.URL }, Params: []action.Param{{Name: "link"}}})
	add := action.MustNew(action.Spec{Name: "add_contact", Description: "Add a contact.", Func: func(c Contact) string { return c.Email }, Params: []action.Param{{Name: "contact"}}})
	strict, log := strictOnWire(t, action.MustSet(save, add), []variable.Spec{{Name: "city", Value: "Paris"}})
	if strict["save_link"] || !strict["add_contact"] {
		t.Errorf("strict %v; want save_link (format uri) non-strict, add_contact (email, date-time) strict", strict)
	}
	if !strings.Contains(log, `format \"uri\" is not supported`) && !strings.Contains(log, `format "uri" is not supported`) {
		t.Errorf("log %q does not give the reason", log)
	}
}
