package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// buildAndRun builds the Go program src in a module that requires this
// one (replaced by the working tree), runs it and returns its output.
func buildAndRun(t *testing.T, what, src string) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mod := "module replaytest\n\ngo 1.24\n\nrequire github.com/byref/byref v0.0.0\n\nreplace github.com/byref/byref => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"go.mod": []byte(mod), "go.sum": sum, "main.go": []byte(src)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := exec.Command("go", "build", "-o", "replay", ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of the replay %s: %v\n%s", what, err, out)
	}
	out, err := exec.Command(filepath.Join(dir, "replay")).CombinedOutput()
	if err != nil {
		t.Fatalf("the replay %s: %v\n%s", what, err, out)
	}
	return string(out)
}

// The replay the demo prints, the one byref replay prints for the demo's
// run (by an ID prefix), and the one the inspector serves all build and
// reproduce the run's result.
func TestDemoReplaysBuildAndRun(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	// A provider's key is set, and --model scripted still forces the
	// scripted demo.
	out, code := byrefEnv(t, []string{"OPENAI_API_KEY=sk-not-a-key"}, "", "demo", "--db", db, "--model", "scripted")
	if code != 0 {
		t.Fatalf("demo: exit %d:\n%s", code, out)
	}
	id := regexp.MustCompile(`byref replay (\S+) --db`).FindStringSubmatch(out)
	file := regexp.MustCompile(`is in (\S+): run it`).FindStringSubmatch(out)
	if id == nil || file == nil {
		t.Fatalf("the demo names no replay program and command:\n%s", out)
	}
	prog, err := os.ReadFile(file[1])
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"result":14.2,`
	if got := buildAndRun(t, "written by the demo", string(prog)); !strings.Contains(got, want) {
		t.Errorf("the demo's replay printed %.300s, want %s", got, want)
	}

	src, code := byref(t, "", "replay", id[1][:8], "--db", db)
	if code != 0 {
		t.Fatalf("byref replay %s: exit %d:\n%s", id[1][:8], code, src)
	}
	if got := buildAndRun(t, "printed by byref replay", src); !strings.Contains(got, want) {
		t.Errorf("byref replay's program printed %.300s, want %s", got, want)
	}

	s := serve(t, "--db", db) // no model, no key: the scripted agent
	for _, want := range []string{"/ui/", "built-in scripted model", "approval on_tool_call", "over AG-UI, for front ends: POST " + s.base + "/agui/byref"} {
		if !strings.Contains(s.out.String(), want) {
			t.Errorf("the banner of byref serve does not say %q:\n%s", want, s.out)
		}
	}
	// AG-UI is served beside ACP and A2A: the scripted run awaits the
	// approval of its snippet, an interrupt.
	ag, err := http.Post(s.base+"/agui/byref", "application/json", strings.NewReader(`{"threadId":"t1","runId":"r1","messages":[{"id":"u1","role":"user","content":"compute the answer"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	agBody, _ := io.ReadAll(ag.Body)
	ag.Body.Close()
	if ag.StatusCode != 200 || !strings.Contains(string(agBody), `"type":"RUN_STARTED"`) || !strings.Contains(string(agBody), `"outcome":{"type":"interrupt"`) {
		t.Errorf("POST /agui/byref: %s\n%s", ag.Status, agBody)
	}
	resp, err := http.Get(s.base + "/ui/api/runs/" + id[1] + "/replay")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("the inspector's replay: %s: %s", resp.Status, b)
	}
	if got := buildAndRun(t, "served by the inspector", string(b)); !strings.Contains(got, want) {
		t.Errorf("the inspector's replay printed %.300s, want %s", got, want)
	}
	s.stop()
}

// TestReplayPackageFlag: --package takes name=path, and says so when not.
func TestReplayPackageFlag(t *testing.T) {
	out, code := byref(t, "", "replay", "run_x", "--db", filepath.Join(t.TempDir(), "none.db"), "--package", "model2")
	if code == 0 || !strings.Contains(out, "--package takes NAME=IMPORTPATH") {
		t.Fatalf("byref replay --package model2: exit %d\n%s", code, out)
	}
}
