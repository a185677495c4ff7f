package variable

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

type flatForecast struct {
	Location string
	Unit     string
	Days     int
	Temps    []float64
}

type flatMixed struct {
	OK      bool
	n       int8 // unexported: written all the same
	Count   uint64
	Ptr     uintptr
	Ratio   float32
	Ids     []int
	Flags   []bool
	Small   []float32
	Größe   string
	Counts  []uint16
	Label   string
	Enabled bool
}

// notFlat has a field whose type describes itself.
type notFlat struct {
	Name string
	Wait time.Duration
}

// withMethod describes itself: the walk asks it.
type withMethod struct{ A int }

func (withMethod) String() string { return "described" }

// ptrMethod has a method on its pointer only: a value does not describe
// itself, a pointer does.
type ptrMethod struct{ A int }

func (*ptrMethod) String() string { return "pointer" }

// TestFlatMatchesWalk holds a flat struct's plan to the general walk: the
// same preview, or the plan gives up, for random values (long, escaped and
// non-ASCII strings, nil, empty and long lists, every kind of number) at
// several limits.
func TestFlatMatchesWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	words := []string{"", "Paris", "c", `say "hi"`, "tab\there", "é", "日本", strings.Repeat("x", 57), strings.Repeat("y", 58), strings.Repeat("z", 200), "<<var:x>>", "\x01", "back\\slash"}
	floats := func() float64 {
		switch r.IntN(8) {
		case 0:
			return math.NaN()
		case 1:
			return math.Inf(1 - 2*r.IntN(2))
		case 2:
			return r.NormFloat64() * 1e300
		case 3:
			return float64(r.IntN(2000)) / 8
		case 4:
			return r.Float64()
		case 5:
			return -float64(r.IntN(1e7)) / 1000
		case 6:
			return 0
		}
		return r.NormFloat64() * 1e-6
	}
	list := func(n int) int {
		switch r.IntN(4) {
		case 0:
			return -1 // nil
		case 1:
			return r.IntN(4)
		case 2:
			return r.IntN(20)
		}
		return r.IntN(n)
	}
	var values []any
	for range 4000 {
		f := flatForecast{Location: words[r.IntN(len(words))], Unit: words[r.IntN(len(words))], Days: r.IntN(20) - 5}
		if n := list(40); n >= 0 {
			f.Temps = make([]float64, n)
			for i := range f.Temps {
				f.Temps[i] = floats()
			}
		}
		m := flatMixed{OK: r.IntN(2) == 0, n: int8(r.IntN(256) - 128), Count: r.Uint64(), Ptr: uintptr(r.Uint32()), Ratio: float32(floats()),
			Größe: words[r.IntN(len(words))], Label: words[r.IntN(len(words))], Enabled: r.IntN(2) == 0}
		if n := list(30); n >= 0 {
			m.Ids = make([]int, n)
			for i := range m.Ids {
				m.Ids[i] = r.IntN(1<<20) - 1<<19
			}
		}
		if n := list(10); n >= 0 {
			m.Flags = make([]bool, n)
		}
		if n := list(10); n >= 0 {
			m.Small = make([]float32, n)
			for i := range m.Small {
				m.Small[i] = float32(floats())
			}
		}
		if n := list(10); n >= 0 {
			m.Counts = make([]uint16, n)
		}
		values = append(values, f, &f, m, &m)
	}
	values = append(values, notFlat{"a", time.Second}, withMethod{1}, &withMethod{2}, ptrMethod{3}, &ptrMethod{4},
		struct{}{}, &struct{}{}, struct{ A, B int }{1, 2}, (*flatForecast)(nil))
	planned := 0
	for i, v := range values {
		for _, limit := range []int{0, 8, 20, 40, 60, 100, 150, 300} {
			lim := limit
			if lim == 0 {
				lim = DefaultPreviewLimit
			}
			want := preview(v, lim, false)
			got := Preview(v, limit)
			if got != want {
				t.Fatalf("value %d, limit %d: plan wrote\n\t%s\nthe walk writes\n\t%s", i, limit, got, want)
			}
			p := previewer{limit: lim}
			if p.flat(reflect.ValueOf(v)) {
				planned++
			}
		}
	}
	if planned < 2000 {
		t.Fatalf("the plan wrote %d previews of %d values: it gives up too often to be checked", planned, len(values))
	}
}

// BenchmarkPreviewFlat compares a flat struct's plan with the walk.
func BenchmarkPreviewFlat(b *testing.B) {
	v := flatForecast{Location: "Paris", Unit: "c", Days: 3, Temps: []float64{18.5, 19, 21.25}}
	for _, c := range []struct {
		name string
		flat bool
	}{{"plan", true}, {"walk", false}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				preview(v, DefaultPreviewLimit, c.flat)
			}
		})
	}
}
