package agent

import (
	"context"

	"github.com/byref/byref/action"
	"github.com/byref/byref/llm"

	"github.com/byref/byref/run"
)

// MaxProgress bounds the message of one progress report, in bytes.
const MaxProgress = 1 << 10

// Progress records a message about the tool call running in ctx (what a
// long action has done so far, a remote agent's status) in the run's log
// at once, as a run.Progress event: people watching the run see it in the
// snapshot, the inspector and the protocols' streams; the model does not.
// The message is cut to MaxProgress bytes and redacted like the call's
// output (hidden when the call was given a secret). Outside a run's call,
// as in State.Execute, it does nothing and returns nil; it returns the
// store's error when the event cannot be appended.
func Progress(ctx context.Context, message string) error {
	info, ok := ctx.Value(callKey{}).(*callInfo)
	if !ok || info.run == nil {
		return nil
	}
	if len(info.sensitive) > 0 {
		message = hiddenOutput
	} else if st := info.run.st; st != nil {
		message = st.redacted(message)
	}
	return info.run.rec.append(ctx, run.Progress{CallID: info.callID, Message: clip(message, MaxProgress)})
}

// IDs implements action.Call.
func (c *callInfo) IDs() (string, string) {
	if c.run == nil {
		return "", c.callID
	}
	return string(c.run.id), c.callID
}

// Progress implements action.Call: the run's log, or, for a call outside
// a run, the call its caller's context carried (see State.Execute).
func (c *callInfo) Progress(ctx context.Context, message string) error {
	if c.run == nil && c.outer != nil {
		if len(c.sensitive) > 0 {
			message = hiddenOutput
		}
		return c.outer.Progress(ctx, clip(message, MaxProgress))
	}
	return Progress(ctx, message)
}

// Done implements action.Ending: closed once the run is cancelling,
// canceled or failed; for a bare Execute, the Done of the call its
// caller's context carried, if it has one.
func (c *callInfo) Done() <-chan struct{} {
	if c.run == nil {
		if e, ok := c.outer.(action.Ending); ok {
			return e.Done()
		}
		return nil
	}
	return c.run.rec.stopped()
}

// Model returns the model of the run the call is part of, nil outside a
// run: an MCP client serves its server's sampling requests with it when
// its host allows (mcp.ConnectOptions.SampleWithRunModel). The tokens such
// requests spend count in the run's usage: the call's record in the log
// carries them (run.ToolCallCompleted.Usage).
func (c *callInfo) Model() llm.Model {
	if c.run == nil {
		return nil
	}
	if c.sampled == nil {
		return c.run.model
	}
	return sampledModel{m: c.run.model, spent: c.sampled}
}

// callInfo is what a running call knows of where it runs.
type callInfo struct {
	run    *Handle // nil for a bare State.Execute
	callID string
	// sensitive names the secret or tainted variables the call was given
	// (for a snippet: that it read).
	sensitive []string
	// outer is the call the context of a bare Execute carried, which
	// takes the call's progress.
	outer action.Call
	// sampled totals what the call spent of the run's model (Model); nil
	// when the call's record cannot carry it (a snippet).
	sampled *sampling
}

type callKey struct{}
