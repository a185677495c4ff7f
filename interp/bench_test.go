package interp

import (
	"context"
	"fmt"
	"os"
	"reflect"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func tenVars() []Var {
	vars := make([]Var, 0, 10)
	for i := range 8 {
		vars = append(vars, Var{Name: fmt.Sprintf("v%d", i), Value: reflect.ValueOf(i)})
	}
	vars = append(vars, Var{Name: "rows", Value: reflect.ValueOf([]Row{{"a", 1}, {"b", 2}})})
	vars = append(vars, Var{Name: "doc", Value: reflect.ValueOf(&Doc{Title: "t"})})
	return vars
}

const fiveLines = `sum := v0 + v1 + v2 + v3
for _, r := range rows { sum += r.N }
doc.Title = fmt.Sprint("sum ", sum)
v7 = sum * 2
label := strings.ToUpper(doc.Title)`

// BenchmarkEvalWarm: a warm 5-line snippet over 10 variables (target ≤ 150 µs/op).
func BenchmarkEvalWarm(b *testing.B) {
	benchWarm(b, Options{Symbols: []Exports{appSymbols}}, Input{Code: fiveLines, Vars: tenVars()})
}

// benchWarm measures input evaluated again and again on one interpreter,
// after a first Eval.
func benchWarm(b *testing.B, opts Options, input Input) {
	in, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := in.Eval(context.Background(), input); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := in.Eval(context.Background(), input); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvalWarmDistinct is BenchmarkEvalWarm with a source that differs
// on every iteration (a constant in its first line changes), so nothing
// compiled for one iteration can serve the next (target ≤ 150 µs/op).
func BenchmarkEvalWarmDistinct(b *testing.B) {
	in, err := New(Options{Symbols: []Exports{appSymbols}})
	if err != nil {
		b.Fatal(err)
	}
	first, rest, _ := strings.Cut(fiveLines, "\n")
	vars := tenVars()
	code := make([]byte, 0, len(fiveLines)+32)
	eval := func(i int) {
		code = append(code[:0], first...)
		code = append(code, " + "...)
		code = strconv.AppendInt(code, int64(i), 10)
		code = append(code, '\n')
		code = append(code, rest...)
		if _, err := in.Eval(context.Background(), Input{Code: string(code), Vars: vars}); err != nil {
			b.Fatal(err)
		}
	}
	eval(0)
	b.ReportAllocs()
	b.ResetTimer()
	i := 1
	for b.Loop() {
		eval(i)
		i++
	}
}

// BenchmarkNew: a fresh interpreter with the allow-list loaded (target ≤ 2 ms).
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(Options{Symbols: []Exports{appSymbols}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnalyze: the static pass alone.
func BenchmarkAnalyze(b *testing.B) {
	types := map[string]reflect.Type{}
	for _, v := range tenVars() {
		types[v.Name] = v.Value.Type()
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Analyze(fiveLines, types); err != nil {
			b.Fatal(err)
		}
	}
}

// window is what a run of snippets cost: time, and the allocations and
// bytes the process allocated (counts that do not depend on the machine's
// load).
type window struct {
	d             time.Duration
	allocs, bytes uint64
}

func (w window) per(n int) string {
	return fmt.Sprintf("%v, %d allocs, %d B", w.d/time.Duration(n), w.allocs/uint64(n), w.bytes/uint64(n))
}

// growth runs n snippets on one Interpreter and returns the cost of the
// first and of the last 100.
func growth(tb testing.TB, every, n int) (first, last window) {
	in, err := New(Options{RebuildEvery: every, Symbols: []Exports{appSymbols}})
	if err != nil {
		tb.Fatal(err)
	}
	vars := tenVars()
	var ms goruntime.MemStats
	var start window
	mark := func() window {
		goruntime.ReadMemStats(&ms)
		return window{d: time.Duration(time.Now().UnixNano()), allocs: ms.Mallocs, bytes: ms.TotalAlloc}
	}
	since := func(w window) window {
		now := mark()
		return window{d: now.d - w.d, allocs: now.allocs - w.allocs, bytes: now.bytes - w.bytes}
	}
	for i := range n {
		if i == 0 || i == n-100 {
			start = mark()
		}
		res, err := in.Eval(context.Background(), Input{Code: fiveLines, Vars: vars})
		if err != nil {
			tb.Fatal(err)
		}
		vars[7].Value = res.Values["v7"]
		switch i {
		case 99:
			first = since(start)
		case n - 1:
			last = since(start)
		}
	}
	return first, last
}

// BenchmarkCorpus runs every corpus snippet one after another on one
// Interpreter (as one run would) and reports the total per pass and the
// 99th percentile of one snippet.
func BenchmarkCorpus(b *testing.B) {
	var cases []corpusCase
	for _, f := range corpusFiles(b) {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		c, err := parseCase(f, data)
		if err != nil {
			b.Fatal(err)
		}
		cases = append(cases, c)
	}
	in, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	var times []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, c := range cases {
			var sent []string
			start := time.Now()
			_, err := in.Eval(context.Background(), Input{Code: c.code, Vars: shopVars(), Funcs: shopFuncs(&sent)})
			times = append(times, time.Since(start))
			if (err != nil) != c.hasErr {
				b.Fatalf("%s: %v", c.name, err)
			}
		}
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds()), "p99-µs/snippet")
	b.ReportMetric(float64(len(cases)), "snippets/op")
}

// BenchmarkGrowth runs 10,000 warm snippets on one Interpreter with the
// default rebuild policy and reports the mean time per snippet of the last
// 100 over the first 100 (target: at most 1.5).
func BenchmarkGrowth(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		first, last := growth(b, 0, 10000)
		b.ReportMetric(float64(last.d)/float64(first.d), "last/first")
	}
}

// BenchmarkCalls runs a snippet that makes 10,000 calls of a small
// interpreted function, the shape of Go's test/divmod.go (which makes
// millions): what a call costs, its frame included.
func BenchmarkCalls(b *testing.B) {
	in, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	code := `func divmod(x, y uint64) (q, r uint64) {
	q = x / y
	r = x - q*y
	if r >= y {
		panic("remainder")
	}
	return q, r
}
var sum uint64
for i := uint64(1); i <= 10000; i++ {
	q, r := divmod(i*7919, i)
	sum += q + r
}
_ = sum`
	b.ReportAllocs()
	for b.Loop() {
		if _, err := in.Eval(context.Background(), Input{Code: code}); err != nil {
			b.Fatal(err)
		}
	}
}
