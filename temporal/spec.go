package temporal

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
	"github.com/byref/byref/runtime"
)

// RunSpec is the part of runtime.RunOptions that travels through Temporal:
// everything but the model, the values and the status hook, which are the
// worker's (Agent.Run).
type RunSpec struct {
	ID             string            `json:"id,omitempty"`
	Session        string            `json:"session,omitempty"`
	Turn           string            `json:"turn,omitempty"`
	Name           string            `json:"name,omitempty"`
	Tags           map[string]string `json:"tags,omitempty"`
	Task           string            `json:"task,omitempty"`
	Message        json.RawMessage   `json:"message,omitempty"`
	Input          json.RawMessage   `json:"input,omitempty"`
	InputSchema    json.RawMessage   `json:"input_schema,omitempty"`
	ResultSchema   json.RawMessage   `json:"result_schema,omitempty"`
	Actions        []string          `json:"actions,omitempty"`
	NonInteractive bool              `json:"non_interactive,omitempty"`
	Instructions   string            `json:"instructions,omitempty"`
	ModelName      string            `json:"model_name,omitempty"`
	Limits         runtime.Limits    `json:"limits,omitzero"`
	Approval       runtime.Approval  `json:"approval,omitempty"`
	AwaitTimeout   time.Duration     `json:"await_timeout,omitempty"`
	ToolLimit      int               `json:"tool_limit,omitempty"`
	History        []llm.Message     `json:"history,omitempty"`
}

// errLocal is returned by SpecOf for options that cannot leave the
// process.
var errLocal = errors.New("temporal: RunOptions.Model, Variables, Parent and OnStatus cannot travel to a worker; set them in the worker's Agent.Run")

// SpecOf returns the part of opts that travels to a worker, or an error
// when opts sets what cannot travel (Model, Variables, Parent, OnStatus).
func SpecOf(opts runtime.RunOptions) (RunSpec, error) {
	if opts.Model != nil || len(opts.Variables) > 0 || opts.Parent != nil || opts.OnStatus != nil {
		return RunSpec{}, errLocal
	}
	return RunSpec{
		ID: string(opts.ID), Session: string(opts.Session), Turn: string(opts.Turn), Name: opts.Name, Tags: opts.Tags,
		Task: opts.Task, Message: opts.Message, Input: opts.Input, InputSchema: opts.InputSchema, ResultSchema: opts.ResultSchema,
		Actions: opts.Actions, NonInteractive: opts.NonInteractive, Instructions: opts.Instructions,
		ModelName: opts.ModelName, Limits: opts.Limits, Approval: opts.Approval, AwaitTimeout: opts.AwaitTimeout,
		ToolLimit: opts.ToolLimit, History: opts.History,
	}, nil
}

// options merges the spec into the worker's template: the spec's fields
// win where it sets them; the template keeps the model, the values and the
// status hook. The run is driven.
func (s RunSpec) options(template runtime.RunOptions) runtime.RunOptions {
	o := template
	o.ID, o.Session, o.Turn, o.Task, o.Input = run.ID(s.ID), run.SessionID(s.Session), run.TurnID(s.Turn), s.Task, s.Input
	o.Message = s.Message
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&o.Name, s.Name)
	set(&o.Instructions, s.Instructions)
	set(&o.ModelName, s.ModelName)
	if s.Tags != nil {
		o.Tags = s.Tags
	}
	if len(s.InputSchema) > 0 {
		o.InputSchema = s.InputSchema
	}
	if len(s.ResultSchema) > 0 {
		o.ResultSchema = s.ResultSchema
	}
	if s.Actions != nil {
		o.Actions = s.Actions
	}
	o.NonInteractive = o.NonInteractive || s.NonInteractive
	if s.Limits != (runtime.Limits{}) {
		o.Limits = s.Limits
	}
	if s.Approval != "" {
		o.Approval = s.Approval
	}
	if s.AwaitTimeout > 0 {
		o.AwaitTimeout = s.AwaitTimeout
	}
	if s.ToolLimit > 0 {
		o.ToolLimit = s.ToolLimit
	}
	if s.History != nil {
		o.History = s.History
	}
	o.Driven = true
	return o
}
