package interp

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestGoSemantics: snippets compute what compiled Go computes, for the
// cases the interpreter got wrong (each fixed in internal/yaegi or the
// sandbox, see internal/yaegi/README.md). Each case is run twice, at top
// level and inside a function, where the two differ in the interpreter.
func TestGoSemantics(t *testing.T) {
	cases := []struct{ name, code, want string }{
		{"range loop closures", `var fs []func()
for i := range 3 { fs = append(fs, func() { print(i) }) }
for _, f := range fs { f() }`, "012"},
		{"range value closures", `var fs []func()
for _, s := range []string{"a", "b", "c"} { fs = append(fs, func() { print(s) }) }
for _, f := range fs { f() }`, "abc"},
		{"three-clause closures", `var fs []func()
for i := 0; i < 3; i++ { fs = append(fs, func() { print(i) }) }
for _, f := range fs { f() }`, "012"},
		{"three-clause body writes the iteration's variable", `var fs []func()
for i := 0; i < 6; i++ { if i%2 == 0 { i++; fs = append(fs, func() { print(i) }) } }
for _, f := range fs { f() }`, "135"},
		{"pointers to the loop variable", `var ps []*int
for i := 0; i < 3; i++ { ps = append(ps, &i) }
print(*ps[0], *ps[1], *ps[2])`, "012"},
		{"map range closures", `var fs []func()
for k, v := range map[string]int{"a": 1} { fs = append(fs, func() { print(k, v) }) }
for _, f := range fs { f() }`, "a1"},
		{"deferred closures", `func f() { for i := 0; i < 3; i++ { defer func() { print(i) }() } }
f()`, "210"},
		{"deferred arguments", `func f() { for i := 0; i < 3; i++ { defer print(i) } }
f()`, "210"},
		{"range assigning existing variables", `var i int
var g func() int
for i = range [3]int{} { if i == 0 { g = func() int { return i } } }
print(i, g())`, "22"},
		{"three-clause without post", `for i := 0; ; { i++; if i > 2 { break }; print(i) }`, "12"},
		{"max of untyped constants", `fmt.Println(max(3.5, 2, 7), min(3, 1, 2), min("b", "a"))`, "7 1 a"},
		{"max of a typed and an untyped operand", `x := 2.5
var n int64 = 5
fmt.Println(max(0, x), min(x, 1), max(n, 7), min(n, 2, 9))`, "2.5 1 7 2"},
		{"max is a constant of constants", `const c = max(1, 2.5)
var a [min(2, 3)]int
fmt.Println(c, len(a))`, "2.5 2"},
		{"constant declarations", `const (
	s = string(iota + 'a')
	t
)
const (
	m = iota == 0
	n
	o = s < t && 1.5 > 1
)
const (
	a, b = 1 << iota, 1<<iota - 1
	c, d
)
const (
	p = q
	q = iota
)
fmt.Print(s, t, " ", m, n, o, " ", a, b, c, d, " ", p, q)`, "ab true false true 1 0 2 1 1 1"},
		{"min and max of floats", `nan := math.NaN()
fmt.Println(min(1.0, nan), max(-0.0, 0.0), math.Signbit(min(0.0, math.Copysign(0, -1))))`, "NaN 0 true"},
		{"clear", `m := map[string]int{"a": 1}
s := []int{1, 2}
clear(m)
clear(s)
fmt.Println(len(m), s)`, "0 [0 0]"},
		{"unexported fields keep their names", `type row struct {
	name string
	sum  float64
	id   int ` + "`json:\"id\"`" + `
	Tag  string
}
func (r *row) add(v float64) { r.sum += v }
r := row{"a", 1.5, 7, "t"}
r.add(1)
p := &r
p.name = "b"
b, _ := json.Marshal(r)
fmt.Printf("%+v %s %s\n", r, b, r.name)
anon := []struct{ in string; want int }{{"x", 1}}
anon[0].want++
b, _ = json.Marshal(anon)
fmt.Printf("%+v %s\n", anon, b)`, "{name:b sum:2.5 id:7 Tag:t} {\"Tag\":\"t\"} b\n[{in:x want:2}] [{}]"},
		{"unexported fields of a generic struct", `type stack[T any] struct{ items []T }
func (s *stack[T]) push(v T) { s.items = append(s.items, v) }
var st stack[string]
st.push("a")
st.push("b")
fmt.Printf("%+v %d\n", st, len(st.items))`, "{items:[a b]} 2"},
		{"a func used before its declaration", `fmt.Println(double(2))
func double(x int) int { return x * 2 }`, "4"},
		{"types, methods and funcs in any order", `var t T = T{1}
fmt.Println(t.twice())
type T struct{ n int }
func (t T) twice() int { return helper(t.n) }
func helper(n int) int { return 2 * n }`, "2"},
		{"funcs that use top-level variables stay after them", `x := 1
func f() int { return x }
fmt.Println(f())
y := f()
func g() int { return y + f() }
fmt.Println(g())`, "1\n2"},
		{"a type a var uses, declared next to a func that uses the var", `var a = &[]*T{}
type T struct{ name string }
func show() { fmt.Println(a, len(*a)) }
show()`, "&[] 0"},
		{"funcs and methods using a variable declared after them", `func Bar() { fmt.Println(Obj.Foo()) }
var Obj = NewT()
func NewT() *T { return &T{} }
type T struct{}
func (t *T) Foo() bool { return t != nil }
Bar()`, "true"},
		{"a method using a variable declared after it, called from a func declared before", `type T1 struct{ T2 *T2 }
func (t *T1) Get() string { return t.T2.V().Name }
type T2 struct{ Name string }
func (t *T2) V() *T2 { if t == nil { return defaultT2 }; return t }
var defaultT2 = &T2{"no name"}
fmt.Println((&T1{}).Get())`, "no name"},
		{"a func using a constant declared after it and computed from another", `func f() int { var d [k]bool; return len(d) + k }
const n = 3
const k = n * 2
fmt.Println(f())`, "12"},
		{"a func list of funcs declared after it", `type fn func(string, string) bool
var funcs = []fn{less, greater, nil}
func less(a, b string) bool { return a < b }
func greater(a, b string) bool { return a > b }
for _, f := range funcs { if f != nil { fmt.Println(f("a", "b")) } }`, "true\nfalse"},
		{"top-level vars initialise in dependency order", `var (
	n = len(<-c)
	m = twice()
)
var c = func() chan *[3]int { ch := make(chan *[3]int, 1); ch <- nil; return ch }()
func twice() int { return 2 * k }
var k = compute()
func compute() int { fmt.Print("k "); return 21 }
fmt.Print(n, " ", m)`, "k 3 42"},
		{"statements keep their order around the vars that move", `fmt.Print("a ")
var total = sum()
fmt.Print("b ")
var prices = []int{1, 2, 3}
func sum() (s int) { for _, p := range prices { s += p }; return }
fmt.Print(total)`, "a b 6"},
		{"constants in any order", `const a = b * 2
const b = c + 1
var x = [a]int{}
const c = 2
fmt.Print(a, b, len(x))`, "6 3 6"},
		{"the specs of a var group in dependency order", `var (
	total = sum(prices)
	prices = []int{1, 2, 3}
	n = len(prices)
)
func sum(p []int) (s int) { for _, x := range p { s += x }; return }
fmt.Print(total, " ", n)`, "6 3"},
		{"a var group whose func uses its other specs", `var (
	count int
	used = next()
)
func next() int { count++; return count }
fmt.Print(count, used)`, "1 1"},
		{"a var group whose func uses a spec it uses too", `var (
	base = 10
	used = base + double()
)
func double() int { return base * 2 }
fmt.Print(used)`, "30"},
		{"len and cap of arrays", `var s [][30]int
var p *[40]int
const n = len(s[10])
fmt.Print(n, len(p), cap(p))`, "30 40 40"},
		{"errors.As with a snippet type", `type NotFound struct{ Key string }
func (e *NotFound) Error() string { return "not found: " + e.Key }
err := fmt.Errorf("lookup: %w", &NotFound{"k"})
var nf *NotFound
fmt.Println(errors.As(err, &nf), nf.Key, err)`, "true k lookup: not found: k"},
		{"errors.As with a value type and a join", `type Code struct{ N int }
func (c Code) Error() string { return fmt.Sprint("code ", c.N) }
var c Code
fmt.Println(errors.As(errors.Join(errors.New("a"), fmt.Errorf("b: %w", Code{3})), &c), c.N)`, "true 3"},
		{"errors.Is with a snippet sentinel", `type E struct{ s string }
func (e *E) Error() string { return e.s }
var ErrGone = &E{"gone"}
var ErrOther = &E{"other"}
err := fmt.Errorf("get: %w", ErrGone)
fmt.Println(errors.Is(err, ErrGone), errors.Is(err, ErrOther))`, "true false"},
		{"a snippet error prints with its Error method", `type E struct{}
func (E) Error() string { return "boom" }
fmt.Println(E{}, &E{})`, "boom boom"},
		{"range over integers of any type", `type MyInt int8
var n int64 = 2
for i := range n { fmt.Printf("%T%d ", i, i) }
for i := range uint8(2) { fmt.Printf("%T%d ", i, i) }
for i := range 'b' - 'a' + 1 { fmt.Printf("%T%d ", i, i) }
m := 3
for i := range m { m = 0; fmt.Print(i) }
for range -1 { fmt.Print("never") }`, "int640 int641 uint80 uint81 int320 int321 012"},
		{"range over the standard iterators", `s := []string{"a", "b"}
for i, v := range slices.All(s) { fmt.Print(i, v) }
for i, v := range slices.Backward(s) { fmt.Print(i, v) }
for v := range slices.Values(s) { fmt.Print(v) }
m := map[string]int{"k": 1}
for k, v := range maps.All(m) { fmt.Print(k, v) }
for k := range maps.Keys(m) { fmt.Print(k) }
for v := range maps.Values(m) { fmt.Print(v) }
for p := range strings.SplitSeq("x,y", ",") { fmt.Print(p) }
for l := range strings.Lines("l1\nl2\n") { fmt.Print(l) }
fmt.Print(slices.Sorted(maps.Keys(map[int]bool{2: true, 1: true})))`, "0a1b1b0aabk1k1xyl1\nl2\n[1 2]"},
		{"range over a func value", `count := func(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i * 10) { fmt.Print("stop "); return }
		}
	}
}
func pairs(yield func(string, int) bool) { _ = yield("a", 1) && yield("b", 2) }
for v := range count(5) { if v == 20 { break }; fmt.Print(v, " ") }
for k, v := range pairs { fmt.Print(k, v, " ") }
func find() int { for v := range count(9) { if v == 30 { return v } }; return -1 }
fmt.Print(find())`, "0 10 stop a1 b2 stop 30"},
		{"a struct error value in an error variable", `type Code struct{ N int }
func (c Code) Error() string { return fmt.Sprint("code ", c.N) }
var e1 error = Code{4}
var e2 error
e2 = Code{5}
e3 := error(Code{6})
var c Code
fmt.Println(e1, e2, e3, errors.As(e2, &c), c.N)`, "code 4 code 5 code 6 true 5"},
		{"method expressions", `type T struct{ n int }
func (t T) Add(x int) int { return t.n + x }
func (t *T) Inc() { t.n++ }
f := T.Add
v := &T{5}
(*T).Inc(v)
type I interface{ M() string }
type S struct{}
func (S) M() string { return "S.M" }
var b strings.Builder
(*strings.Builder).WriteString(&b, "hey")
fmt.Println(f(T{1}, 2), T.Add(T{3}, 4), v.n, (*T).Add(v, 1), I.M(S{}), b.String())`, "3 7 6 7 S.M hey"},
		{"range over a string gives byte offsets", "s := \"h\u00e9\\xffz\"\nvar ks []int\nfor i := range s { ks = append(ks, i) }\nfor i, r := range s { fmt.Print(i, r, \" \") }\nfmt.Print(ks)", "0 104 1 233 3 65533 4 122 [0 1 3 4]"},
		{"type switches on errors", `type SE struct{ N int }
func (e SE) Error() string { return "se" }
check := func(i int) error { if i > 0 { return SE{i} }; return nil }
for _, i := range []int{0, 1} {
	switch err := check(i).(type) {
	case nil:
		fmt.Print("ok ")
	case SE:
		fmt.Print("short ", err.N, " ")
	}
	switch check(i).(type) {
	case SE:
		fmt.Print("SE ")
	}
}
for _, v := range []any{errors.New("e"), 1} {
	switch x := v.(type) {
	case error:
		fmt.Print("error ", x, " ")
	default:
		fmt.Print("other ", x)
	}
	switch v.(type) {
	case error:
		fmt.Print("E ")
	}
}`, "ok short 1 SE error e E other 1"},
		{"multiple assignment from an expression and a call", `func add(x uint32) uint32 { return x + 2 }
func t() (uint32, uint32) {
	var a uint32 = 1
	var want, got uint32
	want, got = a+2, add(a)
	return want, got
}
fmt.Println(t())`, "3 3"},
		{"new of a value (Go 1.26)", `p := new(123)
x := 42
q := new(x)
x = 1
type T struct{ N int }
s := new(T{3})
fmt.Printf("%d %d %d %T", *p, *q, s.N, p)`, "123 42 3 *int"},
		{"a shifted untyped constant takes the other operand's type", `func f(v uint64, p int) uint64 { return v | 1<<uint(p) }
var m uint8
n := 3
m = m | 1<<n
fmt.Println(f(0, 63), m)`, "9223372036854775808 8"},
		{"a Stringer formatted with other verbs", `type Money int64
func (m Money) String() string { return fmt.Sprintf("€%d.%02d", m/100, m%100) }
var total Money = 222345
fmt.Printf("%v %s %d %5d|%x", total, total, total, Money(7), Money(255))`, "€2223.45 €2223.45 222345     7|e282ac322e3535"},
		{"a slice of Stringers", `type S struct{ n int }
func (s S) String() string { return fmt.Sprint("S", s.n) }
type M int
func (m M) String() string { return "m" }
type P struct{ X int }
fmt.Println([]S{{1}, {2}}, [2]S{{4}, {5}}, []P{{1}})
fmt.Printf("%d %v", []M{1, 2}, []M{3})`, "[S1 S2] [S4 S5] [{1}]\n[1 2] [m]"},
		{"a map of Stringers", `type S struct{ n int }
func (s S) String() string { return fmt.Sprint("S", s.n) }
type M int
func (m M) String() string { return "m" }
var none map[string]S
fmt.Println(map[string]S{"b": {2}, "a": {1}}, map[int]M{1: 1}, none)
fmt.Printf("%d %v", map[int]M{7: 2}, map[string]int{"z": 1})`, "map[a:S1 b:S2] map[1:m] map[]\nmap[7:2] map[z:1]"},
		{"a struct holding Stringers", `type S struct{ n int }
func (s S) String() string { return fmt.Sprint("S", s.n) }
type E struct{ code int }
func (e *E) Error() string { return "bad" }
type row struct {
	A    S
	n    int
	hide S
	Err  *E
}
r := row{S{1}, 2, S{3}, &E{4}}
fmt.Println(r)
fmt.Printf("%v|%+v|%s\n", r, r, struct{ X, Y S }{S{5}, S{6}})
type T struct{ A S }
func (T) String() string { return "T!" }
fmt.Println(T{S{7}})`, "{S1 2 {3} bad}\n{S1 2 {3} bad}|{A:S1 n:2 hide:{n:3} Err:bad}|{S5 S6}\nT!"},
		{"Stringers nested deeper", `type S struct{ n int }
func (s S) String() string { return fmt.Sprint("S", s.n) }
type E struct{ code int }
func (e *E) Error() string { return fmt.Sprint("E", e.code) }
type row struct{ A S; B int; Err *E }
type outer struct{ Rows []row; M map[string]row }
rows := []row{{S{1}, 2, nil}, {S{3}, 4, &E{5}}}
m := map[string]row{"x": {S{6}, 7, &E{8}}}
o := outer{rows, map[string]row{"k": {S{10}, 11, nil}}}
fmt.Println(rows, m, [1]row{{S{12}, 13, nil}})
fmt.Printf("%v|%+v\n", o, m)
b, _ := json.Marshal(m)
fmt.Println(string(b))`, "[{S1 2 <nil>} {S3 4 E5}] map[x:{S6 7 E8}] [{S12 13 <nil>}]\n{[{S1 2 <nil>} {S3 4 E5}] map[k:{S10 11 <nil>}]}|map[x:{A:S6 B:7 Err:E8}]\n{\"x\":{\"A\":{},\"B\":7,\"Err\":{}}}"},
		{"a pointer to a struct holding Stringers", `type Status int
func (s Status) String() string { return [...]string{"new", "paid"}[s] }
type Order struct{ ID int; St Status; Tags []Status }
o := &Order{1, 1, []Status{0, 1}}
fmt.Println(o)
fmt.Printf("%v %+v\n", o, o)
var none *Order
fmt.Println(none)
b, _ := json.Marshal(o)
fmt.Println(string(b))
var back Order
fmt.Println(json.Unmarshal(b, &back), back.ID, back.St)`, "&{1 paid [new paid]}\n&{1 paid [new paid]} &{ID:1 St:paid Tags:[new paid]}\n<nil>\n{\"ID\":1,\"St\":1,\"Tags\":[0,1]}\n<nil> 1 paid"},
		{"Stringer map keys", `type Status int
func (s Status) String() string { return [...]string{"zero", "one", "two"}[s] }
type S struct{ n int }
func (s S) String() string { return fmt.Sprint("S", s.n) }
counts := map[Status]int{2: 1, 0: 3, 1: 2}
fmt.Println(counts)
fmt.Printf("%v %d %+v\n", counts, counts, map[Status]S{1: {5}})
type row struct{ M map[Status]int }
fmt.Println(row{counts}, []map[Status]bool{{1: true}})
b, _ := json.Marshal(counts)
fmt.Println(string(b))`, "map[zero:3 one:2 two:1]\nmap[zero:3 one:2 two:1] map[0:3 1:2 2:1] map[one:S5]\n{map[zero:3 one:2 two:1]} [map[one:true]]\n{\"0\":3,\"1\":2,\"2\":1}"},
		{"a pointer-receiver String is not in a value's method set", `type S struct{ n int }
func (s *S) String() string { return fmt.Sprint("S", s.n) }
type row struct{ A S; P *S }
var a any = S{1}
s := S{3}
fmt.Println(S{1}, &S{2}, a, s, &s, []any{S{4}, &S{5}})
fmt.Println([]row{{S{1}, &S{2}}}, map[string]row{"k": {S{3}, &S{4}}}, []S{{5}}, []*S{{6}}, map[S]int{{7}: 1})`, "{1} S2 {1} {3} S3 [{4} S5]\n[{{1} S2}] map[k:{{3} S4}] [{5}] [S6] map[{7}:1]"},
		{"Stringers in a struct in an interface, and none through unexported fields", `type S struct{ n int }
func (s S) String() string { return fmt.Sprint("S", s.n) }
type row struct{ A S; B int }
type plain struct{ X, Y int }
var x any = row{S{1}, 2}
items := []any{row{S{4}, 5}, plain{1, 2}, 3}
fmt.Println(x, items, map[string]any{"r": row{S{6}, 7}})
fmt.Printf("%v %+v\n", items, x)
type hid struct{ a S; B S }
var h any = hid{S{5}, S{6}}
fmt.Println([]hid{{S{1}, S{2}}}, map[string]hid{"k": {S{3}, S{4}}})
fmt.Printf("%v %+v\n", h, []any{hid{S{7}, S{8}}})`, "{S1 2} [{S4 5} {1 2} 3] map[r:{S6 7}]\n[{S4 5} {1 2} 3] {A:S1 B:2}\n[{{1} S2}] map[k:{{3} S4}]\n{{5} S6} [{a:{n:7} B:S8}]"},
		{"other verbs on Stringers nested in structs", `type S struct{ n int }
func (s S) String() string { return fmt.Sprint("S", s.n) }
type St int
func (s St) String() string { return "st" }
type row struct{ A S; B int; C St }
fmt.Printf("%d|%x|%q\n", []row{{S{1}, 2, 3}}, []row{{S{1}, 2, 3}}, []row{{S{1}, 2, 3}})
fmt.Printf("%d|%v|%+v|%05d\n", row{S{1}, 2, 3}, []any{row{S{1}, 2, 3}}, row{S{4}, 5, 6}, []St{1})`, "[{{1} 2 3}]|[{5331 2 7374}]|[{\"S1\" '\\x02' \"st\"}]\n{{1} 2 3}|[{S1 2 st}]|{A:S4 B:5 C:st}|[00001]"},
		{"nested nil receivers", `type S struct{ n int }
func (s *S) String() string { return fmt.Sprint("S", s.n) }
type E struct{ c int }
func (e *E) Error() string { if e == nil { return "nil E" }; return "E" }
type row struct{ Err *E; P *S; N int }
fmt.Println([]row{{nil, nil, 1}, {&E{}, &S{2}, 2}})
fmt.Printf("%s|%v\n", []row{{nil, nil, 1}}, map[string]row{"a": {nil, nil, 3}})`, "[{nil E <nil> 1} {E S2 2}]\n[{nil E <nil> %!s(int=1)}]|map[a:{nil E <nil> 3}]"},
		{"Stringer keys of a map keyed by an interface", `type I interface{ f() }
type C int
func (C) f() {}
func (c C) String() string { return fmt.Sprint("c", int(c)) }
m := map[I]int{C(2): 1, C(1): 2}
fmt.Println(m, len(m))
fmt.Printf("%v %d\n", m, map[string]map[I]int{"k": {C(3): 3}})`, "map[c1:2 c2:1] 2\nmap[c1:2 c2:1] map[%!d(string=k):map[3:3]]"},
		{"%T names snippet types", `type C int
func (C) f() {}
type T struct{ A int }
type P struct{ S string }
func (p *P) Name() string { return p.S }
type Pair[K comparable, V any] struct{ K K; V V }
type S struct{ n int }
func (s S) String() string { return "S!" }
type I interface{ f() }
var a any = C(1)
var i I = C(2)
var e error = fmt.Errorf("x")
var t any = T{3}
fmt.Printf("%T %T %T %T %T %T %T %T\n", a, i, C(2), T{}, []T{}, map[string]*T{}, &P{}, S{})
fmt.Printf("%T|%-8T|%v|%T|%T|%d%%|%[1]T\n", t, C(5), C(6), e, 1.5, 3)
s := fmt.Sprintf("%T %v %T", Pair[string, int]{"a", 1}, Pair[string, int]{"a", 1}, func(x int) string { return "" })
fmt.Println(s, fmt.Errorf("%T: %w", S{}, e))
fmt.Printf("%T %T %T\n", struct{ X C }{}, [2]C{}, []any{C(1)})`, "main.C main.C main.C main.T []main.T map[string]*main.T *main.P main.S\nmain.T|main.C  |6|*errors.errorString|float64|3%|main.T\nmain.Pair[string,int] {a 1} func(int) string main.S: x\nstruct { X main.C } [2]main.C []interface {}"},
		{"embedded fields are promoted for encoding/json", `type Base struct{ ID int }
type Product struct {
	Base
	Name string
}
b, _ := json.Marshal(Product{Base{7}, "pen"})
fmt.Print(string(b))`, `{"ID":7,"Name":"pen"}`},
		{"method values bind their receiver when evaluated", `type T int
func (t *T) P() int { return int(*t) }
func (t T) V() int { return int(t) }
var ps, vs []func() int
for t := T(0); t < 3; t++ { ps = append(ps, t.P); vs = append(vs, t.V) }
x := T(1)
f := x.V
x = 5
fmt.Print(ps[0](), ps[1](), ps[2](), vs[0](), vs[1](), vs[2](), f())`, "0 1 2 0 1 2 1"},
		{"a value method through a pointer copies the pointee when evaluated", `type T int
func (t T) V() int { return int(t) }
func taken(p *T) (err any) {
	defer func() { err = recover() }()
	_ = p.V
	return nil
}
x := T(1)
p := &x
f := p.V
x = 5
fmt.Print(f(), " ", taken(nil))`, "1 runtime error: invalid memory address or nil pointer dereference"},
		{"a panic recovered by a caller leaves nothing on stderr", `func f() { panic("x") }
func g() (r any) { defer func() { r = recover() }(); f(); return nil }
func h() bool { return strings.Contains(fmt.Sprint(stringer{}), "PANIC") }
type stringer struct{}
func (stringer) String() string { panic("in String") }
fmt.Print(g(), " ", h())`, "x true"},
		{"untyped constant shift counts", `x := 1
var v uint64 = 1
p := 63
fmt.Print(x<<1., " ", x<<(1<<x), " ", x<<(1.<<x), " ", x<<((1+0i)<<x), " ", v|(1<<p))`, "2 4 4 4 9223372036854775809"},
		{"unnamed parameters", `type B bool
func f(B, int) (n int) { x := 5; return x }
fmt.Print(f(true, 3))`, "5"},
		{"anonymous struct fields keep their names", `p := struct{ Name string; Age int }{Name: "a", Age: 3}
b, _ := json.Marshal(p)
fmt.Printf("%+v %s", p, b)`, `{Name:a Age:3} {"Name":"a","Age":3}`},
		{"anonymous struct in a top-level var", `var cfg = struct{ Host string; Port int }{"h", 80}
fmt.Printf("%+v", cfg)`, "{Host:h Port:80}"},
		{"anonymous struct slice", `rows := []struct{ K string; V int }{{"x", 1}}
for _, r := range rows { fmt.Print(r.K, r.V) }`, "x1"},
		{"a recursive slice type", `type Node []Node
func depth(n Node) int { d := 0; for _, c := range n { d = max(d, depth(c)) }; return d + 1 }
func count(ns ...Node) int { return len(ns) }
t := Node{Node{Node{}}, Node{}}
fmt.Println(depth(t), len(t), len(t[0][0]), count(t, nil), count(Node{}), count(t...), t)`, "3 2 0 2 1 2 [[[]] []]"},
		{"a state machine of func types", `type stateFn func(*lexer) stateFn
type lexer struct{ input string; pos int; out []string }
func lexWord(l *lexer) stateFn {
	start := l.pos
	for l.pos < len(l.input) && l.input[l.pos] != ' ' { l.pos++ }
	l.out = append(l.out, l.input[start:l.pos])
	return lexSpace
}
func lexSpace(l *lexer) stateFn {
	for l.pos < len(l.input) && l.input[l.pos] == ' ' { l.pos++ }
	if l.pos == len(l.input) { return nil }
	return lexWord
}
l := &lexer{input: "go is  fun"}
for state := stateFn(lexWord); state != nil; { state = state(l) }
fmt.Println(len(l.out), l.out)`, "3 [go is fun]"},
		{"a func type that returns itself", `type F func(s string) F
var log string
func a(s string) F { log += "a(" + s + ")"; return F(a) }
a("1")("2")("3")
fmt.Println(log)`, "a(1)a(2)a(3)"},
		{"a recursive map type", `type Tree map[string]Tree
tr := Tree{}
for _, p := range []string{"a/b", "a/c", "d"} {
	cur := tr
	for _, k := range strings.Split(p, "/") {
		if cur[k] == nil { cur[k] = Tree{} }
		cur = cur[k]
	}
}
b, _ := json.Marshal(tr)
fmt.Println(len(tr), len(tr["a"]), string(b))`, `2 2 {"a":{"b":{},"c":{}},"d":{}}`},
		{"a map keyed by a snippet interface", `type I interface{ Name() string }
type C int
func (c C) Name() string { return fmt.Sprint("c", int(c)) }
type P struct{ n int }
func (p *P) Name() string { return fmt.Sprint("p", p.n) }
type S struct{ a, b string }
func (s S) Name() string { return s.a + s.b }
p := &P{1}
m := map[I]int{C(1): 1, S{"x", "y"}: 2, p: 3}
m[C(1)] += 10
m[S{"x", "y"}]++
m[p] *= 2
m[&P{1}] = 7
var nilI I
m[nilI] = 9
v, ok := m[S{"x", "y"}]
fmt.Println(len(m), m[C(1)], v, ok, m[p], m[nil])
var names []string
for k, v := range m {
	switch k.(type) {
	case nil:
		names = append(names, fmt.Sprint("nil=", v))
	case C:
		names = append(names, "C:"+k.Name())
	case *P:
		names = append(names, "P:"+k.Name())
	default:
		names = append(names, "?:"+k.Name())
	}
}
sort.Strings(names)
fmt.Println(names, len(slices.Collect(maps.Keys(m))))
delete(m, C(1))
delete(m, nilI)
fmt.Println(len(m), map[I]int{C(5): 5})`, "5 11 3 true 6 9\n[?:xy C:c1 P:p1 P:p1 nil=9] 5\n3 map[5:5]"},
		{"interface values compare by dynamic type and value", `type I interface{ Name() string }
type C int
func (c C) Name() string { return "c" }
type S struct{ a, b string }
func (s S) Name() string { return s.a + s.b }
var a, b any = S{"x", "y"}, S{"x", "y"}
var i1, i2 I = C(2), C(2)
fmt.Println(a == b, i1 == i2, i1 != C(3), i1 == C(2), a == any(C(2)), any(i1) == a)
set := map[any]bool{}
set[C(1)] = true
set[I(C(1))] = true
set[1] = true
set["s"] = true
fmt.Println(len(set), set[C(1)], set[1], set[2])
type K struct{ a I; n int }
var x, y any = K{C(1), 2}, K{C(1), 2}
fmt.Println(K{C(1), 2} == K{C(1), 2}, K{C(1), 2} != K{C(2), 2}, [2]I{C(1)} == [2]I{C(1)}, x == y, x != K{C(1), 3})`, "true true true true false false\n3 true true false\ntrue true true true true"},
		{"values of snippet types in interfaces print and marshal as themselves", `type C int
func (C) f() {}
type T struct{ A int }
func (T) f() {}
type S struct{ n int }
func (s S) String() string { return fmt.Sprint("S", s.n) }
type E struct{ code int }
func (e E) Error() string { return "E!" }
type I interface{ Name() string }
type N struct{ s string }
func (n N) Name() string { return n.s }
var a any = C(1)
items := []any{C(1), "x", T{2}, S{3}, E{4}}
fmt.Println(a, items, map[string]any{"a": C(1)}, []error{E{1}}, map[string]error{"a": E{2}})
type R struct{ X any; y any }
is := []I{N{"a"}, nil}
fmt.Printf("%v %+v %v %s %d\n", R{C(3), N{"c"}}, R{S{12}, 3}, is, []any{S{8}}, []any{S{9}})
b, err := json.Marshal(map[string]any{"t": T{4}, "c": C(5), "l": struct{ L []I }{is}})
fmt.Println(string(b), err)`, "1 [1 x {2} S3 E!] map[a:1] [E!] map[a:E!]\n{3 {c}} {X:S12 y:3} [{a} <nil>] [S8] [{9}]\n{\"c\":5,\"l\":{\"L\":[{},null]},\"t\":{\"A\":4}} <nil>"},
		{"error types with the same fields are different types", `type NotFound struct{ ID string }
func (e *NotFound) Error() string { return "not found: " + e.ID }
type Invalid struct{ ID string }
func (e *Invalid) Error() string { return "invalid: " + e.ID }
var err error = &Invalid{"x"}
nf, ok := err.(*NotFound)
inv, ok2 := err.(*Invalid)
fmt.Println(nf, ok, inv, ok2)
var target *NotFound
var target2 *Invalid
fmt.Println(errors.As(err, &target), target, errors.As(fmt.Errorf("wrap: %w", err), &target2), target2.ID)
_, ok = any(&Invalid{}).(*NotFound)
_, ok2 = any(Invalid{}).(NotFound)
fmt.Println(ok, ok2)
defer func() { fmt.Println("recovered:", recover() != nil) }()
_ = err.(*NotFound)`, "<nil> false invalid: x true\nfalse <nil> true x\nfalse false\nrecovered: true"},
		{"a type switch tells error types with the same fields apart", `type NotFound struct{ ID string }
func (e *NotFound) Error() string { return "not found: " + e.ID }
type Invalid struct{ ID string }
func (e *Invalid) Error() string { return "invalid: " + e.ID }
errs := []error{&Invalid{"a"}, &NotFound{"b"}, fmt.Errorf("plain")}
for _, err := range errs {
	switch e := err.(type) {
	case *NotFound:
		fmt.Println("404", e.ID)
	case *Invalid:
		fmt.Println("400", e.ID)
	default:
		fmt.Println("500", e)
	}
}
switch e := errs[0].(type) {
case *NotFound:
	fmt.Println("top 404", e.ID)
case *Invalid:
	fmt.Println("top 400", e.ID)
}`, "400 a\n404 b\n500 plain\ntop 400 a"},
		{"errors.Is with value sentinels of types with the same fields", `type Code struct{ N int }
func (c Code) Error() string { return fmt.Sprint("code ", c.N) }
type Status struct{ N int }
func (s Status) Error() string { return fmt.Sprint("status ", s.N) }
var ErrCode = Code{404}
var ErrStatus = Status{404}
err := fmt.Errorf("get: %w", ErrStatus)
_, ok := error(ErrStatus).(Code)
fmt.Println(errors.Is(err, ErrCode), errors.Is(err, ErrStatus), ok)`, "false true false"},
		{"error types without fields are different types", `type E struct{}

func (E) Error() string { return "e" }

type F struct{}

func (F) Error() string { return "f" }
var e error = F{}
_, ok := e.(E)
_, ok2 := e.(F)
fmt.Println(ok, ok2, e == error(E{}), e == error(F{}))
for _, err := range []error{E{}, F{}, fmt.Errorf("w: %w", F{})} {
	switch err.(type) {
	case E:
		fmt.Println("case E")
	case F:
		fmt.Println("case F")
	default:
		fmt.Println("default", err)
	}
}
var target E
var target2 F
fmt.Println(errors.As(e, &target), errors.As(fmt.Errorf("w: %w", e), &target2), errors.Is(e, E{}), errors.Is(fmt.Errorf("w: %w", e), F{}))
fmt.Printf("%T %T %T %v %v\n", e, E{}, []any{F{}}, e, any(E{}) == any(F{}))`, "false true false true\ncase E\ncase F\ndefault w: f\nfalse true false true\nmain.F main.E []interface {} f false"},
		{"a declared struct type without fields prints, marshals and converts as struct{}", `type Empty struct{}
type Other struct{}
type Pair struct {
	A Empty
	B int
}
var x Empty = struct{}{}
y := Empty(struct{}{})
z := struct{}(y)
o := Other(x)
b, _ := json.Marshal(map[string]any{"x": x, "p": Pair{B: 1}, "s": []Empty{{}}})
fmt.Println(x, y, z, o, Pair{B: 1}, []Empty{{}}, map[string]Empty{"k": {}}, string(b))
fmt.Printf("%v %+v %+v %v %s\n", x, x, Pair{B: 2}, &x, []any{x, Pair{}})
fmt.Println(x == y, x == Empty{}, any(x) == any(o), any(x) == any(struct{}{}))
set := map[string]Empty{"a": {}}
_, has := set["a"]
fmt.Println(has, len(set), fmt.Sprint(set))`, "{} {} {} {} {{} 1} [{}] map[k:{}] {\"p\":{\"A\":{},\"B\":1},\"s\":[{}],\"x\":{}}\n{} {} {A:{} B:2} &{} [{} {{} %!s(int=0)}]\ntrue true false false\ntrue 1 map[a:{}]"},
		{"declared struct types without fields embedded, in fields, behind a pointer and as map keys", `type Empty struct{}

func (Empty) String() string { return "E!" }

type Plain struct{}
type T struct {
	Plain
	N int
}
type Pair struct {
	A Plain
	B int
}
var s fmt.Stringer = Empty{}
t := T{N: 1}
b, _ := json.Marshal(t)
fmt.Println(s, Empty{}, t, string(b), []T{t}, map[Plain]int{{}: 3})
fmt.Printf("%v %+v %v\n", &Pair{B: 1}, t, []*Plain{})
var x any = Plain{}
switch x.(type) {
case Empty:
	fmt.Println("Empty")
case Plain:
	fmt.Println("Plain")
}`, "E! E! {{} 1} {\"N\":1} [{{} 1}] map[{}:3]\n&{{} 1} {Plain:{} N:1} []\nPlain"},
		{"a type switch without a variable matches declared struct types in an any", `type Plain struct{ A int }
type Other struct{ A int }
type Empty struct{}

func kind(x any) string {
	switch x.(type) {
	case Other:
		return "Other"
	case Plain, Empty:
		return "Plain or Empty"
	case *Plain:
		return "*Plain"
	}
	return "none"
}
fmt.Println(kind(Plain{}), kind(Other{}), kind(Empty{}), kind(&Plain{}), kind(struct{ A int }{}), kind(struct{}{}))
var x any = Other{1}
switch x.(type) {
case Plain:
	fmt.Println("Plain")
case Other:
	fmt.Println("Other")
}`, "Plain or Empty Other Plain or Empty *Plain none none\nOther"},
		{"%T names declared types with the same fields", `type NotFound struct{ ID string }
func (e *NotFound) Error() string { return "not found: " + e.ID }
type Invalid struct{ ID string }
func (e *Invalid) Error() string { return "invalid: " + e.ID }
type P struct{ ID string }
var err error = &Invalid{"x"}
var a, b any = NotFound{}, &P{}
fmt.Printf("%T %T %T %T %T %T\n", NotFound{}, &Invalid{}, err, a, b, []any{P{}, Invalid{}})`, "main.NotFound *main.Invalid *main.Invalid main.NotFound *main.P []interface {}"},
		{"errors of snippet types compared with ==", `type NotFound struct{ ID string }
func (e *NotFound) Error() string { return "not found: " + e.ID }
type Code struct{ N int }
func (c Code) Error() string { return fmt.Sprint("code ", c.N) }
type Status struct{ N int }
func (s Status) Error() string { return fmt.Sprint("status ", s.N) }
var ErrNotFound = &NotFound{"x"}
var ErrCode = Code{404}
find := func(id string) error {
	if id == "" {
		return ErrNotFound
	}
	if id == "c" {
		return Status{404}
	}
	return nil
}
err := find("")
var other error = &NotFound{"x"}
fmt.Println(err == ErrNotFound, err != ErrNotFound, err == other, err == nil, find("a") == nil)
err = find("c")
fmt.Println(err == ErrCode, err == Status{404}, err == error(Status{404}), err == errors.ErrUnsupported)`, "true false false false true\nfalse true true false"},
		{"a failed assertion to a declared struct type names both types", `type NotFound struct{ ID string }
func (e *NotFound) Error() string { return "not found: " + e.ID }
type Invalid struct{ ID string }
func (e *Invalid) Error() string { return "invalid: " + e.ID }
try := func(f func()) {
	defer func() { fmt.Println(recover()) }()
	f()
}
var err error = &Invalid{"x"}
try(func() { _ = err.(*NotFound) })
try(func() { _ = any(Invalid{}).(NotFound) })
try(func() { _ = any(&Invalid{}).(*NotFound) })`, "interface conversion: error is *main.Invalid, not *main.NotFound\ninterface conversion: interface {} is main.Invalid, not main.NotFound\ninterface conversion: interface {} is *main.Invalid, not *main.NotFound"},
		{"an unnamed struct value is assigned to a declared struct type", `type NotFound struct{ ID string }
type Invalid struct{ ID string }
type Wrap struct{ N NotFound }
func make1() NotFound { return struct{ ID string }{"r"} }
func id(n NotFound) string { return n.ID }
var n NotFound = struct{ ID string }{"lit"}
u := struct{ ID string }{"u"}
var m NotFound
m = u
s := []NotFound{struct{ ID string }{"s"}}
s = append(s, u)
w := Wrap{N: struct{ ID string }{"w"}}
var back struct{ ID string } = n
c := NotFound(Invalid{"c"})
var a any = n
_, ok := a.(NotFound)
_, ok2 := any(c).(Invalid)
fmt.Printf("%v %v %v %v %v %v %v %v %T %v %v\n", n, m, s, w, make1(), id(u), back, c, c, ok, ok2)`, "{lit} {u} [{s} {u}] {{w}} {r} u {lit} {c} main.NotFound true false"},
		{"a struct literal assigned to a snippet interface", `type I interface{ M() int }
type S struct{ N int }
func (s S) M() int { return s.N }
type E struct{ Code int }
func (e E) Error() string  { return fmt.Sprint("code ", e.Code) }
type T struct{ Code int }
func (t T) String() string { return fmt.Sprint("T", t.Code) }
func f() int {
	var k I = S{4}
	var l I
	l = S{N: 5}
	return k.M() + l.M()
}
var i I = S{2}
var j I
j = S{N: 3}
var e error = E{1}
var s fmt.Stringer = T{2}
xs := []I{S{1}, S{2}}
m := map[string]I{"a": S{1}}
_, ok := i.(S)
fmt.Println(i.M(), j.M(), f(), e, s, xs[1].M(), m["a"].M(), ok, i == I(S{2}), errors.Is(e, E{1}))
fmt.Printf("%T %v\n", i, j)`, "2 3 9 code 1 T2 2 1 true true true\nmain.S {3}"},
		{"interface keys and == by the dynamic type, converted or not", `type I interface{ M() int }
type S struct{ N int }
func (s S) M() int { return s.N }
func g() any { return I(S{3}) }
func h() any { return S{4} }
i := I(S{2})
m := map[I]int{}
m[S{2}] = 1
fmt.Println(m[i], len(m))
m[i] = 7
fmt.Println(len(m), m[S{2}])
var k I = S{2}
fmt.Println(k == i, m[k], m[I(S{2})], I(S{2}) == S{2})
lit := map[I]int{S{1}: 1, I(S{1}): 2}
fmt.Println(len(lit), lit[S{1}])
delete(m, I(S{2}))
fmt.Println(len(m))
var a any = I(S{3})
ma := map[any]int{S{3}: 1}
_, ok := a.(I)
_, ok2 := h().(I)
fmt.Println(ma[a], a == any(S{3}), ok, g() == a, ok2, h() == any(S{4}))`, "1 1\n1 7\ntrue 7 7 true\n1 2\n0\n1 true true true true true"},
		{"a named type without methods is its own type in an interface", `type I = any
type MyInt int
type L []string
func p(xs ...any) bool { _, ok := xs[0].(MyInt); return ok }
m := map[I]int{MyInt(1): 1, 1: 2}
fmt.Println(len(m), any(MyInt(1)) == any(1), m[MyInt(1)], m[1])
var a any = MyInt(2)
_, ok := a.(int)
v, ok2 := a.(MyInt)
fmt.Printf("%v %v %v %v %T %d\n", ok, ok2, v+1, a, a, a)
switch x := a.(type) {
case int:
	fmt.Println("int", x)
case MyInt:
	fmt.Println("MyInt", x)
}
xs := []any{MyInt(3), 3, L{"a"}}
b, _ := json.Marshal(xs)
fmt.Println(xs, string(b), xs[0] == any(3), xs[0] == any(MyInt(3)), p(MyInt(4)))`, "2 false 1 2\nfalse true 3 2 main.MyInt 2\nMyInt 2\n[3 3 [a]] [3,3,[\"a\"]] false true true"},
		{"an error type's value formatted with a verb other than its method's", `type T int
func (t T) Error() string { return fmt.Sprintf("T%d", t) }
func f(t T) error { return t }
x := T(1)
var e error = x
fmt.Println(f(x), e)
fmt.Printf("%d %v %s %x|%5d|\n", x, x, e, e, e)
fmt.Println(fmt.Sprint([]any{e}), fmt.Errorf("w: %w", e), errors.Is(fmt.Errorf("w: %w", e), x))`, "T1 T1\n1 T1 T1 5431|    1|\n[T1] w: T1 true"},
		{"a boxed value reaches a host function from another function's frame", `type Foo int
func (f Foo) String() string { return "foo-" + strconv.Itoa(int(f)) }
func print1(a any) { fmt.Println(a) }
func g() { x := Foo(3); print1(x); var p = print1; p(x) }
g()`, "foo-3\nfoo-3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, err := New(Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := in.Eval(context.Background(), Input{Code: c.code})
			if err != nil {
				t.Fatalf("%v\n%s", err, c.code)
			}
			if got := res.Stdout + res.Stderr; strings.TrimSpace(got) != c.want {
				t.Errorf("got %q, want %q\n%s", got, c.want, c.code)
			}
		})
	}
}

// TestTopLevelDefer: a top-level defer runs at the end of its own snippet,
// after every statement segment of it, and never again.
func TestTopLevelDefer(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ code, want string }{
		{"defer fmt.Println(\"bye\")\nfmt.Println(\"hi\")", "hi\nbye\n"},
		{"fmt.Println(\"second\")", "second\n"},
		{"defer fmt.Println(\"d1\")\nfunc f() { fmt.Println(\"f\") }\nf()\ndefer fmt.Println(\"d2\")\nfunc g() {}", "f\nd2\nd1\n"},
		{"defer func() { fmt.Println(\"recovered\", recover()) }()\npanic(\"boom\")", "recovered boom\n"},
		{"fmt.Println(\"third\")", "third\n"},
	} {
		res, err := in.Eval(context.Background(), Input{Code: c.code})
		if err != nil {
			t.Fatalf("%s: %v", c.code, err)
		}
		if res.Stdout != c.want {
			t.Errorf("%s: stdout %q, want %q", c.code, res.Stdout, c.want)
		}
	}
}

// TestGoPanics: run-time panics carry Go's messages, and recover sees a
// runtime.Error as in Go.
func TestGoPanics(t *testing.T) {
	for _, c := range []struct{ code, want string }{
		{"orders := []int{1, 2}\nz := orders[5]\n_ = z", "runtime error: index out of range [5] with length 2"},
		{"i := -1\ns := \"ab\"\n_ = s[i]", "runtime error: index out of range [-1]"},
		{"s := []int{1, 2, 3}\nn := 5\n_ = s[1:n]", "runtime error: slice bounds out of range [:5] with capacity 3"},
		{"s := []int{1, 2, 3}\nlo, hi := 2, 1\n_ = s[lo:hi]", "runtime error: slice bounds out of range [2:1]"},
		{"var p *struct{ X int }\nfmt.Println(p.X)", "runtime error: invalid memory address or nil pointer dereference"},
		{"var i any = \"s\"\nn := i.(int)\n_ = n", "interface conversion: interface {} is string, not int"},
		{"var m map[string]int\nm[\"a\"] = 1", "assignment to entry in nil map"},
		{"type T struct{ s []int }\nvar z any = T{}\nm := map[any]int{}\nm[z] = 1", "runtime error: hash of unhashable type main.T"},
		{"type T struct{ s []int }\nvar a, b any = T{}, T{}\nfmt.Println(a == b)", "runtime error: comparing uncomparable type main.T"},
	} {
		in, err := New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = in.Eval(context.Background(), Input{Code: c.code})
		var pe *PanicError
		if !errors.As(err, &pe) || pe.Value != c.want {
			t.Errorf("%s: %v, want a panic %q", c.code, err, c.want)
		}
	}
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := in.Eval(context.Background(), Input{Code: `func try() (msg string) {
	defer func() {
		e, ok := recover().(error)
		msg = fmt.Sprint(ok, " ", e)
	}()
	s := []int{}
	_ = s[3]
	return ""
}
fmt.Println(try())`})
	if err != nil || res.Stdout != "true runtime error: index out of range [3] with length 0\n" {
		t.Errorf("recovered: %q, %v", res.Stdout, err)
	}
}
