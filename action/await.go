package action

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrNeedsHuman is wrapped by AuthorizationRequired and InputRequired: the
// errors through which an action asks its run to wait for a person or
// another system.
var ErrNeedsHuman = errors.New("action: needs a human")

// AuthorizationRequired is the error an action returns when the user must
// authorize something first (sign in to a service, grant a scope). The run
// awaits an authorization with the link; once resumed with approval, the
// call is made again. Outside a run it is an ordinary error.
type AuthorizationRequired struct {
	// Link is where the user authorizes.
	Link string
	// Message says what is being authorized, for the user.
	Message string
}

// Error says what is to be authorized, and where.
func (e *AuthorizationRequired) Error() string {
	return fmt.Sprintf("authorization required: %s (%s)", e.Message, e.Link)
}

// Unwrap returns ErrNeedsHuman.
func (e *AuthorizationRequired) Unwrap() error { return ErrNeedsHuman }

// InputRequired is the error an action returns when it needs input from
// outside the run (a reviewer's data, a webhook's payload). The run awaits
// input; once resumed, the call is made again and Input returns what was
// given.
type InputRequired struct {
	// Message says what input is needed.
	Message string
	// Client reports a call whose execution belongs to the run's client
	// (an AG-UI front end's tool): the client runs it and answers with its
	// result, which the action returns as given. The log marks the call
	// as answered by the client (run.AwaitRequested.Client), and replay
	// code uses the recorded answer as its result instead of calling a
	// function.
	Client bool
}

// Error says what input is needed.
func (e *InputRequired) Error() string { return "input required: " + e.Message }

// Unwrap returns ErrNeedsHuman.
func (e *InputRequired) Unwrap() error { return ErrNeedsHuman }

type inputKey struct{}

// WithInput returns a context carrying external input for the retried call
// of an action that returned InputRequired. The runtime calls it.
func WithInput(ctx context.Context, input json.RawMessage) context.Context {
	return context.WithValue(ctx, inputKey{}, input)
}

// Input returns the external input given to the run for this call, after
// the action returned InputRequired and the run was resumed.
func Input(ctx context.Context) (json.RawMessage, bool) {
	in, ok := ctx.Value(inputKey{}).(json.RawMessage)
	return in, ok
}
