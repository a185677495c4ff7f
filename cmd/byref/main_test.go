package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/byref/byref/internal/pgtest"
)

// byrefBin is the command, built once for the tests that run it, with
// the build tag temporal.
var byrefBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "byref-cli-")
	if err != nil {
		panic(err)
	}
	byrefBin = filepath.Join(dir, "byref")
	// With Temporal's commands and flags (byref worker, serve --temporal),
	// which the cluster test runs.
	if out, err := exec.Command("go", "build", "-tags", "temporal", "-o", byrefBin, ".").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic("go build: " + err.Error() + "\n" + string(out))
	}
	code := pgtest.Main(m) // stops the PostgreSQL server of the tests that started one
	os.RemoveAll(dir)
	os.Exit(code)
}

// byref runs the built command with stdin and returns its output and exit
// code.
func byref(t *testing.T, stdin string, args ...string) (string, int) {
	t.Helper()
	return byrefEnv(t, nil, stdin, args...)
}

// byrefEnv is byref with more environment variables.
func byrefEnv(t *testing.T, env []string, stdin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(byrefBin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(append(os.Environ(), "BYREF_DB=", "BYREF_STORE=", "BYREF_MODEL=", "OPENAI_API_KEY="), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), code
}

func TestDemo(t *testing.T) {
	dir := t.TempDir()
	out, code := byref(t, "", "demo", "--db", filepath.Join(dir, "demo.db"))
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{
		"scripted model (no API key",
		"→ filter_rows",
		"<<var:late_orders>> is not a variable; compatible variables for \"table\" are: <<var:orders>>, <<var:filter_rows_result>>",
		"filter_rows_result = Table of 142 rows × 2 columns (id, status)",
		"count_rows_result = 142",
		"14.2% of orders are late",
		"result: 14.2",
		"· completed",
		"The stored run: ",
		"4 tool calls, 1 snippet",
		filepath.Join(dir, "_byref-demo-replay", "main.go"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the demo does not say %q:\n%s", want, out)
		}
	}
	// The replay program is in the file it names, not on the terminal.
	if strings.Contains(out, "func Replay(") {
		t.Errorf("the demo printed its replay program:\n%s", out)
	}
	src, err := os.ReadFile(filepath.Join(dir, "_byref-demo-replay", "main.go"))
	if err != nil || !strings.Contains(string(src), "func Replay(") {
		t.Errorf("the replay program: %v\n%s", err, src)
	}
	// Its comments number the steps as the log does, consecutively: the
	// inspector and the log show the same numbers.
	last := 0
	for _, m := range regexp.MustCompile(`// Step (\d+):`).FindAllStringSubmatch(string(src), -1) {
		n, _ := strconv.Atoi(m[1])
		if n != last && n != last+1 {
			t.Errorf("step %d follows step %d in the replay's comments", n, last)
		}
		last = n
	}
	if last != 5 {
		t.Errorf("the replay's comments end at step %d; the demo makes 5 steps", last)
	}
}

func TestRunWithApprovalAtThePrompt(t *testing.T) {
	db := filepath.Join(t.TempDir(), "runs.db")
	out, code := byref(t, "approve\n", "run", "compute the answer", "--model", "scripted:approval", "--db", db)
	for _, want := range []string{"→ run_go", "Approve running this Go code?", "answer := 6 * 7", "  approved", "answer = 42", "result: 42", "· completed"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}

	out, code = byref(t, "perhaps\ndeny: not today\n", "run", "compute the answer", "--model", "scripted:approval", "--db", db)
	if code != 0 || !strings.Contains(out, `"perhaps" is not a decision`) || !strings.Contains(out, "  denied") || !strings.Contains(out, "not approved") {
		t.Fatalf("deny: exit %d:\n%s", code, out)
	}
	// The model's text, streamed as it is written, is printed once.
	if n := strings.Count(out, "model: The snippet was not approved"); n != 1 {
		t.Errorf("deny: the model's message printed %d times, want once:\n%s", n, out)
	}

	out, code = byref(t, "", "run", "compute the answer", "--model", "scripted:approval", "--db", db, "--approve", "none")
	if code != 0 || strings.Contains(out, "> ") || !strings.Contains(out, "result: 42") {
		t.Fatalf("--approve none: exit %d:\n%s", code, out)
	}

	out, code = byref(t, "Ann\n", "run", "greet me", "--model", "scripted:question", "--db", db)
	if code != 0 || !strings.Contains(out, "? What is your name?") || !strings.Contains(out, "answered: Ann") {
		t.Fatalf("question: exit %d:\n%s", code, out)
	}

	// runs ls and show read the same file.
	out, code = byref(t, "", "runs", "ls", "--db", db)
	ids := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}`).FindAllString(out, -1)
	if code != 0 || len(ids) != 4 || strings.Count(out, "completed") != 4 {
		t.Fatalf("runs ls: exit %d:\n%s", code, out)
	}
	out, code = byref(t, "", "runs", "show", ids[len(ids)-1], "--db", db)
	if code != 0 {
		t.Fatalf("runs show: exit %d:\n%s", code, out)
	}
	for _, want := range []string{"status   completed", "result   42", "tool calls 1, snippets 1", "answer int = 42", "→ run_go", "approved"} {
		if !strings.Contains(out, want) {
			t.Errorf("runs show: no %q in:\n%s", want, out)
		}
	}

	out, code = byref(t, "", "replay", ids[len(ids)-1], "--db", db)
	if code != 0 || !strings.Contains(out, "package main") {
		t.Fatalf("replay: exit %d:\n%s", code, out)
	}
	// The replay compiles and reproduces the result (it imports only the
	// standard library here, so it builds outside the module).
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "main.go")
	cmd.Dir = dir
	got, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(got), `"result":42`) {
		t.Fatalf("replay program: %v\n%s\n%s", err, got, out)
	}
}

func TestErrorsNameTheFix(t *testing.T) {
	db := filepath.Join(t.TempDir(), "runs.db")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "x", "--db", db, "--model", "scripted:hello"}, 0, "Hello from the scripted model"},
		{[]string{"run", "x", "--db", db, "--model", "scripted", "--approve", "none"}, 0, "result: 42"},
		{[]string{"run", "x", "--db", filepath.Join(t.TempDir(), "new", "dir", "runs.db"), "--model", "scripted", "--approve", "none"}, 0, "result: 42"},
		{[]string{"run", "x", "--db", db}, 2, "pass --model provider:name"},
		{[]string{"run", "x", "--db", db, "--model", "openai:gpt-4o-mini"}, 1, "OPENAI_API_KEY"},
		{[]string{"run", "x", "--db", db, "--model", "scripted:nope"}, 1, "scripted:approval"},
		{[]string{"run", "x", "--db", db, "--model", "scripted:hello", "--approve", "some"}, 2, "use on_tool_call"},
		{[]string{"run", "x", "--db", db, "--model", "scripted:hello", "--approve", "all"}, 2, "or none (run everything without asking)"},
		{[]string{"runs", "ls", "--db", filepath.Join(t.TempDir(), "none.db")}, 1, "pass --db"},
		{[]string{"runs", "show", "nope", "--db", db}, 1, `no run's ID is or starts with "nope"`},
		{[]string{"serve", "--addr", "0.0.0.0:0", "--model", "scripted:hello", "--db", db}, 1, "--token"},
		{[]string{"run", "x", "--db", db, "--model", "scripted:hello?delay=1ms"}, 0, "Hello from the scripted model"},
		{[]string{"run", "x", "--db", db, "--model", "scripted?delay=1ms", "--approve", "none"}, 0, "result: 42"},
		{[]string{"run", "x", "--db", db, "--model", "scripted:hello?delay=soon"}, 1, "scripted:hello?delay=100ms"},
		{[]string{"run", "x", "--db", db, "--model", "scripted:hello?pace=1ms"}, 1, "the one option is delay"},
		{[]string{"serve", "--temporal", "127.0.0.1:7233", "--db", db}, 2, "--temporal needs --store postgres://"},
		{[]string{"worker", "--store", "postgres://x/y"}, 2, "byref worker needs --temporal host:port"},
		{[]string{"worker", "--temporal", "127.0.0.1:7233", "--db", db}, 2, "flag provided but not defined: -db"},
		{[]string{"worker", "--temporal", "127.0.0.1:7233"}, 2, "--temporal needs --store postgres://"},
		{[]string{"frobnicate"}, 2, "unknown command"},
	} {
		out, code := byref(t, "", tc.args...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("byref %s: exit %d, want %d with %q:\n%s", strings.Join(tc.args, " "), code, tc.code, tc.want, out)
		}
	}
}

// -h or --help after a command prints its help and exits 0, as
// byref help does, rather than nothing.
func TestHelpFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "-h"}, "byref serve [flags]"},
		{[]string{"run", "--help"}, `byref run "task" [flags]`},
		{[]string{"runs", "ls", "-h"}, "byref runs ls"},
		{[]string{"replay", "--help"}, "byref replay RUN_ID"},
		{[]string{"demo", "-h"}, "byref demo"},
		{[]string{"eval", "run", "-h"}, "byref eval run SET [flags]"},
		{[]string{"a2a", "call", "-h"}, `byref a2a call URL "task" [flags]`},
	} {
		out, code := byref(t, "", tc.args...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("byref %s: exit %d, want 0 with %q:\n%s", strings.Join(tc.args, " "), code, tc.want, out)
		}
	}
}
