package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/byref/byref/action"
	"github.com/byref/byref/run"
)

// parentLink ties a child run to the tool call of its parent that started
// it.
type parentLink struct {
	run    run.ID
	callID string
}

// callInfo is what a running call knows of where it runs; actions that
// start child runs read it from their context.
type callInfo struct {
	rt     *Runtime
	callID string
}

type callKey struct{}

// AgentSpec describes an agent that other runtimes can call as an action:
// each call starts a child run on a fresh Runtime, linked to the caller's
// run and tool call.
type AgentSpec struct {
	// Name and Description are the action's.
	Name, Description string
	// New returns a fresh Runtime (its actions, variables and model) for
	// one call. A runtime with no Store records into the parent's store.
	New func() (*Runtime, error)
	// Run is the template of the child run's options; Task is set from the
	// call.
	Run RunOptions
}

// AgentAction returns an action that runs the agent: it takes a task and
// returns the child run's result as JSON. The child run's RunCreated names
// its parent run and tool call, the parent's log records ChildRunStarted and
// ChildRunFinished, and cancelling the parent cancels the child.
func AgentAction(spec AgentSpec) (*action.Action, error) {
	if spec.New == nil {
		return nil, &action.SpecError{Action: spec.Name, Err: errors.New("AgentSpec.New is nil; give a function that builds the agent's Runtime")}
	}
	return action.New(action.Spec{
		Name:        spec.Name,
		Description: spec.Description,
		Params:      []action.Param{{Name: "task", Description: "What the agent should do, in full: it does not see this conversation."}},
		Result:      "the agent's result, as JSON",
		Func: func(ctx context.Context, task string) (json.RawMessage, error) {
			return runChild(ctx, spec, task)
		},
	})
}

func runChild(ctx context.Context, spec AgentSpec, task string) (json.RawMessage, error) {
	child, err := spec.New()
	if err != nil {
		return nil, fmt.Errorf("starting agent %s: %w", spec.Name, err)
	}
	opts := spec.Run
	opts.Task = task
	var parent *Handle
	if info, ok := ctx.Value(callKey{}).(*callInfo); ok {
		info.rt.runMu.Lock()
		parent = info.rt.active
		info.rt.runMu.Unlock()
		if parent != nil && parent.finished() {
			parent = nil // a bare Execute after the run ended: no parent run
		}
		if parent != nil {
			opts.parent = &parentLink{run: parent.id, callID: info.callID}
			if child.opts.Store == nil {
				child.opts.Store = parent.rec.store
			}
			if opts.Name == "" {
				opts.Name = spec.Name
			}
		}
	}
	h, err := child.Start(context.WithoutCancel(ctx), opts)
	if err != nil {
		return nil, fmt.Errorf("starting agent %s: %w", spec.Name, err)
	}
	if parent != nil {
		_ = parent.rec.append(ctx, run.ChildRunStarted{Child: h.id, CallID: opts.parent.callID, Name: opts.Name})
	}
	stop := context.AfterFunc(ctx, func() { _ = h.Cancel(context.Background()) })
	o, _ := h.Wait(context.Background())
	stop()
	if parent != nil {
		_ = parent.rec.append(ctx, run.ChildRunFinished{Child: h.id, CallID: opts.parent.callID, Status: o.Status, Result: o.Result, Error: o.Reason})
	}
	switch {
	case o.Status == run.StatusCompleted && o.OK():
		return o.Result, nil
	case o.Status == run.StatusCompleted:
		return nil, fmt.Errorf("agent %s finished without a result: %s", spec.Name, o.Reason)
	default:
		return nil, fmt.Errorf("agent %s %s: %s", spec.Name, o.Status, o.Reason)
	}
}
