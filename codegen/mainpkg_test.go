package codegen_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/byref/byref/codegen"
)

// recorder is a program of package main whose action and variable use
// types of package main: it runs an agent on a scripted model and prints
// the replay code of the run.
const recorder = `package main

import (
	"context"
	"fmt"
	"os"

	"github.com/byref/byref/action"
	"github.com/byref/byref/codegen"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/variable"
)

type row struct {
	ID   int
	Late bool
}

func lateRows(rows []row) []row {
	var out []row
	for _, r := range rows {
		if r.Late {
			out = append(out, r)
		}
	}
	return out
}

var actions = action.MustSet(action.MustNew(action.Spec{Name: "late_rows", Description: "Keep late rows.", Func: lateRows, Params: []action.Param{{Name: "rows"}}}))

func main() {
	ctx := context.Background()
	model := llm.NewScripted(
		llm.CallTool("late_rows", ` + "`" + `{"rows":"<<var:rows>>","return":null}` + "`" + `),
		llm.CallTool("terminate", ` + "`" + `{"success":true,"result":"<<var:late_rows_result>>"}` + "`" + `),
	)
	store := run.NewMemoryStore()
	rt, err := agent.New(agent.Options{Model: model, Actions: actions, Store: store,
		Variables: []variable.Spec{{Name: "rows", Value: []row{{1, false}, {2, true}, {3, true}}}}})
	if err != nil {
		panic(err)
	}
	printReplay(ctx, rt, store, "late rows")
}
` + printReplay

// printReplay is the end of a recorder: it runs the task, reads the
// run's log and prints its replay code, with a main.
const printReplay = `
func printReplay(ctx context.Context, rt *agent.Agent, store run.Store, task string) {
	o, err := rt.Run(ctx, agent.RunOptions{Task: task})
	if err != nil || o.Status != run.StatusCompleted {
		panic(fmt.Sprint(o, err))
	}
	events, err := store.Read(ctx, o.RunID, 1, 0)
	if err != nil {
		panic(err)
	}
	rec, err := codegen.FromEvents(events)
	if err != nil {
		panic(err)
	}
	src, err := codegen.Generate(rec, codegen.Options{Main: true})
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(src)
}
`

// user is the user's own package main, with the same types and action,
// which calls the replay's ReplayMain.
const user = `package main

type row struct {
	ID   int
	Late bool
}

func lateRows(rows []row) []row {
	var out []row
	for _, r := range rows {
		if r.Late {
			out = append(out, r)
		}
	}
	return out
}

func main() { ReplayMain() }
`

// module writes a module that requires this one (replaced by the working
// tree) with the files, and returns its directory.
func module(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files["go.mod"] = "module example.com/app\n\ngo 1.24\n\nrequire github.com/byref/byref v0.0.0\n\nreplace github.com/byref/byref => " + root + "\n"
	files["go.sum"] = string(sum)
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func goRun(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run in %s: %v\n%s", dir, err, out)
	}
	return string(out)
}

// recordReplay runs a recorder program and returns the replay code it
// prints, which must hold each of want.
func recordReplay(t *testing.T, recorder string, want ...string) string {
	t.Helper()
	src := goRun(t, module(t, map[string]string{"main.go": recorder}))
	for _, w := range want {
		if !strings.Contains(src, w) {
			t.Errorf("the replay has no %q:\n%s", w, src)
		}
	}
	return src
}

// A run whose action and variables use types (and a function) of package
// main replays as a file of package main that compiles next to the user's
// main package, and reproduces the run.
func TestReplayOfPackageMainTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two programs")
	}
	src := recordReplay(t, recorder, "package main", "rows []row", "lateRows(rows)", "func ReplayMain()")
	out := goRun(t, module(t, map[string]string{"main.go": user, "replay.go": src}))
	if !strings.Contains(out, `"result":[{"ID":2,"Late":true},{"ID":3,"Late":true}]`) {
		t.Fatalf("the replay printed %s\n%s", out, src)
	}
}

// Closures become fields of Actions, named after the actions; without
// Options.ActionSet, main says which to fill, and the replay refuses a nil
// one by name.
func TestClosuresBecomeActionsFields(t *testing.T) {
	for _, sc := range scenarios() {
		if sc.name != "ask_user" {
			continue
		}
		rec, _, _ := sc.record(t)
		src, err := codegen.Generate(rec, codegen.Options{Main: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			"type Actions struct {", "Greet func(string) string",
			"func Replay(ctx context.Context, actions Actions,",
			"Greet: the action greet (it is a closure", "var actions Actions",
			`fmt.Errorf("actions.Greet is nil; set it to the function of the action greet")`,
			"actions.Greet(ask_user_result)",
		} {
			if !strings.Contains(string(src), want) {
				t.Errorf("no %q in:\n%s", want, src)
			}
		}
		return
	}
	t.Fatal("no ask_user scenario")
}

// ticketRecorder is a program of package main whose snippet names its
// type as the prompt shows it (main.Ticket, []main.Ticket), and whose
// action takes a live *sql.DB, opened on a connection string with a
// password: it records a run and prints its replay code.
const ticketRecorder = `package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"

	"modernc.org/sqlite"

	"github.com/byref/byref/action"
	"github.com/byref/byref/codegen"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/variable"
)

` + ticketCode + `

func main() {
	ctx := context.Background()
	code, _ := json.Marshal(map[string]string{"code": "open := []main.Ticket{}\nfor _, t := range tickets {\n\tif t.Open {\n\t\topen = append(open, main.Ticket{ID: t.ID, Title: t.Title, Open: true})\n\t}\n}"})
	model := llm.NewScripted(
		llm.CallTool("run_go", string(code)),
		llm.CallTool("count_open", ` + "`" + `{"db":"<<var:db>>","tickets":"<<var:open>>","return":null}` + "`" + `),
		llm.CallTool("terminate", ` + "`" + `{"success":true,"result":"<<var:count_open_result>>"}` + "`" + `),
	)
	store := run.NewMemoryStore()
	rt, err := agent.New(agent.Options{Model: model, Actions: actions, Store: store,
		Variables: []variable.Spec{{Name: "tickets", Value: tickets}, {Name: "db", Value: openDB()}}})
	if err != nil {
		panic(err)
	}
	printReplay(ctx, rt, store, "count the open tickets")
}
` + printReplay

// ticketCode is what the recorder and the user's program share: the
// type, the action, the starting tickets and the database.
const ticketCode = `type Ticket struct {
	ID    int
	Title string
	Open  bool
}

var tickets = []Ticket{{1, "login fails", true}, {2, "typo", false}, {3, "slow page", true}}

func init() { sql.Register("tickets-sqlite", &sqlite.Driver{}) }

func openDB() *sql.DB {
	db, err := sql.Open("tickets-sqlite", "file::memory:?password=hunter2")
	if err != nil {
		panic(err)
	}
	return db
}

// countOpen counts the tickets through the database.
func countOpen(db *sql.DB, tickets []Ticket) (int, error) {
	var n int
	err := db.QueryRow("select ?", len(tickets)).Scan(&n)
	return n, err
}

var actions = action.MustSet(action.MustNew(action.Spec{Name: "count_open", Description: "Count the open tickets.", Func: countOpen,
	Params: []action.Param{{Name: "db"}, {Name: "tickets"}}}))`

// ticketUser is the user's package main, beside which the replay goes:
// with an argument it calls ReplayMain; without, ReplayVariables with the
// database it opens.
const ticketUser = `package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"

	"modernc.org/sqlite"

	"github.com/byref/byref/action"
)

` + ticketCode + `

func main() {
	if len(os.Args) > 1 {
		ReplayMain()
		return
	}
	n, vars, err := ReplayVariables(context.Background(), tickets, openDB())
	if err != nil {
		panic(err)
	}
	fmt.Println(n, len(vars.Open))
}
`

// TestReplayOfPackageMainSnippet: a snippet of a package main agent that
// names main.Ticket replays as a file of package main that names it
// Ticket, builds beside the user's main.go and runs; the *sql.DB the log
// does not record is named in the replay as a live handle to supply, and
// ReplayMain says so when it is not.
func TestReplayOfPackageMainSnippet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two programs")
	}
	src := recordReplay(t, ticketRecorder, "[]Ticket{}", "append(open, Ticket{", "db is a live handle (*sql.DB)", "call ReplayVariables with it")
	for _, bad := range []string{"main.Ticket", "too large", "hunter2"} {
		if strings.Contains(src, bad) {
			t.Errorf("the replay holds %q:\n%s", bad, src)
		}
	}
	dir := module(t, map[string]string{"main.go": ticketUser, "replay.go": src})
	build := exec.Command("go", "build", "-o", "app", ".")
	build.Dir, build.Env = dir, append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s\n%s", err, out, src)
	}
	out, err := exec.Command(filepath.Join(dir, "app")).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "2 2" {
		t.Fatalf("the replay printed %q, %v; want 2 open tickets", out, err)
	}
	out, err = exec.Command(filepath.Join(dir, "app"), "main").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "db is a live handle (*sql.DB) the log does not record; supply it in ReplayMain, or call ReplayVariables with it") {
		t.Fatalf("ReplayMain with no database: %q, %v", out, err)
	}
}
