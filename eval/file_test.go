package eval_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/byref/byref/eval"
)

// TestLoadBadInput: every bad set file gets an error that names the file
// and the fix.
func TestLoadBadInput(t *testing.T) {
	for _, c := range []struct{ name, file, body, want string }{
		{"no cases", "", "", "holds no cases"},
		{"name and file differ", "a.json", `{"name":"b","task":"t","expect":[]}`, `name the file after the case (b.json)`},
		{"unknown kind", "a.json", `{"name":"a","task":"t","expect":[{"kind":"equals"}]}`, `unknown kind "equals"; known kinds: approval_before, calls,`},
		{"unknown field", "a.json", `{"name":"a","task":"t","expect":[],"expected":[]}`, `unknown field "expected"`},
		{"no task", "a.json", `{"name":"a","expect":[]}`, "has no task"},
		{"not JSON", "a.json", `{"name":`, "a.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.file != "" {
				os.MkdirAll(filepath.Join(dir, "cases"), 0o755)
				os.WriteFile(filepath.Join(dir, "cases", c.file), []byte(c.body), 0o644)
			}
			_, err := eval.Load(dir)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

// TestSaveGoValues: a case made in Go, with starting variables as Go
// values, is saved with their JSON and type names, and loads back.
func TestSaveGoValues(t *testing.T) {
	dir := t.TempDir()
	c := &eval.Case{Name: "go", Task: "Count the words of the note.", Variables: []eval.Var{{Name: "note", Go: &Doc{Body: "one two"}}},
		Expect: []eval.Expectation{eval.Equal(2)}}
	if err := eval.SaveCase(dir, c); err != nil {
		t.Fatal(err)
	}
	set, err := eval.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	v := set.Cases[0].Variables[0]
	var compact bytes.Buffer
	json.Compact(&compact, v.JSON)
	if v.Type != "*eval_test.Doc" || compact.String() != `{"Title":"","Body":"one two"}` {
		t.Fatalf("saved as %s %s", v.Type, v.JSON)
	}
	if err := eval.SaveCase(dir, &eval.Case{Name: "../x", Task: "t"}); err == nil || !strings.Contains(err.Error(), "use letters, digits") {
		t.Fatalf("a case named ../x was saved: %v", err)
	}
}
