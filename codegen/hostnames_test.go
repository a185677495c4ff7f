package codegen_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/codegen"
	amodel "github.com/byref/byref/codegen/codegentest/hostnames/a/model"
	bmodel "github.com/byref/byref/codegen/codegentest/hostnames/b/model"
	htime "github.com/byref/byref/codegen/codegentest/hostnames/time"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// TestReplayHostPackageNames replays a run whose snippet names host types
// under the names the prompt shows them by: a second package named model
// (model2.User) and a package named like the standard time (time2.Slot),
// next to its own explicit imports (the standard time, strings renamed
// str). The replay imports each package under the snippet's name, builds,
// prints what the snippet printed and ends with the run's variables.
func TestReplayHostPackageNames(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the replay")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go toolchain:", err)
	}
	// The names are the process's: a/model is seen first, so it is model.
	a := variable.TypeName(reflect.TypeFor[amodel.User]())
	b := variable.TypeName(reflect.TypeFor[bmodel.User]())
	s := variable.TypeName(reflect.TypeFor[htime.Slot]())
	if a != "model.User" || b != "model2.User" || s != "time2.Slot" {
		t.Fatalf("host type names %s, %s, %s; want model.User, model2.User, time2.Slot (another test named these packages first?)", a, b, s)
	}
	code := `import (
	"fmt"
	str "strings"
	"time"
)

u := model2.User{ID: buyer.ID + 1, Email: "new@example.com"}
buyer = u
slot = time2.Slot{Start: slot.Start, Hours: slot.Hours * 2}
team := []model2.User{u, {ID: 9}}
var first model.User = owner
first.Age++
fmt.Println(str.ToUpper(first.Name), len(team), time.Duration(slot.Hours)*time.Hour)
`
	vars := []variable.Spec{
		// Not in the order the names were given: the replay must not
		// name the packages by the order it meets them in.
		{Name: "buyer", Value: bmodel.User{ID: 1, Email: "b@example.com"}},
		{Name: "slot", Value: htime.Slot{Start: "09:00", Hours: 2}},
		{Name: "owner", Value: amodel.User{Name: "Ada", Age: 36}},
	}
	st, _, events := runScripted(t, agent.RunOptions{}, vars,
		llm.Response{Text: "```go\n" + code + "```"},
		llm.Response{ToolCalls: []llm.ToolCall{tool("end", "terminate", `{"success":true}`)}},
	)
	want := finalVars(t, st)
	rec, err := codegen.FromEvents(events)
	if err != nil {
		t.Fatal(err)
	}
	src, err := codegen.Generate(rec, codegen.Options{Main: true})
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	for _, imp := range []string{`model2 "github.com/byref/byref/codegen/codegentest/hostnames/b/model"`, `time2 "github.com/byref/byref/codegen/codegentest/hostnames/time"`} {
		if !strings.Contains(string(src), imp) {
			t.Errorf("the replay does not import %s:\n%s", imp, src)
		}
	}
	out := buildAndRun(t, src)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "ADA 2 4h0m0s" {
		t.Errorf("the replay printed %q, want the snippet's output ADA 2 4h0m0s", lines[0])
	}
	var got struct {
		Variables map[string]json.RawMessage `json:"variables"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("the replay's last line is not its JSON: %v\n%s", err, out)
	}
	for name, w := range want {
		if !sameJSON(t, got.Variables[name], w) {
			t.Errorf("variable %s = %s, want %s", name, got.Variables[name], w)
		}
	}

	// A log that does not show the names (written before byref recorded
	// them): time2 can only be the one host package named time, but
	// model2 is one of two, and the refusal says how to tell which.
	old := *rec
	old.Packages = nil
	if _, err := codegen.Generate(&old, codegen.Options{Main: true}); err == nil || !strings.Contains(err.Error(), "Recording.Packages") || !strings.Contains(err.Error(), "--package model2=IMPORTPATH") {
		t.Fatalf("Generate of a log without package names: %v, want a refusal naming Recording.Packages and --package model2=IMPORTPATH", err)
	}
	old.Packages = map[string]string{"model2": "github.com/byref/byref/codegen/codegentest/hostnames/b/model"}
	src2, err := codegen.Generate(&old, codegen.Options{Main: true})
	if err != nil {
		t.Fatal(err)
	}
	if string(src2) != string(src) {
		t.Errorf("the replay with model2 given differs from the one the log names:\n%s", src2)
	}
}

// TestReplayHostPackageNamesOfActions replays a snippet that names a host
// type only an action's signature shows (no variable has it): the action's
// identity in the log says which package model2 is, where two packages
// named model could be meant.
func TestReplayHostPackageNamesOfActions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the replay")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go toolchain:", err)
	}
	if a, b := variable.TypeName(reflect.TypeFor[amodel.User]()), variable.TypeName(reflect.TypeFor[bmodel.User]()); a != "model.User" || b != "model2.User" {
		t.Fatalf("host type names %s, %s; want model.User, model2.User", a, b)
	}
	set := action.MustSet(
		// The second package first: the replay must not name the
		// packages by the order it meets them in.
		action.MustNew(action.Spec{Name: "next", Description: "The next user.", Func: bmodel.Next, Params: []action.Param{{Name: "u", Whole: true}}}),
		action.MustNew(action.Spec{Name: "greet", Description: "Greets a user.", Func: amodel.Greet, Params: []action.Param{{Name: "u", Whole: true}}}),
	)
	code := "n := next(model2.User{ID: 41, Email: \"x@example.com\"}).ID\ng := greet(model.User{Name: \"Ada\"})\nfmt.Println(n, g)\n"
	rt, err := agent.New(agent.Options{Actions: set, Model: llm.NewScripted(
		llm.Response{Text: "```go\n" + code + "```"},
		llm.Response{ToolCalls: []llm.ToolCall{tool("end", "terminate", `{"success":true}`)}},
	), CallTimeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	h, err := rt.Start(ctx, agent.RunOptions{Task: "test", ID: "run_actions"})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := h.Wait(ctx); err != nil || out.Status != run.StatusCompleted {
		t.Fatalf("run: %v %+v", err, out)
	}
	rec := recordingOf(ctx, t, h)
	src, err := codegen.Generate(rec, codegen.Options{Main: true})
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if out := buildAndRun(t, src); !strings.HasPrefix(out, "42 hello Ada\n") {
		t.Errorf("the replay printed %q, want the snippet's output 42 hello Ada first", out)
	}
}

// buildAndRun builds a generated main package against this checkout and
// returns what it prints.
func buildAndRun(t *testing.T, src []byte) string {
	t.Helper()
	dir := t.TempDir()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "main.go"), src)
	write(t, filepath.Join(dir, "go.mod"), []byte("module github.com/byref/byref/internal/replayhost\n\ngo 1.26.0\n"))
	write(t, filepath.Join(dir, "go.work"), []byte("go 1.26.0\n\nuse (\n\t.\n\t"+root+"\n)\n"))
	bin := filepath.Join(dir, "replay")
	build := exec.Command(filepath.Join(goroot(), "bin", "go"), "build", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK="+filepath.Join(dir, "go.work"), "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of the replay: %v\n%s\n%s", err, out, src)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("the replay failed: %v\n%s", err, src)
	}
	return string(out)
}
