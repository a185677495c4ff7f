package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/byref/byref/llm"
	"github.com/byref/byref/run"
)

// FromRun turns a stored run into a case named name, for the sets agent
// (set.Agent, which ran it; set.Types decodes its starting variables): its task, input, options and starting variables (but the
// agent's own); its outcome and trajectory as expectations (the status,
// the result, exactly its calls with their arguments, every reference it
// passed, no copied values, at most its steps, the approvals it asked);
// the answers it was given; and its model exchanges as a cassette.
//
// A run's log keeps the model's answers but not the requests, so the
// cassette is made by running the case once on the logged answers, in
// order, recording the requests; FromRun fails when that run does not meet
// the case's expectations, that is when the agent no longer does what the
// log says. A secret starting variable is not in the log: the case names
// it without a value, to be set by hand.
func FromRun(ctx context.Context, events []run.Event, name string, set *Set) (*Case, error) {
	agent := set.Agent
	if len(events) == 0 {
		return nil, errors.New("eval: the run has no events")
	}
	created, ok := events[0].Payload.(run.RunCreated)
	if !ok {
		return nil, errors.New("eval: the log does not start with the run's creation")
	}
	snap := run.Fold(events)
	if !snap.Status.Terminal() {
		return nil, fmt.Errorf("eval: run %s is %s; a case is made from a run that ended", snap.RunID, snap.Status)
	}
	if names := clientCalls(events); len(names) > 0 {
		return nil, fmt.Errorf("eval: run %s called %s, tools its client ran and answered (AG-UI front-end tools); an eval has no client to run them, and the log does not keep the tools the client sent, so a case could not replay: make the case from a run without front-end tools, or write it by hand for an agent with Go actions that stand in for them", snap.RunID, strings.Join(names, ", "))
	}
	o := created.Options
	c := &Case{
		Name: name, Description: fmt.Sprintf("made from run %s by byref eval add", snap.RunID), Task: o.Task, Input: created.Input,
		Options: CaseOptions{Instructions: o.Instructions, Approval: o.Approval, MaxSteps: o.MaxSteps, MaxTokens: o.MaxTokens,
			InputSchema: o.InputSchema, ResultSchema: o.ResultSchema, Actions: o.Actions, ToolLimit: o.ToolLimit},
	}
	own := map[string]bool{"input": true}
	for _, v := range agent.Variables {
		own[v.Name] = true
	}
	responses := responsesOf(events)
	var calls []CallSpec
	refs := map[string]bool{}
	approved := map[string]bool{}
	awaits := map[string]run.AwaitRequested{}
	for _, e := range events {
		switch p := e.Payload.(type) {
		case run.VariableCreated:
			if p.Step != 0 || own[p.Variable.Name] {
				continue
			}
			v := Var{Name: p.Variable.Name, Type: p.Variable.Type, JSON: p.Value, Secret: p.Secret}
			if p.Secret || p.Tainted || len(p.Value) == 0 {
				v.Description = "its value is not in the log: set it by hand"
			}
			c.Variables = append(c.Variables, v)
		case run.ToolCallScheduled:
			if p.Call.Name == "terminate" {
				continue
			}
			spec := CallSpec{Action: p.Call.Name}
			if err := json.Unmarshal([]byte(p.Call.Arguments), &spec.Args); err != nil {
				spec.Args = nil
			}
			calls = append(calls, spec)
		case run.ToolCallCompleted:
			if p.Resolution == nil {
				continue
			}
			for _, a := range p.Resolution.Args {
				if a.Ref != "" {
					if action := actionOf(events, p.CallID); action != "" && action != "terminate" {
						key := action + "\x00" + a.Param + "\x00" + a.Ref
						if !refs[key] {
							refs[key] = true
							c.Expect = append(c.Expect, GotRef(action, a.Param, a.Ref))
						}
					}
				}
			}
		case run.AwaitRequested:
			awaits[p.ID] = p
		case run.AwaitResolved:
			req := awaits[p.ID]
			switch {
			case req.Await == run.AwaitQuestion:
				c.Replies = append(c.Replies, p.Answer.Text)
			case req.Call != nil && p.Answer.Decision == run.Denied:
				c.Deny = append(c.Deny, req.Call.Name)
			case req.Call != nil && !approved[req.Call.Name]:
				approved[req.Call.Name] = true
				c.Expect = append(c.Expect, ApprovalBefore(req.Call.Name))
			}
		}
	}
	c.Expect = append([]Expectation{Status(snap.Status)}, c.Expect...)
	if snap.FailureKind != "" {
		c.Expect = append(c.Expect, FailureKind(snap.FailureKind))
	}
	if len(snap.Result) > 0 && string(snap.Result) != "null" {
		c.Expect = append(c.Expect, Equal(snap.Result))
	}
	c.Expect = append(c.Expect, CalledExactly(calls...), NoCopies(), MaxSteps(len(responses)))

	// Bind the logged answers to the requests they answer.
	one := &Set{Name: set.Name, Agent: agent, Types: set.Types, Predicates: set.Predicates, Cases: []*Case{c}}
	r, err := Run(ctx, one, Options{Model: &sequence{responses: responses}, ModelName: o.ModelName, Record: true, Parallel: 1})
	if err != nil {
		return nil, err
	}
	if t := r.Cases[0].Trials[0]; !t.Passed {
		var why []string
		for _, f := range t.Failures {
			why = append(why, f.Expectation+": "+f.Diff)
		}
		return nil, fmt.Errorf("eval: run %s could not be reproduced from its log with this agent: %s", snap.RunID, strings.Join(why, "; "))
	}
	return c, nil
}

// clientCalls names, once each in order, the tools of the run's client
// (run.AwaitRequested.Client) the run called.
func clientCalls(events []run.Event) []string {
	var out []string
	for _, e := range events {
		if p, ok := e.Payload.(run.AwaitRequested); ok && p.Client && p.Call != nil && !slices.Contains(out, p.Call.Name) {
			out = append(out, p.Call.Name)
		}
	}
	return out
}

func actionOf(events []run.Event, callID string) string {
	for _, e := range events {
		if p, ok := e.Payload.(run.ToolCallScheduled); ok && p.Call.ID == callID {
			return p.Call.Name
		}
	}
	return ""
}

// responsesOf rebuilds the model's answers from a log: every model call
// records its usage first, then its text and its tool calls.
func responsesOf(events []run.Event) []llm.Response {
	var out []llm.Response
	last := func() *llm.Response {
		if len(out) == 0 {
			out = append(out, llm.Response{StopReason: llm.StopEnd})
		}
		return &out[len(out)-1]
	}
	for _, e := range events {
		switch p := e.Payload.(type) {
		case run.Usage:
			out = append(out, llm.Response{StopReason: llm.StopEnd, Usage: llm.Usage{InputTokens: int(p.InputTokens), OutputTokens: int(p.OutputTokens),
				CacheReadTokens: int(p.CacheReadTokens), CacheWriteTokens: int(p.CacheWriteTokens)}})
		case run.AssistantMessage:
			r := last()
			r.Text, r.Reasoning = p.Text, p.Reasoning
			r.Thinking = append(r.Thinking, p.Thinking...)
		case run.ToolCallScheduled:
			r := last()
			r.ToolCalls = append(r.ToolCalls, p.Call)
			r.StopReason = llm.StopToolCalls
		case run.Error:
			switch p.Failure {
			case run.FailureRefusal:
				r := last()
				r.StopReason, r.Refusal = llm.StopRefusal, p.Refusal
			case run.FailureContentFilter:
				last().StopReason = llm.StopContentFilter
			case run.FailureMaxTokens:
				last().StopReason = llm.StopMaxTokens
			}
		}
	}
	return out
}

// sequence answers the n-th call with the n-th response.
type sequence struct {
	mu        sync.Mutex
	responses []llm.Response
	next      int
}

// Generate returns the next response, whatever req is.
func (s *sequence) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next >= len(s.responses) {
		return llm.Response{}, fmt.Errorf("eval: the log has %d model answers, and the agent asked for more", len(s.responses))
	}
	s.next++
	return s.responses[s.next-1], nil
}
