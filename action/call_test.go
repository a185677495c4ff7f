package action_test

import (
	"context"
	"testing"

	"github.com/byref/byref/action"
)

// plainCall is a Call that cannot tell when its run ends.
type plainCall struct{}

func (plainCall) IDs() (string, string)                  { return "r", "c" }
func (plainCall) Progress(context.Context, string) error { return nil }

// endingCall is a Call that can.
type endingCall struct {
	plainCall
	done chan struct{}
}

func (c endingCall) Done() <-chan struct{} { return c.done }

// TestRunDone: the run's Done channel when the call implements Ending,
// nil (never ready) outside a call or when the call cannot tell.
func TestRunDone(t *testing.T) {
	if action.RunDone(context.Background()) != nil {
		t.Error("RunDone outside a call is not nil")
	}
	if action.RunDone(action.WithCall(context.Background(), plainCall{})) != nil {
		t.Error("RunDone of a call that cannot tell is not nil")
	}
	done := make(chan struct{})
	got := action.RunDone(action.WithCall(context.Background(), endingCall{done: done}))
	close(done)
	select {
	case <-got:
	default:
		t.Error("RunDone is not the call's Done")
	}
}
