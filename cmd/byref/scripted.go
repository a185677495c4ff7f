package main

import (
	"context"
	"fmt"
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
	"approval": func(req llm.Request) (llm.Response, error) {
		tool := lastTool(req)
		switch {
		case tool == nil:
			return llm.CallTool(agent.RunGoName, `{"code":"answer := 6 * 7"}`), nil
		case strings.Contains(tool.Text, "denied"):
			return llm.Text("The snippet was not approved, so there is no answer."), nil
		}
		return llm.CallTool(action.TerminateName, `{"success":true,"result":"<<var:answer>>"}`), nil
	},
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
	// question asks the user's name, then greets them.
	"question": func(req llm.Request) (llm.Response, error) {
		if tool := lastTool(req); tool != nil {
			return llm.Text("Thanks for answering."), nil
		}
		return llm.CallTool(action.AskUserName, `{"question":"What is your name?"}`), nil
	},
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

// lifecycle is the scripted model --model scripted:lifecycle selects, for
// tests of a server that stops: a task "sleep DURATION: …" makes the
// run's first model call take that long (or until the run is stopped),
// then answer; any other task plays the approval script.
type lifecycle struct{}

// Generate implements llm.Model.
func (lifecycle) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	task := ""
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			task = m.Text
			break
		}
	}
	spec, ok := strings.CutPrefix(task, "sleep ")
	if !ok {
		return scripts["approval"](req)
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

func scriptedModel(name string) (llm.Model, error) {
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
		return nil, fmt.Errorf("no scripted model %q; the scripted models are %s", name, strings.Join(names, ", "))
	}
	return llm.NewScriptedFunc(fn), nil
}
