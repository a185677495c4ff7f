package interp

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestErrorsUnwrap(t *testing.T) {
	var err error = &PanicError{Line: 3, Value: "x", Err: ErrCallDepth}
	if !errors.Is(err, ErrPanic) || !errors.Is(err, ErrCallDepth) || err.Error() != "snippet:3: panic: x" {
		t.Fatal(err)
	}
	err = &CompileError{Line: 2, Column: 5, Source: "  y := z", Msg: "undefined: z"}
	if !errors.Is(err, ErrCompile) || err.Error() != "snippet:2:5: undefined: z\n\ty := z" {
		t.Fatalf("%q", err)
	}
	err = &RefusedError{What: "import \"os\"", Why: "no files", Line: 1}
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "not allowed") {
		t.Fatal(err)
	}
	err = &StopError{Reason: ErrTimeout, Limit: "1s", Ctx: context.DeadlineExceeded}
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal(err)
	}
}

func TestMapPanicLines(t *testing.T) {
	in := "2:3: panic: main.f(...)\n2:3: panic: main.f(...)\n1:1: panic: main(...)\n"
	want := "snippet:1: panic: main.f(...)\n[previous line repeated 1 more times]\nsnippet:7: panic: main(...)\n"
	if got := mapPanicLines(in, 7); got != want {
		t.Fatalf("%q", got)
	}
}
