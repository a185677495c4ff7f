package interp

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestYaegiPrograms runs the programs of yaegi v0.16.1's own _test
// directory (most of them regression programs for bugs reported to yaegi)
// as snippets, as TestGoTests runs Go's, and compares each with the same
// program compiled by Go: stdout, stderr and the panic that ends it, or
// the compile error when Go does not build it (its first error's line and
// message). The compiled program is the oracle; a program's
// "// Output:" comment is only logged where it differs from Go.
//
// The programs are read from the module cache (`go mod download -json
// github.com/traefik/yaegi@v0.16.1`, which CI can reach through the module
// proxy; the test skips outside CI when it cannot), never copied into the
// repository. Selected: every _test/*.go file that is package main, has a
// func main and imports only standard packages. The others are left out
// and logged with why: yaegi's multi-file and import tests (they import
// github.com/traefik/yaegi/_test/... or a made-up guthib.com path, or are
// not package main) and the programs without a func main.
//
// A program passes when it agrees with Go, or when the sandbox refuses it
// before it runs with a RefusedError, which names its rule (an import
// outside the allow-list, the go statement, func init, os beyond its
// output streams...); the test logs the count of each. Everything else
// fails the test.
//
// The oracles are built in one `go build` of a module with a package per
// program and run with a bound on concurrency; what each printed is cached
// under the user cache directory, keyed by the Go version and the
// program's text, so a later run builds and runs only what changed. Only
// the programs the sandbox does not refuse get an oracle.
func TestYaegiPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("runs yaegi's test programs")
	}
	yaegiPrograms(t, func(name string) bool { return yaegiSlow[name] == "" }, Options{})
}

// yaegiSlow are programs that take the interpreter minutes: TestYaegiPrograms
// leaves them to TestYaegiProgramsSlow, which runs them without the race
// detector and without a deadline.
var yaegiSlow = map[string]string{
	"fib.go": "fib(35) without memoization: 30 million interpreted calls, about 40 s of CPU without the race detector",
	"l3.go":  "a loop of 20 million iterations",
	"l5.go":  "a loop of 20 million iterations",
}

// yaegiVaries are programs whose output differs from one run to the next
// of the same compiled program; they are left out, with why.
var yaegiVaries = map[string]string{
	"time0.go": "prints time.Now()",
}

// yaegiPrograms runs the selected programs for which run is true, as
// TestYaegiPrograms describes, on interpreters made with opts.
func yaegiPrograms(t *testing.T, run func(name string) bool, opts Options) {
	dir := yaegiTestDir(t)
	all, left := yaegiSelect(t, dir)
	var progs []*yaegiProgram
	for _, p := range all {
		if run(p.name) {
			progs = append(progs, p)
		} else if why := yaegiSlow[p.name]; why != "" {
			t.Logf("%s: run by TestYaegiProgramsSlow: %s", p.name, why)
		}
	}
	for _, l := range left {
		t.Logf("left out: %s", l)
	}

	// The snippets, concurrently.
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, p := range progs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			p.run(opts)
		}()
	}
	wg.Wait()

	slowest := slices.Clone(progs)
	slices.SortFunc(slowest, func(a, b *yaegiProgram) int { return cmp.Compare(b.took, a.took) })
	for _, p := range slowest[:min(5, len(slowest))] {
		t.Logf("%s took the interpreter %v", p.name, p.took.Round(time.Millisecond))
	}

	var need []*yaegiProgram
	refusedBy := map[string]int{}
	for _, p := range progs {
		var re *RefusedError
		if errors.As(p.err, &re) {
			refusedBy[yaegiRule(re.What)]++
			t.Logf("%s: refused by rule: %v", p.name, p.err)
			continue
		}
		need = append(need, p)
	}
	oracles := yaegiOracles(t, need)

	pass, refused := 0, len(progs)-len(need)
	var failed []string
	for _, p := range need {
		o := oracles[p.name]
		if why := p.differs(o); why != "" {
			failed = append(failed, p.name)
			t.Errorf("%s: %s", p.name, why)
			continue
		}
		pass++
		if want, ok := yaegiOutputComment(p.src); ok && o.CompileErr == "" && want != o.Stdout+o.Stderr {
			t.Logf("%s: agrees with Go; its // Output: comment differs from Go's output", p.name)
		}
	}
	var rules []string
	for r, n := range refusedBy {
		rules = append(rules, fmt.Sprintf("%s: %d", r, n))
	}
	sort.Strings(rules)
	t.Logf("%d programs run, %d left out; %d agree with Go, %d refused by a sandbox rule (%s), %d differ (%s)",
		len(progs), len(left), pass, refused, strings.Join(rules, "; "), len(failed), strings.Join(failed, " "))
}

// yaegiModule is the module whose _test programs TestYaegiPrograms runs.
const yaegiModule = "github.com/traefik/yaegi@v0.16.1"

// yaegiTestDir returns the _test directory of yaegiModule in the module
// cache, downloading the module if needed. Outside CI the test is skipped
// when that fails (no go command, no module proxy).
func yaegiTestDir(t *testing.T) string {
	cmd := exec.Command("go", "mod", "download", "-json", yaegiModule)
	cmd.Dir = t.TempDir() // outside byref's module: its go.mod and go.sum stay as they are
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.Output()
	var m struct{ Dir, Error string }
	if err == nil {
		err = json.Unmarshal(out, &m)
	}
	if err == nil && m.Error != "" {
		err = errors.New(m.Error)
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("go mod download %s: %v", yaegiModule, err)
		}
		t.Skipf("go mod download %s: %v", yaegiModule, err)
	}
	return filepath.Join(m.Dir, "_test")
}

// yaegiProgram is one selected program and what its snippet did.
type yaegiProgram struct {
	name string // file name in _test
	src  []byte
	code string // the snippet form (mainAsSnippet)

	stdout, stderr string
	err            error
	took           time.Duration
}

// yaegiSelect returns the programs of dir to run and, for the others, why
// each is left out.
func yaegiSelect(t *testing.T, dir string) (progs []*yaegiProgram, left []string) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no programs in %s: %v", dir, err)
	}
	for _, path := range files {
		name := filepath.Base(path)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			left = append(left, name+": does not parse")
			continue
		}
		if f.Name.Name != "main" {
			left = append(left, name+": package "+f.Name.Name+", not a program")
			continue
		}
		why := ""
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
				why = name + ": imports " + p + ", not a standard package"
				break
			}
		}
		if why != "" {
			left = append(left, why)
			continue
		}
		code, ok := mainAsSnippet(fset, f, src)
		if !ok {
			left = append(left, name+": no func main")
			continue
		}
		if why := yaegiVaries[name]; why != "" {
			left = append(left, name+": its output varies from run to run: "+why)
			continue
		}
		progs = append(progs, &yaegiProgram{name: name, src: src, code: code})
	}
	return progs, left
}

// run runs the program's snippet on a fresh interpreter.
func (p *yaegiProgram) run(opts Options) {
	in, err := New(opts)
	if err != nil {
		p.err = err
		return
	}
	start := time.Now()
	res, err := in.Eval(context.Background(), Input{Code: p.code})
	p.stdout, p.stderr, p.err, p.took = res.Stdout, res.Stderr, err, time.Since(start)
}

// yaegiRule is the rule a refusal's What names, without the particular
// package, name or size.
func yaegiRule(what string) string {
	switch {
	case strings.HasPrefix(what, "import "):
		return "import outside the allow-list"
	case strings.HasPrefix(what, "os."):
		return "os beyond os.Stdout and os.Stderr"
	case strings.HasPrefix(what, "an array of "):
		return "an array longer than 2^24"
	case strings.HasPrefix(what, "a literal index of "):
		return "a literal index above 2^24"
	}
	return what
}

// yaegiOracle is what a program compiled by Go did.
type yaegiOracle struct {
	CompileErr string // the compile errors as go build lists them ("line:col: message" lines); "" when it builds
	Stdout     string
	Stderr     string // without the report of a panic or fatal error
	Panic      string // the report's message ("panic: ..." or "fatal error: ..."), "" when none
	TimedOut   bool   // still running after yaegiOracleTimeout
}

// yaegiOracleFormat names the cached oracles' format; change it with
// yaegiOracle's fields or their meaning.
const yaegiOracleFormat = "2"

// yaegiOracleTimeout bounds one run of a compiled program.
const yaegiOracleTimeout = 20 * time.Second

// differs says how the snippet's outcome differs from the oracle's, or ""
// when they agree.
func (p *yaegiProgram) differs(o yaegiOracle) string {
	var ce *CompileError
	isCompile := errors.As(p.err, &ce)
	switch {
	case o.CompileErr != "" && !isCompile:
		return fmt.Sprintf("Go does not compile it (%s); the snippet gave %v\nstdout:\n%s", o.CompileErr, p.err, clip(p.stdout))
	case o.CompileErr != "":
		if !yaegiSameCompileErr(o.CompileErr, ce) {
			return fmt.Sprintf("compile error differs: snippet %d:%d: %s; Go:\n%s", ce.Line, ce.Column, ce.Msg, o.CompileErr)
		}
		return ""
	case isCompile:
		return fmt.Sprintf("Go compiles it; the snippet does not: %v", p.err)
	case o.TimedOut:
		if errors.Is(p.err, ErrTimeout) {
			return ""
		}
		return fmt.Sprintf("Go's program runs past %v; the snippet ended: %v", yaegiOracleTimeout, p.err)
	}
	var b strings.Builder
	stderr := p.stderr
	var pe *PanicError
	if errors.As(p.err, &pe) {
		stderr = panicTrace.ReplaceAllString(stderr, "")
	}
	if p.stdout != o.Stdout {
		fmt.Fprintf(&b, "stdout differs\nsnippet:\n%s\nGo:\n%s\n", clip(p.stdout), clip(o.Stdout))
	}
	if stderr != o.Stderr {
		fmt.Fprintf(&b, "stderr differs\nsnippet:\n%s\nGo:\n%s\n", clip(stderr), clip(o.Stderr))
	}
	switch {
	case o.Panic == "" && p.err != nil:
		fmt.Fprintf(&b, "the snippet failed: %v\n", p.err)
	case o.Panic != "" && !errors.As(p.err, &pe):
		fmt.Fprintf(&b, "Go's program ends with %q; the snippet gave %v\n", o.Panic, p.err)
	case o.Panic != "" && "panic: "+pe.Value != o.Panic && !yaegiRepanic(o.Panic, pe.Value):
		fmt.Fprintf(&b, "panic differs: snippet %q, Go %q\n", "panic: "+pe.Value, o.Panic)
	}
	return b.String()
}

// panicTrace matches the lines of the interpreter's call trace that
// follow a panic on stderr ("snippet:15: panic: main.baz(...)"), where Go
// prints its goroutine dump after the panic's report.
var panicTrace = regexp.MustCompile(`(?m)^snippet:\d+: panic: .*\(\.\.\.\)\n`)

// yaegiRepanic reports whether Go's report is of a value recovered and
// panicked again (Go prints the chain, the snippet the last value).
func yaegiRepanic(report, value string) bool {
	return strings.Contains(report, " [recovered") && strings.HasSuffix(report, "\tpanic: "+value)
}

var compileErrLine = regexp.MustCompile(`^\t?(\d+):(\d+): (.*)$`)

// yaegiSameCompileErr reports whether the snippet's compile error is one
// Go reports: the same message (its first line) at the same line, or at
// the line of the other declaration Go names with it. Go lists every
// error of a file (up to ten), the snippet its first; which one comes
// first differs (Go reports "declared and not used" in position order).
func yaegiSameCompileErr(goErrs string, ce *CompileError) bool {
	msg, _, _ := strings.Cut(ce.Msg, "\n")
	match := false
	for _, l := range strings.Split(goErrs, "\n") {
		m := compileErrLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		line, _ := strconv.Atoi(m[1])
		if strings.HasPrefix(l, "\t") { // "other declaration of x" for the error above
			if match && line == ce.Line {
				return true
			}
			continue
		}
		match = m[3] == msg
		if match && line == ce.Line {
			return true
		}
	}
	return false
}

// yaegiOutputComment returns the text of a program's "// Output:" comment.
func yaegiOutputComment(src []byte) (string, bool) {
	_, after, ok := bytes.Cut(src, []byte("\n// Output:\n"))
	if !ok {
		return "", false
	}
	var b strings.Builder
	for _, l := range strings.Split(string(after), "\n") {
		if !strings.HasPrefix(l, "//") {
			break
		}
		b.WriteString(strings.TrimPrefix(strings.TrimPrefix(l, "//"), " "))
		b.WriteByte('\n')
	}
	return b.String(), true
}

// yaegiOracles returns what each program did compiled by Go, from the
// cache or by building the missing ones in one go build and running them.
func yaegiOracles(t *testing.T, progs []*yaegiProgram) map[string]yaegiOracle {
	goVersion, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	version := strings.TrimSpace(string(goVersion))
	cacheDir := ""
	if d, err := os.UserCacheDir(); err == nil {
		cacheDir = filepath.Join(d, "byref", "yaegi-oracle")
		if err := os.MkdirAll(cacheDir, 0o755); err != nil {
			cacheDir = ""
		}
	}
	key := func(p *yaegiProgram) string {
		h := sha256.New()
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", yaegiOracleFormat, version, p.name)
		h.Write(p.src)
		return hex.EncodeToString(h.Sum(nil))
	}
	res := map[string]yaegiOracle{}
	var missing []*yaegiProgram
	for _, p := range progs {
		if cacheDir != "" {
			if b, err := os.ReadFile(filepath.Join(cacheDir, key(p)+".json")); err == nil {
				var o yaegiOracle
				if json.Unmarshal(b, &o) == nil {
					res[p.name] = o
					continue
				}
			}
		}
		missing = append(missing, p)
	}
	if len(missing) == 0 {
		return res
	}

	// One module, a main package per program, one go build.
	dir := t.TempDir()
	pkg := func(p *yaegiProgram) string { return strings.TrimSuffix(p.name, ".go") }
	lang := strings.TrimPrefix(version, "go")
	if parts := strings.SplitN(lang, ".", 3); len(parts) == 3 {
		lang = parts[0] + "." + parts[1]
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module yaegiprog\n\ngo "+lang+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range missing {
		d := filepath.Join(dir, "p", pkg(p))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "main.go"), p.src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-ldflags=-s -w", "-o", bin+string(filepath.Separator), "./...")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "CGO_ENABLED=0")
	out, _ := build.CombinedOutput() // failures are the programs Go does not compile
	compileErrs := yaegiBuildErrors(string(out))

	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, p := range missing {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			var o yaegiOracle
			if e, ok := compileErrs[pkg(p)]; ok {
				o.CompileErr = e
			} else if _, err := os.Stat(filepath.Join(bin, pkg(p))); err != nil {
				t.Errorf("%s: go build made no binary and reported no error:\n%s", p.name, clip(string(out)))
				return
			} else {
				o = yaegiRunOracle(t, filepath.Join(bin, pkg(p)), dir)
			}
			mu.Lock()
			res[p.name] = o
			mu.Unlock()
			if cacheDir != "" {
				b, _ := json.Marshal(o)
				_ = os.WriteFile(filepath.Join(cacheDir, key(p)+".json"), b, 0o644)
			}
		}()
	}
	wg.Wait()
	return res
}

// yaegiBuildErrors returns the compile errors of each package in go
// build's output, as "line:col: message" lines (an error's own further
// lines start with a tab), keyed by the package's directory name.
func yaegiBuildErrors(out string) map[string]string {
	errs := map[string]string{}
	cur := ""
	for _, l := range strings.Split(out, "\n") {
		if pkg, ok := strings.CutPrefix(l, "# yaegiprog/p/"); ok {
			cur = pkg
			continue
		}
		if cur == "" {
			continue
		}
		prefix := "p/" + cur + "/main.go:"
		if _, rest, ok := strings.Cut(l, prefix); ok {
			if strings.HasPrefix(l, "\t") {
				rest = "\t" + rest
			}
			errs[cur] += rest + "\n"
		}
	}
	return errs
}

// yaegiRunOracle runs a compiled program with an empty stdin in dir.
func yaegiRunOracle(t *testing.T, bin, dir string) yaegiOracle {
	ctx, cancel := context.WithTimeout(context.Background(), yaegiOracleTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	o := yaegiOracle{Stdout: stdout.String(), Stderr: stderr.String()}
	if ctx.Err() != nil {
		o.TimedOut = true
		return o
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 2 {
		o.Stderr, o.Panic = splitPanicReport(o.Stderr)
	} else if err != nil {
		t.Logf("%s: %v", filepath.Base(bin), err)
		o.Panic = "exit: " + err.Error()
	}
	return o
}

// splitPanicReport splits a crashed program's stderr into what the program
// wrote and the runtime's report's message: from its last line starting
// with "panic: " or "fatal error: " before the goroutine dump, to the dump.
func splitPanicReport(stderr string) (own, report string) {
	end := strings.Index(stderr, "\n\ngoroutine ")
	if end < 0 {
		end = len(stderr)
	}
	head := stderr[:end]
	start := -1
	for _, marker := range []string{"panic: ", "fatal error: "} {
		if strings.HasPrefix(head, marker) {
			start = max(start, 0)
		}
		if i := strings.LastIndex(head, "\n"+marker); i >= 0 {
			start = max(start, i+1)
		}
	}
	if start < 0 {
		return stderr, ""
	}
	// A chain of panics ("panic: a [recovered]\n\tpanic: b") starts at the
	// last line that starts with "panic: ", its first.
	return stderr[:start], strings.TrimSuffix(head[start:], "\n")
}
