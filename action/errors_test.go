package action_test

import (
	"errors"
	"testing"

	"github.com/byref/byref/action"
)

func TestSpecError(t *testing.T) {
	inner := errors.New("bad thing")
	err := error(&action.SpecError{Action: "x", Err: inner})
	if err.Error() != `action "x": bad thing` {
		t.Errorf("Error() = %q", err)
	}
	if !errors.Is(err, action.ErrInvalidSpec) || !errors.Is(err, inner) {
		t.Error("SpecError does not unwrap to both ErrInvalidSpec and its cause")
	}
	if errors.Is(err, action.ErrPanicked) {
		t.Error("SpecError is ErrPanicked")
	}
}

func TestPanicError(t *testing.T) {
	cause := errors.New("nil map")
	err := error(&action.PanicError{Action: "x", Value: cause})
	if err.Error() != "action x panicked: nil map" {
		t.Errorf("Error() = %q", err)
	}
	if !errors.Is(err, action.ErrPanicked) || errors.Is(err, action.ErrInvalidSpec) {
		t.Error("PanicError does not unwrap to ErrPanicked alone")
	}
}
