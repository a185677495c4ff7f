package agent

import (
	"errors"
	"strconv"
)

// Sentinels of the typed failures of a step (ToolResponse.Err,
// SnippetResponse.Err): test them with errors.Is, or get the details with
// errors.As on *RefusedError and *ActionError. The model gets the same
// failures as text.
var (
	// ErrRefused: a call was refused before it ran: an unknown or
	// unavailable action, arguments that do not fit its parameters, a
	// reference that does not resolve, a bad "return".
	ErrRefused = errors.New("agent: the call was refused")
	// ErrCallTimeout: a call did not return before its deadline
	// (Options.CallTimeout) and was abandoned.
	ErrCallTimeout = errors.New("agent: the call did not return before its deadline")
)

// RefusedError is a call refused before it ran; it unwraps to ErrRefused.
// Its text says what is wrong and how to fix the call.
type RefusedError struct {
	// Action and CallID identify the call.
	Action, CallID string
	// Msg is what the model is told.
	Msg string
}

func (e *RefusedError) Error() string { return e.Msg }

// Unwrap returns ErrRefused.
func (e *RefusedError) Unwrap() error { return ErrRefused }

// ActionError is a call that ran and failed: the action returned an error
// (Err), panicked (Err is an *action.PanicError) or was abandoned at its
// deadline (Err is ErrCallTimeout) or on cancellation (Err is the cause).
type ActionError struct {
	// Action and CallID identify the call; Step is its step.
	Action, CallID string
	Step           int
	// Msg is what the model is told.
	Msg string
	// Err is the action's own error, or why the call was abandoned.
	Err error
}

func (e *ActionError) Error() string {
	if e.Msg != "" {
		return e.Msg
	}
	return e.Action + " (step " + strconv.Itoa(e.Step) + "): " + e.Err.Error()
}

// Unwrap returns the action's error.
func (e *ActionError) Unwrap() error { return e.Err }

// Errors of Start, FollowUp and Cancel.
var (
	// ErrNoModel: neither Options.Model nor RunOptions.Model is set.
	ErrNoModel = errors.New("agent: no model; set Options.Model or RunOptions.Model (llm.NewScripted for tests)")
	// ErrRunExists: RunOptions.ID names a run the store already holds and
	// that is not going on in this agent; Restore it instead.
	ErrRunExists = errors.New("agent: the run already exists")
	// ErrInvalidInput: the input does not match RunOptions.InputSchema.
	ErrInvalidInput = errors.New("agent: invalid input")
	// ErrNotFollowable: a follow-up was sent to a run that is not completed,
	// or that is non-interactive.
	ErrNotFollowable = errors.New("agent: the run does not accept follow-ups")
	// ErrTerminal: the run has already ended (completed, failed or
	// canceled), so it cannot be cancelled.
	ErrTerminal = errors.New("agent: the run has already ended")
)

var errCanceled = errors.New("run canceled")

// Errors of Resume.
var (
	// ErrNoAwait: the run is not waiting for anything.
	ErrNoAwait = errors.New("agent: the run awaits nothing")
	// ErrAwaitMismatch: the answer is for another await, or of the wrong
	// kind, than the one pending.
	ErrAwaitMismatch = errors.New("agent: the answer does not match what the run awaits")
)

// ErrUnknownVariable is returned for a name that is not a variable.
var ErrUnknownVariable = errors.New("agent: unknown variable")
