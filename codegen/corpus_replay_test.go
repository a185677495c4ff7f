package codegen_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/codegen"
	"github.com/byref/byref/codegen/codegentest/shop"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/variable"
)

// actionCall finds a call of one of the shop's actions in a snippet.
var actionCall = regexp.MustCompile(`\b(get_weather|lookup_customer|send_email|convert|fetch_page)\(`)

// TestCorpusReplay records every snippet of interp's corpus that calls an
// action (and succeeds) as a run over the shop's variables and actions,
// generates its replay, builds all the replays in one go build and runs
// each: it must end with the run's variables. The shop's actions are
// closures, so each replay takes them through shop.Set.
func TestCorpusReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the replays")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go toolchain:", err)
	}
	files, err := filepath.Glob(filepath.Join("..", "interp", "testdata", "corpus", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	type replay struct {
		name string
		vars map[string]json.RawMessage
	}
	var replays []replay
	dir := t.TempDir()
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		code, ok := corpusCode(string(data))
		if !ok || !actionCall.MatchString(code) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			rec, vars := recordShop(t, name, code)
			src, err := codegen.Generate(rec, codegen.Options{Main: true, ActionSet: shop.Set})
			if why, refused := replayRefused[name]; refused {
				if err == nil || !strings.Contains(err.Error(), why) {
					t.Fatalf("Generate: %v, want the refusal %q (remove it from replayRefused if it now generates)", err, why)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, src)
			}
			pkg := "r" + strings.ReplaceAll(name, "-", "_")
			write(t, filepath.Join(dir, pkg, "main.go"), src)
			replays = append(replays, replay{pkg, vars})
		})
	}
	if len(replays) < 15 {
		t.Fatalf("%d corpus snippets call actions and replay, want at least 15", len(replays))
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// A workspace with byref, so the replays build against this checkout.
	write(t, filepath.Join(dir, "go.mod"), []byte("module github.com/byref/byref/internal/replaycorpus\n\ngo 1.26.0\n"))
	write(t, filepath.Join(dir, "go.work"), []byte("go 1.26.0\n\nuse (\n\t.\n\t"+root+"\n)\n"))
	bin := filepath.Join(dir, "bin")
	build := exec.Command(filepath.Join(goroot(), "bin", "go"), "build", "-o", bin+string(filepath.Separator), "./...")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK="+filepath.Join(dir, "go.work"), "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of %d replays: %v\n%s", len(replays), err, out)
	}
	for _, r := range replays {
		out, err := exec.Command(filepath.Join(bin, r.name)).Output()
		if err != nil {
			t.Errorf("%s: the replay failed: %v", r.name, err)
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		var got struct {
			Variables map[string]json.RawMessage `json:"variables"`
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
			t.Errorf("%s: the replay's last line is not its JSON: %v\n%s", r.name, err, out)
			continue
		}
		for name, want := range r.vars {
			if !sameJSON(t, got.Variables[name], want) {
				t.Errorf("%s: variable %s = %s, want %s", r.name, name, got.Variables[name], want)
			}
		}
	}
}

// replayRefused are corpus snippets whose replay Generate refuses, with
// the refusal naming what to change. None today: the list is kept so that
// a refusal the corpus meets is recorded here, not skipped.
var replayRefused = map[string]string{}

// corpusCode returns the code of a corpus case that is expected to
// succeed.
func corpusCode(txtar string) (string, bool) {
	if strings.Contains(txtar, "\n-- error --\n") {
		return "", false
	}
	_, rest, ok := strings.Cut(txtar, "-- code --\n")
	if !ok {
		return "", false
	}
	code, _, _ := strings.Cut(rest, "-- stdout --\n")
	return code, true
}

// recordShop runs one snippet over the shop on a scripted model and
// returns the recording of its log and the final variables.
func recordShop(t *testing.T, id, code string) (*codegen.Recording, map[string]json.RawMessage) {
	t.Helper()
	var vars []variable.Spec
	for _, v := range shop.Variables() {
		vars = append(vars, variable.Spec{Name: v.Name, Value: v.Value})
	}
	model := llm.NewScripted(
		llm.Response{Text: "```go\n" + code + "```"},
		llm.Response{ToolCalls: []llm.ToolCall{tool("end", "terminate", `{"success":true}`)}},
	)
	rt, err := agent.New(agent.Options{Actions: shop.Set(), Variables: vars, Model: model, CallTimeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h, err := rt.Start(ctx, agent.RunOptions{Task: "corpus", Limits: agent.Limits{MaxSteps: 2}, ID: run.ID("run_" + strings.ReplaceAll(id, "-", "_"))})
	if err != nil {
		t.Fatal(err)
	}
	out, err := h.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != run.StatusCompleted {
		t.Fatalf("run ended %s: %s", out.Status, out.Reason)
	}
	rec := recordingOf(ctx, t, h)
	return rec, finalVars(t, h.State())
}
