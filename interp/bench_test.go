package interp

import (
	"context"
	"fmt"
	"reflect"
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

// BenchmarkEvalWarm: a warm 5-line snippet over 10 variables (target ≤ 300 µs/op).
func BenchmarkEvalWarm(b *testing.B) {
	in, err := New(Options{Symbols: []Exports{appSymbols}})
	if err != nil {
		b.Fatal(err)
	}
	input := Input{Code: fiveLines, Vars: tenVars()}
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

// BenchmarkNew: a fresh interpreter with the allow-list loaded (target ≤ 5 ms).
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

func growth(tb testing.TB, every, n int) (first, last time.Duration) {
	in, err := New(Options{RebuildEvery: every, Symbols: []Exports{appSymbols}})
	if err != nil {
		tb.Fatal(err)
	}
	vars := tenVars()
	for i := range n {
		start := time.Now()
		res, err := in.Eval(context.Background(), Input{Code: fiveLines, Vars: vars})
		if err != nil {
			tb.Fatal(err)
		}
		d := time.Since(start)
		if i < 100 {
			first += d
		} else if i >= n-100 {
			last += d
		}
		vars[7].Value = res.Values["v7"]
	}
	return first, last
}
