package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestTerm(t *testing.T) {
	for in, want := range map[string]string{
		"plain text\n\twith tabs, ünïcode and 😀": "plain text\n\twith tabs, ünïcode and 😀",
		"\x1b[2K\x1b[1A":     `\u001b[2K\u001b[1A`,
		"a\rb\bc\x00d\x7f":   `a\u000db\u0008c\u0000d\u007f`,
		"\u009b31m":          `\u009b31m`,
		"x \u202eevil\u2066": `x \u202eevil\u2066`,
		"bad \xff\x9b byte":  `bad \xff\x9b byte`,
	} {
		if got := term(in); got != want {
			t.Errorf("term(%q) = %q, want %q", in, got, want)
		}
	}
}

// What a model writes (the code to approve, its answer) reaches the
// terminal escaped, at the prompt and in runs show.
func TestTerminalEscapesAreShownNotRun(t *testing.T) {
	db := filepath.Join(t.TempDir(), "runs.db")
	raw := regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]")
	out, code := byref(t, "approve\n", "run", "compute", "--model", "scripted:escapes", "--db", db)
	if code != 0 {
		t.Fatalf("exit %d:\n%q", code, out)
	}
	if loc := raw.FindStringIndex(out); loc != nil {
		t.Fatalf("byref run printed a raw control character at %d:\n%q", loc[0], out)
	}
	for _, want := range []string{`answer := 6 * 7 // \u001b[2K\u001b[1A\u000d\u202eevil`, `model: done\u001b[2J\u001b[H\u009b31m`} {
		if !strings.Contains(out, want) {
			t.Errorf("byref run does not show %q:\n%s", want, out)
		}
	}
	id := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}`).FindString(out)
	out, code = byref(t, "", "runs", "show", id, "--db", db)
	if code != 0 {
		t.Fatalf("runs show: exit %d:\n%q", code, out)
	}
	if loc := raw.FindStringIndex(out); loc != nil {
		t.Fatalf("byref runs show printed a raw control character at %d:\n%q", loc[0], out)
	}
	if !strings.Contains(out, `\u001b[2J`) {
		t.Errorf("runs show does not show the escaped answer:\n%s", out)
	}
}

// byref serve ends cleanly on SIGTERM, as on Ctrl-C.
func TestServeStopsOnSIGTERM(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	cmd := exec.Command(byrefBin, "serve", "--addr", "127.0.0.1:0", "--model", "scripted:hello", "--db", filepath.Join(t.TempDir(), "runs.db"))
	cmd.Env = append(cmd.Environ(), "BYREF_TOKEN=")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, _ := stdout.Read(buf) // the "serving" line
	if !strings.Contains(string(buf[:n]), "serving") {
		_ = cmd.Process.Kill()
		t.Fatalf("serve said %q", buf[:n])
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("byref serve after SIGTERM: %v\n%s", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("byref serve still runs 10s after SIGTERM")
	}
}

func TestHelpPrefersTheTokenVariable(t *testing.T) {
	if !strings.Contains(usage, "prefer setting $BYREF_TOKEN") || !strings.Contains(usage, "ps") {
		t.Fatalf("the help does not say to prefer $BYREF_TOKEN over --token:\n%s", usage)
	}
}
