package interp

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// hardeningCases each killed the host process with a fatal out-of-memory
// error before the sandbox refused or checked them.
var hardeningCases = []struct {
	name string
	code string
	want error
	msg  string
}{
	{"FormatFloat precision", `fs := strconv.FormatFloat(1.5, 'f', 1<<40, 64)` + "\n_ = fs", ErrAllocLimit, "precision"},
	{"AppendFloat precision", `b := strconv.AppendFloat(nil, 1.5, 'e', 1<<40, 64)` + "\n_ = b", ErrAllocLimit, "precision"},
	{"Rand.Perm", "r := rand.New(rand.NewSource(1))\n_ = r.Perm(1 << 40)", ErrRefused, "Perm"},
	{"Rand.Perm method value", "r := rand.New(rand.NewSource(1))\np := r.Perm\n_ = p(1 << 40)", ErrRefused, "Perm"},
	{"rand/v2 Rand.Perm", "import \"math/rand/v2\"\nr := rand.New(rand.NewPCG(1, 2))\n_ = r.Perm(1 << 40)", ErrRefused, "Perm"},
	{"strings.Join", `j := strings.Join(make([]string, 1<<20), strings.Repeat("x", 1<<20))` + "\n_ = j", ErrAllocLimit, "strings.Join"},
	{"strings.Join big elements", "x := strings.Repeat(\"x\", 1<<20)\nel := make([]string, 1<<10)\nfor i := range el { el[i] = x }\n_ = strings.Join(el, \"\")", ErrAllocLimit, "strings.Join"},
	{"strings.Replace empty old", "x := strings.Repeat(\"x\", 1<<16)\n_ = strings.Replace(x, \"\", x, -1)", ErrAllocLimit, "strings.Replace"},
	{"strings.ReplaceAll", "x := strings.Repeat(\"x\", 1<<16)\n_ = strings.ReplaceAll(x, \"x\", x)", ErrAllocLimit, "strings.ReplaceAll"},
	{"bytes.Join", `_ = bytes.Join(make([][]byte, 1<<20), bytes.Repeat([]byte("x"), 1<<20))`, ErrAllocLimit, "bytes.Join"},
	{"bytes.Replace", "x := bytes.Repeat([]byte(\"x\"), 1<<16)\n_ = bytes.Replace(x, nil, x, -1)", ErrAllocLimit, "bytes.Replace"},
	{"bytes.ReplaceAll", "x := bytes.Repeat([]byte(\"x\"), 1<<16)\n_ = bytes.ReplaceAll(x, []byte(\"x\"), x)", ErrAllocLimit, "bytes.ReplaceAll"},
	{"Grow method value", "var sb strings.Builder\ng := sb.Grow\ng(1 << 40)", ErrRefused, "Grow"},
	{"Grow method expression", "var sb strings.Builder\n(*strings.Builder).Grow(&sb, 1<<40)", ErrRefused, "Grow"},
	{"slices.Grow", "var x []int\nx = slices.Grow(x, 1<<40)", ErrRefused, "Grow"},
	{"named const array", "const n = 1 << 40\nvar big [n]byte\n_ = big", ErrRefused, "array of 1099511627776"},
	{"local const array", "func f() {\n\tconst n = 1 << 40\n\tvar b [n]byte\n\t_ = b\n}\nf()", ErrRefused, "array of"},
	{"const from another part", "const n = 1 << 40\nfunc f() { var b [n]byte; _ = b }\nf()", ErrRefused, "array of"},
	{"iota const array", "const (\n\ta = 1 << (iota + 39)\n\tb\n)\nvar x [b]byte\n_ = x", ErrRefused, "array of 1099511627776"},
	{"package const array", "var x [math.MaxInt32]byte\n_ = x", ErrRefused, "array of 2147483647"},
	{"nested arrays", "var x [1 << 20][1 << 20]byte\n_ = x", ErrRefused, "array of"},
	{"array length from len of an array", "x := [1 << 20]byte{}\nvar y [len(x)][len(x)]byte\n_ = y", ErrRefused, "array of 1099511627776"},
	{"array length from a constant declared later", "var z [m]byte\n_ = z\nconst m = 1 << 40", ErrRefused, "array of 1099511627776"},
	{"literal index", "b := []byte{1 << 40: 1}\n_ = b", ErrRefused, "literal index"},
	{"literal index from len of an array", "x := [1 << 20]byte{}\nb := []byte{len(x) * len(x): 1}\n_ = b", ErrRefused, "literal index of 1099511627776"},
	{"named const literal index", "const k = 1 << 40\nb := []byte{k: 1}\n_ = b", ErrRefused, "literal index"},
	{"nested literal index", "b := [][]byte{{1 << 40: 1}}\n_ = b", ErrRefused, "literal index"},
	{"named type literal index", "type B []byte\nb := B{1 << 40: 1}\n_ = b", ErrRefused, "literal index"},
	{"std type literal index", "x := sort.IntSlice{1 << 40: 1}\n_ = x", ErrRefused, "literal index"},
	{"tabwriter.NewWriter minwidth", "var buf strings.Builder\nw := tabwriter.NewWriter(&buf, 1<<40, 8, 1, ' ', 0)\nfmt.Fprintln(w, \"a\\tb\")\nw.Flush()", ErrAllocLimit, "tabwriter"},
	{"tabwriter.Writer.Init padding", "var buf strings.Builder\nvar w tabwriter.Writer\nw.Init(&buf, 0, 8, 1<<40, ' ', 0)\nfmt.Fprintln(&w, \"a\\tb\")\nw.Flush()", ErrAllocLimit, "tabwriter"},
	{"fmt.Println cyclic slice", "c := []any{nil}\nc[0] = c\nfmt.Println(c)", ErrPrintLimit, "cycle"},
	{"fmt.Sprint cyclic map", "m := map[string]any{}\nm[\"m\"] = m\n_ = fmt.Sprint(m)", ErrPrintLimit, "cycle"},
	{"fmt.Printf deep", "var x any = 0\nfor i := 0; i < 3000; i++ { x = []any{x} }\nfmt.Printf(\"%v\\n\", x)", ErrPrintLimit, "levels deep"},
	{"fmt.Errorf cyclic", "c := []any{nil}\nc[0] = c\n_ = fmt.Errorf(\"%v\", c)", ErrPrintLimit, "cycle"},
	{"fmt.Fprint cyclic", "var sb strings.Builder\nc := []any{nil}\nc[0] = c\nfmt.Fprint(&sb, c)", ErrPrintLimit, "cycle"},
	{"json.Marshal cyclic map", "m := map[string]any{}\nm[\"m\"] = m\n_, _ = json.Marshal(m)", ErrPrintLimit, "cycle"},
	{"json.Marshal cyclic pointer", "type N struct{ Next *N }\nn := &N{}\nn.Next = n\n_, _ = json.Marshal(n)", ErrPrintLimit, "cycle"},
	{"json.MarshalIndent deep", "var x any = 0\nfor i := 0; i < 3000; i++ { x = map[string]any{\"x\": x} }\n_, _ = json.MarshalIndent(x, \"\", \" \")", ErrPrintLimit, "levels deep"},
	{"json.Encoder cyclic", "c := []any{nil}\nc[0] = c\nvar sb strings.Builder\n_ = json.NewEncoder(&sb).Encode(c)", ErrPrintLimit, "cycle"},
	{"xml.Marshal deep", "type X struct{ In *X }\nx := &X{}\nfor i := 0; i < 3000; i++ { x = &X{In: x} }\n_, _ = xml.Marshal(x)", ErrPrintLimit, "levels deep"},
	{"Scanner.Buffer", "sc := bufio.NewScanner(strings.NewReader(\"a\"))\nsc.Buffer(nil, 1<<40)\nfor sc.Scan() {}", ErrAllocLimit, "bufio.Scanner.Buffer"},
}

// TestHardening runs hardeningCases in a subprocess (a regression would kill
// the process): each must fail with a clear error, leaving the interpreter
// usable.
func TestHardening(t *testing.T) {
	if os.Getenv("BYREF_INTERP_CHILD") == "hardening" {
		runHardening(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHardening$", "-test.v")
	cmd.Env = append(os.Environ(), "BYREF_INTERP_CHILD=hardening")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("subprocess failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestHardening/") {
		t.Fatalf("subprocess ran no cases:\n%s", out)
	}
}

func runHardening(t *testing.T) {
	in, err := New(Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range hardeningCases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := in.Eval(context.Background(), Input{Code: tc.code, Vars: []Var{
				{Name: "a", Value: reflect.ValueOf(1)},
				{Name: "s", Value: reflect.ValueOf([]int{1, 2, 3})},
			}})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v (%T), want %v", err, err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("message %q does not contain %q", err.Error(), tc.msg)
			}
			if res.Values != nil {
				t.Errorf("failed Eval returned values: %+v", res)
			}
			checkHealthy(t, in)
		})
	}
}

// TestHardenedStillWork checks that what the hardening wraps or folds still
// works for ordinary use.
func TestHardenedStillWork(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	code := `const n = 4
const (
	c0 = iota
	c1
	c2
)
var arr [n + c2]int
arr[5] = 1
b := []int{2: 5}
m := map[int]string{1 << 40: "big key"}
p := [...]string{3: "x"}
f := strconv.FormatFloat(1.25, 'f', 3, 64)
j := strings.Join([]string{"a", "b"}, ",")
r := strings.Replace("aaa", "a", "bb", 2) + strings.ReplaceAll("x", "", "-")
bj := string(bytes.Join([][]byte{[]byte("c"), []byte("d")}, []byte("+")))
br := string(bytes.ReplaceAll([]byte("ab"), []byte("b"), []byte("cd")))
var buf strings.Builder
w := tabwriter.NewWriter(&buf, 0, 8, 1, ' ', 0)
fmt.Fprintln(w, "a\tb")
w.Flush()
var w2 tabwriter.Writer
w2.Init(&buf, 2, 4, 1, '.', 0).Flush()
sc := bufio.NewScanner(strings.NewReader("l1\nl2"))
sc.Buffer(make([]byte, 16), 1024)
lines := 0
for sc.Scan() { lines++ }
rnd := rand.New(rand.NewSource(1))
xs := []int{1, 2, 3}
rnd.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
tab := buf.String()
type B struct{ V any }
self := &B{}
self.V = self
_ = fmt.Sprint(self) // a pointer below the top is printed as an address: no cycle
big := make([]int, 100000)
_ = fmt.Sprint(big)
fmt.Println(len(arr), arr[5], b, m[1<<40], len(p), f, j, r, bj, br, lines, len(xs), tab)`
	res, err := in.Eval(context.Background(), Input{Code: code})
	if err != nil {
		t.Fatal(err)
	}
	want := "6 1 [0 0 5] big key 4 1.250 a,b bbbba-x- c+d acd 2 3 a b\n\n"
	if res.Stdout != want {
		t.Fatalf("stdout = %q, want %q", res.Stdout, want)
	}
}

// TestArrayLengths: an array length or a literal index is any constant Go
// accepts, also one the sandbox does not fold itself (it takes the type
// check's value): a constant declared after the array, at top level and
// in a func, and len or cap of an array, of a field, of a pointer to an
// array.
func TestArrayLengths(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	code := `var a [n]int
const n = 3
type T struct{ Path [12]int8 }
t1 := &T{}
b := [12]byte{}
b1 := (*[len(t1.Path)]byte)(&b)
var c [len([3]int{}) + cap(b)]string
func f() int { var d [k]bool; return len(d) }
const k = n * 2
var e [2][len(a)]int
g := []string{len(a) + 1: "x", cap(b) - 1: "y"}
h := [...]int{len(t1.Path): 7}
m := map[int]int{len(a): 1}
fmt.Println(len(a), len(b1), len(c), f(), len(e[1]), len(g), g[4], len(h), m[3])`
	for range 2 { // the second time, the check is remembered
		res, err := in.Eval(context.Background(), Input{Code: code})
		if err != nil {
			t.Fatal(err)
		}
		if want := "3 12 15 6 3 12 x 13 1\n"; res.Stdout != want {
			t.Fatalf("stdout = %q, want %q", res.Stdout, want)
		}
	}
	if _, err := Analyze(code, nil); err != nil {
		t.Errorf("Analyze: %v", err)
	}
}

// TestCreatedFuncValuesLeftOut checks that created variables whose type
// contains a func or chan anywhere are not read back.
func TestCreatedFuncValuesLeftOut(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := in.Eval(context.Background(), Input{Code: `type H struct{ f func() int }
type N struct{ ch []chan int }
h := H{f: func() int { return 1 }}
hp := &h
fs := []func(){}
mc := map[string]chan int{}
nested := map[string][]N{}
arr := [2]func(){}
k := 1
type P struct{ A []string }
plain := P{A: []string{"x"}}`})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Created, []string{"k", "plain"}) {
		t.Fatalf("created = %v, want [k plain]", res.Created)
	}
	for _, name := range []string{"h", "hp", "fs", "mc", "nested", "arr"} {
		if _, ok := res.Values[name]; ok {
			t.Errorf("%s was read back", name)
		}
	}
}
