package agent

import (
	"context"

	"github.com/byref/byref/run"
)

// Controller is what a program does with a run, wherever the run executes:
// a *Handle controls a run in this process; package temporal controls a run
// executing as a Temporal workflow on other processes. The server serves
// runs through it, so its handlers do not depend on where runs execute.
type Controller interface {
	// ID returns the run's ID.
	ID() run.ID
	// Wait blocks until the run's current turn ends or ctx is done.
	Wait(ctx context.Context) (Outcome, error)
	// Status returns the run's current status.
	Status() run.Status
	// Pending returns what the run awaits, if anything.
	Pending() (run.AwaitRequested, bool)
	// Resume answers what the run awaits; see Handle.Resume for the errors.
	Resume(ctx context.Context, awaitID string, answer run.Answer) error
	// Cancel asks the run to stop; see Handle.Cancel.
	Cancel(ctx context.Context) error
	// FollowUp sends a message to a completed, interactive run; see
	// Handle.FollowUp.
	FollowUp(ctx context.Context, text string) error
}

var _ Controller = (*Handle)(nil)
