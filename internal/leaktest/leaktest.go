// Package leaktest holds what the tests that look for leaked values share:
// a real database handle opened on a connection string with a password,
// a struct that keeps credentials in unexported fields, and an agent that
// works on both (queries the database, reads the struct in a snippet, and
// calls an action that needs approval), for the prompt, the log, the
// inspector and every protocol to be searched for Secret.
package leaktest

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"modernc.org/sqlite"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/server"
	"github.com/byref/byref/variable"
)

// Secret is held only where no preview may look: in the database's
// connection string and in Credentials' unexported fields.
const Secret = "hunter2"

// driverName is the SQLite driver registered by this package, which only
// tests import.
const driverName = "byref-leaktest-sqlite"

func init() { sql.Register(driverName, &sqlite.Driver{}) }

// OpenDB opens a SQLite database in a temporary directory on a connection
// string that holds Secret as a password, with a table tickets (id,
// title, open) of three rows, two open. It is closed when the test ends.
func OpenDB(t testing.TB) *sql.DB {
	t.Helper()
	dsn := "file:" + filepath.ToSlash(filepath.Join(t.TempDir(), "customers.db")) + "?user=app&password=" + Secret
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`create table tickets (id integer primary key, title text, open bool);
insert into tickets (title, open) values ('login fails', 1), ('slow page', 1), ('typo', 0)`); err != nil {
		t.Fatal(err)
	}
	return db
}

// Credentials keeps its secrets in unexported fields.
type Credentials struct {
	User     string
	password string
	token    *token
}

type token struct{ Value string }

// NewCredentials returns credentials of user app whose password and token
// are Secret.
func NewCredentials() Credentials {
	return Credentials{User: "app", password: Secret, token: &token{Value: Secret}}
}

// Actions are count_open (reads the database) and close_ticket (needs
// approval).
var Actions = action.MustSet(
	action.MustNew(action.Spec{Name: "count_open", Description: "Count the open tickets.",
		Func: func(db *sql.DB) (int, error) {
			var n int
			err := db.QueryRow("select count(*) from tickets where open").Scan(&n)
			return n, err
		},
		Params: []action.Param{{Name: "db"}}}),
	action.MustNew(action.Spec{Name: "close_ticket", Description: "Close a ticket.", NeedsApproval: true,
		Func: func(db *sql.DB, creds Credentials, id int) error {
			_, err := db.Exec("update tickets set open = 0 where id = ?", id)
			return err
		},
		Params: []action.Param{{Name: "db"}, {Name: "creds"}, {Name: "id"}}}),
)

// Model is the agent's script, answered by the number of tool messages
// since the last user message: count the open tickets, read the
// credentials in a snippet, close ticket 1 (an approval), then finish with
// the count.
func Model() *llm.Scripted {
	return llm.NewScriptedFunc(func(req llm.Request) (llm.Response, error) {
		n := 0
		for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != llm.RoleUser; i-- {
			if req.Messages[i].Role == llm.RoleTool {
				n++
			}
		}
		switch n {
		case 0:
			return llm.CallTool("count_open", `{"db":"<<var:db>>","return":null}`), nil
		case 1:
			code, _ := json.Marshal(map[string]string{"code": "who := creds.User\nfmt.Println(who)"})
			return llm.CallTool("run_go", string(code)), nil
		case 2:
			return llm.CallTool("close_ticket", `{"db":"<<var:db>>","creds":"<<var:creds>>","id":1}`), nil
		}
		return llm.CallTool("terminate", `{"success":true,"result":"<<var:count_open_result>>"}`), nil
	})
}

// NewAgent returns the agent, recording into store (nil for a store of its
// own), with the variables db (OpenDB) and creds (NewCredentials), and its
// model. close_ticket awaits an approval.
func NewAgent(t testing.TB, store run.Store) (*agent.Agent, *llm.Scripted) {
	t.Helper()
	model := Model()
	rt, err := agent.New(agent.Options{Model: model, Store: store, Actions: Actions,
		Variables: []variable.Spec{
			{Name: "db", Value: OpenDB(t), Description: "the ticket database"},
			{Name: "creds", Value: NewCredentials(), Description: "the service account"},
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	return rt, model
}

// Agent returns NewAgent's agent as the server's agent "tickets".
func Agent(t testing.TB, store run.Store) (server.Agent, *llm.Scripted) {
	t.Helper()
	rt, model := NewAgent(t, store)
	return server.Agent{Name: "tickets", Description: "triages tickets", Agent: rt}, model
}

// Serve serves the agent of Agent over ACP on 127.0.0.1, and over the
// protocol mount adds (nil for ACP alone), until the test ends. It returns
// the test server, the agent's model and its store.
func Serve(t testing.TB, mount func(*server.Server) error) (*httptest.Server, *llm.Scripted, run.Store) {
	t.Helper()
	store := run.NewMemoryStore()
	ag, model := Agent(t, store)
	s, err := server.New(server.Options{Agents: []server.Agent{ag}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if mount != nil {
		if err := mount(s); err != nil {
			t.Fatal(err)
		}
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts, model, store
}

// Leaks reports whether text holds Secret, in any letter case.
func Leaks(text string) bool { return strings.Contains(strings.ToLower(text), Secret) }

// CheckModel fails t when a request the model was sent holds Secret.
func CheckModel(t testing.TB, model *llm.Scripted) {
	t.Helper()
	for i, req := range model.Requests() {
		b, _ := json.Marshal(req)
		if Leaks(string(b)) {
			t.Errorf("request %d to the model holds the secret: %s", i+1, b)
		}
	}
}
