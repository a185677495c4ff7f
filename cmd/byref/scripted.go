package main

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/byref/byref/action"
	"github.com/byref/byref/agent"
	"github.com/byref/byref/llm"
)

// scripts are the scripted models --model scripted:NAME selects. They are
// for tests and demos, not listed in the help.
var scripts = map[string]func(llm.Request) (llm.Response, error){
	// hello answers at once.
	"hello": func(req llm.Request) (llm.Response, error) {
		return llm.Text("Hello from the scripted model."), nil
	},
	// approval runs a Go snippet (which --approve ask asks about), then
	// returns the variable it set.
	"approval": approvalScript,
	// escapes writes terminal escape sequences, a carriage return and a
	// bidirectional override into the code it asks to run and into its
	// answer, as a hostile model could.
	"escapes": func(req llm.Request) (llm.Response, error) {
		if lastTool(req) == nil {
			return llm.CallTool(agent.RunGoName, `{"code":"answer := 6 * 7 // \u001b[2K\u001b[1A\r\u202eevil"}`), nil
		}
		return llm.Text("done\u001b[2J\u001b[H\u009b31m"), nil
	},
	// session makes answer in a snippet, unless its system prompt lists
	// answer (an earlier run of the session left it), then returns it.
	"session": func(req llm.Request) (llm.Response, error) {
		if lastTool(req) == nil && !strings.Contains(req.Messages[0].Text, "answer (int)") {
			return llm.CallTool(agent.RunGoName, `{"code":"answer := 6 * 7"}`), nil
		}
		return llm.CallTool(action.TerminateName, `{"success":true,"result":"<<var:answer>>"}`), nil
	},
	// cluster is the cluster test's model: it answers a task that starts
	// with "ask" by running a Go snippet (which --approve on_tool_call asks
	// about), then returning the variable it set; any other task by
	// returning at once.
	"cluster": func(req llm.Request) (llm.Response, error) {
		if !strings.HasPrefix(task(req), "ask") {
			return llm.CallTool(action.TerminateName, `{"success":true,"result":"done"}`), nil
		}
		return approvalScript(req)
	},
	// question asks the user's name, then greets them.
	"question": func(req llm.Request) (llm.Response, error) {
		if tool := lastTool(req); tool != nil {
			return llm.Text("Thanks for answering."), nil
		}
		return llm.CallTool(action.AskUserName, `{"question":"What is your name?"}`), nil
	},
}

// approvalScript is the script of scripted:approval.
func approvalScript(req llm.Request) (llm.Response, error) {
	tool := lastTool(req)
	switch {
	case tool == nil:
		return llm.CallTool(agent.RunGoName, `{"code":"answer := 6 * 7"}`), nil
	case strings.Contains(tool.Text, "denied"):
		return llm.Text("The snippet was not approved, so there is no answer."), nil
	}
	return llm.CallTool(action.TerminateName, `{"success":true,"result":"<<var:answer>>"}`), nil
}

// lastTool returns the latest tool message after the task, or nil.
func lastTool(req llm.Request) *llm.Message {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		switch req.Messages[i].Role {
		case llm.RoleTool:
			return &req.Messages[i]
		case llm.RoleUser:
			return nil
		}
	}
	return nil
}

// task returns the text of the request's first user message.
func task(req llm.Request) string {
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			return m.Text
		}
	}
	return ""
}

// lifecycle is the scripted model --model scripted:lifecycle selects, for
// tests of a server that stops: a task "sleep DURATION: …" makes the
// run's first model call take that long (or until the run is stopped),
// then answer; any other task plays the approval script.
type lifecycle struct{}

// Generate implements llm.Model.
func (lifecycle) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	task := task(req)
	spec, ok := strings.CutPrefix(task, "sleep ")
	if !ok {
		return approvalScript(req)
	}
	d, err := time.ParseDuration(strings.TrimSpace(strings.SplitN(spec, ":", 2)[0]))
	if err != nil {
		return llm.Response{}, fmt.Errorf("scripted:lifecycle: %q: say sleep DURATION: …", task)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return llm.Text("Slept " + d.String() + "."), nil
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	}
}

// scriptedModel returns the scripted model NAME of a spec
// "scripted:NAME[?delay=DURATION]": with a delay, every answer comes
// after it, as a provider's would (for tests of load and failover).
func scriptedModel(spec string) (llm.Model, error) {
	name, query, _ := strings.Cut(spec, "?")
	m, err := scriptedNamed(name)
	if err != nil || query == "" {
		return m, err
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("scripted:%s: %v; say scripted:%s?delay=100ms", spec, err, name)
	}
	d, err := time.ParseDuration(q.Get("delay"))
	if err != nil || d < 0 || len(q) != 1 {
		return nil, fmt.Errorf("scripted:%s: the one option is delay, a duration: scripted:%s?delay=100ms", spec, name)
	}
	return delayed{m: m, d: d}, nil
}

// delayed is a model that answers after a delay.
type delayed struct {
	m llm.Model
	d time.Duration
}

// Generate implements llm.Model: it waits d (or until ctx is done), then
// asks m.
func (m delayed) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	t := time.NewTimer(m.d)
	defer t.Stop()
	select {
	case <-t.C:
		return m.m.Generate(ctx, req)
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	}
}

// scriptedNamed returns the scripted model of a name.
func scriptedNamed(name string) (llm.Model, error) {
	if name == "lifecycle" {
		return lifecycle{}, nil
	}
	fn, ok := scripts[name]
	if !ok {
		names := []string{"scripted:lifecycle"}
		for n := range scripts {
			names = append(names, "scripted:"+n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("no scripted model %q; the scripted models are %s (each takes ?delay=DURATION to answer after it)", name, strings.Join(names, ", "))
	}
	return llm.NewScriptedFunc(fn), nil
}
