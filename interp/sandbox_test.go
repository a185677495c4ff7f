package interp

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestEscapes runs escape and abuse attempts. Each must be refused or stopped
// with a clear message, and afterwards the same Interpreter must still run a
// normal snippet correctly with the input variables unchanged.
func TestEscapes(t *testing.T) {
	// Cases that must be stopped by the time limit get a context with a
	// short deadline; the rest, and the normal snippet that follows each
	// case on the same interpreter, run under a long Options.Timeout, so
	// that a loaded machine cannot turn their expected result into a
	// timeout.
	in, err := New(Options{Timeout: time.Minute, MaxOutput: 1 << 10, MaxCallDepth: 200})
	if err != nil {
		t.Fatal(err)
	}
	baseline := runtime.NumGoroutine()
	cases := []struct {
		name string
		code string
		want error  // sentinel
		msg  string // substring of the message
	}{
		{"import os", `import "os"` + "\nos.Exit(1)", ErrRefused, "os.Exit is not allowed in snippets: of package os a snippet may use only os.Stdout and os.Stderr"},
		{"import os/exec", `import "os/exec"` + "\nexec.Command(\"sh\").Run()", ErrRefused, "cannot run processes"},
		{"import net", `import "net"` + "\nnet.Dial(\"tcp\", \"example.com:80\")", ErrRefused, "no network access"},
		{"import net/http", `import "net/http"` + "\nhttp.Get(\"http://example.com\")", ErrRefused, "no network access"},
		{"import syscall", `import "syscall"` + "\nsyscall.Kill(1, 9)", ErrRefused, "system calls"},
		{"import unsafe", `import "unsafe"` + "\n_ = unsafe.Pointer(nil)", ErrRefused, "type safety"},
		{"import plugin", `import "plugin"` + "\nplugin.Open(\"x.so\")", ErrRefused, "load code"},
		{"import runtime/debug", `import "runtime/debug"` + "\ndebug.SetMaxStack(1)", ErrRefused, "Go runtime"},
		{"import reflect", `import "reflect"` + "\n_ = reflect.ValueOf(a)", ErrRefused, "type switches"},
		{"renamed import of os", `import o "os"` + "\no.Exit(1)", ErrRefused, "os.Exit is not allowed"},
		{"dot import", `import . "strings"` + "\n_ = ToUpper(\"x\")", ErrRefused, "dot import"},
		{"file read via ioutil", `import "io/ioutil"` + "\nioutil.ReadFile(\"/etc/passwd\")", ErrRefused, "file access"},
		{"file walk via filepath", `import "path/filepath"` + "\nfilepath.Glob(\"/etc/*\")", ErrRefused, "file access"},
		{"file read without import", `b, _ := os.ReadFile("/etc/passwd")` + "\n_ = b", ErrRefused, "package os"},
		{"file write", `os.WriteFile("/tmp/pwned", []byte("x"), 0o644)`, ErrRefused, "package os"},
		{"environment", `fmt.Println(os.Getenv("HOME"))`, ErrRefused, "environment"},
		{"process exit", `os.Exit(3)`, ErrRefused, "package os"},
		{"log.Fatal", `log.Fatal("bye")`, ErrRefused, "fmt.Println"},
		{"runtime.Goexit", `runtime.Goexit()`, ErrRefused, "Go runtime"},
		{"network dial", `net.Dial("tcp", "127.0.0.1:22")`, ErrRefused, "network"},
		{"goroutine", `go fmt.Println("x")`, ErrRefused, "goroutines"},
		{"panic in goroutine", "go func() { panic(\"boom\") }()\ntime.Sleep(time.Second)", ErrRefused, "goroutines"},
		{"time.AfterFunc", `time.AfterFunc(time.Millisecond, func() { panic("x") })`, ErrRefused, "another goroutine"},
		{"reserved name", `_byref.Enter()`, ErrRefused, "reserved"},
		{"endless loop", `for {}`, ErrTimeout, "time limit"},
		{"endless loop with work", "n := 0\nfor { n++ }", ErrTimeout, "time limit"},
		{"empty select", `select {}`, ErrTimeout, "time limit"},
		{"deadlock", "ch := make(chan int)\n<-ch", ErrTimeout, "time limit"},
		{"long sleep", `time.Sleep(time.Hour)`, ErrTimeout, "time limit"},
		{"timer wait", `<-time.After(time.Hour)`, ErrTimeout, "time limit"},
		{"deep recursion", "func f(n int) int { return f(n+1) + 1 }\nf(0)", ErrCallDepth, "recursion"},
		{"recursion through a func value", "var g func(int) int\ng = func(n int) int { return g(n+1) }\ng(0)", ErrCallDepth, "recursion"},
		{"mutual recursion", "func p(n int) int { return q(n) }\nfunc q(n int) int { return p(n) }\np(1)", ErrCallDepth, "recursion"},
		{"recursion with recover", "func f(n int) (r int) { defer func() { recover() }(); return f(n+1) }\nf(0)\nfor {}", ErrTimeout, "time limit"},
		{"huge make", `b := make([]byte, 1<<40)` + "\n_ = b", ErrAllocLimit, "per-allocation limit"},
		{"large make that would succeed", `b := make([]byte, 1<<33)` + "\n_ = b", ErrAllocLimit, "per-allocation limit"},
		{"huge make with a variable size", "n := 1 << 30\nb := make([]int64, n)\n_ = b", ErrAllocLimit, "per-allocation limit"},
		{"huge map hint", `m := make(map[int]int, 1<<40)` + "\n_ = m", ErrAllocLimit, "per-allocation limit"},
		{"huge strings.Repeat", `r := strings.Repeat("x", 1<<40)` + "\n_ = r", ErrAllocLimit, "strings.Repeat"},
		{"huge array", "var big [1 << 40]byte\n_ = big", ErrRefused, "array"},
		{"Grow", "var sb strings.Builder\nsb.Grow(1 << 40)", ErrRefused, "Grow"},
		{"output flood", `for { fmt.Println("spam spam spam spam") }`, ErrOutputLimit, "output"},
		{"println flood", `for { println("spam spam spam spam") }`, ErrOutputLimit, "output"},
		{"panic", `panic("boom")`, ErrPanic, "boom"},
		{"nil map write", "var m map[string]int\nm[\"a\"] = 1", ErrPanic, "nil map"},
		{"assign then fail", "a = 999\ns[0] = 999\npanic(\"after writes\")", ErrPanic, "after writes"},
		{"assign then time out", "a = 999\nfor {}", ErrTimeout, "time limit"},
		{"import sync", `import "sync"` + "\nvar mu sync.Mutex\nmu.Lock()", ErrRefused, "one goroutine"},
		{"import expvar", `import "expvar"` + "\nexpvar.NewInt(\"x\")", ErrRefused, "allow-list"},
		{"import net/http/pprof", `import "net/http/pprof"` + "\n_ = pprof.Index", ErrRefused, "allow-list"},
		{"import yaegi's stdlib", `import "github.com/traefik/yaegi/stdlib"` + "\n_ = stdlib.Symbols", ErrRefused, "allow-list"},
		{"import the sandbox package", `import sb "byref.local/sandbox"` + "\nsb.Return(0)", ErrRefused, "allow-list"},
		{"import crypto/rand", `import "crypto/rand"` + "\nrand.Read(make([]byte, 8))", ErrRefused, "allow-list"},
		{"import log/slog", `import "log/slog"` + "\nslog.Info(\"x\")", ErrRefused, "allow-list"},
		{"import os/signal", `import "os/signal"` + "\nsignal.Ignore()", ErrRefused, "signals"},
		{"import runtime/pprof", `import "runtime/pprof"` + "\n_ = pprof.Profiles()", ErrRefused, "allow-list"},
		{"import iter", `import "iter"` + "\nvar f iter.Seq[int]\n_ = f", ErrRefused, "allow-list"},
		{"sort then panic", "sort.Ints(s)\ns[0] = 9\npanic(\"after sorting\")", ErrPanic, "after sorting"},
		{"slices.Sort then time out", "slices.Reverse(s)\ns[1] = 0\nfor {}", ErrTimeout, "time limit"},
		{"print a cycle", "c := []any{nil}\nc[0] = c\nfmt.Println(c)", ErrPrintLimit, "cycle"},
		{"marshal a cycle", "type N struct{ Next *N }\nn := &N{}\nn.Next = n\n_, _ = json.Marshal(n)", ErrPrintLimit, "cycle"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.want == ErrTimeout {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 300*time.Millisecond)
				defer cancel()
			}
			host := []int{1, 2, 3}
			given := slices.Clone(host)
			res, err := in.Eval(ctx, Input{Code: tc.code, Vars: []Var{
				{Name: "a", Value: reflect.ValueOf(1)},
				{Name: "s", Value: reflect.ValueOf(given)},
			}})
			if tc.want != ErrTimeout && !slices.Equal(given, host) {
				// (a stopped snippet's goroutine may still be running)
				t.Errorf("s = %v after the failed snippet, want %v", given, host)
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v (%T), want %v", err, err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("message %q does not contain %q", err.Error(), tc.msg)
			}
			if tc.want == ErrTimeout && (strings.Contains(err.Error(), "1m0s") || !strings.Contains(err.Error(), "ms (")) {
				t.Errorf("message %q does not name the caller's deadline (under 300ms) as the limit", err.Error())
			}
			if res.Values != nil || res.Created != nil || res.Assigned != nil {
				t.Errorf("failed Eval returned values: %+v", res)
			}
			if tc.want == ErrOutputLimit && !strings.Contains(res.Stdout+res.Stderr, "output truncated") {
				t.Errorf("flooded output has no truncation marker: %q", res.Stdout)
			}
			checkHealthy(t, in)
		})
	}
	// No goroutine outlives the stopped snippets for long.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > baseline+2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > baseline+2 {
		t.Errorf("goroutines: %d, baseline %d", n, baseline)
	}
}

// checkHealthy runs a normal snippet and checks its result.
func checkHealthy(t *testing.T, in *Interpreter) {
	t.Helper()
	host := []int{1, 2, 3}
	res, err := in.Eval(context.Background(), Input{
		Code: "total := 0\nfor _, v := range s { total += v }\na = a + total\nfmt.Println(a)",
		Vars: []Var{{Name: "a", Value: reflect.ValueOf(1)}, {Name: "s", Value: reflect.ValueOf(host)}},
	})
	if err != nil {
		t.Fatalf("normal snippet after the attempt: %v", err)
	}
	if res.Stdout != "7\n" || res.Values["a"].Int() != 7 || !slices.Equal(res.Created, []string{"total"}) {
		t.Fatalf("normal snippet after the attempt: %+v", res)
	}
	if !slices.Equal(host, []int{1, 2, 3}) {
		t.Fatalf("input variable changed: %v", host)
	}
}

func TestDefaultCallDepth(t *testing.T) {
	in, _ := New(Options{Timeout: time.Minute})
	_, err := in.Eval(context.Background(), Input{Code: "func f(n int) int { return f(n+1) + 1 }\nf(0)"})
	var pe *PanicError
	if !errors.Is(err, ErrCallDepth) || !errors.As(err, &pe) || pe.Line != 1 {
		t.Fatalf("err = %v", err)
	}
	// Legitimate recursion below the limit works.
	res, err := in.Eval(context.Background(), Input{Code: "func g(n int) int { if n == 0 { return 0 }; return g(n-1) + 1 }\nfmt.Println(g(900))"})
	if err != nil || res.Stdout != "900\n" {
		t.Fatalf("res=%+v err=%v", res, err)
	}
}

func TestHeapGrowthStopped(t *testing.T) {
	in, err := New(Options{Timeout: 20 * time.Second, MaxHeapGrowth: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	_, err = in.Eval(context.Background(), Input{Code: "var keep [][]byte\nfor { keep = append(keep, make([]byte, 1<<20)) }"})
	if !errors.Is(err, ErrMemoryLimit) || !strings.Contains(err.Error(), "heap grew") {
		t.Fatalf("err = %v, want ErrMemoryLimit", err)
	}
	runtime.GC()
	checkHealthy(t, in)
}

func TestStdinIsEmpty(t *testing.T) {
	in, _ := New(Options{Timeout: time.Second})
	res, err := in.Eval(context.Background(), Input{Code: "var s string\n_, err := fmt.Scanln(&s)\nfmt.Println(err)"})
	if err != nil || res.Stdout != "EOF\n" {
		t.Fatalf("res=%+v err=%v", res, err)
	}
}

func TestCanceledByCaller(t *testing.T) {
	in, _ := New(Options{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	_, err := in.Eval(ctx, Input{Code: "for {}"})
	if !errors.Is(err, ErrCanceled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	checkHealthy(t, in)
}

func TestCallerDeadline(t *testing.T) {
	in, _ := New(Options{Timeout: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := in.Eval(ctx, Input{Code: "time.Sleep(time.Hour)"})
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

func TestAllowListLoads(t *testing.T) {
	loadStd()
	for _, p := range AllowedPackages {
		if !stdPaths[p] {
			t.Errorf("allowed package %s has no symbols in yaegi's stdlib", p)
		}
	}
	for _, bad := range []string{"os", "os/exec", "net", "net/http", "syscall", "unsafe", "reflect", "runtime", "io/ioutil", "path/filepath", "log", "sync"} {
		if stdPaths[bad] {
			t.Errorf("%s is loaded", bad)
		}
	}
	if _, ok := stdTable["time/time"]["AfterFunc"]; ok {
		t.Error("time.AfterFunc is loaded")
	}
}
