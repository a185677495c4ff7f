package interp

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestForwardUse: the scan that lets orderInits skip its parse never
// skips a snippet whose declarations move: over the corpus, Go's own test
// programs and the cases below, whenever forwardUse says false, moveInits
// leaves the segments as they are.
func TestForwardUse(t *testing.T) {
	codes := map[string]string{
		"moves":           "var n = len(<-c)\nvar c = make(chan []int, 1)",
		"through a func":  "var total = sum()\nvar prices = []int{1}\nfunc sum() int { return len(prices) }",
		"a func before":   "func a() int { return b() }\nvar v = a()\nvar w = 1\nfunc b() int { return w }",
		"a group":         "var (\n\tx = y\n)\nconst (\n\ty = 1\n)",
		"a type":          "var b Buf\ntype Buf [size]byte\nconst size = 4",
		"in one group":    "var ( a = b; b = 1 )",
		"a group's func":  "var (\n\tcount int\n\tused = f()\n)\nfunc f() int { count++; return count }",
		"a func, a group": "func f() int { count++; return count }\nvar (\n\tcount int\n\tused = f()\n)",
		"in order":        "var total float64\nvar count int\nfor _, o := range orders { total += o.Amount; count++ }\nfmt.Println(total / float64(count))",
		"one declaration": "fmt.Println(f())\nfunc f() int { return x }\nvar x = 1",
		"names in a func": "func f() { var a, b = 1, 2; _, _ = a, b }\nvar a = 1\nvar b = a",
		"a method":        "type T int\nfunc (t T) M() int { return int(t) }\nvar t T\nvar n = t.M()",
	}
	for _, f := range corpusFiles(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c, err := parseCase(name, data)
		if err != nil {
			t.Fatal(err)
		}
		codes[name] = c.code
	}
	if goroot, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		progs, _ := filepath.Glob(filepath.Join(strings.TrimSpace(string(goroot)), "test", "*.go"))
		for _, p := range progs {
			if code, ok := goTestProgram(t, p); ok {
				codes[filepath.Base(p)] = code
			}
		}
	}
	moving := 0
	for name, code := range codes {
		s := splitImports(NormalizeCode(code))
		segs := mergeDecls(cutSegments(s.body))
		moved := moveInits(s.body, slices.Clone(segs))
		if !slices.EqualFunc(moved, segs, func(a, b segment) bool { return a.start == b.start && a.end == b.end }) {
			moving++
			if !forwardUse(s.body) {
				t.Errorf("%s: declarations move, but forwardUse says nothing does", name)
			}
		}
	}
	t.Logf("%d move", moving)
	if moving < 5 {
		t.Errorf("only %d programs move declarations; the test checks nothing", moving)
	}
	for _, name := range []string{"in order", "one declaration"} {
		if forwardUse(codes[name]) {
			t.Errorf("%s: forwardUse says true; the parse is not skipped", name)
		}
	}
}
