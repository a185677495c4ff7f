package temporal

import (
	"encoding/json"
	"errors"

	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// RunSpec is the part of agent.RunOptions that travels through Temporal:
// everything but the model, the values and the status hook, which are the
// worker's (Agent.Run). Spec is the options a run's log records, as it
// records them.
type RunSpec struct {
	ID      string            `json:"id,omitempty"`
	Session string            `json:"session,omitempty"`
	Turn    string            `json:"turn,omitempty"`
	Name    string            `json:"name,omitempty"`
	Tags    map[string]string `json:"tags,omitempty"`
	Message json.RawMessage   `json:"message,omitempty"`
	Input   json.RawMessage   `json:"input,omitempty"`
	History []llm.Message     `json:"history,omitempty"`
	Spec    run.Spec          `json:"spec,omitzero"`
}

// errLocal is returned by SpecOf for options that cannot leave the
// process.
var errLocal = errors.New("temporal: RunOptions.Model, Variables, Parent and OnStatus cannot travel to a worker; set them in the worker's Agent.Run")

// SpecOf returns the part of opts that travels to a worker, or an error
// when opts sets what cannot travel (Model, Variables, Parent, OnStatus).
func SpecOf(opts agent.RunOptions) (RunSpec, error) {
	if opts.Model != nil || len(opts.Variables) > 0 || opts.Parent != nil || opts.OnStatus != nil {
		return RunSpec{}, errLocal
	}
	return RunSpec{
		ID: string(opts.ID), Session: string(opts.Session), Turn: string(opts.Turn), Name: opts.Name, Tags: opts.Tags,
		Message: opts.Message, Input: opts.Input, History: opts.History, Spec: opts.Spec(),
	}, nil
}

// options merges the spec into the worker's template: the spec's fields
// win where it sets them; the template keeps the model, the values and the
// status hook. The run is driven.
func (s RunSpec) options(template agent.RunOptions) agent.RunOptions {
	o := template
	o.ID, o.Session, o.Turn, o.Task, o.Input = run.ID(s.ID), run.SessionID(s.Session), run.TurnID(s.Turn), s.Spec.Task, s.Input
	o.Message = s.Message
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&o.Name, s.Name)
	set(&o.Instructions, s.Spec.Instructions)
	set(&o.ModelName, s.Spec.ModelName)
	if s.Tags != nil {
		o.Tags = s.Tags
	}
	if len(s.Spec.InputSchema) > 0 {
		o.InputSchema = s.Spec.InputSchema
	}
	if len(s.Spec.ResultSchema) > 0 {
		o.ResultSchema = s.Spec.ResultSchema
	}
	if s.Spec.Actions != nil {
		o.Actions = s.Spec.Actions
	}
	o.NonInteractive = o.NonInteractive || s.Spec.NonInteractive
	if s.Spec.Limits != (agent.Limits{}) {
		o.Limits = s.Spec.Limits
	}
	if s.Spec.Approval != "" {
		o.Approval = s.Spec.Approval
	}
	if s.Spec.AwaitTimeout > 0 {
		o.AwaitTimeout = s.Spec.AwaitTimeout
	}
	if s.Spec.ToolLimit > 0 {
		o.ToolLimit = s.Spec.ToolLimit
	}
	if s.History != nil {
		o.History = s.History
	}
	o.Driven = true
	return o
}
