package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEvalRun runs the demo's eval set on its cassettes, as CI would
// without a key: the table, a progress bar and the reports' paths.
func TestEvalRun(t *testing.T) {
	out := t.TempDir()
	got, code := byref(t, "", "eval", "run", "demotable/evals", "--reps", "2", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, got)
	}
	for _, want := range []string{"01-late-share", "fails on purpose", "pass@2", "28/28 trials", "14 of 14 cases as they should be", filepath.Join(out, "report.json"), filepath.Join(out, "report.html")} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Fatal(err)
	}
	// Its output is not a terminal: one line of counts, no carriage
	// return per trial.
	if strings.Contains(got, "\r") || !regexp.MustCompile(`(?m)^28/28 trials, 8 failed, `).MatchString(got) {
		t.Errorf("progress written for a terminal, or no line of counts:\n%q", got)
	}
}

// TestEvalReportsLeaveTheSet: without --out, the reports go to the user's
// cache directory, not into the set's folder.
func TestEvalReportsLeaveTheSet(t *testing.T) {
	set, cache := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	if err := os.CopyFS(set, os.DirFS("demotable/evals")); err != nil {
		t.Fatal(err)
	}
	got, code := byref(t, "", "eval", "run", set)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, got)
	}
	cacheDir, _ := os.UserCacheDir()
	if !strings.Contains(got, "reports: "+filepath.Join(cacheDir, "byref", "eval", "demo")) {
		t.Errorf("the reports are not in the cache directory %s:\n%s", cacheDir, got)
	}
	if _, err := os.Stat(filepath.Join(set, "reports")); err == nil {
		t.Errorf("byref eval run wrote reports into the set's folder")
	}
}

// TestEvalAddAndDiff makes a case from the demo's stored run, runs the new
// set, breaks the case, runs it again, and diffs the two reports.
func TestEvalAddAndDiff(t *testing.T) {
	dir := t.TempDir()
	db, set := filepath.Join(dir, "runs.db"), filepath.Join(dir, "set")
	if out, code := byref(t, "", "demo", "--db", db); code != 0 {
		t.Fatalf("demo: exit %d:\n%s", code, out)
	}
	ls, _ := byref(t, "", "runs", "ls", "--db", db)
	id := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f-]{27}`).FindString(ls)
	if id == "" {
		t.Fatalf("no run in:\n%s", ls)
	}
	out, code := byref(t, "", "eval", "add", id[:8], "--set", set, "--db", db, "--name", "late-share")
	if code != 0 || !strings.Contains(out, "a cassette of 5 exchanges") {
		t.Fatalf("eval add: exit %d:\n%s", code, out)
	}
	a := filepath.Join(dir, "a")
	if out, code := byref(t, "", "eval", "run", set, "--out", a); code != 0 || !strings.Contains(out, "1 of 1 cases") {
		t.Fatalf("eval run: exit %d:\n%s", code, out)
	}

	// Expect another result: the case now fails, and the diff says so.
	path := filepath.Join(set, "cases", "late-share.json")
	b, _ := os.ReadFile(path)
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	c["expect"] = append(c["expect"].([]any), map[string]any{"kind": "equal", "value": 15})
	b, _ = json.Marshal(c)
	os.WriteFile(path, b, 0o644)
	bdir := filepath.Join(dir, "b")
	out, code = byref(t, "", "eval", "run", set, "--out", bdir)
	if code != 1 || !strings.Contains(out, "want 15, got 14.2") {
		t.Fatalf("eval run of a failing case: exit %d:\n%s", code, out)
	}
	out, code = byref(t, "", "eval", "diff", filepath.Join(a, "report.json"), filepath.Join(bdir, "report.json"))
	if code != 0 || !strings.Contains(out, "worse:\n  late-share: pass (100%) -> fail (0%)") || !strings.Contains(out, "0 better, 1 worse") {
		t.Fatalf("eval diff: exit %d:\n%s", code, out)
	}

	if out, code := byref(t, "", "eval", "run", set, "--record"); code != 2 || !strings.Contains(out, "--record needs --model") {
		t.Fatalf("--record without a model: exit %d:\n%s", code, out)
	}

	// Record on another model: a model that only says hello fails the
	// case, and its one exchange replaces the cassette, so the replay
	// fails the same way without it.
	out, code = byref(t, "", "eval", "run", set, "--model", "scripted:hello", "--record", "--out", filepath.Join(dir, "c"))
	if code != 1 || !strings.Contains(out, "recorded the cassettes of 1 case in") || !strings.Contains(out, "want 3 calls, got 0") {
		t.Fatalf("eval run --record: exit %d:\n%s", code, out)
	}
	cassette, err := os.ReadFile(filepath.Join(set, "cassettes", "late-share.json"))
	if err != nil || strings.Count(string(cassette), `"request"`) != 1 || !strings.Contains(string(cassette), "Hello from the scripted model.") {
		t.Fatalf("the recorded cassette: %v\n%s", err, cassette)
	}
	out, code = byref(t, "", "eval", "run", set, "--out", filepath.Join(dir, "d"))
	if code != 1 || !strings.Contains(out, "want 3 calls, got 0") || strings.Contains(out, "not in the cassette") {
		t.Fatalf("the replay of the new cassette: exit %d:\n%s", code, out)
	}
}
