package interp

import (
	"context"
	"fmt"
	"reflect"
	"runtime/metrics"
	"sync"
	"time"
)

// guard holds the per-yaegi-instance limits that snippet code reaches through
// the injected _byref package: the call-depth counter, allocation checks and a
// context-aware sleep. A guard belongs to one yaegi instance; a new instance
// gets a new guard, so a goroutine leaked by a timed-out Eval never shares
// state with a later one.
type guard struct {
	ctx      context.Context
	depth    int
	maxDepth int
	tripped  bool // the depth limit was hit; deferred handlers get headroom
	maxAlloc int64
	// quiet silences the instance's stderr while a top-level return unwinds
	// (yaegi writes a trace line per frame a panic leaves).
	quiet func()
	// keeping, when set, is what _byref.Keep runs: the Error methods of
	// values the host keeps after the Eval (see keeper).
	keeping func()
	// back, when set, is what _byref.Of, Back and Put read and fill: the
	// SnippetErrors given back to a snippet as values of its types.
	back *backState
}

// depthPanic is the panic value raised when the call depth limit is hit.
type depthPanic struct{ limit int }

func (d depthPanic) Error() string {
	return fmt.Sprintf("call depth limit of %d exceeded (deep or unbounded recursion); rewrite the recursion as a loop", d.limit)
}

// allocPanic is the panic value raised when one allocation is too large.
type allocPanic struct {
	what       string
	bytes, max int64
}

func (a allocPanic) Error() string {
	return fmt.Sprintf("%s would allocate %d bytes, over the per-allocation limit of %d bytes; process the data in smaller pieces", a.what, a.bytes, a.max)
}

// stoppedPanic is raised when interpreted code is entered after the Eval was
// stopped, so host loops that call back into the snippet unwind at once.
type stoppedPanic struct{}

func (stoppedPanic) Error() string { return "snippet stopped" }

// returnPanic is raised by a snippet's top-level return (rewritten to
// `_byref.Return(n)`); Eval recovers it and ends the snippet successfully.
// created is how many of the snippet's new variables were declared before
// the statement that returned.
type returnPanic struct{ created int }

func (returnPanic) Error() string { return "snippet returned" }

// ret ends the snippet: see returnPanic.
func (g *guard) ret(created int) {
	if g.quiet != nil {
		g.quiet()
	}
	panic(returnPanic{created})
}

// keep runs g.keeping, on the snippet's goroutine.
func (g *guard) keep() {
	if g.keeping != nil {
		g.keeping()
	}
}

// enter is called (as `defer _byref.Enter()()`) at the start of every function
// body of a snippet. It bounds the interpreted call depth, which yaegi maps to
// Go stack (about 1.1 KiB per call; a Go stack overflow is fatal).
func (g *guard) enter() func() {
	if g.ctx != nil && g.ctx.Err() != nil {
		panic(stoppedPanic{})
	}
	g.depth++
	limit := g.maxDepth
	if g.tripped {
		limit += depthHeadroom
	}
	if g.depth > limit {
		g.depth--
		g.tripped = true
		panic(depthPanic{g.maxDepth})
	}
	return g.leave
}

// depthHeadroom is how many more nested calls deferred functions (a recover
// handler) may make while a depth-limit panic unwinds.
const depthHeadroom = 64

func (g *guard) leave() {
	g.depth--
	if g.tripped && g.depth < g.maxDepth/2 {
		g.tripped = false
	}
}

// size checks the size argument n of make(T, n) against the per-allocation
// limit; zero is a typed nil of T giving the element size.
func (g *guard) size(n any, zero any) int {
	v := reflect.ValueOf(n)
	var count int64
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		count = v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := v.Uint()
		if u > 1<<62 {
			u = 1 << 62
		}
		count = int64(u)
	case reflect.Float32, reflect.Float64:
		count = int64(v.Float())
	default:
		panic(fmt.Sprintf("make: size argument of type %s is not an integer", v.Type()))
	}
	elem := int64(1)
	if t := reflect.TypeOf(zero); t != nil {
		switch t.Kind() {
		case reflect.Slice, reflect.Chan:
			elem = max(int64(t.Elem().Size()), 1)
		case reflect.Map:
			elem = max(int64(t.Key().Size()+t.Elem().Size()), 1)
		}
	}
	g.checkBytes(elem, count, "make")
	return int(count)
}

// checkBytes panics when unit*count exceeds the per-allocation limit.
func (g *guard) checkBytes(unit, count int64, what string) {
	if count <= 0 || unit <= 0 {
		return
	}
	if count > g.maxAlloc/unit {
		total := unit * count
		if total/unit != count || total < 0 { // overflow
			total = 1<<63 - 1
		}
		panic(allocPanic{what: what, bytes: total, max: g.maxAlloc})
	}
}

// addBytes returns total+n, panicking once the sum exceeds the
// per-allocation limit (so it cannot overflow).
func (g *guard) addBytes(total, n int64, what string) int64 {
	if n > g.maxAlloc-total {
		panic(allocPanic{what: what, bytes: satAdd(total, n), max: g.maxAlloc})
	}
	return total + n
}

// checkSum panics when base+unit*count exceeds the per-allocation limit.
func (g *guard) checkSum(base, unit, count int64, what string) {
	if unit <= 0 || count <= 0 {
		if base > g.maxAlloc {
			panic(allocPanic{what: what, bytes: base, max: g.maxAlloc})
		}
		return
	}
	if base > g.maxAlloc || count > (g.maxAlloc-base)/unit {
		total := int64(1<<63 - 1)
		if count <= (total-base)/unit {
			total = base + unit*count
		}
		panic(allocPanic{what: what, bytes: total, max: g.maxAlloc})
	}
}

func satAdd(a, b int64) int64 {
	if b > 1<<63-1-a {
		return 1<<63 - 1
	}
	return a + b
}

// checkReplace bounds the result of strings/bytes.Replace(s, old, new, n)
// before it is built: len(s) + m*(len(new)-len(old)), m being the number of
// replacements (count(), or runes()+1 for an empty old, capped by n).
func (g *guard) checkReplace(ls, lold, lnew, n int, count, runes func() int, what string) {
	if lnew <= lold || n == 0 {
		return
	}
	var m int
	if lold == 0 {
		m = runes() + 1
	} else {
		m = count()
	}
	if n >= 0 && n < m {
		m = n
	}
	g.checkSum(int64(ls), int64(lnew-lold), int64(m), what)
}

// sleep replaces time.Sleep: it returns as soon as the Eval's context ends, so
// a sleeping snippet never outlives its deadline.
func (g *guard) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-g.ctx.Done():
	}
}

// exports is the _byref package the instrumented code calls.
func (g *guard) exports() map[string]reflect.Value {
	return map[string]reflect.Value{
		"Enter":  reflect.ValueOf(g.enter),
		"Size":   reflect.ValueOf(g.size),
		"Return": reflect.ValueOf(g.ret),
		"Keep":   reflect.ValueOf(g.keep),
		"Of":     reflect.ValueOf(g.backOf),
		"Back":   reflect.ValueOf(g.backData),
		"Put":    reflect.ValueOf(g.backPut),
	}
}

// heapSample is the metric the memory watchdog polls.
const heapMetric = "/memory/classes/heap/objects:bytes"

// watchHeap polls the process heap every interval while an Eval runs and
// calls stop once it has grown by more than limit bytes since the Eval began.
// It returns a function that ends the watch. The measure is process-wide:
// allocations by other goroutines count too.
func watchHeap(limit int64, interval time.Duration, stop func()) (end func()) {
	if limit <= 0 {
		return func() {}
	}
	sample := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return func() {}
	}
	base := sample[0].Value.Uint64()
	// A timer rather than a goroutine with a ticker: most snippets end
	// before the first poll, and then nothing was started.
	var mu sync.Mutex
	ended := false
	var t *time.Timer
	mu.Lock() // t is read under mu by the callback
	defer mu.Unlock()
	t = time.AfterFunc(interval, func() {
		s := []metrics.Sample{{Name: heapMetric}}
		metrics.Read(s)
		if now := s[0].Value.Uint64(); now > base && int64(now-base) > limit {
			stop()
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if !ended {
			t.Reset(interval)
		}
	})
	return func() {
		mu.Lock()
		defer mu.Unlock()
		ended = true
		t.Stop()
	}
}
