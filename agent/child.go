package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/byref/byref/action"
	"github.com/byref/byref/run"
)

// ParentOf returns the link to the run and tool call executing, for an
// action that starts a child run (as AsAction does): set it as the
// child's RunOptions.Parent. It reports false outside a run's tool call.
func ParentOf(ctx context.Context) (*Parent, bool) {
	info, ok := ctx.Value(callKey{}).(*callInfo)
	if !ok || info.run == nil {
		return nil, false
	}
	return &Parent{RunID: info.run.id, CallID: info.callID, Run: info.run}, true
}

// Child describes an agent that other agents can call as an action:
// each call starts a child run on Agent, linked to the caller's run and
// tool call.
type Child struct {
	// Name and Description are the action's.
	Name, Description string
	// Agent runs the child runs; it is shared by all of them. An agent
	// with no Options.Store records its child runs into the parent's
	// store.
	Agent *Agent
	// Run is the template of the child run's options; Task is set from the
	// call, and Parent from the calling run.
	Run RunOptions
}

// AsAction returns an action that runs the agent: it takes a task and
// returns the child run's result as JSON. The child run's RunCreated names
// its parent run and tool call, the parent's log records ChildRunStarted and
// ChildRunFinished, and cancelling the parent cancels the child.
func AsAction(spec Child) (*action.Action, error) {
	if spec.Agent == nil {
		return nil, &action.SpecError{Action: spec.Name, Err: errors.New("Child.Agent is nil; give the agent (agent.New) that runs the child runs")}
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

func runChild(ctx context.Context, spec Child, task string) (json.RawMessage, error) {
	if info, ok := ctx.Value(callKey{}).(*callInfo); ok && len(info.sensitive) > 0 {
		// The task is text for the child's model: a secret in it would
		// reach a model.
		return nil, fmt.Errorf("agent %s cannot be given %s: it is a secret or derived from one, and the task is read by the agent's model; give the agent a task without it", spec.Name, strings.Join(info.sensitive, ", "))
	}
	opts := spec.Run
	opts.Task = task
	parent, hasParent := ParentOf(ctx)
	if hasParent {
		opts.Parent = parent
		if opts.Name == "" {
			opts.Name = spec.Name
		}
	}
	h, err := spec.Agent.Start(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("starting agent %s: %w", spec.Name, err)
	}
	if hasParent {
		_ = parent.Run.rec.append(ctx, run.ChildRunStarted{Child: h.id, CallID: parent.CallID, Name: opts.Name})
	}
	stop := context.AfterFunc(ctx, func() { _ = h.Cancel(context.Background()) })
	o, _ := h.Wait(context.Background())
	stop()
	if hasParent {
		_ = parent.Run.rec.append(ctx, run.ChildRunFinished{Child: h.id, CallID: parent.CallID, Status: o.Status, Result: o.Result, Error: o.Reason})
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
