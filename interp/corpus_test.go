package interp

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/byref/byref/codegen/codegentest/shop"
)

var updateCorpus = flag.Bool("update", false, "rewrite the stdout and changes sections of testdata/corpus")

// The corpus: snippets of the kind models write in CodeAct style, over
// typed host variables of a small shop, with its actions as Go functions.
// Each file in testdata/corpus is a txtar archive: a comment, then
//
//	-- code --     the snippet
//	-- stdout --   what it prints
//	-- changes --  "created: a b" and "modified: c" (values that differ
//	               afterwards, by assignment or in place), sorted
//	-- error --    optional: a fragment of the error of a failing snippet
//
// Add a case by adding a file; go test -run TestCorpus -update fills in
// stdout and changes, to be reviewed.

// shopVars returns fresh values of the corpus variables, in a fixed order.
// Their types are the shop package's, which snippets name as shop.Customer
// with no symbol table: the interpreter registers the host types it sees.
func shopVars() []Var {
	var vars []Var
	for _, v := range shop.Variables() {
		vars = append(vars, Var{Name: v.Name, Value: reflect.ValueOf(v.Value)})
	}
	return vars
}

// shopFuncs are the shop's actions as snippets see them; sent collects
// the emails.
func shopFuncs(sent *[]string) map[string]reflect.Value {
	funcs := map[string]reflect.Value{}
	for name, f := range shop.Actions(sent) {
		funcs[name] = reflect.ValueOf(f)
	}
	return funcs
}

// knownFailing are corpus snippets whose interpreted result still differs
// from compiled Go (a yaegi semantics bug, or a construct the interpreter
// refuses though Go accepts it), each with the reason. Their stdout
// section holds what compiled Go prints (go test -run TestNative
// -update-native writes it). TestCorpus and TestNative report them as known
// and fail when one starts to agree, so the list only shrinks.
var knownFailing = map[string]string{}

type corpusCase struct {
	name, comment, code, stdout, changes, err string
	hasErr                                    bool
}

func parseCase(name string, data []byte) (corpusCase, error) {
	c := corpusCase{name: name}
	sections := map[string]*strings.Builder{}
	var comment strings.Builder
	into := &comment
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if h, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "-- "); ok && strings.HasSuffix(h, " --") {
			h = strings.TrimSuffix(h, " --")
			if _, dup := sections[h]; dup {
				return c, fmt.Errorf("%s: section %q twice", name, h)
			}
			sections[h] = &strings.Builder{}
			into = sections[h]
			continue
		}
		into.WriteString(line)
	}
	c.comment = strings.TrimSpace(comment.String())
	for h, b := range sections {
		switch h {
		case "code":
			c.code = b.String()
		case "stdout":
			c.stdout = b.String()
		case "changes":
			c.changes = b.String()
		case "error":
			c.err, c.hasErr = strings.TrimSpace(b.String()), true
		default:
			return c, fmt.Errorf("%s: unknown section %q", name, h)
		}
	}
	if c.code == "" {
		return c, fmt.Errorf("%s: no code section", name)
	}
	return c, nil
}

func (c corpusCase) format() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n-- code --\n%s", c.comment, c.code)
	fmt.Fprintf(&b, "-- stdout --\n%s", c.stdout)
	fmt.Fprintf(&b, "-- changes --\n%s", c.changes)
	if c.hasErr {
		fmt.Fprintf(&b, "-- error --\n%s\n", c.err)
	}
	return b.Bytes()
}

// changesOf describes what an Eval created and changed, compared with a
// fresh fixture.
func changesOf(res Result, fresh []Var) string {
	var modified []string
	for _, v := range fresh {
		got, ok := res.Values[v.Name]
		if ok && !reflect.DeepEqual(got.Interface(), v.Value.Interface()) {
			modified = append(modified, v.Name)
		}
	}
	created := slices.Clone(res.Created)
	sort.Strings(created)
	return fmt.Sprintf("created: %s\nmodified: %s\n", strings.Join(created, " "), strings.Join(modified, " "))
}

func corpusFiles(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	return files
}

// TestCorpus runs every corpus snippet on a fresh interpreter state of its
// own variables and checks its output and exactly which variables it
// created and changed.
func TestCorpus(t *testing.T) {
	files := corpusFiles(t)
	if len(files) < 150 {
		t.Errorf("the corpus has %d snippets, want at least 150", len(files))
	}
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			c, err := parseCase(name, data)
			if err != nil {
				t.Fatal(err)
			}
			var sent []string
			vars := shopVars()
			res, err := in.Eval(context.Background(), Input{Code: c.code, Vars: vars, Funcs: shopFuncs(&sent)})
			stdout := res.Stdout
			if len(sent) > 0 {
				stdout += "[sent] " + strings.Join(sent, "; ") + "\n"
			}
			if err != nil {
				// What a failed snippet leaves behind: the variables as
				// given, which must be as they were.
				res.Values, res.Created = map[string]reflect.Value{}, nil
				for _, v := range vars {
					res.Values[v.Name] = v.Value
				}
			}
			changes := changesOf(res, shopVars())
			if _, known := knownFailing[name]; known && *updateCorpus {
				return // its stdout is compiled Go's; see TestNative -update-native
			}
			if *updateCorpus {
				c.stdout, c.changes = stdout, changes
				if err != nil && !c.hasErr {
					t.Errorf("failed: %v", err)
				}
				if err := os.WriteFile(f, c.format(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if why, known := knownFailing[name]; known {
				// The file holds compiled Go's stdout; TestNative
				// fails when the interpreter starts to agree.
				t.Skipf("known to differ from compiled Go: %s", why)
			}
			switch {
			case c.hasErr && err == nil:
				t.Errorf("succeeded, want an error containing %q", c.err)
			case c.hasErr && !strings.Contains(err.Error(), c.err):
				t.Errorf("error %q, want it to contain %q", err, c.err)
			case !c.hasErr && err != nil:
				t.Fatalf("failed: %v", err)
			}
			if stdout != c.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, c.stdout)
			}
			if changes != c.changes {
				t.Errorf("changes:\n%s\nwant:\n%s", changes, c.changes)
			}
		})
	}
}
