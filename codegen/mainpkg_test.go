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
	"github.com/byref/byref/runtime"
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
	rt, err := runtime.New(runtime.Options{Model: model, Actions: actions, Store: store,
		Variables: []variable.Spec{{Name: "rows", Value: []row{{1, false}, {2, true}, {3, true}}}}})
	if err != nil {
		panic(err)
	}
	o, err := rt.Run(ctx, runtime.RunOptions{Spec: runtime.Spec{Task: "late rows"}})
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

// A run whose action and variables use types (and a function) of package
// main replays as a file of package main that compiles next to the user's
// main package, and reproduces the run.
func TestReplayOfPackageMainTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two programs")
	}
	src := goRun(t, module(t, map[string]string{"main.go": recorder}))
	for _, want := range []string{"package main", "rows []row", "lateRows(rows)", "func ReplayMain()"} {
		if !strings.Contains(src, want) {
			t.Errorf("the replay has no %q:\n%s", want, src)
		}
	}
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
