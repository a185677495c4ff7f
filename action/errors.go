package action

import (
	"errors"
	"fmt"
)

// ErrInvalidSpec is wrapped by every error New and NewSet return.
var ErrInvalidSpec = errors.New("action: invalid definition")

// ErrPanicked is wrapped by the error of a call whose function panicked.
var ErrPanicked = errors.New("action: panicked")

// SpecError reports what is wrong with an action's definition.
type SpecError struct {
	// Action is the name of the action being defined.
	Action string
	// Err says what is wrong.
	Err error
}

// Error says which action is wrong, and how.
func (e *SpecError) Error() string {
	return fmt.Sprintf("action %q: %v", e.Action, e.Err)
}

// Unwrap returns ErrInvalidSpec and the underlying error.
func (e *SpecError) Unwrap() []error { return []error{ErrInvalidSpec, e.Err} }

// PanicError is the error of a call whose function panicked.
type PanicError struct {
	// Action is the action that panicked.
	Action string
	// Value is what was passed to panic.
	Value any
	// Stack is the goroutine's stack at the panic.
	Stack string
}

// Error names the action and what it panicked with.
func (e *PanicError) Error() string {
	return fmt.Sprintf("action %s panicked: %v", e.Action, e.Value)
}

// Unwrap returns ErrPanicked.
func (e *PanicError) Unwrap() error { return ErrPanicked }
