package interp

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// byref: tests of the compiler patches listed in ../README.md that the
// byref interp package cannot observe from outside.

func newTestInterp(t *testing.T, opts Options) *Interpreter {
	t.Helper()
	i := New(opts)
	if err := i.Use(Exports{"strings/strings": {
		"ToUpper": reflect.ValueOf(strings.ToUpper),
		"Repeat":  reflect.ValueOf(strings.Repeat),
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := i.Eval(`import "strings"`); err != nil {
		t.Fatal(err)
	}
	return i
}

// TestNoDebugRoots: with NoDebugRoots, compiled sources are not kept for a
// Debugger; without it, every Eval adds its root.
func TestNoDebugRoots(t *testing.T) {
	for _, drop := range []bool{false, true} {
		i := newTestInterp(t, Options{NoDebugRoots: drop})
		before := len(i.roots)
		for range 3 {
			if _, err := i.Eval(`x := strings.ToUpper("a")`); err != nil {
				t.Fatal(err)
			}
		}
		got := len(i.roots) - before
		if want := 3; drop {
			if got != 0 {
				t.Errorf("NoDebugRoots: %d roots kept, want 0", got)
			}
		} else if got != want {
			t.Errorf("default: %d roots kept, want %d", got, want)
		}
	}
}

// TestSharedHostTypes: the itype of a host type is built once per
// interpreter, and the sites that set a field of a node's type change a
// copy, never the shared one.
func TestSharedHostTypes(t *testing.T) {
	i := newTestInterp(t, Options{})
	for _, src := range []string{
		`func up(s string) string { return strings.ToUpper(s) }
func twice(s string) string { return strings.Repeat(s, 2) }`,
		`a := up("x"); b := twice(a)`,
	} {
		if _, err := i.Eval(src); err != nil {
			t.Fatal(err)
		}
	}
	st := i.hostTypes[reflect.TypeOf("")]
	if st == nil {
		t.Fatal("no shared itype for string after two host calls returning one")
	}
	if st.node != nil {
		t.Errorf("the shared string itype records a %v node; it must stay as built", st.node.kind)
	}
	if _, err := i.Eval(`c := up("y") + twice("z")`); err != nil {
		t.Fatal(err)
	}
	if i.hostTypes[reflect.TypeOf("")] != st {
		t.Error("the shared string itype was rebuilt by a later Eval")
	}
	v, err := i.Eval(`c`)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.String(); got != "Yzz" {
		t.Errorf("c = %q, want %q", got, "Yzz")
	}
}

// TestTrackNode: cfg's one recover names the node whose post-order
// processing panicked because trackNode records it while, and only while,
// that processing runs.
func TestTrackNode(t *testing.T) {
	var cur *node
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("trackNode leaked a panic it should not see: %v", r)
			}
		}()
		n := &node{ident: "n"}
		trackNode(&cur, func(m *node) {
			if cur != m {
				t.Errorf("during f, cur = %v, want the node f runs for", cur)
			}
		})(n)
	}()
	if cur != nil {
		t.Errorf("after f, cur = %v, want nil", cur.ident)
	}
}

// TestUseShared: UseShared borrows a package's map instead of copying it,
// and the interpreter copies it before changing it (the stdio fixes of fmt,
// a later Use of the same path), so the shared map never changes.
func TestUseShared(t *testing.T) {
	fmtSyms := map[string]reflect.Value{
		"Fprint":   reflect.ValueOf(fmt.Fprint),
		"Fprintf":  reflect.ValueOf(fmt.Fprintf),
		"Fprintln": reflect.ValueOf(fmt.Fprintln),
		"Println":  reflect.ValueOf(fmt.Println),
		"Sprint":   reflect.ValueOf(fmt.Sprint),
	}
	strSyms := map[string]reflect.Value{"ToUpper": reflect.ValueOf(strings.ToUpper)}
	println0 := fmtSyms["Println"].Pointer()
	var outs [2]strings.Builder
	for k := range outs {
		i := New(Options{Stdout: &outs[k], LazyGenerics: true})
		if err := i.UseShared(Exports{"fmt/fmt": fmtSyms, "strings/strings": strSyms}); err != nil {
			t.Fatal(err)
		}
		if reflect.ValueOf(i.binPkg["strings"]).Pointer() != reflect.ValueOf(strSyms).Pointer() {
			t.Error("strings: the map was copied, not shared")
		}
		if err := i.Use(Exports{"strings/strings": {"ToLower": reflect.ValueOf(strings.ToLower)}}); err != nil {
			t.Fatal(err)
		}
		if _, err := i.Eval(`import ("fmt"; "strings")`); err != nil {
			t.Fatal(err)
		}
		if _, err := i.Eval(fmt.Sprintf(`fmt.Println(strings.ToLower(strings.ToUpper("x")), %d)`, k)); err != nil {
			t.Fatal(err)
		}
	}
	for k := range outs {
		if got, want := outs[k].String(), fmt.Sprintf("x %d\n", k); got != want {
			t.Errorf("interpreter %d printed %q, want %q", k, got, want)
		}
	}
	if len(fmtSyms) != 5 || fmtSyms["Println"].Pointer() != println0 {
		t.Error("fmt: the shared map was changed")
	}
	if len(strSyms) != 1 {
		t.Errorf("strings: the shared map was changed: %d symbols", len(strSyms))
	}
}

// TestExecWorker: sequential ExecuteWithContext calls, on one interpreter
// or several, reuse the idle worker instead of leaving goroutines, and a
// stopped program does not keep the next one from running.
func TestExecWorker(t *testing.T) {
	run := func(i *Interpreter, ctx context.Context, src string) (reflect.Value, error) {
		p, err := i.Compile(src)
		if err != nil {
			t.Fatal(err)
		}
		return i.ExecuteWithContext(ctx, p)
	}
	a, b := New(Options{}), New(Options{})
	for k := range 3 {
		if _, err := run(a, context.Background(), fmt.Sprintf("x%d := %d", k, k)); err != nil {
			t.Fatal(err)
		}
	}
	base := runtime.NumGoroutine()
	for k := range 20 {
		i := a
		if k%2 == 1 {
			i = b
		}
		v, err := run(i, context.Background(), fmt.Sprintf("y%d := %d * 2; y%d", k, k, k))
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Interface(); got != 2*k {
			t.Fatalf("run %d: got %v, want %d", k, got, 2*k)
		}
	}
	if n := runtime.NumGoroutine(); n > base {
		t.Errorf("goroutines: %d after 20 runs, %d before", n, base)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := run(a, ctx, "for {}"); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped run: %v", err)
	}
	// The stopped program may still be running on a (yaegi's stop is
	// cooperative): the next runs on another interpreter.
	if v, err := run(New(Options{}), context.Background(), "z := 7; z"); err != nil || v.Interface() != 7 {
		t.Fatalf("after a stop: %v, %v", v, err)
	}
}

// TestIdleWorkerExits: the idle worker exits once it has waited
// idleWorkerFor without work, so a process that stops running programs
// keeps no goroutine of yaegi's.
func TestIdleWorkerExits(t *testing.T) {
	i := New(Options{})
	p, err := i.Compile("1 + 1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := i.ExecuteWithContext(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if idleWorkers() > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("the idle worker is still there a minute later:\n%s", allStacks())
			}
			continue
		}
		break
	}
	// A program after the worker left starts a new one and runs.
	if v, err := i.ExecuteWithContext(context.Background(), p); err != nil || v.Interface() != 2 {
		t.Fatalf("after the worker left: %v, %v", v, err)
	}
}

func allStacks() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

// idleWorkers counts the execWorkers waiting for work (a stopped program
// of another test may still run on one).
func idleWorkers() int {
	n := 0
	for _, g := range strings.Split(allStacks(), "\n\n") {
		if (strings.Contains(g, "[select") || strings.Contains(g, "[chan receive")) && strings.Contains(g, "interp.execWorker(") {
			n++
		}
	}
	return n
}

// TestGoSemanticsInYaegi: the semantics patches as yaegi alone shows them
// (byref's interp tests them through the sandbox, TestGoSemantics).
func TestGoSemanticsInYaegi(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"loop variables", `package main
func main() {
	var fs []func()
	for i := 0; i < 3; i++ { fs = append(fs, func() { print(i) }) }
	for _, s := range []string{"a", "b"} { fs = append(fs, func() { print(s) }) }
	for i := range 2 { defer func() { print(i) }() }
	for _, f := range fs { f() }
}`, "012ab10"},
		{"range over a function", `package main
func seq(yield func(int, string) bool) { _ = yield(1, "x") && yield(2, "y") && yield(3, "z") }
func main() {
	for k, v := range seq { if k == 3 { break }; print(k, v) }
}`, "1x2y"},
		{"min, max, clear, new", `package main
func main() {
	m := map[int]int{1: 1}
	clear(m)
	p := new(7)
	print(max(3.5, 2, 7), " ", min(2, 1), " ", len(m), " ", *p)
}`, "7 1 0 7"},
		{"method expression", `package main
type T struct{ n int }
func (t T) Add(x int) int { return t.n + x }
func main() { print(T.Add(T{1}, 2)) }`, "3"},
		{"unnamed parameters have their frame slot", `package main
func enter() func() { return func() {} }
func f(bool, int) (n int) { defer enter()(); x := 5; return x }
func main() { print(f(true, 3)) }`, "5"},
		{"index panic", `package main
func main() {
	defer func() { print(recover().(error).Error()) }()
	s := []int{1, 2}
	i := 5
	_ = s[i]
}`, "runtime error: index out of range [5] with length 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			i := New(Options{Stdout: &out, Stderr: &out})
			if _, err := i.Eval(c.src); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestHoldTopDefers: a top-level defer runs once; held, it waits for the
// next run that does not hold.
func TestHoldTopDefers(t *testing.T) {
	var out strings.Builder
	i := New(Options{Stdout: &out, Stderr: &out})
	i.HoldTopDefers(true)
	if _, err := i.Eval(`defer print("d1 ")`); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "" {
		t.Fatalf("a held defer ran: %q", got)
	}
	i.HoldTopDefers(false)
	for _, src := range []string{`print("a ")`, `print("b ")`} {
		if _, err := i.Eval(src); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := out.String(), "a d1 b "; got != want {
		t.Errorf("got %q, want %q: the defer runs at the end of the next run, once", got, want)
	}
}

// TestConstDecls: constant declarations as Go computes them, at top level
// (which yaegi compiles twice, gta then cfg) and in a function alike:
//   - string(n) of an integer constant (the conversion turned its operand
//     into the string, and the second visit failed on it);
//   - a comparison of constants is a constant (it was left to run, and a
//     constant declaration never runs: false);
//   - iota is the index of its spec: it counts specs, not names, and a
//     spec compiled late (p = q before q = iota) does not shift it;
//   - an implicit repetition of a spec of several names repeats each value
//     (it repeated the last, and panicked).
func TestConstDecls(t *testing.T) {
	const decls = `const (
	s = string(iota + 'a')
	t
)
type S string
const u S = S(0x263A)
const v, w = string(-1), string(1 << 70)
const (
	m = iota == 0
	n
	o = u > "a" && 2.5 >= 2
)
const (
	a, b = 1 << iota, 1<<iota - 1
	c, d
	e, f
)
const (
	g, h int8 = iota, -iota
	k, l
)
const (
	p = q
	q = iota
)
`
	const expr = `[]any{s + t, string(u), v + w, m, n, o, a, b, c, d, e, f, g, h, k, l, p, q}`
	const want = "[ab \u263a \ufffd\ufffd true false true 1 0 2 1 4 3 0 0 1 -1 1 1]"
	for _, c := range []struct{ name, src string }{
		{"top level", decls + "var r = " + expr},
		{"in a function", "func g() []any {\n" + decls + "return " + expr + "\n}\nvar r = g()"},
	} {
		t.Run(c.name, func(t *testing.T) {
			i := New(Options{})
			if _, err := i.Eval(c.src); err != nil {
				t.Fatal(err)
			}
			v, err := i.Eval("r")
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(v.Interface()); got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

// TestLenOfArrays: len and cap of an array are constants whose operand is
// not evaluated (s[10] of an empty s panicked), and of a nil pointer to an
// array its type's length (the pointer was dereferenced).
func TestLenOfArrays(t *testing.T) {
	i := New(Options{})
	if _, err := i.Eval("var s [][30]int\nvar p *[40]int\nconst n, c = len(s[10]), cap(s[9])\nvar r = []int{n, c, len(p), cap(p)}"); err != nil {
		t.Fatal(err)
	}
	v, err := i.Eval("r")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(v.Interface()), "[30 30 40 40]"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestRecursiveTypes: a named type that contains itself through unnamed
// slices, maps, pointers and funcs compiles, runs, and has one reflect
// type that contains itself.
func TestRecursiveTypes(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"slice", `package main
type T []T
func ln(args ...T) int { return len(args) }
func main() {
	x := T{T{}, T{T{}}}
	y := x[1]
	print(ln(T{}, nil, x), ln([]T{}), ln(x...), len(y), len(y[0]), len(x[1][0]))
}`, "312100"},
		{"slice of pointers", `package main
type T []*T
func main() {
	t := T{}
	t = append(t, &t)
	p := &T{}
	t = append(t, p)
	print(len(*t[0]), (*t[0])[0] == &t, t[1] == p, t[0] == p)
}`, "2truetruefalse"},
		{"array of pointers", `package main
type A [2]*A
func main() {
	var a A
	a[0] = &a
	b := A{&a, nil}
	s := a[:]
	print(a[0] == &a, b[0][0] == &a, s[0] == &a, len(s))
}`, "truetruetrue2"},
		{"array of slices", `package main
type B [2][]B
func main() {
	var b B
	b[1] = []B{{}, b}
	print(len(b[1]), len(b[1][1][0]), len(b[1][1][1]))
}`, "200"},
		{"array of structs", `package main
type T [2]struct{ Name string; Next *T }
type S struct{ N int; Ts []U }
type U [1]S
func main() {
	var a, b T
	a[0].Name, a[1].Next = "a", &b
	b[1].Name = "b"
	u := U{{N: 1, Ts: []U{{{N: 2}}}}}
	print(a[1].Next[1].Name, a[1].Next == &b, u[0].Ts[0][0].N)
}`, "btrue2"},
		{"map of pointers", `package main
type Tree map[string]*Tree
func main() {
	root := Tree{}
	child := &Tree{"leaf": nil}
	root["a"] = child
	print(root["a"] == child, len(*root["a"]))
}`, "true1"},
		{"through a named struct", `package main
type Nodes []Node
type Node struct{ Name string; Kids Nodes }
func walk(ns Nodes) string { s := ""; for _, n := range ns { s += n.Name + "(" + walk(n.Kids) + ")" }; return s }
func main() { print(walk(Nodes{{"a", Nodes{{"b", nil}, {Name: "c"}}}, {Name: "d"}})) }`, "a(b()c())d()"},
		{"slice of an unnamed struct", `package main
type T []struct{ N int; Kids T }
func sum(t T) int { s := 0; for _, e := range t { s += e.N + sum(e.Kids) }; return s }
func main() {
	t := T{{N: 1, Kids: T{{N: 2}, {N: 3, Kids: T{{N: 4}}}}}}
	print(sum(t))
}`, "10"},
		{"two types through each other", `package main
type A []B
type B []A
func main() {
	a := A{B{A{}, nil}}
	var b B = a[0]
	print(len(a), len(b), len(b[0]))
}`, "120"},
		{"map", `package main
type Tree map[string]Tree
func main() {
	t := Tree{"a": Tree{"b": nil}}
	t["a"]["c"] = Tree{}
	print(len(t), len(t["a"]), t["a"]["c"] != nil)
}`, "12true"},
		{"func", `package main
type F func(s string) F
var log string
func a(s string) F { log += "a(" + s + ")"; return F(a) }
func b(s string) F { log += "b(" + s + ")"; return a }
func main() {
	var f F = b
	f("1")("2")("3")
	print(log)
}`, "b(1)a(2)a(3)"},
		{"method expression of a variadic method", `package main
type T []T
func (*T) Sum(args ...int) int { s := 0; for _, v := range args { s += v }; return s }
func main() { print((*T).Sum(nil, 1, 3, 5, 6), ((*T)(nil)).Sum(1, 2)) }`, "153"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			i := New(Options{Stdout: &out, Stderr: &out})
			if _, err := i.Eval(c.src); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
	// Two such types are not convertible: reflect alone would compare
	// their elements until the stack overflows.
	_, err := New(Options{}).Eval("package main\ntype A []A\ntype B []B\nfunc main() { a := A{}; b := B(a); _ = b }")
	if err == nil || !strings.Contains(err.Error(), "cannot convert") {
		t.Errorf("B(a): got %v, want a cannot convert error", err)
	}
	i := New(Options{})
	if _, err := i.Eval("type T []T\ntype F func(string) F\ntype M map[string]M"); err != nil {
		t.Fatal(err)
	}
	for name, next := range map[string]func(reflect.Type) reflect.Type{
		"T": reflect.Type.Elem,
		"F": func(rt reflect.Type) reflect.Type { return rt.Out(0) },
		"M": reflect.Type.Elem,
	} {
		rt := i.scopes["main"].sym[name].typ.TypeOf()
		if next(rt) != rt {
			t.Errorf("%s: the reflect type %v does not contain itself", name, rt)
		}
	}
}

// TestDeclaredStructIdentity: two declared struct types with the same
// fields are two types to assertions, type switches, errors.As and
// errors.Is, and a value of the unnamed struct type is still assigned,
// passed and returned as either (identity.go).
func TestDeclaredStructIdentity(t *testing.T) {
	var out strings.Builder
	i := New(Options{Stdout: &out, Stderr: &out})
	if err := i.Use(Exports{"errors/errors": {
		"As": reflect.ValueOf(ErrorsAs),
		"Is": reflect.ValueOf(ErrorsIs),
	}}); err != nil {
		t.Fatal(err)
	}
	_, err := i.Eval(`package main
import "errors"
type NotFound struct{ ID string }
func (e *NotFound) Error() string { return "not found " + e.ID }
type Invalid struct{ ID string }
func (e *Invalid) Error() string { return "invalid " + e.ID }
type Code struct{ N int }
func (c Code) Error() string { return "code" }
type Status struct{ N int }
func (s Status) Error() string { return "status" }
func kind(err error) string {
	switch err.(type) {
	case *NotFound:
		return "nf"
	case *Invalid:
		return "inv"
	}
	return "?"
}
func lit() NotFound { return struct{ ID string }{"r"} }
func take(n NotFound) string { return n.ID }
func main() {
	var err error = &Invalid{"x"}
	_, ok := err.(*NotFound)
	_, ok2 := err.(*Invalid)
	var nf *NotFound
	_, ok3 := any(&Invalid{}).(*NotFound)
	print(ok, ok2, errors.As(err, &nf), ok3, kind(err), kind(&NotFound{}), " ")
	var e2 error = Status{1}
	_, ok = e2.(Code)
	print(ok, errors.Is(e2, Code{1}), errors.Is(e2, Status{1}), " ")
	var n NotFound = struct{ ID string }{"lit"}
	u := struct{ ID string }{"u"}
	n2 := NotFound(Invalid{"c"})
	var back struct{ ID string } = n
	print(n.ID, lit().ID, take(u), n2.ID, back.ID)
}`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "falsetruefalsefalseinvnf falsefalsetrue litruclit"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := i.Eval("type J struct{ ID string `json:\"id\"` }"); err != nil {
		t.Fatal(err)
	}
	sym := i.scopes["main"].sym
	if tag := sym["J"].typ.TypeOf().Field(0).Tag; tag.Get("json") != "id" || tag.Get(identityTagKey) != "main.J" {
		t.Errorf("J's first field has the tag %q, want its json key and the type's name", tag)
	}
	if sym["NotFound"].typ.TypeOf() == sym["Invalid"].typ.TypeOf() {
		t.Error("NotFound and Invalid have one reflect type")
	}
	if _, err := i.Eval("type E struct{}\ntype F struct{}"); err != nil {
		t.Fatal(err)
	}
	sym = i.scopes["main"].sym
	if e, f := sym["E"].typ.TypeOf(), sym["F"].typ.TypeOf(); e == f || e.Size() != 0 || !e.Comparable() || !isIdentityStruct(e) {
		t.Errorf("E is %v (size %d), F is %v: want two comparable types of size zero", e, e.Size(), f)
	}
}
