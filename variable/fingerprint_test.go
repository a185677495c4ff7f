package variable_test

import (
	"bytes"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/byref/byref/variable"
)

type deep struct {
	Name  string
	inner *innerState
	Items []item
	Index map[string]*item
}

type innerState struct {
	count int
	log   []string
}

type item struct {
	ID   int
	Tags map[string]bool
}

// counter counts its own changes; Fingerprint must not walk it.
type counter struct {
	version uint64
	noise   []int // ignored by Fingerprint
}

func (c *counter) Version() uint64 { return c.version }

type holder struct {
	C *counter
}

func newDeep() *deep {
	it := &item{ID: 2, Tags: map[string]bool{"x": true}}
	return &deep{
		Name:  "d",
		inner: &innerState{count: 1, log: []string{"a"}},
		Items: []item{{ID: 1, Tags: map[string]bool{"a": true}}},
		Index: map[string]*item{"two": it},
	}
}

func TestFingerprintDetectsChanges(t *testing.T) {
	tests := []struct {
		name   string
		change func(d *deep)
	}{
		{"exported field", func(d *deep) { d.Name = "e" }},
		{"through pointer", func(d *deep) { d.inner.count++ }},
		{"unexported slice element", func(d *deep) { d.inner.log[0] = "b" }},
		{"unexported slice append", func(d *deep) { d.inner.log = append(d.inner.log, "c") }},
		{"slice element field", func(d *deep) { d.Items[0].ID = 5 }},
		{"nested map in slice", func(d *deep) { d.Items[0].Tags["a"] = false }},
		{"map entry added", func(d *deep) { d.Index["three"] = &item{} }},
		{"map entry deleted", func(d *deep) { delete(d.Index, "two") }},
		{"map value through pointer", func(d *deep) { d.Index["two"].ID = 3 }},
		{"map of map", func(d *deep) { d.Index["two"].Tags["y"] = true }},
		{"nil a pointer", func(d *deep) { d.inner = nil }},
		{"repoint to equal copy", func(d *deep) { c := *d.inner; d.inner = &c }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDeep()
			before := variable.Fingerprint(d)
			tt.change(d)
			if after := variable.Fingerprint(d); after == before {
				t.Errorf("Fingerprint did not change")
			}
		})
	}
}

func TestFingerprintScalarsAndContainers(t *testing.T) {
	pairs := []struct {
		name string
		a, b any
	}{
		{"int", 1, 2},
		{"kind", 1, uint(1)},
		{"float sign", 0.0, math.Copysign(0, -1)},
		{"string", "a", "b"},
		{"bool", true, false},
		{"complex", 1 + 2i, 1 + 3i},
		{"bytes", []byte("ab"), []byte("ac")},
		{"bytes length", []byte("a"), []byte("a\x00")},
		{"nil vs empty map", map[string]int(nil), map[string]int{}},
		{"array", [2]int{1, 2}, [2]int{2, 1}},
		{"slice order", []int{1, 2}, []int{2, 1}},
		{"map value", map[string]int{"a": 1}, map[string]int{"a": 2}},
		{"map key", map[string]int{"a": 1}, map[string]int{"b": 1}},
		{"nil vs value", nil, 0},
	}
	for _, p := range pairs {
		if variable.Fingerprint(p.a) == variable.Fingerprint(p.b) {
			t.Errorf("%s: Fingerprint(%#v) == Fingerprint(%#v)", p.name, p.a, p.b)
		}
	}
}

func TestFingerprintStable(t *testing.T) {
	d := newDeep()
	for i := range 20 {
		d.Index[strings.Repeat("k", i+5)] = &item{ID: i, Tags: map[string]bool{"t": i%2 == 0}}
	}
	want := variable.Fingerprint(d)
	for range 50 {
		if got := variable.Fingerprint(d); got != want {
			t.Fatalf("Fingerprint changed with no change: %x != %x", got, want)
		}
	}
}

// Map iteration order is random: two maps built in different orders have
// the same fingerprint.
func TestFingerprintMapOrderIndependent(t *testing.T) {
	a, b := map[int]string{}, map[int]string{}
	for i := range 100 {
		a[i] = strings.Repeat("x", i)
	}
	for i := 99; i >= 0; i-- {
		b[i] = strings.Repeat("x", i)
	}
	if variable.Fingerprint(a) != variable.Fingerprint(b) {
		t.Error("equal maps built in different orders have different fingerprints")
	}
	// Swapping values between keys changes the fingerprint: entries hash
	// key and value together.
	c := map[string]int{"a": 1, "b": 2}
	d := map[string]int{"a": 2, "b": 1}
	if variable.Fingerprint(c) == variable.Fingerprint(d) {
		t.Error("swapping map values kept the fingerprint")
	}
}

// Map entries that share a pointer: which entry the iteration visits first
// must not change the fingerprint.
func TestFingerprintMapSharedPointer(t *testing.T) {
	shared := &item{ID: 7, Tags: map[string]bool{"s": true}}
	m := map[string]*item{}
	for _, k := range strings.Split("a b c d e f g h i j k l m n o p", " ") {
		m[k] = shared
	}
	want := variable.Fingerprint(m)
	for range 200 {
		if got := variable.Fingerprint(m); got != want {
			t.Fatal("Fingerprint of an unchanged map with a shared pointer varies")
		}
	}
	before := variable.Fingerprint(m)
	shared.ID = 8
	if variable.Fingerprint(m) == before {
		t.Error("change through the shared pointer not detected")
	}
}

// A pointer to a struct and a pointer to its first field hold the same
// address; walking one must not make Fingerprint skip the other.
func TestFingerprintPointerToFirstField(t *testing.T) {
	type inner struct{ A int }
	type outer struct {
		In inner
		B  int
	}
	type pair struct {
		First *inner
		Whole *outer
	}
	o := &outer{In: inner{1}, B: 2}
	p := pair{First: &o.In, Whole: o}
	before := variable.Fingerprint(p)
	o.B = 3
	if variable.Fingerprint(p) == before {
		t.Error("change to outer.B not detected after walking &outer.In")
	}
}

func TestFingerprintCyclesTerminate(t *testing.T) {
	n := &node{Val: 1}
	n.Next = &node{Val: 2, Next: n}
	before := variable.Fingerprint(n)
	if variable.Fingerprint(n) != before {
		t.Error("unstable on a pointer cycle")
	}
	n.Next.Val = 3
	if variable.Fingerprint(n) == before {
		t.Error("change inside a cycle not detected")
	}

	m := map[string]any{}
	m["self"] = m
	variable.Fingerprint(m)

	s := []any{nil}
	s[0] = s
	variable.Fingerprint(s)

	type selfMap struct{ M map[string]*selfMap }
	sm := &selfMap{M: map[string]*selfMap{}}
	sm.M["me"] = sm
	a := variable.Fingerprint(sm)
	if variable.Fingerprint(sm) != a {
		t.Error("unstable on a map cycle")
	}
}

func TestFingerprintVersioned(t *testing.T) {
	c := &counter{version: 1, noise: []int{1}}
	h := holder{C: c}
	before, hb := variable.Fingerprint(c), variable.Fingerprint(h)
	c.noise[0] = 2
	if variable.Fingerprint(c) != before || variable.Fingerprint(h) != hb {
		t.Error("Fingerprint walked a Versioned value instead of using Version")
	}
	c.version++
	if variable.Fingerprint(c) == before || variable.Fingerprint(h) == hb {
		t.Error("a new Version did not change the fingerprint")
	}
	// A nil Versioned pointer does not call Version.
	variable.Fingerprint(holder{})
	var nilCounter *counter
	variable.Fingerprint(nilCounter)
}

func TestFingerprintIdentityKinds(t *testing.T) {
	c1, c2 := make(chan int), make(chan int)
	a, b := variable.Fingerprint(c1), variable.Fingerprint(c1)
	if a != b || a == variable.Fingerprint(c2) {
		t.Error("channels are not fingerprinted by identity")
	}
	f := func() {}
	if a, b := variable.Fingerprint(f), variable.Fingerprint(f); a != b {
		t.Error("func fingerprint unstable")
	}
	// An io.Writer behind an interface is walked.
	var buf bytes.Buffer
	var w io.Writer = &buf
	before := variable.Fingerprint(&w)
	buf.WriteString("x")
	if variable.Fingerprint(&w) == before {
		t.Error("write to a buffer behind an interface not detected")
	}
}

func TestNeedsFingerprint(t *testing.T) {
	tests := []struct {
		t    reflect.Type
		want bool
	}{
		{nil, false},
		{reflect.TypeFor[int](), false},
		{reflect.TypeFor[string](), false},
		{reflect.TypeFor[float64](), false},
		{reflect.TypeFor[bool](), false},
		{reflect.TypeFor[complex128](), false},
		{reflect.TypeFor[point](), false},
		{reflect.TypeFor[[4]int](), false},
		{reflect.TypeFor[struct{ A [2]string }](), false},
		{reflect.TypeFor[*point](), true},
		{reflect.TypeFor[[]int](), true},
		{reflect.TypeFor[map[string]int](), true},
		{reflect.TypeFor[any](), true},
		{reflect.TypeFor[io.Reader](), true},
		{reflect.TypeFor[chan int](), true},
		{reflect.TypeFor[func()](), true},
		{reflect.TypeFor[[2][]int](), true},
		{reflect.TypeFor[struct {
			A int
			b []string
		}](), true},
		{reflect.TypeFor[item](), true},
	}
	for _, tt := range tests {
		if got := variable.NeedsFingerprint(tt.t); got != tt.want {
			t.Errorf("NeedsFingerprint(%v) = %v, want %v", tt.t, got, tt.want)
		}
	}
}

// graph is a 1,000-node struct graph with shared and cyclic pointers.
func graph() *gnode {
	nodes := make([]*gnode, 1000)
	for i := range nodes {
		nodes[i] = &gnode{ID: i, Label: "node", Attrs: map[string]int{"w": i}}
	}
	for i, n := range nodes {
		n.Out = []*gnode{nodes[(i+1)%len(nodes)], nodes[(i*7)%len(nodes)]}
	}
	return nodes[0]
}

type gnode struct {
	ID    int
	Label string
	Attrs map[string]int
	Out   []*gnode
}

func TestFingerprintGraph(t *testing.T) {
	g := graph()
	before := variable.Fingerprint(g)
	// Change a node far from the root.
	n := g
	for range 500 {
		n = n.Out[0]
	}
	n.Attrs["w"]++
	if variable.Fingerprint(g) == before {
		t.Error("change 500 nodes deep not detected")
	}
}

func BenchmarkFingerprintGraph1k(b *testing.B) {
	g := graph()
	b.ReportAllocs()
	for b.Loop() {
		variable.Fingerprint(g)
	}
}
