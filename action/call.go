package action

import "context"

// Call is what the context of an action's call knows of the tool call it
// runs for, set by the runtime: which call it is, and where its progress
// goes. Packages that must not import the runtime (an MCP client, for
// one) reach it through CallOf and Progress.
type Call interface {
	// IDs returns the run's ID and the tool call's ID. A retried call (after
	// InputRequired or AuthorizationRequired) has the same IDs.
	IDs() (run, call string)
	// Progress records a message about the call's progress in the run's
	// log (agent.Progress).
	Progress(ctx context.Context, message string) error
}

// Ending is implemented by a Call that can tell when the run it is part
// of stops for good (the runtime's calls do). An action whose work
// outlives the attempt that returned InputRequired or
// AuthorizationRequired (an MCP call parked on its server's question)
// selects on Done to let go of that work when the run will not come
// back to it. Probe it with RunDone.
type Ending interface {
	// Done returns a channel closed once the run is cancelling, canceled
	// or failed (an await that timed out fails its run). A completed run
	// is not done: a follow-up may go on with it.
	Done() <-chan struct{}
}

// RunDone returns the Done channel of the run ctx's call is part of
// (see Ending); nil, which never becomes ready, outside a run's call or
// when the call cannot tell.
func RunDone(ctx context.Context) <-chan struct{} {
	if c, ok := CallOf(ctx); ok {
		if e, ok := c.(Ending); ok {
			return e.Done()
		}
	}
	return nil
}

type callKey struct{}

// WithCall returns a context carrying the call. The runtime calls it.
func WithCall(ctx context.Context, c Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallOf returns the tool call the context's action runs for; false
// outside a run's call.
func CallOf(ctx context.Context) (Call, bool) {
	c, ok := ctx.Value(callKey{}).(Call)
	return c, ok
}

// Progress records a message about the progress of the call ctx runs
// (agent.Progress: the inspector and the protocols' streams show it, the
// model does not). Outside a run's call it does nothing and returns nil.
func Progress(ctx context.Context, message string) error {
	if c, ok := CallOf(ctx); ok {
		return c.Progress(ctx, message)
	}
	return nil
}
