package agent

import "github.com/byref/byref/run"

// Approval is a run's approval strategy: run.Approval, which the run's
// log records.
type Approval = run.Approval

// The approval strategies (package run's, named here too).
const (
	// ApproveNone runs everything without asking (the default), except
	// actions declared with NeedsApproval.
	ApproveNone = run.ApproveNone
	// ApproveOnStart has the model state a plan first; nothing runs until a
	// human approves it.
	ApproveOnStart = run.ApproveOnStart
	// ApproveOnToolCall asks before every tool call and every snippet.
	ApproveOnToolCall = run.ApproveOnToolCall
)

// pendingAwait is the await a run's loop is blocked on. ready is closed
// once the move to awaiting is recorded (or failed): Resume waits for it,
// so an answer that comes at once is never refused by the lifecycle.
type pendingAwait struct {
	req    run.AwaitRequested
	answer chan resumed
	ready  chan struct{}
}

// resumed is what Resume hands the waiting loop: the answer, or why it
// could not be recorded (the loop then stops waiting rather than hang).
type resumed struct {
	answer run.Answer
	err    error
}

func newPendingAwait(req run.AwaitRequested, ready bool) *pendingAwait {
	p := &pendingAwait{req: req, answer: make(chan resumed, 1), ready: make(chan struct{})}
	if ready {
		close(p.ready)
	}
	return p
}
