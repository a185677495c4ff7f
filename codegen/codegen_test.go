package codegen_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/byref/byref/codegen"
	"github.com/byref/byref/codegen/codegentest"
	goldenfile "github.com/byref/byref/internal/golden"
)

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) { t.Helper(); goldenfile.Check(t, name, got) }

type generated struct {
	scenario
	src    []byte
	vars   map[string]json.RawMessage
	result json.RawMessage
}

// TestGolden records every scenario, compares the generated code with its
// golden file, then compiles, vets and runs all programs in one temporary
// module and checks that each reproduces its run.
func TestGolden(t *testing.T) {
	var all []generated
	for _, sc := range scenarios() {
		t.Run("generate/"+sc.name, func(t *testing.T) {
			rec, vars, result := sc.record(t)
			src, err := codegen.Generate(rec, codegen.Options{Main: true, ActionSet: codegentest.Actions})
			if err != nil {
				t.Fatalf("%v\n%s", err, src)
			}
			for _, s := range sc.secrets {
				if bytes.Contains(src, []byte(s)) {
					t.Errorf("the generated source contains the secret %q", s)
				}
			}
			golden(t, sc.name+".golden", src)
			all = append(all, generated{sc, src, vars, result})
		})
	}
	if t.Failed() {
		return
	}
	if testing.Short() {
		t.Skip("compiling the replays is skipped in -short mode")
	}
	dir := t.TempDir()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	gomod := "module replaytest\n\ngo 1.26\n\nrequire github.com/byref/byref v0.0.0\n\nreplace github.com/byref/byref => " + root + "\n"
	write(t, filepath.Join(dir, "go.mod"), []byte(gomod))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "go.sum"), sum)
	for _, g := range all {
		write(t, filepath.Join(dir, g.name, "main.go"), g.src)
	}
	bin := filepath.Join(dir, "bin")
	goCmd(t, dir, "build", "-o", bin+string(filepath.Separator), "./...")
	goCmd(t, dir, "vet", "./...")
	for _, g := range all {
		t.Run("run/"+g.name, func(t *testing.T) {
			cmd := exec.Command(filepath.Join(bin, g.name))
			cmd.Env = os.Environ()
			for k, v := range g.env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("the replay failed: %v\n%s", err, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			var got struct {
				Result    json.RawMessage            `json:"result"`
				Variables map[string]json.RawMessage `json:"variables"`
			}
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
				t.Fatalf("the replay's last line is not its JSON: %v\n%s", err, out)
			}
			if !sameJSON(t, got.Result, g.result) {
				t.Errorf("result = %s, want %s", got.Result, g.result)
			}
			for name, want := range g.vars {
				if !sameJSON(t, got.Variables[name], want) {
					t.Errorf("variable %s = %s, want %s", name, got.Variables[name], want)
				}
			}
			for name := range got.Variables {
				if _, ok := g.vars[name]; !ok {
					t.Errorf("the replay has variable %s, which the run does not", name)
				}
			}
		})
	}
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(goroot(), "bin", "go"), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func goroot() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "/usr/local/go"
	}
	return strings.TrimSpace(string(out))
}

// sameJSON compares two JSON texts by value; nil and null are equal.
func sameJSON(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if len(a) > 0 {
		if err := json.Unmarshal(a, &x); err != nil {
			t.Fatalf("%s: %v", a, err)
		}
	}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &y); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
	}
	return reflect.DeepEqual(x, y)
}
