package interp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Sentinel errors. Every error Eval returns wraps one of them, so callers can
// branch with errors.Is and read details with errors.As.
var (
	// ErrCompile: the snippet does not parse or type-check. See [CompileError].
	ErrCompile = errors.New("interp: snippet does not compile")
	// ErrPanic: the snippet panicked at run time. See [PanicError].
	ErrPanic = errors.New("interp: snippet panicked")
	// ErrRefused: the snippet uses something the sandbox does not allow. See [RefusedError].
	ErrRefused = errors.New("interp: not allowed in snippets")
	// ErrTimeout: the snippet ran past its deadline and was stopped.
	ErrTimeout = errors.New("interp: snippet timed out")
	// ErrCanceled: the caller's context was canceled while the snippet ran.
	ErrCanceled = errors.New("interp: snippet canceled")
	// ErrOutputLimit: the snippet wrote far more output than is kept and was stopped.
	ErrOutputLimit = errors.New("interp: snippet output limit exceeded")
	// ErrMemoryLimit: the heap grew past Options.MaxHeapGrowth while the snippet ran.
	ErrMemoryLimit = errors.New("interp: snippet memory limit exceeded")
	// ErrCallDepth: interpreted calls nested deeper than Options.MaxCallDepth.
	// A [PanicError] caused by the limit also matches this sentinel.
	ErrCallDepth = errors.New("interp: call depth limit exceeded")
	// ErrAllocLimit: one allocation asked for more than Options.MaxAlloc bytes.
	// A [PanicError] caused by the limit also matches this sentinel.
	ErrAllocLimit = errors.New("interp: allocation limit exceeded")
	// ErrInput: the Input itself is invalid (a variable name that is not a Go
	// identifier, a missing value); a programming error of the caller.
	ErrInput = errors.New("interp: invalid input")
	// ErrPrintLimit: a value given to fmt, encoding/json or encoding/xml is
	// cyclic, nested too deep or too large to print. A [PanicError] caused by
	// the limit also matches this sentinel.
	ErrPrintLimit = errors.New("interp: value too deep, cyclic or large to print")
)

// CompileError reports a snippet that does not parse or compile. Line and
// Column are 1-based and relative to the snippet as given in [Input.Code].
type CompileError struct {
	Line, Column int
	Source       string // the offending line of the snippet, without its newline
	Msg          string // the compiler's message
}

// Error returns the message with the snippet line and column and the
// offending line, when known, and a hint for common mistakes.
func (e *CompileError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "snippet:%d:%d: %s", e.Line, e.Column, e.Msg)
	} else {
		fmt.Fprintf(&b, "snippet: %s", e.Msg)
	}
	if src := strings.TrimSpace(e.Source); src != "" {
		fmt.Fprintf(&b, "\n\t%s", src)
	}
	if hint := compileHint(e.Msg); hint != "" {
		fmt.Fprintf(&b, "\n%s", hint)
	}
	return b.String()
}

// Unwrap returns [ErrCompile].
func (e *CompileError) Unwrap() error { return ErrCompile }

// compileHint suggests a fix for messages yaegi words obscurely.
func compileHint(msg string) string {
	switch {
	case (strings.HasPrefix(msg, "os.Stdout.") || strings.HasPrefix(msg, "os.Stderr.")) && strings.Contains(msg, "io.Writer"):
		return "hint: in a snippet os.Stdout and os.Stderr are io.Writers, its own output streams: write with fmt.Fprint, fmt.Fprintf or their Write method"
	case strings.Contains(msg, "undefined selector") && strings.Contains(msg, "slices."),
		strings.Contains(msg, "undefined selector") && strings.Contains(msg, "maps."):
		return "hint: the interpreter's slices and maps packages have the Go 1.21 functions plus Sort, SortFunc, Min, Max, BinarySearch, All, Values, Collect, Sorted and maps.Keys, Values, All, Collect; write a loop otherwise"
	}
	return ""
}

// PanicError reports a run-time panic of the snippet. Line is the snippet line
// of the innermost interpreted frame that panicked (0 when yaegi did not say);
// for a function declared by an earlier snippet it is that snippet's line.
type PanicError struct {
	Line  int
	Value string // the panic value, formatted with %v
	Err   error  // ErrCallDepth or ErrAllocLimit when a sandbox limit caused the panic, else nil
}

// Error returns the panic value, with the snippet line that panicked when
// known.
func (e *PanicError) Error() string {
	where := "snippet"
	if e.Line > 0 {
		where = fmt.Sprintf("snippet:%d", e.Line)
	}
	return fmt.Sprintf("%s: panic: %s", where, e.Value)
}

// Unwrap returns [ErrPanic] and, when a limit caused the panic, its sentinel.
func (e *PanicError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrPanic, e.Err}
	}
	return []error{ErrPanic}
}

// RefusedError reports something the sandbox does not allow. What names it
// (an import, a statement, a call) and Why says why and what to do instead.
type RefusedError struct {
	What string
	Why  string
	Line int // snippet line, 0 if not tied to one
}

// Error says what is not allowed, on which snippet line, why, and what to
// do instead.
func (e *RefusedError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("snippet:%d: %s is not allowed in snippets: %s", e.Line, e.What, e.Why)
	}
	return fmt.Sprintf("snippet: %s is not allowed in snippets: %s", e.What, e.Why)
}

// Unwrap returns [ErrRefused].
func (e *RefusedError) Unwrap() error { return ErrRefused }

// StopError reports a snippet that the sandbox stopped: a timeout, a
// cancellation, an output flood or heap growth. It unwraps to the matching
// sentinel (ErrTimeout, ErrCanceled, ErrOutputLimit, ErrMemoryLimit) and to
// the context's error where there is one.
type StopError struct {
	Reason error         // the sentinel
	Limit  string        // the limit that was hit, human readable
	After  time.Duration // how long the snippet had run
	Ctx    error         // context.DeadlineExceeded or context.Canceled, if any
}

// Error says why the snippet was stopped and which limit it hit, with a
// hint on how to stay within it.
func (e *StopError) Error() string {
	switch e.Reason {
	case ErrTimeout:
		return fmt.Sprintf("snippet: stopped after %v: it ran past its time limit of %s (an endless loop, a blocked channel or a long sleep?); make it finish sooner or do less per snippet", e.After.Round(time.Millisecond), e.Limit)
	case ErrCanceled:
		return "snippet: stopped because the step was canceled"
	case ErrOutputLimit:
		return fmt.Sprintf("snippet: stopped because it wrote more than %s of output; print a summary instead of everything", e.Limit)
	case ErrMemoryLimit:
		return fmt.Sprintf("snippet: stopped because the heap grew by more than %s; process the data in smaller pieces", e.Limit)
	}
	return "snippet: stopped: " + e.Reason.Error()
}

// Unwrap returns the sentinel and the context error.
func (e *StopError) Unwrap() []error {
	if e.Ctx != nil {
		return []error{e.Reason, e.Ctx}
	}
	return []error{e.Reason}
}

// stopError builds the error for an Eval whose context ended.
func stopError(ctx context.Context, limit time.Duration, maxOut int, maxHeap int64, ran time.Duration) error {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, ErrOutputLimit):
		return &StopError{Reason: ErrOutputLimit, Limit: byteSize(int64(maxOut)), After: ran}
	case errors.Is(cause, ErrMemoryLimit):
		return &StopError{Reason: ErrMemoryLimit, Limit: byteSize(maxHeap), After: ran}
	case errors.Is(cause, ErrTimeout), errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &StopError{Reason: ErrTimeout, Limit: limit.String(), After: ran, Ctx: context.DeadlineExceeded}
	}
	return &StopError{Reason: ErrCanceled, After: ran, Ctx: context.Canceled}
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// panicLineRE matches the trace line yaegi writes to stderr for each
// interpreted frame a panic unwinds, innermost first ("3:5: panic: main.f(...)").
var panicLineRE = regexp.MustCompile(`(?m)^(\d+):(\d+): panic`)

var panicFrameRE = regexp.MustCompile(`(?m)^(\d+):(\d+): panic: (.*)$`)

// panicLines records the first panic trace line yaegi writes.
type panicLines struct {
	mu   sync.Mutex
	buf  []byte
	line int
	top  bool
	ok   bool
}

func (p *panicLines) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.ok && len(p.buf) < 1<<16 {
		p.buf = append(p.buf, b...)
		if loc := panicLineRE.FindSubmatchIndex(p.buf); loc != nil {
			if end := bytes.IndexByte(p.buf[loc[1]:], '\n'); end >= 0 {
				p.line, _ = strconv.Atoi(string(p.buf[loc[2]:loc[3]]))
				p.top = bytes.HasSuffix(p.buf[loc[1]:loc[1]+end], []byte(": main(...)"))
				p.ok = true
			}
		}
	}
	return len(b), nil
}

// topLevel reports whether the innermost frame was the top-level code, for
// which yaegi names no useful line.
func (p *panicLines) topLevel() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.top
}

func (p *panicLines) first() (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.line, p.ok
}

// mapPanicLines rewrites yaegi's panic trace lines to snippet lines (yaegi's
// line 1 is the sandbox's setup line).
// Runs of identical lines (a deep recursion unwinding) are collapsed.
// Frames of the top-level code get topLine, the line the tracker recorded.
func mapPanicLines(s string, topLine int) string {
	if !strings.Contains(s, ": panic") {
		return s
	}
	s = panicFrameRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := panicFrameRE.FindStringSubmatch(m)
		line, _ := strconv.Atoi(sub[1])
		line--
		if sub[3] == "main(...)" {
			line = topLine
		}
		return fmt.Sprintf("snippet:%d: panic: %s", line, sub[3])
	})
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && lines[j] == lines[i] {
			j++
		}
		b.WriteString(lines[i])
		if n := j - i - 1; n > 0 {
			fmt.Fprintf(&b, "[previous line repeated %d more times]\n", n)
		}
		i = j
	}
	return b.String()
}

// teeWriter writes to two writers.
type teeWriter struct{ a, b io.Writer }

func (t *teeWriter) Write(p []byte) (int, error) {
	t.a.Write(p)
	t.b.Write(p)
	return len(p), nil
}
