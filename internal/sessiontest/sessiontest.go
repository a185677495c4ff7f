// Package sessiontest is the two-turn chat that tests of sessions run over
// Go and every protocol: the first message loads a table of orders (and
// opens a live database handle), the next one filters the table by
// reference. Its model is scripted from the task's words, so that each
// protocol's test drives it with plain messages.
package sessiontest

import (
	"strings"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
)

// Order is a row of the table.
type Order struct {
	ID   int  `json:"id"`
	Late bool `json:"late"`
}

// DB is a live handle: unexported state, so it travels by reference only
// and its value is never in a log.
type DB struct{ conn int }

// Conn is the handle's connection number.
func (db *DB) Conn() int { return db.conn }

// NewDB returns a handle on connection n, as a host re-binds one.
func NewDB(n int) *DB { return &DB{conn: n} }

// Actions are load_orders (makes orders), late_orders (takes orders by
// reference), open_db (makes db, live) and ping_db (takes db).
var Actions = action.MustSet(
	action.MustNew(action.Spec{Name: "load_orders", Description: "Load the orders.",
		Func: func() []Order { return []Order{{1, false}, {2, true}, {3, true}} }}),
	action.MustNew(action.Spec{Name: "late_orders", Description: "Keep the late orders.",
		Params: []action.Param{{Name: "orders"}}, Func: func(orders []Order) []Order {
			var out []Order
			for _, o := range orders {
				if o.Late {
					out = append(out, o)
				}
			}
			return out
		}}),
	action.MustNew(action.Spec{Name: "open_db", Description: "Open the database.",
		Func: func() *DB { return &DB{conn: 7} }}),
	action.MustNew(action.Spec{Name: "ping_db", Description: "Ping the database.",
		Params: []action.Param{{Name: "db"}}, Func: func(db *DB) int { return db.conn }}),
)

// Model answers a task by its words: "load" calls load_orders and
// open_db, "late" calls late_orders on <<var:orders>>, "ping" calls
// ping_db on <<var:db>>; then it answers with what the calls returned
// (the tool results' text, joined by newlines), so that a test reads in
// the output whether they found their variables.
func Model() llm.Model {
	return llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		task := -1
		for i := len(req.Messages) - 1; i >= 0 && task < 0; i-- {
			if req.Messages[i].Role == llm.RoleUser {
				task = i
			}
		}
		after := req.Messages[task+1:]
		if len(after) > 0 {
			var results []string
			for _, m := range after {
				if m.Role == llm.RoleTool {
					results = append(results, m.Text)
				}
			}
			return llm.Text(strings.Join(results, "\n")), nil
		}
		text := req.Messages[task].Text
		var calls []llm.ToolCall
		add := func(word, name, args string) {
			if strings.Contains(text, word) {
				calls = append(calls, llm.ToolCall{ID: name, Name: name, Arguments: args})
			}
		}
		add("load", "load_orders", `{}`)
		add("load", "open_db", `{}`)
		add("late", "late_orders", `{"orders":"<<var:orders>>"}`)
		add("ping", "ping_db", `{"db":"<<var:db>>"}`)
		if len(calls) == 0 {
			return llm.Text("nothing to do"), nil
		}
		return llm.CallTools(calls...), nil
	})
}

// Agent returns the chat's agent options on store-less defaults: Actions,
// Model, no snippets. Set Store (and Rebind) before agent.New.
func Agent() agent.Options {
	return agent.Options{Actions: Actions, Model: Model(), DisableSnippets: true}
}

// Failed reports whether the text of an answer says a call failed to find
// its variable (or failed otherwise).
func Failed(answer string) bool {
	return strings.Contains(answer, `"error"`) || strings.Contains(answer, "not a variable")
}
