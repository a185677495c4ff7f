package interp

import (
	"context"
	"errors"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Go's own tests: every program of $(go env GOROOT)/test (the top-level
// directory) whose first line is "// run", that builds for this platform
// and imports only allowed packages, runs as a snippet with its package
// clause dropped and its func main renamed and called at the end. Each
// must either print what its .out file holds (nothing when there is none;
// print and println write to stderr, as in Go, and the two streams are
// compared together) without panicking, or be refused before it runs by
// one of the sandbox's rules (sandboxRules). goTestKnown lists the
// programs that do neither yet, each with its cause: the test fails when
// one of them starts to pass (take it off the list) and when any other
// program fails. interp/doc.go reports the counts.

// sandboxRules are the refusals the sandbox makes by design, as the What
// of a RefusedError begins.
var sandboxRules = []string{
	"the go statement",
	"func init",
	"an array of ",
	"a literal index",
	"Grow",
	"Perm",
}

// goTestSlow are programs that take the interpreter minutes: TestGoTests
// leaves them to TestGoTestsSlow, which runs them without the race
// detector (gotest_slow_test.go; `make test` runs it as its own step).
var goTestSlow = map[string]string{
	"divmod.go":    "checks x/y and x%y in every integer type for about 4 million pairs against a shift-and-subtract division: minutes interpreted",
	"maplinear.go": "times map operations at growing sizes and retries until they look linear: on a loaded machine under the race detector it ran past the 10 s deadline",
}

// goTestKnown are the programs that neither pass nor are refused by a
// sandbox rule, with why.
var goTestKnown = map[string]string{}

func TestGoTests(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Go's own test programs")
	}
	files, _ := filepath.Glob(filepath.Join(goTestDir(t), "*.go"))
	if len(files) == 0 {
		t.Skip("no test programs")
	}
	var pass, refused, known, slow []string
	for _, f := range files {
		code, ok := goTestProgram(t, f)
		if !ok {
			continue
		}
		name := filepath.Base(f)
		if why, ok := goTestSlow[name]; ok {
			slow = append(slow, name)
			t.Logf("%s: run by TestGoTestsSlow: %s", name, why)
			continue
		}
		want := goTestWant(f)
		got, err := runGoTest(code)
		switch {
		case goTestPassed(got, want, err):
			pass = append(pass, name)
			if why, ok := goTestKnown[name]; ok {
				t.Errorf("%s passes now; take it off goTestKnown (%s)", name, why)
			}
			continue
		case goTestRefused(err):
			refused = append(refused, name)
			t.Logf("%s: refused by rule: %v", name, err)
			continue
		}
		known = append(known, name)
		if _, ok := goTestKnown[name]; ok {
			continue
		}
		if err != nil {
			t.Errorf("%s: %v\noutput:\n%s", name, err, clip(got))
		} else {
			t.Errorf("%s: output differs\ngot:\n%s\nwant:\n%s", name, clip(got), clip(want))
		}
	}
	t.Logf("%d programs: %d pass, %d refused by a sandbox rule, %d fail (%s), %d left to TestGoTestsSlow (%s)",
		len(pass)+len(refused)+len(known)+len(slow), len(pass), len(refused), len(known), strings.Join(known, " "), len(slow), strings.Join(slow, " "))
}

// goTestDir is $(go env GOROOT)/test; the test is skipped without a go
// command.
func goTestDir(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "test")
}

// goTestWant is what the program f must print: its .out file, or nothing.
func goTestWant(f string) string {
	b, err := os.ReadFile(strings.TrimSuffix(f, ".go") + ".out")
	if err != nil {
		return ""
	}
	return string(b)
}

// goTestPassed reports whether a program ran to its end printing want.
func goTestPassed(got, want string, err error) bool { return err == nil && got == want }

// goTestRefused reports whether err is a refusal by one of sandboxRules.
func goTestRefused(err error) bool {
	var re *RefusedError
	return errors.As(err, &re) && slices.ContainsFunc(sandboxRules, func(r string) bool { return strings.HasPrefix(re.What, r) })
}

func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}

var runLine = regexp.MustCompile(`^// run\n`)

// goTestProgram returns the snippet form of a test program, if it is one
// this test runs.
func goTestProgram(t *testing.T, path string) (string, bool) {
	src, err := os.ReadFile(path)
	if err != nil || !runLine.Match(src) {
		return "", false
	}
	if ok, err := build.Default.MatchFile(filepath.Dir(path), filepath.Base(path)); err != nil || !ok {
		return "", false
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return "", false
	}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if !stdPathsAllowed(p) {
			return "", false
		}
	}
	code, ok := mainAsSnippet(fset, f, src)
	if !ok {
		t.Logf("%s: no func main", path)
	}
	return code, ok
}

// mainAsSnippet returns the snippet form of a parsed program: its package
// clause blanked (lines and columns kept) and its func main renamed and
// called at the end. It reports false when there is no func main.
func mainAsSnippet(fset *token.FileSet, f *ast.File, src []byte) (string, bool) {
	mainAt := -1
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" {
			mainAt = fset.Position(fd.Name.Pos()).Offset
		}
	}
	if mainAt < 0 {
		return "", false
	}
	b := slices.Clone(src)
	pk := fset.Position(f.Package).Offset
	end := fset.Position(f.Name.End()).Offset
	for i := pk; i < end; i++ {
		b[i] = ' '
	}
	return string(b[:mainAt]) + "goMain" + string(b[mainAt+len("main"):]) + "\ngoMain()\n", true
}

// runGoTest runs a program's snippet form on a fresh interpreter and
// returns its stdout and stderr together.
func runGoTest(code string) (string, error) { return runGoTestWith(code, Options{}) }

// runGoTestWith is runGoTest with the interpreter's options.
func runGoTestWith(code string, opts Options) (string, error) {
	in, err := New(opts)
	if err != nil {
		return "", err
	}
	res, err := in.Eval(context.Background(), Input{Code: code})
	return res.Stdout + res.Stderr, err
}
