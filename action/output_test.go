package action_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/byref/byref/action"
)

func TestOutputDefaultsToDiscard(t *testing.T) {
	ctx := context.Background()
	if action.Stdout(ctx) != io.Discard || action.Stderr(ctx) != io.Discard {
		t.Error("Stdout/Stderr outside a call are not io.Discard")
	}
	// Nil writers also mean discard.
	ctx = action.WithOutput(ctx, nil, nil)
	if action.Stdout(ctx) != io.Discard || action.Stderr(ctx) != io.Discard {
		t.Error("nil writers are not io.Discard")
	}
}

func TestWithOutputRoutesWrites(t *testing.T) {
	var out, errOut bytes.Buffer
	a := action.MustNew(action.Spec{
		Name: "greet",
		Func: func(ctx context.Context, name string) error {
			fmt.Fprintf(action.Stdout(ctx), "hello %s\n", name)
			fmt.Fprintln(action.Stderr(ctx), "warning: informal")
			return nil
		},
		Params: []action.Param{{Name: "name"}},
	})
	ctx := action.WithOutput(context.Background(), &out, &errOut)
	if _, err := a.Call(ctx, []reflect.Value{reflect.ValueOf("Ada")}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "hello Ada\n" || errOut.String() != "warning: informal\n" {
		t.Errorf("stdout %q, stderr %q", out.String(), errOut.String())
	}

	// Each call has its own writers: an inner WithOutput shadows the outer.
	var inner bytes.Buffer
	ctx2 := action.WithOutput(ctx, &inner, nil)
	fmt.Fprint(action.Stdout(ctx2), "x")
	if inner.String() != "x" || out.String() != "hello Ada\n" {
		t.Errorf("inner %q, outer %q", inner.String(), out.String())
	}
	if action.Stderr(ctx2) != io.Discard {
		t.Error("a nil stderr in the inner context should discard, not fall back to the outer writer")
	}
}
