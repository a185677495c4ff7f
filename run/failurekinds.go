package run

import "fmt"

// More kinds of failure: the ones an agent's own code, the model's
// provider, the clock or the host cause. Servers map them onto their
// protocols' error codes (ACP: FailureInvalidInput is invalid_input, every
// other kind server_error).
const (
	// FailureInvalidInput means the run's input cannot be worked on: an
	// action returned a [FailureError] of this kind after looking at it.
	FailureInvalidInput FailureKind = "invalid_input"
	// FailureModel means the model could not be called: its provider
	// failed past the retries.
	FailureModel FailureKind = "model_error"
	// FailureTimeout means an await was not answered in time.
	FailureTimeout FailureKind = "timeout"
	// FailureAction means an action failed the run on purpose (a
	// [FailureError] without a more precise kind).
	FailureAction FailureKind = "action_error"
	// FailureInterrupted means the process running the run stopped in the
	// middle of a step.
	FailureInterrupted FailureKind = "interrupted"
	// FailureGaveUp means the model gave up: it called terminate with
	// success false. The run's error message keeps the model's reason.
	FailureGaveUp FailureKind = "gave_up"
)

// FailureError is an error an action returns to fail its run, rather than
// report the error to the model as a failed call: the run fails with Kind
// and Message (recorded in an [Error] event with Failure set). Return it
// wrapped or not; Fail makes one.
type FailureError struct {
	Kind    FailureKind
	Message string
}

// Error implements error.
func (e *FailureError) Error() string { return string(e.Kind) + ": " + e.Message }

// Fail returns a *FailureError of the kind, its message formatted as by
// fmt.Sprintf. An empty kind is FailureAction.
func Fail(kind FailureKind, format string, args ...any) error {
	if kind == "" {
		kind = FailureAction
	}
	return &FailureError{Kind: kind, Message: fmt.Sprintf(format, args...)}
}
